// SPDX-License-Identifier: MIT
// What-if's counting: the log-bucket delay histogram, a frame's 5-tuple, and the first pass over
// a capture that finds its biggest flows.
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/flow.h>

#include "base/internal.h"
#include "gen/gen.h"
#include "gen/whatif.h"

#define SUB	 MQTX_WHATIF_HIST_SUB_BITS
#define SUB_N	 (1u << SUB)
#define MAX_EDGE ((uint64_t)1 << (MQTX_WHATIF_HIST_TOP + 1))

/* ---- the histogram ---- */

/* Below 2^SUB, one bucket per ns; in [2^e, 2^(e+1)) SUB_N buckets of 2^(e - SUB) ns each. */
unsigned mqtx__whatif_hist_bucket(uint64_t ns)
{
	unsigned e;

	if (ns < SUB_N)
		return (unsigned)ns;
	if (ns >= MAX_EDGE)
		return MQTX_WHATIF_HIST_BUCKETS - 1;
	e = 63u - (unsigned)__builtin_clzll(ns);
	return ((e - SUB + 1) << SUB) + (unsigned)((ns >> (e - SUB)) - SUB_N);
}

uint64_t mqtx__whatif_hist_edge(unsigned bucket)
{
	unsigned e = (bucket >> SUB) + SUB - 1;

	if (bucket < SUB_N)
		return bucket;
	return (uint64_t)(SUB_N + (bucket & (SUB_N - 1))) << (e - SUB);
}

void mqtx__whatif_hist_add(struct mqtx_whatif_hist *h, uint64_t ns)
{
	h->b[mqtx__whatif_hist_bucket(ns)]++;
	if (!h->n++ || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

uint64_t mqtx__whatif_pct(const struct mqtx_whatif_hist *h, double p)
{
	uint64_t rank, milli, seen = 0;

	if (!h->n)
		return 0;
	if (p >= 100)
		return h->max;
	/* ceil(p / 100 * n) in whole numbers (p to 1/1000 %): 99.9 % of 1000 is 999, not the
	 * 1000 that rounding the product of doubles would give. */
	milli = (uint64_t)(p * 1000 + 0.5);
	rank = (uint64_t)(((unsigned __int128)milli * h->n + 99999) / 100000);
	if (!rank)
		rank = 1;
	for (unsigned i = 0; i < MQTX_WHATIF_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t v = mqtx__whatif_hist_edge(i);

			/* Every delay lies in [min, max]: closer to the truth, and exact when all
			 * are alike. */
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

/* ---- flows ---- */

void mqtx__whatif_key(const uint8_t *frame, uint32_t len, struct mqtx_whatif_key *k)
{
	struct mqtx_flow_keys fk;

	memset(k, 0, sizeof(*k));
	mqtx_flow_dissect(frame, len, &fk);
	k->n_proto = fk.n_proto;
	k->ip_proto = fk.ip_proto;
	if (fk.flags & MQTX_FLOW_F_IPV4) {
		memcpy(k->src, &fk.addrs.v4.src, 4);
		memcpy(k->dst, &fk.addrs.v4.dst, 4);
	} else if (fk.flags & MQTX_FLOW_F_IPV6) {
		memcpy(k->src, fk.addrs.v6.src, 16);
		memcpy(k->dst, fk.addrs.v6.dst, 16);
	}
	if (fk.flags & MQTX_FLOW_F_PORTS) {
		k->sport = ntohs(fk.sport);
		k->dport = ntohs(fk.dport);
	}
}

/* The tables' hash of a flow: its five words multiplied in, then mixed as MurmurHash3's
 * fmix64 does, so that the low bits the tables index by depend on every byte. A third of what
 * jhash costs over the 40 bytes; nothing outside these tables sees it. */
static uint32_t key_hash(const struct mqtx_whatif_key *k)
{
	uint64_t w[5], h = 0;

	_Static_assert(sizeof(*k) == sizeof(w), "a key is five words");
	memcpy(w, k, sizeof(w));
	for (unsigned i = 0; i < 5; i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* An open-addressing table of flows and their frame counts (the first pass). */
struct tuple_tab {
	struct mqtx_whatif_key *keys;
	uint64_t *count, *first; /* frames; the record that opened it (ties keep capture order) */
	uint32_t *slots;	 /* index + 1; 0 empty */
	uint32_t n, cap, nslots;
};

static int tab_grow(struct tuple_tab *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 1024, nslots = cap * 2;
	struct mqtx_whatif_key *keys = mqtx__alloc(cap * sizeof(*keys));
	uint64_t *count = mqtx__alloc(cap * sizeof(*count)), *first = mqtx__alloc(cap * 8);
	uint32_t *slots = mqtx__zalloc(nslots * sizeof(*slots));

	if (!keys || !count || !first || !slots) {
		mqtx__free(keys), mqtx__free(count), mqtx__free(first), mqtx__free(slots);
		return -ENOMEM;
	}
	if (t->n) { /* the first growth has nothing to copy (and no arrays) */
		memcpy(keys, t->keys, t->n * sizeof(*keys));
		memcpy(count, t->count, t->n * sizeof(*count));
		memcpy(first, t->first, t->n * sizeof(*first));
	}
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t s = key_hash(&keys[i]) & (nslots - 1);

		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i + 1;
	}
	mqtx__free(t->keys), mqtx__free(t->count), mqtx__free(t->first), mqtx__free(t->slots);
	*t = (struct tuple_tab){ keys, count, first, slots, t->n, cap, nslots };
	return 0;
}

/* Count a frame of @k (record @rec); a flow past MQTX_WHATIF_TUPLES_MAX is not told apart. */
static int tab_count(struct tuple_tab *t, const struct mqtx_whatif_key *k, uint64_t rec)
{
	uint32_t s;

	if (t->n == t->cap && t->cap < MQTX_WHATIF_TUPLES_MAX && tab_grow(t))
		return -ENOMEM;
	for (s = key_hash(k) & (t->nslots - 1); t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
		if (!memcmp(&t->keys[t->slots[s] - 1], k, sizeof(*k))) {
			t->count[t->slots[s] - 1]++;
			return 0;
		}
	}
	if (t->n == t->cap)
		return 1; /* full: not told apart */
	t->keys[t->n] = *k;
	t->count[t->n] = 1;
	t->first[t->n] = rec;
	t->slots[s] = ++t->n;
	return 0;
}

static void tab_free(struct tuple_tab *t)
{
	mqtx__free(t->keys), mqtx__free(t->count), mqtx__free(t->first), mqtx__free(t->slots);
}

/* Is flow @a bigger than @b: more frames, or as many and seen first. */
static bool bigger(const struct tuple_tab *t, uint32_t a, uint32_t b)
{
	return t->count[a] != t->count[b] ? t->count[a] > t->count[b] : t->first[a] < t->first[b];
}

/* The @n biggest of @t, biggest first, into @c (an insertion into a short sorted list). */
static int pick_biggest(const struct tuple_tab *t, unsigned n, struct mqtx_whatif_capture *c)
{
	uint32_t *top = mqtx__alloc((n + 1) * sizeof(*top));
	unsigned k = 0;

	if (!top)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		unsigned j = k < n ? k++ : n;

		if (j == n && !bigger(t, i, top[n - 1]))
			continue;
		if (j == n)
			j = n - 1;
		while (j > 0 && bigger(t, i, top[j - 1])) {
			top[j] = top[j - 1];
			j--;
		}
		top[j] = i;
	}
	c->nflows = k;
	c->nslots = 2;
	while (c->nslots < 2 * k)
		c->nslots *= 2;
	c->flows = mqtx__alloc((k + 1) * sizeof(*c->flows));
	c->frames_of = mqtx__alloc((k + 1) * sizeof(*c->frames_of));
	c->slots = mqtx__zalloc(c->nslots * sizeof(*c->slots));
	if (!c->flows || !c->frames_of || !c->slots) {
		mqtx__free(top);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < k; i++) {
		uint32_t s = key_hash(&t->keys[top[i]]) & (c->nslots - 1);

		c->flows[i] = t->keys[top[i]];
		c->frames_of[i] = t->count[top[i]];
		while (c->slots[s])
			s = (s + 1) & (c->nslots - 1);
		c->slots[s] = i + 1;
	}
	mqtx__free(top);
	return 0;
}

unsigned mqtx__whatif_flow_of(const struct mqtx_whatif_capture *c, const struct mqtx_whatif_key *k)
{
	for (uint32_t s = key_hash(k) & (c->nslots - 1); c->slots[s]; s = (s + 1) & (c->nslots - 1))
		if (!memcmp(&c->flows[c->slots[s] - 1], k, sizeof(*k)))
			return c->slots[s] - 1;
	return c->nflows;
}

/* Read every record: the frames' flows into @t, the counts and the span into @c. */
static int scan_records(pcap_t *p, struct tuple_tab *t, struct mqtx_whatif_capture *c, char *msg,
			size_t msglen)
{
	static const struct mqtx_replay_cfg plain; /* cooked records: addresses as replay makes */
	bool nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	uint8_t frame[128];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t first = 0;
	int rc;

	c->dlt = pcap_datalink(p);
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		struct mqtx_whatif_key k;
		uint16_t type;
		long len = mqtx__cooked_len(c->dlt, data, h->caplen, &type);

		if (!c->records++)
			first = mqtx__replay_ts_ns(h, nano);
		c->span_ns = mqtx__replay_ts_ns(h, nano) - first;
		if (len < 0)
			continue;
		c->frames++;
		if (len > (long)sizeof(frame))
			len = sizeof(frame); /* the headers are what the flow needs */
		mqtx__cooked_to_eth(c->dlt, data, h->caplen, &plain, frame, (size_t)len);
		mqtx__whatif_key(frame, (uint32_t)len, &k);
		if (tab_count(t, &k, c->records) < 0)
			return -ENOMEM;
	}
	if (rc == PCAP_ERROR) {
		snprintf(msg, msglen, "record %llu: %s", (unsigned long long)c->records + 1,
			 pcap_geterr(p));
		return -EINVAL;
	}
	return 0;
}

int mqtx__whatif_scan(int fd, unsigned nflows, struct mqtx_whatif_capture **out, char *msg,
		      size_t msglen)
{
	struct mqtx_whatif_capture *c = mqtx__zalloc(sizeof(*c));
	struct tuple_tab t = { 0 };
	struct mqtx_replay_reader r;
	int rc;

	if (!c)
		return -ENOMEM;
	rc = mqtx__replay_reader(fd, &r, msg, msglen);
	if (rc) {
		mqtx__free(c);
		return rc;
	}
	rc = tab_grow(&t) ?: scan_records(r.p, &t, c, msg, msglen);
	mqtx__replay_close(&r);
	c->tuples = t.n;
	if (!rc)
		rc = pick_biggest(&t, nflows, c);
	tab_free(&t);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(msg, msglen, "out of memory");
		mqtx__whatif_capture_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void mqtx__whatif_capture_free(struct mqtx_whatif_capture *c)
{
	if (!c)
		return;
	mqtx__free(c->flows);
	mqtx__free(c->frames_of);
	mqtx__free(c->slots);
	mqtx__free(c);
}

/* ---- names ---- */

const char *mqtx__whatif_proto(const struct mqtx_whatif_key *k, char *buf, size_t len)
{
	static const struct {
		uint8_t n;
		const char *name;
	} names[] = { { 1, "icmp" },   { 6, "tcp" },   { 17, "udp" },	  { 58, "ipv6-icmp" },
		      { 132, "sctp" }, { 33, "dccp" }, { 136, "udplite" } };

	if (k->n_proto != 0x0800 && k->n_proto != 0x86dd) {
		snprintf(buf, len, "0x%04x", k->n_proto);
		return buf;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].n == k->ip_proto)
			return names[i].name;
	snprintf(buf, len, "%u", k->ip_proto);
	return buf;
}

const char *mqtx__whatif_addr(const struct mqtx_whatif_key *k, bool dst, char *buf, size_t len)
{
	const uint8_t *a = dst ? k->dst : k->src;

	buf[0] = '\0';
	if (k->n_proto == 0x0800)
		inet_ntop(AF_INET, a, buf, (socklen_t)len);
	else if (k->n_proto == 0x86dd)
		inet_ntop(AF_INET6, a, buf, (socklen_t)len);
	return buf;
}

const char *mqtx__whatif_flow_name(const struct mqtx_whatif_key *k, char *buf, size_t len)
{
	char p[16], s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	if (!k) {
		snprintf(buf, len, "other");
		return buf;
	}
	const char *pn = mqtx__whatif_proto(k, p, sizeof(p));

	mqtx__whatif_addr(k, false, s, sizeof(s));
	mqtx__whatif_addr(k, true, d, sizeof(d));
	if (!s[0])
		snprintf(buf, len, "%s", pn);
	else if (k->sport || k->dport)
		snprintf(buf, len, "%s %s:%u > %s:%u", pn, s, k->sport, d, k->dport);
	else
		snprintf(buf, len, "%s %s > %s", pn, s, d);
	return buf;
}

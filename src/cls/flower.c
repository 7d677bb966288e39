// SPDX-License-Identifier: MIT
/*
 * flower: filters on the fields of a frame, each with its mask (Linux's cls_flower.c). The
 * filters of one priority are grouped by mask; each mask has a hash table of its filters'
 * masked keys, so a lookup costs one probe per distinct mask, not one compare per filter.
 * Masks with a port range keep a list instead (Linux's range lookup walks its filters too).
 */
#include <arpa/inet.h>
#include <errno.h>

#include <mqtx/flow.h>

#include "cls/flower.h"

/* One mask: its filters (in handle order) and, without ranges, the hash table of their keys. */
struct fl_mask {
	struct fl_key mask;
	uint32_t ranges;	/* FLK_SRC_RANGE | FLK_DST_RANGE of its filters */
	unsigned first, nwords; /* the words of the key the mask covers */
	unsigned n;
	struct fl_filter **filters;
	uint32_t tmask;	 /* table size - 1 (a power of two minus one); 0: no table */
	uint32_t *table; /* index + 1 into filters; 0: empty */
};

struct fl_index {
	unsigned nmasks;
	struct fl_mask masks[];
};

/* ---- the key of a frame ---- */

void mqtx__fl_key_extract(const struct mqtx_pkt *pkt, struct fl_key *k)
{
	const uint8_t *d = pkt->data;
	struct mqtx_flow_keys fk;
	uint16_t outer;

	memset(k, 0, sizeof(*k));
	if (pkt->len < 14)
		return;
	memcpy(k->dst_mac, d, 6);
	memcpy(k->src_mac, d + 6, 6);
	outer = (uint16_t)(d[12] << 8 | d[13]);
	if ((outer == 0x8100 || outer == 0x88A8) && pkt->len >= 18) {
		k->vlan_id = (uint16_t)((d[14] << 8 | d[15]) & 0xFFF);
		k->vlan_prio = (uint8_t)(d[14] >> 5);
	}
	mqtx_flow_dissect(d, pkt->len, &fk);
	k->n_proto = htons(fk.n_proto ? fk.n_proto : outer);
	k->ip_proto = fk.ip_proto;
	if (fk.flags & MQTX_FLOW_F_IPV4) {
		k->ipv4_src = fk.addrs.v4.src;
		k->ipv4_dst = fk.addrs.v4.dst;
		k->tos = d[fk.l3_off + 1];
		k->ttl = d[fk.l3_off + 8];
	} else if (fk.flags & MQTX_FLOW_F_IPV6) {
		memcpy(k->ipv6_src, fk.addrs.v6.src, 16);
		memcpy(k->ipv6_dst, fk.addrs.v6.dst, 16);
		k->tos = (uint8_t)((d[fk.l3_off] & 0xF) << 4 | d[fk.l3_off + 1] >> 4);
		k->ttl = d[fk.l3_off + 7];
	}
	if (fk.flags & MQTX_FLOW_F_PORTS) {
		k->sport = fk.sport;
		k->dport = fk.dport;
	}
	/* The dissector has no ports for a fragment, as Linux's without PARSE_1ST_FRAG. */
	if (fk.flags & MQTX_FLOW_F_FRAG)
		k->ip_flags = FL_FLAG_FRAG | (fk.l4_off ? FL_FLAG_FIRSTFRAG : 0);
	if (fk.ip_proto == 6 && fk.l4_off && fk.l4_off + 14u <= pkt->len)
		k->tcp_flags =
			htons((uint16_t)((d[fk.l4_off + 12] << 8 | d[fk.l4_off + 13]) & 0xFFF));
}

/* ---- masked keys ---- */

static inline const uint64_t *words(const struct fl_key *k)
{
	return (const uint64_t *)(const void *)k;
}

/* A hash of @k's words under @m (multiply and rotate: keys differ in a few bits). */
static uint32_t masked_hash(const struct fl_mask *m, const struct fl_key *k)
{
	const uint64_t *kw = words(k), *mw = words(&m->mask);
	uint64_t h = 0x9E3779B97F4A7C15ull;

	for (unsigned i = m->first; i < m->first + m->nwords; i++) {
		h ^= kw[i] & mw[i];
		h *= 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	return (uint32_t)h;
}

/* @k under @m is @f's key (already masked). */
static bool masked_eq(const struct fl_mask *m, const struct fl_key *k, const struct fl_filter *f)
{
	const uint64_t *kw = words(k), *mw = words(&m->mask), *fw = words(&f->key);

	for (unsigned i = m->first; i < m->first + m->nwords; i++)
		if ((kw[i] & mw[i]) != fw[i])
			return false;
	return true;
}

static bool in_ranges(const struct fl_filter *f, const struct fl_key *k)
{
	uint16_t sp = ntohs(k->sport), dp = ntohs(k->dport);

	if ((f->present & FLK_SRC_RANGE) && (sp < f->sport_min || sp > f->sport_max))
		return false;
	if ((f->present & FLK_DST_RANGE) && (dp < f->dport_min || dp > f->dport_max))
		return false;
	return true;
}

/* ---- data path ---- */

static struct fl_filter *lookup(const struct fl_mask *m, const struct fl_key *k)
{
	uint32_t i, slot;

	if (m->ranges) {
		for (i = 0; i < m->n; i++)
			if (masked_eq(m, k, m->filters[i]) && in_ranges(m->filters[i], k))
				return m->filters[i];
		return NULL;
	}
	for (i = masked_hash(m, k) & m->tmask; (slot = m->table[i]); i = (i + 1) & m->tmask)
		if (masked_eq(m, k, m->filters[slot - 1]))
			return m->filters[slot - 1];
	return NULL;
}

/* Linux's fl_classify(): the first mask with a filter for the frame decides. */
static int fl_classify(const struct tcf_proto *tp, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct fl_index *ix = tp->root->index;

	if (!pk->keyed) {
		mqtx__fl_key_extract(pk->pkt, &pk->key);
		pk->keyed = true;
	}
	for (unsigned i = 0; i < ix->nmasks; i++) {
		struct fl_filter *f = lookup(&ix->masks[i], &pk->key);

		if (f)
			return tcf_filter_hit(tp, &f->f, pk, res);
	}
	return MQTX_ACT_UNSPEC;
}

/* ---- control path: the index of a priority's filters ---- */

static bool same_mask(const struct fl_mask *m, const struct fl_filter *f)
{
	return !memcmp(&m->mask, &f->mask, sizeof(f->mask)) &&
	       m->ranges == (f->present & (FLK_SRC_RANGE | FLK_DST_RANGE));
}

/* The words @m covers: from its first non-zero word to its last (Linux's mask range). */
static void mask_span(struct fl_mask *m)
{
	const uint64_t *w = words(&m->mask);
	unsigned first = FL_KEY_WORDS, last = 0;

	for (unsigned i = 0; i < FL_KEY_WORDS; i++) {
		if (!w[i])
			continue;
		if (first == FL_KEY_WORDS)
			first = i;
		last = i;
	}
	m->first = first == FL_KEY_WORDS ? 0 : first;
	m->nwords = first == FL_KEY_WORDS ? 0 : last - first + 1;
}

/* Fill @m's table; -EEXIST when two filters have one key (fl_ht_insert_unique()). */
static int fill_table(struct fl_mask *m, struct mqtx_extack *ack)
{
	uint32_t size = 4;

	if (m->ranges)
		return 0;
	while (size < 2 * m->n)
		size *= 2;
	m->table = mqtx__zalloc(size * sizeof(*m->table));
	if (!m->table)
		return -ENOMEM;
	m->tmask = size - 1;
	for (unsigned k = 0; k < m->n; k++) {
		uint32_t i = masked_hash(m, &m->filters[k]->key) & m->tmask;

		for (; m->table[i]; i = (i + 1) & m->tmask) {
			const struct fl_filter *o = m->filters[m->table[i] - 1];

			if (!masked_eq(m, &m->filters[k]->key, o))
				continue;
			mqtx_extack_set(ack,
					"Filters 0x%x and 0x%x of this priority have the same key "
					"and mask",
					o->f.handle, m->filters[k]->f.handle);
			return -EEXIST;
		}
		m->table[i] = k + 1;
	}
	return 0;
}

static void fl_free_index(void *index)
{
	struct fl_index *ix = index;

	for (unsigned i = 0; ix && i < ix->nmasks; i++) {
		mqtx__free(ix->masks[i].filters);
		mqtx__free(ix->masks[i].table);
	}
	mqtx__free(ix);
}

/* Group the filters by mask, in the order each mask first appears (by handle), and hash
 * each group: all of it allocated here, before anything is published. */
static int fl_build(struct tcf_root *root, struct mqtx_extack *ack)
{
	struct fl_index *ix = mqtx__zalloc(sizeof(*ix) + root->n * sizeof(ix->masks[0]));
	int err = 0;

	if (!ix)
		return -ENOMEM;
	for (unsigned i = 0; i < root->n && !err; i++) {
		struct fl_filter *f = fl_of(root->filters[i]);
		struct fl_mask *m = NULL;

		for (unsigned j = 0; j < ix->nmasks && !m; j++)
			if (same_mask(&ix->masks[j], f))
				m = &ix->masks[j];
		if (!m) {
			m = &ix->masks[ix->nmasks++];
			m->mask = f->mask;
			m->ranges = f->present & (FLK_SRC_RANGE | FLK_DST_RANGE);
			mask_span(m);
			m->filters = mqtx__alloc(root->n * sizeof(*m->filters));
			if (!m->filters)
				err = -ENOMEM;
		}
		if (!err)
			m->filters[m->n++] = f;
	}
	for (unsigned j = 0; j < ix->nmasks && !err; j++)
		err = fill_table(&ix->masks[j], ack);
	if (err) {
		fl_free_index(ix);
		return err;
	}
	root->index = ix;
	return 0;
}

const struct tcf_proto_ops mqtx__tcf_flower_ops = {
	.kind = "flower",
	.usage = mqtx__fl_usage,
	.parse = mqtx__fl_parse,
	.build = fl_build,
	.free_index = fl_free_index,
	.classify = fl_classify,
	.dump = mqtx__fl_dump,
	.terse_dump = mqtx__fl_terse_dump,
};

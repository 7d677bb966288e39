// SPDX-License-Identifier: MIT
/*
 * u32: filters of 32-bit keys, each a value and a mask at an offset from the network header or
 * from the next header (Linux's cls_u32.c, in its common use: one hash table, 800:, of one
 * bucket, its filters tried in the order of their handles). tc's selectors (ip, ip6, tcp, udp,
 * icmp, u32/u16/u8 at OFF) become such keys. mqtx finds the next header from the IP header
 * itself, as if tc's "offset at 0 mask 0f00 shift 6 eat" were given.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/flow.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

#define U32_KEYS_MAX 128
#define U32_HTID     0x80000000u /* 800: */
#define U32_NODE(h)  ((h)&0xFFFu)

#define U32_USAGE                                                                   \
	"Usage: ... u32 [ match SELECTOR ... ] [ link HTID ] [ classid CLASSID ]\n" \
	"               [ action ACTION_SPEC ] [ offset OFFSET_SPEC ]\n"            \
	"               [ ht HTID ] [ hashkey HASHKEY_SPEC ]\n"                     \
	"               [ sample SAMPLE ] [skip_hw | skip_sw]\n"                    \
	"or         u32 divisor DIVISOR\n"                                          \
	"\n"                                                                        \
	"Where: SELECTOR := SAMPLE SAMPLE ...\n"                                    \
	"       SAMPLE := { ip | ip6 | udp | tcp | icmp | u{32|16|8} | mark }\n"    \
	"                 SAMPLE_ARGS [ divisor DIVISOR ]\n"                        \
	"       FILTERID := X:Y:Z\n"                                                \
	"\n"                                                                        \
	"NOTE: CLASSID is parsed at hexadecimal input.\n"

/* One key: (word at @off, from the network header or with @nexthdr the next one) & @mask ==
 * @val, both in network order. */
struct u32_key {
	uint32_t val, mask;
	int32_t off;
	bool nexthdr;
	atomic_ullong hits;
};

struct u32_filter {
	struct tcf_filter f;
	bool terminal; /* a class or actions: a match ends the search */
	bool has_mark;
	uint32_t mark, mark_mask;
	atomic_ullong mark_hits;
	unsigned nkeys;
	struct u32_key keys[U32_KEYS_MAX];
};

static struct u32_filter *u32_of(const struct tcf_filter *f)
{
	return (struct u32_filter *)f;
}

/* ---- data path ---- */

static void locate(struct tcf_pkt *pk)
{
	struct mqtx_flow_keys fk;

	mqtx_flow_dissect(pk->pkt->data, pk->pkt->len, &fk);
	pk->l3 = fk.l3_off ? fk.l3_off : 14;
	pk->l4 = fk.l4_off;
	pk->located = true;
}

static bool key_matches(const struct u32_key *k, const struct tcf_pkt *pk)
{
	int64_t at = (int64_t)(k->nexthdr ? pk->l4 : pk->l3) + k->off;
	uint32_t w;

	if ((k->nexthdr && !pk->l4) || at < 0 || at + 4 > pk->pkt->len)
		return false;
	memcpy(&w, pk->pkt->data + at, 4);
	return (w & k->mask) == k->val;
}

static bool knode_matches(const struct u32_filter *u, struct tcf_pkt *pk)
{
	if (u->has_mark) {
		if ((pk->pkt->mark & u->mark_mask) != u->mark)
			return false;
		if (!pk->dry)
			atomic_fetch_add_explicit((atomic_ullong *)&u->mark_hits, 1,
						  memory_order_relaxed);
	}
	for (unsigned i = 0; i < u->nkeys; i++) {
		if (!key_matches(&u->keys[i], pk))
			return false;
		if (!pk->dry)
			atomic_fetch_add_explicit((atomic_ullong *)&u->keys[i].hits, 1,
						  memory_order_relaxed);
	}
	return true;
}

/* u32_classify() on the root table: the first terminal node whose keys all match, unless its
 * actions say continue. */
static int u32_classify(const struct tcf_proto *tp, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct tcf_root *r = tp->root;

	if (!pk->located)
		locate(pk);
	for (unsigned i = 0; i < r->n; i++) {
		struct u32_filter *u = u32_of(r->filters[i]);
		int v;

		if (!pk->dry)
			atomic_fetch_add_explicit(&u->f.tries, 1, memory_order_relaxed);
		if (!u->terminal || !knode_matches(u, pk))
			continue;
		v = tcf_filter_hit(tp, &u->f, pk, res);
		if (v >= 0)
			return v;
	}
	return MQTX_ACT_UNSPEC;
}

/* ---- control path: selectors ---- */

/* pack_key(): merge into a key at the same offset, or add one. */
static int pack(struct u32_filter *u, uint32_t val, uint32_t mask, int off, bool nexthdr)
{
	val &= mask;
	for (unsigned i = 0; i < u->nkeys; i++) {
		struct u32_key *k = &u->keys[i];

		if (k->off != off || k->nexthdr != nexthdr)
			continue;
		if ((val ^ k->val) & mask & k->mask)
			return -EINVAL;
		k->val |= val;
		k->mask |= mask;
		return 0;
	}
	if (u->nkeys >= U32_KEYS_MAX || off % 4)
		return -EINVAL;
	u->keys[u->nkeys++] =
		(struct u32_key){ .val = val, .mask = mask, .off = off, .nexthdr = nexthdr };
	return 0;
}

/* pack_key32/16/8(): a value of @bits at @off, shifted to its place in the word. */
static int pack_n(struct u32_filter *u, unsigned bits, uint32_t val, uint32_t mask, int off,
		  bool nexthdr)
{
	unsigned shift;

	if (bits < 32 && (val >> bits || mask >> bits))
		return -EINVAL;
	/* a word at a word's offset, a half at a half's (tc would put a u16 at an odd offset
	 * in the low half of its word) */
	if ((bits == 32 && off & 3) || (bits == 16 && off & 1))
		return -EINVAL;
	shift = 32 - bits - 8 * (unsigned)(off & 3);
	off &= ~3;
	return pack(u, htonl(val << shift), htonl(mask << shift), off, nexthdr);
}

/* "at OFF" or "at nexthdr+OFF" */
static int parse_at(struct tcf_parse *ps, int *off, bool *nexthdr)
{
	const char *w = tcf_word(ps);
	char *end;
	long v;

	if (!w || strcmp(w, "at") || mqtx__tcf_next(ps))
		return -EINVAL;
	w = tcf_word(ps);
	*nexthdr = !strncmp(w, "nexthdr+", 8);
	if (*nexthdr)
		w += 8;
	v = strtol(w, &end, 0);
	if (!*w || *end)
		return -EINVAL;
	*off = (int)v;
	ps->i++;
	return 0;
}

/* VAL MASK: the value as get_u32 reads it, the mask in hex. */
static int val_mask(struct tcf_parse *ps, uint32_t *val, uint32_t *mask)
{
	if (!tcf_word(ps) || mqtx__tc_get_u32(tcf_word(ps), val, 0) || mqtx__tcf_next(ps) ||
	    mqtx__tc_get_u32(tcf_word(ps), mask, 16))
		return -EINVAL;
	ps->i++;
	return 0;
}

/* u32|u16|u8 VAL MASK at OFF */
static int sel_raw(struct u32_filter *u, struct tcf_parse *ps, unsigned bits)
{
	uint32_t val, mask;
	bool nexthdr;
	int off;

	if (val_mask(ps, &val, &mask) || parse_at(ps, &off, &nexthdr))
		return -EINVAL;
	return pack_n(u, bits, val, mask, off, nexthdr);
}

/* A field of @bits at a fixed offset: VAL MASK. */
static int sel_field(struct u32_filter *u, struct tcf_parse *ps, unsigned bits, int off,
		     bool nexthdr)
{
	uint32_t val, mask;

	if (val_mask(ps, &val, &mask))
		return -EINVAL;
	return pack_n(u, bits, val, mask, off, nexthdr);
}

/* ADDR[/LEN] at @off: one key per word the prefix covers. */
static int sel_addr(struct u32_filter *u, struct tcf_parse *ps, int family, int off)
{
	unsigned nbytes = family == AF_INET ? 4 : 16, len = nbytes * 8;
	uint8_t a[16];
	char buf[64], *slash;

	if (!tcf_word(ps) || strlen(tcf_word(ps)) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, tcf_word(ps));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	if (inet_pton(family, buf, a) != 1 ||
	    (slash && (mqtx__tc_get_u32(slash, &len, 10) || len > nbytes * 8)))
		return -EINVAL;
	ps->i++;
	for (unsigned w = 0; w < nbytes / 4; w++) {
		unsigned bits = len > 32 * w ? len - 32 * w : 0;
		uint32_t m = bits >= 32 ? 0xFFFFFFFFu : bits ? ~(0xFFFFFFFFu >> bits) : 0;
		uint32_t v;

		if (!m)
			break;
		memcpy(&v, a + 4 * w, 4);
		if (pack(u, v & htonl(m), htonl(m), off + 4 * (int)w, false))
			return -EINVAL;
	}
	return 0;
}

static int sel_ip(struct u32_filter *u, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);

	if (!w)
		return -EINVAL;
	ps->i++;
	if (!strcmp(w, "src") || !strcmp(w, "dst"))
		return sel_addr(u, ps, AF_INET, w[0] == 's' ? 12 : 16);
	if (!strcmp(w, "tos") || !strcmp(w, "dsfield"))
		return sel_field(u, ps, 8, 1, false);
	if (!strcmp(w, "ihl"))
		return sel_field(u, ps, 8, 0, false);
	if (!strcmp(w, "protocol"))
		return sel_field(u, ps, 8, 9, false);
	if (!strcmp(w, "sport") || !strcmp(w, "dport"))
		return sel_field(u, ps, 16, w[0] == 's' ? 20 : 22, false);
	if (!strcmp(w, "icmp_type") || !strcmp(w, "icmp_code"))
		return sel_field(u, ps, 8, w[5] == 't' ? 20 : 21, false);
	if (!strcmp(w, "nofrag"))
		return pack_n(u, 16, 0, 0x3FFF, 6, false);
	if (!strcmp(w, "firstfrag"))
		return pack_n(u, 16, 0, 0x1FFF, 6, false);
	if (!strcmp(w, "df") || !strcmp(w, "mf"))
		return pack_n(u, 16, w[0] == 'd' ? 0x4000 : 0x2000, w[0] == 'd' ? 0x4000 : 0x2000,
			      6, false);
	return -EINVAL;
}

static int sel_ip6(struct u32_filter *u, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);
	uint32_t val, mask;

	if (!w)
		return -EINVAL;
	ps->i++;
	if (!strcmp(w, "src") || !strcmp(w, "dst"))
		return sel_addr(u, ps, AF_INET6, w[0] == 's' ? 8 : 24);
	if (!strcmp(w, "priority")) { /* the traffic class, after the version */
		if (val_mask(ps, &val, &mask) || val > 0xFF || mask > 0xFF)
			return -EINVAL;
		return pack(u, htonl(val << 20), htonl(mask << 20), 0, false);
	}
	if (!strcmp(w, "protocol"))
		return sel_field(u, ps, 8, 6, false);
	if (!strcmp(w, "flowlabel")) {
		if (val_mask(ps, &val, &mask) || val > 0xFFFFF)
			return -EINVAL;
		return pack(u, htonl(val), htonl(mask & 0xFFFFF), 0, false);
	}
	if (!strcmp(w, "sport") || !strcmp(w, "dport"))
		return sel_field(u, ps, 16, w[0] == 's' ? 40 : 42, false);
	return -EINVAL;
}

/* tcp|udp src|dst PORT MASK, icmp type|code VAL MASK: in the next header. */
static int sel_l4(struct u32_filter *u, struct tcf_parse *ps, const char *proto)
{
	const char *w = tcf_word(ps);

	if (!w)
		return -EINVAL;
	ps->i++;
	if (strcmp(proto, "icmp")) {
		if (strcmp(w, "src") && strcmp(w, "dst"))
			return -EINVAL;
		return sel_field(u, ps, 16, w[0] == 's' ? 0 : 2, true);
	}
	if (strcmp(w, "type") && strcmp(w, "code"))
		return -EINVAL;
	return sel_field(u, ps, 8, w[0] == 't' ? 0 : 1, true);
}

/* parse_selector(): "match" is the current word. */
static int parse_match(struct u32_filter *u, struct tcf_parse *ps)
{
	const char *w;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	w = tcf_word(ps);
	ps->i++;
	if (!strcmp(w, "u32") || !strcmp(w, "u16") || !strcmp(w, "u8"))
		return sel_raw(u, ps, w[1] == '3' ? 32 : w[1] == '1' ? 16 : 8);
	if (!strcmp(w, "ip"))
		return sel_ip(u, ps);
	if (!strcmp(w, "ip6"))
		return sel_ip6(u, ps);
	if (!strcmp(w, "tcp") || !strcmp(w, "udp") || !strcmp(w, "icmp"))
		return sel_l4(u, ps, w);
	if (!strcmp(w, "mark")) {
		if (val_mask(ps, &u->mark, &u->mark_mask))
			return -EINVAL;
		u->has_mark = true;
		return 0;
	}
	return -EINVAL;
}

/* "order N": the node, if the handle does not name one already. */
static int parse_order(struct u32_filter *u, struct tcf_parse *ps)
{
	uint32_t order;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (mqtx__tc_get_u32(tcf_word(ps), &order, 0))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"order\"");
	ps->i++;
	if (U32_NODE(u->f.handle) && order != U32_NODE(u->f.handle))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "\"order\" contradicts \"handle\"");
	if (!order || order > 0xFFF)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
				      "Error: u32: order %u is not a node (1 to 0xfff).", order);
	u->f.handle = U32_HTID | order;
	return 0;
}

static int u32_parse_word(struct u32_filter *u, struct tcf_parse *ps, bool *terminal)
{
	const char *w = tcf_word(ps);
	int err;

	if (mqtx__tc_matches(w, "match")) {
		if (parse_match(u, ps))
			return ps->exit == MQTX_TC_EXIT_ABORT
				       ? -EINVAL
				       : mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
							"Illegal \"match\"");
		return 0;
	}
	if (mqtx__tc_matches(w, "classid") || !strcmp(w, "flowid")) {
		*terminal = true;
		return mqtx__tcf_parse_classid(ps, &u->f.classid);
	}
	if (mqtx__tc_matches(w, "action")) {
		*terminal = true;
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		err = mqtx__tcf_exts_parse(&u->f.exts, ps);
		return err == -EINVAL ? mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"action\"")
				      : err;
	}
	if (!strcmp(w, "skip_hw")) {
		ps->i++;
		return 0;
	}
	if (mqtx__tc_matches(w, "order"))
		return parse_order(u, ps);
	if (mqtx__tc_matches(w, "divisor") || !strcmp(w, "link") || !strcmp(w, "ht") ||
	    mqtx__tc_matches(w, "hashkey") || !strcmp(w, "sample") ||
	    mqtx__tc_matches(w, "offset") || !strcmp(w, "indev") || !strcmp(w, "skip_sw") ||
	    mqtx__tc_matches(w, "police"))
		return mqtx__tcf_perr(
			ps, MQTX_TC_EXIT_REFUSED,
			"Error: u32: \"%s\" is not supported (mqtx's u32 has one table, "
			"800:, of one bucket).",
			w);
	if (strcmp(w, "help"))
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "What is \"%s\"?", w);
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", mqtx__tcf_u32_ops.usage);
}

static int u32_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out)
{
	struct u32_filter *u = (struct u32_filter *)mqtx__tcf_filter_alloc(sizeof(*u), handle);
	bool terminal = false;
	int err = 0;

	if (!u)
		return -ENOMEM;
	while (!err && tcf_word(ps))
		err = u32_parse_word(u, ps, &terminal);
	if (err) {
		mqtx__tcf_filter_free(NULL, &u->f);
		return err;
	}
	u->terminal = terminal;
	*out = &u->f;
	return 0;
}

/* "800::801" (TC_U32_HTID:HASH:NODE in hex): the root table, bucket 0, a node. */
static int u32_parse_handle(const char *word, uint32_t *h, struct tcf_parse *ps)
{
	unsigned long ht = 0, hash = 0, node = 0;
	const char *s = word;
	char *end;

	ht = strtoul(s, &end, 16);
	if (*end == ':') {
		s = end + 1;
		hash = *s == ':' ? 0 : strtoul(s, &end, 16);
		if (*s != ':' && *end == ':')
			s = end;
		if (*s == ':')
			node = strtoul(s + 1, &end, 16);
	}
	if (*end || ht > 0xFFF || hash > 0xFF || node > 0xFFF)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal filter ID");
	if ((ht && ht != 0x800) || hash)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
				      "Error: u32: handle %s: only table 800: bucket 0 exists.",
				      word);
	*h = node ? U32_HTID | (uint32_t)node : 0;
	return 0;
}

/* gen_new_kid(): one above the highest node, from 800. */
static uint32_t u32_auto_handle(const struct tcf_root *root)
{
	uint32_t top = 0x7FF;

	for (unsigned i = 0; root && i < root->n; i++)
		if (U32_NODE(root->filters[i]->handle) > top)
			top = U32_NODE(root->filters[i]->handle);
	return top >= 0xFFF ? 0 : U32_HTID | (top + 1);
}

static int u32_build(struct tcf_root *root, struct mqtx_extack *ack)
{
	for (unsigned i = 0; i < root->n; i++) {
		if ((root->filters[i]->handle & ~0xFFFu) != U32_HTID) {
			mqtx_extack_set(ack, "u32: handle 0x%x is not a node of table 800:",
					root->filters[i]->handle);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- printing ---- */

static void u32_dump_head(const struct tcf_proto *tp, struct tc_out *p)
{
	(void)tp;
	mqtx__out_str(p, OUT_ANY, "fh", "fh %s ", "800:");
	mqtx__out_uint(p, OUT_ANY, "ht_divisor", "ht divisor %llu ", 1);
}

static void u32_dump(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p)
{
	const struct u32_filter *u = u32_of(f);
	char b[32];

	(void)tp;
	snprintf(b, sizeof(b), "800::%x", U32_NODE(f->handle));
	mqtx__out_str(p, OUT_ANY, "fh", "fh %s ", b);
	mqtx__out_uint(p, OUT_ANY, "order", "order %llu ", U32_NODE(f->handle));
	mqtx__out_str(p, OUT_ANY, "key_ht", "key ht %s ", "800");
	mqtx__out_str(p, OUT_ANY, "bkt", "bkt %s ", "0");
	if (f->classid) {
		if (!u->terminal)
			mqtx__out_text(p, "*");
		mqtx__out_str(p, OUT_ANY, "flowid", "flowid %s ",
			      mqtx__classid_fmt(f->classid, b, sizeof(b)));
	} else if (u->terminal) {
		mqtx__out_text(p, "terminal flowid ");
	}
	mqtx__out_bool(p, OUT_ANY, "not_in_hw", "not_in_hw ", true);
	if (p->stats) {
		mqtx__out_uint(p, OUT_ANY, "rule_hit", "(rule hit %llu ", atomic_load(&f->tries));
		mqtx__out_uint(p, OUT_ANY, "success", "success %llu)", atomic_load(&f->hits));
	}
	if (u->has_mark) {
		mqtx__out_nl(p);
		snprintf(b, sizeof(b), "0x%04x", u->mark);
		mqtx__out_str(p, OUT_ANY, "fwmark_value", "  mark %s ", b);
		snprintf(b, sizeof(b), "0x%04x", u->mark_mask);
		mqtx__out_str(p, OUT_ANY, "fwmark_mask", "%s ", b);
		mqtx__out_uint(p, OUT_ANY, "fwmark_success", "(success %llu)",
			       atomic_load(&u->mark_hits));
	}
	/* one "match" object per key, as tc prints them (the key repeats in JSON) */
	for (unsigned i = 0; i < u->nkeys; i++) {
		const struct u32_key *k = &u->keys[i];

		mqtx__out_open(p, "match");
		mqtx__out_nl(p);
		snprintf(b, sizeof(b), "%08x", ntohl(k->val));
		mqtx__out_str(p, OUT_ANY, "value", "  match %s", b);
		snprintf(b, sizeof(b), "%08x", ntohl(k->mask));
		mqtx__out_str(p, OUT_ANY, "mask", "/%s ", b);
		mqtx__out_str(p, OUT_ANY, "offmask", "at %s", k->nexthdr ? "nexthdr+" : "");
		mqtx__out_int(p, OUT_ANY, "off", "%lld", k->off);
		mqtx__out_close(p);
		if (p->stats)
			mqtx__out_uint(p, OUT_ANY, "success", " (success %llu ) ",
				       atomic_load(&k->hits));
	}
	mqtx__tcf_exts_dump(&f->exts, p);
}

const struct tcf_proto_ops mqtx__tcf_u32_ops = {
	.kind = "u32",
	.usage = U32_USAGE,
	.parse_handle = u32_parse_handle,
	.auto_handle = u32_auto_handle,
	.parse = u32_parse,
	.build = u32_build,
	.classify = u32_classify,
	.dump = u32_dump,
	.dump_head = u32_dump_head,
};

// SPDX-License-Identifier: MIT
/*
 * u32's words as tc's f_u32.c reads them: the selectors (ip, ip6, tcp, udp, icmp, u32/u16/u8 at
 * OFF, mark) packed into 32-bit keys, and the words of tables and links (divisor, ht, sample,
 * link, hashkey, offset, order, indev). What tc refuses exits 1 here; what the kernel refuses
 * is decided when the node is placed (cls_u32.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "cls/u32.h"

const char mqtx__u32_usage[] =
	"Usage: ... u32 [ match SELECTOR ... ] [ link HTID ] [ classid CLASSID ]\n"
	"               [ action ACTION_SPEC ] [ offset OFFSET_SPEC ]\n"
	"               [ ht HTID ] [ hashkey HASHKEY_SPEC ]\n"
	"               [ sample SAMPLE ] [skip_hw | skip_sw]\n"
	"or         u32 divisor DIVISOR\n"
	"\n"
	"Where: SELECTOR := SAMPLE SAMPLE ...\n"
	"       SAMPLE := { ip | ip6 | udp | tcp | icmp | u{32|16|8} | mark }\n"
	"                 SAMPLE_ARGS [ divisor DIVISOR ]\n"
	"       FILTERID := X:Y:Z\n"
	"\n"
	"NOTE: CLASSID is parsed at hexadecimal input.\n";

/* The filter while its words are read: the selector has room for tc's 128 keys. */
struct u32_draft {
	struct u32_filter *u; /* with U32_KEYS_MAX keys */
	uint32_t order;
	bool terminal, sample_ok, skip_sw;
};

/* ---- selectors ---- */

/* pack_key(): merge into a key at the same offset, or add one. */
static int pack(struct u32_sel *sel, struct u32_key *keys, uint32_t val, uint32_t mask, int off,
		uint32_t offmask)
{
	val &= mask;
	for (unsigned i = 0; i < sel->nkeys; i++) {
		struct u32_key *k = &keys[i];

		if (k->off != off || k->offmask != offmask)
			continue;
		if ((val ^ k->val) & mask & k->mask)
			return -EINVAL;
		k->val |= val;
		k->mask |= mask;
		return 0;
	}
	if (sel->nkeys >= U32_KEYS_MAX || off % 4)
		return -EINVAL;
	keys[sel->nkeys++] =
		(struct u32_key){ .val = val, .mask = mask, .off = off, .offmask = offmask };
	return 0;
}

/* pack_key32/16/8(): a value of @bits at @off, shifted to its place in the word. */
static int pack_n(struct u32_sel *sel, struct u32_key *keys, unsigned bits, uint32_t val,
		  uint32_t mask, int off, uint32_t offmask)
{
	unsigned shift;

	if (bits < 32 && (val >> bits || mask >> bits))
		return -EINVAL;
	if ((bits == 32 && off & 3) || (bits == 16 && off & 1))
		return -EINVAL;
	shift = 32 - bits - 8 * (unsigned)(off & 3);
	return pack(sel, keys, htonl(val << shift), htonl(mask << shift), off & ~3, offmask);
}

/* "at OFF" or "at nexthdr+OFF", when "at" is the current word (tc's parse_at()). */
static int parse_at(struct tcf_parse *ps, int *off, uint32_t *offmask)
{
	const char *w;

	*off = 0;
	*offmask = 0;
	if (!tcf_word(ps) || strcmp(tcf_word(ps), "at"))
		return 0;
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	w = tcf_word(ps);
	if (!strncmp(w, "nexthdr+", 8)) {
		*offmask = 0xFFFFFFFFu;
		w += 8;
	}
	if (mqtx__tc_get_integer(w, off, 0))
		return -EINVAL;
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

struct sel_ctx {
	struct tcf_parse *ps;
	struct u32_sel *sel;
	struct u32_key *keys;
};

/* A field of @bits at a fixed offset: VAL MASK. */
static int field(struct sel_ctx *c, unsigned bits, int off, uint32_t offmask)
{
	uint32_t val, mask;

	if (val_mask(c->ps, &val, &mask))
		return -EINVAL;
	return pack_n(c->sel, c->keys, bits, val, mask, off, offmask);
}

/* ADDR[/LEN] at @off: one key per word the prefix covers. */
static int addr(struct sel_ctx *c, int family, int off)
{
	unsigned nbytes = family == AF_INET ? 4 : 16, len = nbytes * 8;
	const char *w = tcf_word(c->ps);
	uint8_t a[16] = { 0 };
	char buf[64], *slash;

	if (!w || mqtx__tc_split(w, buf, sizeof(buf), &slash))
		return -EINVAL;
	if (!strcmp(buf, "any") || !strcmp(buf, "all") || !strcmp(buf, "default"))
		len = 0;
	else if (inet_pton(family, buf, a) != 1)
		return -EINVAL;
	if (slash && (mqtx__tc_get_u32(slash, &len, 10) || len > nbytes * 8))
		return -EINVAL;
	c->ps->i++;
	for (unsigned i = 0; i < nbytes / 4; i++) {
		unsigned bits = len > 32 * i ? len - 32 * i : 0;
		uint32_t m = bits >= 32 ? 0xFFFFFFFFu : bits ? ~(0xFFFFFFFFu >> bits) : 0;
		uint32_t v;

		if (!m && i)
			break;
		memcpy(&v, a + 4 * i, 4);
		if (pack(c->sel, c->keys, v & htonl(m), htonl(m), off + 4 * (int)i, 0))
			return -EINVAL;
	}
	return 0;
}

static int sel_ip(struct sel_ctx *c, const char *w)
{
	if (!strcmp(w, "src") || !strcmp(w, "dst"))
		return addr(c, AF_INET, w[0] == 's' ? 12 : 16);
	if (!strcmp(w, "tos") || !strcmp(w, "dsfield"))
		return field(c, 8, 1, 0);
	if (!strcmp(w, "ihl"))
		return field(c, 8, 0, 0);
	if (!strcmp(w, "protocol"))
		return field(c, 8, 9, 0);
	if (!strcmp(w, "sport") || !strcmp(w, "dport"))
		return field(c, 16, w[0] == 's' ? 20 : 22, 0);
	if (!strcmp(w, "icmp_type") || !strcmp(w, "icmp_code"))
		return field(c, 8, w[5] == 't' ? 20 : 21, 0);
	if (!strcmp(w, "nofrag"))
		return pack_n(c->sel, c->keys, 16, 0, 0x3FFF, 6, 0);
	if (!strcmp(w, "firstfrag"))
		return pack_n(c->sel, c->keys, 16, 0, 0x1FFF, 6, 0);
	if (!strcmp(w, "df") || !strcmp(w, "mf"))
		return pack_n(c->sel, c->keys, 16, w[0] == 'd' ? 0x4000 : 0x2000,
			      w[0] == 'd' ? 0x4000 : 0x2000, 6, 0);
	return -EINVAL;
}

static int sel_ip6(struct sel_ctx *c, const char *w)
{
	uint32_t val, mask;

	if (!strcmp(w, "src") || !strcmp(w, "dst"))
		return addr(c, AF_INET6, w[0] == 's' ? 8 : 24);
	if (!strcmp(w, "priority")) { /* the traffic class, after the version */
		if (val_mask(c->ps, &val, &mask) || val > 0xFF || mask > 0xFF)
			return -EINVAL;
		return pack(c->sel, c->keys, htonl(val << 20), htonl(mask << 20), 0, 0);
	}
	if (!strcmp(w, "protocol"))
		return field(c, 8, 6, 0);
	if (!strcmp(w, "flowlabel")) {
		if (val_mask(c->ps, &val, &mask) || val > 0xFFFFF)
			return -EINVAL;
		return pack(c->sel, c->keys, htonl(val), htonl(mask & 0xFFFFF), 0, 0);
	}
	if (!strcmp(w, "sport") || !strcmp(w, "dport"))
		return field(c, 16, w[0] == 's' ? 40 : 42, 0);
	return -EINVAL;
}

/* tcp|udp src|dst PORT MASK, icmp type|code VAL MASK: at the next header (nexthdr+). */
static int sel_l4(struct sel_ctx *c, const char *proto, const char *w)
{
	if (strcmp(proto, "icmp")) {
		if (strcmp(w, "src") && strcmp(w, "dst"))
			return -EINVAL;
		return field(c, 16, w[0] == 's' ? 0 : 2, 0xFFFFFFFFu);
	}
	if (strcmp(w, "type") && strcmp(w, "code"))
		return -EINVAL;
	return field(c, 8, w[0] == 't' ? 0 : 1, 0xFFFFFFFFu);
}

/* parse_selector(): the word after "match" (or "sample") is current. A mark goes to @d. */
static int parse_selector(struct sel_ctx *c, struct u32_draft *d)
{
	const char *w = tcf_word(c->ps), *a;
	uint32_t val, mask;
	int off;

	if (!w)
		return -EINVAL;
	c->ps->i++;
	if (!strcmp(w, "u32") || !strcmp(w, "u16") || !strcmp(w, "u8")) {
		unsigned bits = w[1] == '3' ? 32 : w[1] == '1' ? 16 : 8;
		uint32_t offmask;

		if (val_mask(c->ps, &val, &mask) || parse_at(c->ps, &off, &offmask))
			return -EINVAL;
		return pack_n(c->sel, c->keys, bits, val, mask, off, offmask);
	}
	if (!strcmp(w, "mark")) {
		if (!d || val_mask(c->ps, &d->u->mark, &d->u->mark_mask))
			return -EINVAL;
		d->u->has_mark = true;
		return 0;
	}
	a = tcf_word(c->ps);
	if (!a)
		return -EINVAL;
	c->ps->i++;
	if (!strcmp(w, "ip"))
		return sel_ip(c, a);
	if (!strcmp(w, "ip6"))
		return sel_ip6(c, a);
	if (!strcmp(w, "tcp") || !strcmp(w, "udp") || !strcmp(w, "icmp"))
		return sel_l4(c, w, a);
	return -EINVAL;
}

/* ---- the words of tables, links and offsets ---- */

static bool divisor_ok(const char *w, unsigned *div)
{
	uint32_t v;

	if (mqtx__tc_get_u32(w, &v, 0) || !v || v > 0x100 || ((v - 1) & v))
		return false;
	*div = v;
	return true;
}

/* get_u32_handle(): "X:Y:Z" in hex (each part may be empty), or a "0x" number. */
static int get_handle(const char *s, uint32_t *h)
{
	unsigned long part[3] = { 0, 0, 0 };
	const unsigned long max[3] = { 0xFFF, 0xFF, 0xFFF };
	const char *p = s;
	char *end;

	if (!strchr(s, ':'))
		return strncmp(s, "0x", 2) ? -EINVAL : mqtx__tc_get_u32(s, h, 16);
	for (int i = 0; i < 3; i++) {
		if (*p == '-')
			return -EINVAL;
		part[i] = strtoul(p, &end, 16);
		if (part[i] > max[i])
			return -EINVAL;
		if (!*end)
			break;
		if (*end != ':' || i == 2)
			return -EINVAL;
		p = end + 1;
	}
	*h = (uint32_t)(part[0] << 20 | part[1] << 12 | part[2]);
	return 0;
}

/* parse_offset(): plus N, at N, mask M, shift S, eat. */
static int parse_offset(struct tcf_parse *ps, struct u32_sel *sel)
{
	const char *w;
	uint16_t m;
	int v;

	while ((w = tcf_word(ps))) {
		if (mqtx__tc_matches(w, "eat")) {
			sel->flags |= U32_EAT;
			ps->i++;
			continue;
		}
		if (!mqtx__tc_matches(w, "plus") && !mqtx__tc_matches(w, "at") &&
		    !mqtx__tc_matches(w, "mask") && !mqtx__tc_matches(w, "shift"))
			break;
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (w[0] == 'm') {
			if (mqtx__tc_get_u16(tcf_word(ps), &m, 16))
				return -EINVAL;
			sel->offmask = htons(m);
			sel->flags |= U32_VAROFFSET;
		} else {
			if (mqtx__tc_get_integer(tcf_word(ps), &v, 0))
				return -EINVAL;
			if (w[0] == 'a' && v % 2)
				return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
						      "offset \"at\" must be even");
			if (w[0] == 'p')
				sel->off = (int16_t)v;
			else if (w[0] == 'a')
				sel->offoff = (int16_t)v;
			else
				sel->offshift = (uint8_t)v;
			sel->flags |= w[0] == 'p' ? U32_OFFSET : U32_VAROFFSET;
		}
		ps->i++;
	}
	return 0;
}

/* parse_hashkey(): mask M, at N (a multiple of 4). */
static int parse_hashkey(struct tcf_parse *ps, struct u32_sel *sel)
{
	const char *w;
	uint32_t m;
	int v;

	while ((w = tcf_word(ps)) && (mqtx__tc_matches(w, "mask") || mqtx__tc_matches(w, "at"))) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (w[0] == 'm') {
			if (mqtx__tc_get_u32(tcf_word(ps), &m, 16))
				return -EINVAL;
			sel->hmask = htonl(m);
		} else {
			if (mqtx__tc_get_integer(tcf_word(ps), &v, 0) || v % 4)
				return -EINVAL;
			sel->hoff = (int16_t)v;
		}
		ps->i++;
	}
	return 0;
}

/* sample SELECTOR [divisor N]: the bucket tc computes for the key (u32_hash_fold()). */
static int parse_sample(struct tcf_parse *ps, struct u32_draft *d)
{
	struct u32_key keys[4];
	struct u32_sel sel = { 0 };
	struct sel_ctx c = { ps, &sel, keys };
	unsigned div = 0x100, shift;
	uint32_t hash;

	if (parse_selector(&c, NULL))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"sample\"");
	if (sel.nkeys != 1)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "\"sample\" must contain exactly ONE key.");
	if (tcf_word(ps) && !strcmp(tcf_word(ps), "divisor")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (!divisor_ok(tcf_word(ps), &div))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal sample \"divisor\"");
		ps->i++;
	}
	shift = keys[0].mask ? (unsigned)ffs((int)ntohl(keys[0].mask)) - 1 : 0;
	hash = ntohl(keys[0].val & keys[0].mask) >> shift;
	d->u->htid = (hash % div) << 12 | U32_HTID(d->u->htid);
	d->sample_ok = true;
	return 0;
}

static int parse_ht(struct tcf_parse *ps, struct u32_draft *d, uint32_t handle, bool link)
{
	uint32_t h;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (get_handle(tcf_word(ps), &h))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"%s\"",
				      link ? "link" : "ht");
	/* tc checks a node in "ht" only when a handle is given, as it does */
	if ((link ? h != 0 : handle != 0) && U32_NODE(h))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "\"%s\" must be a hash table.",
				      link ? "link" : "ht");
	ps->i++;
	if (link)
		d->u->link = h;
	else if (d->sample_ok)
		d->u->htid = (d->u->htid & 0xFF000u) | U32_HTID(h);
	else
		d->u->htid = h & 0xFFFFF000u;
	return 0;
}

static int parse_indev(struct tcf_parse *ps, struct u32_draft *d)
{
	ps->i++;
	if (!tcf_word(ps))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal indev");
	snprintf(d->u->indev, sizeof(d->u->indev), "%s", tcf_word(ps));
	ps->i++;
	return 0;
}

static int parse_word(struct u32_draft *d, struct tcf_parse *ps, uint32_t handle)
{
	struct sel_ctx c = { ps, &d->u->sel, d->u->keys };
	const char *w = tcf_word(ps);
	int err;

	if (mqtx__tc_matches(w, "match")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (parse_selector(&c, d))
			return ps->exit ? -EINVAL
					: mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
							 "Illegal \"match\"");
		d->u->sel_ok = true;
		return 0;
	}
	if (mqtx__tc_matches(w, "offset") || mqtx__tc_matches(w, "hashkey")) {
		bool off = w[0] == 'o';

		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (off ? parse_offset(ps, &d->u->sel) : parse_hashkey(ps, &d->u->sel))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"%s\"",
					      off ? "offset" : "hashkey");
		return 0;
	}
	if (mqtx__tc_matches(w, "classid") || !strcmp(w, "flowid")) {
		d->terminal = true;
		return mqtx__tcf_parse_classid(ps, &d->u->f.classid);
	}
	if (mqtx__tc_matches(w, "divisor")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (!divisor_ok(tcf_word(ps), &d->u->divisor))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"divisor\"");
		d->u->table = true;
		ps->i++;
		return 0;
	}
	if (mqtx__tc_matches(w, "order")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &d->order, 0))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"order\"");
		ps->i++;
		return 0;
	}
	if (!strcmp(w, "link") || !strcmp(w, "ht"))
		return parse_ht(ps, d, handle, w[0] == 'l');
	if (!strcmp(w, "sample")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		return parse_sample(ps, d);
	}
	if (!strcmp(w, "indev"))
		return parse_indev(ps, d);
	if (mqtx__tc_matches(w, "action") || mqtx__tc_matches(w, "police")) {
		d->terminal = true;
		if (w[0] == 'p')
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "Error: u32: \"police\": give the policer as "
					      "\"action police ...\".");
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		err = mqtx__tcf_exts_parse(&d->u->f.exts, ps);
		return err == -EINVAL ? mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"action\"")
				      : err;
	}
	if (!strcmp(w, "skip_hw") || !strcmp(w, "skip_sw")) {
		if (w[5] == 'h')
			d->u->skip_hw = true;
		else
			d->skip_sw = true;
		ps->i++;
		return 0;
	}
	if (strcmp(w, "help"))
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "What is \"%s\"?", w);
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", mqtx__u32_usage);
}

/* The draft's words after the loop (u32_parse_opt()'s end): order, flags, the selector. */
static int finish(struct u32_draft *d, struct tcf_parse *ps, uint32_t handle)
{
	if (d->order) {
		if (U32_NODE(handle) && d->order != U32_NODE(handle))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "\"order\" contradicts \"handle\"");
		d->u->f.handle = handle | d->order;
	}
	if (d->skip_sw && d->u->skip_hw)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "skip_hw and skip_sw are mutually exclusive");
	if (d->skip_sw) /* the kernel without a device to offload to (tc_setup_cb_add()) */
		return mqtx__tcf_perr(
			ps, MQTX_TC_EXIT_REFUSED,
			"Error: u32: \"skip_sw\": there is no hardware to offload to.");
	if (d->terminal)
		d->u->sel.flags |= U32_TERMINAL;
	if (d->u->indev[0] && ps->find_dev) {
		char why[256] = "";

		if (!ps->find_dev(ps->find_arg, d->u->indev, why, sizeof(why)) && !why[0])
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
					      "Error: Network device not found. (%s)\nWe have an "
					      "error talking to the kernel",
					      d->u->indev);
	}
	return 0;
}

int mqtx__u32_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out)
{
	struct u32_draft d = { 0 };
	struct u32_filter *u;
	size_t keys;
	int err = 0;

	d.u = mqtx__zalloc(sizeof(*d.u) + U32_KEYS_MAX * sizeof(struct u32_key));
	if (!d.u)
		return -ENOMEM;
	d.u->f.handle = handle;
	while (!err && tcf_word(ps))
		err = parse_word(&d, ps, handle);
	if (!err)
		err = finish(&d, ps, handle);
	keys = d.u->sel.nkeys * sizeof(struct u32_key);
	u = err ? NULL : (struct u32_filter *)mqtx__tcf_filter_alloc(sizeof(*u) + keys, 0);
	if (!err && !u)
		err = -ENOMEM;
	if (err) {
		mqtx__tcf_exts_free(&d.u->f.exts);
		mqtx__free(d.u);
		return err;
	}
	memcpy(u, d.u, sizeof(*u) + keys);
	mqtx__free(d.u);
	*out = &u->f;
	return 0;
}

int mqtx__u32_parse_handle(const char *word, uint32_t *h, struct tcf_parse *ps)
{
	if (get_handle(word, h))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal filter ID");
	return 0;
}

const char *mqtx__u32_handle_fmt(uint32_t h, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%x:", U32_HTID(h) >> 20);

	if (U32_KEY(h) && n > 0 && (size_t)n < len) {
		if (U32_HASH(h))
			n += snprintf(buf + n, len - (size_t)n, "%x", U32_HASH(h));
		if (U32_NODE(h) && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, ":%x", U32_NODE(h));
	}
	return buf;
}

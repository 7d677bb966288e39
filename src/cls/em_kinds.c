// SPDX-License-Identifier: MIT
/*
 * The kinds of extended match, each read as tc's em_*.c reads its arguments, matched as Linux's
 * em_*.c matches, printed as tc prints it: cmp (a u8/u16/u32 at a layer's offset, compared),
 * u32 (a masked word from the network header), nbyte (bytes at a layer's offset), meta (the
 * packet's metadata, em_meta.c) and text (a pattern between two offsets, em_text.c). canid and
 * ipset need kernel parts mqtx has no use for (CAN frames, ip sets): refused as a kernel without
 * them refuses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include <mqtx/dev.h>

#include "cls/em_int.h"

#define LAYER_MAX 2 /* TCF_LAYER_MAX */

enum { ALIGN_U8 = 1, ALIGN_U16 = 2, ALIGN_U32 = 4 };

static const char *const op_names[] = { "eq", "gt", "lt" };

/* ---- the packet's layers (tcf_get_base_ptr()) ---- */

static long layer_base(struct tcf_pkt *pk, unsigned layer)
{
	if (!layer)
		return 0;
	if (!pk->located)
		mqtx__tcf_locate(pk);
	return layer == 1 || !pk->l4 ? pk->l3 : pk->l4;
}

/* tcf_valid_offset(): @n bytes at @at lie in the frame. */
static const uint8_t *at_ok(const struct tcf_pkt *pk, long at, unsigned n)
{
	return at >= 0 && at + n <= pk->pkt->len ? pk->pkt->data + at : NULL;
}

/* ---- meta (em_meta.c) ---- */

enum {
	META_VALUE,
	META_RANDOM,
	META_LOADAVG_0,
	META_LOADAVG_1,
	META_LOADAVG_2,
	META_DEV,
	META_PRIORITY,
	META_PROTOCOL,
	META_PKTTYPE,
	META_PKTLEN,
	META_DATALEN,
	META_MACLEN,
	META_NFMARK,
	META_TCINDEX,
	META_RTCLASSID,
	META_RTIIF,
	META_SK, /* every sk_* id: mqtx's packets carry no socket */
	META_VLAN,
};

/* tc's names; "iv": a number or a string (a device), "i": a number. */
static const struct {
	const char *name;
	uint8_t id;
	bool var;
} meta_ids[] = {
	{ "random", META_RANDOM, false },
	{ "loadavg_1", META_LOADAVG_0, false },
	{ "loadavg_5", META_LOADAVG_1, false },
	{ "loadavg_15", META_LOADAVG_2, false },
	{ "dev", META_DEV, true },
	{ "priority", META_PRIORITY, false },
	{ "protocol", META_PROTOCOL, false },
	{ "pkt_type", META_PKTTYPE, false },
	{ "pkt_len", META_PKTLEN, false },
	{ "data_len", META_DATALEN, false },
	{ "mac_len", META_MACLEN, false },
	{ "nf_mark", META_NFMARK, false },
	{ "fwmark", META_NFMARK, false },
	{ "tc_index", META_TCINDEX, false },
	{ "rt_classid", META_RTCLASSID, false },
	{ "rt_iif", META_RTIIF, false },
	{ "vlan", META_VLAN, false },
	{ "sk_family", META_SK, false },
	{ "sk_state", META_SK, false },
	{ "sk_reuse", META_SK, false },
	{ "sk_bind_if", META_SK, true },
	{ "sk_refcnt", META_SK, false },
	{ "sk_shutdown", META_SK, false },
	{ "sk_proto", META_SK, false },
	{ "sk_type", META_SK, false },
	{ "sk_rcvbuf", META_SK, false },
	{ "sk_rmem", META_SK, false },
	{ "sk_wmem", META_SK, false },
	{ "sk_omem", META_SK, false },
	{ "sk_wmem_queue", META_SK, false },
	{ "sk_snd_queue", META_SK, false },
	{ "sk_rcv_queue", META_SK, false },
	{ "sk_err_queue", META_SK, false },
	{ "sk_fwd_alloc", META_SK, false },
	{ "sk_sndbuf", META_SK, false },
};

static const char *meta_name(uint8_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(meta_ids); i++)
		if (meta_ids[i].id == id)
			return meta_ids[i].name;
	return "?";
}

static uint32_t next_random(void)
{
	static _Thread_local uint32_t x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* meta_get() of a number: false where Linux's getter fails (no such thing on the packet). */
static bool meta_int(const struct em_meta_obj *o, struct tcf_pkt *pk, uint64_t *v)
{
	const struct mqtx_pkt *pkt = pk->pkt;
	double load[3];

	switch (o->id) {
	case META_VALUE:
		*v = o->mask;
		return true;
	case META_RANDOM:
		*v = next_random();
		break;
	case META_LOADAVG_0:
	case META_LOADAVG_1:
	case META_LOADAVG_2:
		if (getloadavg(load, 3) < 3)
			return false;
		*v = (uint64_t)load[o->id - META_LOADAVG_0];
		break;
	case META_PRIORITY:
		*v = pkt->priority;
		break;
	case META_PROTOCOL:
		*v = pk->proto;
		break;
	case META_PKTTYPE: /* PACKET_HOST: mqtx's packets are its own */
	case META_DATALEN: /* the paged part: mqtx's packets are linear */
	case META_TCINDEX:
		*v = 0;
		break;
	case META_PKTLEN:
		*v = pkt->len;
		break;
	case META_MACLEN:
		*v = (uint64_t)layer_base(pk, 1);
		break;
	case META_NFMARK:
		*v = pkt->mark;
		break;
	case META_VLAN: /* the tag's id; no tag: the getter fails */
		if (pkt->len < 18 || !(pkt->data[12] == 0x81 && pkt->data[13] == 0x00))
			return false;
		*v = (uint64_t)((pkt->data[14] << 8 | pkt->data[15]) & 0xFFF);
		break;
	default: /* dev by index, a route's, a socket's: nothing mqtx's packets carry */
		return false;
	}
	if (o->shift)
		*v >>= o->shift;
	if (o->mask)
		*v &= o->mask;
	return true;
}

/* meta_get() of a string: a value, or the device's name (shift shortens it). */
static bool meta_var(const struct em_meta_obj *o, struct tcf_pkt *pk, const char **s, size_t *n)
{
	if (o->id == META_VALUE) {
		*s = o->str;
		*n = o->len;
		return true;
	}
	if (o->id != META_DEV || !pk->dev)
		return false;
	*s = mqtx_dev_name(pk->dev);
	*n = strlen(*s);
	if (o->shift && o->shift < *n)
		*n -= o->shift;
	return true;
}

static bool meta_match(const struct em_term *e, struct tcf_pkt *pk)
{
	int r;

	if (e->meta.l.var) {
		const char *a, *b;
		size_t an, bn;

		if (!meta_var(&e->meta.l, pk, &a, &an) || !meta_var(&e->meta.r, pk, &b, &bn))
			return false;
		r = an != bn ? (an < bn ? -1 : 1) : memcmp(a, b, an);
	} else {
		uint64_t a, b;

		if (!meta_int(&e->meta.l, pk, &a) || !meta_int(&e->meta.r, pk, &b))
			return false;
		r = a == b ? 0 : a < b ? -1 : 1;
	}
	return e->meta.op == EM_OP_EQ ? !r : e->meta.op == EM_OP_LT ? r < 0 : r > 0;
}

/* ---- matching ---- */

static bool cmp_match(const struct em_term *e, struct tcf_pkt *pk)
{
	const uint8_t *p = at_ok(pk, layer_base(pk, e->cmp.layer) + e->cmp.off, e->cmp.align);
	uint32_t v;

	if (!p)
		return false;
	if (e->cmp.align == ALIGN_U8)
		v = p[0];
	else if (e->cmp.align == ALIGN_U16)
		v = (uint32_t)(p[0] << 8 | p[1]);
	else
		v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (e->cmp.trans) /* be16/32_to_cpu() of a value already in host order: swapped */
		v = e->cmp.align == ALIGN_U16	? (uint32_t)__builtin_bswap16((uint16_t)v)
		    : e->cmp.align == ALIGN_U32 ? __builtin_bswap32(v)
						: v;
	if (e->cmp.mask)
		v &= e->cmp.mask;
	return e->cmp.op == EM_OP_EQ   ? v == e->cmp.val
	       : e->cmp.op == EM_OP_LT ? v < e->cmp.val
				       : v > e->cmp.val;
}

static bool text_match(const struct em_term *e, struct tcf_pkt *pk)
{
	long from = layer_base(pk, e->bytes.from_layer) + e->bytes.from;
	long to = layer_base(pk, e->bytes.to_layer) + e->bytes.to;

	if (to > (long)pk->pkt->len)
		to = pk->pkt->len;
	if (from < 0 || to <= from)
		return false;
	/* kmp and bm find the same first occurrence; which is only how fast */
	for (long i = from; i + e->bytes.len <= to; i++)
		if (pk->pkt->data[i] == e->bytes.needle[0] &&
		    !memcmp(pk->pkt->data + i, e->bytes.needle, e->bytes.len))
			return true;
	return false;
}

bool mqtx__em_kind_match(const struct em_term *e, struct tcf_pkt *pk)
{
	const uint8_t *p;
	uint32_t w;

	switch (e->kind) {
	case EM_CMP:
		return cmp_match(e, pk);
	case EM_U32: /* basic passes no next header: the offset is the network header's */
		p = at_ok(pk, layer_base(pk, 1) + e->u32.off, 4);
		if (!p)
			return false;
		memcpy(&w, p, 4);
		return !((w ^ e->u32.val) & e->u32.mask);
	case EM_NBYTE:
		p = at_ok(pk, layer_base(pk, e->bytes.layer) + e->bytes.off, e->bytes.len);
		return p && !memcmp(p, e->bytes.needle, e->bytes.len);
	case EM_META:
		return meta_match(e, pk);
	case EM_TEXT:
		return text_match(e, pk);
	}
	return false;
}

/* ---- parsing (tc's em_*.c parse_eopt()) ---- */

static int err(const struct em_args *a, const char *fmt, const char *arg)
{
	return mqtx__tcf_perr(a->ps, MQTX_TC_EXIT_PARSE, fmt, arg ? arg : "");
}

/* bstrtoul(): a whole number in base 0, or false. */
static bool num(const char *s, unsigned long *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !*end && !errno;
}

/* parse_layer(): link, network, transport, or 0..2; -1: not a layer word or number. */
static int layer(const char *s)
{
	unsigned long v;

	if (!strcmp(s, "link"))
		return 0;
	if (!strcmp(s, "network"))
		return 1;
	if (!strcmp(s, "transport"))
		return 2;
	return num(s, &v) ? (v > LAYER_MAX ? INT_MAX : (int)v) : -1;
}

static int op_of(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (s && !strcmp(s, op_names[i]))
			return i;
	return -1;
}

static int cmp_parse(const struct em_args *a, struct em_term *e)
{
	bool at = false, value = false;
	unsigned long v;
	int l;

	if (!a->n)
		return err(a, "cmp: missing arguments%s", NULL);
	e->cmp.align = !strcmp(a->w[0], "u8")	 ? ALIGN_U8
		       : !strcmp(a->w[0], "u16") ? ALIGN_U16
		       : !strcmp(a->w[0], "u32") ? ALIGN_U32
						 : 0;
	if (!e->cmp.align)
		return err(a, "cmp: invalid alignment%s", NULL);
	e->cmp.layer = 1;
	for (unsigned i = 1; i < a->n; i++) {
		const char *w = a->w[i];

		if (!strcmp(w, "trans")) {
			e->cmp.trans = true;
			continue;
		}
		if (strcmp(w, "at") && strcmp(w, "layer") && strcmp(w, "mask") && op_of(w) < 0)
			return err(a, "cmp: unknown parameter \"%s\"", w);
		if (++i == a->n)
			return err(a, "cmp: missing argument%s", NULL);
		if (!strcmp(w, "layer")) {
			l = layer(a->w[i]);
			if (l < 0)
				return err(a, "cmp: invalid layer%s", NULL);
			if (l > LAYER_MAX)
				return err(a, "cmp: illegal layer, must be in 0..2%s", NULL);
			e->cmp.layer = (uint8_t)l;
			continue;
		}
		if (!num(a->w[i], &v))
			return err(a,
				   !strcmp(w, "at")	? "cmp: invalid offset, must be numeric%s"
				   : !strcmp(w, "mask") ? "cmp: invalid mask%s"
							: "cmp: invalid value%s",
				   NULL);
		if (!strcmp(w, "at")) {
			e->cmp.off = (uint16_t)v;
			at = true;
		} else if (!strcmp(w, "mask")) {
			e->cmp.mask = (uint32_t)v;
		} else {
			e->cmp.op = (uint8_t)op_of(w);
			e->cmp.val = (uint32_t)v;
			value = true;
		}
	}
	if (!at || !value)
		return err(a, "cmp: offset and value required%s", NULL);
	return 0;
}

static int u32_parse(const struct em_args *a, struct em_term *e)
{
	unsigned long key, mask, off;
	const char *w;
	unsigned align;

	if (!a->n)
		return err(a, "u32: missing arguments%s", NULL);
	align = !strcmp(a->w[0], "u8")	  ? 1
		: !strcmp(a->w[0], "u16") ? 2
		: !strcmp(a->w[0], "u32") ? 4
					  : 0;
	if (!align)
		return err(a, "u32: invalid alignment%s", NULL);
	if (a->n < 2)
		return err(a, "u32: missing key%s", NULL);
	if (!num(a->w[1], &key))
		return err(a, "u32: invalid key, must be numeric%s", NULL);
	if (a->n < 3)
		return err(a, "u32: missing mask%s", NULL);
	if (!num(a->w[2], &mask))
		return err(a, "u32: invalid mask, must be numeric%s", NULL);
	if (a->n < 4 || strcmp(a->w[3], "at"))
		return err(a, "u32: missing \"at\"%s", NULL);
	if (a->n < 5)
		return err(a, "u32: missing offset%s", NULL);
	w = a->w[4];
	e->u32.nexthdr = !strncmp(w, "nexthdr+", 8);
	if (e->u32.nexthdr)
		w += 8;
	if (!num(w, &off))
		return err(a, "u32: invalid offset%s", NULL);
	if (a->n > 5)
		return err(a, "u32: unexpected trailer%s", NULL);
	if (align == 1) {
		if (key > 0xFF || mask > 0xFF)
			return err(a,
				   key > 0xFF ? "Illegal key (>0xFF)%s" : "Illegal mask (>0xFF)%s",
				   NULL);
		key <<= 24 - (off & 3) * 8;
		mask <<= 24 - (off & 3) * 8;
		off &= ~3ul;
	} else if (align == 2) {
		if (key > 0xFFFF || mask > 0xFFFF)
			return err(a,
				   key > 0xFFFF ? "Illegal key (>0xFFFF)%s"
						: "Illegal mask (>0xFFFF)%s",
				   NULL);
		if (!(off & 3)) {
			key <<= 16;
			mask <<= 16;
		}
		off &= ~3ul;
	}
	if (off % 4)
		return err(a, "u32: invalid offset alignment, must be aligned to 4.%s", NULL);
	e->u32.mask = htonl((uint32_t)mask);
	e->u32.val = htonl((uint32_t)key) & e->u32.mask;
	e->u32.off = (int32_t)off;
	return 0;
}

/* The needle: its bytes as given, up to EM_NEEDLE_MAX. */
static int needle(const struct em_args *a, const char *w, struct em_term *e, const char *kind)
{
	size_t n = strlen(w);

	if (!n)
		return err(a, "%s: needle length is 0", kind);
	if (n > EM_NEEDLE_MAX)
		return err(a, "%s: the needle is longer than 128 bytes", kind);
	memcpy(e->bytes.needle, w, n);
	e->bytes.len = (uint16_t)n;
	return 0;
}

static int nbyte_parse(const struct em_args *a, struct em_term *e)
{
	unsigned long v;
	bool at = false;
	int l;

	if (!a->n)
		return err(a, "nbyte: missing arguments%s", NULL);
	if (needle(a, a->w[0], e, "nbyte"))
		return -EINVAL;
	e->bytes.layer = 1;
	for (unsigned i = 1; i < a->n; i++) {
		const char *w = a->w[i];

		if (strcmp(w, "at") && strcmp(w, "layer"))
			return err(a, "nbyte: unknown parameter \"%s\"", w);
		if (++i == a->n)
			return err(a, "nbyte: missing argument%s", NULL);
		if (w[0] == 'a') {
			if (!num(a->w[i], &v))
				return err(a, "nbyte: invalid offset, must be numeric%s", NULL);
			e->bytes.off = (uint16_t)v;
			at = true;
		} else {
			l = layer(a->w[i]);
			if (l < 0)
				return err(a, "nbyte: invalid layer%s", NULL);
			if (l > LAYER_MAX)
				return err(a, "nbyte: illegal layer, must be in 0..2%s", NULL);
			e->bytes.layer = (uint8_t)l;
		}
	}
	if (!at)
		return err(a, "nbyte: offset required%s", NULL);
	return 0;
}

/* text(ALGO PATTERN [from OFF [layer L]] [to OFF [layer L]]) */
static int text_parse(const struct em_args *a, struct em_term *e)
{
	unsigned long v;
	int l;

	if (!a->n)
		return err(a, "text: missing arguments%s", NULL);
	if (strcmp(a->w[0], "kmp") && strcmp(a->w[0], "bm"))
		return err(a, "text: unknown search algorithm \"%s\"", a->w[0]);
	e->bytes.kmp = a->w[0][0] == 'k';
	if (a->n < 2)
		return err(a, "text: missing pattern%s", NULL);
	if (needle(a, a->w[1], e, "text"))
		return -EINVAL;
	e->bytes.to = 0xFFFF;
	for (unsigned i = 2; i < a->n; i++) {
		const char *w = a->w[i];
		bool from = !strcmp(w, "from");

		if (!from && strcmp(w, "to"))
			return err(a, "text: unknown parameter \"%s\"", w);
		if (++i == a->n || !num(a->w[i], &v) || v > 0xFFFF)
			return err(a, "text: invalid offset after \"%s\"", w);
		*(from ? &e->bytes.from : &e->bytes.to) = (uint16_t)v;
		if (i + 1 < a->n && !strcmp(a->w[i + 1], "layer")) {
			i += 2;
			l = i < a->n ? layer(a->w[i]) : -1;
			if (l < 0 || l > LAYER_MAX)
				return err(a, "text: invalid layer%s", NULL);
			*(from ? &e->bytes.from_layer : &e->bytes.to_layer) = (uint8_t)l;
		}
	}
	return 0;
}

/* parse_object(): a quoted string, a number, or a meta id [shift N] [mask M]. */
static int meta_obj(const struct em_args *a, unsigned *i, struct em_meta_obj *o)
{
	const char *w = a->w[*i];
	unsigned long v;
	size_t k;

	if (a->quoted[*i]) {
		if (strlen(w) >= sizeof(o->str))
			return err(a, "meta: the string \"%s\" is too long", w);
		o->var = true;
		o->len = (uint8_t)strlen(w);
		memcpy(o->str, w, o->len);
		(*i)++;
		return 0;
	}
	if (num(w, &v)) {
		o->mask = (uint32_t)v;
		(*i)++;
		return 0;
	}
	for (k = 0; k < ARRAY_SIZE(meta_ids) && strcmp(meta_ids[k].name, w); k++)
		;
	if (k == ARRAY_SIZE(meta_ids))
		return err(a, "meta: unknown meta id%s", NULL);
	o->id = meta_ids[k].id;
	for ((*i)++; *i < a->n && (!strcmp(a->w[*i], "shift") || !strcmp(a->w[*i], "mask"));) {
		bool shift = a->w[*i][0] == 's';

		if (*i + 1 == a->n)
			return err(a, "meta: missing argument%s", NULL);
		if (!num(a->w[*i + 1], &v))
			return err(a,
				   shift ? "meta: invalid shift, must be numeric%s"
					 : "meta: invalid mask, must be numeric%s",
				   NULL);
		if (shift)
			o->shift = (uint8_t)v;
		else
			o->mask = (uint32_t)v;
		*i += 2;
	}
	return 0;
}

/* Whether a meta id may be read as a string (tc's "iv" ids: dev, sk_bind_if). */
static bool meta_may_var(uint8_t id)
{
	return id == META_DEV || id == META_SK;
}

static int meta_parse(const struct em_args *a, struct em_term *e)
{
	unsigned i = 0;
	int op;

	if (!a->n)
		return err(a, "meta: missing arguments%s", NULL);
	if (!strcmp(a->w[0], "list"))
		return err(a, "meta: the ids mqtx knows are tc's (tc-ematch(8))%s", NULL);
	if (meta_obj(a, &i, &e->meta.l))
		return -EINVAL;
	if (i == a->n)
		return err(a, "meta: missing operand%s", NULL);
	op = op_of(a->w[i]);
	if (op < 0)
		return err(a, "meta: invalid operand%s", NULL);
	e->meta.op = (uint8_t)op;
	if (++i == a->n)
		return err(a, "meta: missing rvalue%s", NULL);
	if (meta_obj(a, &i, &e->meta.r))
		return -EINVAL;
	if (i < a->n)
		return err(a, "meta: unexpected trailer%s", NULL);
	/* a string on one side: the other reads as one too, if it can (dev) */
	if (e->meta.l.var != e->meta.r.var) {
		struct em_meta_obj *id = e->meta.l.var ? &e->meta.r : &e->meta.l;

		if (id->id == META_VALUE || !meta_may_var(id->id))
			return err(a, "lvalue and rvalue are not compatible.%s", NULL);
		id->var = true;
	}
	return 0;
}

int mqtx__em_kind_parse(const char *kind, const struct em_args *a, struct em_term *e)
{
	if (!strcmp(kind, "cmp"))
		return e->kind = EM_CMP, cmp_parse(a, e);
	if (!strcmp(kind, "u32"))
		return e->kind = EM_U32, u32_parse(a, e);
	if (!strcmp(kind, "nbyte"))
		return e->kind = EM_NBYTE, nbyte_parse(a, e);
	if (!strcmp(kind, "meta"))
		return e->kind = EM_META, meta_parse(a, e);
	if (!strcmp(kind, "text"))
		return e->kind = EM_TEXT, text_parse(a, e);
	if (!strcmp(kind, "canid") || !strcmp(kind, "ipset")) {
		/* tcf_em_validate() of a kernel without em_canid/em_ipset: -ENOENT */
		return mqtx__tcf_perr(a->ps, MQTX_TC_EXIT_REFUSED,
				      "RTNETLINK answers: No such file or directory\nWe have an "
				      "error talking to the kernel");
	}
	mqtx__tcf_perr(a->ps, MQTX_TC_EXIT_PARSE, "Unknown ematch \"%s\"", kind);
	return -ENOENT;
}

/* ---- printing (tc's em_*.c print_eopt()) ---- */

#define OUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))

static size_t print_bytes(const uint8_t *b, unsigned cnt, bool hex_always, char *buf, size_t len)
{
	size_t n = 0;
	bool printable = true;

	for (unsigned i = 0; i < cnt; i++)
		printable &= b[i] >= 0x20 && b[i] < 0x7F;
	if (printable && !hex_always) {
		OUT("%.*s", (int)cnt, (const char *)b);
		return n;
	}
	for (unsigned i = 0; i < cnt; i++)
		OUT("%02x ", b[i]);
	OUT("\"");
	for (unsigned i = 0; i < cnt; i++)
		OUT("%c", b[i] >= 0x20 && b[i] < 0x7F ? b[i] : '.');
	OUT("\"");
	return n;
}

static size_t print_obj(const struct em_meta_obj *o, char *buf, size_t len)
{
	size_t n = 0;

	if (o->id == META_VALUE) {
		if (o->var)
			return print_bytes((const uint8_t *)o->str, o->len, false, buf, len);
		OUT("%d", (int32_t)o->mask);
		return n;
	}
	OUT("%s", meta_name(o->id));
	if (o->shift)
		OUT(" shift %d", o->shift);
	if (!o->var && o->mask)
		OUT(" mask 0x%08x", o->mask);
	return n;
}

size_t mqtx__em_kind_print(const struct em_term *e, char *buf, size_t len)
{
	static const char *const aligns[] = { "", "u8", "u16", "", "u32" };
	size_t n = 0;

	switch (e->kind) {
	case EM_CMP:
		OUT("cmp(%s at %d layer %d ", aligns[e->cmp.align], e->cmp.off, e->cmp.layer);
		if (e->cmp.mask)
			OUT("mask 0x%x ", e->cmp.mask);
		if (e->cmp.trans)
			OUT("trans ");
		OUT("%s %d)", op_names[e->cmp.op], (int32_t)e->cmp.val);
		break;
	case EM_U32:
		OUT("u32(%08x/%08x at %s%d)", ntohl(e->u32.val), ntohl(e->u32.mask),
		    e->u32.nexthdr ? "nexthdr+" : "", e->u32.off);
		break;
	case EM_NBYTE:
		OUT("nbyte(");
		n += print_bytes(e->bytes.needle, e->bytes.len, true, buf + (n < len ? n : len),
				 n < len ? len - n : 0);
		OUT(" at %d layer %d)", e->bytes.off, e->bytes.layer);
		break;
	case EM_META:
		OUT("meta(");
		n += print_obj(&e->meta.l, buf + (n < len ? n : len), n < len ? len - n : 0);
		OUT(" %s ", op_names[e->meta.op]);
		n += print_obj(&e->meta.r, buf + (n < len ? n : len), n < len ? len - n : 0);
		OUT(")");
		break;
	case EM_TEXT:
		OUT("text(%s \"%.*s\" from %d layer %d to %d layer %d)",
		    e->bytes.kmp ? "kmp" : "bm", e->bytes.len, (const char *)e->bytes.needle,
		    e->bytes.from, e->bytes.from_layer, e->bytes.to, e->bytes.to_layer);
		break;
	}
	return n;
}

// SPDX-License-Identifier: MIT
/* pedit: edit a frame 32 bits at a time: keys of (offset, value, mask) that tc makes from raw
 * offsets or from a header's named fields, relative to the frame's Ethernet, network or
 * transport header, set or added (Linux's act_pedit.c, iproute2's m_pedit.c and p_*.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

/* TCA_PEDIT_KEY_EX_HDR_TYPE_* and TCA_PEDIT_KEY_EX_CMD_* */
enum { HT_NETWORK, HT_ETH, HT_IP4, HT_IP6, HT_TCP, HT_UDP };
enum { CMD_SET, CMD_ADD };

#define PEDIT_MAX_KEYS 128 /* tc's MAX_OFFS */

#define PEDIT_USAGE                                                                           \
	"Usage: ... pedit munge [ex] <MUNGE> [CONTROL]\n"                                     \
	"Where: MUNGE := <RAW>|<LAYERED>\n"                                                   \
	"\t<RAW>:= <OFFSETC>[ATC]<CMD>\n"                                                     \
	" \t\tOFFSETC:= offset <offval> <u8|u16|u32>\n"                                       \
	"\t\tATC:= at <atval> offmask <maskval> shift <shiftval>\n"                           \
	"\t\tNOTE: offval is byte offset, must be multiple of 4\n"                            \
	"\t\tNOTE: maskval is a 32 bit hex number\n"                                          \
	" \t\tNOTE: shiftval is a shift value\n"                                              \
	"\t\tCMD:= clear | invert | set <setval> | add <addval> | decrement | retain\n"       \
	"\t<LAYERED>:= ip <ipdata> | ip6 <ip6data>\n"                                         \
	" \t\t| udp <udpdata> | tcp <tcpdata> | icmp <icmpdata>\n"                            \
	"\tCONTROL:= reclassify | pipe | drop | continue | pass |\n"                          \
	"\t          goto chain <CHAIN_INDEX>\n"                                              \
	"\tNOTE: if 'ex' is set, extended functionality will be supported (kernel >= 4.11)\n" \
	"For Example usage look at the examples directory\n"

/* One key: off, val and mask as tc prints them (val and mask in network byte order there). */
struct pkey {
	int32_t off;
	uint32_t val, mask;
	uint32_t at, offmask, shift;
	uint8_t htype, cmd;
};

struct pedit {
	int verdict;
	bool extended;
	unsigned nkeys;
	struct pkey keys[PEDIT_MAX_KEYS];
};

/* ---- data path ---- */

/* pedit_skb_hdr_offset(): where a key's header starts, from the frame's first byte. */
static bool hdr_offset(struct tcf_pkt *pk, uint8_t htype, int64_t *off)
{
	const uint8_t *d = pk->pkt->data;
	uint32_t len = pk->pkt->len, nh = pk->no_mac ? 0 : 14;
	struct mqtx_flow_keys fk;
	uint16_t proto = pk->proto;

	if (htype == HT_ETH) {
		*off = 0;
		return true;
	}
	/* the network header: past the tags the frame carries */
	while (!pk->no_mac && (proto == MQTX_ETH_P_8021Q || proto == 0x88A8) && nh + 4 <= len) {
		proto = (uint16_t)(d[nh + 2] << 8 | d[nh + 3]);
		nh += 4;
	}
	if (htype == HT_NETWORK || htype == HT_IP4 || htype == HT_IP6) {
		*off = nh;
		return true;
	}
	/* pedit_l4_skb_offset(): by the packet's protocol (a tagged frame's is the tag's) */
	if (pk->proto == MQTX_ETH_P_IP) {
		if (nh + 20 > len)
			return false;
		*off = nh + (d[nh] & 15u) * 4;
		return true;
	}
	if (pk->proto != MQTX_ETH_P_IPV6 || pk->no_mac)
		return false;
	/* ipv6_find_hdr(): the transport header past the extension headers */
	mqtx_flow_dissect(d, len, &fk);
	if (fk.ip_proto != (htype == HT_TCP ? 6 : 17) || !fk.l4_off)
		return false;
	*off = fk.l4_off;
	return true;
}

/* tcf_pedit_act(): each key in turn; one that cannot apply stops the rest and is counted as
 * an overlimit. The words are handled as the kernel handles them, in the host's byte order
 * (an "add" carries within its field as a little-endian machine adds). */
static int pedit_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct pedit *p = tcf_act_priv(a);
	struct mqtx_pkt *pkt = pk->pkt;
	int64_t room = mqtx_pkt_headroom(pkt), len = pkt->len;

	(void)res;
	for (unsigned i = 0; i < p->nkeys; i++) {
		const struct pkey *k = &p->keys[i];
		uint32_t cur, val, kval = htonl(k->val), kmask = htonl(k->mask);
		int64_t h, off = k->off, w;

		if (!hdr_offset(pk, k->htype, &h))
			goto bad;
		if (k->offmask) {
			int64_t at = h + (int32_t)k->at;

			if (at < -room || at > len - 1)
				goto bad;
			off += (pkt->data[at] & k->offmask) >> k->shift;
			if (off % 4)
				goto bad;
		}
		w = h + off;
		if (w < -room || w > len - 4)
			goto bad;
		memcpy(&cur, pkt->data + w, 4);
		val = k->cmd == CMD_ADD ? (cur + kval) & ~kmask : kval;
		cur = (cur & kmask) ^ val;
		memcpy(pkt->data + w, &cur, 4);
	}
	goto done;
bad:
	atomic_fetch_add_explicit(&a->st.overlimits, 1, memory_order_relaxed);
done:
	/* the classifiers read the frame anew; its protocol stays what it was (skb->protocol) */
	pk->keyed = false;
	pk->located = false;
	if (p->verdict == MQTX_ACT_SHOT)
		pkt->drop_reason = MQTX_DROP_FILTER;
	return p->verdict;
}

/* ---- control path: the fields of the layered form (p_ip.c, p_ip6.c, p_tcp.c, ...) ---- */

enum { T_U32, T_IPV4, T_IPV6, T_MAC };

#define F_PREFIX 0x1 /* matched as a prefix (matches()), else whole */
#define F_NONEX	 0x2 /* only without "ex" (past the header it names) */
#define F_DEC	 0x4 /* takes "decrement" */

struct field {
	const char *kind, *name;
	int off, len, type;
	uint32_t retain;
	unsigned shift; /* the value's place in the word (traffic_class) */
	unsigned flags;
};

static const struct field fields[] = {
	{ "ip", "src", 12, 4, T_IPV4, ~0u, 0, 0 },
	{ "ip", "dst", 16, 4, T_IPV4, ~0u, 0, 0 },
	{ "ip", "tos", 1, 1, T_U32, 0xFF, 0, 0 },
	{ "ip", "dsfield", 1, 1, T_U32, 0xFF, 0, F_PREFIX },
	{ "ip", "ihl", 0, 1, T_U32, 0x0F, 0, 0 },
	{ "ip", "ttl", 8, 1, T_U32, 0xFF, 0, F_DEC },
	{ "ip", "protocol", 9, 1, T_U32, 0xFF, 0, 0 },
	{ "ip", "precedence", 1, 1, T_U32, 0xFF, 0, F_PREFIX },
	{ "ip", "nofrag", 6, 1, T_U32, 0x3F, 0, 0 },
	{ "ip", "firstfrag", 6, 1, T_U32, 0x1F, 0, 0 },
	{ "ip", "ce", 6, 1, T_U32, 0x80, 0, 0 },
	{ "ip", "df", 6, 1, T_U32, 0x40, 0, 0 },
	{ "ip", "mf", 6, 1, T_U32, 0x20, 0, 0 },
	{ "ip", "dport", 22, 2, T_U32, 0xFFFF, 0, F_NONEX },
	{ "ip", "sport", 20, 2, T_U32, 0xFFFF, 0, F_NONEX },
	{ "ip", "icmp_type", 20, 1, T_U32, 0xFF, 0, F_NONEX },
	{ "ip", "icmp_code", 20, 1, T_U32, 0xFF, 0, F_NONEX },
	{ "ip6", "src", 8, 16, T_IPV6, ~0u, 0, 0 },
	{ "ip6", "dst", 24, 16, T_IPV6, ~0u, 0, 0 },
	{ "ip6", "traffic_class", 0, 4, T_U32, 0x0FF00000, 20, 0 },
	{ "ip6", "flow_lbl", 0, 4, T_U32, 0x0007FFFF, 0, 0 },
	{ "ip6", "payload_len", 4, 2, T_U32, 0xFFFF, 0, 0 },
	{ "ip6", "nexthdr", 6, 1, T_U32, 0xFF, 0, 0 },
	{ "ip6", "hoplimit", 7, 1, T_U32, 0xFF, 0, F_DEC },
	{ "tcp", "sport", 0, 2, T_U32, 0xFFFF, 0, 0 },
	{ "tcp", "dport", 2, 2, T_U32, 0xFFFF, 0, 0 },
	{ "tcp", "flags", 13, 1, T_U32, 0xFF, 0, 0 },
	{ "udp", "sport", 0, 2, T_U32, 0xFFFF, 0, 0 },
	{ "udp", "dport", 2, 2, T_U32, 0xFFFF, 0, 0 },
	{ "eth", "src", 6, 6, T_MAC, ~0u, 0, 0 },
	{ "eth", "dst", 0, 6, T_MAC, ~0u, 0, 0 },
	{ "eth", "type", 12, 2, T_U32, 0xFFFF, 0, 0 },
};

static uint8_t kind_htype(const char *kind, bool extended)
{
	if (!strcmp(kind, "ip"))
		return extended ? HT_IP4 : HT_NETWORK;
	if (!strcmp(kind, "ip6"))
		return HT_IP6;
	if (!strcmp(kind, "tcp"))
		return HT_TCP;
	if (!strcmp(kind, "udp"))
		return HT_UDP;
	return HT_ETH;
}

/* ---- control path: packing a value into keys (tc's pack_key*()) ---- */

static int pack_key(struct pedit *p, struct pkey *k, struct tcf_parse *ps)
{
	if (p->nkeys >= PEDIT_MAX_KEYS)
		return -EINVAL;
	if (k->off % 4)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "offsets MUST be in 32 bit boundaries");
	if (!p->extended && (k->htype != HT_NETWORK || k->cmd != CMD_SET))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "Munge parameters not supported. Use 'pedit ex munge ...'.");
	p->keys[p->nkeys++] = *k;
	return 0;
}

static int pack32(struct pedit *p, struct pkey *k, uint32_t retain, struct tcf_parse *ps)
{
	if (k->off & 3)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "pack_key32: 32 bit offsets must begin in 32bit boundaries");
	k->val &= retain;
	k->mask |= ~retain;
	return pack_key(p, k, ps);
}

static int pack16(struct pedit *p, struct pkey *k, uint32_t retain, struct tcf_parse *ps)
{
	static const uint32_t m[3] = { 0x0000FFFF, 0xFF0000FF, 0xFFFF0000 };
	int ind = k->off & 3, stride;

	if (k->val > 0xFFFF || k->mask > 0xFFFF)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "pack_key16 bad value");
	if (ind == 3)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "pack_key16 bad index value %d", ind);
	stride = 8 * (2 - ind);
	k->val = (k->val & retain) << stride;
	k->mask = ((k->mask | ~retain) << stride) | m[ind];
	k->off &= ~3;
	return pack_key(p, k, ps);
}

static int pack8(struct pedit *p, struct pkey *k, uint32_t retain, struct tcf_parse *ps)
{
	static const uint32_t m[4] = { 0x00FFFFFF, 0xFF00FFFF, 0xFFFF00FF, 0xFFFFFF00 };
	int ind = k->off & 3, stride;

	if (k->val > 0xFF || k->mask > 0xFF)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "pack_key8 bad value (val %x mask %x",
				      k->val, k->mask);
	stride = 8 * (3 - ind);
	k->val = (k->val & retain) << stride;
	k->mask = ((k->mask | ~retain) << stride) | m[ind];
	k->off &= ~3;
	return pack_key(p, k, ps);
}

/* A MAC at a 32- or 16-bit boundary: two keys (pack_mac()). */
static int pack_mac(struct pedit *p, struct pkey *k, const uint8_t *mac, struct tcf_parse *ps)
{
	bool aligned = !(k->off & 3);
	uint32_t w32 = (uint32_t)mac[aligned ? 0 : 2] << 24 | (uint32_t)mac[aligned ? 1 : 3] << 16 |
		       (uint32_t)mac[aligned ? 2 : 4] << 8 | mac[aligned ? 3 : 5];
	uint32_t w16 = (uint32_t)mac[aligned ? 4 : 0] << 8 | mac[aligned ? 5 : 1];

	if (!aligned && (k->off & 1))
		return mqtx__tcf_perr(
			ps, MQTX_TC_EXIT_PARSE,
			"pack_mac: mac offsets must begin in 32bit or 16bit boundaries");
	k->mask = 0;
	k->val = aligned ? w32 : w16;
	if ((aligned ? pack32(p, k, ~0u, ps) : pack16(p, k, ~0u, ps)))
		return -EINVAL;
	k->off += 4;
	k->mask = 0;
	k->val = aligned ? w16 : w32;
	return aligned ? pack16(p, k, ~0u, ps) : pack32(p, k, ~0u, ps);
}

static int pack_ipv6(struct pedit *p, struct pkey *k, const uint8_t *a, struct tcf_parse *ps)
{
	for (int i = 0; i < 4; i++) {
		k->mask = 0;
		k->val = (uint32_t)a[4 * i] << 24 | (uint32_t)a[4 * i + 1] << 16 |
			 (uint32_t)a[4 * i + 2] << 8 | a[4 * i + 3];
		if (pack32(p, k, ~0u, ps))
			return -EINVAL;
		k->off += 4;
	}
	return 0;
}

/* ---- control path: the words ---- */

/* get_addr_ipv4(): up to four parts, each a number (0x, 0 octal) up to 255, the missing ones
 * 0 ("10.1" is 10.1.0.0). */
static int parse_ipv4(const char *s, uint8_t *a)
{
	for (int i = 0; i < 4; i++) {
		char *end;
		unsigned long n = strtoul(s, &end, 0);

		if (end == s || n > 255 || *s == '-')
			return -EINVAL;
		a[i] = (uint8_t)n;
		if (!*end)
			return 0;
		if (i == 3 || *end != '.')
			return -EINVAL;
		s = end + 1;
	}
	return 0;
}

/* parse_val(): a value of @type at the current word into @v (16 bytes). */
static int parse_val(const char *w, int type, uint8_t *v)
{
	char buf[64], *slash;
	uint32_t x;

	if (type == T_U32) {
		if (mqtx__tc_get_u32(w, &x, 0))
			return -EINVAL;
		memcpy(v, &x, 4);
		return 0;
	}
	if (type == T_MAC)
		return mqtx__parse_mac(w, v);
	/* get_prefix_1(): an address, a prefix length after it taken and ignored */
	snprintf(buf, sizeof(buf), "%s", w);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (type == T_IPV6)
		return inet_pton(AF_INET6, buf, v) == 1 ? 0 : -EINVAL;
	return parse_ipv4(buf, v);
}

/*
 * parse_cmd(): the command after a field or a raw offset, "retain" after it, and the keys it
 * makes. @len is the field's bytes. Return 0, -EINVAL before anything was read past the
 * command (*@pack false), or -EINVAL from the packing (*@pack true).
 */
static int parse_cmd(struct pedit *p, struct pkey *k, int len, int type, uint32_t retain,
		     const struct field *f, struct tcf_parse *ps, bool *pack)
{
	uint8_t v[16] = { 0 };
	uint32_t o = len == 2 ? 0xFFFF : len == 4 ? 0xFFFFFFFFu : 0xFF, val = 0, mask = 0;
	const char *w = tcf_word(ps);

	*pack = false;
	if (!w)
		return -EINVAL;
	if (mqtx__tc_matches(w, "invert")) {
		val = mask = o;
		v[0] = 0xFF; /* a MAC "inverted": its first byte all ones, as tc makes it */
	} else if (mqtx__tc_matches(w, "set") || mqtx__tc_matches(w, "add")) {
		if (mqtx__tc_matches(w, "add"))
			k->cmd = CMD_ADD;
		if (!p->extended && k->cmd)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "Non extended mode. only 'set' command is supported");
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (parse_val(tcf_word(ps), type, v))
			return -EINVAL;
		if (type == T_U32 || type == T_IPV4)
			memcpy(&val, v, 4);
		if (type == T_IPV4)
			val = ntohl(val);
	} else if (mqtx__tc_matches(w, "decrement")) {
		if (!f || !(f->flags & F_DEC))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "decrement command is not supported for this field");
		if (!p->extended)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "Non extended mode. only 'set' command is supported");
		k->cmd = CMD_ADD;
		val = retain; /* adding all ones subtracts one */
	} else if (mqtx__tc_matches(w, "preserve")) {
		retain = 0;
	} else if (!mqtx__tc_matches(w, "clear")) {
		return -EINVAL;
	}
	ps->i++;
	w = tcf_word(ps);
	if (w && mqtx__tc_matches(w, "retain")) {
		if (mqtx__tcf_next(ps) || mqtx__tc_get_u32(tcf_word(ps), &retain, 0))
			return -EINVAL;
		ps->i++;
	}
	if (len > 4 && retain != ~0u)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "retain is not supported for fields longer the 32 bits");
	*pack = true;
	if (type == T_MAC)
		return pack_mac(p, k, v, ps);
	if (type == T_IPV6)
		return pack_ipv6(p, k, v, ps);
	if (f && f->shift) {
		val <<= f->shift;
		mask <<= f->shift;
	}
	k->val = val;
	k->mask = mask;
	return len == 1	  ? pack8(p, k, retain, ps)
	       : len == 2 ? pack16(p, k, retain, ps)
			  : pack32(p, k, retain, ps);
}

/* "offset N u8|u16|u32 [at A OFFMASK SHIFT] CMD": the word tc names when it fails. */
static int parse_offset(struct pedit *p, struct tcf_parse *ps, int *bad)
{
	struct pkey k = { 0 };
	int off, len, at_cmd;
	uint32_t retain;
	const char *w;
	bool pack;
	long x;
	char *end;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	*bad = ps->i;
	w = tcf_word(ps);
	x = strtol(w, &end, 0);
	if (!*w || *end || x < INT32_MIN || x > INT32_MAX)
		return -EINVAL;
	off = (int)x;
	k.off = off;
	w = ps->i + 1 < ps->argc ? ps->argv[ps->i + 1] : NULL;
	if (!w)
		return -EINVAL;
	if (mqtx__tc_matches(w, "u32"))
		len = 4, retain = 0xFFFFFFFFu;
	else if (mqtx__tc_matches(w, "u16"))
		len = 2, retain = 0xFFFF;
	else if (mqtx__tc_matches(w, "u8"))
		len = 1, retain = 0xFF;
	else
		return -EINVAL;
	ps->i++;
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (mqtx__tc_matches(tcf_word(ps), "at")) {
		if (mqtx__tcf_next(ps) || mqtx__tc_get_u32(tcf_word(ps), &k.at, 0) ||
		    mqtx__tcf_next(ps) || mqtx__tc_get_u32(tcf_word(ps), &k.offmask, 16) ||
		    mqtx__tcf_next(ps) || mqtx__tc_get_u32(tcf_word(ps), &k.shift, 0) ||
		    mqtx__tcf_next(ps))
			return -EINVAL;
		if (k.shift > 31) /* the kernel's sanitized shift */
			k.shift = 31;
	}
	at_cmd = ps->i;
	k.htype = HT_NETWORK;
	if (!parse_cmd(p, &k, len, T_U32, retain, NULL, ps, &pack))
		return 0;
	*bad = pack ? ps->i : at_cmd;
	return -EINVAL;
}

/* "KIND FIELD CMD": one of the fields above. */
static int parse_layered(struct pedit *p, struct tcf_parse *ps)
{
	const char *kind = tcf_word(ps), *w;
	struct pkey k = { 0 };
	const struct field *f = NULL;
	bool pack, known = false;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	w = tcf_word(ps);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (strcmp(fields[i].kind, kind))
			continue;
		known = true;
		if (fields[i].flags & F_NONEX && p->extended)
			continue;
		if (fields[i].flags & F_PREFIX ? mqtx__tc_matches(w, fields[i].name)
					       : !strcmp(w, fields[i].name)) {
			f = &fields[i];
			break;
		}
	}
	known |= !strcmp(kind, "icmp"); /* tc knows it, and reads no field of it */
	if (!known)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "Unknown action  hence option \"%s\" is unparsable", w);
	/* the kinds other than ip address their own header: "ex" only */
	if (!f || ps->argc - ps->i < 2 || (!p->extended && strcmp(kind, "ip")))
		return -EINVAL;
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	k.off = f->off;
	k.htype = kind_htype(kind, p->extended);
	return parse_cmd(p, &k, f->len, f->type, f->retain, f, ps, &pack);
}

/* parse_munge() at the word after "munge"; tc's "Bad pedit construct" names a word. */
static int parse_munge(struct pedit *p, struct tcf_parse *ps)
{
	int start = ps->i, bad = start, err;

	if (!strcmp(tcf_word(ps), "offset") || mqtx__tc_matches(tcf_word(ps), "offset")) {
		err = parse_offset(p, ps, &bad);
	} else {
		err = parse_layered(p, ps);
		if (err && ps->exit != MQTX_TC_EXIT_ABORT)
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "bad pedit parsing");
	}
	if (!err || ps->exit == MQTX_TC_EXIT_ABORT)
		return err;
	mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Bad pedit construct (%s)",
		       bad < ps->argc ? ps->argv[bad] : "(null)");
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", PEDIT_USAGE);
}

/* After "pedit": "ex" first, if at all. */
static int parse_ex(struct pedit *p, struct tcf_parse *ps, int ok)
{
	if (!mqtx__tc_matches(tcf_word(ps), "ex"))
		return 0;
	if (ok > 1) {
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "'ex' must be before first 'munge'");
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", PEDIT_USAGE);
	}
	p->extended = true;
	return mqtx__tcf_next(ps);
}

static int pedit_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct pedit *p = tcf_act_priv(a);
	const char *w;
	int ok = 1;

	p->verdict = MQTX_ACT_OK;
	if (parse_ex(p, ps, ok))
		return -EINVAL;
	while ((w = tcf_word(ps))) {
		if (mqtx__tc_matches(w, "pedit")) {
			if (mqtx__tcf_next(ps) || parse_ex(p, ps, ++ok))
				return -EINVAL;
		} else if (mqtx__tc_matches(w, "help")) {
			return mqtx__tcf_usage_exit(ps, PEDIT_USAGE);
		} else if (mqtx__tc_matches(w, "munge")) {
			if (mqtx__tcf_next(ps) || parse_munge(p, ps))
				return -EINVAL;
			ok++;
		} else {
			break;
		}
	}
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &p->verdict, false))
		return -EINVAL;
	if (mqtx__tcf_act_index(ps, a, "Pedit: ", 10) < 0)
		return -EINVAL;
	if (!p->nkeys)
		return mqtx__tcf_refuse_late(ps,
					     "Error: act_pedit: Pedit requires keys to be passed.");
	return 0;
}

static void pedit_dump(const struct tcf_action *a, struct tc_out *p)
{
	static const char *const htypes[] = { "", "eth", "ipv4", "ipv6", "tcp", "udp" };
	const struct pedit *e = tcf_act_priv(a);
	char b[16];

	mqtx__out_str(p, OUT_ANY, "kind", " %s ", "pedit");
	mqtx__tcf_print_control(p, "action ", e->verdict, " ");
	mqtx__out_uint(p, OUT_ANY, "nkeys", "keys %llu\n", e->nkeys);
	mqtx__tcf_act_dump_index(a, " 	 ", p);
	mqtx__out_open_array(p, "keys");
	for (unsigned i = 0; i < e->nkeys; i++) {
		const struct pkey *k = &e->keys[i];

		mqtx__out_open(p, NULL);
		mqtx__out_text(p, "\n\t key #%u  at ", i);
		if (k->htype != HT_NETWORK) {
			mqtx__out_str(p, OUT_ANY, "htype", "%s", htypes[k->htype]);
			mqtx__out_int(p, OUT_ANY, "offset", "%+lld", k->off);
		} else {
			mqtx__out_str(p, OUT_JSON, "htype", "%s", "network");
			mqtx__out_int(p, OUT_ANY, "offset", "%lld", k->off);
		}
		mqtx__out_text(p, ": %s", k->cmd ? "add" : "val");
		mqtx__out_str(p, OUT_JSON, "cmd", "%s", k->cmd ? "add" : "set");
		snprintf(b, sizeof(b), "%x", k->val);
		mqtx__out_str(p, OUT_JSON, "val", "%s", b);
		mqtx__out_text(p, " %08x", k->val);
		snprintf(b, sizeof(b), "%x", k->mask);
		mqtx__out_str(p, OUT_JSON, "mask", "%s", b);
		mqtx__out_text(p, " mask %08x", k->mask);
		mqtx__out_close(p);
	}
	mqtx__out_close_array(p);
	mqtx__out_nl(p);
}

static void pedit_brief(const struct tcf_action *a, char *buf, size_t len)
{
	const struct pedit *e = tcf_act_priv(a);

	snprintf(buf, len, "pedit keys %u", e->nkeys);
}

const struct tcf_action_ops mqtx__tcf_pedit_ops = {
	.kind = "pedit",
	.usage = PEDIT_USAGE,
	.priv_size = sizeof(struct pedit),
	.parse = pedit_parse,
	.act = pedit_act,
	.dump = pedit_dump,
	.brief = pedit_brief,
};

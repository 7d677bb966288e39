// SPDX-License-Identifier: MIT
/* csum: recompute the checksums of a frame's IPv4 header and of its ICMP, IGMP, TCP, UDP,
 * UDP-Lite or SCTP payload after an edit (pedit) has made them wrong (Linux's act_csum.c). */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

/* TCA_CSUM_UPDATE_FLAG_* */
#define CSUM_IPV4HDR 0x01u
#define CSUM_ICMP    0x02u
#define CSUM_IGMP    0x04u
#define CSUM_TCP     0x08u
#define CSUM_UDP     0x10u
#define CSUM_UDPLITE 0x20u
#define CSUM_SCTP    0x40u

#define IPPROTO_ICMP_	 1
#define IPPROTO_IGMP_	 2
#define IPPROTO_TCP_	 6
#define IPPROTO_UDP_	 17
#define IPPROTO_ICMPV6_	 58
#define IPPROTO_SCTP_	 132
#define IPPROTO_UDPLITE_ 136

#define CSUM_USAGE                                                                          \
	"Usage: ... csum <UPDATE>\n"                                                        \
	"Where: UPDATE := <TARGET> [<UPDATE>]\n"                                            \
	"       TARGET := { ip4h | icmp | igmp | tcp | udp | udplite | sctp | <SWEETS> }\n" \
	"       SWEETS := { and | or | '+' }\n"

struct csum {
	unsigned flags;
	int verdict;
};

/* ---- checksums ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The ones' complement sum of @n bytes as big-endian words (an odd last byte padded). */
static uint32_t sum(const uint8_t *p, size_t n, uint32_t acc)
{
	for (; n > 1; p += 2, n -= 2)
		acc += get16(p);
	if (n)
		acc += (uint32_t)p[0] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xFFFF) + (acc >> 16);
	return (uint16_t)~acc;
}

/* The pseudo header of TCP, UDP and ICMPv6: addresses (@alen bytes each), length, protocol. */
static uint32_t pseudo(const uint8_t *src, const uint8_t *dst, size_t alen, uint32_t len,
		       uint8_t proto)
{
	return sum(src, alen, sum(dst, alen, 0)) + (len >> 16) + (len & 0xFFFF) + proto;
}

/* CRC32c, reflected, 4 bits at a time (SCTP's checksum, RFC 3309). */
static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	static const uint32_t t[16] = {
		0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1, 0x417b1dbc, 0x5125dad3,
		0x61c69362, 0x7198540d, 0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
		0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
	};

	while (n--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ t[crc & 15];
		crc = (crc >> 4) ^ t[crc & 15];
	}
	return crc;
}

/* ---- data path ---- */

/* Where the checksums are: the frame, its network header at @nh, the addresses' length. */
struct where {
	uint8_t *f;
	uint32_t len, nh;
	const uint8_t *src, *dst;
	size_t alen;
};

/* tcf_csum_skb_nextlayer(): the transport header at @ihl of an IP packet of @ipl bytes, with
 * @jhl bytes of its own; NULL when the frame is shorter or the packet cannot hold it. */
static uint8_t *next_layer(const struct where *w, uint32_t ihl, uint32_t ipl, uint32_t jhl)
{
	if (w->nh + ipl > w->len || ipl < ihl + jhl)
		return NULL;
	return w->f + w->nh + ihl;
}

/* ICMP, IGMP: the sum of the message alone; ICMPv6 (@proto): with the pseudo header. */
static bool icmp(const struct where *w, uint32_t ihl, uint32_t ipl, uint8_t proto)
{
	uint8_t *h = next_layer(w, ihl, ipl, 8);
	uint32_t acc = 0;

	if (!h)
		return false;
	put16(h + 2, 0);
	if (proto)
		acc = pseudo(w->src, w->dst, w->alen, ipl - ihl, proto);
	put16(h + 2, fold(sum(h, ipl - ihl, acc)));
	return true;
}

static bool tcp(const struct where *w, uint32_t ihl, uint32_t ipl)
{
	uint8_t *h = next_layer(w, ihl, ipl, 20);

	if (!h)
		return false;
	put16(h + 16, 0);
	put16(h + 16,
	      fold(sum(h, ipl - ihl, pseudo(w->src, w->dst, w->alen, ipl - ihl, IPPROTO_TCP_))));
	return true;
}

/*
 * tcf_csum_ipv4_udp() / _ipv6_udp(): UDP's length must be the packet's; UDP-Lite's covers
 * its length field's bytes (0: all). A datagram that breaks that is left with a zero
 * checksum, as Linux leaves it. An IPv4 UDP datagram without a checksum keeps none.
 */
static bool udp(const struct where *w, uint32_t ihl, uint32_t ipl, uint8_t proto)
{
	uint8_t *h = next_layer(w, ihl, ipl, 8);
	uint16_t ul, c;
	uint32_t cov;

	if (!h)
		return false;
	if (w->alen == 4 && proto == IPPROTO_UDP_ && !get16(h + 6))
		return true;
	ul = get16(h + 4);
	put16(h + 6, 0);
	if (proto == IPPROTO_UDPLITE_) {
		if (ul == 0)
			cov = ipl - ihl;
		else if (ul >= 8 && ul <= ipl - ihl)
			cov = ul;
		else
			return true;
	} else {
		if (ul != ipl - ihl)
			return true;
		cov = ul;
	}
	c = fold(sum(h, cov, pseudo(w->src, w->dst, w->alen, ul, proto)));
	put16(h + 6, c ? c : 0xFFFF); /* CSUM_MANGLED_0 */
	return true;
}

/* SCTP's CRC32c covers the frame from its header to the end, stored little-endian. */
static bool sctp(const struct where *w, uint32_t ihl, uint32_t ipl)
{
	uint8_t *h = next_layer(w, ihl, ipl, 12);
	uint32_t crc;

	if (!h)
		return false;
	memset(h + 8, 0, 4);
	crc = ~crc32c(0xFFFFFFFFu, h, w->len - (w->nh + ihl));
	h[8] = (uint8_t)crc;
	h[9] = (uint8_t)(crc >> 8);
	h[10] = (uint8_t)(crc >> 16);
	h[11] = (uint8_t)(crc >> 24);
	return true;
}

/* The transport's checksum, if @flags ask for it: false where Linux drops the packet. */
static bool l4(const struct where *w, unsigned flags, uint8_t proto, uint32_t ihl, uint32_t ipl)
{
	switch (proto) {
	case IPPROTO_ICMP_:
		return !(flags & CSUM_ICMP) || icmp(w, ihl, ipl, 0);
	case IPPROTO_ICMPV6_:
		return w->alen != 16 || !(flags & CSUM_ICMP) || icmp(w, ihl, ipl, proto);
	case IPPROTO_IGMP_:
		return !(flags & CSUM_IGMP) || icmp(w, ihl, ipl, 0);
	case IPPROTO_TCP_:
		return !(flags & CSUM_TCP) || tcp(w, ihl, ipl);
	case IPPROTO_UDP_:
		return !(flags & CSUM_UDP) || udp(w, ihl, ipl, proto);
	case IPPROTO_UDPLITE_:
		return !(flags & CSUM_UDPLITE) || udp(w, ihl, ipl, proto);
	case IPPROTO_SCTP_:
		return !(flags & CSUM_SCTP) || sctp(w, ihl, ipl);
	}
	return true;
}

/* tcf_csum_ipv4(): a non-first fragment has no transport header to sum. */
static bool ipv4(struct where *w, unsigned flags)
{
	uint8_t *ip = w->f + w->nh;
	uint32_t ihl;

	if (w->nh + 20 > w->len)
		return false;
	ihl = (ip[0] & 15u) * 4;
	w->src = ip + 12;
	w->dst = ip + 16;
	w->alen = 4;
	if (!(get16(ip + 6) & 0x1FFF) && !l4(w, flags, ip[9], ihl, get16(ip + 2)))
		return false;
	if (flags & CSUM_IPV4HDR) {
		if (ihl < 20 || w->nh + ihl > w->len)
			return false;
		put16(ip + 10, 0);
		put16(ip + 10, fold(sum(ip, ihl, 0)));
	}
	return true;
}

/* tcf_csum_ipv6(): through the hop-by-hop (a jumbo payload length), routing and destination
 * options headers to the transport; a fragment or anything else is left alone. */
static bool ipv6(struct where *w, unsigned flags)
{
	uint8_t *ip = w->f + w->nh, nexthdr;
	uint32_t hl = 40, pl;

	if (w->nh + 40 > w->len)
		return false;
	w->src = ip + 8;
	w->dst = ip + 24;
	w->alen = 16;
	pl = get16(ip + 4);
	nexthdr = ip[6];
	do {
		uint8_t *x = ip + hl;
		uint32_t xl;

		switch (nexthdr) {
		case 0:	 /* hop-by-hop options */
		case 43: /* routing */
		case 60: /* destination options */
			if (w->nh + hl + 8 > w->len)
				return false;
			xl = (x[1] + 1u) * 8;
			if (w->nh + hl + xl > w->len)
				return false;
			for (uint32_t o = 2; nexthdr == 0 && o + 1 < xl;) {
				uint32_t ol = x[o] == 0 ? 1 : x[o + 1] + 2u;

				if (x[o] == 0xC2) { /* jumbo payload */
					if (ol != 6 || xl - o < 6 || (o & 3) != 2)
						return false;
					pl = (uint32_t)get16(x + o + 2) << 16 | get16(x + o + 4);
					break;
				}
				if (ol > xl - o)
					break;
				o += ol;
			}
			nexthdr = x[0];
			hl += xl;
			break;
		case IPPROTO_ICMPV6_:
		case IPPROTO_TCP_:
		case IPPROTO_UDP_:
		case IPPROTO_UDPLITE_:
		case IPPROTO_SCTP_:
			return l4(w, flags, nexthdr, hl, pl + 40);
		default:
			return true;
		}
	} while (w->nh + hl + 1 <= w->len);
	return true;
}

static int csum_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct csum *c = tcf_act_priv(a);
	struct where w = { .f = pk->pkt->data, .len = pk->pkt->len };
	uint16_t proto = pk->proto;
	bool ok = true;

	(void)res;
	if (c->verdict != MQTX_ACT_SHOT) {
		/* the network header: after the Ethernet header and every tag in the payload */
		w.nh = pk->no_mac ? 0 : 14;
		while (!pk->no_mac && (proto == MQTX_ETH_P_8021Q || proto == 0x88A8) && ok) {
			ok = w.nh + 4 <= w.len;
			if (ok)
				proto = get16(w.f + w.nh + 2);
			w.nh += 4;
		}
		if (ok && proto == MQTX_ETH_P_IP)
			ok = ipv4(&w, c->flags);
		else if (ok && proto == MQTX_ETH_P_IPV6)
			ok = ipv6(&w, c->flags);
	}
	if (!ok || c->verdict == MQTX_ACT_SHOT) {
		pk->pkt->drop_reason = MQTX_DROP_FILTER;
		return MQTX_ACT_SHOT;
	}
	return c->verdict;
}

/* ---- control path ---- */

static const struct {
	const char *word;
	unsigned flag;
} targets[] = {
	{ "iph", CSUM_IPV4HDR },
	{ "ip4h", CSUM_IPV4HDR },
	{ "ipv4h", CSUM_IPV4HDR },
	{ "icmp", CSUM_ICMP },
	{ "igmp", CSUM_IGMP },
	{ "tcp", CSUM_TCP },
	{ "udp", CSUM_UDP },
	{ "udplite", CSUM_UDPLITE },
	{ "sctp", CSUM_SCTP },
	{ "and", 0 },
	{ "or", 0 },
	{ "+", 0 },
};

/* The targets from the current word on, up to the first that is none. */
static void parse_targets(struct csum *c, struct tcf_parse *ps)
{
	const char *w;

	while ((w = tcf_word(ps))) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(targets); i++)
			if (mqtx__tc_matches(w, targets[i].word))
				break;
		if (i == ARRAY_SIZE(targets))
			return;
		c->flags |= targets[i].flag;
		ps->i++;
	}
}

static int parse_index(struct tcf_action *a, struct tcf_parse *ps)
{
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (mqtx__tc_get_u32(tcf_word(ps), &a->index, 10))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"index\" (%s) <csum>",
				      tcf_word(ps));
	ps->i++;
	return 0;
}

static int csum_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct csum *c = tcf_act_priv(a);
	const char *w;

	c->verdict = MQTX_ACT_OK;
	/* right after the kind, "index" is the index (and no target is needed) */
	if (!strcmp(tcf_word(ps), "index"))
		return parse_index(a, ps);
	for (;;) {
		parse_targets(c, ps);
		w = tcf_word(ps);
		if (w && mqtx__tc_matches(w, "csum")) {
			if (mqtx__tcf_next(ps))
				return -EINVAL;
			if (!strcmp(tcf_word(ps), "index"))
				return parse_index(a, ps);
			continue;
		}
		if (w && mqtx__tc_matches(w, "help"))
			return mqtx__tcf_usage_exit(ps, CSUM_USAGE);
		break;
	}
	if (!c->flags)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "Illegal csum construct, empty <UPDATE> list");
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &c->verdict, false))
		return -EINVAL;
	w = tcf_word(ps);
	if (w && mqtx__tc_matches(w, "index"))
		return parse_index(a, ps);
	return 0;
}

/* "iph, icmp, udp": tc's order, whatever the order of the words. */
static void targets_fmt(unsigned flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"iph", "icmp", "igmp", "tcp", "udp", "udplite", "sctp"
	};
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++)
		if (flags & 1u << i && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", names[i]);
	if (!n)
		snprintf(buf, len, "?empty");
}

static void csum_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct csum *c = tcf_act_priv(a);
	char b[64];

	targets_fmt(c->flags, b, sizeof(b));
	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "csum");
	mqtx__out_str(p, OUT_ANY, "csum", "(%s) ", b);
	mqtx__tcf_print_control(p, "action ", c->verdict, "");
	mqtx__out_nl(p);
	mqtx__tcf_act_dump_index(a, "	", p);
	mqtx__out_nl(p);
}

static void csum_brief(const struct tcf_action *a, char *buf, size_t len)
{
	const struct csum *c = tcf_act_priv(a);
	char b[64];

	targets_fmt(c->flags, b, sizeof(b));
	snprintf(buf, len, "csum (%s)", b);
}

const struct tcf_action_ops mqtx__tcf_csum_ops = {
	.kind = "csum",
	.usage = CSUM_USAGE,
	.priv_size = sizeof(struct csum),
	.parse = csum_parse,
	.act = csum_act,
	.dump = csum_dump,
	.brief = csum_brief,
};

// SPDX-License-Identifier: MIT
/* skbmod: rewrite a frame's Ethernet header (destination, source, type), swap its addresses,
 * or mark it Congestion Experienced where it is ECN-capable (Linux's act_skbmod.c). */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

/* SKBMOD_F_* */
#define SKBMOD_DMAC    0x1u
#define SKBMOD_SMAC    0x2u
#define SKBMOD_ETYPE   0x4u
#define SKBMOD_SWAPMAC 0x8u
#define SKBMOD_ECN     0x10u

#define SKBMOD_USAGE                                                                             \
	"Usage:... skbmod { set <SETTABLE> | swap <SWAPPABLE> | ecn } [CONTROL] [index INDEX]\n" \
	"where SETTABLE is: [dmac DMAC] [smac SMAC] [etype ETYPE]\n"                             \
	"where SWAPPABLE is: \"mac\" to swap mac addresses\n"                                    \
	"\tDMAC := 6 byte Destination MAC address\n"                                             \
	"\tSMAC := optional 6 byte Source MAC address\n"                                         \
	"\tETYPE := optional 16 bit ethertype\n"                                                 \
	"\tCONTROL := reclassify | pipe | drop | continue | ok |\n"                              \
	"\t           goto chain <CHAIN_INDEX>\n"                                                \
	"\tINDEX := skbmod index value to use\n"

struct skbmod {
	unsigned flags; /* what the kernel keeps: the set fields, or swap alone, or ecn alone */
	uint8_t dmac[6], smac[6];
	uint16_t etype;
	int verdict;
};

/* ---- data path ---- */

/* IP_ECN_set_ce(): ECT(0) or ECT(1) becomes CE, the header checksum updated as Linux does it
 * (one ones' complement addition); Not-ECT and CE stay. */
static void ecn_ipv4(uint8_t *ip)
{
	uint32_t ecn = (ip[1] + 1u) & 3u;
	uint16_t add, c;

	if (!(ecn & 2))
		return;
	add = (uint16_t)(0xFFFBu + ecn);
	c = (uint16_t)(ip[10] << 8 | ip[11]);
	c = (uint16_t)(c + add);
	c = (uint16_t)(c + (c < add)); /* csum16_add(): the end-around carry */
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	ip[1] |= 3;
}

/* IP6_ECN_set_ce(): any ECN-capable codepoint becomes CE (no checksum in the header). */
static void ecn_ipv6(uint8_t *ip)
{
	if (ip[1] & 0x30)
		ip[1] |= 0x30;
}

static void ecn(struct tcf_pkt *pk)
{
	struct mqtx_pkt *pkt = pk->pkt;
	uint32_t nh = pk->no_mac ? 0 : 14;
	uint16_t proto = pk->proto;

	/* skb_protocol(skb, true): past the tags in the payload */
	while (!pk->no_mac && (proto == MQTX_ETH_P_8021Q || proto == 0x88A8)) {
		if (nh + 4 > pkt->len)
			return;
		proto = (uint16_t)(pkt->data[nh + 2] << 8 | pkt->data[nh + 3]);
		nh += 4;
	}
	if (proto == MQTX_ETH_P_IP && nh + 20 <= pkt->len)
		ecn_ipv4(pkt->data + nh);
	else if (proto == MQTX_ETH_P_IPV6 && nh + 40 <= pkt->len)
		ecn_ipv6(pkt->data + nh);
}

static int skbmod_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct skbmod *m = tcf_act_priv(a);
	uint8_t *eth = pk->pkt->data, tmp[6];

	(void)res;
	if (m->verdict == MQTX_ACT_SHOT || (m->flags != SKBMOD_ECN && pk->pkt->len < 14)) {
		/* Linux counts these as overlimits */
		atomic_fetch_add_explicit(&a->st.overlimits, 1, memory_order_relaxed);
		pk->pkt->drop_reason = MQTX_DROP_FILTER;
		return MQTX_ACT_SHOT;
	}
	if (m->flags == SKBMOD_ECN) {
		ecn(pk);
		return m->verdict;
	}
	if (m->flags & SKBMOD_DMAC)
		memcpy(eth, m->dmac, 6);
	if (m->flags & SKBMOD_SMAC)
		memcpy(eth + 6, m->smac, 6);
	if (m->flags & SKBMOD_ETYPE) {
		eth[12] = (uint8_t)(m->etype >> 8);
		eth[13] = (uint8_t)m->etype;
	}
	if (m->flags & SKBMOD_SWAPMAC) {
		memcpy(tmp, eth, 6);
		memcpy(eth, eth + 6, 6);
		memcpy(eth + 6, tmp, 6);
	}
	if (m->flags & SKBMOD_ETYPE)
		tcf_pkt_edited(pk);
	return m->verdict;
}

/* ---- control path ---- */

/* One word of skbmod's: 0 taken, 1 not skbmod's; *@ok counts the settings given. */
static int parse_word(struct skbmod *m, struct tcf_parse *ps, unsigned *given, int *ok)
{
	const char *w = tcf_word(ps);

	/* tc's order of matches(): "s" is skbmod, "se" set, "sw" swap */
	if (mqtx__tc_matches(w, "skbmod") || mqtx__tc_matches(w, "swap") ||
	    mqtx__tc_matches(w, "set"))
		return mqtx__tcf_next(ps) ? -EINVAL : 2;
	if (mqtx__tc_matches(w, "mac")) {
		*given |= SKBMOD_SWAPMAC;
	} else if (mqtx__tc_matches(w, "etype")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u16(tcf_word(ps), &m->etype, 0))
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_ABORT,
				"Error: argument \"%s\" is wrong: ethertype is invalid",
				tcf_word(ps));
		*given |= SKBMOD_ETYPE;
	} else if (mqtx__tc_matches(w, "dmac") || mqtx__tc_matches(w, "smac")) {
		bool dst = w[0] == 'd';

		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__parse_mac(tcf_word(ps), dst ? m->dmac : m->smac))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      dst ? "Invalid dst mac address %s"
						  : "Invalid smac address %s",
					      tcf_word(ps));
		*given |= dst ? SKBMOD_DMAC : SKBMOD_SMAC;
	} else if (mqtx__tc_matches(w, "ecn")) {
		*given |= SKBMOD_ECN;
	} else if (mqtx__tc_matches(w, "help")) {
		return mqtx__tcf_usage_exit(ps, SKBMOD_USAGE);
	} else {
		return 1;
	}
	++*ok;
	return 0;
}

static int skbmod_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct skbmod *m = tcf_act_priv(a);
	unsigned given = 0;
	const char *w;
	int ok = 0, rc;

	m->verdict = MQTX_ACT_PIPE;
	while (tcf_word(ps)) {
		rc = parse_word(m, ps, &given, &ok);
		if (rc < 0)
			return rc;
		if (rc == 1)
			break;
		if (rc == 0)
			ps->i++;
	}
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &m->verdict, false))
		return -EINVAL;
	rc = mqtx__tcf_act_index(ps, a, "skbmod: ", 0);
	if (rc < 0)
		return -EINVAL;
	ok += rc;
	if (!ok) {
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "skbmod requires at least one option");
		return mqtx__tcf_usage_exit(ps, SKBMOD_USAGE);
	}
	/* tc sends no etype 0; tcf_skbmod_init(): swap alone, or ecn alone, or the fields */
	if (!m->etype)
		given &= ~SKBMOD_ETYPE;
	if (given & SKBMOD_SWAPMAC)
		m->flags = SKBMOD_SWAPMAC;
	if (given & SKBMOD_ECN)
		m->flags = SKBMOD_ECN;
	if (!m->flags)
		m->flags = given & (SKBMOD_DMAC | SKBMOD_SMAC | SKBMOD_ETYPE);
	if (!m->flags)
		return mqtx__tcf_refuse_late(ps, "RTNETLINK answers: Invalid argument (skbmod: "
						 "nothing to set, swap or mark)");
	return 0;
}

static void skbmod_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct skbmod *m = tcf_act_priv(a);
	char b[24];

	mqtx__out_str(p, OUT_FP, NULL, "%s", "skbmod ");
	mqtx__tcf_print_control(p, "", m->verdict, " ");
	if (m->flags & SKBMOD_ETYPE) {
		mqtx__out_text(p, "set etype 0x%X ", m->etype);
		snprintf(b, sizeof(b), "0x%x", m->etype);
		mqtx__out_str(p, OUT_JSON, "etype", "%s", b);
		mqtx__out_text(p, "\n\t ");
	}
	if (m->flags & SKBMOD_DMAC)
		mqtx__out_str(p, OUT_ANY, "dmac", "set dmac %s ",
			      mqtx__mac_fmt(m->dmac, b, sizeof(b)));
	if (m->flags & SKBMOD_SMAC)
		mqtx__out_str(p, OUT_ANY, "smac", "set smac %s ",
			      mqtx__mac_fmt(m->smac, b, sizeof(b)));
	if (m->flags & SKBMOD_SWAPMAC)
		mqtx__out_null(p, "swapmac", "swap mac ");
	if (m->flags & SKBMOD_ECN)
		mqtx__out_null(p, "ecn", "ecn ");
	mqtx__out_nl(p);
	mqtx__out_uint(p, OUT_ANY, "index", "\t index %llu ", a->index);
	mqtx__out_int(p, OUT_ANY, "ref", "ref %lld ", tcf_act_ref(a));
	mqtx__out_int(p, OUT_ANY, "bind", "bind %lld", tcf_act_bind(a));
	mqtx__out_nl(p);
}

static void skbmod_brief(const struct tcf_action *a, char *buf, size_t len)
{
	const struct skbmod *m = tcf_act_priv(a);
	char d[24], s[24];

	if (m->flags == SKBMOD_SWAPMAC)
		snprintf(buf, len, "skbmod swap mac");
	else if (m->flags == SKBMOD_ECN)
		snprintf(buf, len, "skbmod ecn");
	else
		snprintf(buf, len, "skbmod set%s%s%s%s", m->flags & SKBMOD_DMAC ? " dmac " : "",
			 m->flags & SKBMOD_DMAC ? mqtx__mac_fmt(m->dmac, d, sizeof(d)) : "",
			 m->flags & SKBMOD_SMAC ? " smac " : "",
			 m->flags & SKBMOD_SMAC ? mqtx__mac_fmt(m->smac, s, sizeof(s)) : "");
}

const struct tcf_action_ops mqtx__tcf_skbmod_ops = {
	.kind = "skbmod",
	.usage = SKBMOD_USAGE,
	.priv_size = sizeof(struct skbmod),
	.parse = skbmod_parse,
	.act = skbmod_act,
	.dump = skbmod_dump,
	.brief = skbmod_brief,
};

// SPDX-License-Identifier: MIT
/* skbedit: set a packet's TX queue, priority or mark (Linux's act_skbedit.c). On the egress
 * hook the queue it sets is the queue the packet leaves on: selection takes it as chosen.
 * inheritdsfield sets the priority from the IPv4/IPv6 DS field (its DSCP, as Linux's
 * dsfield >> 2). ptype is kept and shown as tc shows it; it sets nothing: an mqtx packet has no
 * packet type (skb->pkt_type is how the kernel's receive path saw a frame's destination). */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

#define SKBEDIT_QUEUE 0x1u
#define SKBEDIT_PRIO  0x2u
#define SKBEDIT_MARK  0x4u
#define SKBEDIT_MASK  0x8u
#define SKBEDIT_PTYPE 0x10u
#define SKBEDIT_DS    0x20u

#define SKBEDIT_USAGE                                                    \
	"Usage: ... skbedit <[QM] [PM] [MM] [PT] [IF]>\n"                \
	"QM = queue_mapping QUEUE_MAPPING\n"                             \
	"PM = priority PRIORITY\n"                                       \
	"MM = mark MARK[/MASK]\n"                                        \
	"PT = ptype PACKETYPE\n"                                         \
	"IF = inheritdsfield\n"                                          \
	"PACKETYPE = is one of:\n"                                       \
	"  host, otherhost, broadcast, multicast\n"                      \
	"QUEUE_MAPPING = device transmit queue to use\n"                 \
	"PRIORITY = classID to assign to priority field\n"               \
	"MARK = firewall mark to set\n"                                  \
	"MASK = mask applied to firewall mark (0xffffffff by default)\n" \
	"note: inheritdsfield maps DS field to skb->priority\n"

/* The packet types tc names (linux/if_packet.h PACKET_HOST .. PACKET_OTHERHOST). */
static const char *const ptype_names[] = { "host", "broadcast", "multicast", "otherhost" };

struct skbedit {
	unsigned flags;
	uint16_t queue, ptype;
	uint32_t priority, mark, mask;
	int verdict;
};

/* ---- data path ---- */

/* The DSCP of an IPv4 or IPv6 packet (behind any VLAN tags) as its priority; another protocol,
 * or a header cut short, leaves the priority as it is. */
static void inherit_dsfield(struct mqtx_pkt *pkt)
{
	const uint8_t *d = pkt->data;
	struct mqtx_flow_keys fk;
	uint32_t l3;

	mqtx_flow_dissect(d, pkt->len, &fk);
	l3 = fk.l3_off;
	if (fk.n_proto == 0x0800 && l3 && l3 + 20 <= pkt->len)
		pkt->priority = d[l3 + 1] >> 2;
	else if (fk.n_proto == 0x86dd && l3 && l3 + 40 <= pkt->len)
		pkt->priority = (uint32_t)((d[l3] & 0xF) << 4 | d[l3 + 1] >> 4) >> 2;
}

static int skbedit_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	struct mqtx_pkt *pkt = pk->pkt;
	const struct skbedit *e = tcf_act_priv(a);

	(void)res;
	if (e->flags & SKBEDIT_PRIO)
		pkt->priority = e->priority;
	if (e->flags & SKBEDIT_DS)
		inherit_dsfield(pkt);
	if (e->flags & SKBEDIT_MARK)
		pkt->mark = (pkt->mark & ~e->mask) | (e->mark & e->mask);
	if (e->flags & SKBEDIT_QUEUE) {
		/* The queue is chosen: selection keeps it (Linux's netdev_xmit_skip_txqueue()). */
		pkt->queue_mapping = e->queue;
		pkt->flags |= MQTX_PKT_F_QMAP_SET;
	}
	if (e->verdict == MQTX_ACT_SHOT)
		pkt->drop_reason = MQTX_DROP_FILTER;
	return e->verdict;
}

/* ---- control path ---- */

static int parse_mark(struct skbedit *e, struct tcf_parse *ps)
{
	char buf[32], *slash;

	if (mqtx__tc_split(tcf_word(ps), buf, sizeof(buf), &slash) ||
	    mqtx__tc_get_u32(buf, &e->mark, 0))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal mark");
	e->mask = 0xFFFFFFFFu;
	if (slash) {
		if (mqtx__tc_get_u32(slash, &e->mask, 0))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal mask");
		e->flags |= SKBEDIT_MASK;
	}
	e->flags |= SKBEDIT_MARK;
	return 0;
}

/* One of skbedit's settings at the current word (a tcf_word_fn). */
static int parse_setting(void *priv, struct tcf_parse *ps)
{
	struct skbedit *e = priv;
	const char *w = tcf_word(ps);
	uint32_t v;

	if (mqtx__tc_matches(w, "queue_mapping")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &v, 10) || v > 65535)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal queue_mapping");
		e->queue = (uint16_t)v;
		e->flags |= SKBEDIT_QUEUE;
	} else if (mqtx__tc_matches(w, "priority")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__classid_parse(tcf_word(ps), &e->priority))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal priority");
		e->flags |= SKBEDIT_PRIO;
	} else if (mqtx__tc_matches(w, "mark")) {
		if (mqtx__tcf_next(ps) || parse_mark(e, ps))
			return -EINVAL;
	} else if (mqtx__tc_matches(w, "ptype")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		for (v = 0; v < 4 && !mqtx__tc_matches(tcf_word(ps), ptype_names[v]); v++)
			;
		if (v == 4)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal ptype (%s)",
					      tcf_word(ps));
		e->ptype = (uint16_t)v;
		e->flags |= SKBEDIT_PTYPE;
	} else if (mqtx__tc_matches(w, "inheritdsfield")) {
		e->flags |= SKBEDIT_DS;
	} else {
		return 1;
	}
	return 0;
}

static int skbedit_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct skbedit *e = tcf_act_priv(a);
	const char *w;
	int rc;

	e->verdict = MQTX_ACT_PIPE;
	rc = mqtx__tcf_words(ps, parse_setting, e, true, mqtx__tcf_skbedit_ops.usage);
	if (rc < 0)
		return rc;
	/* parse_action_control_dflt(): a verdict word, else pipe */
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &e->verdict, false))
		return -EINVAL;
	if (mqtx__tcf_act_index(ps, a, "skbedit: ", 10) < 0)
		return -EINVAL;
	if (!e->flags)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", mqtx__tcf_skbedit_ops.usage);
	return 0;
}

static void skbedit_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct skbedit *e = tcf_act_priv(a);
	char b[16];

	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "skbedit");
	if (e->flags & SKBEDIT_QUEUE)
		mqtx__out_uint(p, OUT_ANY, "queue_mapping", "queue_mapping %llu", e->queue);
	if (e->flags & SKBEDIT_PRIO)
		mqtx__out_str(p, OUT_ANY, "priority", " priority %s",
			      mqtx__classid_fmt(e->priority, b, sizeof(b)));
	if (e->flags & SKBEDIT_MARK)
		mqtx__out_uint(p, OUT_ANY, "mark", " mark %llu", e->mark);
	if (e->flags & SKBEDIT_MASK) {
		snprintf(b, sizeof(b), "%#x", e->mask);
		mqtx__out_str(p, OUT_ANY, "mask", "/%s", b);
	}
	if (e->flags & SKBEDIT_PTYPE)
		mqtx__out_str(p, OUT_ANY, "ptype", " ptype %s", ptype_names[e->ptype]);
	if (e->flags & SKBEDIT_DS)
		mqtx__out_null(p, "inheritdsfield", " inheritdsfield");
	mqtx__tcf_print_control(p, " ", e->verdict, "");
	mqtx__out_nl(p);
	mqtx__tcf_act_dump_index(a, "	 ", p);
	mqtx__out_nl(p);
}

static void skbedit_brief(const struct tcf_action *a, char *buf, size_t len)
{
	const struct skbedit *e = tcf_act_priv(a);
	size_t n = (size_t)snprintf(buf, len, "skbedit");
	char b[16];

	if (e->flags & SKBEDIT_QUEUE && n < len)
		n += (size_t)snprintf(buf + n, len - n, " queue_mapping %u", e->queue);
	if (e->flags & SKBEDIT_PRIO && n < len)
		n += (size_t)snprintf(buf + n, len - n, " priority %s",
				      mqtx__classid_fmt(e->priority, b, sizeof(b)));
	if (e->flags & SKBEDIT_MARK && n < len)
		snprintf(buf + n, len - n, " mark %u/%#x", e->mark, e->mask);
}

const struct tcf_action_ops mqtx__tcf_skbedit_ops = {
	.kind = "skbedit",
	.usage = SKBEDIT_USAGE,
	.priv_size = sizeof(struct skbedit),
	.parse = skbedit_parse,
	.act = skbedit_act,
	.dump = skbedit_dump,
	.brief = skbedit_brief,
};

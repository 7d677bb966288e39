// SPDX-License-Identifier: MIT
/* Classification: a packet through a block's chains (Linux's tcf_classify()), lock-free on the
 * rule set published last; and the same without side effects for "filter test". */
#include <stdio.h>
#include <string.h>

#include <mqtx/flow.h>

#include "base/rcu.h"
#include "core/core.h"
#include "cls/cls_int.h"
#include "cls/tcf.h"

/* Linux's max_reclassify_loop: past it the packet is dropped. */
#define RECLASSIFY_MAX 16

/* The length Linux's actions see: the frame on the send side, from the network header on the
 * receive side (eth_type_trans() has pulled the Ethernet header before tc runs). */
static uint32_t tc_len(const struct mqtx_pkt *pkt, bool ingress)
{
	return ingress ? mqtx_rx_tc_len(pkt) : pkt->len;
}

uint16_t mqtx__tcf_frame_proto(const struct mqtx_pkt *pkt)
{
	if (pkt->len < 14)
		return 0;
	return (uint16_t)(pkt->data[12] << 8 | pkt->data[13]);
}

void mqtx__tcf_locate(struct tcf_pkt *pk)
{
	struct mqtx_flow_keys fk;

	mqtx_flow_dissect(pk->pkt->data, pk->pkt->len, &fk);
	pk->l3 = fk.l3_off ? fk.l3_off : 14;
	pk->l4 = fk.l4_off;
	pk->located = true;
}

/*
 * Chain 0's priorities in order, each of the frame's protocol or of all; a reclassify starts
 * again at chain 0, a goto at the named chain (an empty or missing one matches nothing).
 */
int mqtx__tcf_classify_rs(const struct tcf_ruleset *rs, struct tcf_pkt *pk,
			  struct mqtx_tcf_result *res)
{
	const struct tcf_chain *c = mqtx__tcf_chain_find(rs, 0), *start = c;
	unsigned loops = 0;

	pk->rs = rs;
	while (c) {
		const struct tcf_chain *next = NULL;

		for (unsigned i = 0; i < c->n; i++) {
			const struct tcf_proto *tp = c->tps[i];
			int v;

			if (tp->protocol != pk->proto && tp->protocol != MQTX_ETH_P_ALL)
				continue;
			v = tp->ops->classify(tp, pk, res);
			if (unlikely(v == MQTX_ACT_RECLASSIFY)) {
				next = start;
				break;
			}
			if (unlikely((v & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_GOTO_CHAIN && v > 0)) {
				next = mqtx__tcf_chain_find(rs, (uint32_t)v & MQTX_ACT_EXT_MASK);
				if (!next)
					return MQTX_ACT_UNSPEC;
				break;
			}
			if (v >= 0)
				return v;
		}
		if (!next)
			break;
		if (loops++ >= RECLASSIFY_MAX) {
			mqtx_dbg("filter block: reclassify loop, packet dropped");
			pk->pkt->drop_reason = MQTX_DROP_FILTER;
			return MQTX_ACT_SHOT;
		}
		c = next;
	}
	return MQTX_ACT_UNSPEC;
}

/* A verdict for a filter's user: PIPE (every action piped) is a match. */
static int final_verdict(int v)
{
	return v == MQTX_ACT_PIPE ? MQTX_ACT_OK : v;
}

int mqtx_tcf_classify(const struct mqtx_tcf_block *b, struct mqtx_dev *dev, struct mqtx_pkt *pkt,
		      struct mqtx_tcf_result *res)
{
	const struct tcf_ruleset *rs;
	struct tcf_pkt pk;
	int v = MQTX_ACT_UNSPEC;

	res->classid = 0;
	/* No rules (most qdiscs' blocks): nothing to read under RCU. */
	if (!b || !atomic_load_explicit(&((struct mqtx_tcf_block *)b)->rs, memory_order_relaxed))
		return v;
	mqtx__rcu_read_lock();
	mqtx__fwd_enter(); /* called outside a transmit: a redirect is sent at the end here */
	rs = tcf_block_rules(b);
	if (rs) {
		pk.pkt = pkt;
		pk.dev = dev;
		pk.len = tc_len(pkt, mqtx__tc_at_ingress);
		pk.proto = mqtx__tcf_frame_proto(pkt);
		pk.keyed = false;
		pk.located = false;
		pk.dry = false;
		pk.no_mac = false;
		pk.tr = NULL;
		v = final_verdict(mqtx__tcf_classify_rs(rs, &pk, res));
	}
	mqtx__fwd_leave();
	mqtx__rcu_read_unlock();
	return v;
}

/* ---- "filter test" ---- */

static void print_hit(struct tc_out *p, const char *what, const struct tcf_proto *tp,
		      const struct tcf_filter *f, int verdict)
{
	char b[16], c[16];

	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_ANY, "hook", "%s:", what);
	mqtx__out_uint(p, OUT_ANY, "chain", " chain %llu", tp->chain);
	mqtx__out_uint(p, OUT_ANY, "pref", " pref %llu", tp->prio);
	mqtx__out_str(p, OUT_ANY, "kind", " %s", tp->ops->kind);
	mqtx__out_uint(p, OUT_ANY, "handle", " handle 0x%llx", f->handle);
	mqtx__out_str(p, OUT_ANY, "verdict", " -> %s",
		      mqtx__tcf_control_name(verdict, b, sizeof(b)));
	if ((verdict & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_GOTO_CHAIN && verdict > 0)
		mqtx__out_uint(p, OUT_ANY, "goto_chain", " chain %llu",
			       (uint32_t)verdict & MQTX_ACT_EXT_MASK);
	if (f->classid)
		mqtx__out_str(p, OUT_ANY, "classid", " classid %s",
			      mqtx__classid_fmt(f->classid, c, sizeof(c)));
	if (f->exts.n) {
		mqtx__out_text(p, " actions:");
		mqtx__out_open_array(p, "actions");
		for (unsigned i = 0; i < f->exts.n; i++) {
			const struct tcf_action *a = f->exts.acts[i];
			char brief[96];

			if (a->ops->brief)
				a->ops->brief(a, brief, sizeof(brief));
			else
				snprintf(brief, sizeof(brief), "%s", a->ops->kind);
			mqtx__out_str(p, OUT_ANY, NULL, i ? ", %s" : " %s", brief);
		}
		mqtx__out_close_array(p);
	}
	mqtx__out_nl(p);
	mqtx__out_close(p);
}

int mqtx__tcf_test(struct mqtx_tcf_block *b, struct mqtx_dev *dev, struct mqtx_pkt *pkt,
		   struct mqtx_tcf_result *res, const char *what, struct tc_out *p)
{
	const struct tcf_ruleset *rs;
	struct tcf_trace tr = { 0 };
	struct tcf_pkt pk;
	int v = MQTX_ACT_UNSPEC;

	res->classid = 0;
	if (!b)
		return v;
	pthread_mutex_lock(&b->lock);
	rs = tcf_block_rules(b);
	if (rs) {
		pk.pkt = pkt;
		pk.dev = dev;
		pk.len = tc_len(pkt, !strcmp(what, "ingress"));
		pk.proto = mqtx__tcf_frame_proto(pkt);
		pk.keyed = false;
		pk.located = false;
		pk.dry = true;
		pk.no_mac = false;
		pk.tr = &tr;
		v = final_verdict(mqtx__tcf_classify_rs(rs, &pk, res));
	}
	for (unsigned i = 0; i < tr.n; i++)
		print_hit(p, what, tr.hit[i].tp, tr.hit[i].f, tr.hit[i].verdict);
	pthread_mutex_unlock(&b->lock);
	return v;
}

// SPDX-License-Identifier: MIT
/* ingress: the qdisc of a device's receive side: its filters (Linux's sch_ingress.c), and an
 * optional token-bucket policer of mqtx's own that drops over-rate packets. */
#include <errno.h>
#include <string.h>

#include <mqtx/cls.h>
#include <mqtx/tc.h>

#include "qdisc/kinds.h"
#include "base/tbucket.h"

struct ingress_opt {
	bool has_rate, has_burst;
	uint64_t rate, burst;
};

struct ingress_priv {
	bool police;
	uint64_t burst; /* bytes */
	struct mqtx_tbucket tb;
	struct mqtx_pkt_list held; /* accepted, until the receive path takes them back */
	struct mqtx_tcf_block *block;
	bool port; /* the device is a port of @block (mirred's blockid) */
};

/*
 * Not really a queue: SUCCESS means "deliver it" (the receive path takes the packet straight
 * back with dequeue), DROP means the policer took it. Conformance as act_police: the bucket refills with elapsed time up to its
 * depth, and a packet conforms if its transmission time at the rate fits in the tokens.
 */
static int ingress_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_tcf_result res;

	/* Counted before the filters, what they drop too, as Linux's tc_run() does. */
	q->bytes += mqtx_rx_tc_len(pkt);
	q->packets++;
	/* The filters first (sch_handle_ingress() runs before anything else sees it). */
	switch (mqtx_tcf_classify(p->block, q->dev, pkt, &res)) {
	case MQTX_ACT_SHOT:
		return mqtx_qdisc_drop(q, pkt, (enum mqtx_drop_reason)pkt->drop_reason, to_free);
	case MQTX_ACT_STOLEN:
		return mqtx_qdisc_stolen(q, pkt);
	}
	if (p->police) {
		int64_t now = (int64_t)mqtx_qdisc_now(q);
		/* mqtx's own policer (not Linux's) weighs the whole frame. */
		int64_t toks = mqtx__tb_probe(&p->tb, now, pkt->len);

		if (toks < 0) {
			q->overlimits++;
			return mqtx_qdisc_drop(q, pkt, MQTX_DROP_POLICE, to_free);
		}
		p->tb.t_c = now;
		p->tb.tokens = toks;
	}
	return mqtx_qdisc_enqueue_tail(q, &p->held, pkt);
}

static struct mqtx_pkt *ingress_dequeue(struct mqtx_qdisc *q)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);

	return mqtx_qdisc_dequeue_head(q, &p->held);
}

static struct mqtx_pkt *ingress_peek(struct mqtx_qdisc *q)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);

	return p->held.head;
}

static int ingress_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct ingress_opt *o = opt;
	int err;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "handle") == 0) {
			/* tc's ingress takes "handle X" and ignores it: the handle is ffff:. */
			if (!mqtx_tc_next_arg(argc, argv, &i, ack))
				return MQTX_TC_EFATAL;
		} else if (strcmp(a, "rate") == 0) {
			err = mqtx_tc_arg_rate(argc, argv, &i, &o->rate, ack);
			if (err)
				return err;
			if (!o->rate)
				return mqtx_extack_set(ack, "ingress: \"rate\" must be positive");
			o->has_rate = true;
		} else if (!strcmp(a, "burst") || !strcmp(a, "buffer") || !strcmp(a, "maxburst")) {
			err = mqtx_tc_arg_size(argc, argv, &i, &o->burst, ack);
			if (err)
				return err;
			if (!o->burst)
				return mqtx_extack_set(ack, "ingress: \"%s\" must be positive", a);
			o->has_burst = true;
		} else {
			return mqtx_tc_unknown("ingress", a, ack);
		}
	}
	return 0;
}

/* Merge @o into the current policer; both rate and burst, or neither. @locked: the qdisc is
 * attached, so the change happens under its lock. */
static int ingress_configure(struct mqtx_qdisc *q, const struct ingress_opt *o, bool locked,
			     struct mqtx_extack *ack)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);
	uint64_t rate = p->police ? p->tb.rate : 0, burst = p->police ? p->burst : 0;

	if (!o)
		return 0;
	if (o->has_rate)
		rate = o->rate;
	if (o->has_burst)
		burst = o->burst;
	if (!rate && !burst)
		return 0;
	if (!rate || !burst)
		return mqtx_extack_set(ack,
				       "ingress: the policer needs both \"rate\" and \"burst\"");
	if (locked)
		mqtx_qdisc_lock(q);
	p->police = true;
	p->burst = burst;
	p->tb.rate = rate;
	p->tb.buffer = mqtx__l2t_ns(rate, burst);
	p->tb.tokens = p->tb.buffer;
	p->tb.t_c = (int64_t)mqtx_qdisc_now(q);
	if (locked)
		mqtx_qdisc_unlock(q);
	return 0;
}

static int ingress_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);
	int err;

	mqtx_pkt_list_init(&p->held);
	err = ingress_configure(q, opt, false, ack);
	if (!err)
		err = mqtx_tcf_block_get(q->ingress_block, &p->block);
	/* tcf_block_get_ext(): the device becomes a port of a shared block */
	if (!err && !(err = mqtx_tcf_block_add_port(p->block, q->dev)))
		p->port = true;
	return err;
}

static void ingress_destroy(struct mqtx_qdisc *q)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);

	if (p->port)
		mqtx_tcf_block_del_port(p->block, q->dev);
	p->port = false;
	mqtx_tcf_block_put(p->block);
	p->block = NULL;
}

static int ingress_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
			  struct mqtx_extack *ack)
{
	(void)to_free;
	return ingress_configure(q, opt, true, ack);
}

static void ingress_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);

	/* tc's ingress line, text only; the policer is mqtx's own addition. */
	mqtx_dump_flag(d, NULL, "----------------");
	if (p->police) {
		mqtx_dump_rate(d, "rate", "rate %s", p->tb.rate);
		mqtx_dump_size(d, "burst", "burst %s", p->burst);
	}
	mqtx_dump_flag(d, NULL, ""); /* tc ends the line with a blank */
}

/* ---- classes: none, but filters on "ingress" (Linux's ingress_tcf_block() ignores the class) */

static uint32_t ingress_cl_count(struct mqtx_qdisc *q)
{
	(void)q;
	return 0;
}

static struct mqtx_qdisc *ingress_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	(void)q;
	(void)minor;
	return NULL;
}

static struct mqtx_tcf_block *ingress_tcf_block(struct mqtx_qdisc *q, uint32_t minor,
						struct mqtx_extack *ack)
{
	struct ingress_priv *p = mqtx_qdisc_priv(q);

	(void)minor;
	(void)ack;
	return p->block;
}

static const struct mqtx_class_ops ingress_class_ops = {
	.count = ingress_cl_count,
	.leaf = ingress_cl_leaf,
	.tcf_block = ingress_tcf_block,
};

const struct mqtx_qdisc_ops mqtx__ingress_qdisc_ops = {
	.id = "ingress",
	.usage = "Usage: ... ingress [ rate RATE burst BYTES ]",
	.priv_size = sizeof(struct ingress_priv),
	.opt_size = sizeof(struct ingress_opt),
	.static_flags = MQTX_QF_INGRESS | MQTX_QF_INGRESS_BLOCK,
	.enqueue = ingress_enqueue,
	.dequeue = ingress_dequeue,
	.peek = ingress_peek,
	.parse = ingress_parse,
	.init = ingress_init,
	.change = ingress_change,
	.destroy = ingress_destroy,
	.dump = ingress_dump,
	.cl_ops = &ingress_class_ops,
};

// SPDX-License-Identifier: MIT
/* clsact: two filter blocks with no queue, one run on every received packet and one on every
 * transmitted packet before its TX queue is chosen, so that an action can choose the queue
 * (Linux's sch_ingress.c clsact, sch_handle_ingress() and sch_handle_egress()). */
#include <errno.h>

#include <mqtx/cls.h>
#include <mqtx/qdisc.h>

#include "qdisc/kinds.h"

#define CLSACT_MIN_INGRESS 0xFFF2u /* TC_H_MIN_INGRESS */
#define CLSACT_MIN_EGRESS  0xFFF3u /* TC_H_MIN_EGRESS */

struct clsact_priv {
	struct mqtx_tcf_block *ingress, *egress;
	bool in_port, eg_port;	   /* the device is a port of that block (mirred's blockid) */
	struct mqtx_hook hook;	   /* the egress hook */
	struct mqtx_pkt_list held; /* accepted, until the receive path takes them back */
};

/* ---- data path ---- */

/* The transmit hook: before the queue is chosen, lock-free. */
static int clsact_egress(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct clsact_priv *p = mqtx_qdisc_priv(arg);
	struct mqtx_tcf_result res;

	switch (mqtx_tcf_classify(p->egress, dev, pkt, &res)) {
	case MQTX_ACT_SHOT:
		return MQTX_HOOK_DROP;
	case MQTX_ACT_STOLEN:
		return MQTX_HOOK_STOLEN;
	default:
		return MQTX_HOOK_PASS;
	}
}

/* The receive side, under the receive queue's lock: SUCCESS delivers (the receive path takes
 * the packet back with dequeue), DROP drops it. */
static int clsact_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct clsact_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_tcf_result res;

	/* Counted before the filters, what they drop too, as Linux's tc_run() does. */
	q->bytes += mqtx_rx_tc_len(pkt);
	q->packets++;
	switch (mqtx_tcf_classify(p->ingress, q->dev, pkt, &res)) {
	case MQTX_ACT_SHOT:
		return mqtx_qdisc_drop(q, pkt, (enum mqtx_drop_reason)pkt->drop_reason, to_free);
	case MQTX_ACT_STOLEN:
		return mqtx_qdisc_stolen(q, pkt);
	}
	return mqtx_qdisc_enqueue_tail(q, &p->held, pkt);
}

static struct mqtx_pkt *clsact_dequeue(struct mqtx_qdisc *q)
{
	struct clsact_priv *p = mqtx_qdisc_priv(q);

	return mqtx_qdisc_dequeue_head(q, &p->held);
}

static struct mqtx_pkt *clsact_peek(struct mqtx_qdisc *q)
{
	struct clsact_priv *p = mqtx_qdisc_priv(q);

	return p->held.head;
}

/* ---- control path ---- */

static int clsact_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct clsact_priv *p = mqtx_qdisc_priv(q);
	int err;

	(void)opt;
	mqtx_pkt_list_init(&p->held);
	p->hook = (struct mqtx_hook){ clsact_egress, q };
	err = mqtx_tcf_block_get(q->ingress_block, &p->ingress);
	/* tcf_block_get_ext(): the device becomes a port of each shared block, once */
	if (!err && !(err = mqtx_tcf_block_add_port(p->ingress, q->dev)))
		p->in_port = true;
	if (!err)
		err = mqtx_tcf_block_get(q->egress_block, &p->egress);
	if (!err && !(err = mqtx_tcf_block_add_port(p->egress, q->dev)))
		p->eg_port = true;
	if (err == -EBUSY)
		return mqtx_extack_set(ack, "block dev insert failed"), err;
	if (!err)
		err = mqtx_dev_set_hook(q->dev, MQTX_HOOK_EGRESS, &p->hook);
	if (err == -EBUSY)
		mqtx_extack_set(ack, "The device has a transmit hook already");
	return err; /* destroy releases what was taken */
}

static void clsact_destroy(struct mqtx_qdisc *q)
{
	struct clsact_priv *p = mqtx_qdisc_priv(q);

	mqtx_dev_clear_hook(q->dev, MQTX_HOOK_EGRESS, &p->hook);
	if (p->in_port)
		mqtx_tcf_block_del_port(p->ingress, q->dev);
	if (p->eg_port)
		mqtx_tcf_block_del_port(p->egress, q->dev);
	p->in_port = p->eg_port = false;
	mqtx_tcf_block_put(p->ingress);
	mqtx_tcf_block_put(p->egress);
	p->ingress = p->egress = NULL;
}

/* ---- classes: the two hooks, ffff:fff2 and ffff:fff3, take filters (clsact_find()) ---- */

static uint32_t clsact_cl_count(struct mqtx_qdisc *q)
{
	(void)q;
	return 0;
}

static struct mqtx_qdisc *clsact_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	(void)q;
	(void)minor;
	return NULL;
}

static struct mqtx_tcf_block *clsact_tcf_block(struct mqtx_qdisc *q, uint32_t minor,
					       struct mqtx_extack *ack)
{
	struct clsact_priv *p = mqtx_qdisc_priv(q);

	if (minor == CLSACT_MIN_INGRESS)
		return p->ingress;
	if (minor == CLSACT_MIN_EGRESS)
		return p->egress;
	mqtx_extack_set(ack, "Specified class doesn't exist");
	return NULL;
}

static const struct mqtx_class_ops clsact_class_ops = {
	.count = clsact_cl_count,
	.leaf = clsact_cl_leaf,
	.tcf_block = clsact_tcf_block,
};

const struct mqtx_qdisc_ops mqtx__clsact_qdisc_ops = {
	.id = "clsact",
	.priv_size = sizeof(struct clsact_priv),
	.static_flags = MQTX_QF_INGRESS | MQTX_QF_INGRESS_BLOCK | MQTX_QF_EGRESS_BLOCK,
	.enqueue = clsact_enqueue,
	.dequeue = clsact_dequeue,
	.peek = clsact_peek,
	.init = clsact_init,
	.destroy = clsact_destroy,
	.cl_ops = &clsact_class_ops,
};

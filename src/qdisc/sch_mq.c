// SPDX-License-Identifier: MIT
/* mq: the root of a multiqueue device, presenting each TX queue as a class (sch_mq.c). */
#include <errno.h>
#include <string.h>

#include "qdisc/mq.h"

/* Never called: an MQROOT qdisc sits on no TX queue; packets go to the children. */
int mqtx__mq_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
}

struct mqtx_pkt *mqtx__mq_dequeue(struct mqtx_qdisc *q)
{
	(void)q;
	return NULL;
}

int mqtx__mq_init_children(struct mqtx_qdisc *q, struct mqtx_extack *ack)
{
	struct mqtx_mq_priv *mp = mqtx_qdisc_priv(q);
	struct mqtx_dev *dev = q->dev;
	uint32_t n = mqtx_dev_num_txq(dev);
	int err;

	if (n < 2)
		return -EOPNOTSUPP;
	mp->child = mqtx_alloc(n * sizeof(*mp->child), 0);
	if (!mp->child)
		return -ENOMEM;
	memset(mp->child, 0, n * sizeof(*mp->child));
	mp->n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct mqtx_qdisc *c;

		err = mqtx_qdisc_create(dev, mqtx_dev_txq(dev, i), mqtx_qdisc_default_ops(dev, i),
					0, NULL, ack, &c);
		if (err)
			return err; /* destroy frees what was made */
		c->parent = MQTX_H_MAKE(q->handle, i + 1);
		c->flags |= MQTX_QF_ONETXQUEUE;
		mp->child[i] = c;
	}
	return 0;
}

void mqtx__mq_attach(struct mqtx_qdisc *q, struct mqtx_qdisc **qs)
{
	struct mqtx_mq_priv *mp = mqtx_qdisc_priv(q);

	mp->attached = true;
	for (uint32_t i = 0; i < mp->n; i++) {
		mp->child[i]->parent = MQTX_H_MAKE(q->handle, i + 1);
		qs[i] = mp->child[i];
	}
}

void mqtx__mq_destroy(struct mqtx_qdisc *q)
{
	struct mqtx_mq_priv *mp = mqtx_qdisc_priv(q);

	/* Once attached, the TX queues own the children and free them. */
	if (!mp->attached) {
		for (uint32_t i = 0; i < mp->n; i++)
			mqtx_qdisc_destroy(mp->child[i]);
	}
	mqtx_free(mp->child);
	mp->child = NULL;
	mp->n = 0;
}

static int mq_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	(void)opt;
	return mqtx__mq_init_children(q, ack);
}

/* ---- classes: minor i+1 is TX queue i ---- */

uint32_t mqtx__mq_class_count(struct mqtx_qdisc *q)
{
	return ((struct mqtx_mq_priv *)mqtx_qdisc_priv(q))->n;
}

struct mqtx_qdisc *mqtx__mq_class_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	struct mqtx_mq_priv *mp = mqtx_qdisc_priv(q);

	return minor && minor <= mp->n ? mp->child[minor - 1] : NULL;
}

struct mqtx_txq *mqtx__mq_class_select_queue(struct mqtx_qdisc *q, uint32_t minor)
{
	return mqtx_dev_txq(q->dev, minor - 1);
}

void mqtx__mq_class_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			  struct mqtx_qdisc **old)
{
	struct mqtx_mq_priv *mp = mqtx_qdisc_priv(q);

	*old = mp->child[minor - 1];
	mp->child[minor - 1] = new;
	new->parent = MQTX_H_MAKE(q->handle, minor);
}

static const struct mqtx_class_ops mq_class_ops = {
	.count = mqtx__mq_class_count,
	.leaf = mqtx__mq_class_leaf,
	.select_queue = mqtx__mq_class_select_queue,
	.graft = mqtx__mq_class_graft,
};

const struct mqtx_qdisc_ops mqtx__mq_qdisc_ops = {
	.id = "mq",
	.usage = "Usage: ... mq  (no options: one class per TX queue)",
	.priv_size = sizeof(struct mqtx_mq_priv),
	.static_flags = MQTX_QF_MQROOT,
	.enqueue = mqtx__mq_enqueue,
	.dequeue = mqtx__mq_dequeue,
	.peek = mqtx__mq_dequeue,
	.init = mq_init,
	.destroy = mqtx__mq_destroy,
	.attach = mqtx__mq_attach,
	.cl_ops = &mq_class_ops,
};

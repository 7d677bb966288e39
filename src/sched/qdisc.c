// SPDX-License-Identifier: MIT
/* Qdisc core: registry, creation and destruction, drops and purges, grafting onto TX queues,
 * the built-in noop qdisc, default attachment and statistics. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/core.h"
#include "qdisc/kinds.h"

/*
 * The qdisc of a queue whose device is down. It holds nothing and has no queue lock of its
 * own: the transmit path drops for it (MQTX_DROP_DOWN, on the packet's queue) before any
 * enqueue, and without an enqueue it is never run (a queue woken while down runs nothing).
 */
static struct mqtx_pkt *noop_dequeue(struct mqtx_qdisc *q)
{
	(void)q;
	return NULL;
}

static const struct mqtx_qdisc_ops noop_ops = {
	.id = "noop",
	.dequeue = noop_dequeue,
	.peek = noop_dequeue,
};

struct mqtx_qdisc mqtx__noop_qdisc = {
	.ops = &noop_ops,
	.flags = MQTX_QF_BUILTIN,
};

/* ---- registry ---- */

#define MAX_KINDS 64

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct mqtx_qdisc_ops *kinds[MAX_KINDS];
static unsigned nkinds;

static const struct mqtx_qdisc_ops *const builtin_kinds[] = {
	&mqtx_noqueue_qdisc_ops,
	&mqtx_pfifo_qdisc_ops,
	&mqtx_pfifo_fast_qdisc_ops,
	&mqtx_bfifo_qdisc_ops,
	&mqtx_pfifo_head_drop_qdisc_ops,
	&mqtx_prio_qdisc_ops,
	&mqtx_tbf_qdisc_ops,
	&mqtx_codel_qdisc_ops,
	&mqtx_fq_codel_qdisc_ops,
	&mqtx_ingress_qdisc_ops,
	&mqtx_mq_qdisc_ops,
	&mqtx_mqprio_qdisc_ops,
};

static const struct mqtx_qdisc_ops *find_kind(const char *id)
{
	for (unsigned i = 0; i < ARRAY_SIZE(builtin_kinds); i++)
		if (!strcmp(builtin_kinds[i]->id, id))
			return builtin_kinds[i];
	for (unsigned i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i]->id, id))
			return kinds[i];
	return NULL;
}

int mqtx_qdisc_register(const struct mqtx_qdisc_ops *ops)
{
	int err = 0;

	if (!ops || !ops->id || !ops->dequeue || !ops->peek)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	if (find_kind(ops->id))
		err = -EEXIST;
	else if (nkinds == MAX_KINDS)
		err = -ENOSPC;
	else
		kinds[nkinds++] = ops;
	pthread_mutex_unlock(&reg_lock);
	return err;
}

const struct mqtx_qdisc_ops *mqtx_qdisc_lookup(const char *id)
{
	const struct mqtx_qdisc_ops *ops;

	if (!id)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	ops = find_kind(id);
	pthread_mutex_unlock(&reg_lock);
	return ops;
}

/* ---- helpers ---- */

MQTX_TLS int mqtx__drop_override = -1;

int mqtx_qdisc_drop(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, enum mqtx_drop_reason reason,
		    struct mqtx_pkt **to_free)
{
	if (unlikely(mqtx__drop_override >= 0))
		reason = (enum mqtx_drop_reason)mqtx__drop_override;
	q->drops++;
	/* A receive drop belongs to the receive side (and a received packet's queue_mapping is
	 * the sender's, which may be beyond this device's queues). */
	if (q->flags & MQTX_QF_INGRESS)
		MQTX_CNT_INC_SHARED(q->dev->rxq.drops[reason], 1u);
	else if (q->dev)
		mqtx__count_drop(&q->dev->txq[pkt->queue_mapping], reason, 1);
	pkt->next = *to_free;
	*to_free = pkt;
	return MQTX_XMIT_DROP;
}

void mqtx__free_list(struct mqtx_pkt *to_free)
{
	if (to_free)
		mqtx_pkt_free_list(to_free);
}

uint64_t mqtx_qdisc_now(const struct mqtx_qdisc *q)
{
	return mqtx_clock_now(q->dev->clock);
}

/* Lock held. Drop everything @q holds (requeue list and queue) for @r onto *@to_free. */
void mqtx__qdisc_purge(struct mqtx_qdisc *q, enum mqtx_drop_reason r, struct mqtx_pkt **to_free)
{
	struct mqtx_pkt *pkt, *reset_list = NULL;

	if (!q->ops->enqueue || (q->flags & MQTX_QF_BUILTIN))
		return;
	while ((pkt = mqtx_pkt_list_pop(&q->requeue)))
		mqtx_qdisc_drop(q, pkt, r, to_free);
	if (q->ops->reset) {
		q->ops->reset(q, &reset_list);
		while ((pkt = reset_list)) {
			reset_list = pkt->next;
			mqtx_qdisc_drop(q, pkt, r, to_free);
		}
	} else {
		while ((pkt = q->ops->dequeue(q)))
			mqtx_qdisc_drop(q, pkt, r, to_free);
	}
	q->qlen = 0;
	q->backlog = 0;
}

/* ---- create / destroy ---- */

static _Atomic uint64_t qdisc_seq;

int mqtx_qdisc_create(struct mqtx_dev *dev, struct mqtx_txq *dev_queue,
		      const struct mqtx_qdisc_ops *ops, uint32_t handle, const void *opt,
		      struct mqtx_extack *ack, struct mqtx_qdisc **out)
{
	size_t head = ALIGN_UP(sizeof(struct mqtx_qdisc), MQTX_CACHE_LINE);
	struct mqtx_qdisc *q;
	int err;

	if (!dev || !dev_queue || !ops || dev_queue->dev != dev)
		return -EINVAL;
	q = mqtx__alloc_aligned(head + ALIGN_UP(ops->priv_size, MQTX_CACHE_LINE), MQTX_CACHE_LINE);
	if (!q)
		return -ENOMEM;
	memset(q, 0, head + ops->priv_size);
	q->ops = ops;
	q->dev = dev;
	q->dev_queue = dev_queue;
	q->handle = handle;
	q->flags = ops->static_flags;
	/* Linux hashes a qdisc when it is created, and tc dumps a hash bucket newest first. */
	q->seq = atomic_fetch_add(&qdisc_seq, 1);
	mqtx_pkt_list_init(&q->requeue);
	if (ops->init) {
		err = ops->init(q, opt, ack);
		if (err) {
			if (ops->destroy)
				ops->destroy(q);
			mqtx__free(q);
			return err;
		}
	}
	*out = q;
	return 0;
}

void mqtx_qdisc_destroy(struct mqtx_qdisc *q)
{
	struct mqtx_pkt *to_free = NULL;

	if (!q || (q->flags & MQTX_QF_BUILTIN))
		return;
	mqtx_spin_lock(mqtx__qdisc_lock(q));
	mqtx__qdisc_purge(q, MQTX_DROP_RESET, &to_free);
	mqtx_spin_unlock(mqtx__qdisc_lock(q));
	mqtx__free_list(to_free);
	if (q->ops->destroy)
		q->ops->destroy(q);
	mqtx__free(q);
}

struct mqtx_qdisc *mqtx_txq_qdisc(struct mqtx_txq *txq)
{
	return txq->qdisc_sleeping;
}

void mqtx_qdisc_get_stats(struct mqtx_qdisc *q, struct mqtx_qdisc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!q->ops->enqueue || (q->flags & MQTX_QF_BUILTIN))
		return;
	mqtx_spin_lock(mqtx__qdisc_lock(q));
	st->bytes = q->bytes;
	st->packets = q->packets;
	st->drops = q->drops;
	st->requeues = q->requeues;
	st->overlimits = q->overlimits;
	st->qlen = q->qlen + q->requeue.len;
	st->backlog = q->backlog;
	for (struct mqtx_pkt *p = q->requeue.head; p; p = p->next)
		st->backlog += p->len;
	mqtx_spin_unlock(mqtx__qdisc_lock(q));
}

/* SPDX-License-Identifier: MIT */
/* Peek by dequeuing (Linux's qdisc_peek_dequeued()), for a qdisc whose next packet is only
 * known once its scheduler has run (htb's tokens, ets's deficits): the packet is taken out,
 * kept in *@slot and still counted as queued, and the next dequeue returns it. */
#ifndef MQTX_QDISC_PEEKED_H
#define MQTX_QDISC_PEEKED_H

#include <mqtx/qdisc.h>

typedef struct mqtx_pkt *(*mqtx_dequeue_fn)(struct mqtx_qdisc *q);

/* Lock held. */
static inline struct mqtx_pkt *peek_dequeued(struct mqtx_qdisc *q, struct mqtx_pkt **slot,
					     mqtx_dequeue_fn deq)
{
	if (!*slot) {
		*slot = deq(q);
		if (*slot) {
			q->qlen++;
			q->backlog += (*slot)->len;
		}
	}
	return *slot;
}

/* Lock held: the kept packet first, else the scheduler's. */
static inline struct mqtx_pkt *dequeue_peeked(struct mqtx_qdisc *q, struct mqtx_pkt **slot,
					      mqtx_dequeue_fn deq)
{
	struct mqtx_pkt *pkt = *slot;

	if (!pkt)
		return deq(q);
	*slot = NULL;
	q->qlen--;
	q->backlog -= pkt->len;
	return pkt;
}

/* Lock held: a reset drops the kept packet too. */
static inline void reset_peeked(struct mqtx_pkt **slot, struct mqtx_pkt **to_free)
{
	if (*slot)
		mqtx_pkt_link(*slot, to_free);
	*slot = NULL;
}

/* The dequeue and peek of a kind @name whose private struct @priv keeps the packet in its
 * member "peeked" and whose scheduler is @name##_do_dequeue(). */
#define PEEK_DEQUEUED_OPS(name, priv)                                    \
	static struct mqtx_pkt *name##_dequeue(struct mqtx_qdisc *q)     \
	{                                                                \
		struct priv *p = mqtx_qdisc_priv(q);                     \
                                                                         \
		return dequeue_peeked(q, &p->peeked, name##_do_dequeue); \
	}                                                                \
	static struct mqtx_pkt *name##_peek(struct mqtx_qdisc *q)        \
	{                                                                \
		struct priv *p = mqtx_qdisc_priv(q);                     \
                                                                         \
		return peek_dequeued(q, &p->peeked, name##_do_dequeue);  \
	}

#endif

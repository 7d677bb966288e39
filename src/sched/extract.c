// SPDX-License-Identifier: MIT
/* Moving queued packets between qdiscs in order: extract by predicate, requeue a list. */
#include <errno.h>

#include "core/core.h"

int mqtx_qdisc_extract(struct mqtx_qdisc *q, mqtx_pkt_match_fn match, void *arg,
		       struct mqtx_pkt_list *out)
{
	struct mqtx_pkt_list keep;
	struct mqtx_pkt *pkt;
	unsigned n = 0;

	if (q->qlen && !q->ops->extract)
		return -EOPNOTSUPP;
	/* The requeue list goes out before the queue, so its packets come first. */
	mqtx_pkt_list_init(&keep);
	while ((pkt = mqtx_pkt_list_pop(&q->requeue))) {
		if (match(pkt, arg)) {
			mqtx_pkt_list_add_tail(out, pkt);
			n++;
		} else {
			mqtx_pkt_list_add_tail(&keep, pkt);
		}
	}
	q->requeue = keep;
	if (q->qlen)
		n += q->ops->extract(q, match, arg, out);
	return (int)n;
}

bool mqtx_qdisc_can_extract(const struct mqtx_qdisc *q)
{
	return q->ops->extract || !q->ops->enqueue || (q->flags & MQTX_QF_BUILTIN);
}

void mqtx_qdisc_requeue_list(struct mqtx_qdisc *q, struct mqtx_pkt_list *l, bool head)
{
	if (!l->head)
		return;
	if (head) {
		l->tail->next = q->requeue.head;
		if (!q->requeue.tail)
			q->requeue.tail = l->tail;
		q->requeue.head = l->head;
	} else {
		if (q->requeue.tail)
			q->requeue.tail->next = l->head;
		else
			q->requeue.head = l->head;
		q->requeue.tail = l->tail;
	}
	q->requeue.len += l->len;
	mqtx_pkt_list_init(l);
}

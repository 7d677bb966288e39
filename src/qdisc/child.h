/* SPDX-License-Identifier: MIT */
/* A classful qdisc's enqueue into one of its children (htb's leaves, ets's bands): the
 * parent's counters follow the child's, whatever the child did (queued the packet, refused
 * it, or queued it and dropped another), as Linux keeps them with qdisc_tree_reduce_backlog. */
#ifndef MQTX_QDISC_CHILD_H
#define MQTX_QDISC_CHILD_H

#include <mqtx/qdisc.h>

/* Lock held. Returns the child's verdict; *@dropped: how many the child dropped. */
static inline int child_enqueue(struct mqtx_qdisc *q, struct mqtx_qdisc *c, struct mqtx_pkt *pkt,
				struct mqtx_pkt **to_free, uint64_t *dropped)
{
	uint32_t qlen = c->qlen;
	uint64_t backlog = c->backlog, drops = c->drops;
	int ret = c->ops->enqueue(c, pkt, to_free);

	q->qlen += c->qlen - qlen;
	q->backlog += c->backlog - backlog;
	*dropped = c->drops - drops;
	q->drops += *dropped;
	return ret;
}

#endif

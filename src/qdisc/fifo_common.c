// SPDX-License-Identifier: MIT
/* Shared parts of the FIFOs: option parsing, dequeue, reset, trimming, and the control path of
 * all three (pfifo, pfifo_head_drop, bfifo). */
#include <errno.h>
#include <string.h>

#include <inttypes.h>

#include "qdisc/fifo_common.h"
#include <mqtx/tc.h>

int mqtx__fifo_parse(const char *kind, int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct mqtx_fifo_opt *o = opt;

	/* tc's fifo_parse_opt(), its words too: the kernel checks nothing (fifo_init). */
	for (int i = 0; i < argc; i++) {
		const char *v;

		if (strcmp(argv[i], "limit") == 0) {
			v = mqtx_tc_next_arg(argc, argv, &i, ack);
			if (!v)
				return MQTX_TC_EFATAL;
			if (mqtx_tc_parse_size(v, &o->limit))
				return mqtx_extack_set(
					ack, "%s: Illegal value for \"limit\": \"%s\"", kind, v);
			o->has_limit = true;
		} else if (strcmp(argv[i], "help") == 0) {
			return mqtx_tc_unknown(kind, argv[i], ack);
		} else {
			mqtx_extack_set(ack, "%s: unknown parameter \"%s\"", kind, argv[i]);
			return MQTX_TC_EUSAGE;
		}
	}
	return 0;
}

struct mqtx_pkt *mqtx__fifo_dequeue(struct mqtx_qdisc *q)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	return mqtx_qdisc_dequeue_head(q, &p->list);
}

struct mqtx_pkt *mqtx__fifo_peek(struct mqtx_qdisc *q)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	return p->list.head;
}

void mqtx__fifo_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	mqtx_pkt_list_splice(&p->list, to_free);
	q->qlen = 0;
	q->backlog = 0;
}

void mqtx__fifo_trim(struct mqtx_qdisc *q, struct mqtx_pkt_list *l,
		     bool (*over)(struct mqtx_qdisc *q), struct mqtx_pkt **to_free)
{
	while (l->head && over(q))
		mqtx_qdisc_drop(q, mqtx_qdisc_dequeue_head(q, l), MQTX_DROP_QDISC, to_free);
}

/*
 * The control path of every FIFO. bfifo's limit counts bytes, the others' packets (Linux tells
 * them apart by the kind too: fifo_init's is_bfifo; by its name here, which keeps this file
 * below the kinds that use it). One packet weighs a full-sized frame in bytes, else 1: the
 * limit defaults to the device's tx_queue_len of them, and Linux bypasses only a fifo that
 * could hold one (fifo_init).
 */
static uint64_t fifo_unit(const struct mqtx_qdisc *q)
{
	return strcmp(q->ops->id, "bfifo") == 0 ? mqtx__psched_mtu(q) : 1;
}

static void fifo_set_limit(struct mqtx_qdisc *q, uint64_t limit)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	p->limit = limit;
	if (limit >= fifo_unit(q))
		q->flags |= MQTX_QF_CAN_BYPASS;
	else
		q->flags &= ~MQTX_QF_CAN_BYPASS;
}

int mqtx__fifo_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	const struct mqtx_fifo_opt *o = opt;
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	(void)ack;
	mqtx_pkt_list_init(&p->list);
	fifo_set_limit(q, o && o->has_limit
				  ? o->limit
				  : (uint64_t)mqtx_dev_tx_queue_len(q->dev) * fifo_unit(q));
	return 0;
}

/*
 * Only the limit changes: what is queued above a lowered limit stays and drains, and new
 * packets are refused until the queue is below it (Linux's fifo change is __fifo_init, which
 * stores the limit and drops nothing).
 */
int mqtx__fifo_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	const struct mqtx_fifo_opt *o = opt;

	(void)to_free;
	(void)ack;
	if (o && o->has_limit) {
		mqtx_qdisc_lock(q);
		fifo_set_limit(q, o->limit);
		mqtx_qdisc_unlock(q);
	}
	return 0;
}

void mqtx__pfifo_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct mqtx_fifo_priv *p = mqtx_qdisc_priv(q);

	mqtx_dump_uint(d, "limit", "limit %" PRIu64 "p", p->limit);
}

// SPDX-License-Identifier: MIT
/* Shared parts of bfifo and pfifo_head_drop: option parsing, dequeue, reset and trimming. */
#include <errno.h>
#include <string.h>

#include "qdisc/fifo_common.h"
#include "qdisc/tcunits.h"

int mqtx__fifo_parse(const char *kind, int argc, char **argv, void *opt,
		     struct mqtx_extack *ack)
{
	struct mqtx_fifo_opt *o = opt;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "limit") == 0) {
			if (mqtx_tc_arg_size(argc, argv, &i, &o->limit, ack))
				return -EINVAL;
			o->has_limit = true;
		} else {
			return mqtx_tc_unknown(kind, argv[i], ack);
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

	mqtx__pkt_list_splice(&p->list, to_free);
	q->qlen = 0;
	q->backlog = 0;
}

void mqtx__fifo_trim(struct mqtx_qdisc *q, struct mqtx_pkt_list *l,
		     bool (*over)(struct mqtx_qdisc *q), struct mqtx_pkt **to_free)
{
	while (l->head && over(q))
		mqtx_qdisc_drop(q, mqtx_qdisc_dequeue_head(q, l), MQTX_DROP_QDISC, to_free);
}

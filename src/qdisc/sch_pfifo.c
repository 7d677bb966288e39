// SPDX-License-Identifier: MIT
/* pfifo: a FIFO limited in packets; the limit defaults to the device's tx_queue_len. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "core.h"
#include "qdisc/fifo_common.h"
#include "qdisc/tcunits.h"

struct pfifo_opt {
	bool has_limit;
	uint32_t limit;
};

struct pfifo_priv {
	struct mqtx_pkt_list q;
	uint32_t limit;
};

static int pfifo_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct pfifo_priv *p = mqtx_qdisc_priv(q);

	if (likely(p->q.len < p->limit))
		return mqtx_qdisc_enqueue_tail(q, &p->q, pkt);
	return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
}

static struct mqtx_pkt *pfifo_dequeue(struct mqtx_qdisc *q)
{
	return mqtx_qdisc_dequeue_head(q, &((struct pfifo_priv *)mqtx_qdisc_priv(q))->q);
}

static struct mqtx_pkt *pfifo_peek(struct mqtx_qdisc *q)
{
	return ((struct pfifo_priv *)mqtx_qdisc_priv(q))->q.head;
}

static int pfifo_parse(int argc, char **argv, void *optp, struct mqtx_extack *ack)
{
	struct pfifo_opt *opt = optp;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "limit"))
			return mqtx_extack_set(ack, "What is \"%s\"?", argv[i]);
		if (++i == argc)
			return mqtx_extack_set(ack, "\"limit\" needs a value");
		if (mqtx_tc_parse_u32(argv[i], &opt->limit))
			return mqtx_extack_set(ack, "Illegal \"limit\" \"%s\"", argv[i]);
		opt->has_limit = true;
	}
	return 0;
}

static void pfifo_apply(struct mqtx_qdisc *q, const struct pfifo_opt *opt,
			struct mqtx_pkt **to_free)
{
	struct pfifo_priv *p = mqtx_qdisc_priv(q);

	if (opt && opt->has_limit)
		p->limit = opt->limit;
	/* Linux bypasses only a fifo that can hold at least one packet. */
	if (p->limit >= 1)
		q->flags |= MQTX_QF_CAN_BYPASS;
	else
		q->flags &= ~MQTX_QF_CAN_BYPASS;
	while (to_free && p->q.len > p->limit)
		mqtx_qdisc_drop(q, mqtx_qdisc_dequeue_head(q, &p->q), MQTX_DROP_QDISC, to_free);
}

static int pfifo_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct pfifo_priv *p = mqtx_qdisc_priv(q);

	(void)ack;
	mqtx_pkt_list_init(&p->q);
	p->limit = mqtx_dev_tx_queue_len(q->dev);
	pfifo_apply(q, opt, NULL);
	return 0;
}

static int pfifo_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
			struct mqtx_extack *ack)
{
	(void)ack;
	pfifo_apply(q, opt, to_free);
	return 0;
}

static void pfifo_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct pfifo_priv *p = mqtx_qdisc_priv(q);

	mqtx__pkt_list_splice(&p->q, to_free);
}

static void pfifo_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	mqtx_dump_uint(d, "limit", "limit %" PRIu64 "p",
		       ((struct pfifo_priv *)mqtx_qdisc_priv(q))->limit);
}

const struct mqtx_qdisc_ops mqtx_pfifo_qdisc_ops = {
	.id = "pfifo",
	.priv_size = sizeof(struct pfifo_priv),
	.opt_size = sizeof(struct pfifo_opt),
	.enqueue = pfifo_enqueue,
	.dequeue = pfifo_dequeue,
	.peek = pfifo_peek,
	.parse = pfifo_parse,
	.init = pfifo_init,
	.change = pfifo_change,
	.reset = pfifo_reset,
	.dump = pfifo_dump,
};

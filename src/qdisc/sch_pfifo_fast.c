// SPDX-License-Identifier: MIT
/* pfifo_fast: three strict-priority bands chosen by the packet's priority through Linux's
 * fixed priority-to-band table; each band holds up to tx_queue_len packets (Linux 4.16+). */
#include <inttypes.h>

#include <mqtx/qdisc.h>
#include "qdisc/fifo_common.h"

#define BANDS 3

static const uint32_t prio2band[16] = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };

struct pfifo_fast_priv {
	struct mqtx_pkt_list band[BANDS];
	uint32_t limit;
	uint32_t bitmap; /* bit b: band b is not empty */
};

static int pfifo_fast_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct pfifo_fast_priv *p = mqtx_qdisc_priv(q);
	uint32_t b = prio2band[pkt->priority & 15];

	if (unlikely(p->band[b].len >= p->limit))
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	p->bitmap |= 1u << b;
	return mqtx_qdisc_enqueue_tail(q, &p->band[b], pkt);
}

static struct mqtx_pkt *pfifo_fast_dequeue(struct mqtx_qdisc *q)
{
	struct pfifo_fast_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt;
	uint32_t b;

	if (!p->bitmap)
		return NULL;
	b = (uint32_t)__builtin_ctz(p->bitmap);
	pkt = mqtx_qdisc_dequeue_head(q, &p->band[b]);
	if (!p->band[b].len)
		p->bitmap &= ~(1u << b);
	return pkt;
}

static struct mqtx_pkt *pfifo_fast_peek(struct mqtx_qdisc *q)
{
	struct pfifo_fast_priv *p = mqtx_qdisc_priv(q);

	return p->bitmap ? p->band[__builtin_ctz(p->bitmap)].head : NULL;
}

static int pfifo_fast_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct pfifo_fast_priv *p = mqtx_qdisc_priv(q);

	(void)opt;
	(void)ack;
	for (int b = 0; b < BANDS; b++)
		mqtx_pkt_list_init(&p->band[b]);
	p->limit = mqtx_dev_tx_queue_len(q->dev);
	p->bitmap = 0;
	q->flags |= MQTX_QF_CAN_BYPASS;
	return 0;
}

static void pfifo_fast_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct pfifo_fast_priv *p = mqtx_qdisc_priv(q);

	for (int b = 0; b < BANDS; b++)
		mqtx_pkt_list_splice(&p->band[b], to_free);
	p->bitmap = 0;
}

static void pfifo_fast_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	(void)q;
	mqtx_dump_uint(d, "bands", "bands %" PRIu64, BANDS);
	mqtx_dump_uint_array(d, "priomap", "priomap", prio2band, 16);
	/* tc's prio printer (shared by both kinds) adds the Linux 2.6 multiqueue flag to its
	 * JSON, off: the kernel has not sent TCA_PRIO_MQ since. */
	mqtx_dump_bool(d, "multiqueue", NULL, false);
}

const struct mqtx_qdisc_ops mqtx__pfifo_fast_qdisc_ops = {
	.id = "pfifo_fast",
	.usage = "Usage: ... pfifo_fast  (no options: three bands, Linux's priomap)",
	.priv_size = sizeof(struct pfifo_fast_priv),
	.enqueue = pfifo_fast_enqueue,
	.dequeue = pfifo_fast_dequeue,
	.peek = pfifo_fast_peek,
	.init = pfifo_fast_init,
	.reset = pfifo_fast_reset,
	.dump = pfifo_fast_dump,
};

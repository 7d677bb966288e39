/* SPDX-License-Identifier: MIT */
/* What mq and mqprio share: one child qdisc per TX queue, each class minor i+1 is queue i. */
#ifndef MQTX_QDISC_MQ_H
#define MQTX_QDISC_MQ_H

#include <mqtx/qdisc.h>

/* The private area of mq, and the first member of mqprio's. */
struct mqtx_mq_priv {
	struct mqtx_qdisc **child; /* num_txq children, child i rooted at TX queue i */
	uint32_t n;
	bool attached; /* the TX queues own the children now */
};

/* mq_init(): one default child per allocated TX queue, handle 0, parent major:i+1. */
int mqtx__mq_init_children(struct mqtx_qdisc *q, struct mqtx_extack *ack);
/* mq's attach: the children go to their queues (see mqtx_qdisc_ops.attach). */
void mqtx__mq_attach(struct mqtx_qdisc *q, struct mqtx_qdisc **qs);
void mqtx__mq_destroy(struct mqtx_qdisc *q);
int mqtx__mq_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free);
struct mqtx_pkt *mqtx__mq_dequeue(struct mqtx_qdisc *q);
/* mq's classes (mqprio reuses them with its own walk). */
uint32_t mqtx__mq_class_count(struct mqtx_qdisc *q);
struct mqtx_qdisc *mqtx__mq_class_leaf(struct mqtx_qdisc *q, uint32_t minor);
struct mqtx_txq *mqtx__mq_class_select_queue(struct mqtx_qdisc *q, uint32_t minor);
void mqtx__mq_class_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			  struct mqtx_qdisc **old);

/* mqprio's check of a traffic-class map and its queue ranges (check_queues), which taprio
 * shares (mqprio_validate_qopt()). Returns 0 or -EINVAL with the kernel's message. */
int mqtx__mqprio_validate(struct mqtx_dev *dev, unsigned num_tc, const uint8_t *map,
			  const uint16_t *count, const uint16_t *offset, bool check_queues,
			  struct mqtx_extack *ack);

#endif

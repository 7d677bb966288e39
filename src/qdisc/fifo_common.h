/* SPDX-License-Identifier: MIT */
/* Shared parts of the FIFOs (sch_fifo semantics): options, purge, and list helpers the other
 * qdiscs use too. */
#ifndef MQTX_QDISC_FIFO_COMMON_H
#define MQTX_QDISC_FIFO_COMMON_H

#include <mqtx/qdisc.h>

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* What "qdisc add ... pfifo|bfifo|pfifo_head_drop help" prints: tc's explain() of q_fifo.c. */
#define MQTX_FIFO_USAGE "Usage: ... <[p|b]fifo | pfifo_head_drop> [ limit NUMBER ]"

/* Ethernet's psched_mtu(): the device MTU plus the 14-byte hard header. */
static inline uint32_t mqtx__psched_mtu(const struct mqtx_qdisc *q)
{
	return mqtx_dev_mtu(q->dev) + 14;
}

struct mqtx_fifo_opt {
	bool has_limit;
	uint64_t limit;
};

struct mqtx_fifo_priv {
	uint64_t limit; /* packets or bytes */
	struct mqtx_pkt_list list;
};

/** mqtx__fifo_parse() - "limit SIZE" (tc reads both kinds with get_size). */
int mqtx__fifo_parse(const char *kind, int argc, char **argv, void *opt, struct mqtx_extack *ack);

/** mqtx__fifo_reset() - every queued packet onto *@to_free; qlen/backlog to 0. */
void mqtx__fifo_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free);

/** mqtx__fifo_trim() - drop from the head of @l (MQTX_DROP_QDISC) while @over(q) says so. */
void mqtx__fifo_trim(struct mqtx_qdisc *q, struct mqtx_pkt_list *l,
		     bool (*over)(struct mqtx_qdisc *q), struct mqtx_pkt **to_free);

struct mqtx_pkt *mqtx__fifo_dequeue(struct mqtx_qdisc *q);
struct mqtx_pkt *mqtx__fifo_peek(struct mqtx_qdisc *q);

/* The control path of the FIFOs: init (the limit defaults to tx_queue_len packets, or as many
 * full-sized frames in bytes for bfifo), change (stores the limit; what is queued above a
 * lowered one stays), and the packet-limited ones' dump ("limit Np"). pfifo and
 * pfifo_head_drop differ only in what a full queue drops. */
int mqtx__fifo_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack);
int mqtx__fifo_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack);
void mqtx__pfifo_dump(struct mqtx_qdisc *q, struct mqtx_dump *d);

#endif

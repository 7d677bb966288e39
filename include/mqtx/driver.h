/* SPDX-License-Identifier: MIT */
/* mqtx for driver authors: the driver ops table, completions and BQL, built-in drivers. */
#ifndef MQTX_DRIVER_H
#define MQTX_DRIVER_H

#include <mqtx/dev.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct mqtx_dev_ops - a driver. One static const table per driver.
 *
 * @kind: required. The driver's name ("sim", "null", ...).
 * @priv_size: bytes of private area the driver itself needs; the device gets the larger of
 *        this and mqtx_dev_cfg.priv_size.
 * @init: optional. Called once by mqtx_dev_create() with the private area zeroed; allocate
 *        driver resources here. Return 0 or -errno (creation then fails, @uninit not called).
 * @uninit: optional. Release what @init allocated; called by mqtx_dev_destroy().
 * @open: optional. The device is coming up; return 0 or -errno (it then stays down).
 * @stop: optional. The device went down and nothing is transmitting any more: release every
 *        packet still held (rings, in-flight), counting them as the driver sees fit.
 * @xmit_burst: required. Take packets from @pkts[0..n) for @txq, in order, and return how many
 *        were taken (0..n); ownership of those passes to the driver. The rest are requeued at
 *        the head of the queue and sent first later: a driver should stop its queue
 *        (mqtx_txq_stop) *before* its ring is full rather than refuse. @more says that more
 *        packets follow this burst for the same queue (defer the doorbell). Called with the
 *        queue's xmit lock held: one call per queue at a time; never with a queue lock held.
 * @select_queue: optional. Pick the TX queue for @pkt (like ndo_select_queue); the result is
 *        capped to real_num_txq. mqtx_dev_pick_tx() is the default to fall back on.
 * @inflight: optional. Packets of queue @txq the driver holds and has not completed; used by
 *        mqtx_dev_all_tx_empty(). Absent means 0.
 */
struct mqtx_dev_ops {
	const char *kind;
	size_t priv_size;
	int (*init)(struct mqtx_dev *dev);
	void (*uninit)(struct mqtx_dev *dev);
	int (*open)(struct mqtx_dev *dev);
	void (*stop)(struct mqtx_dev *dev);
	unsigned (*xmit_burst)(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more);
	uint16_t (*select_queue)(struct mqtx_dev *dev, struct mqtx_pkt *pkt);
	uint32_t (*inflight)(struct mqtx_dev *dev, struct mqtx_txq *txq);
};

/**
 * mqtx_txq_sent() - BQL: the driver put @bytes on @txq's ring (from xmit_burst). Sets
 * STACK_XOFF when the byte limit is reached. With @more, only accounts (the limit is checked on
 * the last packet of a burst). Returns true when the driver should ring its doorbell now.
 * @more: another packet *of this burst* follows (i + 1 < n), like Linux's per-skb xmit_more.
 *        Do not pass xmit_burst's @more (the qdisc still has packets): with a standing
 *        backlog the limit would never be checked and BQL would never bound the ring.
 * No-op (returns true) unless the device was created with MQTX_DEV_F_BQL.
 */
MQTX_API bool mqtx_txq_sent(struct mqtx_txq *txq, uint32_t bytes, bool more);

/**
 * mqtx_txq_completed() - the hardware finished @pkts packets of @bytes on @txq. Updates the BQL
 * limit (at most one call per completion round) and, when room appeared, clears STACK_XOFF and
 * schedules the queue. From any thread; inside a completion round held as a section
 * (mqtx_bh_disable()), the queue runs when the round ends, otherwise on the TX thread.
 */
MQTX_API void mqtx_txq_completed(struct mqtx_txq *txq, uint32_t pkts, uint32_t bytes);

/** mqtx_txq_bql_reset() - forget BQL state (the ring was flushed). */
MQTX_API void mqtx_txq_bql_reset(struct mqtx_txq *txq);

/**
 * mqtx_txq_set_bql() - BQL bounds for @txq in bytes and the slack hold time in ns
 * (0 keeps a value). Return: 0, or -EINVAL when min > max.
 */
MQTX_API int mqtx_txq_set_bql(struct mqtx_txq *txq, uint32_t min_limit, uint32_t max_limit,
			      uint64_t hold_ns);

/** mqtx_txq_count_drop() - count a drop the driver made itself on @txq. */
MQTX_API void mqtx_txq_count_drop(struct mqtx_txq *txq, enum mqtx_drop_reason reason,
				  uint32_t n);

/* ---- built-in drivers ---- */

/** The null driver: takes every packet, counts it, frees it. */
MQTX_API extern const struct mqtx_dev_ops mqtx_null_ops;

/**
 * mqtx_null_set_refuse_every() - make xmit_burst refuse its whole burst on every @n-th call
 * (0: never), returning 0 without stopping the queue (NETDEV_TX_BUSY; for fault tests).
 */
MQTX_API void mqtx_null_set_refuse_every(struct mqtx_dev *dev, uint32_t n);

/** mqtx_null_counts() - packets and bytes the null driver took, over all queues. */
MQTX_API void mqtx_null_counts(struct mqtx_dev *dev, uint64_t *packets, uint64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/* mqtx for driver authors: the driver ops table, completions and BQL, built-in drivers. */
#ifndef MQTX_DRIVER_H
#define MQTX_DRIVER_H

#include <mqtx/dev.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Receives one driver counter (see mqtx_dev_ops.get_xstats). */
typedef void (*mqtx_xstat_fn)(const char *name, uint64_t value, void *arg);

/* Members of struct mqtx_dev_settings to apply (its @mask). */
#define MQTX_DEV_SET_MTU	0x01u
#define MQTX_DEV_SET_TXQUEUELEN 0x02u
#define MQTX_DEV_SET_RING	0x04u
#define MQTX_DEV_SET_COALESCE	0x08u
#define MQTX_DEV_SET_RATE	0x10u
#define MQTX_DEV_SET_ALL	0x1fu

/**
 * struct mqtx_dev_settings - a change of a device after creation (`dev set`).
 * @mask: MQTX_DEV_SET_* bits: which members below apply.
 * @mtu: 68..65535 (`ip link set mtu`). @tx_queue_len: 1.. packets; qdiscs created from then
 *        on take it as their default limit (`ip link set txqueuelen`).
 * @ring: descriptors per TX queue (`ethtool -G tx`). @coalesce_ns: completion coalescing
 *        (`ethtool -C tx-usecs`). @rate_bps: wire rate of each queue in bits/s.
 */
struct mqtx_dev_settings {
	uint32_t mask;
	uint32_t mtu;
	uint32_t tx_queue_len;
	uint32_t ring;
	uint64_t coalesce_ns;
	uint64_t rate_bps;
};

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
 *        queue's xmit lock held: one call per queue at a time. A sender that finds the qdisc
 *        empty calls it with the qdisc's lock held too (a direct transmit), so the queue's
 *        other senders wait for the call: a driver that sends into a device of its own finds
 *        its own queue's packets queued until the call returns (see mqtx_dev_xmit()).
 * @select_queue: optional. Pick the TX queue for @pkt (like ndo_select_queue); the result is
 *        capped to real_num_txq. mqtx_dev_pick_tx() is the default to fall back on.
 * @inflight: optional. Packets of queue @txq the driver holds and has not completed; used by
 *        mqtx_dev_all_tx_empty(). Absent means 0.
 * @get_xstats: optional. The driver's own counters, like a line each of `ethtool -S`: one
 *        @emit(name, value, arg) call per counter, names short lowercase words stable across
 *        calls. @txq is the queue, or NULL for the device as a whole (kernel-side totals).
 *        Any thread, device up or down; must not wait for the data path.
 * @change: optional. Apply the members of @set whose MQTX_DEV_SET_* bit is in @set->mask, as
 *        ethtool -G/-C and `ip link set` do. Called by mqtx_dev_change() with the config lock
 *        held, before the core records mtu and tx_queue_len (a driver over a kernel interface
 *        changes the interface's MTU here). Every bit the driver cannot apply in the current
 *        state must be refused, the whole change then failing with nothing changed: return 0,
 *        -EOPNOTSUPP (the driver has no such setting), -EBUSY (not while the device is up),
 *        -EINVAL (out of range) or the kernel's -errno, and write into @msg (@msglen bytes) a
 *        message naming the interface and the cause. Absent: ring, coalesce and rate are
 *        refused, mtu and tx_queue_len are recorded by the core.
 * @ktxq_stats: optional. What the kernel (or the file) below the driver did with the frames of
 *        queue @txq, into @st (<mqtx/ktxq.h>); mqtx_dev_ktxq_stats() asks it for one queue or
 *        for each in turn. Any thread, device up or down; must not wait for the data path.
 * @link_rate: optional. The wire rate of each TX queue in bits/s, 0 when the driver does not
 *        know it (ethtool's link speed, which time-aware qdiscs such as taprio read). Called
 *        with the config lock held (it reads what @change sets). Absent: unknown.
 */
struct mqtx_ktxq_stats;

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
	void (*get_xstats)(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit,
			   void *arg);
	int (*change)(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		      size_t msglen);
	void (*ktxq_stats)(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_ktxq_stats *st);
	uint64_t (*link_rate)(struct mqtx_dev *dev);
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

/**
 * mqtx_txq_drop_taken() - from xmit_burst only, on its own thread: the driver took @pkt (it is
 * within the count xmit_burst returns) but cannot send it. Frees @pkt and counts it on @txq as
 * a drop with @reason instead of as a transmitted packet: a packet is sent or dropped, never
 * both.
 */
MQTX_API void mqtx_txq_drop_taken(struct mqtx_txq *txq, struct mqtx_pkt *pkt,
				  enum mqtx_drop_reason reason);

/** mqtx_txq_count_drop() - count a drop the driver made itself on @txq (a packet it never
 *  counted as taken: from a completion, for instance). */
MQTX_API void mqtx_txq_count_drop(struct mqtx_txq *txq, enum mqtx_drop_reason reason, uint32_t n);

/**
 * mqtx_dev_fail() - the driver's device can no longer transmit: the kernel interface below it
 * is gone (@err: a negative errno such as -ENXIO or -ENODEV). Every queue is stopped at once, an
 * error naming the device and @err is logged once, and the device is brought down soon by a
 * helper thread (mqtx_dev_close() cannot run inside xmit_burst): what is still queued is then
 * counted as MQTX_DROP_DOWN, as for any close. Repeated calls do nothing until the device is
 * opened again. From any thread, with any driver lock held.
 */
MQTX_API void mqtx_dev_fail(struct mqtx_dev *dev, int err);

/** mqtx_dev_failed() - the error of the first mqtx_dev_fail() since the last open, or 0. */
MQTX_API int mqtx_dev_failed(const struct mqtx_dev *dev);

/**
 * mqtx_dev_xstats() - the driver's own counters (ops->get_xstats) of queue @txq, or of the
 * device with @txq < 0, one @fn call each.
 * Return: 0; -EOPNOTSUPP when the driver has none; -EINVAL when @txq >= num_txq.
 */
MQTX_API int mqtx_dev_xstats(struct mqtx_dev *dev, int txq, mqtx_xstat_fn fn, void *arg);

/**
 * mqtx_dev_change() - change a device after creation (ethtool -G/-C, `ip link set`): the
 * driver's ops->change applies what is its own, then the core records mtu and tx_queue_len.
 * Everything is checked first; on an error nothing has changed and @msg (@msglen bytes, may be
 * NULL) says what was refused and why, naming the device.
 * Return: 0; -EINVAL (unknown bits in mask, mtu outside 68..65535, tx_queue_len 0, or the
 * driver's range check); -EOPNOTSUPP (the driver has no such setting); -EBUSY (the driver cannot
 * change it while the device is up); or the driver's error.
 */
MQTX_API int mqtx_dev_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
			     size_t msglen);

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

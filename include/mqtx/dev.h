/* SPDX-License-Identifier: MIT */
/* mqtx devices: lifecycle, TX queues and their control, queue selection, transmit, receive. */
#ifndef MQTX_DEV_H
#define MQTX_DEV_H

#include <mqtx/clock.h>
#include <mqtx/common.h>
#include <mqtx/flow.h>
#include <mqtx/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MQTX_MAX_TXQ		4096
#define MQTX_DEFAULT_TXQLEN	1000
#define MQTX_DEFAULT_MTU	1500
#define MQTX_DEFAULT_QUOTA	64
#define MQTX_XMIT_RECURSION_MAX 8
#define MQTX_NAME_MAX		32

struct mqtx_dev;
struct mqtx_txq;
struct mqtx_dev_ops; /* <mqtx/driver.h> */

/* Results of a single-packet transmit (the packet is consumed in every case). */
enum mqtx_xmit_rc {
	MQTX_XMIT_SUCCESS = 0, /* queued or handed to the driver */
	MQTX_XMIT_DROP = 1,    /* dropped; counted with a reason */
	MQTX_XMIT_CN = 2,      /* queued, but the qdisc dropped something else: back off */
};

/* Why a packet was dropped. Every drop is counted with exactly one reason where it happens. */
enum mqtx_drop_reason {
	MQTX_DROP_QDISC = 0,  /* the qdisc refused it (limit) */
	MQTX_DROP_AQM,	      /* an AQM decided (CoDel and friends) */
	MQTX_DROP_POLICE,     /* a policer (the ingress qdisc's, or a filter's police action) */
	MQTX_DROP_DOWN,	      /* the device was down or went down (purged) */
	MQTX_DROP_RECURSION,  /* a driver transmitted into its own queue, or nesting too deep */
	MQTX_DROP_NOQUEUE,    /* noqueue qdisc and the driver queue was stopped */
	MQTX_DROP_DRIVER,     /* the driver refused it with an error */
	MQTX_DROP_REPLACE,    /* backlog of a replaced qdisc that the new qdisc refused */
	MQTX_DROP_RESET,      /* a qdisc reset or delete purged it */
	MQTX_DROP_NO_HANDLER, /* received, but no receive handler is set */
	MQTX_DROP_KERNEL,     /* the kernel refused it with an errno (the driver's own statistics
			       * say which one, per queue) */
	MQTX_DROP_NO_ADMIT,   /* WME: admission control allows no access category for it (the
			       * 2008 mac80211 behaviour; see <mqtx/wme.h>) */
	MQTX_DROP_EXPIRED,    /* it waited longer than its access category's deadline */
	MQTX_DROP_FILTER,     /* a filter's action dropped it (gact drop, a reclassify loop) */
	MQTX_DROP_REDIRECT,   /* not lost: a filter redirected it to another device (mirred),
			       * where it is counted again */
	MQTX_DROP_WRITE,      /* a file the driver writes (pcap) refused it (an I/O error, the
			       * file-size limit): it is not in the file */
	MQTX_DROP_NOSPACE,    /* that file's file system is full (ENOSPC, EDQUOT) */
	MQTX_DROP_REASON_MAX
};

/** mqtx_drop_reason_name() - a short name ("qdisc", "down", ...); "?" when out of range. */
MQTX_API const char *mqtx_drop_reason_name(enum mqtx_drop_reason r);

/* TX queue state bits (as Linux: the driver owns DRV_XOFF, BQL owns STACK_XOFF). */
#define MQTX_TXQ_DRV_XOFF   0x1u
#define MQTX_TXQ_STACK_XOFF 0x2u
#define MQTX_TXQ_FROZEN	    0x4u
#define MQTX_TXQ_ANY_XOFF   (MQTX_TXQ_DRV_XOFF | MQTX_TXQ_STACK_XOFF)

/* Device flags (struct mqtx_dev_cfg.flags). */
#define MQTX_DEV_F_NO_QUEUE 0x1u /* attach noqueue by default (virtual devices) */
#define MQTX_DEV_F_BQL	    0x2u /* the driver reports sent/completed bytes: run BQL */

/**
 * struct mqtx_dev_cfg - what mqtx_dev_create() builds.
 * @name: copied; 1..31 characters (required).
 * @ops: the driver (required; see <mqtx/driver.h>).
 * @num_txq: TX queues allocated, 1..MQTX_MAX_TXQ (required).
 * @real_num_txq: queues in use, 1..num_txq (0: num_txq).
 * @priv_size: bytes of driver-private area, at a fixed cache-line-aligned offset.
 * @clock: the time base (NULL: mqtx_clock_real()); not owned.
 * @tx_queue_len: default qdisc limit in packets (0: 1000).
 * @mtu: (0: 1500).
 * @quota: packets one qdisc run may send before yielding (0: 64).
 * @flags: MQTX_DEV_F_*.
 */
struct mqtx_dev_cfg {
	const char *name;
	const struct mqtx_dev_ops *ops;
	uint32_t num_txq;
	uint32_t real_num_txq;
	size_t priv_size;
	struct mqtx_clock *clock;
	uint32_t tx_queue_len;
	uint32_t mtu;
	uint32_t quota;
	uint32_t flags;
};

/**
 * mqtx_dev_create() - allocate a device and its TX queues; it starts down.
 * Calls ops->init (if any) with the private area zeroed.
 * Return: 0 and *@out; -EINVAL (missing name, ops or ops->xmit_burst, a count out of range, a
 * name too long, a private area over 1 GiB), -ENOMEM, or the error of ops->init.
 */
MQTX_API int mqtx_dev_create(const struct mqtx_dev_cfg *cfg, struct mqtx_dev **out);

/** mqtx_dev_destroy() - bring the device down if up, call ops->uninit, free it. NULL is allowed. */
MQTX_API void mqtx_dev_destroy(struct mqtx_dev *dev);

/**
 * mqtx_dev_open() - bring the device up: attach the default qdiscs if no qdisc is configured,
 * ops->open, activate the configured qdiscs, start every queue.
 * Return: 0; -EALREADY if up; -ENOMEM (the default qdiscs could not be made); the error of
 * ops->open. On an error the device stays down.
 */
MQTX_API int mqtx_dev_open(struct mqtx_dev *dev);

/**
 * mqtx_dev_close() - bring the device down: stop every queue, deactivate the qdiscs, wait until
 * no transmit is in flight, purge what is queued (counted as MQTX_DROP_DOWN), then ops->stop.
 * Return: 0, or -EALREADY if already down.
 */
MQTX_API int mqtx_dev_close(struct mqtx_dev *dev);

/**
 * mqtx_dev_is_up() - true between a successful mqtx_dev_open() and mqtx_dev_close();
 * mqtx_dev_name() - the device's name; mqtx_dev_ops() - its driver's ops table;
 * mqtx_dev_clock() - its clock (the real clock unless the configuration gave one);
 * mqtx_dev_mtu() - its MTU in bytes; mqtx_dev_tx_queue_len() - its txqueuelen (the default
 * fifo limit, in packets). Read-only accessors, safe from any thread.
 */
MQTX_API bool mqtx_dev_is_up(const struct mqtx_dev *dev);
MQTX_API const char *mqtx_dev_name(const struct mqtx_dev *dev);
MQTX_API const struct mqtx_dev_ops *mqtx_dev_ops(const struct mqtx_dev *dev);
MQTX_API struct mqtx_clock *mqtx_dev_clock(const struct mqtx_dev *dev);
MQTX_API uint32_t mqtx_dev_mtu(const struct mqtx_dev *dev);
MQTX_API uint32_t mqtx_dev_tx_queue_len(const struct mqtx_dev *dev);
/**
 * mqtx_dev_link_rate() - the wire rate of each of @dev's TX queues in bits/s, as its driver
 * reports it (mqtx_dev_ops.link_rate: the sim driver's rate), or 0 when the driver does not
 * know it: ethtool's link speed, which taprio turns into the time a byte takes. Call with the
 * config lock held (mqtx_dev_config_lock()).
 */
MQTX_API uint64_t mqtx_dev_link_rate(struct mqtx_dev *dev);

/** mqtx_dev_priv() - the driver-private area (cache-line aligned, fixed offset). */
MQTX_API void *mqtx_dev_priv(const struct mqtx_dev *dev);

/** mqtx_dev_from_priv() - the device that owns private area @priv (inverse of the above). */
MQTX_API struct mqtx_dev *mqtx_dev_from_priv(void *priv);

/** mqtx_dev_ml_priv() / mqtx_dev_set_ml_priv() - a pointer reserved for a mid-layer. */
MQTX_API void *mqtx_dev_ml_priv(const struct mqtx_dev *dev);
MQTX_API void mqtx_dev_set_ml_priv(struct mqtx_dev *dev, void *ml_priv);

/**
 * mqtx_dev_num_txq() - the TX queues allocated (Linux's num_tx_queues);
 * mqtx_dev_real_num_txq() - how many of them are in use (real_num_tx_queues): selection
 * never picks a queue at or beyond it.
 */
MQTX_API uint32_t mqtx_dev_num_txq(const struct mqtx_dev *dev);
MQTX_API uint32_t mqtx_dev_real_num_txq(const struct mqtx_dev *dev);

/**
 * mqtx_dev_set_real_num_txq() - change how many TX queues are in use, up or down (as Linux's
 * netif_set_real_num_tx_queues()). Up, the change is live: after a grace period no packet is
 * selected beyond the new count, and what the queues that went out of use hold in qdiscs of
 * their own is purged (MQTX_DROP_RESET). Return: 0; -EINVAL outside 1..num_txq.
 */
MQTX_API int mqtx_dev_set_real_num_txq(struct mqtx_dev *dev, uint32_t n);

/** mqtx_dev_txq() - TX queue @i, or NULL when @i >= num_txq. */
MQTX_API struct mqtx_txq *mqtx_dev_txq(const struct mqtx_dev *dev, uint32_t i);
MQTX_API uint32_t mqtx_txq_index(const struct mqtx_txq *txq);
MQTX_API struct mqtx_dev *mqtx_txq_dev(const struct mqtx_txq *txq);

/* ---- queue selection ---- */

/*
 * What a selector returns to drop the packet instead of queueing it (mac80211's WME drops a
 * frame that no access category admits): it first sets pkt->drop_reason to the reason and
 * pkt->queue_mapping to the queue whose counters take the drop (below real_num_txq, else 0).
 */
#define MQTX_TXQ_DROP 0xFFFFu

/** A queue selector: return the queue for @pkt (capped to real_num_txq by the core), or
 *  MQTX_TXQ_DROP. */
typedef uint16_t (*mqtx_select_fn)(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg);

/**
 * mqtx_dev_set_select_queue() - the application's selector, used before the driver's
 * ops->select_queue and the default picker. NULL restores them. Safe under traffic.
 * Return: 0, or -ENOMEM (the previous selector stays).
 */
MQTX_API int mqtx_dev_set_select_queue(struct mqtx_dev *dev, mqtx_select_fn fn, void *arg);

/**
 * mqtx_dev_set_hash() - choose the flow hash of the default picker (see <mqtx/flow.h>).
 * Safe under traffic. Return: 0, or the errors of mqtx_hasher_new().
 */
MQTX_API int mqtx_dev_set_hash(struct mqtx_dev *dev, const struct mqtx_hash_cfg *cfg);

/** mqtx_dev_hash_cfg() - copy the device's current hash configuration into @cfg. */
MQTX_API void mqtx_dev_hash_cfg(struct mqtx_dev *dev, struct mqtx_hash_cfg *cfg);

/* CPUs an XPS map can name: 0..MQTX_XPS_CPUS_MAX - 1. */
#define MQTX_XPS_CPUS_MAX 1024

/**
 * mqtx_dev_set_xps() - XPS (Linux's xps_cpus): let senders running on the @n CPUs of @cpus use
 * TX queue @txq (@n 0: none). When the sending CPU has queues in the map, the default picker
 * chooses among them by flow hash (only among those of the packet's traffic class when the
 * device has classes and some are), as Linux's get_xps_queue(); a CPU without queues falls
 * back to the whole range. Replaces what @txq had; safe under traffic.
 * Return: 0; -EINVAL (@txq >= num_txq, a CPU >= MQTX_XPS_CPUS_MAX, @cpus NULL with @n > 0);
 * -ENOMEM.
 */
MQTX_API int mqtx_dev_set_xps(struct mqtx_dev *dev, uint32_t txq, const unsigned *cpus, unsigned n);

/**
 * mqtx_dev_xps() - the CPUs that may use TX queue @txq, ascending, into @cpus (at most @max).
 * Return: how many there are (may exceed @max), or -EINVAL (@txq >= num_txq).
 */
MQTX_API int mqtx_dev_xps(struct mqtx_dev *dev, uint32_t txq, unsigned *cpus, unsigned max);

/**
 * mqtx_dev_set_flow_cache() - remember the queue each flow was given, in a table of @entries
 * (a power of two up to 1 << 20; 0: no table), as Linux remembers it in a socket: a flow keeps
 * its queue when the XPS map or the sending CPU changes, and moves only on a packet marked
 * MQTX_PKT_F_OOO_OKAY (nothing of the flow in flight) or when its queue leaves the range in
 * use. Senders on several CPUs agree on one queue per flow, so a flow is never split over two
 * queues. An entry belongs to the first flow that takes it until the table is set again; a
 * flow whose entry another flow holds follows the plain flow hash (never XPS), which is the
 * same on every CPU. Safe under traffic; the table starts empty.
 * Return: 0; -EINVAL (not a power of two, too large); -ENOMEM.
 */
MQTX_API int mqtx_dev_set_flow_cache(struct mqtx_dev *dev, uint32_t entries);

/** mqtx_dev_flow_cache() - the entries of the device's flow-queue table; 0 without one. */
MQTX_API uint32_t mqtx_dev_flow_cache(struct mqtx_dev *dev);

/**
 * mqtx_dev_pick_tx() - the default picker: the packet's flow hash (computed and cached in the
 * packet if not valid) scaled onto real_num_txq, or onto the packet's traffic-class range
 * when traffic classes are set; non-IP frames go to queue 0. For selectors that fall back.
 */
MQTX_API uint16_t mqtx_dev_pick_tx(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/**
 * mqtx_dev_flow_hash() - the flow hash of @pkt by the device's hash configuration, computed the
 * first time it is asked for and kept in the packet (@pkt->hash, MQTX_PKT_F_HASH_VALID), as
 * Linux's skb_get_hash(). Queue selection computes it only where it chooses among several
 * queues (not for an XPS map of one queue, nor a range of one), so a qdisc or selector that
 * needs it asks here.
 * Return: true with @pkt->hash set; false for a frame without a flow (not IP).
 */
MQTX_API bool mqtx_dev_flow_hash(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/**
 * mqtx_dev_pick_tx_tc() - the default picker within traffic class @tc (the packet's flow hash
 * scaled onto that class's queues) whatever the packet's priority; a class the device does
 * not have (or without queues) falls back to mqtx_dev_pick_tx(). For a filter that names a
 * traffic class (mqprio's, flower's hw_tc).
 */
MQTX_API uint16_t mqtx_dev_pick_tx_tc(struct mqtx_dev *dev, struct mqtx_pkt *pkt, unsigned tc);

/**
 * mqtx_dev_select_queue() - run the whole selection for @pkt (hooks, default, cap) and set
 * pkt->queue_mapping; what mqtx_dev_xmit() does first. Returns the queue index, or
 * MQTX_TXQ_DROP when a selector said to drop it (the transmit path then frees it and counts
 * pkt->drop_reason on queue pkt->queue_mapping).
 */
MQTX_API uint16_t mqtx_dev_select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/* ---- transmit ---- */

/**
 * mqtx_dev_xmit() - send one packet: select its queue, enqueue, run the queue.
 * The packet is consumed in every case. Thread-safe.
 *
 * When the queue's qdisc is empty and work-conserving and the queue is running, the packet
 * goes to the driver at once, with the queue lock held across the driver call. The call may
 * then wait for another sender's driver call on the same queue: senders sharing a queue feel
 * the driver's pace as backpressure instead of qdisc drops. With a driver that never stops its
 * queue, concurrent senders are served in the order they get the lock, not in the qdisc's band
 * order (as on a PREEMPT_RT Linux, where every sender serialises on the qdisc's lock); a driver
 * that stops its queue when its ring fills restores qdisc order, since a stopped queue's
 * packets are queued and dequeued by priority. A driver that transmits from inside its
 * xmit_burst (into its own device or another) never deadlocks: into the qdisc its own thread
 * holds, the packet is queued and sent when the outer call's driver call returns; into a
 * queue whose lock another thread holds, it is sent when the outermost transmit call ends.
 * Return: enum mqtx_xmit_rc.
 */
MQTX_API int mqtx_dev_xmit(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/**
 * mqtx_dev_xmit_burst() - send @n packets; consecutive packets for one queue share one lock
 * hold and one run (one driver call when the qdisc is bypassed, as for mqtx_dev_xmit()).
 * Every packet is consumed. Return: how many were accepted (queued or sent); the others were
 * dropped and counted.
 */
MQTX_API unsigned mqtx_dev_xmit_burst(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n);

/* ---- queue control (drivers and applications) ---- */

/** mqtx_txq_start() - clear DRV_XOFF; does not run the queue (for bring-up). */
MQTX_API void mqtx_txq_start(struct mqtx_txq *txq);
/** mqtx_txq_stop() - set DRV_XOFF: the queue is no longer dequeued. */
MQTX_API void mqtx_txq_stop(struct mqtx_txq *txq);
/** mqtx_txq_wake() - clear DRV_XOFF and, if it was set, schedule the queue to run (see "TX
 *  scheduling" below). From any thread. */
MQTX_API void mqtx_txq_wake(struct mqtx_txq *txq);
/** mqtx_txq_stopped() - DRV_XOFF is set (what drivers test). */
MQTX_API bool mqtx_txq_stopped(const struct mqtx_txq *txq);
/** mqtx_txq_state() - all state bits (MQTX_TXQ_*). */
MQTX_API unsigned mqtx_txq_state(const struct mqtx_txq *txq);

/** The same on every allocated queue (num_txq, as Linux). */
MQTX_API void mqtx_dev_start_all_queues(struct mqtx_dev *dev);
MQTX_API void mqtx_dev_stop_all_queues(struct mqtx_dev *dev);
MQTX_API void mqtx_dev_wake_all_queues(struct mqtx_dev *dev);

/**
 * mqtx_dev_lock_all() - freeze every queue for a device-wide critical section: takes each
 * queue's xmit lock in index order (waiting for transmits in progress) and sets FROZEN, so no
 * queue is dequeued until mqtx_dev_unlock_all(), which clears FROZEN and reschedules every
 * queue that is not stopped. Not from a driver's xmit_burst.
 */
MQTX_API void mqtx_dev_lock_all(struct mqtx_dev *dev);
MQTX_API void mqtx_dev_unlock_all(struct mqtx_dev *dev);

/**
 * mqtx_dev_lock_all_queues() - hold every queue of @dev still, with every packet the stack
 * holds inside a qdisc, so that the caller may move packets between the qdiscs of any queues
 * (the lock_all_queues_bh() of the 2008 mac80211, which set up aggregation queues under it).
 * Takes the device's TX-global lock, sets FROZEN on every queue (nothing is dequeued; a batch
 * a runner already holds is refused by the frozen queue and requeued), then takes every queue
 * lock in index order, releasing them and trying again while any queue's qdisc still has a
 * runner or is being grafted. On return: all queue locks held, no runner, no graft in
 * progress; each txq's active qdisc is its configured one (noop while the device is down).
 * Not from a driver's xmit_burst, a qdisc op, or a thread that holds a queue lock; the device's
 * config lock may be held. mqtx_dev_unlock_all_queues() releases the queue locks, clears
 * FROZEN and schedules every queue that is not stopped, which runs when the caller's
 * outermost section ends (at once when it is in none).
 */
MQTX_API void mqtx_dev_lock_all_queues(struct mqtx_dev *dev);
MQTX_API void mqtx_dev_unlock_all_queues(struct mqtx_dev *dev);

/**
 * mqtx_txq_active_qdisc() - the qdisc @txq enqueues to now (noop while the device is down).
 * Stable while the caller holds mqtx_dev_lock_all_queues() or the device's config lock.
 */
MQTX_API struct mqtx_qdisc *mqtx_txq_active_qdisc(struct mqtx_txq *txq);

/**
 * mqtx_dev_all_tx_empty() - exactly: no packet in any queue's qdisc or requeue list, and the
 * driver reports nothing in flight on any queue (ops->inflight).
 * Takes the device's config lock, so that a configuration change (a close purging the queues,
 * a graft moving backlogs) is seen whole, or reads under it when the calling thread already
 * holds it (mqtx_dev_config_lock()). Not under a queue lock, which comes after it.
 */
MQTX_API bool mqtx_dev_all_tx_empty(struct mqtx_dev *dev);

/**
 * mqtx_dev_config_lock() / mqtx_dev_config_unlock() - the device's configuration mutex (the
 * rtnl of mqtx): every configuration change of the device holds it. Not recursive; the
 * readers of counters (mqtx_dev_get_stats(), mqtx_txq_get_stats(), mqtx_dev_all_tx_empty())
 * may be called with it held: they see that this thread holds it and do not take it again.
 */
MQTX_API void mqtx_dev_config_lock(struct mqtx_dev *dev);
MQTX_API void mqtx_dev_config_unlock(struct mqtx_dev *dev);

/**
 * mqtx_dev_config_trylock() - take the configuration mutex if it is free. Return: true when
 * taken (release it with mqtx_dev_config_unlock()). For a callback that the holder of the
 * config lock may be waiting for (a timer being cancelled, a driver thread being joined):
 * it tries, and gives up when the device is going down (mqtx_dev_is_up() false).
 */
MQTX_API bool mqtx_dev_config_trylock(struct mqtx_dev *dev);

/* ---- traffic classes (what mqprio sets up; Linux's netdev_set_num_tc and friends) ---- */

/* At most this many traffic classes; a priority's class is taken from its low 4 bits. */
#define MQTX_TC_MAX	16
#define MQTX_TC_BITMASK 15

/**
 * mqtx_dev_set_tc() - give @dev @num_tc traffic classes (1..MQTX_TC_MAX): priority p maps to
 * class @prio_tc_map[p & MQTX_TC_BITMASK] (16 entries), and class c selects among the @count[c]
 * TX queues from @offset[c] (the default picker hashes within that range). Published so that
 * a transmit in progress sees the old map or the new one, never a mix; cannot fail (a
 * qdisc's commit pass calls it). The caller has checked the ranges. Config lock held.
 */
MQTX_API void mqtx_dev_set_tc(struct mqtx_dev *dev, unsigned num_tc, const uint8_t *prio_tc_map,
			      const uint16_t *count, const uint16_t *offset);

/** mqtx_dev_reset_tc() - no traffic classes any more (netdev_reset_tc). Config lock held. */
MQTX_API void mqtx_dev_reset_tc(struct mqtx_dev *dev);

/* ---- TX scheduling ---- */

/*
 * A queue that must run later (woken, refused by its driver, out of quota, throttled by a
 * timer) is scheduled: it goes on one output list, once, and is always run from there:
 *   - on a TX worker's list when the device has workers (mqtx_dev_start_workers());
 *   - else, inside a section (see mqtx_bh_disable()), on the calling thread's list, run by that
 *     thread when its outermost section ends;
 *   - else on the list of the process's TX thread (started on first use), like Linux's
 *     ksoftirqd. A section runs at most a few rounds; what is still scheduled after them
 *     (a driver that keeps refusing without stopping) also goes to the TX thread.
 * Every transmit call and every timer callback is a section. A driver's completion round
 * (its "interrupt") should be one too, so that the queues it wakes run once, at its end, on
 * its thread, with its locks released.
 */

/**
 * mqtx_bh_disable() - start a section on the calling thread (Linux's local_bh_disable()).
 * Sections nest. Queues scheduled inside run when the outermost section ends.
 */
MQTX_API void mqtx_bh_disable(void);

/**
 * mqtx_bh_enable() - end a section; the outermost end runs what was scheduled inside it, on
 * this thread. Call it with no lock held that the driver's xmit_burst takes.
 */
MQTX_API void mqtx_bh_enable(void);

/**
 * mqtx_txq_schedule() - schedule @txq to run later, at most once (SCHED bit), on the list the
 * rules above choose. Thread-safe; never runs the queue itself.
 */
MQTX_API void mqtx_txq_schedule(struct mqtx_txq *txq);

/**
 * mqtx_tx_action() - run the calling thread's output list now, for a bounded number of rounds
 * (what remains goes to the TX thread). Returns how many queue runs it made. For a loop that
 * wants its queues run at a point of its choosing inside a long section.
 */
MQTX_API unsigned mqtx_tx_action(void);

/**
 * mqtx_dev_start_workers() - start @n TX worker threads (1..64) that run scheduled queues of
 * @dev (queue i goes to worker i % n). Return: 0; -EBUSY if started; -EINVAL; -ENOMEM; -EAGAIN.
 */
MQTX_API int mqtx_dev_start_workers(struct mqtx_dev *dev, unsigned n);
/** mqtx_dev_stop_workers() - stop them; what they still had scheduled is scheduled again by
 *  the rules above (the caller's section, or the TX thread). */
MQTX_API void mqtx_dev_stop_workers(struct mqtx_dev *dev);

/* ---- statistics ---- */

/**
 * struct mqtx_txq_stats - one queue's counters.
 * @packets, @bytes: taken by the driver.
 * @drops: by reason; @requeues: refused by the driver and put back at the head;
 * @stops, @wakes: DRV_XOFF transitions; @batches: driver calls; @bypass: packets sent without
 * being queued; @qlen, @backlog: queued now in its qdisc (with the requeue list);
 * @state: MQTX_TXQ_*; @bql_limit, @bql_inflight: BQL byte limit and bytes in flight.
 */
struct mqtx_txq_stats {
	uint64_t packets, bytes;
	uint64_t drops[MQTX_DROP_REASON_MAX];
	uint64_t requeues, stops, wakes, batches, bypass;
	uint64_t qlen, backlog;
	uint32_t state;
	uint32_t bql_limit, bql_inflight;
};

/**
 * mqtx_txq_get_stats() - a snapshot of one queue's counters.
 * Takes the device's config lock, so that a configuration change (a close purging the queues,
 * a graft moving backlogs) is seen whole, or reads under it when the calling thread already
 * holds it (mqtx_dev_config_lock()). Not under a queue lock, which comes after it.
 */
MQTX_API void mqtx_txq_get_stats(struct mqtx_txq *txq, struct mqtx_txq_stats *st);

/**
 * struct mqtx_dev_stats - device totals.
 * @txq: the sum over all queues; @xmit: packets handed to mqtx_dev_xmit*();
 * @select_capped: selections outside real_num_txq sent to queue 0;
 * @rx_packets, @rx_bytes: received frames delivered to the receive handler;
 * @rx_drop_reasons: received frames dropped, by reason (the ingress qdisc's policer, no
 * handler); @rx_drops: their sum. Every frame given to mqtx_dev_receive() is delivered or
 * dropped: rx_packets + rx_drops. Receive drops are never counted on a TX queue.
 */
struct mqtx_dev_stats {
	struct mqtx_txq_stats txq;
	uint64_t xmit;
	uint64_t select_capped;
	uint64_t rx_packets, rx_bytes, rx_drops;
	uint64_t rx_drop_reasons[MQTX_DROP_REASON_MAX];
};

/**
 * mqtx_dev_get_stats() - a snapshot of the device totals (queue by queue, not atomically).
 * Takes the device's config lock, so that a configuration change (a close purging the queues,
 * a graft moving backlogs) is seen whole, or reads under it when the calling thread already
 * holds it (mqtx_dev_config_lock()). Not under a queue lock, which comes after it.
 */
MQTX_API void mqtx_dev_get_stats(struct mqtx_dev *dev, struct mqtx_dev_stats *st);

/** mqtx_txq_stats_drops() - total drops of a snapshot. */
static inline uint64_t mqtx_txq_stats_drops(const struct mqtx_txq_stats *st)
{
	uint64_t n = 0;

	for (int i = 0; i < MQTX_DROP_REASON_MAX; i++)
		n += st->drops[i];
	return n;
}

/* ---- receive (ingress; the rx_queue of Linux 2.6.27) ---- */

/** A receive handler: owns @pkt from here on. */
typedef void (*mqtx_rx_fn)(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg);

/** mqtx_dev_set_rx_handler() - where received packets go (NULL: they are freed and counted). */
MQTX_API void mqtx_dev_set_rx_handler(struct mqtx_dev *dev, mqtx_rx_fn fn, void *arg);

/**
 * mqtx_dev_receive() - a driver hands a received packet up: under the device's rx_queue lock
 * the ingress qdisc (if attached) may drop it; then the handler gets it.
 * Return: MQTX_XMIT_SUCCESS (delivered), or MQTX_XMIT_DROP (counted in rx_drop_reasons).
 */
MQTX_API int mqtx_dev_receive(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

#ifdef __cplusplus
}
#endif
#endif

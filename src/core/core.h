/* SPDX-License-Identifier: MIT */
/* Core internals: the device and TX queue objects and the functions the parts share. */
#ifndef MQTX_CORE_H
#define MQTX_CORE_H

#include <pthread.h>

#include <mqtx/driver.h>
#include <mqtx/qdisc.h>

#include "base/bql.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/rcu.h"
#include "base/tslot.h"

/* Internal state bit: the queue is on an output list (Linux's __QDISC_STATE_SCHED). */
#define MQTX_TXQ_SCHED 0x100u
/* Internal state bit of the queue a qdisc is rooted at, changed under its lock: a run was asked
 * for while another thread ran the qdisc (its lock dropped around a driver call), so the runner
 * dequeues once more before it stops (Linux's __QDISC_STATE_MISSED). Not in the qdisc's flags,
 * which readers holding only the config lock look at. */
#define MQTX_TXQ_MISSED 0x200u

/* Qdisc flag: a graft is moving this qdisc's backlog; enqueuers wait and look again. */
#define MQTX_QF_GRAFTING 0x200u
/* A TX queue's default put back under mq by a delete: Linux leaves its noop qdisc there, which
 * no dump lists; mqtx keeps the queue working and keeps the default out of "qdisc show". */
#define MQTX_QF_HIDDEN 0x400u
/* Not to be run or enqueued to: going down, or being replaced. */
#define MQTX_QF_OUT_OF_SERVICE (MQTX_QF_DEACTIVATED | MQTX_QF_GRAFTING)

/* Counters written by several threads. */
struct mqtx_txq_shared_cnt {
	atomic_ullong drops[MQTX_DROP_REASON_MAX];
	atomic_ullong requeues, stops, wakes;
};

/*
 * One TX queue. Lines: read-mostly pointers; the queue lock (protects the qdisc rooted here)
 * and the thread holding it across a driver call; the busylock (contended enqueuers queue
 * there first); the transmit side (xmit lock, state, counters written under the xmit lock);
 * shared counters; BQL.
 */
struct mqtx_txq {
	struct mqtx_dev *dev;
	struct mqtx_qdisc *_Atomic qdisc;  /* active: read under RCU */
	struct mqtx_qdisc *qdisc_sleeping; /* configured: config lock */
	uint32_t index;

	struct mqtx_spinlock lock __attribute__((aligned(MQTX_CACHE_LINE)));
	atomic_int lock_owner; /* mqtx__tid() of a direct transmit holding @lock, or 0 */

	struct mqtx_spinlock busylock __attribute__((aligned(MQTX_CACHE_LINE)));

	struct mqtx_rawlock xmit_lock __attribute__((aligned(MQTX_CACHE_LINE)));
	atomic_int xmit_owner;
	atomic_uint state;
	struct mqtx_txq *next_sched;
	atomic_ullong packets, bytes, batches, bypass;

	struct mqtx_txq_shared_cnt cnt __attribute__((aligned(MQTX_CACHE_LINE)));

	struct mqtx_dql dql __attribute__((aligned(MQTX_CACHE_LINE)));
} __attribute__((aligned(MQTX_CACHE_LINE)));

/* The layout the comment above promises: pointers every path reads on one line, the queue lock
 * and its owner on the next, the busylock alone, the transmit side (written by the thread
 * holding the xmit lock) on one line, shared counters and BQL each on their own. */
_Static_assert(offsetof(struct mqtx_txq, index) < MQTX_CACHE_LINE, "read-mostly line");
_Static_assert(offsetof(struct mqtx_txq, lock) == 1 * MQTX_CACHE_LINE, "queue lock line");
_Static_assert(offsetof(struct mqtx_txq, lock_owner) < 2 * MQTX_CACHE_LINE, "owner by the lock");
_Static_assert(offsetof(struct mqtx_txq, busylock) == 2 * MQTX_CACHE_LINE, "busylock line");
_Static_assert(offsetof(struct mqtx_txq, xmit_lock) == 3 * MQTX_CACHE_LINE, "xmit line");
_Static_assert(offsetof(struct mqtx_txq, bypass) + sizeof(atomic_ullong) <= 4 * MQTX_CACHE_LINE,
	       "the transmit side fits one line");
_Static_assert(offsetof(struct mqtx_txq, cnt) == 4 * MQTX_CACHE_LINE, "shared counters line");
_Static_assert(offsetof(struct mqtx_txq, dql) % MQTX_CACHE_LINE == 0, "BQL on its own lines");
_Static_assert(sizeof(struct mqtx_txq) % MQTX_CACHE_LINE == 0, "queues do not share lines");

/* Per-thread-slot device counters, summed on read. */
struct mqtx_dev_pcpu {
	atomic_ullong xmit;
	atomic_ullong capped;
} __attribute__((aligned(MQTX_CACHE_LINE)));

struct mqtx_select_hook {
	mqtx_select_fn fn;
	void *arg;
};

struct mqtx_workers;

/* Linux's num_tc, prio_tc_map and tc_to_txq. */
struct mqtx_tc_map {
	uint8_t num_tc;
	uint8_t prio_tc_map[16];
	struct {
		uint16_t count, offset;
	} tc_to_txq[16];
};

/* The qdisc configuration of a device, kept by the qdisc machinery (sched/tree.c) under the
 * config lock; zero is "nothing yet". */
struct mqtx_qtree {
	struct mqtx_qdisc *root; /* an MQROOT qdisc (mq, mqprio), or NULL: queue 0's qdisc */
	const struct mqtx_qdisc_ops *dflt; /* the device's default kind, or NULL: the global one */
	uint32_t autohandle;
};

struct mqtx_dev {
	char name[MQTX_NAME_MAX];
	const struct mqtx_dev_ops *ops;
	struct mqtx_clock *clock;
	uint32_t num_txq;
	_Atomic uint32_t real_num_txq; /* changes under traffic (config lock): read it once */
	uint32_t tx_queue_len, mtu, quota, flags;
	atomic_bool up;
	void *ml_priv;
	size_t priv_size;
	struct mqtx_txq *txq;

	pthread_mutex_t config_lock;	/* every configuration change; first in lock order */
	_Atomic uintptr_t config_owner; /* the holder's token (dev.c), 0: none */
	pthread_mutex_t tx_global_lock; /* lock_all / unlock_all */

	struct mqtx_hasher *_Atomic hasher;	      /* RCU */
	struct mqtx_select_hook *_Atomic select_hook; /* RCU */
	struct mqtx_xps *_Atomic xps;		      /* RCU: XPS map per CPU (xps.c) */
	struct mqtx_flow_cache *_Atomic flows;	      /* RCU: queue per flow (xps.c) */
	atomic_bool steered; /* either of the two is set: the picker looks at them */
	struct mqtx_hook *_Atomic hooks[MQTX_HOOK_MAX]; /* RCU: clsact, mqprio filters */

	/* Traffic classes (mqprio), published by RCU: the picker reads @tc; a writer fills the
	 * slot not in use and swaps (see dev_tc.c). NULL: no classes. */
	struct mqtx_tc_map *_Atomic tc;
	struct mqtx_tc_map tc_slot[2];
	struct mqtx_qtree qtree; /* the qdisc configuration */

	struct {
		struct mqtx_spinlock lock;
		struct mqtx_qdisc *qdisc;
		mqtx_rx_fn fn;
		void *arg;
		atomic_ullong packets, bytes;
		atomic_ullong drops[MQTX_DROP_REASON_MAX];
	} rxq;

	struct mqtx_workers *_Atomic workers; /* RCU: schedulers read it, stop frees it */
	/* How a scheduled queue is run: the transmit path's run loop (xmit.c), set at creation.
	 * Through this pointer the scheduler (softnet.c) does not depend on the path that calls
	 * it. */
	void (*run_qdisc)(struct mqtx_qdisc *q);

	/* mqtx_dev_fail(): the first error since open, and the thread that closes the device. */
	atomic_int fail_err;
	pthread_mutex_t fail_lock;
	pthread_t fail_thread;
	bool fail_thread_live, dying;
	struct mqtx_dev_pcpu pcpu[MQTX_MAX_TSLOTS + 1]; /* last: threads without a slot */
};

static inline size_t mqtx__dev_priv_offset(void)
{
	return ALIGN_UP(sizeof(struct mqtx_dev), MQTX_CACHE_LINE);
}

/* Add @n to a per-thread device counter: a single-writer add in the thread's own slot, an
 * atomic one in the slot shared by threads that have none. */
#define MQTX_DEV_PCPU_ADD(dev, field, n)                                              \
	do {                                                                          \
		int s_ = mqtx__tslot();                                               \
		if (likely(s_ >= 0))                                                  \
			MQTX_CNT_ADD((dev)->pcpu[s_].field, (n));                     \
		else                                                                  \
			MQTX_CNT_INC_SHARED((dev)->pcpu[MQTX_MAX_TSLOTS].field, (n)); \
	} while (0)

static inline bool mqtx__txq_frozen_or_stopped(const struct mqtx_txq *txq)
{
	return atomic_load_explicit(&txq->state, memory_order_acquire) &
	       (MQTX_TXQ_ANY_XOFF | MQTX_TXQ_FROZEN);
}

/* The lock protecting @q: the one of the TX queue it is rooted at. */
static inline struct mqtx_spinlock *mqtx__qdisc_lock(struct mqtx_qdisc *q)
{
	return &q->dev_queue->lock;
}

/* flowhash.c: @pkt's flow hash, computed once and kept in it (read section held): false for a
 * frame without a flow. */
bool mqtx__pkt_hash(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/* xps.c: XPS and the flow cache of the default picker (see there); free both (device
 * destroyed). */
#define MQTX_FLOW_NONE	(-1)
#define MQTX_FLOW_NEW	(-2)
#define MQTX_FLOW_TAKEN (-3)
int mqtx__xps_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t qoffset, uint32_t qcount);
int mqtx__flow_cached(struct mqtx_dev *dev, struct mqtx_pkt *pkt, uint32_t real);
uint16_t mqtx__flow_claim(struct mqtx_dev *dev, const struct mqtx_pkt *pkt, uint16_t q);
void mqtx__xps_release(struct mqtx_dev *dev);

/* hook.c: run the transmit hooks on @pkt (read section held): MQTX_HOOK_PASS, or _DROP or
 * _STOLEN when one took it (counted). */
int mqtx__run_hooks(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

static inline bool mqtx__hooked(struct mqtx_dev *dev)
{
	for (unsigned p = 0; p < MQTX_HOOK_MAX; p++)
		if (atomic_load_explicit(&dev->hooks[p], memory_order_relaxed))
			return true;
	return false;
}

/*
 * forward.c: mqtx__forward() - have @pkt (owned from here on) given to @send on @to
 * (mqtx_dev_xmit or mqtx_dev_receive) when this thread's outermost transmit or receive call
 * ends. Inside one only. Those calls are sections of mqtx__fwd_depth: mqtx__fwd_leave() sends
 * what collected.
 */
typedef int (*mqtx__send_fn)(struct mqtx_dev *dev, struct mqtx_pkt *pkt);
void mqtx__forward(struct mqtx_dev *to, struct mqtx_pkt *pkt, mqtx__send_fn send);
/* The same without the redirect's changes: @pkt keeps its queue and hash (inside a transmit or
 * receive call only). */
void mqtx__defer(struct mqtx_dev *to, struct mqtx_pkt *pkt, mqtx__send_fn send);
void mqtx__forward_flush(void);
extern MQTX_TLS unsigned mqtx__fwd_depth;
extern MQTX_TLS struct mqtx_pkt *mqtx__fwd_head;

static inline void mqtx__fwd_enter(void)
{
	mqtx__fwd_depth++;
}

static inline void mqtx__fwd_leave(void)
{
	if (unlikely(mqtx__fwd_head != NULL) && mqtx__fwd_depth == 1)
		mqtx__forward_flush();
	mqtx__fwd_depth--;
}

/* select.c */
uint16_t mqtx__select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt);
/* The commit half of mqtx_dev_set_hash(): publish @h (owned from here on), free the old
 * hasher after a grace period. Cannot fail. */
void mqtx__dev_swap_hasher(struct mqtx_dev *dev, struct mqtx_hasher *h);

/* xmit.c */
void mqtx__qdisc_run(struct mqtx_qdisc *q);
extern MQTX_TLS int mqtx__xmit_depth;
/* Set while a receive-side qdisc runs on this thread (Linux's skb->tc_at_ingress): its filters'
 * actions count the packet from the network header, as Linux's skb->len is there. */
extern MQTX_TLS bool mqtx__tc_at_ingress;
/* mqtx_dev_xmit_burst(), and in @bytes the length of what it accepted, packet by packet where
 * a filter, a selector or the qdisc's enqueue refused some (the generator's byte counts). */
unsigned mqtx__dev_xmit_burst_bytes(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n,
				    uint64_t *bytes);

/* dev_tc.c: netif_setup_tc(): the real queue count becomes @n. Config lock held. */
void mqtx__dev_setup_tc(struct mqtx_dev *dev, uint32_t n);

/* softnet.c */
void mqtx__sched_forget_dev(struct mqtx_dev *dev);

/* noop.c: the qdisc of every queue of a device that is down. */
extern struct mqtx_qdisc mqtx__noop_qdisc;

/* txq.c: count and free a list of dropped packets (@reason, or MQTX_DROP_KEEP: each one's own
 * mark); returns how many. */
#define MQTX_DROP_KEEP (-1)
unsigned mqtx__drops_free(struct mqtx_dev *dev, struct mqtx_pkt *list, int reason);
void mqtx__count_drop(struct mqtx_txq *txq, enum mqtx_drop_reason r, uint64_t n);

/* dev.c */
void mqtx__qdisc_wait_idle(struct mqtx_qdisc *q);
/* config.c: the config lock, recording its holder; mqtx__config_held(): whether this thread
 * holds it (a reader of counters the caller may call with it held, mqtx_dev_config_lock()). */
void mqtx__config_lock(struct mqtx_dev *dev);
void mqtx__config_unlock(struct mqtx_dev *dev);
bool mqtx__config_held(struct mqtx_dev *dev);

/* qdisc_end.c */
/**
 * mqtx__qtree_clear() - a down device's root deleted: every queue back to no qdisc (Linux's
 * noop, which no dump lists), the root freed; mqtx_dev_open() attaches the defaults. Config
 * lock held, the device down. Cannot fail.
 */
void mqtx__qtree_clear(struct mqtx_dev *dev);

/** mqtx__qtree_release() - mqtx_dev_destroy(): free the root object (children are freed with
 *  their TX queues). */
void mqtx__qtree_release(struct mqtx_dev *dev);

/*
 * The one call up the layers (scripts/layers, KNOT): mqtx_dev_open() attaches the default
 * qdiscs, as Linux's dev_open() -> dev_activate() -> attach_default_qdiscs() does. The plan is
 * the sched layer's (sched/plan.c, sched/default.c); nothing else in core calls above it.
 */
/**
 * struct mqtx_qplan - a prepared change of every TX queue's qdisc: all new objects exist, none
 * is attached yet. Commit it (cannot fail) or abort it (frees what it made).
 * @qs, @old: per-queue new and old qdiscs (2 * num_txq slots).
 * @root: the new MQROOT object, or NULL. @single: a new qdisc shared by every queue, or NULL.
 */
struct mqtx_qplan {
	struct mqtx_qdisc **qs, **old;
	struct mqtx_qdisc *root;
	struct mqtx_qdisc *single;
};

/**
 * mqtx__qtree_prepare_defaults() - prepare what mqtx_dev_open() attaches when the queues have
 * no qdisc: mq at the root of a multiqueue device, the default kind on each queue otherwise,
 * noqueue for MQTX_DEV_F_NO_QUEUE. Changes nothing. Config lock held. Return: 0 or -ENOMEM.
 */
int mqtx__qtree_prepare_defaults(struct mqtx_dev *dev, struct mqtx_qplan *pl);

/** mqtx__qtree_commit() - attach a prepared plan (grafting under traffic). Cannot fail. */
void mqtx__qtree_commit(struct mqtx_dev *dev, struct mqtx_qplan *pl);

/** mqtx__qtree_abort() - free a prepared plan that will not be committed. */
void mqtx__qtree_abort(struct mqtx_dev *dev, struct mqtx_qplan *pl);

#endif

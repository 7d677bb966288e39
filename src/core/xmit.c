// SPDX-License-Identifier: MIT
/* The transmit path: enqueue under the queue lock, bypass, the qdisc run loop, hand-off to
 * the driver under the xmit lock, requeue at the head (Linux's net/core/dev.c and
 * net/sched/sch_generic.c). */
#include "core/core.h"

#define MAX_BATCH 64
#define SLOW_BULK 8 /* a qdisc shared by several queues bulks at most this many (Linux) */

MQTX_TLS int mqtx__xmit_depth;

static void drop_pkts(struct mqtx_txq *txq, struct mqtx_pkt **pkts, unsigned n,
		      enum mqtx_drop_reason r)
{
	mqtx__count_drop(txq, r, n);
	mqtx_pkt_free_bulk(pkts, n);
}

/* A selector said to drop @pkt (MQTX_TXQ_DROP): counted with its reason on its queue. */
static void drop_selected(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	unsigned r = pkt->drop_reason;

	drop_pkts(&dev->txq[pkt->queue_mapping], &pkt, 1,
		  r < MQTX_DROP_REASON_MAX ? (enum mqtx_drop_reason)r : MQTX_DROP_QDISC);
}

/*
 * The bytes a burst had refused, for mqtx__dev_xmit_burst_bytes(): packets dropped by a filter
 * or selector, or by the qdisc's enqueue, each by its own length. Only the packets of the call
 * that asked are counted (at its depth), not those a driver or a redirect sends from inside it.
 */
static MQTX_TLS uint64_t *refused_bytes;
static MQTX_TLS int refused_depth;
static MQTX_TLS bool refused_counted; /* enqueue_pkts() counted the batch, one by one */

static inline bool counting_refused(void)
{
	return unlikely(refused_bytes != NULL) && mqtx__xmit_depth == refused_depth;
}

/* Taken by the current xmit_burst of this thread and dropped by the driver. */
static MQTX_TLS unsigned mqtx__drop_taken_n;
static MQTX_TLS uint64_t mqtx__drop_taken_bytes;

void mqtx_txq_drop_taken(struct mqtx_txq *txq, struct mqtx_pkt *pkt, enum mqtx_drop_reason reason)
{
	mqtx__drop_taken_n++;
	mqtx__drop_taken_bytes += pkt->len;
	mqtx_txq_count_drop(txq, reason, 1);
	mqtx_pkt_free(pkt);
}

/* Xmit lock held: count what the driver took, less what it took and dropped. */
static void sent_dropped(struct mqtx_txq *txq, unsigned sent, uint64_t bytes)
{
	MQTX_CNT_ADD(txq->packets, sent - mqtx__drop_taken_n);
	MQTX_CNT_ADD(txq->bytes, bytes - mqtx__drop_taken_bytes);
	mqtx__drop_taken_n = 0;
	mqtx__drop_taken_bytes = 0;
}

/*
 * Give @pkts to the driver of @txq under its xmit lock unless the queue is stopped or frozen.
 * Returns how many the driver took, and their bytes in *@bytes.
 */
static unsigned hard_xmit(struct mqtx_txq *txq, struct mqtx_pkt **pkts, unsigned n, bool more,
			  uint64_t *bytes)
{
	struct mqtx_dev *dev = txq->dev;
	uint32_t cum[MAX_BATCH + 1];
	unsigned sent = 0;

	/* Lengths first: once the driver owns a packet it may already have freed it. */
	cum[0] = 0;
	for (unsigned i = 0; i < n; i++)
		cum[i + 1] = cum[i] + pkts[i]->len;
	mqtx_raw_lock(&txq->xmit_lock);
	atomic_store_explicit(&txq->xmit_owner, mqtx__tid(), memory_order_relaxed);
	if (!mqtx__txq_frozen_or_stopped(txq)) {
		sent = dev->ops->xmit_burst(dev, txq, pkts, n, more);
		if (unlikely(sent > n))
			sent = n;
		/* What the driver took and dropped (mqtx_txq_drop_taken) is a drop, not a send.
		 * Rare: the counts are reset only when there was one. */
		if (unlikely(mqtx__drop_taken_n)) {
			sent_dropped(txq, sent, cum[sent]);
		} else {
			MQTX_CNT_ADD(txq->packets, sent);
			MQTX_CNT_ADD(txq->bytes, cum[sent]);
		}
		MQTX_CNT_ADD(txq->batches, 1u);
	}
	atomic_store_explicit(&txq->xmit_owner, 0, memory_order_relaxed);
	mqtx_raw_unlock(&txq->xmit_lock);
	*bytes = cum[sent];
	return sent;
}

/* Lock held. Put @pkts back at the head of @q in order; they go out before anything else. */
static void requeue_head(struct mqtx_qdisc *q, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool count)
{
	for (unsigned i = n; i-- > 0;)
		mqtx_pkt_list_add_head(&q->requeue, pkts[i]);
	if (count) {
		q->requeues += n;
		MQTX_CNT_INC_SHARED(txq->cnt.requeues, n);
	}
}

/* Lock held. The driver took only part of a batch: the rest goes back to the head. A stopped
 * queue is run again by its wake; a busy one (refused without stopping) must be retried. */
static void requeue_refused(struct mqtx_qdisc *q, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			    unsigned n)
{
	requeue_head(q, txq, pkts, n, true);
	if (!mqtx__txq_frozen_or_stopped(txq))
		mqtx_txq_schedule(txq);
}

/*
 * Lock held. Take the next batch for one TX queue: requeued packets first (never overtaken),
 * then from the qdisc, bounded by @max, by BQL's byte budget for a one-queue qdisc, and by
 * SLOW_BULK packets of one queue for a qdisc shared by several (the first packet for another
 * queue waits at the head). Returns 0 when nothing may be sent now. *@held: the batch ended on
 * a dequeue that Linux would not have made there, and the qdisc held its packets back.
 */
static unsigned dequeue_batch(struct mqtx_qdisc *q, struct mqtx_pkt **pkts, unsigned max,
			      struct mqtx_txq **txqp, bool *held)
{
	struct mqtx_dev *dev = q->dev;
	bool one = q->flags & MQTX_QF_ONETXQUEUE;
	struct mqtx_txq *txq;
	struct mqtx_pkt *pkt;
	int64_t budget = INT64_MAX;
	unsigned n = 0;

	if (q->requeue.head) {
		txq = &dev->txq[q->requeue.head->queue_mapping];
		if (mqtx__txq_frozen_or_stopped(txq))
			return 0;
		while (n < max && q->requeue.head && q->requeue.head->queue_mapping == txq->index)
			pkts[n++] = mqtx_pkt_list_pop(&q->requeue);
		*txqp = txq;
		return n;
	}
	if (one && mqtx__txq_frozen_or_stopped(q->dev_queue))
		return 0;
	pkt = q->ops->dequeue(q);
	if (!pkt)
		return 0;
	txq = &dev->txq[pkt->queue_mapping];
	if (!one && mqtx__txq_frozen_or_stopped(txq)) {
		requeue_head(q, txq, &pkt, 1, false);
		return 0;
	}
	pkts[n++] = pkt;
	if (!one && max > SLOW_BULK)
		max = SLOW_BULK;
	if (one && (dev->flags & MQTX_DEV_F_BQL))
		budget = mqtx__dql_avail(&txq->dql);
	budget -= pkt->len;
	while (n < max && budget > 0) {
		pkt = q->ops->dequeue(q);
		if (!pkt) {
			/* Linux bulks a one-queue qdisc only within a BQL budget
			 * (qdisc_avail_bulklimit() is 0 without BQL); mqtx batches anyway. */
			*held = one && !(dev->flags & MQTX_DEV_F_BQL) && q->qlen;
			break;
		}
		if (pkt->queue_mapping != txq->index) {
			requeue_head(q, txq, &pkt, 1, false);
			break;
		}
		pkts[n++] = pkt;
		budget -= pkt->len;
	}
	*txqp = txq;
	return n;
}

/*
 * Lock held and q->running owned by the caller. Send until the quota is used, the qdisc is
 * empty, or the driver refuses; the lock is dropped around each driver call.
 */
static void qdisc_restart(struct mqtx_qdisc *q)
{
	struct mqtx_spinlock *lock = mqtx__qdisc_lock(q);
	int quota = (int)q->dev->quota;
	struct mqtx_pkt *pkts[MAX_BATCH];
	struct mqtx_txq *txq;
	unsigned n, sent;
	uint64_t bytes;
	bool more, held;
	uint32_t qlen;

	while (quota > 0 && !(q->flags & MQTX_QF_OUT_OF_SERVICE)) {
		held = false;
		if (atomic_load_explicit(&q->dev_queue->state, memory_order_relaxed) &
		    MQTX_TXQ_MISSED) /* this dequeue answers a run asked for until now */
			atomic_fetch_and(&q->dev_queue->state, ~MQTX_TXQ_MISSED);
		n = dequeue_batch(q, pkts, quota < MAX_BATCH ? (unsigned)quota : MAX_BATCH, &txq,
				  &held);
		if (!n)
			return;
		more = q->qlen || q->requeue.len;
		qlen = q->qlen;
		mqtx_spin_unlock(lock);
		sent = hard_xmit(txq, pkts, n, more, &bytes);
		mqtx_spin_lock(lock);
		q->packets += sent;
		q->bytes += bytes;
		quota -= (int)n;
		if (sent < n) {
			requeue_refused(q, txq, pkts + sent, n - sent);
			return;
		}
		/*
		 * The batch ended on a qdisc holding its packets back (a shaper out of tokens,
		 * its watchdog armed) where Linux's run, one packet at a time, would have ended
		 * at that same dequeue. Asking again with nothing new queued would only count
		 * a second overlimit that Linux does not. Unless a scheduled run came meanwhile
		 * (the watchdog armed by that dequeue fired during the driver call): it found us
		 * running and left, and nobody would ask the qdisc again.
		 */
		if (held && q->qlen == qlen &&
		    !(atomic_load_explicit(&q->dev_queue->state, memory_order_relaxed) &
		      MQTX_TXQ_MISSED))
			return;
	}
	if (quota <= 0 && (q->qlen || q->requeue.len))
		mqtx_txq_schedule(q->dev_queue);
}

/* q->running is written under the queue lock and read without it by an enqueuer deciding
 * whether to queue on the busylock first: relaxed atomics, a hint only. */
static inline void set_running(struct mqtx_qdisc *q, bool on)
{
	__atomic_store_n(&q->running, on, __ATOMIC_RELAXED);
}

static inline bool is_running(struct mqtx_qdisc *q)
{
	return __atomic_load_n(&q->running, __ATOMIC_RELAXED);
}

/* Lock held, qdisc in service. Run it unless another thread already is (one dequeuer). */
static void qdisc_run_locked(struct mqtx_qdisc *q)
{
	if (q->running)
		return;
	set_running(q, true);
	qdisc_restart(q);
	set_running(q, false);
}

void mqtx__qdisc_run(struct mqtx_qdisc *q)
{
	struct mqtx_spinlock *lock;

	if (!q->ops->enqueue)
		return;
	lock = mqtx__qdisc_lock(q);
	mqtx_spin_lock(lock);
	if (q->running) /* the runner is in the driver: it goes round again */
		atomic_fetch_or(&q->dev_queue->state, MQTX_TXQ_MISSED);
	else if (!(q->flags & MQTX_QF_OUT_OF_SERVICE))
		qdisc_run_locked(q);
	mqtx_spin_unlock(lock);
}

/* A queue without a qdisc (noqueue): straight to the driver; what it refuses is dropped. */
static unsigned noqueue_xmit(struct mqtx_txq *txq, struct mqtx_pkt **pkts, unsigned n)
{
	uint64_t bytes;
	unsigned sent;

	if (atomic_load_explicit(&txq->xmit_owner, memory_order_relaxed) == mqtx__tid()) {
		/* Linux: "Dead loop on virtual device, fix it urgently!" */
		mqtx_warn("dead loop on device %s queue %u", txq->dev->name, txq->index);
		drop_pkts(txq, pkts, n, MQTX_DROP_RECURSION);
		return 0;
	}
	/* Senders that find the driver busy queue on the busylock, which parks, so that at most
	 * one of them polls the xmit lock (see struct mqtx_rawlock). */
	if (mqtx_raw_is_locked(&txq->xmit_lock)) {
		mqtx_spin_lock(&txq->busylock);
		sent = hard_xmit(txq, pkts, n, false, &bytes);
		mqtx_spin_unlock(&txq->busylock);
	} else {
		sent = hard_xmit(txq, pkts, n, false, &bytes);
	}
	MQTX_CNT_ADD(txq->bypass, sent);
	if (sent < n)
		drop_pkts(txq, pkts + sent, n - sent, MQTX_DROP_NOQUEUE);
	return sent;
}

/* Queue locks this thread holds across a driver call (direct transmits, nested through
 * drivers that send): while there is one, this thread never waits for another. */
static MQTX_TLS unsigned direct_held;

/*
 * Lock held, qdisc in service: run it, unless this thread holds another queue's lock across a
 * driver call. A run drops this lock around each driver call and waits to take it again, and
 * waiting for it while holding the other inverts the lock order (a graft and
 * mqtx_dev_lock_all_queues() hold every queue lock, taken in index order). The queue runs
 * when this thread's outermost section ends, with no lock held, or its runner goes on.
 */
static void run_or_schedule(struct mqtx_qdisc *q)
{
	if (likely(!direct_held))
		qdisc_run_locked(q);
	else if (!q->running)
		mqtx_txq_schedule(q->dev_queue);
}

/*
 * Lock held; the qdisc is empty, in service and not running, the queue neither stopped nor
 * frozen. The driver gets @pkts with the queue lock still held: there is no moment in which
 * the qdisc is RUNNING with the lock free, so a sender that arrives meanwhile waits for the
 * lock instead of enqueueing behind us, then finds the qdisc empty and sends its own packets.
 * No packet is handed to another core to be sent, and senders feel a ready driver's pace as
 * backpressure, not as qdisc drops. The lock's owner is recorded for re-entry (txq_xmit()).
 */
static void direct_xmit(struct mqtx_qdisc *q, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			unsigned n)
{
	struct mqtx_txq *lt = q->dev_queue;
	uint64_t bytes;
	unsigned sent;

	atomic_store_explicit(&lt->lock_owner, mqtx__tid(), memory_order_relaxed);
	direct_held++;
	sent = hard_xmit(txq, pkts, n, false, &bytes);
	direct_held--;
	atomic_store_explicit(&lt->lock_owner, 0, memory_order_relaxed);
	MQTX_CNT_ADD(txq->bypass, sent);
	q->packets += sent;
	q->bytes += bytes;
	if (sent < n)
		requeue_refused(q, txq, pkts + sent, n - sent);
	else if (q->qlen)
		run_or_schedule(q); /* what our driver sent back into this qdisc meanwhile */
}

/* Lock held: enqueue @pkts; returns how many @q accepted, *@rc the last enqueue's result. */
static unsigned enqueue_pkts(struct mqtx_qdisc *q, struct mqtx_pkt **pkts, unsigned n, int *rc,
			     struct mqtx_pkt **to_free)
{
	bool counting = counting_refused();
	unsigned accepted = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t len = pkts[i]->len; /* once enqueued, the packet is the qdisc's */

		*rc = q->ops->enqueue(q, pkts[i], to_free);
		accepted += *rc != MQTX_XMIT_DROP;
		if (unlikely(counting) && *rc == MQTX_XMIT_DROP)
			*refused_bytes += len;
	}
	/* Only a counting burst reads it, having cleared it first: no store on any other. */
	if (unlikely(counting))
		refused_counted = true;
	return accepted;
}

/* Lock held, qdisc in service: send directly if it may be bypassed, else enqueue and run it
 * (run_or_schedule()). */
static unsigned xmit_locked(struct mqtx_qdisc *q, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			    unsigned n, int *rc, struct mqtx_spinlock *busy,
			    struct mqtx_pkt **to_free)
{
	unsigned accepted = 0;

	if ((q->flags & MQTX_QF_CAN_BYPASS) && !q->qlen && !q->requeue.len && !q->running &&
	    !mqtx__txq_frozen_or_stopped(txq)) {
		if (unlikely(busy))
			mqtx_spin_unlock(busy);
		direct_xmit(q, txq, pkts, n);
		*rc = MQTX_XMIT_SUCCESS;
		return n;
	}
	accepted = enqueue_pkts(q, pkts, n, rc, to_free);
	/* Linux's __dev_xmit_skb(): the busylock is let go before this thread runs the qdisc,
	 * so that the next enqueuer is the only rival the runner's relocks meet. */
	if (unlikely(busy))
		mqtx_spin_unlock(busy);
	run_or_schedule(q);
	return accepted;
}

/* Lock held by this thread's outer direct transmit (its driver sent into the same qdisc): the
 * qdisc is consistent and empty but for what we add; the outer call runs it once its driver
 * call returns. */
static unsigned reenter_xmit(struct mqtx_qdisc *q, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			     unsigned n, int *rc)
{
	struct mqtx_pkt *to_free = NULL;
	unsigned accepted = 0;

	if (unlikely(q->flags & MQTX_QF_OUT_OF_SERVICE)) {
		drop_pkts(txq, pkts, n, MQTX_DROP_RECURSION);
		*rc = MQTX_XMIT_DROP;
		return 0;
	}
	accepted = enqueue_pkts(q, pkts, n, rc, &to_free);
	if (unlikely(to_free != NULL))
		mqtx__drops_free(txq->dev, to_free, MQTX_DROP_KEEP);
	return accepted;
}

static int xmit_deferred(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/* This thread holds an xmit lock of @dev: it is inside one of @dev's driver calls, perhaps as
 * the runner of a qdisc that a graft is waiting for. Asked only on the rare path. */
static bool in_driver_of(struct mqtx_dev *dev)
{
	int tid = mqtx__tid();

	for (uint32_t i = 0; i < dev->num_txq; i++)
		if (atomic_load_explicit(&dev->txq[i].xmit_owner, memory_order_relaxed) == tid)
			return true;
	return false;
}

/* Nested in a direct transmit, the queue lock taken by someone else: the packets go when the
 * outermost section ends, with no lock held (and count one more hop, as a redirect does). */
static unsigned defer_xmit(struct mqtx_txq *txq, struct mqtx_pkt **pkts, unsigned n, int *rc)
{
	unsigned accepted = 0;

	for (unsigned i = 0; i < n; i++) {
		if (unlikely(pkts[i]->redirects >= MQTX_XMIT_RECURSION_MAX)) {
			drop_pkts(txq, &pkts[i], 1, MQTX_DROP_RECURSION);
			continue;
		}
		pkts[i]->redirects++;
		mqtx__defer(txq->dev, pkts[i], xmit_deferred);
		accepted++;
	}
	*rc = accepted ? MQTX_XMIT_SUCCESS : MQTX_XMIT_DROP;
	return accepted;
}

/*
 * Send @n packets that all selected @txq. Returns how many were accepted; *@rc gets the
 * result of the last enqueue (for the single-packet call).
 *
 * A thread that holds a queue lock across a driver call (direct_held) never waits for a
 * queue lock: two threads whose drivers send into each other's devices would deadlock. Into
 * the qdisc whose lock it holds itself it enqueues (reenter_xmit()); a free lock it takes; a
 * taken one, or any once something of this section waits already (order), defers.
 */
static unsigned txq_xmit(struct mqtx_txq *txq, struct mqtx_pkt **pkts, unsigned n, int *rc)
{
	struct mqtx_qdisc *q = atomic_load_explicit(&txq->qdisc, memory_order_acquire);
	struct mqtx_spinlock *lock, *busy;
	struct mqtx_pkt *to_free = NULL;
	bool grafting = false;
	unsigned accepted;

	for (;;) {
		if (unlikely(q == &mqtx__noop_qdisc)) {
			/* The device is down (or going down): noop queues nothing. */
			drop_pkts(txq, pkts, n, MQTX_DROP_DOWN);
			*rc = MQTX_XMIT_DROP;
			return 0;
		}
		if (!q->ops->enqueue) {
			accepted = noqueue_xmit(txq, pkts, n);
			*rc = accepted ? MQTX_XMIT_SUCCESS : MQTX_XMIT_DROP;
			return accepted;
		}
		lock = mqtx__qdisc_lock(q);
		busy = NULL;
		if (unlikely(direct_held)) {
			if (atomic_load_explicit(&q->dev_queue->lock_owner, memory_order_relaxed) ==
			    mqtx__tid())
				return reenter_xmit(q, txq, pkts, n, rc);
			if (mqtx__fwd_head || !mqtx_spin_trylock(lock))
				return defer_xmit(txq, pkts, n, rc);
		} else {
			/* A runner is in the driver: queue behind the other enqueuers first. */
			if (is_running(q)) {
				busy = &q->dev_queue->busylock;
				mqtx_spin_lock(busy);
			}
			mqtx_spin_lock(lock);
		}
		if (likely(!(q->flags & MQTX_QF_OUT_OF_SERVICE)))
			break;
		/*
		 * Being replaced, and this thread is inside a driver call: it may be the runner
		 * the graft waits for (mqtx__qdisc_wait_idle()), or hold a queue lock the graft
		 * takes next, so waiting for the new qdisc would never end. The graft moves what
		 * the old one holds into the new one, in order: queue the packets there.
		 */
		if (!(q->flags & MQTX_QF_DEACTIVATED) && (direct_held || in_driver_of(txq->dev))) {
			grafting = true;
			break;
		}
		/* Being replaced or taken down: follow the queue's current qdisc. */
		mqtx_spin_unlock(lock);
		if (busy)
			mqtx_spin_unlock(busy);
		mqtx_cpu_relax();
		q = atomic_load_explicit(&txq->qdisc, memory_order_acquire);
	}
	if (unlikely(grafting)) {
		if (busy)
			mqtx_spin_unlock(busy);
		accepted = enqueue_pkts(q, pkts, n, rc, &to_free);
	} else {
		accepted = xmit_locked(q, txq, pkts, n, rc, busy, &to_free);
	}
	mqtx_spin_unlock(lock);
	if (unlikely(to_free != NULL))
		mqtx__drops_free(txq->dev, to_free, MQTX_DROP_KEEP);
	return accepted;
}

/* Enter a transmit section without counting the packets as handed to the device again. */
static bool xmit_nest(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n)
{
	if (unlikely(mqtx__xmit_depth >= MQTX_XMIT_RECURSION_MAX)) {
		mqtx_warn("dead loop on device %s: transmit nested too deeply", dev->name);
		drop_pkts(&dev->txq[0], pkts, n, MQTX_DROP_RECURSION);
		return false;
	}
	mqtx__xmit_depth++;
	mqtx__bh_disable();
	mqtx__rcu_read_lock();
	mqtx__fwd_enter();
	return true;
}

static bool xmit_enter(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n)
{
	MQTX_DEV_PCPU_ADD(dev, xmit, n);
	return xmit_nest(dev, pkts, n);
}

static void xmit_leave(void)
{
	mqtx__fwd_leave(); /* what filters sent to other devices goes now, in this section */
	mqtx__rcu_read_unlock();
	mqtx__xmit_depth--;
	mqtx__bh_enable(); /* runs what this transmit scheduled */
}

/* A packet deferred by defer_xmit(): its queue was chosen, its hooks have run. */
static int xmit_deferred(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	int rc = MQTX_XMIT_DROP;

	if (!xmit_nest(dev, &pkt, 1))
		return MQTX_XMIT_DROP;
	txq_xmit(&dev->txq[pkt->queue_mapping], &pkt, 1, &rc);
	xmit_leave();
	return rc;
}

int mqtx_dev_xmit(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	int rc = MQTX_XMIT_DROP, hook;
	uint16_t qi;

	if (!xmit_enter(dev, &pkt, 1))
		return MQTX_XMIT_DROP;
	if (unlikely(mqtx__hooked(dev)) && (hook = mqtx__run_hooks(dev, pkt))) {
		xmit_leave();
		return hook == MQTX_HOOK_STOLEN ? MQTX_XMIT_SUCCESS : MQTX_XMIT_DROP;
	}
	qi = mqtx__select_queue(dev, pkt);
	if (unlikely(qi == MQTX_TXQ_DROP))
		drop_selected(dev, pkt);
	else
		txq_xmit(&dev->txq[qi], &pkt, 1, &rc);
	xmit_leave();
	return rc;
}

/* Split @n (≤ MAX_BATCH) selected packets into runs per queue, keeping their order within a
 * queue (so within a flow), and send each run with one lock hold. */
/* txq_xmit(), and the bytes it refused when a burst counts them: each packet's where the
 * qdisc's enqueue said (enqueue_pkts()), a share of the batch on the other paths, which
 * refuse a batch whole or nearly (a device going down, noqueue on a stopped queue). */
static unsigned txq_xmit_acct(struct mqtx_txq *txq, struct mqtx_pkt **pkts, unsigned n, int *rc)
{
	uint64_t bytes = 0;
	unsigned ok;

	if (likely(!counting_refused()))
		return txq_xmit(txq, pkts, n, rc);
	for (unsigned i = 0; i < n; i++)
		bytes += pkts[i]->len;
	refused_counted = false;
	ok = txq_xmit(txq, pkts, n, rc);
	if (ok < n && !refused_counted)
		*refused_bytes += bytes - bytes / n * ok;
	return ok;
}

static unsigned xmit_chunk(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n)
{
	struct mqtx_pkt *sorted[MAX_BATCH], *kept[MAX_BATCH];
	uint16_t qi[MAX_BATCH];
	unsigned accepted = 0, i, j, m = 0;
	bool one = true, hooked = mqtx__hooked(dev);
	int rc;

	for (i = 0; i < n; i++) {
		uint16_t q = MQTX_TXQ_DROP;
		uint32_t len = pkts[i]->len; /* a hook may consume the packet */
		int taken = unlikely(hooked) ? mqtx__run_hooks(dev, pkts[i]) : MQTX_HOOK_PASS;

		if (likely(!taken))
			q = mqtx__select_queue(dev, pkts[i]);
		if (unlikely(q == MQTX_TXQ_DROP)) {
			/* Taken by a hook or dropped by its selector: the rest go on without it
			 * (not in the caller's array, which stays as it was given). */
			if (pkts != kept) {
				memcpy(kept, pkts, n * sizeof(*pkts));
				pkts = kept;
			}
			if (taken != MQTX_HOOK_STOLEN && counting_refused())
				*refused_bytes += len;
			if (!taken)
				drop_selected(dev, kept[i]);
			accepted += taken == MQTX_HOOK_STOLEN;
			continue;
		}
		pkts[m] = pkts[i];
		qi[m++] = q;
		one &= q == qi[0];
	}
	n = m;
	if (!n)
		return accepted;
	if (one)
		return accepted + txq_xmit_acct(&dev->txq[qi[0]], pkts, n, &rc);
	/* Few distinct queues per chunk: gather each queue's packets in one pass per queue. */
	for (i = 0; i < n; i++) {
		unsigned cnt = 0;
		uint16_t cur = qi[i];

		if (cur == UINT16_MAX)
			continue;
		for (j = i; j < n; j++) {
			if (qi[j] == cur) {
				sorted[cnt++] = pkts[j];
				qi[j] = UINT16_MAX;
			}
		}
		accepted += txq_xmit_acct(&dev->txq[cur], sorted, cnt, &rc);
	}
	return accepted;
}

unsigned mqtx_dev_xmit_burst(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n)
{
	unsigned accepted = 0;

	if (!n)
		return 0;
	if (!xmit_enter(dev, pkts, n))
		return 0;
	for (unsigned off = 0; off < n; off += MAX_BATCH)
		accepted += xmit_chunk(dev, pkts + off, n - off < MAX_BATCH ? n - off : MAX_BATCH);
	xmit_leave();
	return accepted;
}

unsigned mqtx__dev_xmit_burst_bytes(struct mqtx_dev *dev, struct mqtx_pkt **pkts, unsigned n,
				    uint64_t *bytes)
{
	uint64_t offered = 0, refused = 0;
	unsigned ok;

	for (unsigned i = 0; i < n; i++)
		offered += pkts[i]->len;
	refused_bytes = &refused;
	refused_depth = mqtx__xmit_depth + 1;
	ok = mqtx_dev_xmit_burst(dev, pkts, n);
	refused_bytes = NULL;
	/* Nothing at all was taken (the section could not be entered): nothing was sent. */
	*bytes = ok ? offered - refused : 0;
	return ok;
}

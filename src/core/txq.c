// SPDX-License-Identifier: MIT
/* TX queue control: start/stop/wake, freezing all queues, the exact all-empty test, BQL glue
 * for drivers, and statistics. */
#include <errno.h>

#include "core/core.h"

void mqtx_txq_start(struct mqtx_txq *txq)
{
	atomic_fetch_and(&txq->state, ~MQTX_TXQ_DRV_XOFF);
}

void mqtx_txq_stop(struct mqtx_txq *txq)
{
	if (!(atomic_fetch_or(&txq->state, MQTX_TXQ_DRV_XOFF) & MQTX_TXQ_DRV_XOFF))
		MQTX_CNT_INC_SHARED(txq->cnt.stops, 1u);
}

void mqtx_txq_wake(struct mqtx_txq *txq)
{
	/* Only a queue that was stopped has packets waiting that nobody will send. */
	if (atomic_fetch_and(&txq->state, ~MQTX_TXQ_DRV_XOFF) & MQTX_TXQ_DRV_XOFF) {
		MQTX_CNT_INC_SHARED(txq->cnt.wakes, 1u);
		mqtx_txq_schedule(txq);
	}
}

bool mqtx_txq_stopped(const struct mqtx_txq *txq)
{
	return atomic_load(&((struct mqtx_txq *)txq)->state) & MQTX_TXQ_DRV_XOFF;
}

unsigned mqtx_txq_state(const struct mqtx_txq *txq)
{
	return atomic_load(&((struct mqtx_txq *)txq)->state) &
	       (MQTX_TXQ_ANY_XOFF | MQTX_TXQ_FROZEN);
}

void mqtx_dev_start_all_queues(struct mqtx_dev *dev)
{
	for (uint32_t i = 0; i < dev->num_txq; i++)
		mqtx_txq_start(&dev->txq[i]);
}

void mqtx_dev_stop_all_queues(struct mqtx_dev *dev)
{
	for (uint32_t i = 0; i < dev->num_txq; i++)
		mqtx_txq_stop(&dev->txq[i]);
}

void mqtx_dev_wake_all_queues(struct mqtx_dev *dev)
{
	for (uint32_t i = 0; i < dev->num_txq; i++)
		mqtx_txq_wake(&dev->txq[i]);
}

void mqtx_dev_lock_all(struct mqtx_dev *dev)
{
	pthread_mutex_lock(&dev->tx_global_lock);
	/* Taking each xmit lock waits out a transmit that already checked FROZEN (Linux). */
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_txq *txq = &dev->txq[i];

		mqtx_raw_lock(&txq->xmit_lock);
		atomic_fetch_or(&txq->state, MQTX_TXQ_FROZEN);
		mqtx_raw_unlock(&txq->xmit_lock);
	}
}

void mqtx_dev_unlock_all(struct mqtx_dev *dev)
{
	/* The queues run at the end: on this thread, with the device lock released. */
	mqtx__bh_disable();
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_txq *txq = &dev->txq[i];

		atomic_fetch_and(&txq->state, ~MQTX_TXQ_FROZEN);
		if (!(atomic_load(&txq->state) & MQTX_TXQ_ANY_XOFF))
			mqtx_txq_schedule(txq);
	}
	pthread_mutex_unlock(&dev->tx_global_lock);
	mqtx__bh_enable();
}

/* All queue locks held. A runner holds a batch outside its qdisc; a graft is moving backlogs. */
static bool some_queue_busy(struct mqtx_dev *dev)
{
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_qdisc *q = atomic_load(&dev->txq[i].qdisc);

		if (q->running || (q->flags & MQTX_QF_GRAFTING))
			return true;
	}
	return false;
}

void mqtx_dev_lock_all_queues(struct mqtx_dev *dev)
{
	uint32_t i;

	pthread_mutex_lock(&dev->tx_global_lock);
	/* Frozen queues dequeue nothing, and hand a batch that is on its way to the driver back to
	 * their qdisc: once no runner is left, every packet the stack holds is in a qdisc. */
	for (i = 0; i < dev->num_txq; i++)
		atomic_fetch_or(&dev->txq[i].state, MQTX_TXQ_FROZEN);
	for (;;) {
		for (i = 0; i < dev->num_txq; i++)
			mqtx_spin_lock(&dev->txq[i].lock);
		if (!some_queue_busy(dev))
			return;
		for (i = dev->num_txq; i-- > 0;)
			mqtx_spin_unlock(&dev->txq[i].lock);
		sched_yield();
	}
}

void mqtx_dev_unlock_all_queues(struct mqtx_dev *dev)
{
	for (uint32_t i = dev->num_txq; i-- > 0;)
		mqtx_spin_unlock(&dev->txq[i].lock);
	mqtx_dev_unlock_all(dev);
}

struct mqtx_qdisc *mqtx_txq_active_qdisc(struct mqtx_txq *txq)
{
	return atomic_load_explicit(&txq->qdisc, memory_order_acquire);
}

/* The readers of counters below take the config lock, unless the caller already holds it
 * (mqtx_dev_config_lock()): either way no configuration change is half done while they read. */
static bool config_enter(struct mqtx_dev *dev)
{
	if (mqtx__config_held(dev))
		return false;
	mqtx__config_lock(dev);
	return true;
}

static void config_leave(struct mqtx_dev *dev, bool taken)
{
	if (taken)
		mqtx__config_unlock(dev);
}

bool mqtx_dev_all_tx_empty(struct mqtx_dev *dev)
{
	bool empty = true, taken = config_enter(dev);

	for (uint32_t i = 0; i < dev->num_txq && empty; i++) {
		struct mqtx_txq *txq = &dev->txq[i];
		struct mqtx_qdisc *q = txq->qdisc_sleeping;

		if (q && q->ops->enqueue) {
			mqtx_spin_lock(mqtx__qdisc_lock(q));
			/* A runner holds a dequeued batch while it is in the driver. */
			empty = !q->qlen && !q->requeue.len && !q->running;
			mqtx_spin_unlock(mqtx__qdisc_lock(q));
		}
		if (empty && atomic_load(&txq->xmit_owner))
			empty = false;
		if (empty && dev->ops->inflight)
			empty = !dev->ops->inflight(dev, txq);
	}
	config_leave(dev, taken);
	return empty;
}

bool mqtx_txq_sent(struct mqtx_txq *txq, uint32_t bytes, bool more)
{
	if (!(txq->dev->flags & MQTX_DEV_F_BQL))
		return true;
	mqtx__dql_queued(&txq->dql, bytes);
	if (more)
		return mqtx_txq_stopped(txq);
	if (mqtx__dql_avail(&txq->dql) >= 0)
		return true;
	atomic_fetch_or(&txq->state, MQTX_TXQ_STACK_XOFF);
	/* A completion may have made room between the test and the set (Linux re-checks). */
	atomic_thread_fence(memory_order_seq_cst);
	if (mqtx__dql_avail(&txq->dql) >= 0)
		atomic_fetch_and(&txq->state, ~MQTX_TXQ_STACK_XOFF);
	return true;
}

void mqtx_txq_completed(struct mqtx_txq *txq, uint32_t pkts, uint32_t bytes)
{
	(void)pkts;
	if (!(txq->dev->flags & MQTX_DEV_F_BQL) || !bytes)
		return;
	mqtx__dql_completed(&txq->dql, bytes, mqtx_clock_now(txq->dev->clock));
	atomic_thread_fence(memory_order_seq_cst);
	if (mqtx__dql_avail(&txq->dql) < 0)
		return;
	if (atomic_fetch_and(&txq->state, ~MQTX_TXQ_STACK_XOFF) & MQTX_TXQ_STACK_XOFF)
		if (!(atomic_load(&txq->state) & MQTX_TXQ_DRV_XOFF))
			mqtx_txq_schedule(txq);
}

void mqtx_txq_bql_reset(struct mqtx_txq *txq)
{
	atomic_fetch_and(&txq->state, ~MQTX_TXQ_STACK_XOFF);
	mqtx__dql_reset(&txq->dql, mqtx_clock_now(txq->dev->clock));
}

int mqtx_txq_set_bql(struct mqtx_txq *txq, uint32_t min_limit, uint32_t max_limit, uint64_t hold_ns)
{
	uint32_t mn = min_limit ? min_limit : txq->dql.min_limit;
	uint32_t mx = max_limit ? max_limit : txq->dql.max_limit;

	if (mn > mx || mx > MQTX_DQL_MAX_LIMIT)
		return -EINVAL;
	txq->dql.min_limit = mn;
	txq->dql.max_limit = mx;
	if (hold_ns)
		txq->dql.slack_hold_time = hold_ns;
	return 0;
}

void mqtx__count_drop(struct mqtx_txq *txq, enum mqtx_drop_reason r, uint64_t n)
{
	MQTX_CNT_INC_SHARED(txq->cnt.drops[r], n);
}

/* Dropped packets are counted as they are freed, with the reason the qdisc marked them with
 * (Linux counts its drop reasons when the skb is freed, too), or with @reason when the caller
 * knows better: a graft's refusals count as MQTX_DROP_REPLACE whatever the qdisc said. */
unsigned mqtx__drops_free(struct mqtx_dev *dev, struct mqtx_pkt *list, int reason)
{
	unsigned n = 0;

	for (struct mqtx_pkt *pkt = list; pkt; pkt = pkt->next, n++) {
		unsigned r = reason == MQTX_DROP_KEEP ? pkt->drop_reason & ~MQTX_PKT_DROP_RX
						      : (unsigned)reason;

		if (r >= MQTX_DROP_REASON_MAX)
			r = MQTX_DROP_QDISC;
		if (pkt->drop_reason & MQTX_PKT_DROP_RX)
			MQTX_CNT_INC_SHARED(dev->rxq.drops[r], 1u);
		else
			mqtx__count_drop(&dev->txq[pkt->queue_mapping], (enum mqtx_drop_reason)r,
					 1);
	}
	if (list)
		mqtx_pkt_free_list(list);
	return n;
}

unsigned mqtx_qdisc_free_dropped(struct mqtx_dev *dev, struct mqtx_pkt *to_free)
{
	return mqtx__drops_free(dev, to_free, MQTX_DROP_KEEP);
}

void mqtx_txq_count_drop(struct mqtx_txq *txq, enum mqtx_drop_reason reason, uint32_t n)
{
	if ((unsigned)reason < MQTX_DROP_REASON_MAX)
		mqtx__count_drop(txq, reason, n);
}

/* An ingress qdisc runs under the receive queue's lock; the others under their TX queue's.
 * The kind's own flags say which: q->flags changes under the config lock (a graft), while a
 * qdisc's timer may take its lock at any time. */
static struct mqtx_spinlock *qdisc_lock(struct mqtx_qdisc *q)
{
	return (q->ops->static_flags & MQTX_QF_INGRESS) ? &q->dev->rxq.lock : mqtx__qdisc_lock(q);
}

void mqtx_qdisc_lock(struct mqtx_qdisc *q)
{
	mqtx_spin_lock(qdisc_lock(q));
}

void mqtx_qdisc_unlock(struct mqtx_qdisc *q)
{
	mqtx_spin_unlock(qdisc_lock(q));
}

void mqtx_qdisc_get_stats(struct mqtx_qdisc *q, struct mqtx_qdisc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!q->ops->enqueue || (q->flags & MQTX_QF_BUILTIN))
		return;
	mqtx_qdisc_lock(q);
	st->bytes = q->bytes;
	st->packets = q->packets;
	st->drops = q->drops;
	st->requeues = q->requeues;
	st->overlimits = q->overlimits;
	st->qlen = q->qlen + q->requeue.len;
	st->backlog = q->backlog;
	for (struct mqtx_pkt *p = q->requeue.head; p; p = p->next)
		st->backlog += p->len;
	mqtx_qdisc_unlock(q);
}

/* Config lock held, so that a configuration change (a close purging the queues, a graft
 * moving backlogs) is seen whole: its drops are counted as its to_free lists are freed, after
 * the queues were emptied. */
static void txq_stats(struct mqtx_txq *txq, struct mqtx_txq_stats *st)
{
	struct mqtx_qdisc *q;

	memset(st, 0, sizeof(*st));
	st->packets = MQTX_CNT_READ(txq->packets);
	st->bytes = MQTX_CNT_READ(txq->bytes);
	st->batches = MQTX_CNT_READ(txq->batches);
	st->bypass = MQTX_CNT_READ(txq->bypass);
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
		st->drops[r] = MQTX_CNT_READ(txq->cnt.drops[r]);
	st->requeues = MQTX_CNT_READ(txq->cnt.requeues);
	st->stops = MQTX_CNT_READ(txq->cnt.stops);
	st->wakes = MQTX_CNT_READ(txq->cnt.wakes);
	st->state = mqtx_txq_state(txq);
	st->bql_limit = atomic_load(&txq->dql.limit);
	st->bql_inflight = atomic_load(&txq->dql.num_queued) - atomic_load(&txq->dql.num_completed);

	q = txq->qdisc_sleeping;
	/* A qdisc shared by several queues reports its backlog on the queue it is rooted at. */
	if (q && q->ops->enqueue && q->dev_queue == txq) {
		struct mqtx_qdisc_stats qs;

		mqtx_qdisc_get_stats(q, &qs);
		st->qlen = qs.qlen;
		st->backlog = qs.backlog;
	}
}

void mqtx_txq_get_stats(struct mqtx_txq *txq, struct mqtx_txq_stats *st)
{
	bool taken = config_enter(txq->dev);

	txq_stats(txq, st);
	config_leave(txq->dev, taken);
}

void mqtx_dev_get_stats(struct mqtx_dev *dev, struct mqtx_dev_stats *st)
{
	struct mqtx_txq_stats t;
	bool taken;

	memset(st, 0, sizeof(*st));
	taken = config_enter(dev);
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		txq_stats(&dev->txq[i], &t);
		st->txq.packets += t.packets;
		st->txq.bytes += t.bytes;
		for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
			st->txq.drops[r] += t.drops[r];
		st->txq.requeues += t.requeues;
		st->txq.stops += t.stops;
		st->txq.wakes += t.wakes;
		st->txq.batches += t.batches;
		st->txq.bypass += t.bypass;
		st->txq.qlen += t.qlen;
		st->txq.backlog += t.backlog;
		st->txq.bql_inflight += t.bql_inflight;
	}
	config_leave(dev, taken);
	for (int s = 0; s <= MQTX_MAX_TSLOTS; s++) {
		st->xmit += MQTX_CNT_READ(dev->pcpu[s].xmit);
		st->select_capped += MQTX_CNT_READ(dev->pcpu[s].capped);
	}
	st->rx_packets = MQTX_CNT_READ(dev->rxq.packets);
	st->rx_bytes = MQTX_CNT_READ(dev->rxq.bytes);
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++) {
		st->rx_drop_reasons[r] = MQTX_CNT_READ(dev->rxq.drops[r]);
		st->rx_drops += st->rx_drop_reasons[r];
	}
}

const char *mqtx_drop_reason_name(enum mqtx_drop_reason r)
{
	static const char *const names[MQTX_DROP_REASON_MAX] = {
		[MQTX_DROP_QDISC] = "qdisc",	     [MQTX_DROP_AQM] = "aqm",
		[MQTX_DROP_POLICE] = "police",	     [MQTX_DROP_DOWN] = "down",
		[MQTX_DROP_RECURSION] = "recursion", [MQTX_DROP_NOQUEUE] = "noqueue",
		[MQTX_DROP_DRIVER] = "driver",	     [MQTX_DROP_REPLACE] = "replace",
		[MQTX_DROP_RESET] = "reset",	     [MQTX_DROP_NO_HANDLER] = "nohandler",
		[MQTX_DROP_KERNEL] = "kernel",	     [MQTX_DROP_NO_ADMIT] = "noadmit",
		[MQTX_DROP_EXPIRED] = "expired",     [MQTX_DROP_FILTER] = "filter",
		[MQTX_DROP_REDIRECT] = "redirect",   [MQTX_DROP_WRITE] = "write",
		[MQTX_DROP_NOSPACE] = "nospace",
	};

	return (unsigned)r < MQTX_DROP_REASON_MAX ? names[r] : "?";
}

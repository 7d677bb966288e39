// SPDX-License-Identifier: MIT
/* Block-ack sessions and the reserved TID: aggregation queues from a pool, taken and given back
 * with every TX queue held still, and the station's waiting frames moved between the AC queue
 * and the aggregation queue in order: the requeueing the 2008 select_queue rewrite of
 * net/mac80211/wme.c lost (ieee80211_ht_agg_queue_add/remove, ieee80211_requeue), done as
 * current mac80211 splices its pending frames (net/mac80211/agg-tx.c). */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "wme/wme_int.h"
#include <mqtx/qdisc.h>

struct sta_tid {
	const uint8_t *addr;
	unsigned tid;
};

/* The station's frames of the TID: receiver address and UP (TID = priority & 7). */
static bool match_sta_tid(const struct mqtx_pkt *pkt, void *arg)
{
	const struct sta_tid *m = arg;

	return pkt->len >= 6 && (pkt->priority & 7) == m->tid && !memcmp(pkt->data, m->addr, 6);
}

static bool match_any(const struct mqtx_pkt *pkt, void *arg)
{
	(void)pkt;
	(void)arg;
	return true;
}

/*
 * Move what @from's queue holds of @match into @to's requeue list, ahead of what is there:
 * @to's packets all arrived after them. All queue locks held. Returns how many moved, or
 * -EOPNOTSUPP (nothing moved) when @from's qdisc cannot hand packets over.
 */
static int move(struct mqtx_dev *dev, uint16_t from, uint16_t to, mqtx_pkt_match_fn match,
		void *arg, bool ampdu)
{
	struct mqtx_qdisc *src = mqtx_txq_active_qdisc(mqtx_dev_txq(dev, from));
	struct mqtx_qdisc *dst = mqtx_txq_active_qdisc(mqtx_dev_txq(dev, to));
	struct mqtx_pkt_list l;
	int n;

	mqtx_pkt_list_init(&l);
	n = mqtx_qdisc_extract(src, match, arg, &l);
	if (n <= 0)
		return n;
	for (struct mqtx_pkt *p = l.head; p; p = p->next) {
		p->queue_mapping = to;
		if (ampdu)
			p->flags |= MQTX_PKT_F_AMPDU;
		else
			p->flags &= (uint16_t)~MQTX_PKT_F_AMPDU;
	}
	mqtx_qdisc_requeue_list(dst, &l, true);
	return n;
}

static int check_qdiscs(struct mqtx_dev *dev, uint16_t ac, uint16_t q, struct mqtx_extack *ack)
{
	uint16_t qs[2] = { ac, q };

	for (unsigned i = 0; i < 2; i++) {
		struct mqtx_qdisc *qd = mqtx_txq_qdisc(mqtx_dev_txq(dev, qs[i]));

		if (qd && !mqtx_qdisc_can_extract(qd)) {
			mqtx_extack_set(ack,
					"qdisc %s on TX queue %u of %s cannot hand frames "
					"over (no extract hook); use wme",
					qd->ops->id, qs[i], mqtx_dev_name(dev));
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* Too many ADDBA requests for @tid lately: -EBUSY as ieee80211_start_tx_ba_session() gives. */
static int addba_busy(struct mqtx_wme *w, const struct wme_sta *sta, unsigned tid,
		      struct mqtx_extack *ack)
{
	uint64_t now = mqtx_clock_now(mqtx_dev_clock(w->dev)), last = sta->addba_req_time[tid];
	unsigned n = sta->addba_req_num[tid];
	char mac[18];

	if (n > WME_ADDBA_MAX) {
		w->ba_busy++;
		mqtx_extack_set(ack,
				"%u block-ack requests for %s tid %u went unanswered: given up", n,
				mqtx__wme_mac(sta->addr, mac), tid);
		return -EBUSY;
	}
	if (n > WME_ADDBA_BURST && now - last < WME_ADDBA_PERIOD_NS) {
		w->ba_busy++;
		mqtx_extack_set(ack,
				"%u block-ack requests for %s tid %u failed: the next one waits "
				"until 15 s after the last",
				n, mqtx__wme_mac(sta->addr, mac), tid);
		return -EBUSY;
	}
	return 0;
}

/* Config and WME locks held: validate a start. Returns the free queue or -errno. */
static int start_checks(struct mqtx_wme *w, const struct wme_sta *sta, const uint8_t *addr,
			unsigned tid, struct mqtx_extack *ack)
{
	struct mqtx_dev *dev = w->dev;
	char mac[18];
	int bit, err;

	uint64_t all = w->num_agg == 64 ? ~0ull : (1ull << w->num_agg) - 1, avail;

	if (!w->ops || !w->ops->ampdu_action) {
		mqtx_extack_set(ack, "the driver of %s has no block-ack support",
				mqtx_dev_name(dev));
		return -EOPNOTSUPP;
	}
	if (!mqtx_dev_is_up(dev)) {
		mqtx_extack_set(ack, "device %s is down", mqtx_dev_name(dev));
		return -ENETDOWN;
	}
	if (!sta) {
		mqtx_extack_set(ack, "unknown station %s on %s", mqtx__wme_mac(addr, mac),
				mqtx_dev_name(dev));
		return -ENOENT;
	}
	if (!sta->qos)
		return mqtx_extack_set(ack, "station %s is not QoS-capable: no block-ack session",
				       mqtx__wme_mac(addr, mac));
	/* ieee80211_start_tx_ba_session() refuses the reserved TID with -EINVAL. */
	if (atomic_load(&((struct wme_sta *)sta)->reserved_tid) == (int8_t)tid)
		return mqtx_extack_set(ack,
				       "tid %u is the reserved TID of %s: no block-ack session",
				       tid, mqtx__wme_mac(addr, mac));
	if (sta->ba_state[tid] != MQTX_WME_BA_IDLE) {
		mqtx_extack_set(ack, "a block-ack session for %s tid %u is already %s",
				mqtx__wme_mac(addr, mac), tid,
				mqtx_wme_ba_state_name(sta->ba_state[tid]));
		return -EALREADY;
	}
	err = addba_busy(w, sta, tid, ack);
	if (err)
		return err;
	avail = all & ~w->pool;
	bit = avail ? __builtin_ctzll(avail) : -1;
	if (bit < 0) {
		w->ba_pool_full++;
		mqtx_extack_set(ack,
				"no free aggregation queue on %s (all %u in use): %s tid %u "
				"stays on the %s queue",
				mqtx_dev_name(dev), w->num_agg, mqtx__wme_mac(addr, mac), tid,
				mqtx_wme_ac_name(mqtx_wme_up_to_ac(tid)));
		return -ENOSPC;
	}
	return MQTX_WME_NUM_AC + bit;
}

int mqtx_wme_ba_start(struct mqtx_dev *dev, const uint8_t addr[6], unsigned tid,
		      struct mqtx_extack *ack)
{
	struct sta_tid m = { addr, tid };
	struct mqtx_wme_ba_session bs;
	struct mqtx_wme *w;
	struct wme_sta *sta;
	enum mqtx_wme_ac ac = mqtx_wme_up_to_ac(tid);
	int q, err, n;

	if (tid >= MQTX_WME_NUM_TIDS)
		return mqtx_extack_set(ack, "tid %u outside 0-15", tid);
	/* TIDs 8-15 are TSPEC streams: ieee80211_start_tx_ba_session() refuses them (-EINVAL,
	 * tid >= IEEE80211_FIRST_TSPEC_TSID), and no frame of this model ever uses one. */
	if (tid >= MQTX_WME_NUM_UP)
		return mqtx_extack_set(ack, "tid %u is a TSPEC TID (8-15): no block-ack session",
				       tid);
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	sta = mqtx__wme_sta_find(w, addr);
	q = start_checks(w, sta, addr, tid, ack);
	if (q < 0) {
		err = q;
		goto out;
	}
	err = check_qdiscs(dev, ac, (uint16_t)q, ack);
	if (err)
		goto out;
	/* The queue stays stopped until the peer accepts (ieee80211_ht_agg_queue_add()). */
	w->pool |= 1ull << (q - MQTX_WME_NUM_AC);
	mqtx_wme_stop_queue(dev, (uint16_t)q, MQTX_WME_STOP_AGG);
	sta->ba_state[tid] = MQTX_WME_BA_STARTING;
	sta->ba_queue[tid] = (uint16_t)q;
	sta->ba_id[tid] = ++w->ba_seq;
	atomic_store_explicit(&sta->tid_queue[tid], (uint16_t)q, memory_order_release);
	w->ba_requested++;
	/* Every selection that still saw the AC queue has enqueued there once the grace period
	 * is over; with all queues held, what waits there is all that came before. */
	mqtx__rcu_synchronize();
	mqtx_dev_lock_all_queues(dev);
	n = move(dev, ac, (uint16_t)q, match_sta_tid, &m, true);
	mqtx_dev_unlock_all_queues(dev);
	w->moved_to_agg += n > 0 ? (uint64_t)n : 0;
	bs = mqtx__wme_session(sta, tid);
	err = w->ops->ampdu_action(dev, MQTX_WME_AMPDU_TX_START, &bs);
	if (err) {
		char mac[18];

		mqtx__wme_ba_teardown(w, sta, tid);
		w->ba_refused++;
		mqtx_extack_set(
			ack, "the driver of %s refused a block-ack session for %s tid %u: %s",
			mqtx_dev_name(dev), mqtx__wme_mac(addr, mac), tid, mqtx_strerror(err));
	} else {
		/* The request went out (ieee80211_send_addba_with_timeout() counts it). */
		sta->addba_req_num[tid]++;
		sta->addba_req_time[tid] = mqtx_clock_now(mqtx_dev_clock(dev));
	}
out:
	mqtx__wme_unlock(w);
	return err;
}

void mqtx__wme_ba_teardown(struct mqtx_wme *w, struct wme_sta *sta, unsigned tid)
{
	struct mqtx_dev *dev = w->dev;
	uint16_t q = sta->ba_queue[tid];
	uint16_t ac = mqtx_wme_up_to_ac(tid);
	int n;

	/* The AC queue is held first: once the TID's frames are selected to it again, none of
	 * them may leave before the older ones still on the aggregation queue (mac80211 stops
	 * the queue with IEEE80211_QUEUE_STOP_REASON_AGGREGATION for the same reason). */
	mqtx_wme_stop_queue(dev, ac, MQTX_WME_STOP_MOVE);
	if (tid < MQTX_WME_NUM_UP)
		atomic_store_explicit(&sta->tid_queue[tid], MQTX_WME_QUEUE_NONE,
				      memory_order_release);
	mqtx_wme_stop_queue(dev, q, MQTX_WME_STOP_AGG);
	mqtx__rcu_synchronize();
	/* What waits on the aggregation queue goes back to the AC queue ahead of the TID's newer
	 * frames (which all arrived after the grace period, and waited). */
	mqtx_dev_lock_all_queues(dev);
	n = move(dev, q, ac, match_any, NULL, false);
	/* One section: the queues released and the AC queue run here, as unlock_all runs them. */
	mqtx_bh_disable();
	mqtx_dev_unlock_all_queues(dev);
	mqtx_wme_wake_queue(dev, ac, MQTX_WME_STOP_MOVE);
	mqtx_bh_enable();
	if (n < 0) {
		/* A qdisc without the hook was put on the queue during the session: let it drain
		 * where it is rather than lose anything. */
		mqtx_wme_wake_queue(dev, q, MQTX_WME_STOP_AGG);
		mqtx_log(MQTX_LOG_WARN, "%s: queue %u cannot hand frames back; draining it",
			 mqtx_dev_name(dev), q);
	}
	w->moved_to_ac += n > 0 ? (uint64_t)n : 0;
	w->pool &= ~(1ull << (q - MQTX_WME_NUM_AC));
	sta->ba_state[tid] = MQTX_WME_BA_IDLE;
	sta->ba_queue[tid] = MQTX_WME_QUEUE_NONE;
}

void mqtx__wme_ba_end(struct mqtx_wme *w, struct wme_sta *sta, unsigned tid)
{
	struct mqtx_wme_ba_session bs = mqtx__wme_session(sta, tid);

	mqtx__wme_ba_teardown(w, sta, tid);
	w->ba_stopped++;
	w->ops->ampdu_action(w->dev, MQTX_WME_AMPDU_TX_STOP, &bs);
}

int mqtx_wme_ba_stop(struct mqtx_dev *dev, const uint8_t addr[6], unsigned tid,
		     struct mqtx_extack *ack)
{
	struct mqtx_wme *w;
	struct wme_sta *sta;
	char mac[18];
	int err = 0;

	if (tid >= MQTX_WME_NUM_TIDS)
		return mqtx_extack_set(ack, "tid %u outside 0-15", tid);
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	sta = mqtx__wme_sta_find(w, addr);
	if (!sta) {
		err = -ENOENT;
		mqtx_extack_set(ack, "unknown station %s on %s", mqtx__wme_mac(addr, mac),
				mqtx_dev_name(dev));
	} else if (sta->ba_state[tid] == MQTX_WME_BA_IDLE) {
		err = -ENOENT;
		mqtx_extack_set(ack, "no block-ack session for %s tid %u", mqtx__wme_mac(addr, mac),
				tid);
	} else {
		mqtx__wme_ba_end(w, sta, tid);
	}
	mqtx__wme_unlock(w);
	return err;
}

/* WME lock held: the reservation of @tid on @s, as ieee80211_reserve_tid() and
 * ieee80211_unreserve_tid() in net/mac80211/tx.c make it. */
static int reserve_tid(struct mqtx_wme *w, struct wme_sta *s, int tid, struct mqtx_extack *ack)
{
	int cur = atomic_load(&s->reserved_tid);
	char mac[18];

	if (tid == cur || tid < 0) {
		atomic_store(&s->reserved_tid, (int8_t)tid);
		return 0;
	}
	if (cur >= 0) {
		mqtx_extack_set(ack, "station %s already has reserved TID %d (set none first)",
				mqtx__wme_mac(s->addr, mac), cur);
		return -EALREADY;
	}
	/* A session on the TID ends first: its frames go back to the AC queue in order. */
	if (s->ba_state[tid] != MQTX_WME_BA_IDLE)
		mqtx__wme_ba_end(w, s, (unsigned)tid);
	atomic_store(&s->reserved_tid, (int8_t)tid);
	return 0;
}

int mqtx_wme_sta_set_reserved_tid(struct mqtx_dev *dev, const uint8_t addr[6], int tid,
				  struct mqtx_extack *ack)
{
	struct mqtx_wme *w;
	struct wme_sta *s;
	char mac[18];
	int err;

	if (tid < -1 || tid > 7)
		return mqtx_extack_set(ack, "reserved tid %d outside 0-7", tid);
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	s = mqtx__wme_sta_find(w, addr);
	if (s) {
		err = reserve_tid(w, s, tid, ack);
	} else {
		err = -ENOENT;
		mqtx_extack_set(ack, "unknown station %s on %s", mqtx__wme_mac(addr, mac),
				mqtx_dev_name(dev));
	}
	mqtx__wme_unlock(w);
	return err;
}

/* The config lock, unless the device goes down meanwhile: a close may be waiting for the very
 * thread or timer that calls us. */
static bool config_lock_unless_down(struct mqtx_dev *dev)
{
	while (!mqtx_dev_config_trylock(dev)) {
		if (!mqtx_dev_is_up(dev))
			return false;
		sched_yield();
	}
	if (mqtx_dev_is_up(dev))
		return true;
	mqtx_dev_config_unlock(dev);
	return false;
}

int mqtx_wme_ba_done(struct mqtx_dev *dev, const struct mqtx_wme_ba_session *s,
		     enum mqtx_wme_ba_status status)
{
	struct mqtx_wme *w = mqtx__wme(dev);
	unsigned tid = s->tid;
	struct wme_sta *sta;
	int err = 0;

	if (!w)
		return -EOPNOTSUPP;
	if (tid >= MQTX_WME_NUM_TIDS)
		return -ENOENT;
	if (!config_lock_unless_down(dev))
		return -ENETDOWN;
	pthread_mutex_lock(&w->lock);
	sta = mqtx__wme_sta_find(w, s->addr);
	if (!sta || sta->ba_state[tid] != MQTX_WME_BA_STARTING || sta->ba_id[tid] != s->id) {
		err = -ENOENT;
	} else if (status == MQTX_WME_BA_ACCEPTED) {
		sta->ba_state[tid] = MQTX_WME_BA_OPERATIONAL;
		/* ieee80211_process_addba_resp(): an accepted session clears the count. */
		sta->addba_req_num[tid] = 0;
		w->ba_accepted++;
		mqtx_wme_wake_queue(dev, sta->ba_queue[tid], MQTX_WME_STOP_AGG);
	} else {
		mqtx__wme_ba_teardown(w, sta, tid);
		if (status == MQTX_WME_BA_TIMEOUT)
			w->ba_timeouts++;
		else
			w->ba_refused++;
	}
	mqtx__wme_unlock(w);
	return err;
}

/* The device went down: its queues are empty; every session simply ends. */
void mqtx__wme_ba_reset_all(struct mqtx_wme *w)
{
	for (unsigned b = 0; b < WME_BUCKETS; b++) {
		for (struct wme_sta *s = atomic_load(&w->buckets[b]); s;
		     s = atomic_load(&s->next)) {
			for (unsigned t = 0; t < MQTX_WME_NUM_TIDS; t++) {
				if (t < MQTX_WME_NUM_UP)
					atomic_store(&s->tid_queue[t], MQTX_WME_QUEUE_NONE);
				s->ba_state[t] = MQTX_WME_BA_IDLE;
				s->ba_queue[t] = MQTX_WME_QUEUE_NONE;
			}
		}
	}
	w->pool = 0;
}

const char *mqtx_wme_ba_state_name(enum mqtx_wme_ba_state s)
{
	static const char *const names[] = { "idle", "starting", "operational" };

	return (unsigned)s < 3 ? names[s] : "?";
}

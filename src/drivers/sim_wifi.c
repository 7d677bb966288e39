// SPDX-License-Identifier: MIT
/* The sim-wifi driver: 4 AC hardware queues and aggregation queues on one EDCA medium, rings
 * with per-queue stop/wake, block-ack set-up answered after a delay, refused or never. */
#include <errno.h>
#include <string.h>

#include "drivers/sim_wifi_int.h"

static struct swf_priv *swf(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static bool is_swf(struct mqtx_dev *dev)
{
	return dev && mqtx_dev_ops(dev) == &mqtx_sim_wifi_ops;
}

/* ---- running the medium ---- */

struct swf_answer {
	struct mqtx_wme_ba_session s;
	enum mqtx_wme_ba_status status;
};

/* Medium lock held: the ADDBA answers due by @now. */
static unsigned take_answers(struct swf_priv *s, uint64_t now, struct swf_answer *out)
{
	unsigned n = 0;

	for (uint32_t q = 0; q < s->nq; q++) {
		struct swf_ba *b = &s->ba[q];

		if (!b->pending || b->due > now)
			continue;
		b->pending = false;
		out[n].s = b->s;
		out[n].status = b->status;
		if (b->status == MQTX_WME_BA_ACCEPTED)
			s->st.ba_accepted++;
		else if (b->status == MQTX_WME_BA_REFUSED)
			s->st.ba_refused++;
		else
			s->st.ba_timeouts++;
		n++;
	}
	return n;
}

/* One medium round ("interrupt"): run the medium to @now, then, in a section, report
 * completions and hand the frames on; then, outside it and with no lock, the ADDBA answers. */
static void swf_round(void *arg, uint64_t now)
{
	struct swf_priv *s = arg;
	struct mqtx_dev *dev = mqtx_dev_from_priv(s);
	struct swf_answer ans[SWF_MAX_Q];
	uint32_t pk[SWF_MAX_Q], by[SWF_MAX_Q];
	struct mqtx_pkt_list done, expired;
	struct mqtx_pkt *p;
	uint64_t next;
	unsigned nans;

	mqtx_pkt_list_init(&done);
	mqtx_pkt_list_init(&expired);
	mqtx_bh_disable();
	pthread_mutex_lock(&s->lock);
	next = mqtx__swf_air_run(s, dev, now, &done, &expired);
	nans = take_answers(s, now, ans);
	memcpy(pk, s->comp_pkts, s->nq * sizeof(pk[0]));
	memcpy(by, s->comp_bytes, s->nq * sizeof(by[0]));
	memset(s->comp_pkts, 0, s->nq * sizeof(pk[0]));
	memset(s->comp_bytes, 0, s->nq * sizeof(by[0]));
	if (nans)
		next = mqtx__swf_air_next(s);
	pthread_mutex_unlock(&s->lock);
	mqtx__wire_clock_arm(&s->wire, next);
	for (uint32_t q = 0; q < s->nq; q++)
		if (pk[q])
			mqtx_txq_completed(mqtx_dev_txq(dev, q), pk[q], by[q]);
	while ((p = mqtx_pkt_list_pop(&done))) {
		if (s->run.done) {
			uint64_t at;

			memcpy(&at, p->cb, sizeof(at));
			s->run.done(dev, p, (enum mqtx_wme_ac)p->cb[sizeof(at)], at,
				    s->run.done_arg);
		}
		mqtx_pkt_free(p);
	}
	/* Taken, so counted as sent by the stack: the driver's own expired counter has them. */
	mqtx_pkt_free_list(expired.head);
	mqtx_bh_enable();
	for (unsigned i = 0; i < nans; i++)
		mqtx_wme_ba_done(dev, &ans[i].s, ans[i].status);
}

/* ---- data path ---- */

static unsigned swf_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	struct swf_priv *s = swf(dev);
	uint16_t q = (uint16_t)mqtx_txq_index(txq);
	uint64_t now = mqtx_clock_now(s->clock), next;
	unsigned take, room;
	struct swf_ac *a;

	(void)more; /* the medium sees a frame as soon as it is on the ring */
	pthread_mutex_lock(&s->lock);
	a = &s->ac[s->q_ac[q]];
	room = s->run.ring - s->count[q];
	take = n < room ? n : room;
	if (take && !a->fifo.head)
		a->ready = now;
	for (unsigned i = 0; i < take; i++) {
		struct mqtx_pkt *p = pkts[i];

		/* A frame that comes back late (requeued after a full ring) never reaches the
		 * ring: a drop of the queue, counted by its reason. */
		if (p->expires && now > p->expires) {
			s->ac[s->q_ac[q]].st.expired_requeued++;
			mqtx_txq_drop_taken(txq, p, MQTX_DROP_EXPIRED);
			continue;
		}
		p->queue_mapping = q;
		if (!p->tstamp)
			p->tstamp = now;
		mqtx__swf_set_arrival(p, now);
		s->count[q]++;
		a->st.queued++;
		mqtx_pkt_list_add_tail(&a->fifo, p);
		/* Accounted before the medium can deliver it: BQL must see the send first. */
		mqtx_txq_sent(txq, p->len, i + 1 < take);
	}
	s->st.refused += n - take;
	/* Re-asserted every time, so that a wake by someone else cannot make the stack spin on a
	 * full ring. */
	if (s->run.ring - s->count[q] < s->run.stop_thresh) {
		s->stopped[q] = true;
		mqtx_wme_stop_queue(dev, q, MQTX_WME_STOP_DRIVER);
	}
	next = take ? mqtx__swf_air_next(s) : UINT64_MAX;
	pthread_mutex_unlock(&s->lock);
	mqtx__wire_clock_arm(&s->wire, next);
	return take;
}

static uint32_t swf_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	struct swf_priv *s = swf(dev);
	uint32_t n;

	pthread_mutex_lock(&s->lock);
	n = s->count[mqtx_txq_index(txq)];
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* WME asks for a block-ack session: the peer answers after the configured delay. */
static int swf_ampdu_action(struct mqtx_dev *dev, enum mqtx_wme_ampdu_action action,
			    const struct mqtx_wme_ba_session *bs)
{
	struct swf_priv *s = swf(dev);
	struct swf_ba *b = &s->ba[bs->queue];
	uint64_t now = mqtx_clock_now(s->clock);

	pthread_mutex_lock(&s->lock);
	if (action == MQTX_WME_AMPDU_TX_STOP) {
		b->pending = false;
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	/* Frames of this queue go out with the AC's EDCA parameters. */
	s->q_ac[bs->queue] = bs->ac;
	b->pending = true;
	b->s = *bs;
	b->status = s->ba_mode == MQTX_SIM_WIFI_BA_ACCEPT   ? MQTX_WME_BA_ACCEPTED
		    : s->ba_mode == MQTX_SIM_WIFI_BA_REFUSE ? MQTX_WME_BA_REFUSED
							    : MQTX_WME_BA_TIMEOUT;
	b->due = now + (s->ba_mode == MQTX_SIM_WIFI_BA_SILENT ? s->run.ba_timeout_ns : s->ba_delay);
	s->st.ba_requests++;
	pthread_mutex_unlock(&s->lock);
	mqtx__wire_clock_arm(&s->wire, b->due);
	return 0;
}

static const struct mqtx_wme_ops swf_wme_ops = {
	.ampdu_action = swf_ampdu_action,
};

static uint16_t swf_select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	return mqtx_wme_select_queue(dev, pkt);
}

static void swf_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit, void *arg)
{
	struct swf_priv *s = swf(dev);
	uint32_t q;

	if (!txq) {
		struct mqtx_sim_wifi_stats st;

		mqtx_sim_wifi_stats(dev, &st);
		emit("busy_ns", st.busy_ns, arg);
		emit("flushed", st.flushed, arg);
		emit("refused", st.refused, arg);
		return;
	}
	q = mqtx_txq_index(txq);
	pthread_mutex_lock(&s->lock);
	emit("ring", s->count[q], arg);
	emit("ac", s->q_ac[q], arg);
	pthread_mutex_unlock(&s->lock);
	if (q < MQTX_WME_NUM_AC) {
		struct mqtx_sim_wifi_ac_stats a;

		mqtx_sim_wifi_ac_stats(dev, (enum mqtx_wme_ac)q, &a);
		emit("frames", a.frames, arg);
		emit("txops", a.txops, arg);
		emit("airtime_ns", a.airtime_ns, arg);
		emit("ampdus", a.ampdus, arg);
		emit("lat_max_ns", a.lat_max_ns, arg);
		emit("collisions", a.collisions, arg);
		emit("expired", a.expired, arg);
		emit("expired_requeued", a.expired_requeued, arg);
	}
}

/* ---- control path ---- */

/*
 * A non-AP station takes the AP's EDCA parameters with AIFSN at least 2: mac80211 raises a
 * smaller one and says so ("AP has invalid WMM params", ieee80211_sta_wmm_params() in
 * net/mac80211/mlme.c). @warn: log it (at open, where it takes effect).
 */
static void raise_aifsn(struct mqtx_dev *dev, struct mqtx_sim_wifi_cfg *c, enum mqtx_wme_role role,
			bool warn)
{
	if (role == MQTX_WME_ROLE_AP)
		return;
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		if (c->edca[ac].aifsn != 1)
			continue;
		c->edca[ac].aifsn = 2;
		if (warn)
			mqtx_log(MQTX_LOG_WARN,
				 "sim-wifi: %s: AIFSN 1 for %s is invalid for a non-AP station "
				 "(role %s): using 2, as mac80211 does",
				 mqtx_dev_name(dev), mqtx_wme_ac_name((enum mqtx_wme_ac)ac),
				 mqtx_wme_role_name(role));
	}
}

/* Fill the defaults of @c for @role in place and check it; 0 or -EINVAL with a message. */
static int swf_resolve(struct mqtx_dev *dev, struct mqtx_sim_wifi_cfg *c, enum mqtx_wme_role role,
		       struct mqtx_extack *ack)
{
	if (!c->rate_bps)
		c->rate_bps = MQTX_SIM_WIFI_RATE_DEFAULT;
	if (c->rate_bps < 1000000 || c->rate_bps > 10000000000ull)
		return mqtx_extack_set(ack, "sim-wifi: rate %llu bit/s outside 1Mbit..10Gbit",
				       (unsigned long long)c->rate_bps);
	if (!c->ring)
		c->ring = MQTX_SIM_WIFI_RING_DEFAULT;
	if (c->ring > MQTX_SIM_WIFI_RING_MAX)
		return mqtx_extack_set(ack, "sim-wifi: ring %u outside 1..%u", c->ring,
				       MQTX_SIM_WIFI_RING_MAX);
	if (!c->stop_thresh)
		c->stop_thresh = c->ring / 4 > 64 ? 64 : (c->ring / 4 ? c->ring / 4 : 1);
	if (!c->wake_thresh)
		c->wake_thresh = c->ring / 4 > c->stop_thresh ? c->ring / 4 : c->stop_thresh;
	if (c->stop_thresh > c->ring || c->wake_thresh < c->stop_thresh || c->wake_thresh > c->ring)
		return mqtx_extack_set(ack,
				       "sim-wifi: thresholds stop %u wake %u: want "
				       "stop <= wake <= ring %u",
				       c->stop_thresh, c->wake_thresh, c->ring);
	mqtx__swf_edca_defaults(c, role);
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		const struct mqtx_sim_wifi_edca *e = &c->edca[ac];

		if (!e->aifsn || e->aifsn > 15 || e->cwmin > e->cwmax || e->cwmax > 32767 ||
		    (e->cwmin & (e->cwmin + 1)) || (e->cwmax & (e->cwmax + 1)))
			return mqtx_extack_set(ack,
					       "sim-wifi: EDCA of %s: aifsn %u cwmin %u cwmax "
					       "%u (aifsn 1..15, cw 2^n-1, cwmin <= cwmax)",
					       mqtx_wme_ac_name((enum mqtx_wme_ac)ac), e->aifsn,
					       e->cwmin, e->cwmax);
	}
	if (!c->ampdu_max)
		c->ampdu_max = MQTX_SIM_WIFI_AMPDU_DEFAULT;
	if (c->ampdu_max > MQTX_SIM_WIFI_AMPDU_MAX)
		return mqtx_extack_set(ack, "sim-wifi: ampdu %u outside 1..%u", c->ampdu_max,
				       MQTX_SIM_WIFI_AMPDU_MAX);
	if ((unsigned)c->ba_mode > MQTX_SIM_WIFI_BA_SILENT)
		return mqtx_extack_set(ack, "sim-wifi: unknown block-ack mode %d", (int)c->ba_mode);
	if (!c->ba_delay_ns)
		c->ba_delay_ns = MQTX_SIM_WIFI_BA_DELAY_DEFAULT;
	if (!c->ba_timeout_ns)
		c->ba_timeout_ns = MQTX_SIM_WIFI_BA_TIMEOUT_DEFAULT;
	if (!c->seed)
		c->seed = 1;
	/* Real time needs rounds: without coalescing the medium thread would spin. */
	if (dev && !c->coalesce_ns && !mqtx_clock_is_virtual(mqtx_dev_clock(dev)))
		c->coalesce_ns = 20000;
	return 0;
}

static int swf_init(struct mqtx_dev *dev)
{
	struct swf_priv *s = swf(dev);

	s->nq = mqtx_dev_num_txq(dev);
	if (s->nq > SWF_MAX_Q)
		return -EINVAL;
	for (uint32_t q = 0; q < s->nq; q++)
		s->q_ac[q] = q < MQTX_WME_NUM_AC ? (uint8_t)q : MQTX_WME_AC_BE;
	s->clock = mqtx_dev_clock(dev);
	pthread_mutex_init(&s->lock, NULL);
	mqtx__wire_clock_init(&s->wire, s->clock, swf_round, s);
	return 0;
}

static void swf_uninit(struct mqtx_dev *dev)
{
	struct swf_priv *s = swf(dev);

	mqtx_wme_detach(dev);
	pthread_mutex_destroy(&s->lock);
	mqtx__wire_clock_destroy(&s->wire);
}

static int swf_open(struct mqtx_dev *dev)
{
	struct swf_priv *s = swf(dev);
	struct mqtx_sim_wifi_cfg run = s->cfg;
	enum mqtx_wme_role role = mqtx_wme_get_role(dev);
	int err = swf_resolve(dev, &run, role, NULL);

	if (err)
		return err;
	raise_aifsn(dev, &run, role, true);
	pthread_mutex_lock(&s->lock);
	s->run = run;
	s->rng = run.seed;
	s->ba_mode = run.ba_mode;
	s->ba_delay = run.ba_delay_ns;
	memset(s->count, 0, sizeof(s->count));
	memset(s->stopped, 0, sizeof(s->stopped));
	memset(s->ba, 0, sizeof(s->ba));
	mqtx__swf_air_reset(s);
	pthread_mutex_unlock(&s->lock);
	atomic_store(&s->up, true);
	err = mqtx__wire_clock_start(&s->wire, run.coalesce_ns);
	if (err) {
		atomic_store(&s->up, false);
		mqtx_log(MQTX_LOG_ERR, "sim-wifi: %s: cannot start the medium thread",
			 mqtx_dev_name(dev));
		return err;
	}
	return 0;
}

static void flush_list(struct mqtx_pkt_list *l, uint64_t *flushed)
{
	*flushed += l->len;
	mqtx_pkt_free_list(l->head);
	mqtx_pkt_list_init(l);
}

/* The device is down: stop the medium, drop what is on the rings (counted), end sessions. */
static void swf_stop(struct mqtx_dev *dev)
{
	struct swf_priv *s = swf(dev);

	atomic_store(&s->up, false);
	mqtx__wire_clock_stop(&s->wire);
	pthread_mutex_lock(&s->lock);
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		flush_list(&s->ac[ac].fifo, &s->st.flushed);
		s->ac[ac].st.queued = 0;
	}
	flush_list(&s->air, &s->st.flushed);
	s->busy = false;
	memset(s->count, 0, sizeof(s->count));
	memset(s->stopped, 0, sizeof(s->stopped));
	memset(s->ba, 0, sizeof(s->ba));
	pthread_mutex_unlock(&s->lock);
	for (uint32_t q = 0; q < s->nq; q++)
		mqtx_txq_bql_reset(mqtx_dev_txq(dev, q));
	mqtx_wme_dev_down(dev);
}

const struct mqtx_dev_ops mqtx_sim_wifi_ops = {
	.kind = "sim-wifi",
	.priv_size = sizeof(struct swf_priv),
	.init = swf_init,
	.uninit = swf_uninit,
	.open = swf_open,
	.stop = swf_stop,
	.xmit_burst = swf_xmit_burst,
	.select_queue = swf_select_queue,
	.inflight = swf_inflight,
	.get_xstats = swf_xstats,
};

int mqtx_sim_wifi_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_sim_wifi_cfg *sw,
			     const struct mqtx_wme_cfg *wme, struct mqtx_dev **out,
			     struct mqtx_extack *ack)
{
	struct mqtx_wme_cfg wc = { .num_agg_queues = MQTX_SIM_WIFI_AGG_DEFAULT };
	struct mqtx_sim_wifi_cfg sc = sw ? *sw : (struct mqtx_sim_wifi_cfg){ 0 };
	struct mqtx_dev_cfg c = *base;
	struct mqtx_dev *dev;
	int err;

	if (wme)
		wc = *wme;
	if (wc.num_agg_queues > MQTX_WME_MAX_AGG_QUEUES)
		return mqtx_extack_set(ack, "%u aggregation queues: at most %u", wc.num_agg_queues,
				       MQTX_WME_MAX_AGG_QUEUES);
	/* Checked before anything exists, so that a bad model creates nothing. */
	err = swf_resolve(NULL, &sc, wc.role, ack);
	if (err)
		return err;
	c.ops = &mqtx_sim_wifi_ops;
	c.priv_size = 0;
	c.num_txq = MQTX_WME_NUM_AC + wc.num_agg_queues;
	c.real_num_txq = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	err = mqtx_wme_attach(dev, &wc, &swf_wme_ops, ack);
	if (err) {
		mqtx_dev_destroy(dev);
		return err;
	}
	if (sw)
		swf(dev)->cfg = *sw;
	*out = dev;
	return 0;
}

int mqtx_sim_wifi_configure(struct mqtx_dev *dev, const struct mqtx_sim_wifi_cfg *sw,
			    struct mqtx_extack *ack)
{
	struct mqtx_sim_wifi_cfg c = *sw;
	int err;

	if (!is_swf(dev))
		return mqtx_extack_set(ack, "%s is not a sim-wifi device",
				       dev ? mqtx_dev_name(dev) : "(none)");
	err = swf_resolve(dev, &c, mqtx_wme_get_role(dev), ack);
	if (err)
		return err;
	mqtx_dev_config_lock(dev);
	if (mqtx_dev_is_up(dev)) {
		mqtx_dev_config_unlock(dev);
		mqtx_extack_set(ack, "%s is up: bring it down to change its model",
				mqtx_dev_name(dev));
		return -EBUSY;
	}
	/* The caller's zeroes stay: defaults depend on the clock and are resolved at open. */
	swf(dev)->cfg = *sw;
	mqtx_dev_config_unlock(dev);
	return 0;
}

int mqtx_sim_wifi_get_cfg(struct mqtx_dev *dev, struct mqtx_sim_wifi_cfg *sw)
{
	int err;

	if (!is_swf(dev))
		return -EINVAL;
	mqtx_dev_config_lock(dev);
	*sw = swf(dev)->cfg;
	mqtx_dev_config_unlock(dev);
	err = swf_resolve(dev, sw, mqtx_wme_get_role(dev), NULL);
	if (!err)
		raise_aifsn(dev, sw, mqtx_wme_get_role(dev), false);
	return err;
}

int mqtx_sim_wifi_set_ba(struct mqtx_dev *dev, enum mqtx_sim_wifi_ba_mode mode, uint64_t delay_ns)
{
	struct swf_priv *s;

	if (!is_swf(dev) || (unsigned)mode > MQTX_SIM_WIFI_BA_SILENT)
		return -EINVAL;
	s = swf(dev);
	mqtx_dev_config_lock(dev);
	s->cfg.ba_mode = mode;
	s->cfg.ba_delay_ns = delay_ns;
	pthread_mutex_lock(&s->lock);
	s->ba_mode = mode;
	s->ba_delay = delay_ns ? delay_ns : MQTX_SIM_WIFI_BA_DELAY_DEFAULT;
	pthread_mutex_unlock(&s->lock);
	mqtx_dev_config_unlock(dev);
	return 0;
}

int mqtx_sim_wifi_ac_stats(struct mqtx_dev *dev, enum mqtx_wme_ac ac,
			   struct mqtx_sim_wifi_ac_stats *st)
{
	struct swf_priv *s;

	if (!is_swf(dev) || (unsigned)ac >= MQTX_WME_NUM_AC)
		return -EINVAL;
	s = swf(dev);
	pthread_mutex_lock(&s->lock);
	*st = s->ac[ac].st;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int mqtx_sim_wifi_stats(struct mqtx_dev *dev, struct mqtx_sim_wifi_stats *st)
{
	struct swf_priv *s;

	if (!is_swf(dev))
		return -EINVAL;
	s = swf(dev);
	pthread_mutex_lock(&s->lock);
	*st = s->st;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

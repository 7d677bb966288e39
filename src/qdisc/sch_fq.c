// SPDX-License-Identifier: MIT
/* fq: fair queueing with per-flow pacing (Linux 6.12's net/sched/sch_fq.c): flows by the frame's
 * hash, round robin with credit, three priority bands, pacing by maxrate and by the departure
 * time a sender puts on the packet (mqtx_pkt_set_txtime()), with a horizon. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/codel.h"
#include "qdisc/fq.h"
#include "qdisc/kinds.h"
#include <mqtx/tc.h>

#define FQ_BANDS	3
#define FQ_PRIOS	16
#define FQ_MIN_WEIGHT	16384
#define FQ_GC_MAX	8
#define FQ_GC_AGE	(3 * MQTX_NSEC_PER_SEC)
#define FQ_NO_TIME	UINT64_MAX
#define FQ_UNLIMITED	UINT32_MAX /* maxrate: none (~0U as tc sends it) */
#define FQ_MAX_LOG	18	   /* buckets up to 256k (fq_change) */
#define FQ_INTERNAL_MAX 8	   /* fq_fastpath_check(): the fast path holds fewer than 8 */

/* Linux's sch_default_prio2band, fq's default priomap. */
static const uint8_t fq_default_prio2band[FQ_PRIOS] = { 1, 2, 2, 2, 1, 2, 0, 0,
							1, 1, 1, 1, 1, 1, 1, 1 };
static const uint32_t fq_default_weights[FQ_BANDS] = { 9 << 16, 3 << 16, 1 << 16 };

/* Which options a command gave (tc sends only those). */
enum {
	FQ_SET_LIMIT = 1u << 0,
	FQ_SET_FLOW_LIMIT = 1u << 1,
	FQ_SET_BUCKETS = 1u << 2,
	FQ_SET_QUANTUM = 1u << 3,
	FQ_SET_IQUANTUM = 1u << 4,
	FQ_SET_PACING = 1u << 5,
	FQ_SET_MAXRATE = 1u << 6,
	FQ_SET_LOWRATE = 1u << 7,
	FQ_SET_REFILL = 1u << 8,
	FQ_SET_ORPHAN = 1u << 9,
	FQ_SET_CE = 1u << 10,
	FQ_SET_SLACK = 1u << 11,
	FQ_SET_HORIZON = 1u << 12,
	FQ_SET_HDROP = 1u << 13,
	FQ_SET_PRIOMAP = 1u << 14,
	FQ_SET_WEIGHTS = 1u << 15,
};

/* The options as tc sends them: times in microseconds, timer_slack in ns, rates in bytes/s. */
struct fq_opt {
	uint32_t set;
	uint32_t limit, flow_limit, buckets_log, quantum, initial_quantum, pacing;
	uint32_t maxrate, low_rate_threshold, refill_delay, orphan_mask, ce_threshold;
	uint32_t timer_slack, horizon;
	uint8_t horizon_drop;
	uint8_t priomap[FQ_PRIOS];
	uint32_t weights[FQ_BANDS];
};

/* One configuration, as the data path reads it (fq_sched_data's read-mostly part). */
struct fq_cfg {
	uint32_t limit, flow_limit, quantum, initial_quantum, orphan_mask;
	uint64_t maxrate; /* bytes/s, FQ_UNLIMITED: none */
	uint64_t low_rate_threshold;
	uint64_t refill_delay, ce_threshold, horizon, timer_slack; /* ns */
	uint8_t buckets_log, pacing, horizon_drop;
	uint8_t prio2band[FQ_PRIOS];
	uint32_t weights[FQ_BANDS];
};

enum fq_state { FQ_DETACHED, FQ_LISTED, FQ_THROTTLED };

/* A flow: the packets of one hash (under orphan_mask), in departure-time order. */
struct fq_flow {
	struct fq_flow *hnext; /* bucket chain */
	struct fq_flow *next;  /* new/old list, or the throttled list */
	struct mqtx_pkt_list q;
	uint32_t key;
	int32_t credit;
	uint8_t band;
	uint8_t state;
	uint64_t age; /* when it became detached, for the refill and the gc */
	uint64_t time_next_packet;
};

struct fq_flow_head {
	struct fq_flow *first, *last;
};

struct fq_band {
	struct fq_flow_head new_flows, old_flows;
	int32_t credit;
};

/* What each packet carries while queued (in its control block). */
struct fq_cb {
	uint64_t time_to_send;
	uint8_t band;
};

struct fq_priv {
	struct fq_cfg cfg;
	struct fq_flow **buckets;
	struct fq_flow internal; /* the fast path queue */
	struct fq_band bands[FQ_BANDS];
	unsigned band_nr;
	struct fq_flow *throttled; /* by time_next_packet, earliest first (Linux's rbtree) */
	uint64_t time_next_delayed_flow, unthrottle_latency_ns;
	uint32_t band_pkt_count[FQ_BANDS];
	uint32_t flows, inactive_flows, throttled_flows;
	uint64_t stat_throttled, stat_gc_flows, stat_ce_mark, stat_horizon_drops;
	uint64_t stat_horizon_caps, stat_flows_plimit, stat_pkts_too_long, stat_alloc_errors;
	uint64_t stat_fastpath;
	struct mqtx_pkt *peeked; /* dequeued by a peek, sent by the next dequeue */
	struct mqtx_timer watchdog;
	bool watchdog_ready;
};

static struct fq_cb *fq_cb(const struct mqtx_pkt *pkt)
{
	return (struct fq_cb *)(void *)pkt->cb;
}

/* ---- flows ---- */

static void fq_head_add(struct fq_flow_head *h, struct fq_flow *f)
{
	f->next = NULL;
	if (h->first)
		h->last->next = f;
	else
		h->first = f;
	h->last = f;
	f->state = FQ_LISTED;
}

static void fq_detach(struct fq_flow *f, uint64_t now)
{
	f->state = FQ_DETACHED;
	f->age = now;
}

/* fq_flow_set_throttled(): into the time-ordered list, after those due at the same time. */
static void fq_set_throttled(struct fq_priv *p, struct fq_flow *f)
{
	struct fq_flow **pp = &p->throttled;

	while (*pp && (*pp)->time_next_packet <= f->time_next_packet)
		pp = &(*pp)->next;
	f->next = *pp;
	*pp = f;
	f->state = FQ_THROTTLED;
	p->throttled_flows++;
	p->stat_throttled++;
	if (p->time_next_delayed_flow > f->time_next_packet)
		p->time_next_delayed_flow = f->time_next_packet;
}

/* fq_check_throttled(): the flows due by @now go back to their band's old flows. */
static void fq_check_throttled(struct fq_priv *p, uint64_t now)
{
	if (p->time_next_delayed_flow > now)
		return;
	p->unthrottle_latency_ns -= p->unthrottle_latency_ns >> 3;
	p->unthrottle_latency_ns += (now - p->time_next_delayed_flow) >> 3;
	p->time_next_delayed_flow = FQ_NO_TIME;
	while (p->throttled) {
		struct fq_flow *f = p->throttled;

		if (f->time_next_packet > now) {
			p->time_next_delayed_flow = f->time_next_packet;
			break;
		}
		p->throttled = f->next;
		p->throttled_flows--;
		fq_head_add(&p->bands[f->band].old_flows, f);
	}
}

static uint32_t fq_bucket(uint32_t key, uint8_t log)
{
	return (key * 0x61C88647u) >> (32 - log); /* Linux's hash_32() */
}

/* fq_gc(): free up to FQ_GC_MAX flows of this bucket detached for FQ_GC_AGE. */
static void fq_gc(struct fq_priv *p, struct fq_flow **bucket, uint32_t key, uint64_t now)
{
	unsigned n = 0;

	for (struct fq_flow **pp = bucket; *pp && n < FQ_GC_MAX;) {
		struct fq_flow *f = *pp;

		if (f->key != key && f->state == FQ_DETACHED && !f->q.len &&
		    now - f->age > FQ_GC_AGE) {
			*pp = f->hnext;
			mqtx_free(f);
			n++;
			continue;
		}
		pp = &f->hnext;
	}
	p->flows -= n;
	p->inactive_flows -= n;
	p->stat_gc_flows += n;
}

/* The frame's flow hash, of its 5-tuple: always computed here (as fq_codel does), not taken
 * from pkt->hash, which queue selection sets only on some paths (not with one TX queue): a
 * flow whose packets came by both would become two flows and be reordered. */
static uint32_t fq_hash(const struct mqtx_pkt *pkt)
{
	struct fq_tuple t;

	memset(&t, 0, sizeof(t));
	fq_tuple_set(&t, pkt);
	return mqtx_jhash(&t, sizeof(t), 0);
}

/* fq_fastpath_check(): a packet due now may skip the flows when nothing else is eligible and
 * no maxrate paces (mqtx's packets have no socket, so its pacing rate never applies). */
static bool fq_fastpath(struct mqtx_qdisc *q, struct fq_priv *p, uint64_t tts, uint64_t now)
{
	if (tts > now)
		return false;
	if (q->qlen) {
		if (p->flows != p->inactive_flows + p->throttled_flows)
			return false;
		if (p->internal.q.len >= FQ_INTERNAL_MAX || p->time_next_delayed_flow <= now)
			return false;
	}
	return p->cfg.maxrate == FQ_UNLIMITED;
}

/* fq_classify(): packets without a socket are flows of their hash under orphan_mask. */
static struct fq_flow *fq_classify(struct mqtx_qdisc *q, struct fq_priv *p,
				   const struct mqtx_pkt *pkt, uint64_t tts, uint64_t now)
{
	struct fq_flow **bucket, *f;
	uint32_t key;

	if (fq_fastpath(q, p, tts, now)) {
		p->stat_fastpath++;
		return &p->internal; /* no flow: the hash is not needed */
	}
	key = fq_hash(pkt) & p->cfg.orphan_mask;
	bucket = &p->buckets[fq_bucket(key, p->cfg.buckets_log)];
	fq_gc(p, bucket, key, now);
	for (f = *bucket; f; f = f->hnext)
		if (f->key == key)
			return f;
	f = mqtx_alloc(sizeof(*f), 0);
	if (!f) {
		p->stat_alloc_errors++;
		return &p->internal;
	}
	memset(f, 0, sizeof(*f));
	mqtx_pkt_list_init(&f->q);
	f->key = key;
	f->credit = (int32_t)p->cfg.initial_quantum;
	fq_detach(f, now);
	f->hnext = *bucket;
	*bucket = f;
	p->flows++;
	p->inactive_flows++;
	return f;
}

/* flow_queue_add(): in departure-time order, after packets due at the same time. */
static void fq_flow_add(struct fq_flow *f, struct mqtx_pkt *pkt)
{
	uint64_t t = fq_cb(pkt)->time_to_send;
	struct mqtx_pkt *prev = NULL, *cur = f->q.head;

	if (!f->q.tail || t >= fq_cb(f->q.tail)->time_to_send) {
		mqtx_pkt_list_add_tail(&f->q, pkt);
		return;
	}
	while (cur && fq_cb(cur)->time_to_send <= t) {
		prev = cur;
		cur = cur->next;
	}
	pkt->next = cur;
	if (prev)
		prev->next = pkt;
	else
		f->q.head = pkt;
	f->q.len++;
}

/* ---- data path ---- */

static int fq_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	uint8_t band = p->cfg.prio2band[pkt->priority & (FQ_PRIOS - 1)];
	uint64_t now, tts;
	struct fq_flow *f;

	if (p->band_pkt_count[band] >= p->cfg.limit)
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	now = mqtx_qdisc_now(q);
	tts = pkt->txtime;
	if (!tts) {
		tts = now;
	} else if ((int64_t)tts > (int64_t)(now + p->cfg.horizon)) {
		if (p->cfg.horizon_drop) {
			p->stat_horizon_drops++;
			return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
		}
		p->stat_horizon_caps++;
		tts = now + p->cfg.horizon;
		pkt->txtime = tts;
	}
	fq_cb(pkt)->time_to_send = tts;
	fq_cb(pkt)->band = band;
	f = fq_classify(q, p, pkt, tts, now);
	if (f != &p->internal) {
		if (f->q.len >= p->cfg.flow_limit) {
			p->stat_flows_plimit++;
			return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
		}
		if (f->state == FQ_DETACHED) {
			fq_head_add(&p->bands[band].new_flows, f);
			if (now > f->age + p->cfg.refill_delay &&
			    (uint32_t)f->credit < p->cfg.quantum) /* max_t(u32, ...) */
				f->credit = (int32_t)p->cfg.quantum;
		}
		f->band = band;
		p->band_pkt_count[band]++;
		if (!f->q.len)
			p->inactive_flows--;
	}
	fq_flow_add(f, pkt);
	q->qlen++;
	q->backlog += pkt->len;
	return MQTX_XMIT_SUCCESS;
}

/* fq_pband_head_select() */
static struct fq_flow_head *fq_head_select(struct fq_band *b)
{
	if (b->credit <= 0)
		return NULL;
	if (b->new_flows.first)
		return &b->new_flows;
	return b->old_flows.first ? &b->old_flows : NULL;
}

static struct mqtx_pkt *fq_take(struct mqtx_qdisc *q, struct fq_flow *f)
{
	struct mqtx_pkt *pkt = mqtx_pkt_list_pop(&f->q);

	q->qlen--;
	q->backlog -= pkt->len;
	return pkt;
}

/* The pacing after @pkt leaves flow @f (the end of fq_dequeue()). */
static void fq_pace(struct fq_priv *p, struct fq_flow *f, const struct mqtx_pkt *pkt, uint64_t now)
{
	uint64_t rate = p->cfg.maxrate, plen = pkt->len, len;

	if (!p->cfg.pacing)
		return;
	/* A departure time the sender set paces the flow only under a maxrate. */
	if (!pkt->txtime) {
		if (rate <= p->cfg.low_rate_threshold) {
			f->credit = 0;
		} else {
			if (plen < p->cfg.quantum)
				plen = p->cfg.quantum;
			if (f->credit > 0)
				return;
		}
	}
	if (rate == FQ_UNLIMITED)
		return;
	len = plen * MQTX_NSEC_PER_SEC;
	if (rate)
		len /= rate;
	if (len > MQTX_NSEC_PER_SEC) { /* clamped to a second, as Linux */
		len = MQTX_NSEC_PER_SEC;
		p->stat_pkts_too_long++;
	}
	/* Linux takes back up to half of the gap by which the packet left late. */
	if (f->time_next_packet) {
		uint64_t late = now - f->time_next_packet;

		len -= len / 2 < late ? len / 2 : late;
	}
	f->time_next_packet = now + len;
}

/* The band's next flow with a packet due, the packet taken off it; NULL: none now. */
static struct mqtx_pkt *fq_dequeue_flows(struct mqtx_qdisc *q, struct fq_priv *p, uint64_t now)
{
	struct fq_band *b = &p->bands[p->band_nr];
	struct fq_flow_head *head;
	struct mqtx_pkt *pkt;
	struct fq_flow *f;
	int retry = 0;

	for (;;) {
		head = fq_head_select(b);
		if (!head) {
			while (++retry <= FQ_BANDS) {
				if (++p->band_nr == FQ_BANDS)
					p->band_nr = 0;
				b = &p->bands[p->band_nr];
				b->credit += (int32_t)p->cfg.weights[p->band_nr];
				if (b->credit > (int32_t)p->cfg.weights[p->band_nr])
					b->credit = (int32_t)p->cfg.weights[p->band_nr];
				if (b->credit > 0)
					break;
				retry = 0;
			}
			if (retry > FQ_BANDS)
				return NULL;
			continue;
		}
		f = head->first;
		retry = 0;
		if (f->credit <= 0) {
			f->credit += (int32_t)p->cfg.quantum;
			head->first = f->next;
			fq_head_add(&b->old_flows, f);
			continue;
		}
		pkt = f->q.head;
		if (!pkt) {
			head->first = f->next;
			if (head == &b->new_flows)
				fq_head_add(&b->old_flows, f); /* a pass through old flows */
			else
				fq_detach(f, now);
			continue;
		}
		{
			uint64_t tnp = fq_cb(pkt)->time_to_send;

			if (f->time_next_packet > tnp)
				tnp = f->time_next_packet;
			if (now < tnp) {
				head->first = f->next;
				f->time_next_packet = tnp;
				fq_set_throttled(p, f);
				continue;
			}
			if ((int64_t)(now - tnp - p->cfg.ce_threshold) > 0 && mqtx_ecn_set_ce(pkt))
				p->stat_ce_mark++;
		}
		fq_take(q, f);
		if (!f->q.len)
			p->inactive_flows++;
		p->band_pkt_count[fq_cb(pkt)->band]--;
		f->credit -= (int32_t)pkt->len;
		b->credit -= (int32_t)pkt->len;
		fq_pace(p, f, pkt, now);
		return pkt;
	}
}

static struct mqtx_pkt *fq_dequeue_one(struct mqtx_qdisc *q)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt;
	uint64_t now;

	if (!q->qlen)
		return NULL;
	if (p->internal.q.head)
		return fq_take(q, &p->internal);
	now = mqtx_qdisc_now(q);
	fq_check_throttled(p, now);
	pkt = fq_dequeue_flows(q, p, now);
	/* qdisc_watchdog_schedule_range_ns(): the slack lets a real timer fire up to timer_slack
	 * late to batch wake-ups; mqtx's timers fire at their expiry, so it adds nothing. */
	if (!pkt && p->time_next_delayed_flow != FQ_NO_TIME)
		mqtx_timer_arm(&p->watchdog, p->time_next_delayed_flow);
	return pkt;
}

static struct mqtx_pkt *fq_dequeue(struct mqtx_qdisc *q)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt = p->peeked;

	if (!pkt)
		return fq_dequeue_one(q);
	p->peeked = NULL;
	q->qlen--;
	q->backlog -= pkt->len;
	return pkt;
}

/* Linux's fq peeks by dequeuing (qdisc_peek_dequeued): the packet is held for the next
 * dequeue and still counted as queued. */
static struct mqtx_pkt *fq_peek(struct mqtx_qdisc *q)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);

	if (!p->peeked) {
		p->peeked = fq_dequeue_one(q);
		if (p->peeked) {
			q->qlen++;
			q->backlog += p->peeked->len;
		}
	}
	return p->peeked;
}

static void fq_watchdog(struct mqtx_timer *t, void *arg)
{
	struct mqtx_qdisc *q = arg;

	(void)t;
	mqtx_txq_schedule(q->dev_queue);
}

/* ---- control path ---- */

/* tc's words: "fq: illegal value for "limit": "x"" (tc: Illegal "limit"). */
static int fq_illegal(const char *name, const char *val, struct mqtx_extack *ack)
{
	return mqtx_extack_set(ack, "fq: illegal value for \"%s\": \"%s\"", name, val);
}

/* get_time64(): a bare number is nanoseconds; the value must fit tc's u32. */
static int fq_time64(const char *v, uint32_t *ns, struct mqtx_extack *ack)
{
	size_t n = strlen(v);
	uint64_t t;
	char *end;
	double d;

	if (n > 2 && !strcmp(v + n - 2, "ns")) {
		d = strtod(v, &end);
		if (end != v + n - 2 || d < 0)
			return fq_illegal("timer_slack", v, ack);
		t = (uint64_t)d;
	} else if (n && v[n - 1] >= '0' && v[n - 1] <= '9') {
		d = strtod(v, &end);
		if (*end || d < 0 || d > 1e19)
			return fq_illegal("timer_slack", v, ack);
		t = (uint64_t)d;
	} else if (mqtx_tc_parse_time(v, &t)) {
		return fq_illegal("timer_slack", v, ack);
	}
	if (t > UINT32_MAX)
		return mqtx_extack_set(ack, "fq: illegal (out of range) \"timer_slack\": \"%s\"",
				       v);
	*ns = (uint32_t)t;
	return 0;
}

/* get_time(): microseconds in tc's u32. */
static int fq_time_us(const char *name, const char *v, uint32_t *us, struct mqtx_extack *ack)
{
	uint64_t ns;

	if (mqtx_tc_parse_time(v, &ns) || ns / 1000 > UINT32_MAX)
		return fq_illegal(name, v, ack);
	*us = (uint32_t)(ns / 1000);
	return 0;
}

/* get_rate(): bytes per second in tc's u32; no percentages (they need the link's speed). */
static int fq_rate(const char *name, const char *v, uint32_t *bps, struct mqtx_extack *ack)
{
	uint64_t r;

	if (mqtx_tc_parse_rate(v, &r) || r > UINT32_MAX)
		return fq_illegal(name, v, ack);
	*bps = (uint32_t)r;
	return 0;
}

static int fq_u32(const char *name, const char *v, uint32_t *out, struct mqtx_extack *ack)
{
	return mqtx_tc_parse_u32(v, out) ? fq_illegal(name, v, ack) : 0;
}

/* "priomap P0 .. P15" and "weights W0 W1 W2", as iproute2 6.7 added them. */
static int fq_list(int argc, char **argv, int *i, struct fq_opt *o, bool prio,
		   struct mqtx_extack *ack)
{
	unsigned n = prio ? FQ_PRIOS : FQ_BANDS;

	for (unsigned k = 0; k < n; k++) {
		const char *v = mqtx_tc_next_arg(argc, argv, i, ack);
		uint32_t x;

		if (!v)
			return MQTX_TC_EFATAL;
		if (mqtx_tc_parse_u32(v, &x))
			return fq_illegal(prio ? "priomap" : "weights", v, ack);
		if (prio && x >= FQ_BANDS)
			return mqtx_extack_set(ack, "fq: priomap value %u is not a band (0..%d)", x,
					       FQ_BANDS - 1);
		if (prio)
			o->priomap[k] = (uint8_t)x;
		else
			o->weights[k] = x;
	}
	o->set |= prio ? FQ_SET_PRIOMAP : FQ_SET_WEIGHTS;
	return 0;
}

/* The options that take one value: word, flag, and where the value goes. */
static const struct fq_word {
	const char *word;
	uint32_t set;
	char type; /* u: number, r: rate, t: time in us, n: time in ns, l: bucket count */
	size_t off;
} fq_words[] = {
	{ "limit", FQ_SET_LIMIT, 'u', offsetof(struct fq_opt, limit) },
	{ "flow_limit", FQ_SET_FLOW_LIMIT, 'u', offsetof(struct fq_opt, flow_limit) },
	{ "buckets", FQ_SET_BUCKETS, 'l', offsetof(struct fq_opt, buckets_log) },
	{ "maxrate", FQ_SET_MAXRATE, 'r', offsetof(struct fq_opt, maxrate) },
	{ "low_rate_threshold", FQ_SET_LOWRATE, 'r', offsetof(struct fq_opt, low_rate_threshold) },
	{ "ce_threshold", FQ_SET_CE, 't', offsetof(struct fq_opt, ce_threshold) },
	{ "timer_slack", FQ_SET_SLACK, 'n', offsetof(struct fq_opt, timer_slack) },
	{ "horizon", FQ_SET_HORIZON, 't', offsetof(struct fq_opt, horizon) },
	{ "defrate", 0, 'r', 0 }, /* tc sends it, Linux ignores it */
	{ "quantum", FQ_SET_QUANTUM, 'u', offsetof(struct fq_opt, quantum) },
	{ "initial_quantum", FQ_SET_IQUANTUM, 'u', offsetof(struct fq_opt, initial_quantum) },
	{ "orphan_mask", FQ_SET_ORPHAN, 'u', offsetof(struct fq_opt, orphan_mask) },
	{ "refill_delay", FQ_SET_REFILL, 't', offsetof(struct fq_opt, refill_delay) },
};

static int fq_parse_value(const struct fq_word *w, const char *v, struct fq_opt *o,
			  struct mqtx_extack *ack)
{
	uint32_t dummy, *dst = w->set ? (uint32_t *)(void *)((char *)o + w->off) : &dummy;
	int err;

	switch (w->type) {
	case 'r':
		err = fq_rate(w->word, v, dst, ack);
		break;
	case 't':
		err = fq_time_us(w->word, v, dst, ack);
		break;
	case 'n':
		err = fq_time64(v, dst, ack);
		break;
	default:
		err = fq_u32(w->word, v, dst, ack);
		break;
	}
	if (err)
		return err;
	if (w->type == 'l') { /* tc sends the log of the count, rounded up; 0: not sent */
		uint32_t n = *dst, log = 0;

		if (!n)
			return 0;
		for (n--; n; n >>= 1)
			log++;
		*dst = log;
	}
	o->set |= w->set;
	return 0;
}

static int fq_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct fq_opt *o = opt;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		size_t k;
		int err;

		if (!strcmp(a, "pacing") || !strcmp(a, "nopacing")) {
			o->pacing = a[0] == 'p';
			o->set |= FQ_SET_PACING;
			continue;
		}
		if (!strcmp(a, "horizon_drop") || !strcmp(a, "horizon_cap")) {
			o->horizon_drop = a[8] == 'd';
			o->set |= FQ_SET_HDROP;
			continue;
		}
		if (!strcmp(a, "priomap") || !strcmp(a, "weights")) {
			err = fq_list(argc, argv, &i, o, a[0] == 'p', ack);
			if (err)
				return err == MQTX_TC_EFATAL ? err : -EINVAL;
			continue;
		}
		for (k = 0; k < sizeof(fq_words) / sizeof(fq_words[0]); k++)
			if (!strcmp(a, fq_words[k].word))
				break;
		if (k == sizeof(fq_words) / sizeof(fq_words[0]))
			return mqtx_tc_unknown("fq", a, ack);
		v = mqtx_tc_next_arg(argc, argv, &i, ack);
		if (!v)
			return MQTX_TC_EFATAL;
		if (fq_parse_value(&fq_words[k], v, o, ack))
			return -EINVAL;
	}
	return 0;
}

/* fq_change() on what tc sent, into @c (the current or default configuration). Unlike Linux,
 * which applies what precedes a refused value, a refusal changes nothing. */
static int fq_resolve(const struct fq_opt *o, struct fq_cfg *c, struct mqtx_extack *ack)
{
	if ((o->set & FQ_SET_BUCKETS) && (o->buckets_log < 1 || o->buckets_log > FQ_MAX_LOG)) {
		mqtx_log(MQTX_LOG_ERR, "fq: buckets %u is out of range (2 to %u)",
			 1u << (o->buckets_log > 31 ? 31 : o->buckets_log), 1u << FQ_MAX_LOG);
		return -EINVAL;
	}
	if ((o->set & FQ_SET_IQUANTUM) && o->initial_quantum > (1u << 20))
		return mqtx_extack_set(ack, "integer out of range");
	if (o->set & FQ_SET_WEIGHTS)
		for (int i = 0; i < FQ_BANDS; i++)
			if (o->weights[i] < FQ_MIN_WEIGHT || o->weights[i] > INT32_MAX)
				return mqtx_extack_set(ack,
						       "Weight %d less that minimum allowed %d",
						       (int32_t)o->weights[i], FQ_MIN_WEIGHT);
	if (o->set & FQ_SET_BUCKETS)
		c->buckets_log = (uint8_t)o->buckets_log;
	if (o->set & FQ_SET_LIMIT)
		c->limit = o->limit;
	if (o->set & FQ_SET_FLOW_LIMIT)
		c->flow_limit = o->flow_limit;
	if (o->set & FQ_SET_QUANTUM)
		c->quantum = o->quantum < 256	       ? 256
			     : o->quantum > (1u << 20) ? 1u << 20
						       : o->quantum;
	if (o->set & FQ_SET_IQUANTUM)
		c->initial_quantum = o->initial_quantum;
	if (o->set & FQ_SET_MAXRATE)
		c->maxrate = o->maxrate;
	if (o->set & FQ_SET_LOWRATE)
		c->low_rate_threshold = o->low_rate_threshold;
	if (o->set & FQ_SET_PACING)
		c->pacing = (uint8_t)o->pacing;
	if (o->set & FQ_SET_REFILL)
		c->refill_delay = 1000ull * o->refill_delay;
	if (o->set & FQ_SET_PRIOMAP)
		memcpy(c->prio2band, o->priomap, sizeof(c->prio2band));
	if (o->set & FQ_SET_WEIGHTS)
		memcpy(c->weights, o->weights, sizeof(c->weights));
	if (o->set & FQ_SET_ORPHAN)
		c->orphan_mask = o->orphan_mask;
	if (o->set & FQ_SET_CE)
		c->ce_threshold = 1000ull * o->ce_threshold;
	if (o->set & FQ_SET_SLACK)
		c->timer_slack = o->timer_slack;
	if (o->set & FQ_SET_HORIZON)
		c->horizon = 1000ull * o->horizon;
	if (o->set & FQ_SET_HDROP)
		c->horizon_drop = o->horizon_drop;
	return 0;
}

/* tc's sprint_time64(): nanoseconds in words ("10us", "100ns"). */
static const char *fq_time64_words(char *b, size_t n, uint64_t ns)
{
	double d = (double)ns;

	if (ns >= MQTX_NSEC_PER_SEC)
		snprintf(b, n, "%.3gs", d / 1e9);
	else if (ns >= 1000000)
		snprintf(b, n, "%.3gms", d / 1e6);
	else if (ns >= 1000)
		snprintf(b, n, "%.3gus", d / 1e3);
	else
		snprintf(b, n, "%" PRIu64 "ns", ns);
	return b;
}

/* A value in ns: "@name WORDS" in text, the number in JSON (tc's print_uint(PRINT_JSON) and
 * sprint_time64()). mqtx_dump_size() with no text is a plain number in JSON. */
static void fq_dump_ns(struct mqtx_dump *d, const char *name, uint64_t ns)
{
	char w[MQTX_TC_BUF], text[64];

	snprintf(text, sizeof(text), "%s %s", name, fq_time64_words(w, sizeof(w), ns));
	mqtx_dump_flag(d, NULL, text);
	mqtx_dump_size(d, name, NULL, ns);
}

/* fq_print_opt() of tc 6.1 on what fq_dump() reports: every option, in tc's order. The bands'
 * priomap and weights, which tc 6.1 neither sets nor shows, are shown when not the default. */
static void fq_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	const struct fq_cfg *c = &p->cfg;

	mqtx_dump_uint(d, "limit", "limit %" PRIu64 "p", c->limit);
	mqtx_dump_uint(d, "flow_limit", "flow_limit %" PRIu64 "p", c->flow_limit);
	mqtx_dump_uint(d, "buckets", "buckets %" PRIu64, 1u << c->buckets_log);
	mqtx_dump_uint(d, "orphan_mask", "orphan_mask %" PRIu64, c->orphan_mask);
	if (!c->pacing) { /* print_bool(): "pacing": false in JSON */
		mqtx_dump_flag(d, NULL, "nopacing");
		mqtx_dump_bool(d, "pacing", NULL, false);
	}
	mqtx_dump_size(d, "quantum", "quantum %s", c->quantum);
	mqtx_dump_size(d, "initial_quantum", "initial_quantum %s", c->initial_quantum);
	if (c->maxrate != FQ_UNLIMITED)
		mqtx_dump_rate(d, "maxrate", "maxrate %s", c->maxrate);
	if (c->low_rate_threshold)
		mqtx_dump_rate(d, "low_rate_threshold", "low_rate_threshold %s",
			       c->low_rate_threshold);
	mqtx_dump_time(d, "refill_delay", "refill_delay %s", c->refill_delay);
	if (c->ce_threshold / 1000 != UINT32_MAX)
		mqtx_dump_time(d, "ce_threshold", "ce_threshold %s", c->ce_threshold);
	fq_dump_ns(d, "timer_slack", c->timer_slack);
	mqtx_dump_time(d, "horizon", "horizon %s", c->horizon);
	/* tc prints print_null(): "horizon_drop": null in its JSON; mqtx's emitter writes true. */
	mqtx_dump_flag(d, c->horizon_drop ? "horizon_drop" : "horizon_cap",
		       c->horizon_drop ? "horizon_drop" : "horizon_cap");
	if (memcmp(c->prio2band, fq_default_prio2band, sizeof(c->prio2band)) ||
	    memcmp(c->weights, fq_default_weights, sizeof(c->weights))) {
		uint32_t map[FQ_PRIOS];

		for (int i = 0; i < FQ_PRIOS; i++)
			map[i] = c->prio2band[i];
		mqtx_dump_uint(d, "bands", "bands %" PRIu64, FQ_BANDS);
		mqtx_dump_uint_array(d, "priomap", "priomap", map, FQ_PRIOS);
		mqtx_dump_uint_array(d, "weights", "weights", c->weights, FQ_BANDS);
	}
}

/* fq_print_xstats() of tc 6.1 on fq_dump_stats(). Its third line starts with one blank where
 * mqtx's emitter indents every line by two. */
static void fq_dump_stats(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	int64_t next =
		(int64_t)(p->time_next_delayed_flow + p->cfg.timer_slack - mqtx_qdisc_now(q));
	char w[MQTX_TC_BUF], text[64];

	mqtx_dump_uint(d, "flows", "flows %" PRIu64, p->flows);
	mqtx_dump_uint(d, "inactive", "(inactive %" PRIu64, p->inactive_flows);
	mqtx_dump_uint(d, "throttled", "throttled %" PRIu64 ")", p->throttled_flows);
	if (next > 0) {
		snprintf(text, sizeof(text), "next_packet_delay %s",
			 fq_time64_words(w, sizeof(w), (uint64_t)next));
		mqtx_dump_flag(d, NULL, text);
		mqtx_dump_size(d, "next_packet_delay", NULL, (uint64_t)next);
	}
	mqtx_dump_nl(d);
	mqtx_dump_uint(d, "gc", "gc %" PRIu64, p->stat_gc_flows);
	mqtx_dump_uint(d, "highprio", "highprio %" PRIu64, 0);
	mqtx_dump_uint(d, "throttled", "throttled %" PRIu64, p->stat_throttled);
	if (p->unthrottle_latency_ns)
		fq_dump_ns(d, "latency", p->unthrottle_latency_ns);
	if (p->stat_ce_mark)
		mqtx_dump_uint(d, "ce_mark", "ce_mark %" PRIu64, p->stat_ce_mark);
	if (p->stat_flows_plimit)
		mqtx_dump_uint(d, "flows_plimit", "flows_plimit %" PRIu64, p->stat_flows_plimit);
	if (p->stat_pkts_too_long || p->stat_alloc_errors || p->stat_horizon_drops ||
	    p->stat_horizon_caps) {
		mqtx_dump_nl(d);
		if (p->stat_pkts_too_long)
			mqtx_dump_uint(d, "pkts_too_long", "pkts_too_long %" PRIu64,
				       p->stat_pkts_too_long);
		if (p->stat_alloc_errors)
			mqtx_dump_uint(d, "alloc_errors", "alloc_errors %" PRIu64,
				       p->stat_alloc_errors);
		if (p->stat_horizon_drops)
			mqtx_dump_uint(d, "horizon_drops", "horizon_drops %" PRIu64,
				       p->stat_horizon_drops);
		if (p->stat_horizon_caps) /* tc puts two blanks before this one */
			mqtx_dump_uint(d, "horizon_caps", " horizon_caps %" PRIu64,
				       p->stat_horizon_caps);
	}
}

static void fq_defaults(struct mqtx_qdisc *q, struct fq_cfg *c)
{
	uint32_t mtu = mqtx_dev_mtu(q->dev) + 14; /* psched_mtu(): with the link-layer header */

	memset(c, 0, sizeof(*c));
	c->limit = 10000;
	c->flow_limit = 100;
	c->quantum = 2 * mtu < 256 ? 256 : 2 * mtu;
	c->initial_quantum = 10 * mtu < (1u << 20) ? 10 * mtu : 1u << 20;
	c->refill_delay = 40 * 1000000ull;
	c->maxrate = FQ_UNLIMITED;
	c->pacing = 1;
	c->buckets_log = 10;
	c->orphan_mask = 1023;
	c->low_rate_threshold = 550000 / 8;
	c->timer_slack = 10000;
	c->horizon = 10 * MQTX_NSEC_PER_SEC;
	c->horizon_drop = 1;
	c->ce_threshold = 1000ull * UINT32_MAX;
	memcpy(c->prio2band, fq_default_prio2band, sizeof(c->prio2band));
	memcpy(c->weights, fq_default_weights, sizeof(c->weights));
}

static struct fq_flow **fq_buckets_alloc(uint8_t log)
{
	struct fq_flow **b = mqtx_alloc(sizeof(*b) << log, 0);

	if (b)
		memset(b, 0, sizeof(*b) << log);
	return b;
}

/* fq_rehash(): every flow into the new table; detached empty ones are freed on the way. */
static void fq_rehash(struct fq_priv *p, struct fq_flow **nb, uint8_t nlog, uint64_t now)
{
	for (uint32_t i = 0; i < (1u << p->cfg.buckets_log); i++) {
		while (p->buckets[i]) {
			struct fq_flow *f = p->buckets[i];

			p->buckets[i] = f->hnext;
			if (f->state == FQ_DETACHED && now - f->age > FQ_GC_AGE) {
				mqtx_free(f);
				p->flows--;
				p->inactive_flows--;
				p->stat_gc_flows++;
				continue;
			}
			f->hnext = nb[fq_bucket(f->key, nlog)];
			nb[fq_bucket(f->key, nlog)] = f;
		}
	}
}

static void fq_apply(struct fq_priv *p, const struct fq_cfg *c, struct fq_flow ***nb, uint64_t now)
{
	if (*nb) {
		struct fq_flow **old = p->buckets;

		if (old)
			fq_rehash(p, *nb, c->buckets_log, now);
		p->buckets = *nb;
		*nb = old;
	}
	p->cfg = *c;
}

static int fq_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	struct fq_flow **nb;
	struct fq_cfg c;
	int err;

	mqtx_pkt_list_init(&p->internal.q);
	mqtx_timer_init(&p->watchdog, mqtx_dev_clock(q->dev), fq_watchdog, q);
	p->watchdog_ready = true;
	p->time_next_delayed_flow = FQ_NO_TIME;
	fq_defaults(q, &c);
	err = opt ? fq_resolve(opt, &c, ack) : 0;
	if (err)
		return err;
	nb = fq_buckets_alloc(c.buckets_log);
	if (!nb)
		return -ENOMEM;
	fq_apply(p, &c, &nb, 0);
	return 0;
}

/* Lock held: drop what a lowered limit leaves over, the packets that would leave next
 * (fq_change() dequeues them). */
static void fq_trim(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);

	while (q->qlen > p->cfg.limit) {
		struct mqtx_pkt *pkt = fq_dequeue(q);

		if (!pkt)
			break;
		mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	}
}

static int fq_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		     struct mqtx_extack *ack)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	struct fq_flow **nb = NULL;
	struct fq_cfg c;
	int err;

	if (!opt)
		return 0;
	mqtx_qdisc_lock(q);
	c = p->cfg;
	mqtx_qdisc_unlock(q);
	err = fq_resolve(opt, &c, ack);
	if (err)
		return err;
	if (c.buckets_log != p->cfg.buckets_log) {
		nb = fq_buckets_alloc(c.buckets_log);
		if (!nb)
			return -ENOMEM;
	}
	mqtx_qdisc_lock(q);
	fq_apply(p, &c, &nb, mqtx_qdisc_now(q));
	fq_trim(q, to_free);
	mqtx_qdisc_unlock(q);
	mqtx_free(nb);
	return 0;
}

static void fq_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);

	/* Each splice goes in front of *@to_free: the flows first, then the fast path queue, then
	 * the peeked packet, so that a replace re-enqueues each flow's packets in order. */
	for (uint32_t i = 0; p->buckets && i < (1u << p->cfg.buckets_log); i++) {
		while (p->buckets[i]) {
			struct fq_flow *f = p->buckets[i];

			p->buckets[i] = f->hnext;
			mqtx_pkt_list_splice(&f->q, to_free);
			mqtx_free(f);
		}
	}
	mqtx_pkt_list_splice(&p->internal.q, to_free);
	if (p->peeked)
		mqtx_pkt_link(p->peeked, to_free);
	p->peeked = NULL;
	for (int i = 0; i < FQ_BANDS; i++) /* fq_reset() leaves the bands' credit */
		p->bands[i].new_flows.first = p->bands[i].old_flows.first = NULL;
	memset(p->band_pkt_count, 0, sizeof(p->band_pkt_count));
	p->throttled = NULL;
	p->flows = p->inactive_flows = p->throttled_flows = 0;
	p->time_next_delayed_flow = FQ_NO_TIME;
	q->qlen = 0;
	q->backlog = 0;
	if (p->watchdog_ready)
		mqtx_timer_cancel(&p->watchdog);
}

static void fq_destroy(struct mqtx_qdisc *q)
{
	struct fq_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *none = NULL;

	fq_reset(q, &none); /* the queue is empty: this frees the flows */
	mqtx_free(p->buckets);
}

const struct mqtx_qdisc_ops mqtx_fq_qdisc_ops = {
	.id = "fq",
	.priv_size = sizeof(struct fq_priv),
	.opt_size = sizeof(struct fq_opt),
	.enqueue = fq_enqueue,
	.dequeue = fq_dequeue,
	.peek = fq_peek,
	.parse = fq_parse,
	.init = fq_init,
	.change = fq_change,
	.reset = fq_reset,
	.destroy = fq_destroy,
	.dump = fq_dump,
	.dump_stats = fq_dump_stats,
};

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
#include "qdisc/sch_fq.h"
#include "qdisc/watchdog.h"
#include <mqtx/tc.h>

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
			if ((int64_t)(now - tnp - p->cfg.ce_threshold) > 0 && mqtx__ecn_set_ce(pkt))
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

/* ---- control path ---- */

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
	memcpy(c->prio2band, mqtx__fq_default_prio2band, sizeof(c->prio2band));
	memcpy(c->weights, mqtx__fq_default_weights, sizeof(c->weights));
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
	mqtx__qdisc_watchdog_init(&p->watchdog, q);
	p->watchdog_ready = true;
	p->time_next_delayed_flow = FQ_NO_TIME;
	fq_defaults(q, &c);
	err = opt ? mqtx__fq_resolve(opt, &c, ack) : 0;
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
	err = mqtx__fq_resolve(opt, &c, ack);
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

const struct mqtx_qdisc_ops mqtx__fq_qdisc_ops = {
	.id = "fq",
	.usage = "Usage: ... fq\t[ limit PACKETS ] [ flow_limit PACKETS ]\n"
		 "\t\t[ quantum BYTES ] [ initial_quantum BYTES ]\n"
		 "\t\t[ maxrate RATE  ] [ buckets NUMBER ]\n"
		 "\t\t[ [no]pacing ] [ refill_delay TIME ]\n"
		 "\t\t[ low_rate_threshold RATE ]\n"
		 "\t\t[ orphan_mask MASK]\n"
		 "\t\t[ timer_slack TIME]\n"
		 "\t\t[ ce_threshold TIME ]\n"
		 "\t\t[ horizon TIME ]\n"
		 "\t\t[ horizon_{cap|drop} ]\n"
		 "\t\t[ priomap P0 .. P15 ] [ weights W0 W1 W2 ]",
	.priv_size = sizeof(struct fq_priv),
	.opt_size = sizeof(struct fq_opt),
	.enqueue = fq_enqueue,
	.dequeue = fq_dequeue,
	.peek = fq_peek,
	.parse = mqtx__fq_parse,
	.init = fq_init,
	.change = fq_change,
	.reset = fq_reset,
	.destroy = fq_destroy,
	.dump = mqtx__fq_dump,
	.dump_stats = mqtx__fq_dump_stats,
};

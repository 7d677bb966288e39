// SPDX-License-Identifier: MIT
/* netem: the network emulator (Linux sch_netem.c): delay with jitter and distributions, loss
 * (random, 4-state, Gilbert-Elliott) or ECN marking, duplication, corruption, reordering, a
 * rate with packet and cell overheads, slots, in a time-sorted queue. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "qdisc/codel.h"
#include "qdisc/kinds.h"
#include "qdisc/netem.h"
#include "qdisc/watchdog.h"

/* A queued packet's departure time, in its control block while netem holds it. */
static inline uint64_t *tts(struct mqtx_pkt *pkt)
{
	return (uint64_t *)(void *)pkt->cb;
}

struct netem_slot_cfg {
	int64_t min_delay, max_delay, dist_delay, dist_jitter; /* ns */
	int32_t max_packets, max_bytes;			       /* 0 given: INT_MAX */
};

struct netem_priv {
	/* configuration (netem_sched_data's) */
	int64_t latency, jitter; /* ns */
	uint32_t limit, loss, gap, duplicate, reorder, corrupt, ecn;
	uint64_t rate; /* bytes/s */
	int32_t packet_overhead, cell_overhead;
	uint32_t cell_size;
	uint8_t loss_model, clg_state;
	uint32_t clg[5];
	const int16_t *delay_dist, *slot_dist;
	struct netem_slot_cfg slot_cfg;
	/* randomness: the kernel's sequence, and the draws Linux takes from get_random_u32()
	 * (correlations' first values, the corrupted bit, slot delays), seeded alike here */
	uint64_t seed;
	bool seed_given;
	struct netem_prng prng, aux;
	struct netem_corr delay_cor, loss_cor, dup_cor, reorder_cor, corrupt_cor;
	/* state */
	uint32_t counter;
	uint64_t slot_next;
	int32_t packets_left, bytes_left;
	uint64_t ecn_marked;
	/* the queue: packets sent at once (reordered) first, then the time-ordered ones: those
	 * that arrive in order on a plain list, the others in a list sorted by time (Linux's
	 * t_head list and rbtree) */
	struct mqtx_pkt_list front, linear, sorted;
	struct mqtx_pkt *peeked;  /* taken by peek, still counted in qlen and backlog */
	struct mqtx_qdisc *child; /* class 1's qdisc, given by a graft (none by default) */
	struct mqtx_timer watchdog;
	bool watchdog_ready;
};

/* ---- data path ---- */

/* loss_4state(): the GI model's Markov chain (Salsano et al., "Definition of a general and
 * intuitive loss model for packet networks and its implementation in the Netem module").
 * States: 1 sent in a gap, 2 sent in a burst, 3 lost in a burst, 4 lost in a gap. */
static bool loss_4state(struct netem_priv *p)
{
	uint32_t rnd = mqtx__netem_prng_u32(&p->prng);
	const uint32_t *a = p->clg; /* p13 p31 p32 p23 p14 */

	switch (p->clg_state) {
	case 1:
		if (rnd < a[4]) {
			p->clg_state = 4;
			return true;
		}
		if (rnd < a[0] + a[4]) {
			p->clg_state = 3;
			return true;
		}
		return false;
	case 2:
		if (rnd < a[3]) {
			p->clg_state = 3;
			return true;
		}
		return false;
	case 3:
		if (rnd < a[2])
			p->clg_state = 2;
		else if (rnd < a[1] + a[2])
			p->clg_state = 1;
		else
			return true;
		return false;
	default:
		p->clg_state = 1;
		return false;
	}
}

/* loss_gilb_ell(): a transition draw, then a loss draw in the state reached. */
static bool loss_gilb_ell(struct netem_priv *p)
{
	const uint32_t *a = p->clg; /* p r h k1 */

	if (p->clg_state == 1) {
		if (mqtx__netem_prng_u32(&p->prng) < a[0])
			p->clg_state = 2;
		return mqtx__netem_prng_u32(&p->prng) < a[3];
	}
	if (mqtx__netem_prng_u32(&p->prng) < a[1])
		p->clg_state = 1;
	return mqtx__netem_prng_u32(&p->prng) > a[2];
}

static bool loss_event(struct netem_priv *p)
{
	if (p->loss_model == NETEM_LOSS_GI)
		return loss_4state(p);
	if (p->loss_model == NETEM_LOSS_GE)
		return loss_gilb_ell(p);
	return p->loss && p->loss >= mqtx__netem_corr_u32(&p->loss_cor, &p->prng);
}

/* get_random_u32_below() on the second generator. */
static uint32_t aux_below(struct netem_priv *p, uint32_t n)
{
	return (uint32_t)(((uint64_t)mqtx__netem_prng_u32(&p->aux) * n) >> 32);
}

/* packet_time_ns(): the wire time of @len bytes with the overheads, in whole cells. */
static uint64_t packet_time_ns(const struct netem_priv *p, uint64_t len)
{
	int64_t l = (int64_t)len + p->packet_overhead;

	if (p->cell_size) {
		int64_t cells = l / p->cell_size;

		if (l > cells * p->cell_size)
			cells++;
		l = cells * ((int64_t)p->cell_size + p->cell_overhead);
	}
	return (uint64_t)((unsigned __int128)(uint64_t)l * MQTX_NSEC_PER_SEC / p->rate);
}

/* tfifo_enqueue(): in order at the tail of the plain list, else into the sorted one after
 * the packets of the same time. */
static void tfifo_insert(struct netem_priv *p, struct mqtx_pkt *pkt)
{
	struct mqtx_pkt **at = &p->sorted.head;
	uint64_t t = *tts(pkt);

	if (!p->linear.tail || t >= *tts(p->linear.tail)) {
		mqtx_pkt_list_add_tail(&p->linear, pkt);
		return;
	}
	if (!p->sorted.tail || t >= *tts(p->sorted.tail)) {
		mqtx_pkt_list_add_tail(&p->sorted, pkt);
		return;
	}
	while (*at && *tts(*at) <= t)
		at = &(*at)->next;
	pkt->next = *at;
	*at = pkt;
	p->sorted.len++;
}

/* The latest departure queued: where a rate-limited packet's transmission starts. */
static struct mqtx_pkt *last_departure(struct netem_priv *p)
{
	struct mqtx_pkt *c[3] = { p->front.tail, p->sorted.tail, p->linear.tail }, *last = NULL;

	for (int i = 0; i < 3; i++)
		if (c[i] && (!last || *tts(c[i]) > *tts(last)))
			last = c[i];
	return last;
}

/* When @pkt leaves: now plus the delay drawn, or with a rate after the last queued packet's
 * departure and its own wire time (netem_enqueue). */
static uint64_t departure(struct mqtx_qdisc *q, struct netem_priv *p, struct mqtx_pkt *pkt)
{
	int64_t delay = mqtx__netem_tabledist(p->latency, (int32_t)p->jitter, &p->delay_cor,
					      &p->prng, p->delay_dist);
	uint64_t now = mqtx_qdisc_now(q);
	struct mqtx_pkt *last;

	if (p->rate) {
		last = last_departure(p);
		if (last) {
			delay -= (int64_t)(*tts(last) - now);
			if (delay < 0)
				delay = 0;
			now = *tts(last);
		}
		delay += (int64_t)packet_time_ns(p, pkt->len);
	}
	return now + (uint64_t)delay;
}

static int enqueue_one(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, bool copy,
		       struct mqtx_pkt **to_free);

static int netem_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	return enqueue_one(q, pkt, false, to_free);
}

/* netem_enqueue() for a packet, or for a duplicate (@copy), which is not duplicated again. */
static int enqueue_one(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, bool copy,
		       struct mqtx_pkt **to_free)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *dup = NULL;
	int count = 1;
	bool corrupt;

	if (p->duplicate && !copy && p->duplicate >= mqtx__netem_corr_u32(&p->dup_cor, &p->prng))
		count++;
	if (loss_event(p)) {
		/* With ecn a lost packet that can carry CE is marked instead (Linux counts the
		 * mark as a drop; mqtx counts it apart, the packet being sent). */
		if (p->ecn && mqtx__ecn_set_ce(pkt))
			p->ecn_marked++;
		else
			count--;
	}
	if (!count)
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	corrupt = p->corrupt && p->corrupt >= mqtx__netem_corr_u32(&p->corrupt_cor, &p->prng);
	/* the limit is of netem's own queue (Linux's t_len), not of its child's */
	if (q->qlen - (p->child ? p->child->qlen : 0) >= p->limit)
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	/* The duplicate is the frame as it came, queued before it (Linux queues it at the
	 * root; mqtx at this netem). */
	if (count > 1)
		dup = mqtx_pkt_copy(pkt);
	if (corrupt && pkt->len)
		pkt->data[aux_below(p, pkt->len)] ^= (uint8_t)(1u << aux_below(p, 8));
	if (dup)
		enqueue_one(q, dup, true, to_free);
	q->backlog += pkt->len;
	q->qlen++;
	if (!p->gap || p->counter < p->gap - 1 ||
	    p->reorder < mqtx__netem_corr_u32(&p->reorder_cor, &p->prng)) {
		*tts(pkt) = departure(q, p, pkt);
		p->counter++;
		tfifo_insert(p, pkt);
	} else {
		/* one packet in @gap goes out at once, ahead of all (counted as a requeue) */
		*tts(pkt) = mqtx_qdisc_now(q);
		p->counter = 0;
		mqtx_pkt_list_add_head(&p->front, pkt);
		q->requeues++;
	}
	return MQTX_XMIT_SUCCESS;
}

/* get_slot_next(): the next slot opens after a delay drawn between min and max, or from the
 * slot's distribution, with a fresh packet and byte budget. */
static void slot_next(struct netem_priv *p, uint64_t now)
{
	const struct netem_slot_cfg *s = &p->slot_cfg;
	int64_t d;

	if (!p->slot_dist)
		d = s->min_delay +
		    (int64_t)(((unsigned __int128)(uint64_t)(s->max_delay - s->min_delay) *
			       mqtx__netem_prng_u32(&p->aux)) >>
			      32);
	else
		d = mqtx__netem_tabledist(s->dist_delay, (int32_t)s->dist_jitter, NULL, &p->prng,
					  p->slot_dist);
	p->slot_next = now + (uint64_t)d;
	p->packets_left = s->max_packets;
	p->bytes_left = s->max_bytes;
}

/* The time-ordered head: the sorted list's first unless the plain list's is not later. */
static struct mqtx_pkt *tfifo_head(struct netem_priv *p)
{
	struct mqtx_pkt *s = p->sorted.head, *l = p->linear.head;

	if (!s || (l && *tts(s) >= *tts(l)))
		return l;
	return s;
}

/* A packet whose time has come into the child (netem_dequeue() with q->qdisc): it stays in
 * netem's qlen and backlog until the child gives it back; what the child refuses or drops in
 * its place leaves them, as a drop of netem's. */
static void to_child(struct mqtx_qdisc *q, struct mqtx_qdisc *c, struct mqtx_pkt *pkt)
{
	uint32_t qlen = c->qlen, len = pkt->len;
	uint64_t backlog = c->backlog, drops = c->drops;
	struct mqtx_pkt *to_free = NULL;

	pkt->next = NULL;
	c->ops->enqueue(c, pkt, &to_free);
	q->qlen -= qlen + 1 - c->qlen;
	q->backlog -= backlog + len - c->backlog;
	q->drops += c->drops - drops;
	mqtx_qdisc_free_dropped(q->dev, to_free);
}

/* netem_dequeue() without the accounting: the next packet due (through the child when there
 * is one: every packet due goes into it first), or NULL with the watchdog set for the head's
 * time (or the next slot's). */
static struct mqtx_pkt *netem_take(struct mqtx_qdisc *q, struct netem_priv *p)
{
	struct mqtx_pkt *pkt = mqtx_pkt_list_pop(&p->front);
	uint64_t now, t;

	if (pkt)
		return pkt;
	while ((pkt = tfifo_head(p))) {
		now = mqtx_qdisc_now(q);
		t = *tts(pkt);
		if (p->slot_next && p->slot_next < t)
			slot_next(p, now);
		if (t > now || p->slot_next > now) {
			pkt = p->child ? p->child->ops->dequeue(p->child) : NULL;
			if (!pkt)
				mqtx_timer_arm(&p->watchdog, t > p->slot_next ? t : p->slot_next);
			return pkt;
		}
		mqtx_pkt_list_pop(pkt == p->linear.head ? &p->linear : &p->sorted);
		if (p->slot_next) {
			p->packets_left--;
			p->bytes_left -= (int32_t)pkt->len;
			if (p->packets_left <= 0 || p->bytes_left <= 0)
				slot_next(p, now);
		}
		if (!p->child)
			return pkt;
		to_child(q, p->child, pkt);
	}
	return p->child ? p->child->ops->dequeue(p->child) : NULL;
}

static struct mqtx_pkt *netem_dequeue(struct mqtx_qdisc *q)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt = p->peeked;

	p->peeked = NULL;
	if (!pkt)
		pkt = netem_take(q, p);
	if (pkt) {
		q->qlen--;
		q->backlog -= pkt->len;
		pkt->next = NULL;
	}
	return pkt;
}

/* Linux peeks netem by dequeuing (qdisc_peek_dequeued): the packet is held until taken. */
static struct mqtx_pkt *netem_peek(struct mqtx_qdisc *q)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);

	if (!p->peeked)
		p->peeked = netem_take(q, p);
	return p->peeked;
}

/* ---- control path ---- */

/* A change is refused before anything is applied where Linux refuses it (netem_change's
 * validation: tc cannot send a negative time, but its slot packets and bytes can be). */
static int netem_validate(const struct netem_opt *o, struct mqtx_extack *ack)
{
	if (!o->has_slot)
		return 0;
	if (o->slot_dist_delay < 0 || o->slot_dist_jitter < 0)
		return mqtx_extack_set(ack, "negative dist delay");
	if (o->slot_packets < 0 || o->slot_bytes < 0)
		return mqtx_extack_set(ack, "negative slot limit");
	return 0;
}

/* init_crandom(): a correlation's weight, its first value drawn from the second generator. */
static void corr_init(struct netem_priv *p, struct netem_corr *c, uint32_t rho)
{
	c->rho = rho;
	c->last = mqtx__netem_prng_u32(&p->aux);
}

/* The second generator follows the seed too, on another sequence than the kernel's. */
static void netem_seed(struct netem_priv *p, uint64_t seed)
{
	p->seed = seed;
	mqtx__netem_prng_seed(&p->prng, seed);
	mqtx__netem_prng_seed(&p->aux, ~seed ^ 0x9E3779B97F4A7C15ull);
}

/* get_slot(): 0 packets or bytes is no limit; a slot of all zeros is none. */
static void apply_slot(struct mqtx_qdisc *q, struct netem_priv *p, const struct netem_opt *o)
{
	struct netem_slot_cfg *s = &p->slot_cfg;

	s->min_delay = o->slot_min;
	s->max_delay = o->slot_max;
	s->dist_delay = o->slot_dist_delay;
	s->dist_jitter = o->slot_dist_jitter < INT_MAX ? o->slot_dist_jitter : INT_MAX;
	s->max_packets = o->slot_packets ? o->slot_packets : INT_MAX;
	s->max_bytes = o->slot_bytes ? o->slot_bytes : INT_MAX;
	if (o->slot_dist != NETEM_DIST_KEEP)
		p->slot_dist = mqtx__netem_dist_table((enum netem_dist)(o->slot_dist - 1));
	p->packets_left = s->max_packets;
	p->bytes_left = s->max_bytes;
	p->slot_next = (s->min_delay | s->max_delay | s->dist_jitter) ? mqtx_qdisc_now(q) : 0;
}

/* netem_change() after its validation, with the lock held: the base options always, the
 * others when sent. */
static void netem_apply(struct mqtx_qdisc *q, const struct netem_opt *o)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);

	if (o->has_seed) /* before the correlations: their first values follow the seed */
		netem_seed(p, o->seed);
	p->seed_given |= o->has_seed;
	p->loss_model = o->loss_model;
	if (o->loss_model != NETEM_LOSS_RANDOM) {
		memcpy(p->clg, o->clg, sizeof(p->clg));
		p->clg_state = 1; /* sent in a gap / the good state */
	}
	if (o->dist != NETEM_DIST_KEEP)
		p->delay_dist = mqtx__netem_dist_table((enum netem_dist)(o->dist - 1));
	p->limit = o->limit;
	p->latency = (int64_t)o->latency << 6;
	p->jitter = (int64_t)o->jitter << 6;
	p->gap = o->gap;
	p->counter = 0;
	p->loss = o->loss;
	p->duplicate = o->duplicate;
	if (p->gap) /* an older tc's gap alone meant every gap-th packet */
		p->reorder = UINT32_MAX;
	if (o->has_corr) {
		corr_init(p, &p->delay_cor, o->delay_corr);
		corr_init(p, &p->loss_cor, o->loss_corr);
		corr_init(p, &p->dup_cor, o->dup_corr);
	}
	if (o->has_reorder) {
		p->reorder = o->reorder;
		corr_init(p, &p->reorder_cor, o->reorder_corr);
	}
	if (o->has_corrupt) {
		p->corrupt = o->corrupt;
		corr_init(p, &p->corrupt_cor, o->corrupt_corr);
	}
	if (o->has_rate) {
		p->rate = o->rate;
		p->packet_overhead = o->packet_overhead;
		p->cell_size = o->cell_size;
		p->cell_overhead = o->cell_overhead;
	}
	if (o->ecn)
		p->ecn = 1;
	if (o->has_slot)
		apply_slot(q, p, o);
	if (p->jitter > INT_MAX) /* what tabledist() can take */
		p->jitter = INT_MAX;
}

static int netem_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
			struct mqtx_extack *ack)
{
	(void)to_free;
	if (!opt)
		return 0;
	if (netem_validate(opt, ack))
		return -EINVAL;
	mqtx_qdisc_lock(q);
	netem_apply(q, opt);
	mqtx_qdisc_unlock(q);
	return 0;
}

static int netem_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);
	struct netem_opt def = { .limit = 1000 };
	uint64_t seed = 0;

	mqtx_pkt_list_init(&p->front);
	mqtx_pkt_list_init(&p->linear);
	mqtx_pkt_list_init(&p->sorted);
	mqtx__qdisc_watchdog_init(&p->watchdog, q);
	p->watchdog_ready = true;
	/* netem_init(): an unseeded netem starts from a random seed */
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = mqtx_qdisc_now(q) ^ (uint64_t)(uintptr_t)q;
	netem_seed(p, seed);
	if (!opt)
		opt = &def;
	if (netem_validate(opt, ack))
		return -EINVAL;
	netem_apply(q, opt);
	return 0;
}

/* Everything held, in the order it would have left: the peeked packet, those sent at once,
 * then by departure time. */
static void netem_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt_list all;
	struct mqtx_pkt *pkt;

	mqtx_pkt_list_init(&all);
	if (p->peeked)
		mqtx_pkt_list_add_tail(&all, p->peeked);
	p->peeked = NULL;
	while ((pkt = mqtx_pkt_list_pop(&p->front)))
		mqtx_pkt_list_add_tail(&all, pkt);
	while ((pkt = tfifo_head(p))) {
		mqtx_pkt_list_pop(pkt == p->linear.head ? &p->linear : &p->sorted);
		mqtx_pkt_list_add_tail(&all, pkt);
	}
	mqtx_pkt_list_splice(&all, to_free);
	if (p->child) /* due already: they would have left first */
		mqtx_qdisc_reset(p->child, MQTX_DROP_RESET, to_free);
	q->qlen = 0;
	q->backlog = 0;
	if (p->watchdog_ready)
		mqtx_timer_cancel(&p->watchdog);
}

static void netem_destroy(struct mqtx_qdisc *q)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);

	if (p->watchdog_ready)
		mqtx_timer_cancel(&p->watchdog);
	mqtx_qdisc_destroy(p->child);
}

/* ---- class 1: a qdisc the packets go through once their time has come (Linux's
 * netem_graft(), netem_leaf(), netem_walk()): none until one is grafted, listed only then ---- */

static uint32_t netem_cl_count(struct mqtx_qdisc *q)
{
	(void)q;
	return 1;
}

static struct mqtx_qdisc *netem_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	(void)minor;
	return ((struct netem_priv *)mqtx_qdisc_priv(q))->child;
}

static bool netem_cl_takes_child(struct mqtx_qdisc *q, uint32_t minor)
{
	(void)q;
	(void)minor;
	return true;
}

/* Swap only (lock held); the caller moves or drops the old child's backlog and fixes ours. */
static void netem_cl_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			   struct mqtx_qdisc **old)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);

	*old = p->child;
	if (new)
		new->parent = MQTX_H_MAKE(q->handle, minor);
	p->child = new;
}

static void netem_cl_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_qdisc_stats st;
	struct mqtx_class c = { .minor = 1, .parent = q->handle, .leaf = p->child, .stats = &st };

	if (!p->child)
		return;
	mqtx_qdisc_tree_stats(p->child, &st);
	fn(q, &c, arg);
}

static const struct mqtx_class_ops netem_class_ops = {
	.count = netem_cl_count,
	.leaf = netem_cl_leaf,
	.graft = netem_cl_graft,
	.walk = netem_cl_walk,
	.takes_child = netem_cl_takes_child,
};

/* ---- dump: netem_print_opt() of tc 6.1 ---- */

/* A probability: percent with %g in text, the fraction in JSON. */
static void dump_pct(struct mqtx_dump *d, const char *key, const char *text, uint32_t v)
{
	if (text)
		mqtx_dump_float(d, NULL, text, 100. * v / UINT32_MAX);
	if (key)
		mqtx_dump_float(d, key, NULL, 1. * v / UINT32_MAX);
}

/* A probability with its correlation: the correlation in text only when @shown. */
static void dump_prob(struct mqtx_dump *d, const char *obj, const char *key, const char *text,
		      uint32_t v, uint32_t corr, bool shown)
{
	mqtx_dump_obj_begin(d, obj);
	dump_pct(d, key, text, v);
	dump_pct(d, "correlation", shown ? "%g%%" : NULL, corr);
	mqtx_dump_obj_end(d);
}

/* psched ticks as tc shows them: whole microseconds (tc_core_tick2time), from the kernel's
 * ticks of its nanoseconds (PSCHED_NS2TICKS, at most UINT32_MAX). */
static uint64_t shown_us(int64_t ns)
{
	uint64_t t = (uint64_t)ns >> 6;

	return (uint32_t)((double)(t < UINT32_MAX ? t : UINT32_MAX) / 15.625);
}

/* sprint_time64(): ns with three significant digits in the largest unit. */
static void dump_time64(struct mqtx_dump *d, const char *key, const char *text, int64_t ns)
{
	char b[32];

	if (ns >= 1000000000)
		snprintf(b, sizeof(b), "%.3gs", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(b, sizeof(b), "%.3gms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(b, sizeof(b), "%.3gus", ns / 1e3);
	else
		snprintf(b, sizeof(b), "%" PRId64 "ns", ns);
	mqtx_dump_str(d, NULL, text, b);
	mqtx_dump_float(d, key, NULL, ns / 1e9);
}

/* A value tc prints when not 0 but always puts in its JSON. */
static void dump_int_opt(struct mqtx_dump *d, const char *key, const char *text, int64_t v)
{
	if (v)
		mqtx_dump_int(d, NULL, text, v);
	mqtx_dump_int(d, key, NULL, v);
}

static void dump_delay(struct mqtx_dump *d, const struct netem_priv *p)
{
	char b[MQTX_TC_BUF];
	uint64_t lat = shown_us(p->latency), jit = shown_us(p->jitter);

	if (!lat)
		return;
	mqtx_dump_obj_begin(d, "delay");
	mqtx_dump_str(d, NULL, "delay %s", mqtx_tc_print_time(b, sizeof(b), lat * 1000));
	if (jit)
		mqtx_dump_str(d, NULL, " %s", mqtx_tc_print_time(b, sizeof(b), jit * 1000));
	mqtx_dump_float(d, "delay", NULL, lat / 1e6);
	mqtx_dump_float(d, "jitter", NULL, jit / 1e6);
	dump_pct(d, "correlation", jit && p->delay_cor.rho ? "%g%%" : NULL, p->delay_cor.rho);
	mqtx_dump_obj_end(d);
}

static void dump_loss(struct mqtx_dump *d, const struct netem_priv *p)
{
	static const char *const gi[] = { "p13", "p31", "p32", "p23", "p14" };
	static const char *const ge[] = { "p", "r", "1-h", "1-k" };
	char text[32];

	if (p->loss)
		dump_prob(d, "loss-random", "loss", "loss %g%%", p->loss, p->loss_cor.rho,
			  p->loss_cor.rho);
	if (p->loss_model == NETEM_LOSS_GI) {
		mqtx_dump_obj_begin(d, "loss-state");
		for (int i = 0; i < 5; i++) {
			snprintf(text, sizeof(text), "%s%s %%g%%%%", i ? "" : "loss state ", gi[i]);
			dump_pct(d, gi[i], text, p->clg[i]);
		}
		mqtx_dump_obj_end(d);
	} else if (p->loss_model == NETEM_LOSS_GE) {
		mqtx_dump_obj_begin(d, "loss-gemodel");
		for (int i = 0; i < 4; i++) {
			snprintf(text, sizeof(text), "%s%s %%g%%%%", i ? "" : "loss gemodel ",
				 ge[i]);
			dump_pct(d, ge[i], text, i == 2 ? UINT32_MAX - p->clg[2] : p->clg[i]);
		}
		mqtx_dump_obj_end(d);
	}
}

static void dump_rate_slot(struct mqtx_dump *d, const struct netem_priv *p)
{
	const struct netem_slot_cfg *s = &p->slot_cfg;

	if (p->rate) {
		mqtx_dump_obj_begin(d, "rate");
		mqtx_dump_rate(d, "rate", "rate %s", p->rate);
		dump_int_opt(d, "packetoverhead", "packetoverhead %" PRId64, p->packet_overhead);
		dump_int_opt(d, "cellsize", "cellsize %" PRId64, p->cell_size);
		dump_int_opt(d, "celloverhead", "celloverhead %" PRId64, p->cell_overhead);
		mqtx_dump_obj_end(d);
	}
	if (!(s->min_delay | s->max_delay | s->dist_jitter))
		return;
	mqtx_dump_obj_begin(d, "slot");
	if (s->dist_jitter > 0) {
		dump_time64(d, "distribution", "slot distribution %s", s->dist_delay);
		dump_time64(d, "jitter", "%s", s->dist_jitter);
	} else {
		dump_time64(d, "min-delay", "slot %s", s->min_delay);
		dump_time64(d, "max-delay", "%s", s->max_delay);
	}
	dump_int_opt(d, "packets", "packets %" PRId64,
		     s->max_packets == INT_MAX ? 0 : s->max_packets);
	dump_int_opt(d, "bytes", "bytes %" PRId64, s->max_bytes == INT_MAX ? 0 : s->max_bytes);
	mqtx_dump_obj_end(d);
}

static void netem_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct netem_priv *p = mqtx_qdisc_priv(q);

	mqtx_dump_uint(d, "limit", "limit %" PRIu64, p->limit);
	dump_delay(d, p);
	dump_loss(d, p);
	if (p->duplicate)
		dump_prob(d, "duplicate", "duplicate", "duplicate %g%%", p->duplicate,
			  p->dup_cor.rho, p->dup_cor.rho);
	if (p->reorder)
		dump_prob(d, "reorder", "reorder", "reorder %g%%", p->reorder, p->reorder_cor.rho,
			  p->reorder_cor.rho);
	if (p->corrupt)
		dump_prob(d, "corrupt", "corrupt", "corrupt %g%%", p->corrupt, p->corrupt_cor.rho,
			  p->corrupt_cor.rho);
	/* tc 6.1 cannot set a seed and never shows one; a later tc shows the one the kernel
	 * reports, here where mqtx shows the seed that was given */
	if (p->seed_given)
		mqtx_dump_uint(d, "seed", "seed %" PRIu64, p->seed);
	dump_rate_slot(d, p);
	mqtx_dump_bool(d, "ecn", "ecn ", p->ecn);
	if (p->gap)
		mqtx_dump_uint(d, NULL, "gap %" PRIu64, p->gap);
	mqtx_dump_uint(d, "gap", NULL, p->gap);
}

const struct mqtx_qdisc_ops mqtx__netem_qdisc_ops = {
	.id = "netem",
	.usage =
		"Usage: ... netem [ limit PACKETS ]\n"
		"                 [ delay TIME [ JITTER [CORRELATION]]]\n"
		"                 [ distribution {uniform|normal|pareto|paretonormal} ]\n"
		"                 [ corrupt PERCENT [CORRELATION]]\n"
		"                 [ duplicate PERCENT [CORRELATION]]\n"
		"                 [ loss random PERCENT [CORRELATION]]\n"
		"                 [ loss state P13 [P31 [P32 [P23 P14]]]\n"
		"                 [ loss gemodel PERCENT [R [1-H [1-K]]]\n"
		"                 [ ecn ]\n"
		"                 [ reorder PERCENT [CORRELATION] [ gap DISTANCE ]]\n"
		"                 [ rate RATE [PACKETOVERHEAD] [CELLSIZE] [CELLOVERHEAD]]\n"
		"                 [ slot MIN_DELAY [MAX_DELAY] [packets MAX_PACKETS] [bytes "
		"MAX_BYTES]]\n"
		"                 [ slot distribution {uniform|normal|pareto|paretonormal|custom}\n"
		"                   DELAY JITTER [packets MAX_PACKETS] [bytes MAX_BYTES]]\n"
		"                 [ seed SEED ]",
	.priv_size = sizeof(struct netem_priv),
	.opt_size = sizeof(struct netem_opt),
	.enqueue = netem_enqueue,
	.dequeue = netem_dequeue,
	.peek = netem_peek,
	.parse = mqtx__netem_parse,
	.init = netem_init,
	.change = netem_change,
	.reset = netem_reset,
	.destroy = netem_destroy,
	.dump = netem_dump,
	.cl_ops = &netem_class_ops,
};

// SPDX-License-Identifier: MIT
/* taprio: the time-aware shaper of IEEE 802.1Q (Qbv) in software, as Linux 6.12's
 * net/sched/sch_taprio.c runs it: a cycle of gate entries over traffic classes, one child qdisc
 * per TX queue; a frame leaves only while its class's gate is open and long enough for it. */
#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/kinds.h"
#include "qdisc/sch_taprio.h"
#include <mqtx/flow.h>
#include <mqtx/tc.h>

/* ---- time and length ---- */

static int64_t len_to_ns(const struct taprio_priv *p, uint32_t len)
{
	return (int64_t)((uint64_t)len * p->ppb / 1000);
}

static uint64_t ns_to_len(const struct taprio_priv *p, int64_t ns)
{
	return (uint64_t)ns * 1000 / p->ppb;
}

/* taprio_set_picos_per_byte(): the link speed in Mbit/s from the device's rate; without one,
 * Linux's default of 10 Mbit/s (SPEED_10). */
static uint64_t taprio_ppb(struct mqtx_dev *dev)
{
	uint64_t speed = mqtx_dev_link_rate(dev) / 1000000, ppb;

	if (!speed)
		speed = SPEED_10;
	ppb = 8000000 / speed;
	return ppb < PPB_MIN ? PPB_MIN : ppb;
}

/* ---- the schedule ---- */

/* taprio_calculate_gate_durations(): from each entry, how long each class's gate stays open. */
static void taprio_gate_durations(struct taprio_sched *s, unsigned num_tc)
{
	for (uint32_t i = 0; i < s->n; i++) {
		struct taprio_entry *e = &s->e[i];
		uint32_t open = e->gate_mask;
		uint32_t k = i;

		do {
			if (!open)
				break;
			for (unsigned tc = 0; tc < num_tc; tc++) {
				if (!(open & (1u << tc)))
					continue;
				if (s->e[k].gate_mask & (1u << tc))
					e->gate_duration[tc] += s->e[k].interval;
				else
					open &= ~(1u << tc);
			}
			k = (k + 1) % s->n;
		} while (k != i);
		for (unsigned tc = 0; tc < num_tc; tc++)
			if (e->gate_duration[tc] && s->max_open[tc] < e->gate_duration[tc])
				s->max_open[tc] = e->gate_duration[tc];
	}
}

/* taprio_update_queue_max_sdu(): the longest frame each class can ever send, the smaller of
 * the user's max-sdu and what its longest open gate carries at the link's speed. */
static void taprio_max_frames(const struct taprio_priv *p, struct taprio_sched *s)
{
	for (unsigned tc = 0; tc < p->num_tc; tc++) {
		uint64_t user = p->max_sdu[tc] ? p->max_sdu[tc] : UINT32_MAX, dyn = UINT32_MAX;
		uint64_t m;

		if (s->max_open[tc] != s->cycle_time) {
			dyn = (uint32_t)ns_to_len(p, s->max_open[tc]) - ETH_HLEN;
			if (dyn > TAPRIO_MAX_MTU)
				dyn = UINT32_MAX;
		}
		m = dyn < user ? dyn : user;
		s->max_frm_len[tc] = m == UINT32_MAX ? UINT32_MAX : (uint32_t)m + ETH_HLEN;
	}
}

/* taprio_set_budgets(): the bytes each class may still send within entry @e. */
static void taprio_set_budgets(const struct taprio_priv *p, const struct taprio_sched *s,
			       struct taprio_entry *e)
{
	for (unsigned tc = 0; tc < p->num_tc; tc++)
		e->budget[tc] = e->gate_duration[tc] == s->cycle_time
					? INT64_MAX
					: (int64_t)((uint64_t)e->gate_duration[tc] * 1000 / p->ppb);
}

/* setup_first_end_time(): the first entry of @s starting at @base. */
static void taprio_first_end(const struct taprio_priv *p, struct taprio_sched *s, int64_t base)
{
	struct taprio_entry *first = &s->e[0];

	s->cycle_end = base + s->cycle_time;
	first->end_time = base + first->interval;
	taprio_set_budgets(p, s, first);
	for (unsigned tc = 0; tc < p->num_tc; tc++)
		first->gate_close[tc] = first->gate_duration[tc] == s->cycle_time
						? TAPRIO_NO_TIME
						: base + first->gate_duration[tc];
}

/* taprio_get_start_time(): the base time, or the next cycle's start once it has passed. */
static int64_t taprio_start_time(const struct taprio_sched *s, int64_t now)
{
	if (s->base_time > now)
		return s->base_time;
	return s->base_time + ((now - s->base_time) / s->cycle_time + 1) * s->cycle_time;
}

/* should_change_schedules(): the admin schedule takes over at an entry ending at or after its
 * base time, or within the extension before it. */
static bool taprio_should_change(const struct taprio_sched *admin, const struct taprio_sched *oper,
				 int64_t end)
{
	return admin && (admin->base_time <= end || admin->base_time <= end + oper->cycle_ext);
}

/* advance_sched(): the next entry; returns when it ends. Lock held. */
static int64_t taprio_advance(struct taprio_priv *p)
{
	struct taprio_entry *e = p->cur, *next;
	struct taprio_sched *oper;
	int64_t end;

	if (!p->oper) {
		p->oper = p->admin;
		p->admin = NULL;
	}
	oper = p->oper;
	if (!e) {
		next = &oper->e[0];
		p->cur = next;
		return next->end_time;
	}
	if (e == &oper->e[oper->n - 1] || e->end_time == oper->cycle_end) {
		next = &oper->e[0];
		oper->cycle_end += oper->cycle_time;
	} else {
		next = e + 1;
	}
	end = e->end_time + next->interval;
	if (end > oper->cycle_end)
		end = oper->cycle_end;
	for (unsigned tc = 0; tc < p->num_tc; tc++)
		next->gate_close[tc] = next->gate_duration[tc] == oper->cycle_time
					       ? TAPRIO_NO_TIME
					       : e->end_time + next->gate_duration[tc];
	if (taprio_should_change(p->admin, oper, end)) {
		mqtx_free(p->oper); /* the old schedule: nothing points into it any more */
		p->oper = p->admin;
		p->admin = NULL;
		next = &p->oper->e[0];
		end = next->end_time;
	}
	next->end_time = end;
	taprio_set_budgets(p, p->oper, next);
	p->cur = next;
	return end;
}

static void taprio_timer(struct mqtx_timer *t, void *arg)
{
	struct mqtx_qdisc *q = arg;
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	int64_t end;

	if (atomic_load(&p->stopping))
		return;
	mqtx_qdisc_lock(q);
	end = taprio_advance(p);
	mqtx_qdisc_unlock(q);
	mqtx_timer_arm(t, (uint64_t)end);
	mqtx_txq_schedule(q->dev_queue);
}

/* ---- data path ---- */

static unsigned taprio_tc(const struct taprio_priv *p, const struct mqtx_pkt *pkt)
{
	return p->map[pkt->priority & (MQTX_TC_MAX - 1)];
}

static int taprio_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	unsigned tc = taprio_tc(p, pkt), txq = pkt->queue_mapping;
	uint64_t backlog, drops;
	struct mqtx_qdisc *c;
	uint32_t qlen;
	int ret;

	/* Linux's taprio gives the device its classes, so selection puts a packet on a queue of
	 * its class; a packet that comes elsewhere goes there by its hash. */
	if (!(pkt->flags & MQTX_PKT_F_QMAP_SET) &&
	    (txq < p->offset[tc] || txq >= (unsigned)p->offset[tc] + p->count[tc])) {
		uint32_t real = mqtx_dev_real_num_txq(q->dev), n = p->count[tc];

		/* within the queues in use (the count may have shrunk since) */
		if (p->offset[tc] + n > real)
			n = real > p->offset[tc] ? real - p->offset[tc] : 0;
		txq = 0;
		if (n)
			txq = p->offset[tc] + (mqtx_dev_flow_hash(q->dev, pkt)
						       ? mqtx_reciprocal_scale(pkt->hash, n)
						       : 0);
		pkt->queue_mapping = (uint16_t)txq;
	}
	if (txq >= mqtx_dev_real_num_txq(q->dev)) { /* netdev_cap_txqueue() */
		txq = 0;
		pkt->queue_mapping = 0;
	}
	/* taprio_skb_exceeds_queue_max_sdu(): a frame its gates can never carry */
	if (p->oper && pkt->len > p->oper->max_frm_len[tc])
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	c = p->child[txq];
	qlen = c->qlen;
	backlog = c->backlog;
	drops = c->drops;
	ret = c->ops->enqueue(c, pkt, to_free);
	/* the child's counters show in ours, drops too (qdisc_tree_reduce_backlog()) */
	q->qlen = q->qlen - qlen + c->qlen;
	q->backlog = q->backlog - backlog + c->backlog;
	q->drops += c->drops - drops;
	return ret;
}

/* taprio_dequeue_from_txq(): the head of queue @txq's child if its class's gate is open and
 * the frame ends before the gate closes, within the class's budget. */
static struct mqtx_pkt *taprio_from_txq(struct mqtx_qdisc *q, uint32_t txq, uint32_t mask)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_qdisc *c = p->child[txq];
	struct taprio_entry *e = p->cur;
	struct mqtx_pkt *pkt = c->ops->peek(c);
	unsigned tc;

	if (!pkt)
		return NULL;
	tc = taprio_tc(p, pkt);
	if (!(mask & (1u << tc)))
		return NULL;
	if (mask != TAPRIO_ALL_OPEN) {
		int64_t guard = (int64_t)mqtx_qdisc_now(q) + len_to_ns(p, pkt->len);
		int64_t left = 0;

		if (guard >= e->gate_close[tc])
			return NULL;
		/* taprio_update_budgets(): every class's budget pays, even when this one is short */
		for (unsigned i = 0; i < p->num_tc; i++) {
			if (e->budget[i] == INT64_MAX) {
				if (i == tc)
					left = INT64_MAX;
				continue;
			}
			e->budget[i] -= pkt->len;
			if (i == tc)
				left = e->budget[i];
		}
		if (left < 0)
			return NULL;
	}
	pkt = c->ops->dequeue(c);
	if (pkt) {
		q->qlen--;
		q->backlog -= pkt->len;
	}
	return pkt;
}

/* taprio_dequeue_tc_priority(): the highest open class first, its queues in turn. */
static struct mqtx_pkt *taprio_dequeue(struct mqtx_qdisc *q)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	uint32_t mask = p->cur ? p->cur->gate_mask : TAPRIO_ALL_OPEN;

	if (!mask || !q->qlen)
		return NULL;
	for (int tc = p->num_tc - 1; tc >= 0; tc--) {
		uint32_t first = p->cur_txq[tc];

		if (!(mask & (1u << tc)))
			continue;
		do {
			struct mqtx_pkt *pkt = taprio_from_txq(q, p->cur_txq[tc], mask);

			if (++p->cur_txq[tc] == (uint32_t)p->offset[tc] + p->count[tc])
				p->cur_txq[tc] = p->offset[tc];
			if (pkt)
				return pkt;
		} while (p->cur_txq[tc] != first);
	}
	return NULL;
}

/* Linux's taprio has no peek (it is only ever the root); what dequeue would give, left in
 * place: the first head whose gate is open, without the guard band. */
static struct mqtx_pkt *taprio_peek(struct mqtx_qdisc *q)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t i = 0; i < p->nchild; i++) {
		struct mqtx_pkt *pkt = p->child[i]->ops->peek(p->child[i]);

		if (pkt)
			return pkt;
	}
	return NULL;
}

/* ---- control path ---- */

/* parse_taprio_schedule() into a new schedule (*@out, the caller's), at link speed @ppb. */
static int taprio_build(const struct taprio_opt *o, uint64_t ppb, unsigned num_tc,
			struct taprio_sched **out, struct mqtx_extack *ack)
{
	struct taprio_priv tmp = { .ppb = ppb };
	int64_t min = len_to_ns(&tmp, ETH_ZLEN), cycle = o->cycle_time;
	struct taprio_sched *s;

	if (o->cycle_time < 0 || o->cycle_time > INT32_MAX)
		return mqtx_extack_set(ack, "integer out of range");
	for (uint32_t i = 0; i < o->n; i++)
		if (o->e[i].interval < min)
			return mqtx_extack_set(ack, "Invalid interval for schedule entry");
	if (!cycle) {
		for (uint32_t i = 0; i < o->n; i++)
			cycle += o->e[i].interval;
		if (cycle > INT32_MAX)
			return mqtx_extack_set(ack, "'cycle_time' is too big");
	}
	if (cycle < (int64_t)o->n * min)
		return mqtx_extack_set(ack, "'cycle_time' is too small");
	if (!o->n)
		return mqtx_extack_set(ack, "There should be at least one entry in the schedule");
	s = mqtx_alloc(sizeof(*s) + o->n * sizeof(s->e[0]), 0);
	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s) + o->n * sizeof(s->e[0]));
	s->base_time = o->base_time;
	s->cycle_time = cycle;
	s->cycle_ext = o->cycle_ext;
	s->n = o->n;
	for (uint32_t i = 0; i < o->n; i++) {
		s->e[i].cmd = o->e[i].cmd;
		s->e[i].gate_mask = o->e[i].mask;
		s->e[i].interval = o->e[i].interval;
	}
	taprio_gate_durations(s, num_tc);
	*out = s;
	return 0;
}

/* Config lock held; @q's lock not held. Validate and build everything, then switch under the
 * lock; the timer is armed after (its callback takes the lock). */
static int taprio_apply(struct mqtx_qdisc *q, const struct taprio_opt *o, struct mqtx_extack *ack)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	struct taprio_sched *s = NULL, *old;
	unsigned num_tc = o->num_tc ? o->num_tc : p->num_tc;
	uint64_t ppb = taprio_ppb(q->dev);
	int64_t start, now;
	bool running;
	int err;

	err = mqtx__taprio_check(q, o, ack);
	if (err)
		return err;
	err = taprio_build(o, ppb, num_tc, &s, ack);
	if (!err)
		err = mqtx__taprio_clock_check(p, o, ack);
	if (!err && o->txtime_delay)
		err = mqtx_extack_set(ack, "sch_taprio: txtime-delay can only be set when "
					   "txtime-assist mode is enabled");
	if (err) {
		mqtx_free(s);
		return err;
	}
	mqtx_qdisc_lock(q);
	if (o->num_tc) {
		p->num_tc = o->num_tc;
		memcpy(p->map, o->map, sizeof(p->map));
		memcpy(p->count, o->count, sizeof(p->count));
		memcpy(p->offset, o->offset, sizeof(p->offset));
		for (unsigned tc = 0; tc < MQTX_TC_MAX; tc++)
			p->cur_txq[tc] = p->offset[tc];
	}
	memset(p->max_sdu, 0, sizeof(p->max_sdu));
	memcpy(p->max_sdu, o->max_sdu, o->n_max_sdu * sizeof(o->max_sdu[0]));
	p->ppb = ppb;
	p->flags = o->flags;
	p->clockid = o->clockid;
	p->configured = true;
	taprio_max_frames(p, s);
	now = (int64_t)mqtx_qdisc_now(q);
	start = taprio_start_time(s, now);
	taprio_first_end(p, s, start);
	old = p->admin;
	p->admin = s;
	running = p->oper != NULL;
	mqtx_qdisc_unlock(q);
	mqtx_free(old);
	/* Not started yet: every gate is open until the start (taprio_start_sched()). A running
	 * schedule hands over at the end of an entry (should_change_schedules()); Linux also
	 * opens every gate until its next entry ends, mqtx keeps the running entry. */
	if (!running)
		mqtx_timer_arm(&p->timer, (uint64_t)start);
	return 0;
}

static int taprio_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	uint32_t n = mqtx_dev_num_txq(q->dev);

	mqtx_timer_init(&p->timer, mqtx_dev_clock(q->dev), taprio_timer, q);
	p->timer_ready = true;
	p->clockid = -1;
	if (n < 2)
		return mqtx_extack_set(ack, "sch_taprio: Multi-queue device is required");
	if (!opt)
		return -EINVAL;
	p->child = mqtx_alloc(n * sizeof(*p->child), 0);
	if (!p->child)
		return -ENOMEM;
	memset(p->child, 0, n * sizeof(*p->child));
	for (uint32_t i = 0; i < n; i++) {
		int err = mqtx_qdisc_create(q->dev, q->dev_queue, &mqtx__pfifo_qdisc_ops, 0, NULL,
					    ack, &p->child[i]);

		if (err)
			return err;
		p->child[i]->parent = MQTX_H_MAKE(q->handle, i + 1);
		p->nchild = i + 1;
	}
	return taprio_apply(q, opt, ack);
}

static int taprio_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
			 struct mqtx_extack *ack)
{
	(void)to_free;
	return opt ? taprio_apply(q, opt, ack) : 0;
}

static void taprio_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);

	/* Each child's packets go in front of *@to_free in their order, the last child first:
	 * a replace re-enqueues every queue's packets in order. */
	for (uint32_t i = p->nchild; i-- > 0;) {
		struct mqtx_qdisc *c = p->child[i];
		struct mqtx_pkt *rest = NULL, *pkt, **tail;

		if (c->ops->reset) {
			c->ops->reset(c, &rest);
		} else {
			for (tail = &rest; (pkt = c->ops->dequeue(c)); tail = &pkt->next)
				*tail = pkt;
		}
		for (tail = &rest; *tail; tail = &(*tail)->next)
			;
		*tail = *to_free;
		*to_free = rest;
		c->qlen = 0;
		c->backlog = 0;
	}
	q->qlen = 0;
	q->backlog = 0;
}

static void taprio_destroy(struct mqtx_qdisc *q)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);

	/* A callback running now may arm the timer once more: the second cancel takes that back,
	 * and a run it waits for sees the flag. */
	atomic_store(&p->stopping, true);
	if (p->timer_ready) {
		mqtx_timer_cancel(&p->timer);
		mqtx_timer_cancel(&p->timer);
	}
	for (uint32_t i = 0; i < p->nchild; i++)
		mqtx_qdisc_destroy(p->child[i]);
	mqtx_free(p->child);
	mqtx_free(p->oper);
	mqtx_free(p->admin);
}

/* ---- classes: one per TX queue (taprio_leaf()), each with root as parent ---- */

static uint32_t taprio_cl_count(struct mqtx_qdisc *q)
{
	return ((struct taprio_priv *)mqtx_qdisc_priv(q))->nchild;
}

static struct mqtx_qdisc *taprio_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	return ((struct taprio_priv *)mqtx_qdisc_priv(q))->child[minor - 1];
}

static void taprio_cl_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			    struct mqtx_qdisc **old)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);

	*old = p->child[minor - 1];
	new->parent = MQTX_H_MAKE(q->handle, minor);
	p->child[minor - 1] = new;
}

static void taprio_cl_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t i = 0; i < p->nchild; i++) {
		struct mqtx_class c = { .minor = i + 1,
					.parent = MQTX_H_ROOT,
					.leaf = p->child[i] };

		fn(q, &c, arg);
	}
}

static const struct mqtx_class_ops taprio_class_ops = {
	.count = taprio_cl_count,
	.leaf = taprio_cl_leaf,
	.graft = taprio_cl_graft,
	.walk = taprio_cl_walk,
};

const struct mqtx_qdisc_ops mqtx__taprio_qdisc_ops = {
	.id = "taprio",
	.usage = "Usage: ... taprio clockid CLOCKID\n"
		 "\t\t[num_tc NUMBER] [map P0 P1 ...] "
		 "\t\t[queues COUNT@OFFSET COUNT@OFFSET COUNT@OFFSET ...] "
		 "\t\t[ [sched-entry index cmd gate-mask interval] ... ] "
		 "\t\t[base-time time] [txtime-delay delay]\n"
		 "CLOCKID must be a valid SYS-V id (i.e. CLOCK_TAI)",
	.priv_size = sizeof(struct taprio_priv),
	.opt_size = sizeof(struct taprio_opt),
	.static_flags = MQTX_QF_ROOTONLY,
	.enqueue = taprio_enqueue,
	.dequeue = taprio_dequeue,
	.peek = taprio_peek,
	.parse = mqtx__taprio_parse,
	.init = taprio_init,
	.change = taprio_change,
	.reset = taprio_reset,
	.destroy = taprio_destroy,
	.dump = mqtx__taprio_dump,
	.cl_ops = &taprio_class_ops,
};

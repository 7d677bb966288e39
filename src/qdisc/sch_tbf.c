// SPDX-License-Identifier: MIT
/* tbf: a token bucket filter (Linux sch_tbf.c): rate, burst, byte limit, optional peak rate. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include "qdisc/tbucket.h"
#include <mqtx/tc.h>

struct tbf_opt {
	bool has_rate, has_burst, has_limit, has_latency, has_peakrate, has_mtu;
	uint64_t rate, burst, limit, latency, peakrate, mtu;
};

/* One resolved configuration (what tbf_change validates before applying). */
struct tbf_cfg {
	uint64_t rate, peak;	/* bytes/s; peak 0: none */
	uint64_t burst, mtu;	/* bytes */
	uint64_t limit;		/* bytes */
	int64_t buffer, mtu_ns; /* burst at rate, mtu at peak, in ns */
	uint64_t max_size;	/* the largest packet that can ever conform */
};

struct tbf_priv {
	struct tbf_cfg cfg;
	int64_t tokens, ptokens, t_c;
	struct mqtx_pkt_list list;
	struct mqtx_timer watchdog;
	bool watchdog_ready;
};

/* ---- data path ---- */

static int tbf_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);

	/* A packet larger than the bucket could never leave; the inner bfifo holds limit bytes. */
	if (pkt->len > p->cfg.max_size || q->backlog + pkt->len > p->cfg.limit)
		return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	return mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
}

static struct mqtx_pkt *tbf_dequeue(struct mqtx_qdisc *q)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt = p->list.head;
	int64_t now, toks, ptoks = 0;

	if (!pkt)
		return NULL;
	now = (int64_t)mqtx_qdisc_now(q);
	toks = now - p->t_c;
	if (toks > p->cfg.buffer)
		toks = p->cfg.buffer;
	if (p->cfg.peak) {
		ptoks = toks + p->ptokens;
		if (ptoks > p->cfg.mtu_ns)
			ptoks = p->cfg.mtu_ns;
		ptoks -= mqtx__l2t_ns(p->cfg.peak, pkt->len);
	}
	toks += p->tokens;
	if (toks > p->cfg.buffer)
		toks = p->cfg.buffer;
	toks -= mqtx__l2t_ns(p->cfg.rate, pkt->len);
	if ((toks | ptoks) >= 0) {
		mqtx_qdisc_dequeue_head(q, &p->list);
		p->t_c = now;
		p->tokens = toks;
		p->ptokens = ptoks;
		return pkt;
	}
	/* Throttled: wake the queue when the tokens suffice (Linux's qdisc watchdog). */
	mqtx_timer_arm(&p->watchdog, (uint64_t)(now + (-toks > -ptoks ? -toks : -ptoks)));
	q->overlimits++;
	return NULL;
}

static struct mqtx_pkt *tbf_peek(struct mqtx_qdisc *q)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);

	return p->list.head;
}

static void tbf_watchdog(struct mqtx_timer *t, void *arg)
{
	struct mqtx_qdisc *q = arg;

	(void)t;
	mqtx_txq_schedule(q->dev_queue);
}

/* ---- control path ---- */

static int tbf_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct tbf_opt *o = opt;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int err;

		if (strcmp(a, "rate") == 0) {
			err = mqtx_tc_arg_rate(argc, argv, &i, &o->rate, ack);
			o->has_rate = true;
		} else if (!strcmp(a, "burst") || !strcmp(a, "buffer") || !strcmp(a, "maxburst")) {
			err = mqtx_tc_arg_size(argc, argv, &i, &o->burst, ack);
			o->has_burst = true;
		} else if (!strcmp(a, "limit") || !strcmp(a, "latency")) {
			if (o->has_limit || o->has_latency)
				return mqtx_extack_set(
					ack, "tbf: \"%s\": give one \"limit\" or \"latency\"", a);
			if (a[1] == 'i') {
				err = mqtx_tc_arg_size(argc, argv, &i, &o->limit, ack);
				o->has_limit = true;
			} else {
				err = mqtx_tc_arg_time(argc, argv, &i, &o->latency, ack);
				o->has_latency = true;
			}
		} else if (strcmp(a, "peakrate") == 0) {
			err = mqtx_tc_arg_rate(argc, argv, &i, &o->peakrate, ack);
			o->has_peakrate = true;
		} else if (!strcmp(a, "mtu") || !strcmp(a, "minburst")) {
			err = mqtx_tc_arg_size(argc, argv, &i, &o->mtu, ack);
			o->has_mtu = true;
		} else {
			return mqtx_tc_unknown("tbf", a, ack);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Merge @o into @cur's configuration and check the result, as tc and tbf_change do. */
static int tbf_resolve(const struct tbf_cfg *cur, const struct tbf_opt *o, struct tbf_cfg *c,
		       struct mqtx_extack *ack)
{
	*c = *cur;
	if (o->has_rate)
		c->rate = o->rate;
	if (o->has_burst)
		c->burst = o->burst;
	if (o->has_peakrate)
		c->peak = o->peakrate;
	if (o->has_mtu)
		c->mtu = o->mtu;
	if (!c->rate)
		return mqtx_extack_set(ack, "tbf: \"rate\" is required and must be positive");
	if (!c->burst)
		return mqtx_extack_set(ack, "tbf: \"burst\" is required and must be positive");
	if (c->peak && !c->mtu)
		return mqtx_extack_set(ack, "tbf: \"peakrate\" needs \"mtu\" too");
	if (c->peak && c->peak <= c->rate)
		return mqtx_extack_set(ack, "tbf: \"peakrate\" must be higher than \"rate\"");
	if (o->has_limit) {
		c->limit = o->limit;
	} else if (o->has_latency) {
		/* tc: the bytes that drain within the latency, plus the bucket. */
		c->limit = mqtx__t2l(c->rate, (int64_t)o->latency) + c->burst;
		if (c->peak) {
			uint64_t lim2 = mqtx__t2l(c->peak, (int64_t)o->latency) + c->mtu;

			if (lim2 < c->limit)
				c->limit = lim2;
		}
	} else if (!cur->rate) {
		return mqtx_extack_set(ack, "tbf: \"limit\" or \"latency\" is required");
	}
	c->buffer = mqtx__l2t_ns(c->rate, c->burst);
	c->mtu_ns = c->peak ? mqtx__l2t_ns(c->peak, c->mtu) : 0;
	c->max_size = c->burst;
	if (c->peak && c->mtu < c->max_size)
		c->max_size = c->mtu;
	return 0;
}

static void tbf_apply(struct mqtx_qdisc *q, const struct tbf_cfg *c)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);

	p->cfg = *c;
	p->tokens = c->buffer; /* a change refills both buckets (tbf_change) */
	p->ptokens = c->mtu_ns;
}

static int tbf_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	static const struct tbf_opt none;
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	struct tbf_cfg c;
	int err;

	mqtx_pkt_list_init(&p->list);
	mqtx_timer_init(&p->watchdog, mqtx_dev_clock(q->dev), tbf_watchdog, q);
	p->watchdog_ready = true;
	p->t_c = (int64_t)mqtx_qdisc_now(q);
	memset(&p->cfg, 0, sizeof(p->cfg));
	err = tbf_resolve(&p->cfg, opt ? opt : &none, &c, ack);
	if (err)
		return err;
	tbf_apply(q, &c);
	return 0;
}

static int tbf_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	static const struct tbf_opt none;
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	struct tbf_cfg c;
	int err;

	err = tbf_resolve(&p->cfg, opt ? opt : &none, &c, ack);
	if (err)
		return err;
	(void)to_free;
	/* The inner fifo keeps what it holds above a lowered limit (tbf_change: fifo_set_limit). */
	mqtx_qdisc_lock(q);
	tbf_apply(q, &c);
	mqtx_qdisc_unlock(q);
	return 0;
}

static void tbf_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);

	mqtx_pkt_list_splice(&p->list, to_free);
	q->qlen = 0;
	q->backlog = 0;
	p->t_c = (int64_t)mqtx_qdisc_now(q);
	p->tokens = p->cfg.buffer;
	p->ptokens = p->cfg.mtu_ns;
	mqtx_timer_cancel(&p->watchdog);
}

static void tbf_destroy(struct mqtx_qdisc *q)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);

	if (p->watchdog_ready)
		mqtx_timer_cancel(&p->watchdog);
}

/*
 * A bucket as tc shows it: the kernel reports its depth in 64 ns ticks (PSCHED_NS2TICKS) and
 * tc turns that into whole microseconds (psched's 1000/64 ticks per us), truncating; sizes are
 * those microseconds at the rate, truncated again ("burst 1mb" at 100mbit shows 1024Kb).
 */
static uint32_t tc_ticks_us(int64_t ns)
{
	return (uint32_t)((double)((uint64_t)ns >> 6) / 15.625);
}

static uint64_t tc_bucket_size(uint64_t rate, int64_t ns)
{
	return (uint32_t)((double)rate * tc_ticks_us(ns) / 1e6);
}

static void tbf_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	const struct tbf_cfg *c = &p->cfg;
	double lat;

	mqtx_dump_rate(d, "rate", "rate %s", c->rate);
	mqtx_dump_size(d, "burst", "burst %s", tc_bucket_size(c->rate, c->buffer));
	if (c->peak) {
		/* Current tc leaves peakrate out of its JSON (printed PRINT_FP only); mqtx keeps
		 * it, as a number like rate. */
		mqtx_dump_rate(d, "peakrate", "peakrate %s", c->peak);
		mqtx_dump_size(d, "minburst", "minburst %s", tc_bucket_size(c->peak, c->mtu_ns));
	}
	/* tc shows the latency the limit implies (in us), or the limit when that is negative. */
	lat = 1e6 * (double)c->limit / (double)c->rate - tc_ticks_us(c->buffer);
	if (c->peak) {
		double lat2 = 1e6 * (double)c->limit / (double)c->peak - tc_ticks_us(c->mtu_ns);

		if (lat2 > lat)
			lat = lat2;
	}
	if (lat >= 0)
		mqtx_dump_time(d, "lat", "lat %s", (uint64_t)lat * 1000);
	else
		mqtx_dump_size(d, "limit", "limit %s", c->limit);
	mqtx_dump_flag(d, NULL, ""); /* tc ends the line with a blank */
}

/* ---- classes: Linux's tbf is classful, one class X:1 over its inner queue. mqtx's tbf queues
 * inside itself, so the class has no child to replace and no counters of its own. ---- */

static uint32_t tbf_class_count(struct mqtx_qdisc *q)
{
	(void)q;
	return 1;
}

static struct mqtx_qdisc *tbf_class_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	(void)q;
	(void)minor;
	return NULL;
}

static void tbf_class_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	struct mqtx_class c = { .minor = 1, .parent = q->handle };

	fn(q, &c, arg);
}

static const struct mqtx_class_ops tbf_class_ops = {
	.count = tbf_class_count,
	.leaf = tbf_class_leaf,
	.walk = tbf_class_walk,
};

const struct mqtx_qdisc_ops mqtx_tbf_qdisc_ops = {
	.id = "tbf",
	.priv_size = sizeof(struct tbf_priv),
	.opt_size = sizeof(struct tbf_opt),
	.enqueue = tbf_enqueue,
	.dequeue = tbf_dequeue,
	.peek = tbf_peek,
	.parse = tbf_parse,
	.init = tbf_init,
	.change = tbf_change,
	.reset = tbf_reset,
	.destroy = tbf_destroy,
	.dump = tbf_dump,
	.cl_ops = &tbf_class_ops,
};

// SPDX-License-Identifier: MIT
/* codel: one FIFO under the CoDel AQM (Linux sch_codel.c). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "qdisc/codel.h"
#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include <mqtx/tc.h>
#include <mqtx/xstats.h>

#define CODEL_DEFAULT_LIMIT 1000

struct codel_opt {
	bool has_limit, has_target, has_interval, has_ce_threshold, has_ecn;
	bool ecn;
	uint32_t limit;
	uint64_t target, interval, ce_threshold; /* ns */
};

struct codel_priv {
	uint32_t limit;
	struct mqtx_codel_params params;
	struct mqtx_codel_vars vars;
	struct mqtx_codel_stats stats;
	uint64_t drop_overlimit;
	struct mqtx_pkt_list list;
	struct mqtx_pkt *peeked;  /* dequeued by peek, still counted in qlen/backlog */
	struct mqtx_pkt *dropped; /* AQM drops of the current dequeue, freed before returning */
};

/* ---- data path ---- */

static int codel_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	if (q->qlen < p->limit) {
		mqtx_codel_stamp(pkt, mqtx_codel_ns2time(mqtx_qdisc_now(q)));
		return mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
	}
	p->drop_overlimit++;
	return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
}

static struct mqtx_pkt *codel_deq(struct mqtx_codel_vars *vars, void *ctx)
{
	struct mqtx_qdisc *q = ctx;
	struct codel_priv *p = mqtx_qdisc_priv(q);

	(void)vars;
	return mqtx_qdisc_dequeue_head(q, &p->list);
}

static void codel_drop_aqm(struct mqtx_pkt *pkt, void *ctx)
{
	struct mqtx_qdisc *q = ctx;
	struct codel_priv *p = mqtx_qdisc_priv(q);

	mqtx_qdisc_drop(q, pkt, MQTX_DROP_AQM, &p->dropped);
}

static struct mqtx_pkt *codel_dequeue_aqm(struct mqtx_qdisc *q)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt;

	pkt = mqtx__codel_dequeue(q, &q->backlog, &p->params, &p->vars, &p->stats, codel_deq,
				  codel_drop_aqm, mqtx_codel_ns2time(mqtx_qdisc_now(q)));
	/* Linux frees CoDel's victims on the spot, under the qdisc lock, as here. */
	mqtx_qdisc_free_dropped(q->dev, p->dropped);
	p->dropped = NULL;
	p->stats.drop_count = 0;
	return pkt;
}

static struct mqtx_pkt *codel_dequeue(struct mqtx_qdisc *q)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	return mqtx__codel_peeked_dequeue(q, &p->peeked, codel_dequeue_aqm);
}

static struct mqtx_pkt *codel_peek(struct mqtx_qdisc *q)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	return mqtx__codel_peeked_peek(q, &p->peeked, codel_dequeue_aqm);
}

/* ---- control path ---- */

/*
 * tc's codel_parse_opt(): a limit, target or interval of 0 is not sent (the kernel keeps what
 * it has); ce_threshold and ecn are. codel_change() checks nothing.
 */
static int codel_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct codel_opt *o = opt;
	int err = 0;

	for (int i = 0; i < argc && !err; i++) {
		const char *a = argv[i];

		if (strcmp(a, "limit") == 0) {
			err = mqtx_tc_arg_u32(argc, argv, &i, &o->limit, ack);
			o->has_limit = o->limit != 0;
		} else if (strcmp(a, "target") == 0) {
			err = mqtx__codel_arg_time(argc, argv, &i, &o->target, ack);
			o->has_target = o->target != 0;
		} else if (strcmp(a, "interval") == 0) {
			err = mqtx__codel_arg_time(argc, argv, &i, &o->interval, ack);
			o->has_interval = o->interval != 0;
		} else if (strcmp(a, "ce_threshold") == 0) {
			err = mqtx__codel_arg_time(argc, argv, &i, &o->ce_threshold, ack);
			o->has_ce_threshold = true;
		} else if (strcmp(a, "ecn") == 0 || strcmp(a, "noecn") == 0) {
			o->ecn = a[0] == 'e';
			o->has_ecn = true;
		} else {
			return mqtx_tc_unknown("codel", a, ack);
		}
	}
	return err;
}

static void codel_apply(struct mqtx_qdisc *q, const struct codel_opt *o)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	if (o->has_limit)
		p->limit = o->limit;
	if (o->has_target)
		p->params.target = mqtx_codel_ns2time(o->target);
	if (o->has_interval)
		p->params.interval = mqtx_codel_ns2time(o->interval);
	if (o->has_ce_threshold) {
		p->params.ce_threshold = mqtx_codel_ns2time(o->ce_threshold);
		p->params.ce_threshold_on = true;
	}
	if (o->has_ecn)
		p->params.ecn = o->ecn;
}

static int codel_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	(void)ack;
	mqtx_pkt_list_init(&p->list);
	p->limit = CODEL_DEFAULT_LIMIT;
	mqtx__codel_params_init(&p->params, mqtx__psched_mtu(q));
	mqtx__codel_vars_init(&p->vars);
	if (opt)
		codel_apply(q, opt);
	q->flags |= MQTX_QF_CAN_BYPASS;
	return 0;
}

static bool codel_over(struct mqtx_qdisc *q)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	return q->qlen > p->limit;
}

static int codel_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
			struct mqtx_extack *ack)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	(void)ack;
	if (!opt)
		return 0;
	mqtx_qdisc_lock(q);
	codel_apply(q, opt);
	/* A lowered limit trims from the head, the peeked packet first (codel_change). */
	if (p->peeked && codel_over(q)) {
		q->qlen--;
		q->backlog -= p->peeked->len;
		mqtx_qdisc_drop(q, p->peeked, MQTX_DROP_QDISC, to_free);
		p->peeked = NULL;
	}
	mqtx__fifo_trim(q, &p->list, codel_over, to_free);
	mqtx_qdisc_unlock(q);
	return 0;
}

static void codel_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	if (p->peeked)
		mqtx_pkt_link(p->peeked, to_free);
	p->peeked = NULL;
	mqtx_pkt_list_splice(&p->list, to_free);
	q->qlen = 0;
	q->backlog = 0;
	mqtx__codel_vars_init(&p->vars);
}

static void codel_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	mqtx_dump_uint(d, "limit", "limit %" PRIu64 "p", p->limit);
	mqtx__codel_dump_times(&p->params, d);
	if (p->params.ecn)
		mqtx_dump_flag(d, "ecn", "ecn");
}

/* ---- statistics ---- */

/* Lock held. What codel_dump_stats() reports. */
static void codel_xstats(struct mqtx_qdisc *q, struct mqtx_codel_xstats *st)
{
	struct codel_priv *p = mqtx_qdisc_priv(q);

	memset(st, 0, sizeof(*st));
	st->maxpacket = p->stats.maxpacket;
	st->count = p->vars.count;
	st->lastcount = p->vars.lastcount;
	st->ldelay_us = mqtx_codel_time2us(p->vars.ldelay);
	st->dropping = p->vars.dropping;
	st->drop_next_us =
		mqtx__codel_drop_next_us(&p->vars, mqtx_codel_ns2time(mqtx_qdisc_now(q)));
	st->drop_overlimit = p->drop_overlimit;
	st->ecn_mark = p->stats.ecn_mark;
	st->ce_mark = p->stats.ce_mark;
}

/* tc's codel_print_xstats(): two lines; "dropping" and ce_mark only when there are some. */
static void codel_dump_stats(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct mqtx_codel_xstats st;

	codel_xstats(q, &st);
	mqtx_dump_uint(d, "count", "count %" PRIu64, st.count);
	mqtx_dump_uint(d, "lastcount", "lastcount %" PRIu64, st.lastcount);
	mqtx_dump_time(d, "ldelay", "ldelay %s", (uint64_t)st.ldelay_us * 1000);
	if (st.dropping)
		mqtx_dump_flag(d, "dropping", "dropping");
	mqtx_dump_time_signed(d, "drop_next", "drop_next %s", (int64_t)st.drop_next_us * 1000);
	mqtx_dump_nl(d);
	mqtx_dump_uint(d, "maxpacket", "maxpacket %" PRIu64, st.maxpacket);
	mqtx_dump_uint(d, "ecn_mark", "ecn_mark %" PRIu64, st.ecn_mark);
	mqtx_dump_uint(d, "drop_overlimit", "drop_overlimit %" PRIu64, st.drop_overlimit);
	if (st.ce_mark)
		mqtx_dump_uint(d, "ce_mark", "ce_mark %" PRIu64, st.ce_mark);
}

int mqtx_codel_get_xstats(struct mqtx_qdisc *q, struct mqtx_codel_xstats *st)
{
	if (q->ops != &mqtx__codel_qdisc_ops)
		return -EINVAL;
	mqtx_qdisc_lock(q);
	codel_xstats(q, st);
	mqtx_qdisc_unlock(q);
	return 0;
}

const struct mqtx_qdisc_ops mqtx__codel_qdisc_ops = {
	.id = "codel",
	.usage = "Usage: ... codel [ limit PACKETS ] [ target TIME ]\n"
		 "\t\t [ interval TIME ] [ ecn | noecn ]\n"
		 "\t\t [ ce_threshold TIME ]",
	.priv_size = sizeof(struct codel_priv),
	.opt_size = sizeof(struct codel_opt),
	.enqueue = codel_enqueue,
	.dequeue = codel_dequeue,
	.peek = codel_peek,
	.parse = codel_parse,
	.init = codel_init,
	.change = codel_change,
	.reset = codel_reset,
	.dump = codel_dump,
	.dump_stats = codel_dump_stats,
};

// SPDX-License-Identifier: MIT
/* fq_codel: per-flow CoDel queues served by deficit round robin (Linux sch_fq_codel.c). */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <string.h>

#include <mqtx/flow.h>

#include "qdisc/codel.h"
#include "qdisc/fifo_common.h"
#include "qdisc/fq.h"
#include "qdisc/fq_codel.h"
#include "qdisc/kinds.h"
#include <mqtx/tc.h>
#include <mqtx/xstats.h>

#define FQC_DEFAULT_LIMIT 10240
#define FQC_DEFAULT_FLOWS 1024
#define FQC_MAX_FLOWS	  65536
#define FQC_QUANTUM_MIN	  256
#define FQC_QUANTUM_MAX	  (1u << 20)
#define FQC_MEMORY_LIMIT  (32u << 20)
#define FQC_MEMORY_MAX	  (1u << 31)
#define FQC_DROP_BATCH	  64

struct fqc_opt {
	bool has_limit, has_flows, has_quantum, has_target, has_interval, has_ce_threshold;
	bool has_memory_limit, has_drop_batch, has_ecn, ecn;
	uint32_t limit, flows, quantum, drop_batch;
	uint64_t target, interval, ce_threshold, memory_limit;
};

struct fqc_flow {
	struct mqtx_pkt *head, *tail;
	struct fq_drr_flow drr;
	uint32_t backlog;
	struct mqtx_codel_vars cvars;
};

struct fqc_priv {
	struct fqc_flow *flows;
	uint32_t flows_cnt, limit, drop_batch;
	uint32_t memory_limit;
	uint64_t memory_usage;
	struct mqtx_codel_params cparams;
	struct mqtx_codel_stats cstats;
	uint64_t drop_overlimit, drop_overmemory;
	uint32_t new_flow_count;
	struct fq_drr drr;
	struct mqtx_qdisc *q;
	struct mqtx_pkt *peeked, *dropped;
};

/* A dequeue: the qdisc and its time in CoDel units. */
struct fqc_turn {
	struct mqtx_qdisc *q;
	uint32_t now;
};

/* ---- classification ---- */

uint32_t mqtx__fq_codel_flow_index(struct mqtx_qdisc *q, const struct mqtx_pkt *pkt)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	struct {
		struct fq_tuple t;
		uint8_t pad;
	} key;

	if (q->handle && (pkt->priority & 0xffff0000u) == (q->handle & 0xffff0000u)) {
		uint32_t minor = pkt->priority & 0xffffu;

		if (minor >= 1 && minor <= p->flows_cnt)
			return minor - 1;
	}
	memset(&key, 0, sizeof(key));
	fq_tuple_set(&key.t, pkt);
	return mqtx_reciprocal_scale(mqtx_jhash(&key, sizeof(key), 0), p->flows_cnt);
}

/* ---- data path ---- */

static void flow_push(struct fqc_flow *f, struct mqtx_pkt *pkt)
{
	pkt->next = NULL;
	if (f->tail)
		f->tail->next = pkt;
	else
		f->head = pkt;
	f->tail = pkt;
}

static struct mqtx_pkt *flow_pop(struct fqc_flow *f)
{
	struct mqtx_pkt *pkt = f->head;

	f->head = pkt->next;
	if (!f->head)
		f->tail = NULL;
	else
		__builtin_prefetch(f->head, 1); /* this flow's next turn: a line long gone cold */
	pkt->next = NULL;
	return pkt;
}

/* Over a limit: drop up to drop_batch packets, at least half its bytes, from the fattest flow
 * (the lowest index on ties; @idx, the newcomer's flow, if every backlog is 0). */
static uint32_t fqc_drop_fat(struct mqtx_qdisc *q, uint32_t idx, struct mqtx_pkt **to_free)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	uint32_t maxbacklog = 0, threshold, len = 0, n = 0;
	struct fqc_flow *f;

	for (uint32_t i = 0; i < p->flows_cnt; i++) {
		if (p->flows[i].backlog > maxbacklog) {
			maxbacklog = p->flows[i].backlog;
			idx = i;
		}
	}
	threshold = maxbacklog >> 1;
	f = &p->flows[idx];
	do {
		struct mqtx_pkt *pkt = flow_pop(f);

		len += pkt->len;
		p->memory_usage -= mqtx_fq_codel_truesize(pkt);
		q->qlen--;
		q->backlog -= pkt->len;
		mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	} while (++n < p->drop_batch && len < threshold && f->head);
	f->cvars.count += n; /* tells CoDel to signal harder too */
	f->backlog -= len;
	return idx;
}

static int fqc_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	uint32_t idx = mqtx__fq_codel_flow_index(q, pkt), before;
	struct fqc_flow *f = &p->flows[idx];
	bool over_memory;

	mqtx_codel_stamp(pkt, mqtx_codel_ns2time(mqtx_qdisc_now(q)));
	flow_push(f, pkt);
	f->backlog += pkt->len;
	q->backlog += pkt->len;
	if (fq_drr_activate(&p->drr, &f->drr))
		p->new_flow_count++;
	p->memory_usage += mqtx_fq_codel_truesize(pkt);
	over_memory = p->memory_usage > p->memory_limit;
	if (++q->qlen <= p->limit && !over_memory)
		return MQTX_XMIT_SUCCESS;
	before = q->qlen;
	/* CN when the fat flow was this packet's own (which may have taken the newcomer too). */
	if (fqc_drop_fat(q, idx, to_free) == idx) {
		p->drop_overlimit += before - q->qlen;
		if (over_memory)
			p->drop_overmemory += before - q->qlen;
		return MQTX_XMIT_CN;
	}
	p->drop_overlimit += before - q->qlen;
	if (over_memory)
		p->drop_overmemory += before - q->qlen;
	return MQTX_XMIT_SUCCESS;
}

static struct mqtx_pkt *fqc_deq(struct mqtx_codel_vars *vars, void *ctx)
{
	struct fqc_flow *f = (struct fqc_flow *)((char *)vars - offsetof(struct fqc_flow, cvars));
	struct mqtx_qdisc *q = ctx;
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt;

	if (!f->head)
		return NULL;
	pkt = flow_pop(f);
	f->backlog -= pkt->len;
	p->memory_usage -= mqtx_fq_codel_truesize(pkt);
	q->qlen--;
	q->backlog -= pkt->len;
	return pkt;
}

static void fqc_drop_aqm(struct mqtx_pkt *pkt, void *ctx)
{
	struct mqtx_qdisc *q = ctx;
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	mqtx_qdisc_drop(q, pkt, MQTX_DROP_AQM, &p->dropped);
}

/* CoDel on the flow whose turn it is, against the backlog of the whole qdisc, as
 * fq_codel_dequeue() runs codel_dequeue() on sch->qstats.backlog. */
static struct mqtx_pkt *fqc_serve(struct fq_drr_flow *df, void *arg)
{
	struct fqc_flow *f = (struct fqc_flow *)((char *)df - offsetof(struct fqc_flow, drr));
	struct fqc_turn *t = arg;
	struct fqc_priv *p = mqtx_qdisc_priv(t->q);

	return mqtx__codel_dequeue(t->q, &t->q->backlog, &p->cparams, &f->cvars, &p->cstats,
				   fqc_deq, fqc_drop_aqm, t->now);
}

/* DRR over new flows first, then old ones; CoDel runs on the chosen flow. */
static struct mqtx_pkt *fqc_dequeue_inner(struct mqtx_qdisc *q)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	struct fqc_turn t = { q, mqtx_codel_ns2time(mqtx_qdisc_now(q)) };
	struct mqtx_pkt *pkt = fq_drr_dequeue(&p->drr, fqc_serve, &t);

	mqtx_qdisc_free_dropped(q->dev, p->dropped);
	p->dropped = NULL;
	p->cstats.drop_count = 0;
	return pkt;
}

static struct mqtx_pkt *fqc_dequeue(struct mqtx_qdisc *q)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	return mqtx__codel_peeked_dequeue(q, &p->peeked, fqc_dequeue_inner);
}

static struct mqtx_pkt *fqc_peek(struct mqtx_qdisc *q)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	return mqtx__codel_peeked_peek(q, &p->peeked, fqc_dequeue_inner);
}

/* ---- control path ---- */

/* An unsigned option @a that tc sends only when it is not 0 (fq_codel_parse_opt()). */
static int fqc_u32(int argc, char **argv, int *i, uint32_t *v, bool *has, struct mqtx_extack *ack)
{
	int err = mqtx_tc_arg_u32(argc, argv, i, v, ack);

	*has = !err && *v;
	return err;
}

/* tc's fq_codel_parse_opt(): limit, flows, quantum, drop_batch, target and interval are not
 * sent when 0; memory_limit and ce_threshold are. */
static int fqc_parse_one(int argc, char **argv, int *i, struct fqc_opt *o, struct mqtx_extack *ack)
{
	const char *a = argv[*i];
	int err;

	if (strcmp(a, "limit") == 0)
		return fqc_u32(argc, argv, i, &o->limit, &o->has_limit, ack);
	if (strcmp(a, "flows") == 0)
		return fqc_u32(argc, argv, i, &o->flows, &o->has_flows, ack);
	if (strcmp(a, "quantum") == 0)
		return fqc_u32(argc, argv, i, &o->quantum, &o->has_quantum, ack);
	if (strcmp(a, "drop_batch") == 0)
		return fqc_u32(argc, argv, i, &o->drop_batch, &o->has_drop_batch, ack);
	if (strcmp(a, "memory_limit") == 0) {
		o->has_memory_limit = true;
		return mqtx_tc_arg_size(argc, argv, i, &o->memory_limit, ack);
	}
	if (strcmp(a, "target") == 0) {
		err = mqtx__codel_arg_time(argc, argv, i, &o->target, ack);
		o->has_target = o->target != 0;
		return err;
	}
	if (strcmp(a, "interval") == 0) {
		err = mqtx__codel_arg_time(argc, argv, i, &o->interval, ack);
		o->has_interval = o->interval != 0;
		return err;
	}
	if (strcmp(a, "ce_threshold") == 0) {
		o->has_ce_threshold = true;
		return mqtx__codel_arg_time(argc, argv, i, &o->ce_threshold, ack);
	}
	if (strcmp(a, "ecn") == 0 || strcmp(a, "noecn") == 0) {
		o->has_ecn = true;
		o->ecn = a[0] == 'e';
		return 0;
	}
	return mqtx_tc_unknown("fq_codel", a, ack);
}

static int fqc_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	int err;

	for (int i = 0; i < argc; i++) {
		err = fqc_parse_one(argc, argv, &i, opt, ack);
		if (err)
			return err;
	}
	return 0;
}

/* fq_codel_change()'s checks, before anything is touched: "flows" only at creation and in
 * 1..65536 (refused without a message: why goes to the log), the quantum at most 1 MiB. */
static int fqc_validate(const struct fqc_opt *o, bool creating, struct mqtx_extack *ack)
{
	if (o->has_flows && !creating) {
		mqtx_log(MQTX_LOG_ERR, "fq_codel: \"flows\" can only be set at creation");
		return -EINVAL;
	}
	if (o->has_flows && (o->flows == 0 || o->flows > FQC_MAX_FLOWS)) {
		mqtx_log(MQTX_LOG_ERR, "fq_codel: \"flows\" %u is not in 1..%u", o->flows,
			 FQC_MAX_FLOWS);
		return -EINVAL;
	}
	if (o->has_quantum && o->quantum > FQC_QUANTUM_MAX)
		return mqtx_extack_set(ack, "Invalid quantum.");
	return 0;
}

static void fqc_apply(struct mqtx_qdisc *q, const struct fqc_opt *o)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	if (o->has_limit)
		p->limit = o->limit;
	if (o->has_quantum)
		p->drr.quantum = o->quantum < FQC_QUANTUM_MIN ? FQC_QUANTUM_MIN : o->quantum;
	if (o->has_drop_batch)
		p->drop_batch = o->drop_batch ? o->drop_batch : 1;
	if (o->has_memory_limit)
		p->memory_limit = (uint32_t)(o->memory_limit > FQC_MEMORY_MAX ? FQC_MEMORY_MAX
									      : o->memory_limit);
	if (o->has_target)
		p->cparams.target = mqtx_codel_ns2time(o->target);
	if (o->has_interval)
		p->cparams.interval = mqtx_codel_ns2time(o->interval);
	if (o->has_ce_threshold) {
		p->cparams.ce_threshold = mqtx_codel_ns2time(o->ce_threshold);
		p->cparams.ce_threshold_on = true;
	}
	if (o->has_ecn)
		p->cparams.ecn = o->ecn;
	if (p->limit >= 1)
		q->flags |= MQTX_QF_CAN_BYPASS;
	else
		q->flags &= ~MQTX_QF_CAN_BYPASS;
}

static int fqc_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	static const struct fqc_opt none;
	const struct fqc_opt *o = opt ? opt : &none;
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	int err;

	err = fqc_validate(o, true, ack);
	if (err)
		return err;
	p->q = q;
	p->limit = FQC_DEFAULT_LIMIT;
	p->flows_cnt = o->has_flows ? o->flows : FQC_DEFAULT_FLOWS;
	p->drr.quantum = mqtx__psched_mtu(q);
	p->drop_batch = FQC_DROP_BATCH;
	p->memory_limit = FQC_MEMORY_LIMIT;
	mqtx__codel_params_init(&p->cparams, mqtx__psched_mtu(q));
	p->cparams.ecn = true;
	fqc_apply(q, o);
	p->flows = mqtx_alloc(sizeof(*p->flows) * p->flows_cnt, 0);
	if (p->flows)
		memset(p->flows, 0, sizeof(*p->flows) * p->flows_cnt);
	if (!p->flows) {
		mqtx_extack_set(ack, "fq_codel: no memory for %u flows", p->flows_cnt);
		return -ENOMEM;
	}
	return 0;
}

static bool fqc_over(struct mqtx_qdisc *q)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	return q->qlen > p->limit || p->memory_usage > p->memory_limit;
}

static int fqc_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	struct mqtx_pkt *pkt;
	int err;

	if (!opt)
		return 0;
	err = fqc_validate(opt, false, ack);
	if (err)
		return err;
	mqtx_qdisc_lock(q);
	fqc_apply(q, opt);
	/* Over a lowered limit: drop what dequeue would send next, as fq_codel_change does. */
	while (q->qlen && fqc_over(q)) {
		pkt = fqc_dequeue(q);
		if (!pkt)
			break;
		mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
	}
	mqtx_qdisc_unlock(q);
	return 0;
}

static void fqc_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	if (p->peeked)
		mqtx_pkt_link(p->peeked, to_free);
	p->peeked = NULL;
	for (uint32_t i = 0; p->flows && i < p->flows_cnt; i++) {
		struct fqc_flow *f = &p->flows[i];

		while (f->head)
			mqtx_pkt_link(flow_pop(f), to_free);
		memset(f, 0, sizeof(*f));
	}
	memset(&p->drr.new_flows, 0, sizeof(p->drr.new_flows));
	memset(&p->drr.old_flows, 0, sizeof(p->drr.old_flows));
	p->memory_usage = 0;
	q->qlen = 0;
	q->backlog = 0;
}

static void fqc_destroy(struct mqtx_qdisc *q)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	mqtx_free(p->flows);
	p->flows = NULL;
}

static void fqc_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	mqtx_dump_uint(d, "limit", "limit %" PRIu64 "p", p->limit);
	mqtx_dump_uint(d, "flows", "flows %" PRIu64, p->flows_cnt);
	mqtx_dump_uint(d, "quantum", "quantum %" PRIu64, p->drr.quantum);
	/* tc prints memory_limit between interval and ecn, so the CoDel part comes in two. */
	mqtx__codel_dump_times(&p->cparams, d);
	mqtx_dump_size(d, "memory_limit", "memory_limit %s", p->memory_limit);
	if (p->cparams.ecn)
		mqtx_dump_flag(d, "ecn", "ecn");
	mqtx_dump_uint(d, "drop_batch", "drop_batch %" PRIu64, p->drop_batch);
}

/* ---- statistics, and the flows as classes (Linux's fq_codel_class_ops) ---- */

/* Lock held. What fq_codel_dump_stats() reports. */
static void fqc_xstats(struct mqtx_qdisc *q, struct mqtx_fq_codel_xstats *st)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	st->maxpacket = p->cstats.maxpacket;
	st->new_flow_count = p->new_flow_count;
	st->new_flows_len = p->drr.new_flows.len;
	st->old_flows_len = p->drr.old_flows.len;
	st->drop_overlimit = p->drop_overlimit;
	st->drop_overmemory = p->drop_overmemory;
	st->ecn_mark = p->cstats.ecn_mark;
	st->ce_mark = p->cstats.ce_mark;
	st->memory_usage = p->memory_usage;
}

/* tc's fq_codel_print_xstats(): ce_mark, memory_used and drop_overmemory only when not 0. */
static void fqc_dump_stats(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct mqtx_fq_codel_xstats st;

	fqc_xstats(q, &st);
	mqtx_dump_uint(d, "maxpacket", "maxpacket %" PRIu64, st.maxpacket);
	mqtx_dump_uint(d, "drop_overlimit", "drop_overlimit %" PRIu64, st.drop_overlimit);
	mqtx_dump_uint(d, "new_flow_count", "new_flow_count %" PRIu64, st.new_flow_count);
	mqtx_dump_uint(d, "ecn_mark", "ecn_mark %" PRIu64, st.ecn_mark);
	if (st.ce_mark)
		mqtx_dump_uint(d, "ce_mark", "ce_mark %" PRIu64, st.ce_mark);
	if (st.memory_usage)
		mqtx_dump_uint(d, "memory_used", "memory_used %" PRIu64, st.memory_usage);
	if (st.drop_overmemory)
		mqtx_dump_uint(d, "drop_overmemory", "drop_overmemory %" PRIu64,
			       st.drop_overmemory);
	mqtx_dump_nl(d);
	mqtx_dump_uint(d, "new_flows_len", "new_flows_len %" PRIu64, st.new_flows_len);
	mqtx_dump_uint(d, "old_flows_len", "old_flows_len %" PRIu64, st.old_flows_len);
}

/* Lock held. Flow @idx (< flows_cnt) as fq_codel_dump_class_stats() reports it. */
static void fqc_flow_xstats(struct mqtx_qdisc *q, uint32_t idx,
			    struct mqtx_fq_codel_flow_xstats *st)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	const struct fqc_flow *f = &p->flows[idx];

	memset(st, 0, sizeof(*st));
	st->deficit = f->drr.deficit;
	st->count = f->cvars.count;
	st->lastcount = f->cvars.lastcount;
	st->ldelay_us = mqtx_codel_time2us(f->cvars.ldelay);
	st->dropping = f->cvars.dropping;
	st->drop_next_us =
		mqtx__codel_drop_next_us(&f->cvars, mqtx_codel_ns2time(mqtx_qdisc_now(q)));
	st->active = f->drr.listed;
	for (const struct mqtx_pkt *pkt = f->head; pkt; pkt = pkt->next)
		st->qlen++;
	st->backlog = f->backlog;
}

/* No flow can be addressed (fq_codel_find() finds none: no child, no graft). */
static uint32_t fqc_cl_count(struct mqtx_qdisc *q)
{
	(void)q;
	return 0;
}

static struct mqtx_qdisc *fqc_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	(void)q;
	(void)minor;
	return NULL;
}

/* fq_codel_walk(): the flows on a list, as classes X:idx+1 with their queue counters only. */
static void fqc_cl_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t i = 0; i < p->flows_cnt; i++) {
		struct mqtx_fq_codel_flow_xstats fx;
		struct mqtx_qdisc_stats st = { 0 };
		struct mqtx_class c = {
			.minor = i + 1, .parent = q->handle, .stats = &st, .queue_only = true
		};

		/* A snapshot under the lock: @fn may print, and take the lock itself. */
		mqtx_qdisc_lock(q);
		fqc_flow_xstats(q, i, &fx);
		mqtx_qdisc_unlock(q);
		if (!fx.active)
			continue;
		st.qlen = fx.qlen;
		st.backlog = fx.backlog;
		fn(q, &c, arg);
	}
}

/* tc's class xstats of a flow: drop_next only while dropping. */
static void fqc_cl_dump_stats(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_dump *d)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_fq_codel_flow_xstats st;

	if (minor < 1 || minor > p->flows_cnt)
		return;
	fqc_flow_xstats(q, minor - 1, &st);
	mqtx_dump_int(d, "deficit", "deficit %" PRId64, st.deficit);
	mqtx_dump_uint(d, "count", "count %" PRIu64, st.count);
	mqtx_dump_uint(d, "lastcount", "lastcount %" PRIu64, st.lastcount);
	mqtx_dump_time(d, "ldelay", "ldelay %s", (uint64_t)st.ldelay_us * 1000);
	if (st.dropping) {
		mqtx_dump_flag(d, "dropping", "dropping");
		mqtx_dump_time_signed(d, "drop_next", "drop_next %s",
				      (int64_t)st.drop_next_us * 1000);
	}
}

static const struct mqtx_class_ops fqc_class_ops = {
	.count = fqc_cl_count,
	.leaf = fqc_cl_leaf,
	.walk = fqc_cl_walk,
	.dump_stats = fqc_cl_dump_stats,
};

int mqtx_fq_codel_get_xstats(struct mqtx_qdisc *q, struct mqtx_fq_codel_xstats *st)
{
	if (q->ops != &mqtx__fq_codel_qdisc_ops)
		return -EINVAL;
	mqtx_qdisc_lock(q);
	fqc_xstats(q, st);
	mqtx_qdisc_unlock(q);
	return 0;
}

int mqtx_fq_codel_get_flow_xstats(struct mqtx_qdisc *q, uint32_t minor,
				  struct mqtx_fq_codel_flow_xstats *st)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	if (q->ops != &mqtx__fq_codel_qdisc_ops)
		return -EINVAL;
	if (minor < 1 || minor > p->flows_cnt)
		return -ENOENT;
	mqtx_qdisc_lock(q);
	fqc_flow_xstats(q, minor - 1, st);
	mqtx_qdisc_unlock(q);
	return 0;
}

uint32_t mqtx__fq_codel_flow_backlog(struct mqtx_qdisc *q, uint32_t idx)
{
	struct fqc_priv *p = mqtx_qdisc_priv(q);

	return idx < p->flows_cnt ? p->flows[idx].backlog : 0;
}

const struct mqtx_qdisc_ops mqtx__fq_codel_qdisc_ops = {
	.id = "fq_codel",
	.usage = "Usage: ... fq_codel\t[ limit PACKETS ] [ flows NUMBER ]\n"
		 "[ memory_limit BYTES ]\n"
		 "[ target TIME ] [ interval TIME ]\n"
		 "[ quantum BYTES ] [ [no]ecn ]\n"
		 "[ ce_threshold TIME ]\n"
		 "[ drop_batch SIZE ]",
	.priv_size = sizeof(struct fqc_priv),
	.opt_size = sizeof(struct fqc_opt),
	.enqueue = fqc_enqueue,
	.dequeue = fqc_dequeue,
	.peek = fqc_peek,
	.parse = fqc_parse,
	.init = fqc_init,
	.change = fqc_change,
	.reset = fqc_reset,
	.destroy = fqc_destroy,
	.dump = fqc_dump,
	.cl_ops = &fqc_class_ops,
	.dump_stats = fqc_dump_stats,
};

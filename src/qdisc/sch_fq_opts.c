// SPDX-License-Identifier: MIT
/* fq's options: tc 6.1's words in and out (q_fq.c), the checks of Linux 6.12's fq_change(),
 * and its statistics as tc prints them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc/sch_fq.h"
#include <mqtx/tc.h>

const uint8_t mqtx__fq_default_prio2band[FQ_PRIOS] = { 1, 2, 2, 2, 1, 2, 0, 0,
						       1, 1, 1, 1, 1, 1, 1, 1 };
const uint32_t mqtx__fq_default_weights[FQ_BANDS] = { 9 << 16, 3 << 16, 1 << 16 };

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

int mqtx__fq_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
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
int mqtx__fq_resolve(const struct fq_opt *o, struct fq_cfg *c, struct mqtx_extack *ack)
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
void mqtx__fq_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
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
	/* tc's print_null(): "horizon_drop": null in its JSON */
	mqtx_dump_null(d, c->horizon_drop ? "horizon_drop" : "horizon_cap",
		       c->horizon_drop ? "horizon_drop" : "horizon_cap");
	if (memcmp(c->prio2band, mqtx__fq_default_prio2band, sizeof(c->prio2band)) ||
	    memcmp(c->weights, mqtx__fq_default_weights, sizeof(c->weights))) {
		uint32_t map[FQ_PRIOS];

		for (int i = 0; i < FQ_PRIOS; i++)
			map[i] = c->prio2band[i];
		mqtx_dump_uint(d, "bands", "bands %" PRIu64, FQ_BANDS);
		mqtx_dump_uint_array(d, "priomap", "priomap", map, FQ_PRIOS);
		mqtx_dump_uint_array(d, "weights", "weights", c->weights, FQ_BANDS);
	}
}

/* fq_print_xstats() of tc 6.1 on fq_dump_stats(): its third line starts with one blank, the
 * others with two. */
void mqtx__fq_dump_stats(struct mqtx_qdisc *q, struct mqtx_dump *d)
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
		mqtx_dump_indent(d, " ");
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

// SPDX-License-Identifier: MIT
/* tbf: a token bucket filter (Linux sch_tbf.c): rate, burst, byte limit, optional peak rate,
 * and tc's link-layer accounting (overhead, mpu, ATM cells). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include "qdisc/watchdog.h"
#include "base/tc_ticks.h"
#include "base/tbucket.h"
#include <mqtx/tc.h>

#define TBF_LL_ETHERNET 1 /* TC_LINKLAYER_ETHERNET, tc's default */
#define TBF_LL_ATM	2 /* TC_LINKLAYER_ATM */

/*
 * The options as tc sends them (tbf_parse_opt): the whole configuration every time, so a
 * change replaces the current one and what the command leaves out (a peak rate, an overhead)
 * is off afterwards. @limit is already worked out from a latency.
 */
struct tbf_opt {
	uint64_t rate, peakrate; /* bytes/s; peakrate 0: none */
	uint64_t burst, mtu;	 /* bytes; mtu (minburst) is sent with a peak rate only */
	uint64_t limit;		 /* bytes */
	uint16_t overhead, mpu;
	uint8_t linklayer;
};

/* One resolved configuration (what tbf_change validates before applying). */
struct tbf_cfg {
	struct mqtx_ratecfg rate, peak; /* peak.rate 0: none */
	uint64_t limit;			/* bytes */
	int64_t buffer, mtu_ns;		/* burst at rate, mtu at peak, in ns */
	uint64_t max_size;		/* the largest packet that can ever conform */
	uint8_t linklayer;
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

/* Whether @pkt may leave at @now; *@toks and *@ptoks get what both buckets would hold after
 * it (negative: short by that many ns). */
static bool tbf_conforms(const struct tbf_priv *p, const struct mqtx_pkt *pkt, int64_t now,
			 int64_t *toks, int64_t *ptoks)
{
	int64_t t = now - p->t_c, pt = 0;

	if (t > p->cfg.buffer)
		t = p->cfg.buffer;
	if (p->cfg.peak.rate) {
		pt = t + p->ptokens;
		if (pt > p->cfg.mtu_ns)
			pt = p->cfg.mtu_ns;
		pt -= mqtx__ratecfg_l2t_ns(&p->cfg.peak, pkt->len);
	}
	t += p->tokens;
	if (t > p->cfg.buffer)
		t = p->cfg.buffer;
	t -= mqtx__ratecfg_l2t_ns(&p->cfg.rate, pkt->len);
	*toks = t;
	*ptoks = pt;
	return (t | pt) >= 0;
}

/*
 * Lock held. The head if it may leave now, with the time and what both buckets would hold
 * after it; else NULL, and when a packet waits without tokens, the watchdog set for when
 * they suffice and an overlimit counted. Linux's tbf peeks by dequeuing
 * (qdisc_peek_dequeued), so a peek that finds the head out of tokens does both too.
 */
static struct mqtx_pkt *tbf_head(struct mqtx_qdisc *q, int64_t *now, int64_t *toks, int64_t *ptoks)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt = p->list.head;

	if (!pkt)
		return NULL;
	*now = (int64_t)mqtx_qdisc_now(q);
	if (tbf_conforms(p, pkt, *now, toks, ptoks))
		return pkt;
	mqtx_timer_arm(&p->watchdog, (uint64_t)(*now + (-*toks > -*ptoks ? -*toks : -*ptoks)));
	q->overlimits++;
	return NULL;
}

static struct mqtx_pkt *tbf_dequeue(struct mqtx_qdisc *q)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	int64_t now, toks, ptoks;
	struct mqtx_pkt *pkt = tbf_head(q, &now, &toks, &ptoks);

	if (!pkt)
		return NULL;
	mqtx_qdisc_dequeue_head(q, &p->list);
	p->t_c = now;
	p->tokens = toks;
	p->ptokens = ptoks;
	return pkt;
}

static struct mqtx_pkt *tbf_peek(struct mqtx_qdisc *q)
{
	int64_t now, toks, ptoks;

	return tbf_head(q, &now, &toks, &ptoks);
}

/* ---- control path ---- */

/* tc's matches(): @word is a non-empty prefix of @full (tbf takes some words abbreviated). */
static bool tc_matches(const char *word, const char *full)
{
	return *word && !strncmp(word, full, strlen(word));
}

enum tbf_word {
	W_NONE,
	W_LIMIT,
	W_LATENCY,
	W_BURST,
	W_MTU,
	W_MPU,
	W_RATE,
	W_PEAK,
	W_OVERHEAD,
	W_LL
};

/* The option @a names, tested in tc's order, abbreviated where tc allows it. */
static enum tbf_word tbf_word(const char *a)
{
	if (tc_matches(a, "limit"))
		return W_LIMIT;
	if (tc_matches(a, "latency"))
		return W_LATENCY;
	if (tc_matches(a, "burst") || !strcmp(a, "buffer") || !strcmp(a, "maxburst"))
		return W_BURST;
	if (!strcmp(a, "mtu") || !strcmp(a, "minburst"))
		return W_MTU;
	if (!strcmp(a, "mpu"))
		return W_MPU;
	if (!strcmp(a, "rate"))
		return W_RATE;
	if (tc_matches(a, "peakrate"))
		return W_PEAK;
	if (tc_matches(a, "overhead"))
		return W_OVERHEAD;
	if (tc_matches(a, "linklayer"))
		return W_LL;
	return W_NONE;
}

static int tbf_illegal(const char *name, const char *val, struct mqtx_extack *ack)
{
	return mqtx_extack_set(ack, "tbf: illegal value for \"%s\": \"%s\"", name, val);
}

static int tbf_dup(const char *what, struct mqtx_extack *ack)
{
	return mqtx_extack_set(ack, "tbf: duplicate \"%s\" specification", what);
}

/* get_size_and_cell(): SIZE[/CELL], CELL a power of two. Linux has kept no cell size since
 * its rate tables gave way to psched_ratecfg, so the cell is checked and not used. */
static int tbf_size_cell(const char *name, const char *val, uint64_t *size, struct mqtx_extack *ack)
{
	char buf[64], *slash;
	uint32_t cell;

	if (strlen(val) >= sizeof(buf))
		return tbf_illegal(name, val, ack);
	strcpy(buf, val);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (mqtx_tc_parse_size(buf, size) ||
	    (slash && (mqtx_tc_parse_u32(slash + 1, &cell) || !cell || (cell & (cell - 1)))))
		return tbf_illegal(name, val, ack);
	return 0;
}

/* "ethernet", "atm" or "adsl", abbreviated as tc allows (get_linklayer). */
static int tbf_linklayer(const char *v, uint8_t *ll, struct mqtx_extack *ack)
{
	if (tc_matches(v, "ethernet"))
		*ll = TBF_LL_ETHERNET;
	else if (tc_matches(v, "atm") || tc_matches(v, "adsl"))
		*ll = TBF_LL_ATM;
	else
		return tbf_illegal("linklayer", v, ack);
	return 0;
}

static int tbf_u16(const char *name, const char *v, uint16_t *out, struct mqtx_extack *ack)
{
	uint32_t u;

	if (mqtx_tc_parse_u32_dec(v, &u) || u > UINT16_MAX)
		return tbf_illegal(name, v, ack);
	*out = (uint16_t)u;
	return 0;
}

/* One option @a with value @v. Like tc, a second one is refused once the first is not 0. */
static int tbf_parse_one(struct tbf_opt *o, uint64_t *latency, enum tbf_word w, const char *a,
			 const char *v, struct mqtx_extack *ack)
{
	uint64_t mpu;

	switch (w) {
	case W_LIMIT:
		if (o->limit || *latency)
			return o->limit ? tbf_dup("limit", ack)
					: mqtx_extack_set(ack, "tbf: specifying both \"latency\" "
							       "and \"limit\" is not allowed");
		return mqtx_tc_parse_size(v, &o->limit) ? tbf_illegal("limit", v, ack) : 0;
	case W_LATENCY:
		if (o->limit || *latency)
			return *latency ? tbf_dup("latency", ack)
					: mqtx_extack_set(ack, "tbf: specifying both \"limit\" and "
							       "\"latency\" is not allowed");
		return mqtx_tc_parse_time(v, latency) ? tbf_illegal("latency", v, ack) : 0;
	case W_BURST:
		return o->burst ? tbf_dup("buffer/burst/maxburst", ack)
				: tbf_size_cell(a, v, &o->burst, ack);
	case W_MTU:
		return o->mtu ? tbf_dup("mtu/minburst", ack) : tbf_size_cell(a, v, &o->mtu, ack);
	case W_MPU:
		if (o->mpu)
			return tbf_dup("mpu", ack);
		if (mqtx_tc_parse_size(v, &mpu))
			return tbf_illegal("mpu", v, ack);
		o->mpu = (uint16_t)mpu; /* tc_ratespec.mpu has 16 bits: tc cuts it there */
		return 0;
	case W_RATE:
		if (o->rate)
			return tbf_dup("rate", ack);
		return mqtx_tc_parse_rate(v, &o->rate) ? tbf_illegal("rate", v, ack) : 0;
	case W_PEAK:
		if (o->peakrate)
			return tbf_dup("peakrate", ack);
		return mqtx_tc_parse_rate(v, &o->peakrate) ? tbf_illegal("peakrate", v, ack) : 0;
	case W_OVERHEAD:
		return o->overhead ? tbf_dup("overhead", ack)
				   : tbf_u16("overhead", v, &o->overhead, ack);
	case W_LL:
		return tbf_linklayer(v, &o->linklayer, ack);
	default:
		return mqtx_extack_set(ack, "tbf: unknown parameter \"%s\"", a);
	}
}

/* Appends one of tc's complaints about what is missing to @ack. */
static void tbf_missing(struct mqtx_extack *ack, const char *msg)
{
	size_t n = strlen(ack->msg);

	snprintf(ack->msg + n, sizeof(ack->msg) - n, "%s%s", n ? "\n" : "", msg);
}

/* What tc checks and works out once every option is read: it names everything missing, then
 * its usage follows (tbf_parse_opt()). */
static int tbf_complete(struct tbf_opt *o, uint64_t latency, struct mqtx_extack *ack)
{
	ack->msg[0] = '\0';
	if (!o->rate)
		tbf_missing(ack, "tbf: the \"rate\" parameter is mandatory.");
	if (!o->burst)
		tbf_missing(ack, "tbf: the \"burst\" parameter is mandatory.");
	if (o->peakrate && !o->mtu)
		tbf_missing(ack, "tbf: when \"peakrate\" is specified, \"mtu\" must also be "
				 "specified.");
	if (!o->limit && !latency)
		tbf_missing(ack, "tbf: either \"limit\" or \"latency\" is required.");
	if (ack->msg[0])
		return MQTX_TC_EUSAGE;
	if (!o->peakrate)
		o->mtu = 0;
	if (!o->limit) {
		/* The bytes that drain within the latency, plus the bucket (the smaller of the
		 * two with a peak rate), in tc's u32. */
		uint64_t lim = mqtx__t2l(o->rate, (int64_t)latency) + o->burst;

		if (o->peakrate) {
			uint64_t lim2 = mqtx__t2l(o->peakrate, (int64_t)latency) + o->mtu;

			if (lim2 < lim)
				lim = lim2;
		}
		o->limit = lim < UINT32_MAX ? lim : UINT32_MAX;
	}
	return 0;
}

static int tbf_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct tbf_opt *o = opt;
	uint64_t latency = 0;

	o->linklayer = TBF_LL_ETHERNET;
	for (int i = 0; i < argc; i++) {
		enum tbf_word w = tbf_word(argv[i]);
		const char *v;

		if (w == W_NONE && !strcmp(argv[i], "help"))
			return mqtx_tc_unknown("tbf", argv[i], ack);
		if (w == W_NONE) {
			mqtx_extack_set(ack, "tbf: unknown parameter \"%s\"", argv[i]);
			return MQTX_TC_EUSAGE;
		}
		v = mqtx_tc_next_arg(argc, argv, &i, ack);
		if (!v)
			return MQTX_TC_EFATAL;
		if (tbf_parse_one(o, &latency, w, argv[i - 1], v, ack))
			return -EINVAL;
	}
	return tbf_complete(o, latency, ack);
}

/* Linux's tbf_change on what tc sent: both buckets in time, with the link-layer charges. */
static int tbf_resolve(const struct tbf_opt *o, struct tbf_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->rate.rate = o->rate;
	c->rate.overhead = o->overhead;
	c->rate.mpu = o->mpu;
	c->rate.atm = o->linklayer == TBF_LL_ATM;
	c->linklayer = o->linklayer;
	c->limit = o->limit;
	c->buffer = mqtx__ratecfg_l2t_ns(&c->rate, o->burst);
	c->max_size = o->burst;
	if (o->peakrate) {
		c->peak = c->rate;
		c->peak.rate = o->peakrate;
		if (c->peak.rate <= c->rate.rate) {
			char pr[MQTX_TC_BUF], r[MQTX_TC_BUF];

			/* Linux refuses without a message and warns in its log. */
			mqtx_log(MQTX_LOG_ERR,
				 "tbf: \"peakrate\" %s is not higher than \"rate\" %s",
				 mqtx_tc_print_rate(pr, sizeof(pr), c->peak.rate),
				 mqtx_tc_print_rate(r, sizeof(r), c->rate.rate));
			return -EINVAL;
		}
		c->mtu_ns = mqtx__ratecfg_l2t_ns(&c->peak, o->mtu);
		if (o->mtu < c->max_size)
			c->max_size = o->mtu;
	}
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
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	struct tbf_cfg c;
	int err;

	mqtx_pkt_list_init(&p->list);
	mqtx__qdisc_watchdog_init(&p->watchdog, q);
	p->watchdog_ready = true;
	p->t_c = (int64_t)mqtx_qdisc_now(q);
	if (!opt) /* tbf_init: there is no default rate */
		return mqtx_extack_set(ack, "tbf: needs \"rate\", \"burst\" and \"limit\" or "
					    "\"latency\"");
	err = tbf_resolve(opt, &c);
	if (err)
		return err;
	tbf_apply(q, &c);
	return 0;
}

/* The options replace the whole configuration. The inner fifo keeps what it holds above a
 * lowered limit (tbf_change: fifo_set_limit drops nothing). */
static int tbf_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	struct tbf_cfg c;
	int err;

	(void)to_free;
	(void)ack;
	if (!opt)
		return 0;
	err = tbf_resolve(opt, &c);
	if (err)
		return err;
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

/* The latency the limit implies, as tc works it out (in us; negative: tc shows the limit). */
static double tbf_latency(const struct tbf_cfg *c)
{
	double lat = 1e6 * (double)c->limit / (double)c->rate.rate - tc_ticks_us(c->buffer);

	if (c->peak.rate) {
		double lat2 =
			1e6 * (double)c->limit / (double)c->peak.rate - tc_ticks_us(c->mtu_ns);

		if (lat2 > lat)
			lat = lat2;
	}
	return lat;
}

/*
 * A bucket: its size at @rate, plainly as @key, or with -d as @dkey "SIZE/CELL" and the mpu.
 * Linux keeps no cell size (psched_ratecfg_getrate() dumps cell_log 0), so tc shows /1.
 */
static void tbf_dump_bucket(struct mqtx_dump *d, const char *key, const char *dkey,
			    const struct mqtx_ratecfg *r, int64_t ns)
{
	char text[16], size[MQTX_TC_BUF], cell[MQTX_TC_BUF + 2];

	if (!mqtx_dump_details(d)) {
		snprintf(text, sizeof(text), "%s %%s", key);
		mqtx_dump_size(d, key, text, tc_bucket_size(r->rate, ns));
		return;
	}
	snprintf(text, sizeof(text), "%s %%s", dkey);
	snprintf(cell, sizeof(cell), "%s/1",
		 mqtx_tc_print_size(size, sizeof(size), tc_bucket_size(r->rate, ns)));
	mqtx_dump_str(d, dkey, text, cell);
	mqtx_dump_size(d, "mpu", "mpu %s", r->mpu);
}

/* tbf_print_opt's order: rate, burst, [peakrate, minburst], lat or limit, overhead when not 0,
 * linklayer when not ethernet or with -d. */
static void tbf_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct tbf_priv *p = mqtx_qdisc_priv(q);
	const struct tbf_cfg *c = &p->cfg;
	double lat = tbf_latency(c);

	mqtx_dump_rate(d, "rate", "rate %s", c->rate.rate);
	tbf_dump_bucket(d, "burst", "burst", &c->rate, c->buffer);
	if (c->peak.rate) {
		/* Current tc leaves peakrate out of its JSON (printed PRINT_FP only); mqtx keeps
		 * it, as a number like rate. */
		mqtx_dump_rate(d, "peakrate", "peakrate %s", c->peak.rate);
		/* tc shows the peak bucket when the kernel reports one (qopt->mtu in ticks). */
		if ((c->mtu_ns >> 6) || c->peak.mpu)
			tbf_dump_bucket(d, "minburst", "mtu", &c->peak, c->mtu_ns);
	}
	if (lat >= 0) {
		/* tc's JSON has the whole latency; its text goes through sprint_time()'s u32 of
		 * microseconds, which wraps past 71 minutes. */
		mqtx_dump_time(d, "lat", NULL, (uint64_t)lat * 1000);
		mqtx_dump_time(d, NULL, "lat %s", (uint64_t)(uint32_t)(uint64_t)lat * 1000);
	} else {
		mqtx_dump_size(d, "limit", "limit %s", c->limit);
	}
	if (c->rate.overhead)
		mqtx_dump_uint(d, "overhead", "overhead %" PRIu64, c->rate.overhead);
	if (c->linklayer > TBF_LL_ETHERNET || mqtx_dump_details(d))
		mqtx_dump_str(d, "linklayer", "linklayer %s",
			      c->linklayer == TBF_LL_ATM ? "atm" : "ethernet");
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

const struct mqtx_qdisc_ops mqtx__tbf_qdisc_ops = {
	.id = "tbf",
	.usage = "Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ]\n"
		 "\t[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]",
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

// SPDX-License-Identifier: MIT
/* wme: the queue of a Wi-Fi access category: a limit per AC (short for voice and video, long for
 * background), a sojourn deadline past which late frames are dropped, FIFO or mac80211's
 * FQ-CoDel, and in-order extraction for aggregation sessions. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include "qdisc/wme_fq.h"
#include <mqtx/tc.h>

#define NUM_AC 4

/*
 * 802.1D user priority to access category (VO 0, VI 1, BE 2, BK 3), the ieee802_1d_to_ac table
 * of net/mac80211/wme.c; <mqtx/wme.h> has the same one (a qdisc does not include it), and the
 * WME tests hold the two to each other. WME selection leaves the UP in pkt->priority.
 */
static const uint8_t up_to_ac[8] = { 2, 3, 3, 2, 1, 1, 0, 0 };
static const char *const ac_names[NUM_AC] = { "vo", "vi", "be", "bk" };

/*
 * Defaults. The article that introduced multiqueue transmit (LWN, "Multiqueue networking",
 * 2008) says why the queues differ: voice and video queues short, their late packets dropped;
 * background long, to use every lull. The deadlines keep a Wi-Fi hop within a small part of
 * the 150 ms one-way budget of ITU-T G.114 for voice. BE follows txqueuelen, BK 4 times it.
 */
#define VO_LIMIT    64u
#define VI_LIMIT    128u
#define VO_DEADLINE 20000000ull
#define VI_DEADLINE 50000000ull
#define LIMIT_MAX   (1u << 20)

struct wme_qopt {
	uint8_t has_limit, has_deadline; /* AC bits */
	bool has_mode, fq, has_target, has_interval, has_quantum, has_flows, has_ecn, ecn;
	bool has_table, radio; /* fq_codel's table: the radio's (default) or the queue's own */
	uint32_t limit[NUM_AC], quantum, flows;
	uint64_t deadline[NUM_AC], target, interval;
};

struct wme_priv {
	uint32_t limit[NUM_AC];
	uint64_t deadline[NUM_AC];
	uint32_t n[NUM_AC]; /* queued per AC (the peeked packet excluded) */
	uint64_t overlimit[NUM_AC], expired[NUM_AC];
	uint64_t seq;
	struct mqtx_pkt_list list; /* FIFO mode */
	struct wme_fq *fq;	   /* fq_codel mode */
	struct mqtx_pkt *peeked;   /* dequeued by peek, still counted in qlen/backlog */
	struct mqtx_pkt *dropped;  /* late or AQM drops of the current dequeue */
	struct mqtx_qdisc *q;
};

static inline unsigned ac_of(const struct mqtx_pkt *pkt)
{
	return up_to_ac[pkt->priority & 7];
}

/* ---- data path ---- */

/* Take @pkt off the books (it left the FIFO or a flow). */
static void unaccount(struct mqtx_qdisc *q, struct mqtx_pkt *pkt)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);

	p->n[ac_of(pkt)]--;
	q->qlen--;
	q->backlog -= pkt->len;
}

static int wme_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	unsigned ac = ac_of(pkt);
	struct mqtx_pkt *victim;
	uint64_t now = mqtx_qdisc_now(q);
	bool own;

	if (!p->fq) {
		if (p->n[ac] >= p->limit[ac]) {
			p->overlimit[ac]++;
			q->overlimits++;
			return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
		}
		pkt->tstamp = now;
		wme_set_seq(pkt, p->seq++);
		p->n[ac]++;
		return mqtx_qdisc_enqueue_tail(q, &p->list, pkt);
	}
	pkt->tstamp = now;
	wme_set_seq(pkt, p->seq++);
	mqtx_codel_stamp(pkt, mqtx_codel_ns2time(now));
	mqtx__wme_fq_add(p->fq, pkt);
	p->n[ac]++;
	q->qlen++;
	q->backlog += pkt->len;
	if (p->n[ac] <= p->limit[ac] && !mqtx__wme_fq_over(p->fq))
		return MQTX_XMIT_SUCCESS;
	/* Over the AC's limit, or the radio's (fq_tin_enqueue()): the head of the fattest flow
	 * goes, as fq_codel and mac80211's fq drop. */
	victim = mqtx__wme_fq_drop_fattest(p->fq, pkt, &own);
	p->n[ac_of(victim)]--;
	q->qlen--;
	q->backlog -= victim->len;
	p->overlimit[ac]++;
	q->overlimits++;
	mqtx_qdisc_drop(q, victim, MQTX_DROP_QDISC, to_free);
	if (victim == pkt)
		return MQTX_XMIT_DROP;
	return own ? MQTX_XMIT_CN : MQTX_XMIT_SUCCESS;
}

/* A frame that waited longer than its AC's deadline is worth nothing to its receiver. */
static bool late(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, uint64_t now)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	unsigned ac = ac_of(pkt);

	if (!p->deadline[ac] || now - pkt->tstamp <= p->deadline[ac])
		return false;
	p->expired[ac]++;
	mqtx_qdisc_drop(q, pkt, MQTX_DROP_EXPIRED, &p->dropped);
	return true;
}

static bool fq_taken(struct mqtx_pkt *pkt, void *ctx)
{
	struct mqtx_qdisc *q = ctx;

	unaccount(q, pkt);
	return late(q, pkt, mqtx_qdisc_now(q));
}

static void fq_aqm_drop(struct mqtx_pkt *pkt, void *ctx)
{
	struct mqtx_qdisc *q = ctx;
	struct wme_priv *p = mqtx_qdisc_priv(q);

	mqtx_qdisc_drop(q, pkt, MQTX_DROP_AQM, &p->dropped);
}

static struct mqtx_pkt *wme_dequeue_inner(struct mqtx_qdisc *q)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	uint64_t now = mqtx_qdisc_now(q);
	struct mqtx_pkt *pkt;

	if (p->fq) {
		struct wme_fq_hooks h = { fq_taken, fq_aqm_drop, q };

		pkt = mqtx__wme_fq_dequeue(p->fq, &h, mqtx_codel_ns2time(now));
	} else {
		while ((pkt = mqtx_pkt_list_pop(&p->list))) {
			unaccount(q, pkt);
			if (!late(q, pkt, now))
				break;
		}
	}
	/* Freed on the spot under the lock, as CoDel's victims are. */
	mqtx_qdisc_free_dropped(q->dev, p->dropped);
	p->dropped = NULL;
	/* The deadline bounds the time to the start of transmission, not to the driver: a
	 * driver that keeps frames in a ring checks it again before the air. */
	if (pkt)
		pkt->expires = p->deadline[ac_of(pkt)] ? pkt->tstamp + p->deadline[ac_of(pkt)] : 0;
	return pkt;
}

static struct mqtx_pkt *wme_dequeue(struct mqtx_qdisc *q)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);

	return mqtx__codel_peeked_dequeue(q, &p->peeked, wme_dequeue_inner);
}

static struct mqtx_pkt *wme_peek(struct mqtx_qdisc *q)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);

	return mqtx__codel_peeked_peek(q, &p->peeked, wme_dequeue_inner);
}

/* Every queued packet @match accepts, in arrival order; for aggregation sessions. */
static unsigned wme_extract(struct mqtx_qdisc *q, mqtx_pkt_match_fn match, void *arg,
			    struct mqtx_pkt_list *out)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt_list took;
	struct mqtx_pkt *pkt;
	unsigned n;

	mqtx_pkt_list_init(&took);
	/* The peeked packet left its queue first, so it is the oldest of what is left. */
	if (p->peeked && match(p->peeked, arg)) {
		mqtx_pkt_list_add_tail(&took, p->peeked);
		q->qlen--;
		q->backlog -= p->peeked->len;
		p->peeked = NULL;
	}
	if (p->fq) {
		struct mqtx_pkt_list fl;

		mqtx_pkt_list_init(&fl);
		mqtx__wme_fq_extract(p->fq, match, arg, &fl);
		while ((pkt = mqtx_pkt_list_pop(&fl))) {
			mqtx_pkt_list_add_tail(&took, pkt);
			p->n[ac_of(pkt)]--;
			q->qlen--;
			q->backlog -= pkt->len;
		}
	} else {
		struct mqtx_pkt_list keep;

		mqtx_pkt_list_init(&keep);
		while ((pkt = mqtx_pkt_list_pop(&p->list))) {
			if (match(pkt, arg)) {
				mqtx_pkt_list_add_tail(&took, pkt);
				unaccount(q, pkt);
			} else {
				mqtx_pkt_list_add_tail(&keep, pkt);
			}
		}
		p->list = keep;
	}
	n = took.len;
	while ((pkt = mqtx_pkt_list_pop(&took)))
		mqtx_pkt_list_add_tail(out, pkt);
	return n;
}

static bool match_all(const struct mqtx_pkt *pkt, void *arg)
{
	(void)pkt;
	(void)arg;
	return true;
}

static void wme_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct mqtx_pkt_list all;
	struct mqtx_pkt *pkt;

	mqtx_pkt_list_init(&all);
	wme_extract(q, match_all, NULL, &all);
	while ((pkt = mqtx_pkt_list_pop(&all)))
		mqtx_qdisc_drop(q, pkt, MQTX_DROP_RESET, to_free);
}

/* ---- control path ---- */

/* "vo vi limit 10 deadline 5ms bk limit 900": the ACs named last take the values that follow
 * them; values before any AC name apply to all four. */
struct ac_ctx {
	uint8_t acs;
	bool used;
};

static uint8_t ctx_take(struct ac_ctx *c)
{
	c->used = true;
	return c->acs ? c->acs : 0xf;
}

static int parse_one(int argc, char **argv, int *i, struct wme_qopt *o, struct ac_ctx *c,
		     struct mqtx_extack *ack)
{
	const char *a = argv[*i];
	uint8_t acs;
	uint64_t v;

	for (unsigned ac = 0; ac < NUM_AC; ac++) {
		if (!strcmp(a, ac_names[ac])) {
			if (c->used)
				*c = (struct ac_ctx){ 0 };
			c->acs |= 1u << ac;
			return 0;
		}
	}
	if (!strcmp(a, "limit")) {
		uint32_t lim;
		int err = mqtx_tc_arg_u32(argc, argv, i, &lim, ack);

		if (err)
			return err;
		if (!lim || lim > LIMIT_MAX)
			return mqtx_extack_set(ack, "\"limit\" value \"%s\" out of range 1..%u",
					       argv[*i], LIMIT_MAX);
		acs = ctx_take(c);
		for (unsigned ac = 0; ac < NUM_AC; ac++)
			if (acs & (1u << ac))
				o->limit[ac] = lim;
		o->has_limit |= acs;
		return 0;
	}
	if (!strcmp(a, "deadline")) {
		int err = mqtx_tc_arg_time(argc, argv, i, &v, ack);

		if (err)
			return err;
		acs = ctx_take(c);
		for (unsigned ac = 0; ac < NUM_AC; ac++)
			if (acs & (1u << ac))
				o->deadline[ac] = v;
		o->has_deadline |= acs;
		return 0;
	}
	if (!strcmp(a, "fifo") || !strcmp(a, "fq_codel")) {
		o->has_mode = true;
		o->fq = a[1] == 'q';
		return 0;
	}
	if (!strcmp(a, "radio") || !strcmp(a, "queue")) {
		o->has_table = true;
		o->radio = a[0] == 'r';
		return 0;
	}
	if (!strcmp(a, "target") || !strcmp(a, "interval")) {
		bool t = a[0] == 't';

		*(t ? &o->has_target : &o->has_interval) = true;
		return mqtx__codel_arg_time(argc, argv, i, t ? &o->target : &o->interval, ack);
	}
	if (!strcmp(a, "quantum")) {
		int err = mqtx_tc_arg_u32(argc, argv, i, &o->quantum, ack);

		o->has_quantum = true;
		if (err)
			return err;
		return o->quantum ? 0 : mqtx_extack_set(ack, "\"quantum\" must be at least 1");
	}
	if (!strcmp(a, "flows")) {
		int err = mqtx_tc_arg_u32(argc, argv, i, &o->flows, ack);

		o->has_flows = true;
		if (err)
			return err;
		if (!o->flows || o->flows > WME_FQ_FLOWS_MAX)
			return mqtx_extack_set(ack, "\"flows\" value \"%s\" out of range 1..%u",
					       argv[*i], WME_FQ_FLOWS_MAX);
		return 0;
	}
	if (!strcmp(a, "ecn") || !strcmp(a, "noecn")) {
		o->has_ecn = true;
		o->ecn = a[0] == 'e';
		return 0;
	}
	return mqtx_tc_unknown("wme", a, ack);
}

static int wme_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct wme_qopt *o = opt;
	struct ac_ctx c = { 0 };
	int err;

	for (int i = 0; i < argc; i++) {
		err = parse_one(argc, argv, &i, o, &c, ack);
		if (err)
			return err;
	}
	if (c.acs && !c.used)
		return mqtx_extack_set(ack, "an access category must be followed by \"limit\" or "
					    "\"deadline\"");
	/* "flows" sizes a table of the queue's own: the radio's has mac80211's 4096. */
	if (o->has_flows && o->has_table && o->radio)
		return mqtx_extack_set(ack,
				       "\"flows\": the radio's table has %u flows; use "
				       "\"queue\" for a table of the queue's own",
				       WME_RADIO_FLOWS);
	if (o->has_flows && !o->has_table) {
		o->has_table = true;
		o->radio = false;
	}
	return 0;
}

static void codel_params(struct mqtx_qdisc *q, const struct wme_qopt *o,
			 const struct mqtx_codel_params *old, struct mqtx_codel_params *cp)
{
	if (old) {
		*cp = *old;
	} else {
		mqtx__codel_params_init(cp, mqtx__psched_mtu(q));
		cp->target = mqtx_codel_ns2time(WME_FQ_TARGET_NS);
		cp->interval = mqtx_codel_ns2time(WME_FQ_INTERVAL_NS);
		cp->ecn = true;
	}
	if (o && o->has_target)
		cp->target = mqtx_codel_ns2time(o->target);
	if (o && o->has_interval)
		cp->interval = mqtx_codel_ns2time(o->interval);
	if (o && o->has_ecn)
		cp->ecn = o->ecn;
}

/* Lock held or not yet in use. Take the limits and deadlines @o gives (NULL: none). Only a
 * qdisc without deadlines may be bypassed: a bypassed frame would reach the driver without its
 * expiry. */
static void set_limits(struct mqtx_qdisc *q, const struct wme_qopt *o)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	bool any = false;

	for (unsigned ac = 0; o && ac < NUM_AC; ac++) {
		if (o->has_limit & (1u << ac))
			p->limit[ac] = o->limit[ac];
		if (o->has_deadline & (1u << ac))
			p->deadline[ac] = o->deadline[ac];
	}
	for (unsigned ac = 0; ac < NUM_AC; ac++)
		any |= p->deadline[ac] != 0;
	if (any)
		q->flags &= ~MQTX_QF_CAN_BYPASS;
	else
		q->flags |= MQTX_QF_CAN_BYPASS;
}

/* A new table for @q: the radio's (shared with the device's other queues) or its own. */
static int new_fq(struct mqtx_qdisc *q, bool radio, uint32_t flows, uint32_t quantum,
		  const struct mqtx_codel_params *cp, struct wme_fq **out, struct mqtx_extack *ack)
{
	int err = radio ? mqtx__wme_fq_new_radio(q->dev, quantum, cp, out)
			: mqtx__wme_fq_new(flows, quantum, cp, out);

	if (err)
		mqtx_extack_set(ack, "wme: no memory for the flows");
	return err ? -ENOMEM : 0;
}

static int wme_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	const struct wme_qopt *o = opt;
	uint32_t txqlen = mqtx_dev_tx_queue_len(q->dev);
	struct mqtx_codel_params cp;

	p->q = q;
	mqtx_pkt_list_init(&p->list);
	p->limit[0] = VO_LIMIT;
	p->limit[1] = VI_LIMIT;
	p->limit[2] = txqlen;
	p->limit[3] = txqlen > LIMIT_MAX / 4 ? LIMIT_MAX : 4 * txqlen;
	p->deadline[0] = VO_DEADLINE;
	p->deadline[1] = VI_DEADLINE;
	set_limits(q, o);
	if (!o || !o->fq)
		return 0;
	codel_params(q, o, NULL, &cp);
	return new_fq(q, !o->has_table || o->radio, o->has_flows ? o->flows : WME_FQ_FLOWS,
		      o->has_quantum ? o->quantum : WME_FQ_QUANTUM, &cp, &p->fq, ack);
}

/* Lock held. Put every packet of @all back, into the current mode's queue, in order. */
static void readd(struct mqtx_qdisc *q, struct mqtx_pkt_list *all)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt;

	while ((pkt = mqtx_pkt_list_pop(all))) {
		if (p->fq)
			mqtx__wme_fq_add(p->fq, pkt);
		else
			mqtx_pkt_list_add_tail(&p->list, pkt);
		p->n[ac_of(pkt)]++;
		q->qlen++;
		q->backlog += pkt->len;
	}
}

/* Lock held. Drop the oldest packets of each AC of @all beyond its limit. */
static void trim(struct mqtx_qdisc *q, struct mqtx_pkt_list *all, struct mqtx_pkt **to_free)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	uint32_t over[NUM_AC] = { 0 };
	struct mqtx_pkt_list keep;
	struct mqtx_pkt *pkt;

	for (pkt = all->head; pkt; pkt = pkt->next)
		over[ac_of(pkt)]++;
	for (unsigned ac = 0; ac < NUM_AC; ac++)
		over[ac] = over[ac] > p->limit[ac] ? over[ac] - p->limit[ac] : 0;
	mqtx_pkt_list_init(&keep);
	while ((pkt = mqtx_pkt_list_pop(all))) {
		if (over[ac_of(pkt)]) {
			over[ac_of(pkt)]--;
			mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
		} else {
			mqtx_pkt_list_add_tail(&keep, pkt);
		}
	}
	*all = keep;
}

static int wme_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	const struct wme_qopt *o = opt;
	bool fq = o->has_mode ? o->fq : p->fq != NULL;
	struct wme_fq *nfq = NULL, *old = NULL;
	struct mqtx_codel_params cp;
	struct mqtx_pkt_list all;

	bool radio = o->has_table ? o->radio : p->fq ? mqtx__wme_fq_radio(p->fq) : true;
	int err;

	if (!fq &&
	    (o->has_flows || o->has_quantum || o->has_target || o->has_interval || o->has_table))
		return mqtx_extack_set(ack, "flows, quantum, target, interval, radio and queue "
					    "need fq_codel");
	if (radio && o->has_flows)
		return mqtx_extack_set(ack,
				       "\"flows\": the radio's table has %u flows; use "
				       "\"queue\" for a table of the queue's own",
				       WME_RADIO_FLOWS);
	codel_params(q, o, p->fq ? mqtx__wme_fq_params(p->fq) : NULL, &cp);
	/* New flows are allocated before the lock: a switch to fq_codel, to the other table or
	 * to another flow count. */
	if (fq && (!p->fq || radio != mqtx__wme_fq_radio(p->fq) ||
		   (o->has_flows && o->flows != mqtx__wme_fq_flows(p->fq)))) {
		uint32_t quantum = o->has_quantum ? o->quantum
				   : p->fq	  ? mqtx__wme_fq_quantum(p->fq)
						  : WME_FQ_QUANTUM;
		uint32_t flows = o->has_flows			       ? o->flows
				 : p->fq && !mqtx__wme_fq_radio(p->fq) ? mqtx__wme_fq_flows(p->fq)
								       : WME_FQ_FLOWS;

		err = new_fq(q, radio, flows, quantum, &cp, &nfq, ack);
		if (err)
			return err;
	}
	mqtx_qdisc_lock(q);
	set_limits(q, o);
	/* Everything comes out in arrival order and goes back into the new arrangement. */
	mqtx_pkt_list_init(&all);
	wme_extract(q, match_all, NULL, &all);
	if (nfq || !fq) {
		old = p->fq;
		p->fq = nfq;
	} else {
		mqtx__wme_fq_set(p->fq, o->has_quantum ? o->quantum : mqtx__wme_fq_quantum(p->fq),
				 &cp);
	}
	trim(q, &all, to_free);
	readd(q, &all);
	mqtx_qdisc_unlock(q);
	mqtx__wme_fq_free(old);
	return 0;
}

static void wme_destroy(struct mqtx_qdisc *q)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);

	mqtx__wme_fq_free(p->fq);
	p->fq = NULL;
}

static void wme_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct wme_priv *p = mqtx_qdisc_priv(q);
	char key[16];

	for (unsigned ac = 0; ac < NUM_AC; ac++) {
		mqtx_dump_flag(d, NULL, ac_names[ac]);
		snprintf(key, sizeof(key), "%s_limit", ac_names[ac]);
		mqtx_dump_uint(d, key, "limit %" PRIu64 "p", p->limit[ac]);
		if (p->deadline[ac]) {
			snprintf(key, sizeof(key), "%s_deadline", ac_names[ac]);
			mqtx_dump_time(d, key, "deadline %s", p->deadline[ac]);
		}
	}
	if (!p->fq) {
		mqtx_dump_str(d, "mode", "%s", "fifo");
		return;
	}
	mqtx_dump_str(d, "mode", "%s", "fq_codel");
	mqtx_dump_str(d, "table", "%s", mqtx__wme_fq_radio(p->fq) ? "radio" : "queue");
	mqtx_dump_uint(d, "flows", "flows %" PRIu64, mqtx__wme_fq_flows(p->fq));
	mqtx_dump_uint(d, "quantum", "quantum %" PRIu64, mqtx__wme_fq_quantum(p->fq));
	mqtx__codel_dump_times(mqtx__wme_fq_params(p->fq), d);
	if (mqtx__wme_fq_params(p->fq)->ecn)
		mqtx_dump_flag(d, "ecn", "ecn");
}

const struct mqtx_qdisc_ops mqtx__wme_qdisc_ops = {
	.id = "wme",
	.usage =
		"Usage: ... wme [ [ vo | vi | be | bk ]... { limit PACKETS | deadline TIME } ]...\n"
		"        [ fifo | fq_codel [ radio | queue ] ] [ target TIME ] [ interval TIME ]\n"
		"        [ quantum BYTES ] [ flows NUMBER ] [ ecn | noecn ]",
	.priv_size = sizeof(struct wme_priv),
	.opt_size = sizeof(struct wme_qopt),
	.static_flags = MQTX_QF_CAN_BYPASS,
	.enqueue = wme_enqueue,
	.dequeue = wme_dequeue,
	.peek = wme_peek,
	.parse = wme_parse,
	.init = wme_init,
	.change = wme_change,
	.reset = wme_reset,
	.destroy = wme_destroy,
	.dump = wme_dump,
	.extract = wme_extract,
};

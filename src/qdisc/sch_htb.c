// SPDX-License-Identifier: MIT
/* htb: the hierarchical token bucket (Linux sch_htb.c): classes with a rate they may always
 * send at and a ceil they may borrow up to from their ancestors, priorities, and deficit
 * round robin among the classes of a priority at each level. This file is its data path and
 * the qdisc's own options; its classes are in htb_class.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/child.h"
#include "qdisc/htb.h"
#include "qdisc/kinds.h"
#include "qdisc/peeked.h"
#include "qdisc/watchdog.h"
#include <mqtx/tc.h>

#define HTB_VER	     0x30011 /* HTB_VER: tc's check and its "ver 3.17" */
#define HTB_NS_PER_S 1000000000LL
#define HTB_NO_QLEN  UINT32_MAX /* direct_qlen not given: the device's txqueuelen */
#define HTB_MAX_HOPS HTB_MAXDEPTH

/* The qdisc's options as tc sends them (htb_parse_opt). */
struct htb_opt {
	uint32_t r2q, defcls, direct_qlen;
	bool offload;
};

/* ---- tokens ---- */

/* htb_class_mode(): no hysteresis (Linux's default). *@diff becomes the wait until the mode
 * can change. */
static enum htb_cmode class_mode(const struct htb_class *cl, int64_t *diff)
{
	int64_t toks = cl->ctokens + *diff;

	if (toks < 0) {
		*diff = -toks;
		return HTB_CANT_SEND;
	}
	toks = cl->tokens + *diff;
	if (toks >= 0)
		return HTB_CAN_SEND;
	*diff = -toks;
	return HTB_MAY_BORROW;
}

static void change_class_mode(struct htb_priv *p, struct htb_class *cl, int64_t *diff)
{
	enum htb_cmode mode = class_mode(cl, diff);

	if (mode == cl->cmode)
		return;
	if (mode == HTB_CANT_SEND) {
		cl->overlimits++;
		p->sch->overlimits++; /* the qdisc's are its classes' (htb_dump) */
	}
	if (cl->prio_activity) {
		if (cl->cmode != HTB_CANT_SEND)
			mqtx__htb_deactivate_prios(p, cl);
		cl->cmode = mode;
		if (mode != HTB_CANT_SEND)
			mqtx__htb_activate_prios(p, cl);
	} else {
		cl->cmode = mode;
	}
}

/* htb_accnt_tokens() and htb_accnt_ctokens(): refill by @diff up to the bucket, charge @len,
 * never below one minute's debt. */
static int64_t accnt(int64_t toks, int64_t diff, int64_t buffer, const struct mqtx_ratecfg *r,
		     uint32_t len, int64_t mbuffer)
{
	toks += diff;
	if (toks > buffer)
		toks = buffer;
	toks -= mqtx__ratecfg_l2t_ns(r, len);
	if (toks <= -mbuffer)
		toks = 1 - mbuffer;
	return toks;
}

/* htb_charge_class(): the class that sent at @level and its ancestors pay; those below
 * @level borrowed (their rate tokens only move with time), the one at @level lent. */
static void charge_class(struct htb_priv *p, struct htb_class *cl, int level, uint32_t len)
{
	for (; cl; cl = cl->parent) {
		int64_t diff = p->now - cl->t_c;
		enum htb_cmode old = cl->cmode;

		if (diff > cl->mbuffer)
			diff = cl->mbuffer;
		if (cl->level >= level) {
			if (cl->level == level)
				cl->lends++;
			cl->tokens =
				accnt(cl->tokens, diff, cl->buffer, &cl->rate, len, cl->mbuffer);
		} else {
			cl->borrows++;
			cl->tokens += diff;
		}
		cl->ctokens = accnt(cl->ctokens, diff, cl->cbuffer, &cl->ceil, len, cl->mbuffer);
		cl->t_c = p->now;
		diff = 0;
		change_class_mode(p, cl, &diff);
		if (old != cl->cmode) {
			if (old != HTB_CAN_SEND)
				mqtx__htb_pq_erase(p, cl);
			if (cl->cmode != HTB_CAN_SEND)
				mqtx__htb_add_to_wait_tree(p, cl, diff);
		}
		if (cl->level) {
			cl->bytes += len;
			cl->packets++;
		}
	}
}

/* htb_do_events(): the classes of @level whose wait is over change mode. Returns the next
 * event's time, 0 when none waits. */
static int64_t do_events(struct htb_priv *p, int level)
{
	struct htb_class **pq = &p->hlevel[level].wait_pq;

	while (*pq) {
		struct htb_class *cl = *pq;
		int64_t diff;

		if (cl->pq_key > p->now)
			return cl->pq_key;
		mqtx__htb_list_erase(pq, cl, HTB_PQ);
		diff = p->now - cl->t_c;
		if (diff > cl->mbuffer)
			diff = cl->mbuffer;
		change_class_mode(p, cl, &diff);
		if (cl->cmode != HTB_CAN_SEND)
			mqtx__htb_add_to_wait_tree(p, cl, diff);
	}
	return 0;
}

/* ---- dequeue ---- */

/* htb_lookup_leaf(): follow the round-robin pointers from a row down the feeds to a leaf. */
static struct htb_class *lookup_leaf(struct htb_prio *row, int prio)
{
	struct htb_prio *stk[HTB_MAXDEPTH + 1], **sp = stk;

	if (!row->first)
		return NULL;
	*sp = row;
	for (int i = 0; i < 65535; i++) {
		struct htb_prio *h = *sp;

		if (!h->ptr && h->last_ptr_id)
			h->ptr = mqtx__htb_find_next_upper(h->first, prio, h->last_ptr_id);
		h->last_ptr_id = 0;
		if (!h->ptr) { /* at the end: rewind, and move the level above on */
			h->ptr = h->first;
			if (!h->ptr)
				return NULL;
			if (sp > stk) {
				sp--;
				if (!(*sp)->ptr)
					return NULL;
				mqtx__htb_next_node(&(*sp)->ptr, prio);
			}
		} else if (!h->ptr->level) {
			return h->ptr;
		} else if (sp < stk + HTB_MAXDEPTH) {
			*++sp = &h->ptr->clprio[prio];
		} else {
			return NULL;
		}
	}
	return NULL;
}

/* The round-robin pointer that serves @cl at @level. */
static struct htb_class **rr_ptr(struct htb_priv *p, struct htb_class *cl, int prio, int level)
{
	return level ? &cl->parent->clprio[prio].ptr : &p->hlevel[0].hprio[prio].ptr;
}

/* A packet of leaf @cl: the class's counters, and ours as its child's change. */
static struct mqtx_pkt *leaf_dequeue(struct mqtx_qdisc *q, struct htb_class *cl)
{
	struct mqtx_qdisc *c = cl->leaf;
	uint32_t qlen = c->qlen;
	uint64_t backlog = c->backlog, drops = c->drops;
	struct mqtx_pkt *pkt = c->ops->dequeue(c);

	q->qlen -= qlen - c->qlen;
	q->backlog -= backlog - c->backlog;
	q->drops += c->drops - drops;
	cl->drops += c->drops - drops;
	if (pkt) {
		c->bytes += pkt->len;
		c->packets++;
		cl->bytes += pkt->len;
		cl->packets++;
	}
	return pkt;
}

/* htb_dequeue_tree(): a packet of priority @prio from @level's row. */
static struct mqtx_pkt *dequeue_tree(struct mqtx_qdisc *q, int prio, int level)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	struct htb_prio *row = &p->hlevel[level].hprio[prio];
	struct htb_class *cl, *start;
	struct mqtx_pkt *pkt = NULL;

	start = cl = lookup_leaf(row, prio);
	do {
		if (!cl)
			return NULL;
		if (!cl->leaf->qlen) { /* emptied by a graft or a drop: skip it */
			struct htb_class *next;

			mqtx__htb_deactivate(p, cl);
			if (!(p->row_mask[level] & (1u << prio)))
				return NULL;
			next = lookup_leaf(row, prio);
			if (cl == start)
				start = next;
			cl = next;
			continue;
		}
		pkt = leaf_dequeue(q, cl);
		if (pkt)
			break;
		mqtx__htb_next_node(rr_ptr(p, cl, prio, level), prio);
		cl = lookup_leaf(row, prio);
	} while (cl != start);
	if (!pkt)
		return NULL;
	cl->deficit[level] -= (int32_t)pkt->len;
	if (cl->deficit[level] < 0) {
		cl->deficit[level] += (int32_t)cl->quantum;
		mqtx__htb_next_node(rr_ptr(p, cl, prio, level), prio);
	}
	if (!cl->leaf->qlen)
		mqtx__htb_deactivate(p, cl);
	charge_class(p, cl, level, pkt->len);
	return pkt;
}

/* htb_dequeue(): the direct queue first, then level by level, the due events first; nothing
 * to send while packets wait arms the watchdog for the next event. */
static struct mqtx_pkt *htb_do_dequeue(struct mqtx_qdisc *q)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *pkt = mqtx_pkt_list_pop(&p->direct);
	int64_t next_event;

	if (pkt) {
		p->direct_len--;
		q->qlen--;
		q->backlog -= pkt->len;
		return pkt;
	}
	if (!q->qlen)
		return NULL;
	p->now = (int64_t)mqtx_qdisc_now(q);
	next_event = p->now + 5 * HTB_NS_PER_S;
	for (int level = 0; level < HTB_MAXDEPTH; level++) {
		int64_t event = p->near_ev_cache[level];

		if (p->now >= event) {
			event = do_events(p, level);
			if (!event)
				event = p->now + HTB_NS_PER_S;
			p->near_ev_cache[level] = event;
		}
		if (next_event > event)
			next_event = event;
		for (unsigned m = p->row_mask[level]; m;) {
			int prio = mqtx__htb_lowest_bit(m);

			m &= ~(1u << prio);
			pkt = dequeue_tree(q, prio, level);
			if (pkt)
				return pkt;
		}
	}
	mqtx_timer_arm(&p->watchdog, (uint64_t)next_event);
	return NULL;
}

/* Linux's htb peeks by dequeuing (qdisc_peek_dequeued()). */
PEEK_DEQUEUED_OPS(htb, htb_priv)

/* ---- enqueue ---- */

#define HTB_DIRECT ((struct htb_class *)-1)

/* htb_classify(): X:0 is the direct queue; a priority naming a leaf takes it; one naming an
 * inner class starts with that class's filters, any other with the qdisc's; a filter's class
 * id is a leaf, the direct queue, or an inner class whose filters come next (at most
 * HTB_MAX_HOPS of them: a loop drops the packet); then the default class, else the direct
 * queue. NULL: dropped or taken, *@verdict says which. */
static struct htb_class *htb_classify(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, int *verdict)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	uint32_t minor = mqtx_qdisc_prio_class(q, pkt);
	struct htb_class *cl = minor ? mqtx__htb_find(p, pkt->priority) : NULL;
	struct mqtx_tcf_block *block = p->block;
	struct mqtx_tcf_result res;

	*verdict = MQTX_ACT_OK;
	if (q->handle && pkt->priority == q->handle)
		return HTB_DIRECT;
	if (cl && !cl->level)
		return cl;
	if (cl)
		block = cl->block;
	for (unsigned hops = 0;; hops++) {
		*verdict = mqtx_tcf_classify(block, q->dev, pkt, &res);
		if (*verdict == MQTX_ACT_SHOT || *verdict == MQTX_ACT_STOLEN)
			return NULL;
		if (*verdict < 0)
			break;
		if (res.classid == q->handle)
			return HTB_DIRECT;
		cl = mqtx__htb_find(p, res.classid);
		if (!cl)
			break; /* a class that does not exist: the default */
		if (!cl->level)
			return cl;
		if (hops >= HTB_MAX_HOPS) {
			*verdict = MQTX_ACT_SHOT;
			pkt->drop_reason = MQTX_DROP_FILTER;
			return NULL;
		}
		block = cl->block;
	}
	cl = mqtx__htb_find(p, MQTX_H_MAKE(q->handle, p->defcls));
	return cl && !cl->level ? cl : HTB_DIRECT;
}

static int htb_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	int verdict, ret;
	struct htb_class *cl = htb_classify(q, pkt, &verdict);
	struct mqtx_qdisc *c;
	uint64_t dropped;

	if (cl == HTB_DIRECT) {
		if (p->direct_len >= p->direct_qlen)
			return mqtx_qdisc_drop(q, pkt, MQTX_DROP_QDISC, to_free);
		mqtx_pkt_list_add_tail(&p->direct, pkt);
		p->direct_len++;
		p->direct_pkts++;
		q->qlen++;
		q->backlog += pkt->len;
		return MQTX_XMIT_SUCCESS;
	}
	if (!cl) {
		if (verdict == MQTX_ACT_STOLEN)
			return mqtx_qdisc_stolen(q, pkt);
		return mqtx_qdisc_drop(q, pkt, (enum mqtx_drop_reason)pkt->drop_reason, to_free);
	}
	c = cl->leaf;
	ret = child_enqueue(q, c, pkt, to_free, &dropped);
	cl->drops += dropped;
	if (c->qlen)
		mqtx__htb_activate(p, cl);
	return ret;
}

/* ---- the qdisc's options ---- */

static bool tc_matches(const char *word, const char *full)
{
	return *word && !strncmp(word, full, strlen(word));
}

/* tc's explain1(): "Illegal" and the usage. */
static int htb_illegal(const char *what, struct mqtx_extack *ack)
{
	mqtx_extack_set(ack, "Illegal \"%s\"", what);
	return MQTX_TC_EUSAGE;
}

enum htb_word { W_NONE, W_R2Q, W_DEFAULT, W_DEBUG, W_DQLEN, W_OFFLOAD };

/* The option @a names, tested in tc's order as prefixes ("d" is default). */
static enum htb_word htb_word(const char *a)
{
	static const char *const words[] = { "r2q", "default", "debug", "direct_qlen", "offload" };

	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tc_matches(a, words[i]))
			return (enum htb_word)(i + 1);
	return W_NONE;
}

/* tc's htb_parse_opt(): "help" is not a word of it ("What is"). */
static int htb_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct htb_opt *o = opt;

	o->r2q = 10;
	o->direct_qlen = HTB_NO_QLEN;
	for (int i = 0; i < argc; i++) {
		enum htb_word w = htb_word(argv[i]);
		const char *v;
		char hex[16];
		uint32_t debug;

		if (w == W_NONE) {
			mqtx_extack_set(ack, "What is \"%s\"?", argv[i]);
			return MQTX_TC_EUSAGE;
		}
		if (w == W_OFFLOAD) {
			o->offload = true;
			continue;
		}
		v = mqtx_tc_next_arg(argc, argv, &i, ack);
		if (!v)
			return MQTX_TC_EFATAL;
		if (w == W_R2Q && mqtx_tc_parse_u32_dec(v, &o->r2q))
			return htb_illegal("r2q", ack);
		if (w == W_DQLEN && mqtx_tc_parse_u32_dec(v, &o->direct_qlen))
			return htb_illegal("direct_qlen", ack);
		if (w == W_DEBUG && mqtx_tc_parse_u32(v, &debug))
			return htb_illegal("debug", ack);
		/* get_u32(.., 16): hex digits, "0x" allowed */
		if (w == W_DEFAULT &&
		    (snprintf(hex, sizeof(hex), "%s%s", strncmp(v, "0x", 2) ? "0x" : "", v) >=
			     (int)sizeof(hex) ||
		     mqtx_tc_parse_u32(hex, &o->defcls)))
			return htb_illegal("default", ack);
	}
	return 0;
}

static int htb_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	const struct htb_opt *o = opt;
	int err;

	p->sch = q;
	mqtx_pkt_list_init(&p->direct);
	mqtx__qdisc_watchdog_init(&p->watchdog, q);
	p->watchdog_ready = true;
	if (!o) { /* htb_init(): tc always sends the version */
		mqtx_log(MQTX_LOG_ERR, "htb: needs its options (\"htb\" alone gives them)");
		return -EINVAL;
	}
	if (o->offload) {
		if (q->parent != MQTX_H_ROOT)
			mqtx_extack_set(ack, "HTB must be the root qdisc to use offload");
		else
			mqtx_extack_set(ack, "hw-tc-offload ethtool feature flag must be on");
		return -EOPNOTSUPP;
	}
	err = mqtx_tcf_block_get(q->egress_block, &p->block);
	if (err)
		return err;
	p->hashsize = 4; /* qdisc_class_hash_init() */
	p->hash = mqtx_alloc(p->hashsize * sizeof(*p->hash), 0);
	if (!p->hash)
		return -ENOMEM;
	memset(p->hash, 0, p->hashsize * sizeof(*p->hash));
	p->direct_qlen =
		o->direct_qlen != HTB_NO_QLEN ? o->direct_qlen : mqtx_dev_tx_queue_len(q->dev);
	p->r2q = o->r2q < 1 ? 1 : o->r2q;
	p->defcls = o->defcls;
	return 0;
}

static void htb_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);

	mqtx__htb_classes_reset(q, to_free);
	reset_peeked(&p->peeked, to_free);
	mqtx_timer_cancel(&p->watchdog);
	mqtx_pkt_list_splice(&p->direct, to_free);
	p->direct_len = 0;
	memset(p->hlevel, 0, sizeof(p->hlevel));
	memset(p->row_mask, 0, sizeof(p->row_mask));
	q->qlen = 0;
	q->backlog = 0;
}

static void htb_destroy(struct mqtx_qdisc *q)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);

	if (p->watchdog_ready)
		mqtx_timer_cancel(&p->watchdog);
	mqtx__htb_classes_destroy(q);
	mqtx_free(p->hash);
	p->hash = NULL;
	mqtx_tcf_block_put(p->block);
	p->block = NULL;
}

/* tc's htb_print_opt() for the qdisc: r2q, default in hex, the direct packets, ver with -d. */
static void htb_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	char def[16];

	mqtx_dump_uint(d, "r2q", "r2q %" PRIu64, p->r2q);
	snprintf(def, sizeof(def), "%#x", p->defcls);
	mqtx_dump_str(d, "default", "default %s", def);
	mqtx_dump_uint(d, "direct_packets_stat", "direct_packets_stat %" PRIu64, p->direct_pkts);
	if (mqtx_dump_details(d))
		mqtx_dump_str(d, "ver", "ver %s", "3.17");
	mqtx_dump_uint(d, "direct_qlen", "direct_qlen %" PRIu64, p->direct_qlen);
}

const struct mqtx_qdisc_ops mqtx__htb_qdisc_ops = {
	.id = "htb",
	.usage =
		"Usage: ... qdisc add ... htb [default N] [r2q N]\n"
		"                      [direct_qlen P] [offload]\n"
		" default  minor id of class to which unclassified packets are sent {0}\n"
		" r2q      DRR quantums are computed as rate in Bps/r2q {10}\n"
		" debug    string of 16 numbers each 0-3 {0}\n"
		"\n"
		" direct_qlen  Limit of the direct queue {in packets}\n"
		" offload  enable hardware offload\n"
		"... class add ... htb rate R1 [burst B1] [mpu B] [overhead O]\n"
		"                      [prio P] [slot S] [pslot PS]\n"
		"                      [ceil R2] [cburst B2] [mtu MTU] [quantum Q]\n"
		" rate     rate allocated to this class (class can still borrow)\n"
		" burst    max bytes burst which can be accumulated during idle period {computed}\n"
		" mpu      minimum packet size used in rate computations\n"
		" overhead per-packet size overhead used in rate computations\n"
		" linklay  adapting to a linklayer e.g. atm\n"
		" ceil     definite upper class rate (no borrows) {rate}\n"
		" cburst   burst but for ceil {computed}\n"
		" mtu      max packet size we create rate map for {1600}\n"
		" prio     priority of leaf; lower are served first {0}\n"
		" quantum  how much bytes to serve from leaf at once {use r2q}\n"
		"\n"
		"TC HTB version 3.3",
	.priv_size = sizeof(struct htb_priv),
	.opt_size = sizeof(struct htb_opt),
	.static_flags = MQTX_QF_EGRESS_BLOCK,
	.enqueue = htb_enqueue,
	.dequeue = htb_dequeue,
	.peek = htb_peek,
	.parse = htb_parse,
	.init = htb_init,
	.reset = htb_reset,
	.destroy = htb_destroy,
	.dump = htb_dump,
	.cl_ops = &mqtx__htb_class_ops,
};

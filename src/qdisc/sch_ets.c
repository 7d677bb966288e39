// SPDX-License-Identifier: MIT
/* ets: Enhanced Transmission Selection (IEEE 802.1Qaz; Linux sch_ets.c): strict-priority bands
 * first, then deficit round robin among the bandwidth-sharing bands, each band a class with
 * its own child qdisc. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <mqtx/cls.h>
#include <mqtx/qdisc.h>
#include "qdisc/child.h"
#include "qdisc/kinds.h"
#include "qdisc/peeked.h"
#include <mqtx/tc.h>

#define ETS_MAX_BANDS 16  /* TCQ_ETS_MAX_BANDS */
#define ETS_MAP_LEN   16  /* TC_PRIO_MAX + 1 */
#define ETS_MAX_WORDS 255 /* tc keeps its counts in a u8 */
#define ETS_Q_MIN     256u
#define ETS_Q_MAX     (1u << 20)

/* tc's cexplain(): a class parser's usage differs from the qdisc's. */
#define ETS_CLASS_USAGE "Usage: ... ets [quantum Q1]"

/* What tc sends (ets_parse_opt): @nbands already worked out from the strict bands and quanta
 * when not given (a u8, so 17 quanta make 17 bands and the kernel refuses them). */
struct ets_opt {
	uint8_t nbands, nstrict;
	unsigned nquanta, nprio;
	uint32_t quanta[ETS_MAX_WORDS];
	uint8_t priomap[ETS_MAP_LEN];
};

/* The class options: "quantum Q" (ets_parse_copt). */
struct ets_class_opt {
	uint32_t quantum; /* 0: not given */
};

struct ets_band {
	struct mqtx_qdisc *child;
	uint32_t quantum, deficit;
	bool active;  /* on the round-robin list */
	uint8_t next; /* the list is a ring of band numbers */
};

struct ets_priv {
	uint32_t nbands, nstrict;
	uint8_t prio2band[ETS_MAP_LEN];
	struct ets_band band[ETS_MAX_BANDS];
	int head, tail; /* the active bandwidth-sharing bands, in round-robin order; -1: none */
	struct mqtx_pkt *peeked; /* what peek took out (Linux's qdisc_peek_dequeued) */
	struct mqtx_tcf_block *block;
};

/* ---- the active list (Linux's q->active) ---- */

static void ets_activate(struct ets_priv *p, uint32_t b)
{
	p->band[b].active = true;
	if (p->tail < 0)
		p->head = (int)b;
	else
		p->band[p->tail].next = (uint8_t)b;
	p->tail = (int)b;
}

/* Take the head band off the list. */
static uint32_t ets_pop_head(struct ets_priv *p)
{
	uint32_t b = (uint32_t)p->head;

	p->band[b].active = false;
	p->head = p->head == p->tail ? -1 : p->band[b].next;
	if (p->head < 0)
		p->tail = -1;
	return b;
}

/* Take band @b off the list wherever it is (a band turned strict, or removed). */
static void ets_unlink(struct ets_priv *p, uint32_t b)
{
	int prev = -1;

	if (!p->band[b].active)
		return;
	for (int i = p->head; i != (int)b; i = p->band[i].next)
		prev = i;
	p->band[b].active = false;
	if (prev < 0)
		p->head = p->head == p->tail ? -1 : p->band[b].next;
	else
		p->band[prev].next = p->band[b].next;
	if (p->tail == (int)b)
		p->tail = prev;
	if (p->head < 0)
		p->tail = -1;
}

/* ---- data path ---- */

/* Linux's ets_classify(): a priority naming a band, then the filters, then the priomap. A
 * class that is not a band goes to the band of priority 0. -1: a filter dropped or took it. */
static int ets_classify(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, int *verdict)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);
	uint32_t prio = pkt->priority, minor = mqtx_qdisc_prio_class(q, pkt);
	struct mqtx_tcf_result res;

	*verdict = MQTX_ACT_OK;
	if (!minor && !(q->handle && MQTX_H_MAJ(prio) == MQTX_H_MAJ(q->handle))) {
		*verdict = mqtx_tcf_classify(p->block, q->dev, pkt, &res);
		if (*verdict == MQTX_ACT_SHOT || *verdict == MQTX_ACT_STOLEN)
			return -1;
		if (*verdict < 0)
			return p->prio2band[MQTX_H_MAJ(prio) ? 0 : prio & (ETS_MAP_LEN - 1)];
		minor = MQTX_H_MIN(res.classid);
	}
	return minor - 1 < p->nbands ? (int)(minor - 1) : p->prio2band[0];
}

/* Our counters follow the child's (a child that drops another packet for this one, as
 * fq_codel may, still leaves the books right), and a sharing band that holds packets is on
 * the round robin with its quantum as deficit. */
static int ets_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);
	int verdict, b = ets_classify(q, pkt, &verdict);
	struct mqtx_qdisc *c;
	uint64_t dropped;
	int ret;

	if (b < 0) {
		if (verdict == MQTX_ACT_STOLEN)
			return mqtx_qdisc_stolen(q, pkt);
		return mqtx_qdisc_drop(q, pkt, (enum mqtx_drop_reason)pkt->drop_reason, to_free);
	}
	c = p->band[b].child;
	ret = child_enqueue(q, c, pkt, to_free, &dropped);
	if (c->qlen && (uint32_t)b >= p->nstrict && !p->band[b].active) {
		ets_activate(p, (uint32_t)b);
		p->band[b].deficit = p->band[b].quantum;
	}
	return ret;
}

static struct mqtx_pkt *ets_take(struct mqtx_qdisc *q, struct mqtx_qdisc *c)
{
	struct mqtx_pkt *pkt = c->ops->dequeue(c);

	if (pkt) {
		c->bytes += pkt->len;
		c->packets++;
		q->qlen--;
		q->backlog -= pkt->len;
	}
	return pkt;
}

/* Linux's ets_qdisc_dequeue(): the strict bands in order, then the head of the round robin if
 * its deficit covers its head packet; otherwise it gets its quantum and goes to the tail. */
static struct mqtx_pkt *ets_do_dequeue(struct mqtx_qdisc *q)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < p->nstrict; b++) {
		struct mqtx_qdisc *c = p->band[b].child;

		if (c->qlen)
			return ets_take(q, c);
	}
	while (p->head >= 0) {
		struct ets_band *e = &p->band[p->head];
		struct mqtx_pkt *pkt;

		if (!e->child->qlen) { /* emptied by a graft (Linux's ets_class_qlen_notify()) */
			ets_pop_head(p);
			continue;
		}
		pkt = e->child->ops->peek(e->child);
		if (!pkt)
			return NULL;
		if (pkt->len <= e->deficit) {
			e->deficit -= pkt->len;
			pkt = ets_take(q, e->child);
			if (!e->child->qlen)
				ets_pop_head(p);
			return pkt;
		}
		e->deficit += e->quantum;
		ets_activate(p, ets_pop_head(p));
	}
	return NULL;
}

/* As Linux's ets: which band goes next depends on the deficits, so peeking dequeues. */
PEEK_DEQUEUED_OPS(ets, ets_priv)

/* ---- control path ---- */

static int ets_u8(const char *v, const char *what, uint8_t *out, struct mqtx_extack *ack)
{
	uint32_t n;

	if (mqtx_tc_parse_u32_dec(v, &n))
		return mqtx_extack_set(ack, "Illegal \"%s\"", what);
	if (n > ETS_MAX_BANDS)
		return mqtx_extack_set(ack, "The number of \"%s\" must be <= %d", what,
				       ETS_MAX_BANDS);
	*out = (uint8_t)n;
	return 0;
}

/* One word after "quanta" or "priomap". */
static int ets_element(struct ets_opt *o, bool quanta, const char *a, struct mqtx_extack *ack)
{
	uint32_t v;

	if (quanta) {
		if (mqtx_tc_parse_u32_dec(a, &v))
			return mqtx_extack_set(ack, "Illegal \"quanta\" element");
		if (!v)
			return mqtx_extack_set(ack, "\"quanta\" must be > 0");
		if (o->nquanta >= ETS_MAX_WORDS)
			return mqtx_extack_set(ack, "ets: too many \"quanta\" at \"%s\"", a);
		o->quanta[o->nquanta++] = v;
		return 0;
	}
	if (mqtx_tc_parse_u32_dec(a, &v))
		return mqtx_extack_set(ack, "Illegal \"priomap\" element");
	if (o->nprio >= ETS_MAP_LEN)
		return mqtx_extack_set(ack, "\"priomap\" index cannot be higher than %u",
				       ETS_MAP_LEN - 1);
	o->priomap[o->nprio++] = v > UINT8_MAX ? UINT8_MAX : (uint8_t)v;
	return 0;
}

/* What tc checks once every word is read. */
static int ets_complete(struct ets_opt *o, uint8_t bands, struct mqtx_extack *ack)
{
	o->nbands = bands ? bands : (uint8_t)(o->nquanta + o->nstrict);
	if (!o->nbands) {
		mqtx_extack_set(ack, "One of \"bands\", \"quanta\" or \"strict\" needs to be "
				     "specified");
		return MQTX_TC_EUSAGE;
	}
	if (o->nstrict + o->nquanta > o->nbands) {
		mqtx_extack_set(ack, "Not enough total bands to cover all the strict bands and "
				     "quanta");
		return MQTX_TC_EUSAGE;
	}
	for (unsigned i = 0; i < o->nprio; i++)
		if (o->priomap[i] >= o->nbands)
			return mqtx_extack_set(ack, "\"priomap\" element is out of bounds");
	return 0;
}

/* tc's ets_parse_opt(): "quanta" and "priomap" take every number that follows. */
static int ets_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct ets_opt *o = opt;
	uint8_t bands = 0;
	int mode = 0; /* 1: quanta, 2: priomap */

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		bool dup;

		if (!strcmp(a, "bands") || !strcmp(a, "strict") || !strcmp(a, "quanta") ||
		    !strcmp(a, "priomap")) {
			dup = a[0] == 'b'   ? bands
			      : a[0] == 's' ? o->nstrict
			      : a[0] == 'q' ? o->nquanta
					    : o->nprio;
			if (dup)
				return mqtx_extack_set(ack, "Duplicate \"%s\"", a);
			v = mqtx_tc_next_arg(argc, argv, &i, ack);
			if (!v)
				return MQTX_TC_EFATAL;
			mode = a[0] == 'q' ? 1 : a[0] == 'p' ? 2 : 0;
			if (a[0] == 'b' && ets_u8(v, a, &bands, ack))
				return -EINVAL;
			if (a[0] == 's' && ets_u8(v, a, &o->nstrict, ack))
				return -EINVAL;
			if (mode && ets_element(o, mode == 1, v, ack))
				return -EINVAL;
		} else if (!strcmp(a, "help") || !mode) {
			return mqtx_tc_unknown("ets", a, ack);
		} else if (ets_element(o, mode == 1, a, ack)) {
			return -EINVAL;
		}
	}
	return ets_complete(o, bands, ack);
}

/* A clamped quantum (ets_quantum_parse()). */
static uint32_t ets_clamp(uint32_t v)
{
	return v < ETS_Q_MIN ? ETS_Q_MIN : v > ETS_Q_MAX ? ETS_Q_MAX : v;
}

/* ets_qdisc_change()'s checks and defaults: *@quanta and *@map for what @o configures. */
static int ets_resolve(struct mqtx_qdisc *q, const struct ets_opt *o, uint32_t *quanta,
		       uint8_t *map, struct mqtx_extack *ack)
{
	if (o->nbands < 1 || o->nbands > ETS_MAX_BANDS)
		return mqtx_extack_set(ack, "sch_ets: Invalid number of bands");
	if (o->nstrict > o->nbands)
		return mqtx_extack_set(ack, "sch_ets: Invalid number of strict bands");
	memset(map, o->nbands - 1, ETS_MAP_LEN); /* unless given, the last band */
	for (unsigned i = 0; i < o->nprio; i++) {
		if (o->priomap[i] >= o->nbands)
			return mqtx_extack_set(ack, "sch_ets: Invalid band number in ETS priomap");
		map[i] = o->priomap[i];
	}
	if (o->nstrict + o->nquanta > o->nbands)
		return mqtx_extack_set(ack, "sch_ets: ETS quanta has more values than bands");
	memset(quanta, 0, ETS_MAX_BANDS * sizeof(*quanta));
	for (unsigned i = 0; i < o->nquanta; i++)
		quanta[o->nstrict + i] = ets_clamp(o->quanta[i]);
	/* The bands left over share with a quantum of the MTU (psched_mtu). */
	for (unsigned i = o->nstrict; i < o->nbands; i++)
		if (!quanta[i])
			quanta[i] = ets_clamp(mqtx_dev_mtu(q->dev) + 14);
	return 0;
}

static int ets_new_band(struct mqtx_qdisc *q, uint32_t b, struct mqtx_extack *ack,
			struct mqtx_qdisc **out)
{
	int err =
		mqtx_qdisc_create(q->dev, q->dev_queue, &mqtx__pfifo_qdisc_ops, 0, NULL, ack, out);

	if (!err)
		(*out)->parent = MQTX_H_MAKE(q->handle, b + 1);
	return err;
}

/* Lock held. A band that goes away: its packets are dropped as a reset, here and above. */
static void ets_purge_band(struct mqtx_qdisc *q, struct mqtx_qdisc *c, struct mqtx_pkt **to_free)
{
	uint32_t qlen = c->qlen;
	uint64_t backlog = c->backlog;

	mqtx_qdisc_reset(c, MQTX_DROP_RESET, to_free);
	q->qlen -= qlen;
	q->backlog -= backlog;
	q->drops += qlen;
}

/* Lock held: the new configuration, as ets_qdisc_change() commits it. */
static void ets_commit(struct mqtx_qdisc *q, const struct ets_opt *o, const uint32_t *quanta,
		       const uint8_t *map, struct mqtx_qdisc **fresh, struct mqtx_qdisc **gone,
		       struct mqtx_pkt **to_free)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);
	uint32_t old = p->nbands;

	for (uint32_t b = o->nbands; b < old; b++) {
		ets_unlink(p, b);
		ets_purge_band(q, p->band[b].child, to_free);
		gone[b] = p->band[b].child;
		memset(&p->band[b], 0, sizeof(p->band[b]));
	}
	p->nbands = o->nbands;
	/* bands that stop being strict join the round robin with what they hold */
	for (uint32_t b = o->nstrict; b < p->nstrict && b < p->nbands; b++) {
		if (p->band[b].child->qlen) {
			ets_activate(p, b);
			p->band[b].deficit = quanta[b];
		}
	}
	for (uint32_t b = p->nstrict; b < o->nstrict && b < old; b++)
		ets_unlink(p, b);
	p->nstrict = o->nstrict;
	memcpy(p->prio2band, map, ETS_MAP_LEN);
	for (uint32_t b = 0; b < p->nbands; b++)
		p->band[b].quantum = quanta[b];
	for (uint32_t b = old; b < p->nbands; b++)
		p->band[b].child = fresh[b];
}

/* Every new band's child is made before the lock is taken, and the bands that go away are
 * destroyed after it is released. */
static int ets_apply(struct mqtx_qdisc *q, const struct ets_opt *o, struct mqtx_pkt **to_free,
		     struct mqtx_extack *ack)
{
	struct mqtx_qdisc *fresh[ETS_MAX_BANDS] = { NULL }, *gone[ETS_MAX_BANDS] = { NULL };
	struct ets_priv *p = mqtx_qdisc_priv(q);
	uint32_t quanta[ETS_MAX_BANDS];
	uint8_t map[ETS_MAP_LEN];
	uint32_t b, old = p->nbands;
	int err = ets_resolve(q, o, quanta, map, ack);

	for (b = old; !err && b < o->nbands; b++)
		err = ets_new_band(q, b, ack, &fresh[b]);
	if (err) {
		/* only the bands made before the failure (none when the options were refused,
		 * whose band count may be out of range) */
		for (uint32_t i = old; i < b && i < ETS_MAX_BANDS; i++)
			mqtx_qdisc_destroy(fresh[i]);
		return err;
	}
	mqtx_qdisc_lock(q);
	ets_commit(q, o, quanta, map, fresh, gone, to_free);
	mqtx_qdisc_unlock(q);
	for (b = o->nbands; b < old; b++)
		mqtx_qdisc_destroy(gone[b]);
	return 0;
}

static int ets_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_pkt *to_free = NULL;
	int err;

	p->head = p->tail = -1;
	if (!opt) { /* ets_qdisc_init() */
		mqtx_log(MQTX_LOG_ERR, "ets: needs \"bands\", \"quanta\" or \"strict\"");
		return -EINVAL;
	}
	err = mqtx_tcf_block_get(q->egress_block, &p->block);
	if (err)
		return err;
	return ets_apply(q, opt, &to_free, ack);
}

static int ets_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack)
{
	return opt ? ets_apply(q, opt, to_free, ack) : 0;
}

static void ets_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < p->nbands; b++) {
		struct mqtx_qdisc *c = p->band[b].child;

		mqtx_qdisc_reset(c, MQTX_DROP_RESET, to_free);
		p->band[b].active = false;
	}
	reset_peeked(&p->peeked, to_free);
	p->head = p->tail = -1;
	q->qlen = 0;
	q->backlog = 0;
}

static void ets_destroy(struct mqtx_qdisc *q)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < ETS_MAX_BANDS; b++) {
		mqtx_qdisc_destroy(p->band[b].child);
		p->band[b].child = NULL;
	}
	p->nbands = 0;
	mqtx_tcf_block_put(p->block);
	p->block = NULL;
}

/* tc's ets_print_opt(): bands, strict when not 0, the quanta of the sharing bands, priomap;
 * each list ends with a blank. */
static void ets_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);
	uint32_t v[ETS_MAX_BANDS > ETS_MAP_LEN ? ETS_MAX_BANDS : ETS_MAP_LEN];

	mqtx_dump_uint(d, "bands", "bands %" PRIu64, p->nbands);
	if (p->nstrict)
		mqtx_dump_uint(d, "strict", "strict %" PRIu64, p->nstrict);
	if (p->nstrict < p->nbands) {
		for (uint32_t b = p->nstrict; b < p->nbands; b++)
			v[b - p->nstrict] = p->band[b].quantum;
		mqtx_dump_uint_array(d, "quanta", "quanta", v, p->nbands - p->nstrict);
	}
	for (unsigned i = 0; i < ETS_MAP_LEN; i++)
		v[i] = p->prio2band[i];
	mqtx_dump_uint_array(d, "priomap", "priomap", v, ETS_MAP_LEN);
	mqtx_dump_flag(d, NULL, "");
}

/* ---- classes: class X:b+1 is band b ---- */

static uint32_t ets_cl_count(struct mqtx_qdisc *q)
{
	return ((struct ets_priv *)mqtx_qdisc_priv(q))->nbands;
}

static struct mqtx_qdisc *ets_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	return ((struct ets_priv *)mqtx_qdisc_priv(q))->band[minor - 1].child;
}

/* Swap only; the caller moves the backlog and fixes our qlen/backlog (lock held). A band on
 * the round robin stays there: the backlog moves into the new child. */
static void ets_cl_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			 struct mqtx_qdisc **old)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	*old = p->band[minor - 1].child;
	new->parent = MQTX_H_MAKE(q->handle, minor);
	p->band[minor - 1].child = new;
}

/* ets_class_walk(): every band, its parent root (ets_class_dump()), its child's counters. */
static void ets_cl_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < p->nbands; b++) {
		struct mqtx_qdisc_stats st;
		struct mqtx_class c = {
			.minor = b + 1,
			.parent = MQTX_H_ROOT,
			.leaf = p->band[b].child,
			.stats = &st,
		};

		mqtx_qdisc_get_stats(c.leaf, &st);
		fn(q, &c, arg);
	}
}

static void ets_cl_dump(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_dump *d)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	if (minor - 1 >= p->nstrict)
		mqtx_dump_uint(d, "quantum", "quantum %" PRIu64, p->band[minor - 1].quantum);
	mqtx_dump_flag(d, NULL, "");
}

/* tc's ets_parse_copt(): "quantum Q" only. */
static int ets_cl_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct ets_class_opt *o = opt;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "quantum")) {
			const char *v;

			if (o->quantum)
				return mqtx_extack_set(ack, "Duplicate \"quantum\"");
			v = mqtx_tc_next_arg(argc, argv, &i, ack);
			if (!v)
				return MQTX_TC_EFATAL;
			if (mqtx_tc_parse_u32_dec(v, &o->quantum))
				return mqtx_extack_set(ack, "Illegal \"quantum\"");
			if (!o->quantum)
				return mqtx_extack_set(ack, "\"quantum\" must be > 0");
		} else if (!strcmp(argv[i], "help")) {
			return mqtx_extack_set(ack, "%s", ETS_CLASS_USAGE);
		} else {
			return mqtx_extack_set(ack, "What is \"%s\"?\n%s", argv[i],
					       ETS_CLASS_USAGE);
		}
	}
	return 0;
}

/* ets_class_change(): bands come and go with the qdisc's "bands"; a band's quantum changes. */
static int ets_cl_change(struct mqtx_qdisc *q, uint32_t minor, uint32_t parent, bool create,
			 const void *opt, struct mqtx_extack *ack)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);
	const struct ets_class_opt *o = opt;

	(void)parent;
	if (create)
		return mqtx_extack_set(ack, "Fine-grained class addition and removal is not "
					    "supported"),
		       -EOPNOTSUPP;
	if (!o)
		return mqtx_extack_set(ack, "ETS options are required for this operation");
	if (!o->quantum)
		return 0; /* nothing to configure */
	if (minor - 1 < p->nstrict)
		return mqtx_extack_set(ack, "Strict bands do not have a configurable quantum");
	mqtx_qdisc_lock(q);
	p->band[minor - 1].quantum = ets_clamp(o->quantum);
	mqtx_qdisc_unlock(q);
	return 0;
}

static struct mqtx_tcf_block *ets_tcf_block(struct mqtx_qdisc *q, uint32_t minor,
					    struct mqtx_extack *ack)
{
	struct ets_priv *p = mqtx_qdisc_priv(q);

	if (!minor)
		return p->block;
	mqtx_extack_set(ack, "ETS classid must be zero");
	return NULL;
}

static const struct mqtx_class_ops ets_class_ops = {
	.count = ets_cl_count,
	.leaf = ets_cl_leaf,
	.graft = ets_cl_graft,
	.dump = ets_cl_dump,
	.walk = ets_cl_walk,
	.tcf_block = ets_tcf_block,
	.opt_size = sizeof(struct ets_class_opt),
	.parse = ets_cl_parse,
	.change = ets_cl_change,
};

const struct mqtx_qdisc_ops mqtx__ets_qdisc_ops = {
	.id = "ets",
	.usage = "Usage: ... ets [bands NUMBER] [strict NUMBER] [quanta Q1 Q2...] [priomap P1 "
		 "P2...]",
	.priv_size = sizeof(struct ets_priv),
	.opt_size = sizeof(struct ets_opt),
	.static_flags = MQTX_QF_EGRESS_BLOCK,
	.enqueue = ets_enqueue,
	.dequeue = ets_dequeue,
	.peek = ets_peek,
	.parse = ets_parse,
	.init = ets_init,
	.change = ets_change,
	.reset = ets_reset,
	.destroy = ets_destroy,
	.dump = ets_dump,
	.cl_ops = &ets_class_ops,
};

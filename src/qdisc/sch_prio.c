// SPDX-License-Identifier: MIT
/* prio: strict-priority bands, each a class with its own child qdisc (Linux sch_prio.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <mqtx/cls.h>
#include <mqtx/qdisc.h>
#include "qdisc/fifo_common.h"
#include "qdisc/kinds.h"
#include <mqtx/tc.h>

#define PRIO_MIN_BANDS 2
#define PRIO_MAX_BANDS 16
#define PRIO_MAP_LEN   16 /* TC_PRIO_MAX + 1 */

/* What tc sends (prio_parse_opt): the whole configuration, bands 3 and the default map unless
 * the command gives them, so a change replaces everything. */
struct prio_opt {
	uint32_t bands; /* tc's int: "bands -1" reaches the kernel, which refuses it */
	uint8_t priomap[PRIO_MAP_LEN];
};

/* bands 3 and Linux's default priority-to-band map (sch_default_prio2band), as pfifo_fast. */
static const struct prio_opt prio_defaults = {
	.bands = 3,
	.priomap = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 },
};

struct prio_priv {
	uint32_t bands;
	uint8_t prio2band[PRIO_MAP_LEN];
	struct mqtx_qdisc *child[PRIO_MAX_BANDS];
	struct mqtx_tcf_block *block; /* its filters (its own, or a shared one: egress_block) */
};

/* ---- accounting: a parent's counters follow its children's (qdisc_tree_reduce_backlog) ---- */

struct child_snap {
	uint32_t qlen;
	uint64_t backlog, drops;
};

static inline void snap(const struct mqtx_qdisc *c, struct child_snap *s)
{
	s->qlen = c->qlen;
	s->backlog = c->backlog;
	s->drops = c->drops;
}

static inline void follow(struct mqtx_qdisc *q, const struct mqtx_qdisc *c,
			  const struct child_snap *s)
{
	q->qlen = q->qlen - s->qlen + c->qlen;
	q->backlog = q->backlog - s->backlog + c->backlog;
	q->drops += c->drops - s->drops;
}

/* ---- data path ---- */

/*
 * Linux's prio_classify(). A priority whose major is our handle names band minor - 1. Any
 * other goes through the filters: a filter's class names band minor - 1 the same way; a drop
 * or a redirect ends it here (-1, *@verdict says which); no match falls back to the priomap,
 * a handle-qualified priority (another qdisc's major) as priority 0. A band that does not
 * exist (minor 0, or beyond the bands) is the band of priority 0. A qdisc without a handle
 * (made through the C API only) has no major to match.
 */
static int prio_classify(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, int *verdict)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);
	uint32_t prio = pkt->priority, band;
	struct mqtx_tcf_result res;

	if (!q->handle || MQTX_H_MAJ(prio) != MQTX_H_MAJ(q->handle)) {
		*verdict = mqtx_tcf_classify(p->block, q->dev, pkt, &res);
		if (*verdict == MQTX_ACT_SHOT || *verdict == MQTX_ACT_STOLEN)
			return -1;
		if (*verdict < 0) {
			if (MQTX_H_MAJ(prio))
				prio = 0;
			return p->prio2band[prio & (PRIO_MAP_LEN - 1)];
		}
		prio = res.classid;
	}
	band = MQTX_H_MIN(prio) - 1; /* minor 0 wraps past the bands */
	return band < p->bands ? (int)band : p->prio2band[0];
}

static int prio_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);
	int verdict, band = prio_classify(q, pkt, &verdict);
	struct mqtx_qdisc *c;
	struct child_snap s;
	int ret;

	if (band < 0) {
		if (verdict == MQTX_ACT_STOLEN)
			return mqtx_qdisc_stolen(q, pkt);
		return mqtx_qdisc_drop(q, pkt, (enum mqtx_drop_reason)pkt->drop_reason, to_free);
	}
	c = p->child[band];
	snap(c, &s);
	ret = c->ops->enqueue(c, pkt, to_free);
	follow(q, c, &s);
	return ret;
}

static struct mqtx_pkt *prio_dequeue(struct mqtx_qdisc *q)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < p->bands; b++) {
		struct mqtx_qdisc *c = p->child[b];
		struct mqtx_pkt *pkt;
		struct child_snap s;

		if (!c->qlen)
			continue;
		snap(c, &s);
		pkt = c->ops->dequeue(c);
		follow(q, c, &s);
		if (pkt) {
			/* Class statistics; the core counts the root's when the driver takes it. */
			c->bytes += pkt->len;
			c->packets++;
			return pkt;
		}
	}
	return NULL;
}

static struct mqtx_pkt *prio_peek(struct mqtx_qdisc *q)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < p->bands; b++) {
		struct mqtx_qdisc *c = p->child[b];
		struct mqtx_pkt *pkt = c->qlen ? c->ops->peek(c) : NULL;

		if (pkt)
			return pkt;
	}
	return NULL;
}

/* ---- children ---- */

/* Empty child @c onto *@to_free uncounted: the caller (our reset, or the core) counts them. */
static void prio_child_reset(struct mqtx_qdisc *c, struct mqtx_pkt **to_free)
{
	struct mqtx_pkt *pkt;

	if (c->ops->reset) {
		c->ops->reset(c, to_free);
	} else {
		while ((pkt = c->ops->dequeue(c)))
			mqtx_pkt_link(pkt, to_free);
	}
	c->qlen = 0;
	c->backlog = 0;
}

static int prio_new_child(struct mqtx_qdisc *q, uint32_t band, struct mqtx_extack *ack,
			  struct mqtx_qdisc **out)
{
	int err =
		mqtx_qdisc_create(q->dev, q->dev_queue, &mqtx__pfifo_qdisc_ops, 0, NULL, ack, out);
	if (err)
		return err;
	(*out)->parent = (q->handle & 0xffff0000u) | (band + 1);
	return 0;
}

/* Lock held. Empty a band that goes away: its packets count as dropped by a delete, here and
 * above. */
static void prio_purge_child(struct mqtx_qdisc *q, struct mqtx_qdisc *c, struct mqtx_pkt **to_free)
{
	struct child_snap s;

	snap(c, &s);
	mqtx_qdisc_reset(c, MQTX_DROP_RESET, to_free);
	follow(q, c, &s);
}

/* ---- control path ---- */

/* tc's get_integer(.., 10): a C int as strtol() reads it. */
static int parse_int(const char *s, int32_t *v)
{
	char *end;
	long r;

	errno = 0;
	r = strtol(s, &end, 10);
	if (!*s || *end || errno == ERANGE || r < INT32_MIN || r > INT32_MAX)
		return -EINVAL;
	*v = (int32_t)r;
	return 0;
}

/*
 * tc's prio_parse_opt(): after "priomap", every word that is not a keyword is the next entry
 * of the map (base 10), checked against the bands given so far (as unsigned numbers: with a
 * negative count, every entry passes); the entries not given keep the default map's values.
 * The ranges are the kernel's to check (prio_tune()).
 */
static int prio_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct prio_opt *o = opt;
	unsigned idx = 0;
	bool map = false;

	*o = prio_defaults;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		uint32_t band;
		int32_t n;

		if (!strcmp(a, "bands")) {
			const char *v = mqtx_tc_next_arg(argc, argv, &i, ack);

			if (!v)
				return MQTX_TC_EFATAL;
			if (parse_int(v, &n))
				return mqtx_extack_set(ack, "Illegal \"bands\" \"%s\"", v);
			o->bands = (uint32_t)n;
		} else if (!strcmp(a, "priomap")) {
			if (map)
				return mqtx_extack_set(ack, "Error: duplicate priomap");
			map = true;
		} else if (!strcmp(a, "multiqueue")) {
			/* tc sends TCA_PRIO_MQ, which Linux has ignored since 2.6.28 */
		} else if (!map || !strcmp(a, "help")) {
			return mqtx_tc_unknown("prio", a, ack);
		} else if (mqtx_tc_parse_u32_dec(a, &band)) {
			return mqtx_extack_set(ack, "Illegal \"priomap\" element \"%s\"", a);
		} else if (band >= o->bands) {
			return mqtx_extack_set(ack, "\"priomap\" element \"%s\" is out of bands",
					       a);
		} else if (idx >= PRIO_MAP_LEN) {
			return mqtx_extack_set(ack, "\"priomap\" index > TC_PRIO_MAX=%u at \"%s\"",
					       PRIO_MAP_LEN - 1, a);
		} else {
			o->priomap[idx++] = (uint8_t)band;
		}
	}
	return 0;
}

/* prio_tune()'s checks: 2..16 bands, and a map that names only those. Linux refuses without a
 * message: why goes to the log. */
static int prio_check(const struct prio_opt *o)
{
	int32_t bands = (int32_t)o->bands;

	if (bands < PRIO_MIN_BANDS || bands > PRIO_MAX_BANDS) {
		mqtx_log(MQTX_LOG_ERR, "prio: \"bands\" %d is not in %u..%u", bands, PRIO_MIN_BANDS,
			 PRIO_MAX_BANDS);
		return -EINVAL;
	}
	for (unsigned i = 0; i < PRIO_MAP_LEN; i++) {
		if (o->priomap[i] >= o->bands) {
			mqtx_log(MQTX_LOG_ERR,
				 "prio: \"priomap\" entry %u is band %u, out of %u bands", i,
				 o->priomap[i], o->bands);
			return -EINVAL;
		}
	}
	return 0;
}

static int prio_init(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	const struct prio_opt *o = opt ? opt : &prio_defaults;
	struct prio_priv *p = mqtx_qdisc_priv(q);
	int err;

	err = prio_check(o);
	if (!err)
		err = mqtx_tcf_block_get(q->egress_block, &p->block);
	if (err)
		return err;
	p->bands = 0;
	for (uint32_t b = 0; b < o->bands; b++) {
		err = prio_new_child(q, b, ack, &p->child[b]);
		if (err)
			return err; /* destroy frees the bands made so far */
		p->bands = b + 1;
	}
	memcpy(p->prio2band, o->priomap, PRIO_MAP_LEN);
	return 0;
}

/* Every new band's child is made before the lock is taken, and the bands that go away are
 * destroyed after it is released (Linux's prio_tune, qdisc_put after sch_tree_unlock). */
static int prio_change(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		       struct mqtx_extack *ack)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_qdisc *fresh[PRIO_MAX_BANDS] = { NULL }, *gone[PRIO_MAX_BANDS] = { NULL };
	const struct prio_opt *o = opt;
	uint32_t old;
	int err;

	if (!o)
		return 0;
	err = prio_check(o);
	if (err)
		return err;
	for (uint32_t b = p->bands; b < o->bands; b++) {
		err = prio_new_child(q, b, ack, &fresh[b]);
		if (err)
			goto free_fresh;
	}
	mqtx_qdisc_lock(q);
	old = p->bands;
	for (uint32_t b = o->bands; b < old; b++) {
		prio_purge_child(q, p->child[b], to_free);
		gone[b] = p->child[b];
		p->child[b] = NULL;
	}
	for (uint32_t b = old; b < o->bands; b++)
		p->child[b] = fresh[b];
	p->bands = o->bands;
	memcpy(p->prio2band, o->priomap, PRIO_MAP_LEN);
	mqtx_qdisc_unlock(q);
	for (uint32_t b = o->bands; b < old; b++)
		mqtx_qdisc_destroy(gone[b]);
	return 0;
free_fresh:
	for (uint32_t b = p->bands; b < o->bands; b++)
		mqtx_qdisc_destroy(fresh[b]);
	return err;
}

static void prio_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < p->bands; b++)
		prio_child_reset(p->child[b], to_free);
	q->qlen = 0;
	q->backlog = 0;
}

static void prio_destroy(struct mqtx_qdisc *q)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t b = 0; b < PRIO_MAX_BANDS; b++) {
		mqtx_qdisc_destroy(p->child[b]);
		p->child[b] = NULL;
	}
	p->bands = 0;
	mqtx_tcf_block_put(p->block);
	p->block = NULL;
}

static void prio_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);
	uint32_t map[PRIO_MAP_LEN];

	for (unsigned i = 0; i < PRIO_MAP_LEN; i++)
		map[i] = p->prio2band[i];
	mqtx_dump_uint(d, "bands", "bands %" PRIu64, p->bands);
	mqtx_dump_uint_array(d, "priomap", "priomap", map, PRIO_MAP_LEN);
	/* tc's prio printer (shared by both kinds) adds the Linux 2.6 multiqueue flag to its
	 * JSON, off: the kernel has not sent TCA_PRIO_MQ since. */
	mqtx_dump_bool(d, "multiqueue", NULL, false);
}

/* ---- classes for the configuration code (struct mqtx_class_ops): class X:b+1 is band b ---- */

static uint32_t prio_cl_count(struct mqtx_qdisc *q)
{
	return ((struct prio_priv *)mqtx_qdisc_priv(q))->bands;
}

static struct mqtx_qdisc *prio_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	return ((struct prio_priv *)mqtx_qdisc_priv(q))->child[minor - 1];
}

/* Swap only; the caller moves the backlog and fixes our qlen/backlog (lock held). */
static void prio_cl_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			  struct mqtx_qdisc **old)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);

	*old = p->child[minor - 1];
	new->parent = (q->handle & 0xffff0000u) | minor;
	p->child[minor - 1] = new;
}

/* Filters go on the qdisc, not on a band (prio_tcf_block()). */
static struct mqtx_tcf_block *prio_tcf_block(struct mqtx_qdisc *q, uint32_t minor,
					     struct mqtx_extack *ack)
{
	struct prio_priv *p = mqtx_qdisc_priv(q);

	if (!minor)
		return p->block;
	mqtx_extack_set(ack, "prio: filters go on the qdisc (parent %x:), not on its bands",
			q->handle >> 16);
	return NULL;
}

static const struct mqtx_class_ops prio_class_ops = {
	.count = prio_cl_count,
	.leaf = prio_cl_leaf,
	.graft = prio_cl_graft,
	.tcf_block = prio_tcf_block,
};

const struct mqtx_qdisc_ops mqtx__prio_qdisc_ops = {
	.id = "prio",
	.usage = "Usage: ... prio bands NUMBER priomap P1 P2...[multiqueue]",
	.priv_size = sizeof(struct prio_priv),
	.opt_size = sizeof(struct prio_opt),
	/* mqtx's: one filter block shared by many prios (every queue's under mq). */
	.static_flags = MQTX_QF_EGRESS_BLOCK,
	.enqueue = prio_enqueue,
	.dequeue = prio_dequeue,
	.peek = prio_peek,
	.parse = prio_parse,
	.init = prio_init,
	.change = prio_change,
	.reset = prio_reset,
	.destroy = prio_destroy,
	.dump = prio_dump,
	.cl_ops = &prio_class_ops,
};

// SPDX-License-Identifier: MIT
/* htb's classes (Linux sch_htb.c): the class hash tc lists them in, class add, change and
 * delete with tc's class options (q_htb.c), their words in show, and their statistics. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qdisc/htb.h"
#include "qdisc/kinds.h"
#include "base/tc_ticks.h"
#include <mqtx/tc.h>

#define HTB_LL_ETHERNET 1 /* TC_LINKLAYER_ETHERNET */
#define HTB_LL_ATM	2
#define HTB_TC_MTU	1600	      /* tc's default "mtu": the burst it adds to rate/HZ */
#define HTB_TC_HZ	1000000000ULL /* get_hz() with psched's high-resolution clock */
#define HTB_Q_MIN	1000u
#define HTB_Q_MAX	200000u
#define HTB_MBUFFER	(60LL * 1000000000LL) /* one minute of debt at most */

/* ---- the class hash (Linux's qdisc_class_hash): its walk is tc's order ---- */

static uint32_t hash_of(uint32_t id, uint32_t size)
{
	return mqtx__htb_hash(id, size);
}

static void hash_insert(struct htb_priv *p, struct htb_class *cl)
{
	struct htb_class **b = &p->hash[hash_of(cl->classid, p->hashsize)];

	cl->hnext = *b;
	*b = cl;
	p->hashelems++;
}

static void hash_remove(struct htb_priv *p, struct htb_class *cl)
{
	struct htb_class **pp = &p->hash[hash_of(cl->classid, p->hashsize)];

	while (*pp != cl)
		pp = &(*pp)->hnext;
	*pp = cl->hnext;
	p->hashelems--;
}

/* qdisc_class_hash_grow(): double past three quarters full, each old bucket in order moved to
 * the heads of the new ones. A failed allocation leaves it as it is. Config lock held. */
static void hash_grow(struct mqtx_qdisc *q)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	uint32_t osize = p->hashsize, nsize = osize * 2;
	struct htb_class **nh, **oh = p->hash;

	if (p->hashelems * 4 <= osize * 3)
		return;
	nh = mqtx_alloc(nsize * sizeof(*nh), 0);
	if (!nh)
		return;
	memset(nh, 0, nsize * sizeof(*nh));
	mqtx_qdisc_lock(q);
	for (uint32_t i = 0; i < osize; i++) {
		struct htb_class *cl = oh[i], *next;

		for (; cl; cl = next) {
			uint32_t h = hash_of(cl->classid, nsize);

			next = cl->hnext;
			cl->hnext = nh[h];
			nh[h] = cl;
		}
	}
	p->hash = nh;
	p->hashsize = nsize;
	mqtx_qdisc_unlock(q);
	mqtx_free(oh);
}

#define for_each_class(p, i, cl)                     \
	for (uint32_t i = 0; i < (p)->hashsize; i++) \
		for (struct htb_class *cl = (p)->hash[i]; cl; cl = cl->hnext)

/* ---- classes as the configuration code sees them ---- */

static uint32_t htb_cl_count(struct mqtx_qdisc *q)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	uint32_t max = 0;

	for_each_class(p, i, cl) if (MQTX_H_MIN(cl->classid) > max) max = MQTX_H_MIN(cl->classid);
	return max;
}

static bool htb_cl_find(struct mqtx_qdisc *q, uint32_t minor)
{
	return mqtx__htb_find(mqtx_qdisc_priv(q), MQTX_H_MAKE(q->handle, minor));
}

/* An inner class has no leaf: it takes no qdisc (htb_graft). */
static struct mqtx_qdisc *htb_cl_leaf(struct mqtx_qdisc *q, uint32_t minor)
{
	struct htb_class *cl = mqtx__htb_find(mqtx_qdisc_priv(q), MQTX_H_MAKE(q->handle, minor));

	return cl && !cl->level ? cl->leaf : NULL;
}

/* Swap only (lock held); the caller moves the backlog. A class left active with an empty
 * child is skipped and deactivated by the next dequeue, as in Linux. */
static void htb_cl_graft(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
			 struct mqtx_qdisc **old)
{
	struct htb_class *cl = mqtx__htb_find(mqtx_qdisc_priv(q), MQTX_H_MAKE(q->handle, minor));

	*old = cl->leaf;
	new->parent = cl->classid;
	cl->leaf = new;
}

static void class_stats(const struct htb_class *cl, struct mqtx_qdisc_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->bytes = cl->bytes;
	st->packets = cl->packets;
	st->drops = cl->drops;
	st->overlimits = cl->overlimits;
	if (!cl->level) {
		st->qlen = cl->leaf->qlen + cl->leaf->requeue.len;
		st->backlog = cl->leaf->backlog;
	}
}

/* htb_walk(): the hash's order; the parent is the parent class or root. */
static void htb_cl_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);

	for_each_class(p, i, cl)
	{
		struct mqtx_qdisc_stats st;
		struct mqtx_class c = {
			.minor = MQTX_H_MIN(cl->classid),
			.parent = cl->parent ? cl->parent->classid : MQTX_H_ROOT,
			.leaf = cl->level ? NULL : cl->leaf,
			.stats = &st,
		};

		mqtx_qdisc_lock(q);
		class_stats(cl, &st);
		mqtx_qdisc_unlock(q);
		fn(q, &c, arg);
	}
}

/* A bucket with -d: "SIZE/1" (Linux keeps no cell size) and its mpu. */
static void dump_bucket(struct mqtx_dump *d, const char *key, const struct mqtx_ratecfg *r,
			int64_t ns)
{
	char text[24], size[MQTX_TC_BUF], cell[MQTX_TC_BUF + 2];

	snprintf(text, sizeof(text), "%s %%s", key);
	if (!mqtx_dump_details(d)) {
		mqtx_dump_size(d, key, text, tc_bucket_size(r->rate, ns));
		return;
	}
	snprintf(cell, sizeof(cell), "%s/1",
		 mqtx_tc_print_size(size, sizeof(size), tc_bucket_size(r->rate, ns)));
	mqtx_dump_str(d, key, text, cell);
	mqtx_dump_size(d, "mpu", "mpu %s", r->mpu);
}

/* tc's htb_print_opt() for a class: prio (and quantum with -d) of a leaf, rate, overhead,
 * ceil, linklayer, the buckets, level with -d; a blank ends it. */
static void htb_cl_dump(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_dump *d)
{
	struct htb_class *cl = mqtx__htb_find(mqtx_qdisc_priv(q), MQTX_H_MAKE(q->handle, minor));

	if (!cl->level) {
		mqtx_dump_int(d, "prio", "prio %" PRId64, cl->prio);
		if (mqtx_dump_details(d))
			mqtx_dump_uint(d, "quantum", "quantum %" PRIu64, cl->quantum);
	}
	mqtx_dump_rate(d, "rate", "rate %s", cl->rate.rate);
	if (cl->rate.overhead)
		mqtx_dump_uint(d, "overhead", "overhead %" PRIu64, cl->rate.overhead);
	mqtx_dump_rate(d, "ceil", "ceil %s", cl->ceil.rate);
	if (cl->rate.atm || mqtx_dump_details(d))
		mqtx_dump_str(d, "linklayer", "linklayer %s", cl->rate.atm ? "atm" : "ethernet");
	dump_bucket(d, "burst", &cl->rate, cl->buffer);
	dump_bucket(d, "cburst", &cl->ceil, cl->cbuffer);
	if (mqtx_dump_details(d))
		mqtx_dump_int(d, "level", "level %" PRId64, cl->level);
	mqtx_dump_flag(d, NULL, "");
}

/* The ticks the kernel reports, clamped to an int (htb_dump_class_stats()). */
static int64_t ticks_int(int64_t ns)
{
	int64_t t = ns >> 6;

	return t > INT32_MAX ? INT32_MAX : t < INT32_MIN ? INT32_MIN : t;
}

/* tc's htb_print_xstats(): two lines, each opened by one blank, then an empty one. */
static void htb_cl_dump_stats(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_dump *d)
{
	struct htb_class *cl = mqtx__htb_find(mqtx_qdisc_priv(q), MQTX_H_MAKE(q->handle, minor));

	if (!cl)
		return;
	mqtx_dump_indent(d, " ");
	mqtx_dump_uint(d, "lended", "lended: %" PRIu64, cl->lends);
	mqtx_dump_uint(d, "borrowed", "borrowed: %" PRIu64, cl->borrows);
	mqtx_dump_uint(d, "giants", "giants: %" PRIu64, cl->giants);
	mqtx_dump_nl(d);
	mqtx_dump_int(d, "tokens", "tokens: %" PRId64, ticks_int(cl->tokens));
	mqtx_dump_int(d, "ctokens", "ctokens: %" PRId64, ticks_int(cl->ctokens));
	mqtx_dump_nl(d);
}

/* htb_tcf_block(): the qdisc's filters (minor 0), or a class's, which run for the packets a
 * filter (or a priority) sends to that class while it is an inner one. */
static struct mqtx_tcf_block *htb_tcf_block(struct mqtx_qdisc *q, uint32_t minor,
					    struct mqtx_extack *ack)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	struct htb_class *cl;

	if (!minor)
		return p->block;
	cl = mqtx__htb_find(p, MQTX_H_MAKE(q->handle, minor));
	if (!cl)
		mqtx_extack_set(ack, "htb %x: has no class %x:%x", q->handle >> 16, q->handle >> 16,
				minor);
	return cl ? cl->block : NULL;
}

/* ---- class options: tc's htb_parse_class_opt() ---- */

static bool tc_matches(const char *word, const char *full)
{
	return *word && !strncmp(word, full, strlen(word));
}

static int copt_illegal(const char *what, struct mqtx_extack *ack)
{
	mqtx_extack_set(ack, "Illegal \"%s\"", what);
	return MQTX_TC_EUSAGE;
}

/* get_size_and_cell(): SIZE[/CELL], the cell a power of two (and then unused). */
static int size_cell(const char *v, uint32_t *size)
{
	char buf[64];
	const char *slash = strchr(v, '/');
	uint64_t bytes;
	uint32_t cell;
	size_t n = slash ? (size_t)(slash - v) : strlen(v);

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (mqtx_tc_parse_size(buf, &bytes) ||
	    (slash && (mqtx_tc_parse_u32(slash + 1, &cell) || !cell || (cell & (cell - 1)))))
		return -EINVAL;
	*size = (uint32_t)bytes;
	return 0;
}

static int copt_u16(const char *v, uint16_t *out)
{
	uint32_t u;

	if (mqtx_tc_parse_u32_dec(v, &u) || u > UINT16_MAX)
		return -EINVAL;
	*out = (uint16_t)u;
	return 0;
}

/* A rate, or tc's "N%" of the device's link speed: tc's lines on why, then its "Illegal". */
static int copt_rate(const char *what, const char *v, uint64_t *r, struct mqtx_extack *ack)
{
	char why[sizeof(ack->msg)];

	if (*r) {
		mqtx_extack_set(ack, "Double \"%s\" spec", what);
		return -EINVAL;
	}
	if (!strchr(v, '%'))
		return mqtx_tc_parse_rate(v, r) ? copt_illegal(what, ack) : 0;
	if (!mqtx_tc_parse_rate_percent(v, r, ack))
		return 0;
	snprintf(why, sizeof(why), "%s", ack->msg);
	mqtx_extack_set(ack, "%s%sIllegal \"%s\"", why, why[0] ? "\n" : "", what);
	return MQTX_TC_EUSAGE;
}

/* One word @a with its value @v. */
static int copt_one(struct htb_copt *o, uint32_t *mtu, uint32_t *bufs, const char *a, const char *v,
		    struct mqtx_extack *ack)
{
	if (tc_matches(a, "prio"))
		return mqtx_tc_parse_u32_dec(v, &o->prio) ? copt_illegal("prio", ack) : 0;
	if (tc_matches(a, "mtu"))
		return mqtx_tc_parse_u32_dec(v, mtu) ? copt_illegal("mtu", ack) : 0;
	if (tc_matches(a, "mpu"))
		return copt_u16(v, &o->mpu) ? copt_illegal("mpu", ack) : 0;
	if (tc_matches(a, "overhead"))
		return copt_u16(v, &o->overhead) ? copt_illegal("overhead", ack) : 0;
	if (tc_matches(a, "linklayer")) {
		if (tc_matches(v, "ethernet"))
			o->linklayer = HTB_LL_ETHERNET;
		else if (tc_matches(v, "atm") || tc_matches(v, "adsl"))
			o->linklayer = HTB_LL_ATM;
		else
			return copt_illegal("linklayer", ack);
		return 0;
	}
	if (tc_matches(a, "quantum"))
		return mqtx_tc_parse_u32_dec(v, &o->quantum) ? copt_illegal("quantum", ack) : 0;
	if (tc_matches(a, "burst") || !strcmp(a, "buffer") || !strcmp(a, "maxburst"))
		return size_cell(v, &bufs[0]) ? copt_illegal(a, ack) : 0;
	if (tc_matches(a, "cburst") || !strcmp(a, "cbuffer") || !strcmp(a, "cmaxburst"))
		return size_cell(v, &bufs[1]) ? copt_illegal(a, ack) : 0;
	return copt_rate(a, v, !strcmp(a, "ceil") ? &o->ceil : &o->rate, ack);
}

static bool copt_known(const char *a)
{
	static const char *const pre[] = { "prio",	"mtu",	   "mpu",   "overhead",
					   "linklayer", "quantum", "burst", "cburst" };

	for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (tc_matches(a, pre[i]))
			return true;
	return !strcmp(a, "buffer") || !strcmp(a, "maxburst") || !strcmp(a, "cbuffer") ||
	       !strcmp(a, "cmaxburst") || !strcmp(a, "ceil") || !strcmp(a, "rate");
}

static int htb_cl_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct htb_copt *o = opt;
	uint32_t mtu = HTB_TC_MTU, bufs[2] = { 0, 0 };
	int err;

	o->linklayer = HTB_LL_ETHERNET;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "help"))
			return MQTX_TC_EUSAGE;
		if (!copt_known(a)) {
			mqtx_extack_set(ack, "What is \"%s\"?", a);
			return MQTX_TC_EUSAGE;
		}
		v = mqtx_tc_next_arg(argc, argv, &i, ack);
		if (!v)
			return MQTX_TC_EFATAL;
		err = copt_one(o, &mtu, bufs, a, v, ack);
		if (err)
			return err;
	}
	if (!o->rate)
		return mqtx_extack_set(ack, "\"rate\" is required.");
	if (!o->ceil)
		o->ceil = o->rate;
	/* the least burst: what a tick of the clock sends, plus the mtu (tc's u32) */
	if (!bufs[0])
		bufs[0] = (uint32_t)(o->rate / HTB_TC_HZ + mtu);
	if (!bufs[1])
		bufs[1] = (uint32_t)(o->ceil / HTB_TC_HZ + mtu);
	o->buffer = tc_xmit_ticks(o->rate, bufs[0]);
	o->cbuffer = tc_xmit_ticks(o->ceil, bufs[1]);
	return 0;
}

/* ---- class add, change, delete: Linux's htb_change_class() and htb_delete() ---- */

static void set_ratecfg(struct mqtx_ratecfg *r, uint64_t rate, const struct htb_copt *o)
{
	r->rate = rate;
	r->overhead = o->overhead;
	r->mpu = o->mpu;
	r->atm = o->linklayer == HTB_LL_ATM;
}

/* Lock held: the parameters a change sets; returns the quantum warning (-1 small, 1 big). */
static int apply_copt(struct htb_priv *p, struct htb_class *cl, const struct htb_copt *o)
{
	int warn = 0;

	set_ratecfg(&cl->rate, o->rate, o);
	set_ratecfg(&cl->ceil, o->ceil, o);
	if (!cl->level) {
		uint64_t quantum = cl->rate.rate / p->r2q;

		cl->quantum = quantum > INT32_MAX ? INT32_MAX : (uint32_t)quantum;
		if (!o->quantum && cl->quantum < HTB_Q_MIN) {
			warn = -1;
			cl->quantum = HTB_Q_MIN;
		}
		if (!o->quantum && cl->quantum > HTB_Q_MAX) {
			warn = 1;
			cl->quantum = HTB_Q_MAX;
		}
		if (o->quantum)
			cl->quantum = o->quantum;
		cl->prio = o->prio < HTB_NUMPRIO ? o->prio : HTB_NUMPRIO - 1;
	}
	cl->buffer = (int64_t)o->buffer << 6;
	cl->cbuffer = (int64_t)o->cbuffer << 6;
	return warn;
}

/* Lock held: @parent, a leaf, gets its first child and becomes an inner class; its queue is
 * dropped (returned in *@gone for destruction after the lock). */
static void leaf_to_inner(struct mqtx_qdisc *q, struct htb_class *parent, struct mqtx_qdisc **gone,
			  struct mqtx_pkt **to_free)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	struct mqtx_qdisc *c = parent->leaf;

	q->qlen -= c->qlen;
	q->backlog -= c->backlog;
	q->drops += c->qlen;
	mqtx_qdisc_reset(c, MQTX_DROP_RESET, to_free);
	*gone = c;
	mqtx__htb_deactivate(p, parent);
	if (parent->cmode != HTB_CAN_SEND) {
		mqtx__htb_pq_erase(p, parent);
		parent->cmode = HTB_CAN_SEND;
	}
	parent->level = (parent->parent ? parent->parent->level : HTB_MAXDEPTH) - 1;
	parent->leaf = NULL;
	memset(parent->clprio, 0, sizeof(parent->clprio));
}

static int class_create(struct mqtx_qdisc *q, uint32_t classid, uint32_t parentid,
			const struct htb_copt *o, int *warn, struct mqtx_extack *ack)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	struct htb_class *cl,
		*parent = parentid == MQTX_H_ROOT ? NULL : mqtx__htb_find(p, parentid);
	struct mqtx_qdisc *gone = NULL;
	struct mqtx_pkt *to_free = NULL;
	int err;

	if (!MQTX_H_MIN(classid)) {
		mqtx_log(MQTX_LOG_ERR, "htb: class %x:0 is the qdisc's direct queue, not a class",
			 classid >> 16);
		return -EINVAL;
	}
	if (parent && parent->parent && parent->parent->level < 2)
		return mqtx_extack_set(ack, "sch_htb: tree is too deep");
	cl = mqtx_alloc(sizeof(*cl), 0);
	if (!cl)
		return -ENOBUFS;
	memset(cl, 0, sizeof(*cl));
	err = mqtx_tcf_block_get(0, &cl->block);
	if (!err)
		err = mqtx_qdisc_create(q->dev, q->dev_queue, &mqtx__pfifo_qdisc_ops, 0, NULL, ack,
					&cl->leaf);
	if (err) {
		mqtx_tcf_block_put(cl->block);
		mqtx_free(cl);
		return err;
	}
	cl->leaf->parent = classid;
	cl->classid = classid;
	cl->parent = parent;
	cl->mbuffer = HTB_MBUFFER;
	cl->cmode = HTB_CAN_SEND;
	mqtx_qdisc_lock(q);
	if (parent && !parent->level)
		leaf_to_inner(q, parent, &gone, &to_free);
	*warn = apply_copt(p, cl, o);
	cl->tokens = cl->buffer;
	cl->ctokens = cl->cbuffer;
	cl->t_c = (int64_t)mqtx_qdisc_now(q);
	hash_insert(p, cl);
	if (parent)
		parent->children++;
	mqtx_qdisc_unlock(q);
	mqtx_qdisc_free_dropped(q->dev, to_free);
	mqtx_qdisc_destroy(gone);
	hash_grow(q);
	return 0;
}

static int htb_cl_change(struct mqtx_qdisc *q, uint32_t minor, uint32_t parent, bool create,
			 const void *opt, struct mqtx_extack *ack)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	const struct htb_copt *o = opt;
	uint32_t classid = MQTX_H_MAKE(q->handle, minor);
	int warn = 0, err;

	if (!o || !o->rate || !o->ceil) {
		mqtx_log(MQTX_LOG_ERR, "htb: a class needs its options (\"htb rate RATE\")");
		return -EINVAL;
	}
	if (create) {
		err = class_create(q, classid, parent ? parent : MQTX_H_ROOT, o, &warn, ack);
		if (err)
			return err;
	} else {
		mqtx_qdisc_lock(q);
		warn = apply_copt(p, mqtx__htb_find(p, classid), o);
		mqtx_qdisc_unlock(q);
	}
	if (warn)
		mqtx_extack_set(ack, "sch_htb: quantum of class %X is %s. Consider r2q change.",
				classid, warn < 0 ? "small" : "big");
	return 0;
}

/* htb_parent_to_leaf(): the parent of a deleted last child becomes a leaf again. */
static void inner_to_leaf(struct htb_priv *p, struct htb_class *parent, struct mqtx_qdisc *c,
			  int64_t now)
{
	if (parent->cmode != HTB_CAN_SEND)
		mqtx__htb_pq_erase(p, parent);
	parent->level = 0;
	memset(parent->clprio, 0, sizeof(parent->clprio));
	memset(parent->deficit, 0, sizeof(parent->deficit));
	parent->leaf = c;
	parent->tokens = parent->buffer;
	parent->ctokens = parent->cbuffer;
	parent->t_c = now;
	parent->cmode = HTB_CAN_SEND;
}

/* qdisc_class_in_use(): filters on the qdisc or on any of its classes name @cl (htb_bind_filter()
 * counts each in the class's filter_cnt; mqtx counts the rules in place). */
static bool in_use(struct mqtx_qdisc *q, const struct htb_class *cl)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);

	if (mqtx_tcf_block_bound(p->block, cl->classid))
		return true;
	for_each_class(p, i, c) if (mqtx_tcf_block_bound(c->block, cl->classid)) return true;
	return false;
}

static int htb_cl_delete(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_extack *ack)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);
	struct htb_class *cl = mqtx__htb_find(p, MQTX_H_MAKE(q->handle, minor));
	struct mqtx_qdisc *fresh = NULL;
	struct mqtx_pkt *to_free = NULL;
	bool last = !cl->level && cl->parent && cl->parent->children == 1;
	int err;

	if (cl->children || in_use(q, cl))
		return mqtx_extack_set(ack, "HTB class in use"), -EBUSY;
	if (last) {
		err = mqtx_qdisc_create(q->dev, q->dev_queue, &mqtx__pfifo_qdisc_ops, 0, NULL, ack,
					&fresh);
		if (err)
			return err;
		fresh->parent = cl->parent->classid;
	}
	mqtx_qdisc_lock(q);
	if (!cl->level) {
		q->qlen -= cl->leaf->qlen;
		q->backlog -= cl->leaf->backlog;
		q->drops += cl->leaf->qlen;
		mqtx_qdisc_reset(cl->leaf, MQTX_DROP_RESET, &to_free);
	}
	hash_remove(p, cl);
	if (cl->parent)
		cl->parent->children--;
	mqtx__htb_deactivate(p, cl);
	if (cl->cmode != HTB_CAN_SEND)
		mqtx__htb_pq_erase(p, cl);
	if (last)
		inner_to_leaf(p, cl->parent, fresh, (int64_t)mqtx_qdisc_now(q));
	mqtx_qdisc_unlock(q);
	mqtx_qdisc_free_dropped(q->dev, to_free);
	mqtx_qdisc_destroy(cl->leaf);
	mqtx_tcf_block_put(cl->block);
	mqtx_free(cl);
	return 0;
}

/* ---- the qdisc's reset and destroy ---- */

void mqtx__htb_classes_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);

	for_each_class(p, i, cl)
	{
		if (cl->level)
			memset(cl->clprio, 0, sizeof(cl->clprio));
		else
			mqtx_qdisc_reset(cl->leaf, MQTX_DROP_RESET, to_free);
		for (int l = 0; l <= HTB_PQ; l++)
			memset(&cl->link[l], 0, sizeof(cl->link[l]));
		cl->prio_activity = 0;
		cl->cmode = HTB_CAN_SEND;
	}
}

void mqtx__htb_classes_destroy(struct mqtx_qdisc *q)
{
	struct htb_priv *p = mqtx_qdisc_priv(q);

	for (uint32_t i = 0; p->hash && i < p->hashsize; i++) {
		struct htb_class *cl = p->hash[i], *next;

		for (; cl; cl = next) {
			next = cl->hnext;
			mqtx_qdisc_destroy(cl->leaf);
			mqtx_tcf_block_put(cl->block);
			mqtx_free(cl);
		}
		p->hash[i] = NULL;
	}
	p->hashelems = 0;
}

const struct mqtx_class_ops mqtx__htb_class_ops = {
	.count = htb_cl_count,
	.leaf = htb_cl_leaf,
	.graft = htb_cl_graft,
	.dump = htb_cl_dump,
	.walk = htb_cl_walk,
	.dump_stats = htb_cl_dump_stats,
	.tcf_block = htb_tcf_block,
	.find = htb_cl_find,
	.opt_size = sizeof(struct htb_copt),
	.parse = htb_cl_parse,
	.change = htb_cl_change,
	.delete = htb_cl_delete,
};

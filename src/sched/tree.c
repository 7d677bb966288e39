// SPDX-License-Identifier: MIT
/* The qdisc tree of a device: lookup, add/replace/change/delete as tc_modify_qdisc, defaults. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "sched/qtree.h"

/* ---- lookup ---- */

/* How messages name a place or a qdisc, as tc writes it: "root", "ingress", "1:", "1:2". Each
 * message keeps the kernel's sentence, then names the input it is about in parentheses. */
struct hname {
	char s[16];
};

static const char *hn(uint32_t h, struct hname *b)
{
	if (h == MQTX_H_ROOT)
		return "root";
	if (h == MQTX_H_INGRESS)
		return "ingress";
	snprintf(b->s, sizeof(b->s), MQTX_H_MIN(h) ? "%x:%x" : "%x:", MQTX_H_MAJ(h) >> 16,
		 MQTX_H_MIN(h));
	return b->s;
}

static bool is_noop(const struct mqtx_qdisc *q)
{
	return !q || q == &mqtx__noop_qdisc;
}

struct mqtx_qdisc *mqtx__qtree_root(struct mqtx_dev *dev)
{
	struct mqtx_qdisc *q = dev->qtree.root ? dev->qtree.root : dev->txq[0].qdisc_sleeping;

	return is_noop(q) ? NULL : q;
}

static struct mqtx_qdisc *find_below(struct mqtx_qdisc *q, uint32_t h)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;

	if (q->handle == h)
		return q;
	if (!cl)
		return NULL;
	for (uint32_t m = 1, n = cl->count(q); m <= n; m++) {
		struct mqtx_qdisc *c = cl->leaf(q, m), *r;

		if (c && c->handle && (r = find_below(c, h)))
			return r;
	}
	return NULL;
}

struct mqtx_qdisc *mqtx__qdisc_find(struct mqtx_dev *dev, uint32_t h)
{
	struct mqtx_qdisc *root = mqtx__qtree_root(dev);
	struct mqtx_qdisc *q = NULL;

	if (!h)
		return NULL;
	if (root)
		q = find_below(root, h);
	if (!q && dev->rxq.qdisc && dev->rxq.qdisc->handle == h)
		q = dev->rxq.qdisc;
	return q;
}

uint32_t mqtx__qdisc_refcnt(struct mqtx_dev *dev, struct mqtx_qdisc *q)
{
	uint32_t n = 1;

	/* A root held by TX queues has one reference per queue plus dev->qdisc's (Linux). */
	if (q != mqtx__qtree_root(dev) || (q->flags & MQTX_QF_MQROOT))
		return 1;
	for (uint32_t i = 0; i < dev->num_txq; i++)
		n += dev->txq[i].qdisc_sleeping == q;
	return n;
}

bool mqtx__qdisc_visible(struct mqtx_dev *dev, struct mqtx_qdisc *q, struct mqtx_qdisc *parent)
{
	if (q->flags & MQTX_QF_HIDDEN)
		return false;
	if (!parent || q->handle)
		return true;
	/* mq hashes its default children of active queues, and so does taprio (one a queue, class
	 * minor - 1 its queue); other defaults stay hidden. */
	if (parent->flags & MQTX_QF_ROOTONLY)
		return MQTX_H_MIN(q->parent) >= 1 && MQTX_H_MIN(q->parent) - 1 < dev->real_num_txq;
	return (parent->flags & MQTX_QF_MQROOT) && q->dev_queue &&
	       q->dev_queue->index < dev->real_num_txq;
}

/* ---- grafting one qdisc ---- */

#define MAX_DEPTH 7 /* qdisc_graft(): a class of a qdisc this deep takes no child */

/* qdisc_leaf(): the child of class @clid of @p. */
static int leaf_of(struct mqtx_qdisc *p, uint32_t clid, struct mqtx_extack *ack,
		   struct mqtx_qdisc **out)
{
	const struct mqtx_class_ops *cl = p->ops->cl_ops;
	/* netem_find(): every class id of a kind whose class may be empty names its one class */
	uint32_t m = cl && cl->takes_child ? 1 : MQTX_H_MIN(clid);
	struct hname b;

	if (!cl) {
		mqtx_extack_set(ack, "Parent qdisc is not classful. (%s %s)", p->ops->id,
				hn(p->handle, &b));
		return -EOPNOTSUPP;
	}
	if (!m || m > cl->count(p) || (cl->find && !cl->find(p, m))) {
		mqtx_extack_set(ack, "Specified class not found. (class %s of %s has %u classes)",
				hn(clid, &b), p->ops->id, cl->count(p));
		return -ENOENT;
	}
	*out = cl->leaf(p, m);
	return 0;
}

/* Move what @old holds into @new (both children of @p, its lock held); the rest is dropped
 * as MQTX_DROP_REPLACE and taken off @p's counters, as qdisc_tree_reduce_backlog(), which also
 * counts the lost packets as drops of the parent. */
static void move_child_backlog(struct mqtx_qdisc *p, struct mqtx_qdisc *old, struct mqtx_qdisc *new,
			       struct mqtx_pkt **to_free)
{
	uint32_t qlen = old->qlen, nqlen;
	uint64_t backlog = old->backlog;
	struct mqtx_pkt_list all;
	struct mqtx_pkt *pkt;

	if (new &&new->ops->enqueue) {
		mqtx_pkt_list_init(&all);
		mqtx__qdisc_drain(old, &all);
		while ((pkt = mqtx_pkt_list_pop(&all)))
			new->ops->enqueue(new, pkt, to_free);
	}
	mqtx_qdisc_reset(old, MQTX_DROP_REPLACE, to_free);
	nqlen = new ? new->qlen : 0;
	p->qlen -= qlen - nqlen;
	p->backlog -= backlog - (new ? new->backlog : 0);
	p->drops += qlen - nqlen;
}

static void graft_class(struct mqtx_dev *dev, struct mqtx_qdisc *p, uint32_t minor,
			struct mqtx_qdisc *new, struct mqtx_qdisc **qs)
{
	const struct mqtx_class_ops *cl = p->ops->cl_ops;
	struct mqtx_pkt *to_free = NULL;
	struct mqtx_qdisc *old = NULL;

	if (p->flags & MQTX_QF_MQROOT) {
		/* mq_graft(): the child is TX queue minor-1's own qdisc. */
		for (uint32_t i = 0; i < dev->num_txq; i++)
			qs[i] = dev->txq[i].qdisc_sleeping;
		qs[minor - 1] = new;
		new->flags |= MQTX_QF_ONETXQUEUE;
		mqtx_dev_graft_all(dev, qs, qs + dev->num_txq);
		cl->graft(p, minor, new, &old);
		for (uint32_t i = 0; i < dev->num_txq; i++)
			mqtx_qdisc_destroy(qs[dev->num_txq + i]);
		return;
	}
	mqtx_spin_lock(mqtx__qdisc_lock(p));
	cl->graft(p, minor, new, &old);
	if (old)
		move_child_backlog(p, old, new, &to_free);
	mqtx_spin_unlock(mqtx__qdisc_lock(p));
	mqtx__drops_free(dev, to_free, MQTX_DROP_REPLACE);
	mqtx_qdisc_destroy(old);
}

/* qdisc_alloc_handle(): the next free handle from 8001: upwards (per device here), or 0. It
 * only proposes: the counter moves when the qdisc is made (a failure must change nothing, and
 * a later add would otherwise show that one failed before it). */
static uint32_t next_handle(struct mqtx_dev *dev)
{
	uint32_t h = dev->qtree.autohandle;

	for (int n = 0; n < 0x8000; n++) {
		h += 0x10000;
		if (h < 0x80010000u || h == 0xFFFF0000u)
			h = 0x80010000u;
		if (!mqtx__qdisc_find(dev, h))
			return h;
	}
	return 0;
}

static int create_at_root(struct mqtx_dev *dev, const struct mqtx_qreq *rq, uint32_t handle,
			  struct mqtx_extack *ack)
{
	struct mqtx_qdisc *q;
	struct mqtx_qplan pl;
	int err = mqtx__qplan_alloc(dev, &pl);

	if (err)
		return err;
	err = mqtx__qdisc_create_at(dev, &dev->txq[0], rq->ops, handle, MQTX_H_ROOT, rq->opt,
				    rq->blocks, ack, &q);
	if (err) {
		mqtx__qtree_abort(dev, &pl);
		return err;
	}
	if (q->flags & MQTX_QF_MQROOT)
		pl.root = q;
	else
		pl.single = q;
	mqtx__qtree_commit(dev, &pl);
	return 0;
}

/* How deep @p sits: the root is 0, each class below adds one (Qdisc.depth in Linux). */
static unsigned depth_of(struct mqtx_dev *dev, struct mqtx_qdisc *p)
{
	unsigned d = 0;

	while (p && p->parent != MQTX_H_ROOT && d < MAX_DEPTH) {
		p = mqtx__qdisc_find(dev, MQTX_H_MAJ(p->parent));
		d++;
	}
	return d;
}

/* qdisc_graft()'s checks on a new child of a class, made after the child was created as
 * Linux's are (qdisc_create() runs before them). */
static int class_takes(struct mqtx_dev *dev, struct mqtx_qdisc *p, struct mqtx_qdisc *q,
		       struct mqtx_extack *ack)
{
	struct hname b;

	if (!q->ops->enqueue) {
		mqtx_extack_set(ack, "Cannot assign noqueue to a class. (%s)", hn(q->parent, &b));
		return -EINVAL;
	}
	if (depth_of(dev, p) >= MAX_DEPTH) {
		mqtx_extack_set(ack, "Qdisc hierarchy is too deep. (%s is %u levels down)",
				hn(p->handle, &b), MAX_DEPTH);
		return -E2BIG;
	}
	return 0;
}

static int create_in_class(struct mqtx_dev *dev, struct mqtx_qdisc *p, uint32_t clid,
			   const struct mqtx_qdisc_ops *ops, uint32_t handle, const void *opt,
			   const uint32_t *blocks, struct mqtx_extack *ack)
{
	const struct mqtx_class_ops *cl = p->ops->cl_ops;
	/* netem_find(): every class id of a kind whose class may be empty names its one class */
	uint32_t m = cl && cl->takes_child ? 1 : MQTX_H_MIN(clid);
	struct mqtx_txq *txq = cl->select_queue ? cl->select_queue(p, m) : p->dev_queue;
	struct mqtx_qdisc **qs = NULL, *q;
	int err;

	if (!cl->graft) {
		mqtx_extack_set(ack, "Qdisc \"%s\" has no class that takes a qdisc.", p->ops->id);
		return -EOPNOTSUPP;
	}
	if (!cl->leaf(p, m) && !(cl->takes_child && cl->takes_child(p, m))) {
		/* htb_graft(): an inner class takes no qdisc; Linux says nothing more. */
		mqtx__log(MQTX_LOG_ERR, "class %x:%x of %s is not a leaf: it takes no qdisc",
			  MQTX_H_MAJ(clid) >> 16, m, p->ops->id);
		return -EINVAL;
	}
	if (p->flags & MQTX_QF_MQROOT) {
		qs = mqtx__alloc(2 * dev->num_txq * sizeof(*qs));
		if (!qs)
			return -ENOMEM;
	}
	err = mqtx__qdisc_create_at(dev, txq, ops, handle, clid, opt, blocks, ack, &q);
	if (!err && (err = class_takes(dev, p, q, ack)))
		mqtx_qdisc_destroy(q);
	else if (!err)
		graft_class(dev, p, m, q, qs);
	mqtx__free(qs);
	return err;
}

static int create_ingress(struct mqtx_dev *dev, const struct mqtx_qreq *rq, struct mqtx_extack *ack)
{
	struct mqtx_qdisc *q;
	int err;

	if (!(rq->ops->static_flags & MQTX_QF_INGRESS)) {
		mqtx_extack_set(ack,
				"Specified parent ID is reserved for ingress and clsact Qdiscs. "
				"(parent ingress, kind %s)",
				rq->ops->id);
		return -EINVAL;
	}
	err = mqtx__qdisc_create_at(dev, &dev->txq[0], rq->ops, 0xFFFF0000u, MQTX_H_INGRESS,
				    rq->opt, rq->blocks, ack, &q);
	if (err)
		return err;
	mqtx_spin_lock(&dev->rxq.lock);
	dev->rxq.qdisc = q;
	mqtx_spin_unlock(&dev->rxq.lock);
	return 0;
}

/* create_n_graft2 in tc_modify_qdisc(): qdisc_create() and the graft. */
static int create_n_graft(struct mqtx_dev *dev, struct mqtx_qdisc *p, const struct mqtx_qreq *rq,
			  struct mqtx_extack *ack)
{
	uint32_t handle = rq->handle;
	uint32_t fl;
	int err;

	if (!rq->ops) {
		mqtx_extack_set(ack, "Specified qdisc kind is unknown. (\"%s\")",
				rq->kind ? rq->kind : "none given");
		return -ENOENT;
	}
	fl = rq->ops->static_flags;
	/* qdisc_block_indexes_set(): only kinds that take a shared block get one. */
	if (rq->blocks[0] && !(fl & MQTX_QF_INGRESS_BLOCK)) {
		mqtx_extack_set(ack, "Ingress block sharing is not supported");
		return -EOPNOTSUPP;
	}
	if (rq->blocks[1] && !(fl & MQTX_QF_EGRESS_BLOCK)) {
		mqtx_extack_set(ack, "Egress block sharing is not supported");
		return -EOPNOTSUPP;
	}
	if (rq->parent == MQTX_H_INGRESS)
		return create_ingress(dev, rq, ack);
	/* mq_init()/mqprio_init(): root only, on a multiqueue device; ingress_init(): ingress. */
	if ((fl & MQTX_QF_MQROOT) && (rq->parent != MQTX_H_ROOT || dev->num_txq < 2))
		return -EOPNOTSUPP;
	if (fl & MQTX_QF_INGRESS)
		return -EOPNOTSUPP;
	if ((fl & MQTX_QF_ROOTONLY) && rq->parent != MQTX_H_ROOT) {
		mqtx_extack_set(ack, "sch_%s: Can only be attached as root qdisc", rq->ops->id);
		return -EOPNOTSUPP;
	}
	if (!handle && !(handle = next_handle(dev))) {
		mqtx_extack_set(ack, "Maximum number of qdisc handles was exceeded. (dev %s)",
				mqtx_dev_name(dev));
		return -ENOSPC;
	}
	if (!p)
		err = create_at_root(dev, rq, handle, ack);
	else
		err = create_in_class(dev, p, rq->parent, rq->ops, handle, rq->opt, rq->blocks,
				      ack);
	if (!err && !rq->handle)
		dev->qtree.autohandle = handle;
	return err;
}

static int change(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack)
{
	struct mqtx_pkt *to_free = NULL;
	int err;

	if (!opt)
		return 0; /* qdisc_change() without TCA_OPTIONS changes nothing */
	if (!q->ops->change) {
		struct hname b;

		mqtx_extack_set(ack, "Change operation not supported by specified qdisc. (%s %s)",
				q->ops->id, hn(q->handle, &b));
		return -EOPNOTSUPP;
	}
	/* The qdisc takes its own lock for what the data path sees (ops->change). */
	err = q->ops->change(q, opt, &to_free, ack);
	mqtx__drops_free(q->dev, to_free, MQTX_DROP_KEEP);
	return err;
}

static bool contains(struct mqtx_qdisc *q, struct mqtx_qdisc *x)
{
	return x && q->handle && find_below(q, x->handle) == x;
}

/* Whether @kind (NULL: none given) names another kind than @q's (nla_strcmp(TCA_KIND)). */
static bool other_kind(const char *kind, const struct mqtx_qdisc *q)
{
	return kind && strcmp(kind, q->ops->id);
}

static int wrong_kind(const char *kind, const char *id, uint32_t h, struct mqtx_extack *ack)
{
	struct hname b;

	/* The running kernel's words (6.18); 6.12 says "Invalid qdisc name". */
	mqtx_extack_set(ack, "Invalid qdisc name: must match existing qdisc. (%s is %s, not %s)",
			hn(h, &b), id, kind);
	return -EINVAL;
}

/* The existing qdisc @q named by handle: Linux would graft it again where it is. The checks
 * in tc_modify_qdisc()'s order. */
static int regraft(struct mqtx_qdisc *q, struct mqtx_qdisc *p, const struct mqtx_qreq *rq,
		   struct mqtx_extack *ack)
{
	struct hname b, b2, b3;

	if (q->parent != rq->parent) {
		mqtx_extack_set(ack,
				"Cannot move an existing qdisc to a different parent. (%s is at "
				"%s, not %s)",
				hn(q->handle, &b), hn(q->parent, &b2), hn(rq->parent, &b3));
		return -EINVAL;
	}
	if (rq->flags & MQTX_QREQ_EXCL) {
		mqtx_extack_set(ack, "Exclusivity flag on, cannot override. (handle %s exists)",
				hn(q->handle, &b));
		return -EEXIST;
	}
	if (other_kind(rq->kind, q))
		return wrong_kind(rq->kind, q->ops->id, q->handle, ack);
	if (q->flags & MQTX_QF_INGRESS) {
		mqtx_extack_set(ack, "Cannot regraft ingress or clsact Qdiscs. (handle %s)",
				hn(q->handle, &b));
		return -EINVAL;
	}
	if (q == p || contains(q, p)) {
		mqtx_extack_set(ack, "Qdisc parent/child loop detected. (%s is above parent %s)",
				hn(q->handle, &b), hn(rq->parent, &b2));
		return -ELOOP;
	}
	if (rq->parent == MQTX_H_INGRESS) {
		mqtx_extack_set(ack, "Ingress cannot graft directly. (handle %s)",
				hn(q->handle, &b));
		return -EINVAL;
	}
	return 0;
}

/*
 * The qdisc at @clid (root, ingress or a class) into *@q, its classful parent into *@p. Where
 * ingress is differs: tc_get_qdisc() (delete) takes any ffff:X as ingress, tc_modify_qdisc()
 * only ffff:fff1 itself (@exact), and looks any other ffff:X up as a class of qdisc ffff:, so
 * that "parent ffff:" never falls through to the root.
 */
static int locate(struct mqtx_dev *dev, uint32_t clid, bool exact, const char *nomsg,
		  struct mqtx_qdisc **p, struct mqtx_qdisc **q, struct mqtx_extack *ack)
{
	struct hname b, b2;

	*p = *q = NULL;
	if (clid == MQTX_H_ROOT) {
		*q = mqtx__qtree_root(dev);
		return 0;
	}
	if (exact ? clid == MQTX_H_INGRESS : MQTX_H_MAJ(clid) == MQTX_H_MAJ(MQTX_H_INGRESS)) {
		*q = dev->rxq.qdisc;
		return 0;
	}
	*p = mqtx__qdisc_find(dev, MQTX_H_MAJ(clid));
	if (!*p) {
		mqtx_extack_set(ack, "%s (no qdisc %s)", nomsg, hn(MQTX_H_MAJ(clid), &b));
		return -ENOENT;
	}
	/* The running kernel's words (6.18); 6.12 went on, and the graft then found no class
	 * to take a child ("Operation not supported"). */
	if ((*p)->flags & MQTX_QF_INGRESS) {
		mqtx_extack_set(ack,
				"Cannot add children to ingress/clsact qdisc. (%s %s, parent %s)",
				(*p)->ops->id, hn((*p)->handle, &b), hn(clid, &b2));
		return -EOPNOTSUPP;
	}
	return leaf_of(*p, clid, ack, q);
}

/*
 * tc_modify_qdisc() as the running kernel has it: a kind other than the one in place asks for a
 * new qdisc, from "add" and "change" too (since Linux 6.x; before, only "replace" created, and
 * "add" answered "Exclusivity flag on" and "change" "Invalid qdisc name").
 */
static int modify_locked(struct mqtx_dev *dev, const struct mqtx_qreq *rq, struct mqtx_extack *ack)
{
	bool create = rq->flags & MQTX_QREQ_CREATE;
	struct mqtx_qdisc *p = NULL, *q = NULL;
	struct hname b, b2;
	int err;

	if (rq->parent) {
		err = locate(dev, rq->parent, true, "Failed to find specified qdisc.", &p, &q, ack);
		if (err)
			return err;
		if (q && !q->handle)
			q = NULL; /* a default qdisc: replaced, never changed */
		if (!q || !rq->handle || q->handle != rq->handle) {
			if (rq->handle) {
				if (q && !(rq->flags & MQTX_QREQ_REPLACE)) {
					mqtx_extack_set(ack,
							"NLM_F_REPLACE needed to override. "
							"(parent %s holds %s %s)",
							hn(rq->parent, &b), q->ops->id,
							hn(q->handle, &b2));
					return -EEXIST;
				}
				q = mqtx__qdisc_find(dev, rq->handle);
				if (!q)
					goto create;
				return regraft(q, p, rq, ack);
			}
			if (!q)
				goto create;
			/* add, replace: created; change (no flag at all): created too. */
			if (other_kind(rq->kind, q) &&
			    ((create && (rq->flags & (MQTX_QREQ_REPLACE | MQTX_QREQ_EXCL))) ||
			     !(rq->flags &
			       (MQTX_QREQ_CREATE | MQTX_QREQ_REPLACE | MQTX_QREQ_EXCL))))
				return create_n_graft(dev, p, rq, ack);
		}
	} else {
		if (!rq->handle) {
			mqtx_extack_set(ack, "Handle cannot be zero. (no parent named either)");
			return -EINVAL;
		}
		q = mqtx__qdisc_find(dev, rq->handle);
	}
	if (!q) {
		mqtx_extack_set(ack, "Specified qdisc not found. (handle %s)", hn(rq->handle, &b));
		return -ENOENT;
	}
	if (rq->flags & MQTX_QREQ_EXCL) {
		mqtx_extack_set(ack, "Exclusivity flag on, cannot modify. (%s %s exists)",
				q->ops->id, hn(q->handle, &b));
		return -EEXIST;
	}
	if (other_kind(rq->kind, q))
		return wrong_kind(rq->kind, q->ops->id, q->handle, ack);
	if (rq->blocks[0] || rq->blocks[1]) {
		mqtx_extack_set(ack, "Change of blocks is not supported");
		return -EOPNOTSUPP;
	}
	return change(q, rq->opt, ack);
create:
	if (!create) {
		mqtx_extack_set(ack,
				"Qdisc not found. To create specify NLM_F_CREATE flag. (no qdisc "
				"%s%sat parent %s)",
				rq->kind ? rq->kind : "", rq->kind ? " " : "", hn(rq->parent, &b));
		return -ENOENT;
	}
	return create_n_graft(dev, p, rq, ack);
}

int mqtx__qdisc_modify(struct mqtx_dev *dev, const struct mqtx_qreq *rq, struct mqtx_extack *ack)
{
	int err;

	mqtx_dev_config_lock(dev);
	err = modify_locked(dev, rq, ack);
	mqtx_dev_config_unlock(dev);
	return err;
}

/* ---- delete: the place gets its default back ---- */

static int delete_qdisc(struct mqtx_dev *dev, struct mqtx_qdisc *q, struct mqtx_extack *ack)
{
	struct mqtx_qdisc *p;
	uint32_t clid;
	struct mqtx_qplan pl;
	int err;

	if (q->parent == MQTX_H_INGRESS) {
		mqtx_spin_lock(&dev->rxq.lock);
		dev->rxq.qdisc = NULL;
		mqtx_spin_unlock(&dev->rxq.lock);
		mqtx_qdisc_destroy(q);
		return 0;
	}
	if (q->parent == MQTX_H_ROOT) {
		/* qdisc_graft() puts noop at the root and attaches the defaults (dev_activate())
		 * only on a running device: a down one gets them when it comes up. */
		if (!atomic_load(&dev->up)) {
			mqtx__qtree_clear(dev);
			return 0;
		}
		err = mqtx__qtree_plan_defaults(dev, &pl, ack);
		if (!err)
			mqtx__qtree_commit(dev, &pl);
		return err;
	}
	clid = q->parent; /* @q is gone once its place has the default */
	p = mqtx__qdisc_find(dev, MQTX_H_MAJ(clid));
	if (!p)
		return -ENOENT;
	if (p->ops->cl_ops->takes_child) { /* a class that may stay empty: it does (netem's) */
		graft_class(dev, p, MQTX_H_MIN(clid), NULL, NULL);
		return 0;
	}
	/* Linux grafts noop under mq (dev_graft_qdisc(.., NULL)), a hidden pfifo under prio
	 * (prio_graft()); mqtx puts a working default back, as unlisted as noop under mq. */
	err = create_in_class(dev, p, clid, mqtx__default_class_ops(dev, p, clid), 0, NULL, NULL,
			      ack);
	if (!err && (p->flags & MQTX_QF_MQROOT))
		p->ops->cl_ops->leaf(p, MQTX_H_MIN(clid))->flags |= MQTX_QF_HIDDEN;
	return err;
}

static int delete_locked(struct mqtx_dev *dev, uint32_t clid, uint32_t handle, const char *kind,
			 struct mqtx_extack *ack)
{
	struct mqtx_qdisc *p, *q;
	struct hname b, b2;
	int err;

	if (clid) {
		err = locate(dev, clid, false, "Failed to find qdisc with specified classid.", &p,
			     &q, ack);
		if (err)
			return err;
		if (!q && clid == MQTX_H_ROOT) {
			/* a device without a root qdisc has noop there, of handle 0 */
			if (handle) {
				mqtx_extack_set(ack, "Invalid handle. (%s is not at root)",
						hn(handle, &b));
				return -EINVAL;
			}
			if (kind && strcmp(kind, "noop"))
				return wrong_kind(kind, "noop", 0, ack);
			mqtx_extack_set(ack,
					"Cannot delete qdisc with handle of zero. (noop at root of "
					"%s)",
					mqtx_dev_name(dev));
			return -ENOENT;
		}
		if (!q) {
			mqtx_extack_set(ack,
					"Cannot find specified qdisc on specified device. (%s of "
					"%s)",
					hn(clid, &b), mqtx_dev_name(dev));
			return -ENOENT;
		}
		if (handle && q->handle != handle) {
			mqtx_extack_set(ack, "Invalid handle. (%s is not at %s)", hn(handle, &b),
					hn(clid, &b2));
			return -EINVAL;
		}
	} else {
		q = mqtx__qdisc_find(dev, handle);
		if (!q) {
			mqtx_extack_set(ack,
					"Failed to find qdisc with specified handle. (%s on %s)",
					hn(handle, &b), mqtx_dev_name(dev));
			return -ENOENT;
		}
	}
	if (other_kind(kind, q))
		return wrong_kind(kind, q->ops->id, q->handle, ack);
	if (!clid) {
		/* tc finds the qdisc, and the kernel then wants its parent named too. */
		mqtx_extack_set(ack, "Classid cannot be zero. (%s %s is at %s)", q->ops->id,
				hn(q->handle, &b), hn(q->parent, &b2));
		return -EINVAL;
	}
	if (!q->handle) {
		mqtx_extack_set(ack,
				"Cannot delete qdisc with handle of zero. (the default %s at %s)",
				q->ops->id, hn(q->parent, &b));
		return -ENOENT;
	}
	return delete_qdisc(dev, q, ack);
}

int mqtx__qdisc_delete(struct mqtx_dev *dev, uint32_t parent, uint32_t handle, const char *kind,
		       struct mqtx_extack *ack)
{
	int err;

	mqtx_dev_config_lock(dev);
	err = delete_locked(dev, parent, handle, kind, ack);
	mqtx_dev_config_unlock(dev);
	return err;
}

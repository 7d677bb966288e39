// SPDX-License-Identifier: MIT
/* Classes as tc lists them (the default walk over a classful qdisc, an MQROOT qdisc's counters
 * as the sum of its children's) and the answers to "class add|change|replace|del". */
#include <errno.h>
#include <string.h>

#include "base/internal.h"
#include "core/core.h"
#include "sched/qtree.h"

void mqtx_qdisc_tree_stats(struct mqtx_qdisc *q, struct mqtx_qdisc_stats *st)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;

	if (!(q->flags & MQTX_QF_MQROOT) || !cl) {
		mqtx_qdisc_get_stats(q, st);
		return;
	}
	/* mq_dump(): the root's counters are the sum over its children. */
	memset(st, 0, sizeof(*st));
	for (uint32_t m = 1, n = cl->count(q); m <= n; m++) {
		struct mqtx_qdisc_stats c;

		mqtx_qdisc_get_stats(cl->leaf(q, m), &c);
		mqtx_qdisc_stats_add(st, &c);
	}
}

void mqtx_qdisc_walk_classes(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;

	if (!cl)
		return;
	if (cl->walk) {
		cl->walk(q, fn, arg);
		return;
	}
	for (uint32_t m = 1, n = cl->count(q); m <= n; m++) {
		struct mqtx_qdisc_stats st;
		struct mqtx_class c = {
			.minor = m,
			/* mq_dump_class() reports root as the parent; other classes their qdisc. */
			.parent = (q->flags & MQTX_QF_MQROOT) ? MQTX_H_ROOT : q->handle,
			.leaf = cl->leaf(q, m),
			.stats = &st,
		};

		if (cl->stats)
			cl->stats(q, m, &st);
		else if (c.leaf)
			mqtx_qdisc_tree_stats(c.leaf, &st);
		else
			c.stats = NULL;
		fn(q, &c, arg);
	}
}

/* ---- class add|change|replace|del: tc_ctl_tclass() ---- */

struct find_arg {
	uint32_t minor;
	bool found;
};

static void find_one(struct mqtx_qdisc *q, const struct mqtx_class *c, void *arg)
{
	struct find_arg *f = arg;

	(void)q;
	f->found |= c->minor == f->minor;
}

/* cl_ops->find(), or else whether @q lists a class of minor @minor. */
bool mqtx__class_exists(struct mqtx_qdisc *q, uint32_t minor)
{
	struct find_arg f = { .minor = minor };

	if (q->ops->cl_ops->find)
		return minor && q->ops->cl_ops->find(q, minor);
	mqtx_qdisc_walk_classes(q, find_one, &f);
	return f.found;
}

/* qdisc_lookup(): the root answers to its handle, 0 too for a default root. */
static struct mqtx_qdisc *lookup(struct mqtx_dev *dev, uint32_t qid)
{
	struct mqtx_qdisc *root = mqtx__qtree_root(dev);

	if (root && root->handle == qid)
		return root;
	return mqtx__qdisc_find(dev, qid);
}

/* Steps 1 and 2 of tc_ctl_tclass(): the qdisc the class belongs to. */
static int class_qdisc(struct mqtx_dev *dev, uint32_t *parent, uint32_t clid,
		       struct mqtx_qdisc **out)
{
	struct mqtx_qdisc *root = mqtx__qtree_root(dev);
	uint32_t qid = MQTX_H_MAJ(clid), qid1 = MQTX_H_MAJ(*parent);

	if (*parent != MQTX_H_ROOT) {
		if (qid && qid1 && qid != qid1) {
			mqtx__log(MQTX_LOG_ERR, "class %x:%x is not in qdisc %x: of its parent",
				  qid >> 16, MQTX_H_MIN(clid), qid1 >> 16);
			return -EINVAL;
		}
		if (!qid)
			qid = qid1 ? qid1 : root ? root->handle : 0;
		if (*parent)
			*parent = MQTX_H_MAKE(qid, *parent);
	} else if (!qid) {
		qid = root ? root->handle : 0;
	}
	*out = lookup(dev, qid);
	if (!*out) {
		mqtx__log(MQTX_LOG_ERR, "no qdisc %x: on %s", qid >> 16, mqtx_dev_name(dev));
		return -ENOENT;
	}
	if (!(*out)->ops->cl_ops) {
		mqtx__log(MQTX_LOG_ERR, "qdisc %x: (%s) has no classes", qid >> 16,
			  (*out)->ops->id);
		return -EINVAL;
	}
	return 0;
}

/* The class's own verb, once tc_ctl_tclass() has found the qdisc and checked the flags. */
static int class_verb(struct mqtx_qdisc *q, const struct mqtx_qdisc_ops *kind, bool del, bool found,
		      uint32_t parent, uint32_t minor, const void *opt, struct mqtx_extack *ack)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;

	if (del ? !cl->delete : !cl->change) {
		/* No such hook: the classes come and go with the qdisc, as mq's, prio's and
		 * tbf's do in Linux. */
		mqtx__log(MQTX_LOG_ERR, "the classes of %s come with it: none is %s", q->ops->id,
			  del ? "deleted" : "added or changed");
		return -EOPNOTSUPP;
	}
	if (kind && kind != q->ops) {
		/* Linux would read one kind's attributes as the other's; mqtx refuses. */
		mqtx__log(MQTX_LOG_ERR, "class options of %s given for a class of %s %x:", kind->id,
			  q->ops->id, q->handle >> 16);
		return -EINVAL;
	}
	if (del)
		return cl->delete (q, minor, ack);
	return cl->change(q, minor, parent, !found, opt, ack);
}

int mqtx__class_modify(struct mqtx_dev *dev, bool del, unsigned flags, uint32_t parent,
		       uint32_t clid, const struct mqtx_qdisc_ops *kind, const void *opt,
		       struct mqtx_extack *ack)
{
	struct mqtx_qdisc *q;
	bool found;
	int err;

	mqtx_dev_config_lock(dev);
	err = class_qdisc(dev, &parent, clid, &q);
	if (err)
		goto unlock;
	if (!clid)
		clid = parent == MQTX_H_ROOT ? q->handle : 0;
	else
		clid = MQTX_H_MAKE(q->handle, clid);
	found = clid && mqtx__class_exists(q, MQTX_H_MIN(clid));
	err = -ENOENT;
	if (!found && (del || !(flags & MQTX_QREQ_CREATE))) {
		if (clid)
			mqtx__log(MQTX_LOG_ERR, "%s %x: has no class %x:%x", q->ops->id,
				  q->handle >> 16, MQTX_H_MAJ(clid) >> 16, MQTX_H_MIN(clid));
		else
			mqtx__log(MQTX_LOG_ERR, "no classid given for %s %x:", q->ops->id,
				  q->handle >> 16);
		goto unlock;
	}
	err = -EEXIST;
	if (found && !del && (flags & MQTX_QREQ_EXCL))
		goto unlock;
	err = -EINVAL;
	if (!del && clid == MQTX_H_ROOT) {
		mqtx_extack_set(ack, "Cannot create traffic class with classid TC_H_ROOT.");
		goto unlock;
	}
	err = class_verb(q, kind, del, found, parent, MQTX_H_MIN(clid), opt, ack);
unlock:
	mqtx_dev_config_unlock(dev);
	return err;
}

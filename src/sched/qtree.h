/* SPDX-License-Identifier: MIT */
/* The qdisc tree of a device: handles, lookup, add/replace/change/delete, defaults (internal). */
#ifndef MQTX_QTREE_H
#define MQTX_QTREE_H

#include <mqtx/qdisc.h>

#include "tc/tc.h"

/* A plan of every TX queue's qdisc, its commit and abort: core/core.h (mqtx_dev_open() uses
 * them). */
struct mqtx_qplan;

/**
 * mqtx__qdisc_drain() - lock held: everything @q holds onto the tail of @l, in the order it
 * would send it as far as it can tell: its requeue list, what its dequeue gives, then what it
 * still holds back (a shaper out of tokens) as its reset hands it over. @q is left empty,
 * nothing is counted: the caller moves the packets into another qdisc.
 */
void mqtx__qdisc_drain(struct mqtx_qdisc *q, struct mqtx_pkt_list *l);

/* What a modify request asks for (rtnetlink's NLM_F_* of "tc qdisc add|replace|change"). */
#define MQTX_QREQ_CREATE  0x1u
#define MQTX_QREQ_EXCL	  0x2u
#define MQTX_QREQ_REPLACE 0x4u

/**
 * struct mqtx_qreq - one "qdisc add/replace/change" request, already parsed.
 * @flags: MQTX_QREQ_*: add = CREATE|EXCL, replace = CREATE|REPLACE, change = 0, link =
 *         REPLACE.
 * @parent: MQTX_H_ROOT, MQTX_H_INGRESS or a class id (0: none given, @handle required).
 * @handle: the major:0 handle asked for, or 0.
 * @kind: the kind named (NULL: none), which may be one no registered ops has.
 * @ops: its ops (NULL: none given, or unknown).
 * @opt: the options parsed by @ops->parse, or NULL when none were given.
 * @blocks: the shared filter blocks asked for (tc's ingress_block, egress_block), 0: none.
 */
struct mqtx_qreq {
	unsigned flags;
	uint32_t parent, handle;
	const char *kind;
	const struct mqtx_qdisc_ops *ops;
	const void *opt;
	uint32_t blocks[2];
};

/**
 * mqtx__qdisc_modify() - create, graft or change a qdisc as tc_modify_qdisc() decides.
 * Validates and allocates everything before anything changes; a failure changes nothing.
 * Takes the device's config lock. Return: 0 or -errno with the reason in @ack.
 */
int mqtx__qdisc_modify(struct mqtx_dev *dev, const struct mqtx_qreq *rq, struct mqtx_extack *ack);

/**
 * mqtx__qdisc_delete() - delete the qdisc at @parent (with @handle, if not 0, and of @kind, if
 * not NULL): its place gets the default again (Linux re-attaches the defaults after a root
 * delete). As Linux, @parent must be given: a handle alone finds the qdisc and is then
 * refused. Return: 0 or -errno.
 */
int mqtx__qdisc_delete(struct mqtx_dev *dev, uint32_t parent, uint32_t handle, const char *kind,
		       struct mqtx_extack *ack);

/**
 * mqtx__class_modify() - "class add|change|replace" (@flags as for a qdisc) or "class del"
 * (@del) of class @clid below @parent (0: not given, MQTX_H_ROOT: root), answered as
 * tc_ctl_tclass() answers: the qdisc and class named are found, then the qdisc's
 * cl_ops->change or ->delete does it with the class options @opt (parsed by the cl_ops->parse
 * of @kind, the kind the command named; both NULL when it named none). A qdisc without those
 * hooks refuses (why is logged). Takes the config lock. Return: 0 (a warning may be left in
 * @ack), -ENOENT, -EINVAL, -EEXIST, -EOPNOTSUPP or the hook's error, with @ack's message
 * where Linux gives one.
 */
int mqtx__class_modify(struct mqtx_dev *dev, bool del, unsigned flags, uint32_t parent,
		       uint32_t clid, const struct mqtx_qdisc_ops *kind, const void *opt,
		       struct mqtx_extack *ack);

/** mqtx__class_exists() - whether @q (classful) has class @minor. Config lock held. */
bool mqtx__class_exists(struct mqtx_qdisc *q, uint32_t minor);

/**
 * mqtx__class_dump_options() - render class @minor's options (cl_ops->dump) as
 * mqtx_qdisc_dump_options() renders a qdisc's. Takes @q's lock.
 * Return: the text length (0: none); -ENOSPC (a buffer was too small).
 */
int mqtx__class_dump_options(struct mqtx_qdisc *q, uint32_t minor, unsigned flags, char *text,
			     size_t text_len, char *json, size_t json_len);

/** mqtx__qtree_root() - the root qdisc (mq/mqprio, or queue 0's). Config lock held. */
struct mqtx_qdisc *mqtx__qtree_root(struct mqtx_dev *dev);

/** mqtx__qdisc_refcnt() - the reference count Linux would report for @q (tc's "refcnt"). */
uint32_t mqtx__qdisc_refcnt(struct mqtx_dev *dev, struct mqtx_qdisc *q);

/** mqtx__qdisc_visible() - whether "qdisc show" lists @q (Linux hashes it). */
bool mqtx__qdisc_visible(struct mqtx_dev *dev, struct mqtx_qdisc *q, struct mqtx_qdisc *parent);

/** mqtx__qdisc_find() - the qdisc with handle @h (major:0) on @dev, or NULL. Config lock held. */
struct mqtx_qdisc *mqtx__qdisc_find(struct mqtx_dev *dev, uint32_t h);

/** mqtx__default_class_ops() - the kind a class @clid of @p gets back when its qdisc is
 *  deleted: a TX queue's default under mq/mqprio, pfifo elsewhere (default.c). */
const struct mqtx_qdisc_ops *mqtx__default_class_ops(struct mqtx_dev *dev, struct mqtx_qdisc *p,
						     uint32_t clid);

/** mqtx__qtree_plan_defaults() - mqtx__qtree_prepare_defaults() (core/core.h) with a message
 *  in @ack (a root delete puts the defaults back). */
int mqtx__qtree_plan_defaults(struct mqtx_dev *dev, struct mqtx_qplan *pl, struct mqtx_extack *ack);

/** mqtx__qplan_alloc() - an empty plan for @dev. Return: 0 or -ENOMEM. */
int mqtx__qplan_alloc(struct mqtx_dev *dev, struct mqtx_qplan *pl);

/** mqtx__qdisc_new() - mqtx_qdisc_create() with its @parent set before ops->init, and the
 *  shared filter blocks the qdisc is to use (tc's ingress_block, egress_block; 0: its own). */
int mqtx__qdisc_new(struct mqtx_dev *dev, struct mqtx_txq *dev_queue,
		    const struct mqtx_qdisc_ops *ops, uint32_t handle, uint32_t parent,
		    const void *opt, uint32_t ingress_block, uint32_t egress_block,
		    struct mqtx_extack *ack, struct mqtx_qdisc **out);

/** mqtx__qdisc_create_at() - mqtx__qdisc_new() that also records @parent; @blocks: the
 *  ingress and egress block indexes, or NULL. */
int mqtx__qdisc_create_at(struct mqtx_dev *dev, struct mqtx_txq *txq,
			  const struct mqtx_qdisc_ops *ops, uint32_t handle, uint32_t parent,
			  const void *opt, const uint32_t *blocks, struct mqtx_extack *ack,
			  struct mqtx_qdisc **out);

#endif

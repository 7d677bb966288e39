/* SPDX-License-Identifier: MIT */
/* The qdisc tree of a device: handles, lookup, add/replace/change/delete, defaults (internal). */
#ifndef MQTX_QTREE_H
#define MQTX_QTREE_H

#include <mqtx/qdisc.h>

/* Handles as Linux's TC_H_*: major in the high 16 bits, minor in the low 16. */
#define MQTX_H_ROOT	0xFFFFFFFFu
#define MQTX_H_INGRESS	0xFFFFFFF1u
#define MQTX_H_UNSPEC	0u
#define MQTX_H_MAJ(h)	((h) & 0xFFFF0000u)
#define MQTX_H_MIN(h)	((h) & 0x0000FFFFu)
#define MQTX_H_MAKE(maj, min) (MQTX_H_MAJ(maj) | MQTX_H_MIN(min))

/* Traffic-class limits (TC_QOPT_MAX_QUEUE, TC_QOPT_BITMASK). */
#define MQTX_TC_MAX	16
#define MQTX_TC_BITMASK 15
/* mqprio: traffic class tc is the virtual class major:(MQTX_TC_CLASS_MIN + tc) (Linux's
 * TC_H_MIN_PRIORITY). */
#define MQTX_TC_CLASS_MIN 0xFFE0u

/* The device's configuration state (embedded in struct mqtx_dev; zero is "nothing yet"). */
struct mqtx_qtree {
	struct mqtx_qdisc *root; /* an MQROOT qdisc (mq, mqprio), or NULL: queue 0's qdisc */
	const struct mqtx_qdisc_ops *dflt; /* the device's default kind, or NULL: the global one */
	uint32_t autohandle;
};

/**
 * mqtx__handle_parse() - a qdisc handle as tc(8) writes it: hex major, optionally followed by
 * ':' ("1:", "8001", "ffff:"); "none" is 0. Return: 0, or -EINVAL (empty, not hex, a minor
 * given, major above ffff).
 */
int mqtx__handle_parse(const char *s, uint32_t *h);

/**
 * mqtx__classid_parse() - a class id: "root", "none", "X:Y", "X:", ":Y" or "X" (hex).
 * Return: 0, or -EINVAL.
 */
int mqtx__classid_parse(const char *s, uint32_t *h);

/** mqtx__classid_fmt() - tc's spelling of @h ("root", "1:", ":4", "1:a"); returns @buf. */
const char *mqtx__classid_fmt(uint32_t h, char *buf, size_t len);

/* What a modify request asks for (rtnetlink's NLM_F_* of "tc qdisc add|replace|change"). */
#define MQTX_QREQ_CREATE  0x1u
#define MQTX_QREQ_EXCL	  0x2u
#define MQTX_QREQ_REPLACE 0x4u

/**
 * struct mqtx_qreq - one "qdisc add/replace/change" request, already parsed.
 * @flags: MQTX_QREQ_*: add = CREATE|EXCL, replace = CREATE|REPLACE, change = 0.
 * @parent: MQTX_H_ROOT, MQTX_H_INGRESS or a class id (0: none given, @handle required).
 * @handle: the major:0 handle asked for, or 0.
 * @ops: the kind (NULL: none given).
 * @opt: the options parsed by @ops->parse, or NULL when none were given.
 */
struct mqtx_qreq {
	unsigned flags;
	uint32_t parent, handle;
	const struct mqtx_qdisc_ops *ops;
	const void *opt;
};

/**
 * mqtx__qdisc_modify() - create, graft or change a qdisc as tc_modify_qdisc() decides.
 * Validates and allocates everything before anything changes; a failure changes nothing.
 * Takes the device's config lock. Return: 0 or -errno with the reason in @ack.
 */
int mqtx__qdisc_modify(struct mqtx_dev *dev, const struct mqtx_qreq *rq, struct mqtx_extack *ack);

/**
 * mqtx__qdisc_delete() - delete the qdisc at @parent (and/or with @handle): its place gets
 * the default again (Linux re-attaches the defaults after a root delete). Return: 0 or -errno.
 */
int mqtx__qdisc_delete(struct mqtx_dev *dev, uint32_t parent, uint32_t handle,
		       struct mqtx_extack *ack);

/** mqtx__qtree_root() - the root qdisc (mq/mqprio, or queue 0's). Config lock held. */
struct mqtx_qdisc *mqtx__qtree_root(struct mqtx_dev *dev);

/** mqtx__qdisc_refcnt() - the reference count Linux would report for @q (tc's "refcnt"). */
uint32_t mqtx__qdisc_refcnt(struct mqtx_dev *dev, struct mqtx_qdisc *q);

/** mqtx__qdisc_visible() - whether "qdisc show" lists @q (Linux hashes it). */
bool mqtx__qdisc_visible(struct mqtx_dev *dev, struct mqtx_qdisc *q, struct mqtx_qdisc *parent);

/** mqtx__qdisc_stats() - @q's counters; an MQROOT qdisc reports the sum of its children. */
void mqtx__qdisc_stats(struct mqtx_qdisc *q, struct mqtx_qdisc_stats *st);

/** mqtx__qdisc_find() - the qdisc with handle @h (major:0) on @dev, or NULL. Config lock held. */
struct mqtx_qdisc *mqtx__qdisc_find(struct mqtx_dev *dev, uint32_t h);

/**
 * mqtx__default_ops() - the default kind for TX queue @i: the device's or the global
 * setting for active queues, pfifo_fast for inactive tail queues (get_default_qdisc_ops).
 */
const struct mqtx_qdisc_ops *mqtx__default_ops(struct mqtx_dev *dev, uint32_t i);

/**
 * struct mqtx_qplan - a prepared change of every TX queue's qdisc: all new objects exist, none
 * is attached yet. Commit it (cannot fail) or abort it (frees what it made).
 * @qs, @old: per-queue new and old qdiscs (2 * num_txq slots).
 * @root: the new MQROOT object, or NULL. @single: a new qdisc shared by every queue, or NULL.
 */
struct mqtx_qplan {
	struct mqtx_qdisc **qs, **old;
	struct mqtx_qdisc *root;
	struct mqtx_qdisc *single;
};

/**
 * mqtx__qtree_prepare_defaults() - prepare what mqtx_dev_open() attaches when the queues have
 * no qdisc: mq at the root of a multiqueue device, the default kind on each queue otherwise,
 * noqueue for MQTX_DEV_F_NO_QUEUE. Changes nothing. Config lock held. Return: 0 or -ENOMEM.
 */
int mqtx__qtree_prepare_defaults(struct mqtx_dev *dev, struct mqtx_qplan *pl);

/** mqtx__qtree_commit() - attach a prepared plan (grafting under traffic). Cannot fail. */
void mqtx__qtree_commit(struct mqtx_dev *dev, struct mqtx_qplan *pl);

/** mqtx__qtree_abort() - free a prepared plan that will not be committed. */
void mqtx__qtree_abort(struct mqtx_dev *dev, struct mqtx_qplan *pl);

/** mqtx__qtree_release() - mqtx_dev_destroy(): free the root object (children are freed with
 *  their TX queues). */
void mqtx__qtree_release(struct mqtx_dev *dev);

/* sch_mq.c: shared by mq and mqprio (their private area starts with struct mqtx_mq_priv). */
struct mqtx_mq_priv {
	struct mqtx_qdisc **child; /* num_txq children, child i rooted at TX queue i */
	uint32_t n;
	bool attached; /* the TX queues own the children now */
};
int mqtx__mq_init_children(struct mqtx_qdisc *q, struct mqtx_extack *ack);
void mqtx__mq_destroy_children(struct mqtx_qdisc *q);
void mqtx__mq_attached(struct mqtx_qdisc *q);
int mqtx__mq_enqueue(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free);
struct mqtx_pkt *mqtx__mq_dequeue(struct mqtx_qdisc *q);
extern const struct mqtx_class_ops mqtx__mq_class_ops;
extern const struct mqtx_qdisc_ops mqtx_mq_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_mqprio_qdisc_ops;

/* sch_mqprio.c: apply the mqprio's traffic classes to its device (commit pass). */
void mqtx__mqprio_commit(struct mqtx_qdisc *q);

/* dev_tc.c: the device's traffic-class map (netdev_set_num_tc and friends). */
void mqtx__dev_set_tc(struct mqtx_dev *dev, unsigned num_tc, const uint8_t *prio_tc_map,
		      const uint16_t *count, const uint16_t *offset);
void mqtx__dev_reset_tc(struct mqtx_dev *dev);
/** mqtx__dev_setup_tc() - netif_setup_tc(): the real queue count becomes @n (device down). */
void mqtx__dev_setup_tc(struct mqtx_dev *dev, uint32_t n);

#endif

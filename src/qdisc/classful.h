/* SPDX-License-Identifier: MIT */
/* Classful qdiscs (prio): the children behind their classes, for the config layer to list and
 * graft by handle. Class minor m (handle X:m) is child index m - 1. Internal to mqtx. */
#ifndef MQTX_QDISC_CLASSFUL_H
#define MQTX_QDISC_CLASSFUL_H

#include <mqtx/qdisc.h>

/** mqtx_qdisc_class_count() - how many classes @q has (prio: its bands); 0 if classless. */
unsigned mqtx_qdisc_class_count(struct mqtx_qdisc *q);

/** mqtx_qdisc_class_child() - the child qdisc of class index @i, or NULL if out of range. */
struct mqtx_qdisc *mqtx_qdisc_class_child(struct mqtx_qdisc *q, unsigned i);

/**
 * mqtx_qdisc_class_graft() - make @child the qdisc of class index @i of @q. Lock of @q held.
 * @child: created on the same device and TX queue as @q, not attached anywhere.
 * @old: receives the previous child for the caller to mqtx_qdisc_destroy() after unlocking.
 * @to_free: packets dropped on the way (see below).
 * The old child's backlog is dequeued into @child in order (what it holds back, e.g. a
 * throttled tbf, follows from its reset); packets @child refuses are dropped
 * and counted by it. @q's qlen/backlog follow.
 * Return: 0; -EOPNOTSUPP (@q is classless); -ERANGE (@i out of range); -EINVAL (@child NULL,
 * @child is @q, or rooted at another TX queue).
 */
int mqtx_qdisc_class_graft(struct mqtx_qdisc *q, unsigned i, struct mqtx_qdisc *child,
			   struct mqtx_qdisc **old, struct mqtx_pkt **to_free);

/**
 * mqtx__qdisc_child_reset() - empty @child onto *@to_free without counting (ops->reset, or
 * dequeue until empty), zeroing its qlen and backlog. For parents' reset and purge paths.
 */
void mqtx__qdisc_child_reset(struct mqtx_qdisc *child, struct mqtx_pkt **to_free);

#endif

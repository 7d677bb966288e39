// SPDX-License-Identifier: MIT
/* Classes as tc lists them: the default walk over a classful qdisc, and an MQROOT qdisc's
 * counters as the sum of its children's. */
#include <string.h>

#include "core/core.h"

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

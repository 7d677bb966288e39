// SPDX-License-Identifier: MIT
/* Where a filter goes: the block of a parent on a device, for the filter commands. */
#include <errno.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"
#include "core/core.h"
#include "ctl/ctl_int.h"
#include "sched/qtree.h"

/*
 * The block of @parent on @dev (Linux's tcf_block_find() for a device): the root qdisc's
 * with no parent, else the qdisc of the parent's major and its class's block. Config lock
 * held; the qdisc keeps the block alive while it is held.
 */
int mqtx__ctl_filter_block(struct mqtx_dev *dev, uint32_t parent, bool shared_ok,
			   struct mqtx_tcf_block **out, struct mqtx_extack *ack)
{
	const struct mqtx_class_ops *cl;
	struct mqtx_qdisc *q;
	uint32_t minor = MQTX_H_MIN(parent);

	if (!parent || parent == MQTX_H_ROOT) {
		q = mqtx__qtree_root(dev);
		minor = 0;
	} else {
		q = mqtx__qdisc_find(dev, MQTX_H_MAJ(parent));
	}
	if (!q) {
		mqtx_extack_set(ack, "Parent Qdisc doesn't exists");
		return -EINVAL;
	}
	cl = q->ops->cl_ops;
	if (!cl) {
		mqtx_extack_set(ack, "Qdisc not classful");
		return -EINVAL;
	}
	if (!cl->tcf_block) {
		mqtx_extack_set(ack, "Class doesn't support blocks");
		return -EOPNOTSUPP;
	}
	if (minor && !(q->flags & MQTX_QF_INGRESS) && minor > cl->count(q)) {
		mqtx_extack_set(ack, "Specified class doesn't exist");
		return -ENOENT;
	}
	*out = cl->tcf_block(q, minor, ack);
	if (!*out)
		return -EINVAL;
	if (!shared_ok && mqtx_tcf_block_index(*out)) {
		mqtx_extack_set(ack, "This filter block is shared. Please use the block index to "
				     "manipulate the filters");
		return -EOPNOTSUPP;
	}
	return 0;
}

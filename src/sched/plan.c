// SPDX-License-Identifier: MIT
/* The configuration transaction of a device's qdiscs: a plan prepares every TX queue's new
 * qdisc (everything that can fail), then the commit pass grafts them all and cannot fail. */
#include <errno.h>

#include "core/core.h"
#include "sched/qtree.h"

int mqtx__qplan_alloc(struct mqtx_dev *dev, struct mqtx_qplan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->qs = mqtx__zalloc(2 * dev->num_txq * sizeof(*pl->qs));
	if (!pl->qs)
		return -ENOMEM;
	pl->old = pl->qs + dev->num_txq;
	return 0;
}

/* Undo a prepare: nothing new was attached, so everything new is freed. */
void mqtx__qtree_abort(struct mqtx_dev *dev, struct mqtx_qplan *pl)
{
	if (pl->root) {
		mqtx_qdisc_destroy(pl->root); /* and its unattached children */
	} else if (pl->single) {
		mqtx_qdisc_destroy(pl->single);
	} else if (pl->qs) {
		for (uint32_t i = 0; i < dev->num_txq; i++)
			mqtx_qdisc_destroy(pl->qs[i]);
	}
	mqtx__free(pl->qs);
	pl->qs = NULL;
}

/* The commit pass: cannot fail. */
void mqtx__qtree_commit(struct mqtx_dev *dev, struct mqtx_qplan *pl)
{
	struct mqtx_qdisc *old_root = dev->qtree.root;

	/* The old root gives up what it set on the device, the new one hands over its
	 * children (Linux's Qdisc_ops.attach) and sets what it owns. */
	if (old_root && old_root->ops->detach)
		old_root->ops->detach(old_root);
	if (pl->root) {
		pl->root->ops->attach(pl->root, pl->qs);
	} else if (pl->single) {
		for (uint32_t i = 0; i < dev->num_txq; i++)
			pl->qs[i] = pl->single;
	}
	mqtx_dev_graft_all(dev, pl->qs, pl->old);
	dev->qtree.root = pl->root;
	for (uint32_t i = 0; i < dev->num_txq; i++)
		mqtx_qdisc_destroy(pl->old[i]);
	mqtx_qdisc_destroy(old_root); /* its children came back in old[] */
	mqtx__free(pl->qs);
	pl->qs = NULL;
}

int mqtx__qdisc_create_at(struct mqtx_dev *dev, struct mqtx_txq *txq,
			  const struct mqtx_qdisc_ops *ops, uint32_t handle, uint32_t parent,
			  const void *opt, const uint32_t *blocks, struct mqtx_extack *ack,
			  struct mqtx_qdisc **out)
{
	return mqtx__qdisc_new(dev, txq, ops, handle, parent, opt, blocks ? blocks[0] : 0,
			       blocks ? blocks[1] : 0, ack, out);
}

// SPDX-License-Identifier: MIT
/* Default qdiscs: the default kind (net.core.default_qdisc, per device or global), what a
 * queue, a class or a device gets when nothing else is configured. The only sched code that
 * names qdisc kinds: it finds them by name in the registry of the qdisc layer above, in one
 * function (named_kind()), the second hop of the knot that mqtx_dev_open() starts
 * (scripts/layers; Linux's attach_default_qdiscs() names mq_qdisc_ops too). */
#include <errno.h>

#include "core/core.h"
#include "sched/qtree.h"

static const struct mqtx_qdisc_ops *_Atomic global_dflt;

/* The kind named @id. Built-in kinds are always found (and cannot be registered again). */
static __attribute__((noinline)) const struct mqtx_qdisc_ops *named_kind(const char *id)
{
	return mqtx_qdisc_lookup(id);
}

static int check_default_kind(const char *id, const struct mqtx_qdisc_ops **out)
{
	const struct mqtx_qdisc_ops *ops = named_kind(id);

	if (!ops)
		return -ENOENT;
	/* A default sits on one TX queue: roots of all queues and ingress cannot. */
	if (ops->static_flags & (MQTX_QF_MQROOT | MQTX_QF_INGRESS))
		return -EINVAL;
	*out = ops;
	return 0;
}

int mqtx_set_default_qdisc(const char *kind)
{
	const struct mqtx_qdisc_ops *ops = NULL;
	int err = kind ? check_default_kind(kind, &ops) : 0;

	if (!err)
		atomic_store(&global_dflt, ops);
	return err;
}

int mqtx_dev_set_default_qdisc(struct mqtx_dev *dev, const char *kind)
{
	const struct mqtx_qdisc_ops *ops = NULL;
	int err = kind ? check_default_kind(kind, &ops) : 0;

	if (err)
		return err;
	mqtx_dev_config_lock(dev);
	dev->qtree.dflt = ops;
	mqtx_dev_config_unlock(dev);
	return 0;
}

const char *mqtx_default_qdisc(struct mqtx_dev *dev)
{
	const struct mqtx_qdisc_ops *ops = dev ? dev->qtree.dflt : NULL;

	if (!ops)
		ops = atomic_load(&global_dflt);
	return ops ? ops->id : "pfifo_fast";
}

const struct mqtx_qdisc_ops *mqtx_qdisc_default_ops(struct mqtx_dev *dev, uint32_t i)
{
	const struct mqtx_qdisc_ops *ops;

	/* get_default_qdisc_ops(): inactive tail queues keep pfifo_fast. */
	if (i >= mqtx_dev_real_num_txq(dev))
		return named_kind("pfifo_fast");
	ops = dev->qtree.dflt ? dev->qtree.dflt : atomic_load(&global_dflt);
	return ops ? ops : named_kind("pfifo_fast");
}

const struct mqtx_qdisc_ops *mqtx__default_class_ops(struct mqtx_dev *dev, struct mqtx_qdisc *p,
						     uint32_t clid)
{
	/* A TX queue's class gets the queue's default; any other class a plain pfifo. */
	if (p->flags & MQTX_QF_MQROOT)
		return mqtx_qdisc_default_ops(dev, MQTX_H_MIN(clid) - 1);
	return named_kind("pfifo");
}

/* Prepare the default configuration (attach_default_qdiscs()) into @pl. */
int mqtx__qtree_plan_defaults(struct mqtx_dev *dev, struct mqtx_qplan *pl, struct mqtx_extack *ack)
{
	bool noq = dev->flags & MQTX_DEV_F_NO_QUEUE;
	int err = mqtx__qplan_alloc(dev, pl);

	if (err)
		return err;
	if (dev->num_txq > 1 && !noq) {
		err = mqtx__qdisc_create_at(dev, &dev->txq[0], named_kind("mq"), 0, MQTX_H_ROOT,
					    NULL, NULL, ack, &pl->root);
		goto out;
	}
	for (uint32_t i = 0; i < dev->num_txq && !err; i++) {
		const struct mqtx_qdisc_ops *ops =
			noq ? named_kind("noqueue") : mqtx_qdisc_default_ops(dev, i);

		err = mqtx__qdisc_create_at(dev, &dev->txq[i], ops, 0, MQTX_H_ROOT, NULL, NULL, ack,
					    &pl->qs[i]);
		if (!err && !noq)
			pl->qs[i]->flags |= MQTX_QF_ONETXQUEUE;
	}
out:
	if (err)
		mqtx__qtree_abort(dev, pl);
	return err;
}

int mqtx__qtree_prepare_defaults(struct mqtx_dev *dev, struct mqtx_qplan *pl)
{
	int err = mqtx__qtree_plan_defaults(dev, pl, NULL);

	if (err)
		mqtx_err("%s: default qdisc %s failed: %s", dev->name, mqtx_default_qdisc(dev),
			 mqtx_strerror(err));
	return err;
}

// SPDX-License-Identifier: MIT
/* The qdisc kinds mqtx knows: the built-in ones, and those an application registers. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "qdisc/kinds.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MAX_KINDS 64

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct mqtx_qdisc_ops *kinds[MAX_KINDS];
static unsigned nkinds;

/* clang-format off */
static const struct mqtx_qdisc_ops *const builtin_kinds[] = {
	&mqtx__noqueue_qdisc_ops,
	&mqtx__pfifo_qdisc_ops,
	&mqtx__pfifo_fast_qdisc_ops,
	&mqtx__bfifo_qdisc_ops,
	&mqtx__pfifo_head_drop_qdisc_ops,
	&mqtx__prio_qdisc_ops,
	&mqtx__tbf_qdisc_ops,
	&mqtx__netem_qdisc_ops,
	&mqtx__htb_qdisc_ops,
	&mqtx__ets_qdisc_ops,
	&mqtx__codel_qdisc_ops,
	&mqtx__fq_codel_qdisc_ops,
	&mqtx__fq_qdisc_ops,
	&mqtx__ingress_qdisc_ops,
	&mqtx__clsact_qdisc_ops,
	&mqtx__mq_qdisc_ops,
	&mqtx__mqprio_qdisc_ops,
	&mqtx__taprio_qdisc_ops,
	&mqtx__wme_qdisc_ops,
};
/* clang-format on */

static const struct mqtx_qdisc_ops *find_kind(const char *id)
{
	for (unsigned i = 0; i < ARRAY_SIZE(builtin_kinds); i++)
		if (!strcmp(builtin_kinds[i]->id, id))
			return builtin_kinds[i];
	for (unsigned i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i]->id, id))
			return kinds[i];
	return NULL;
}

int mqtx_qdisc_register(const struct mqtx_qdisc_ops *ops)
{
	int err = 0;

	if (!ops || !ops->id || !ops->dequeue || !ops->peek)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	if (find_kind(ops->id))
		err = -EEXIST;
	else if (nkinds == MAX_KINDS)
		err = -ENOSPC;
	else
		kinds[nkinds++] = ops;
	pthread_mutex_unlock(&reg_lock);
	return err;
}

const struct mqtx_qdisc_ops *mqtx_qdisc_lookup(const char *id)
{
	const struct mqtx_qdisc_ops *ops;

	if (!id)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	ops = find_kind(id);
	pthread_mutex_unlock(&reg_lock);
	return ops;
}

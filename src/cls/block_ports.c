// SPDX-License-Identifier: MIT
/* The ports of the shared blocks: the devices whose clsact or ingress holds each (Linux's
 * block->ports), which mirred's blockid sends to; one immutable snapshot read under RCU. */
#include <errno.h>

#include "base/rcu.h"
#include "cls/cls_int.h"

/*
 * One immutable snapshot of every shared block's ports, sorted by block index, each block's
 * in the order they were bound; the data path reads it in a read section (mirred's blockid),
 * a change publishes a new one and frees the old after a grace period.
 */
struct tcf_ports {
	unsigned n;
	uint32_t *index;
	struct mqtx_dev *_Atomic *dev; /* NULL: cleared by a removal that could not allocate */
};

/* Around a change of the snapshot; a leaf, and never taken on the data path. */
static pthread_mutex_t ports_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcf_ports *_Atomic ports;

static struct tcf_ports *ports_alloc(unsigned n)
{
	struct tcf_ports *t = mqtx__zalloc(sizeof(*t) + n * (sizeof(uint32_t) + sizeof(void *)));

	if (!t)
		return NULL;
	t->n = n;
	t->dev = (struct mqtx_dev * _Atomic *)(t + 1);
	t->index = (uint32_t *)(t->dev + n);
	return t;
}

/* Ports lock held: @t (may be NULL) becomes the snapshot; the old one goes after a grace
 * period, when no packet can still be sending to what it lists. */
static void ports_publish(struct tcf_ports *t)
{
	struct tcf_ports *old = atomic_exchange_explicit(&ports, t, memory_order_acq_rel);

	mqtx__rcu_synchronize();
	mqtx__free(old);
}

/* @old's entries but the one at @skip (none: old->n) and those a failed removal cleared, with
 * @dev (if not NULL) put after the other ports of block @index: into *@out, NULL when none is
 * left. Return: 0; -ENOMEM. */
static int ports_rebuild(const struct tcf_ports *old, unsigned skip, uint32_t index,
			 struct mqtx_dev *dev, struct tcf_ports **out)
{
	unsigned n = old ? old->n : 0, live = dev ? 1 : 0, j = 0;
	struct tcf_ports *t;

	for (unsigned i = 0; i < n; i++)
		live += i != skip && atomic_load(&old->dev[i]);
	*out = NULL;
	if (!live)
		return 0;
	t = ports_alloc(live);
	if (!t)
		return -ENOMEM;
	for (unsigned i = 0; i <= n; i++) {
		struct mqtx_dev *d = i < n ? atomic_load(&old->dev[i]) : NULL;

		if (dev && (i == n || old->index[i] > index)) {
			t->index[j] = index;
			atomic_init(&t->dev[j++], dev);
			dev = NULL;
		}
		if (i == n || i == skip || !d)
			continue;
		t->index[j] = old->index[i];
		atomic_init(&t->dev[j++], d);
	}
	*out = t;
	return 0;
}

int mqtx_tcf_block_add_port(struct mqtx_tcf_block *b, struct mqtx_dev *dev)
{
	struct tcf_ports *old, *t;
	int err = 0;

	if (!b || !b->index)
		return 0; /* tcf_block_tracks_dev(): shared blocks only */
	pthread_mutex_lock(&ports_lock);
	old = atomic_load_explicit(&ports, memory_order_relaxed);
	for (unsigned i = 0; old && i < old->n; i++) {
		if (old->index[i] == b->index && atomic_load(&old->dev[i]) == dev) {
			err = -EBUSY; /* xa_insert() of an ifindex there already */
			goto unlock;
		}
	}
	err = ports_rebuild(old, old ? old->n : 0, b->index, dev, &t);
	if (!err)
		ports_publish(t);
unlock:
	pthread_mutex_unlock(&ports_lock);
	return err;
}

void mqtx_tcf_block_del_port(struct mqtx_tcf_block *b, struct mqtx_dev *dev)
{
	struct tcf_ports *old, *t;
	unsigned at;

	if (!b || !b->index)
		return;
	pthread_mutex_lock(&ports_lock);
	old = atomic_load_explicit(&ports, memory_order_relaxed);
	for (at = 0; old && at < old->n; at++)
		if (old->index[at] == b->index && atomic_load(&old->dev[at]) == dev)
			break;
	if (!old || at == old->n)
		goto unlock;
	if (!ports_rebuild(old, at, 0, NULL, &t)) {
		ports_publish(t);
	} else {
		/* A removal cannot fail: without memory for a smaller snapshot the entry is
		 * cleared in place (readers skip it, the next change drops it). */
		atomic_store_explicit(&old->dev[at], NULL, memory_order_relaxed);
		mqtx__rcu_synchronize();
	}
unlock:
	pthread_mutex_unlock(&ports_lock);
}

unsigned mqtx__tcf_block_ports(uint32_t index, struct mqtx_dev *_Atomic const **devs)
{
	const struct tcf_ports *t = atomic_load_explicit(&ports, memory_order_acquire);
	unsigned lo = 0, n = 0;

	if (!t)
		return 0;
	while (lo < t->n && t->index[lo] < index)
		lo++;
	while (lo + n < t->n && t->index[lo + n] == index)
		n++;
	*devs = &t->dev[lo];
	return n;
}

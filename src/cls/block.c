// SPDX-License-Identifier: MIT
/* Filter blocks: a qdisc's private one, or shared ones by index, process-wide, each the
 * rules of every qdisc that holds it (Linux's tcf_block and its shared blocks); and the commit
 * of a change: publish, wait a grace period, retire. */
#include <errno.h>

#include "base/rcu.h"
#include "cls/cls_int.h"
#include "cls/tcf.h"

/* The shared blocks; a lock taken alone (leaf), around lookups and reference counts. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mqtx_tcf_block **shared;
static unsigned nshared, cap_shared;

static struct mqtx_tcf_block *find_shared(uint32_t index)
{
	for (unsigned i = 0; i < nshared; i++)
		if (shared[i]->index == index)
			return shared[i];
	return NULL;
}

static struct mqtx_tcf_block *block_new(uint32_t index)
{
	struct mqtx_tcf_block *b = mqtx__zalloc(sizeof(*b));

	if (!b)
		return NULL;
	b->index = index;
	b->refs = 1;
	pthread_mutex_init(&b->lock, NULL);
	return b;
}

/* Registry lock held: add @b to the shared blocks. */
static int add_shared(struct mqtx_tcf_block *b)
{
	if (nshared == cap_shared) {
		unsigned cap = cap_shared ? cap_shared * 2 : 8;
		struct mqtx_tcf_block **v = mqtx__alloc(cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (nshared)
			memcpy(v, shared, nshared * sizeof(*v));
		mqtx__free(shared);
		shared = v;
		cap_shared = cap;
	}
	shared[nshared++] = b;
	return 0;
}

static void remove_shared(struct mqtx_tcf_block *b)
{
	for (unsigned i = 0; i < nshared; i++) {
		if (shared[i] != b)
			continue;
		shared[i] = shared[--nshared];
		break;
	}
	if (!nshared) {
		mqtx__free(shared);
		shared = NULL;
		cap_shared = 0;
	}
}

int mqtx_tcf_block_get(uint32_t index, struct mqtx_tcf_block **out)
{
	struct mqtx_tcf_block *b;
	int err = 0;

	if (!index) {
		b = block_new(0);
		if (!b)
			return -ENOMEM;
		*out = b;
		return 0;
	}
	pthread_mutex_lock(&reg_lock);
	b = find_shared(index);
	if (b) {
		b->refs++;
	} else if (!(b = block_new(index))) {
		err = -ENOMEM;
	} else if ((err = add_shared(b))) {
		pthread_mutex_destroy(&b->lock);
		mqtx__free(b);
	}
	pthread_mutex_unlock(&reg_lock);
	if (!err)
		*out = b;
	return err;
}

int mqtx__tcf_block_find(uint32_t index, struct mqtx_tcf_block **out)
{
	struct mqtx_tcf_block *b;

	pthread_mutex_lock(&reg_lock);
	b = find_shared(index);
	if (b)
		b->refs++;
	pthread_mutex_unlock(&reg_lock);
	*out = b;
	return b ? 0 : -ENOENT;
}

bool mqtx__tcf_block_exists(uint32_t index)
{
	bool found;

	pthread_mutex_lock(&reg_lock);
	found = find_shared(index) != NULL;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

void mqtx_tcf_block_put(struct mqtx_tcf_block *b)
{
	struct tcf_ruleset *rs;
	bool last;

	if (!b)
		return;
	if (b->index) {
		pthread_mutex_lock(&reg_lock);
		last = !--b->refs;
		if (last)
			remove_shared(b);
		pthread_mutex_unlock(&reg_lock);
	} else {
		last = true;
	}
	if (!last)
		return;
	rs = atomic_load(&b->rs);
	if (rs) {
		/* A classification that found the block before its last user let go may still
		 * be reading the rules. */
		mqtx__rcu_synchronize();
		mqtx__tcf_rs_retire(rs, NULL);
	}
	pthread_mutex_destroy(&b->lock);
	mqtx__free(b);
}

uint32_t mqtx_tcf_block_index(const struct mqtx_tcf_block *b)
{
	return b ? b->index : 0;
}

unsigned mqtx_tcf_block_bound(struct mqtx_tcf_block *b, uint32_t classid)
{
	const struct tcf_ruleset *rs;
	unsigned n = 0;

	/* tcf_bind_filter(): a shared block has no qdisc of its own, its filters bind nothing */
	if (!b || b->index || !classid)
		return 0;
	pthread_mutex_lock(&b->lock);
	rs = tcf_block_rules(b);
	for (unsigned c = 0; rs && c < rs->nchains; c++)
		for (unsigned t = 0; t < rs->chains[c].n; t++) {
			const struct tcf_root *r = rs->chains[c].tps[t]->root;

			for (unsigned i = 0; i < r->n; i++)
				n += r->filters[i]->classid == classid;
		}
	pthread_mutex_unlock(&b->lock);
	return n;
}

void mqtx__tcf_block_commit(struct mqtx_tcf_block *b, struct tcf_ruleset *rs)
{
	struct tcf_ruleset *old = atomic_exchange_explicit(&b->rs, rs, memory_order_acq_rel);

	if (!old)
		return;
	mqtx__rcu_synchronize();
	mqtx__tcf_rs_retire(old, rs);
}

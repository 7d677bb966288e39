// SPDX-License-Identifier: MIT
/*
 * Rule sets: the immutable picture of a block's chains that the data path reads under RCU. A
 * change copies the picture with one priority replaced, inserted or removed (prepare: every
 * allocation, the classifier's lookup built); publishing it is one pointer store (commit);
 * what only the old picture held is freed after a grace period (retire). Unchanged priorities
 * and filters are shared by both pictures.
 */
#include <errno.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"

/* ---- priorities ---- */

/*
 * The array a root's filters lie in. A root made by appending one filter to another's shares
 * it (the new filter goes in the slot after the old root's last): appending stays O(1) where
 * a copy of every pointer made loading a large priority cost the square of its size. @used is
 * the length of the longest root made on it; only a root that long may append to it, so no
 * slot a live root reads is ever written.
 */
struct tcf_store {
	atomic_uint refs;
	unsigned used, cap;
	struct tcf_filter *slot[];
};

static struct tcf_store *store_new(struct tcf_filter *const *filters, unsigned n)
{
	unsigned cap = n < 4 ? 8 : 2 * n;
	struct tcf_store *st = mqtx__alloc(sizeof(*st) + cap * sizeof(st->slot[0]));

	if (!st)
		return NULL;
	atomic_init(&st->refs, 1);
	st->used = n;
	st->cap = cap;
	if (n)
		memcpy(st->slot, filters, n * sizeof(*filters));
	return st;
}

static void store_put(struct tcf_store *st)
{
	if (st && atomic_fetch_sub_explicit(&st->refs, 1, memory_order_acq_rel) == 1)
		mqtx__free(st);
}

static struct tcf_proto *tp_alloc(const struct tcf_proto_ops *ops, uint32_t prio, uint16_t protocol,
				  uint32_t chain)
{
	struct tcf_proto *tp = mqtx__zalloc(sizeof(*tp) + sizeof(struct tcf_root));

	if (!tp)
		return NULL;
	tp->root = (struct tcf_root *)(tp + 1);
	tp->prio = prio;
	tp->protocol = protocol;
	tp->chain = chain;
	tp->ops = ops;
	return tp;
}

int mqtx__tcf_proto_new(const struct tcf_proto_ops *ops, uint32_t prio, uint16_t protocol,
			uint32_t chain, struct tcf_filter *const *filters, unsigned n,
			struct mqtx_extack *ack, struct tcf_proto **out)
{
	struct tcf_proto *tp = tp_alloc(ops, prio, protocol, chain);
	struct tcf_root *root;
	int err;

	if (!tp)
		return -ENOMEM;
	root = tp->root;
	root->store = store_new(filters, n);
	if (!root->store) {
		mqtx__free(tp);
		return -ENOMEM;
	}
	root->n = n;
	root->filters = root->store->slot;
	if (ops->build) {
		err = ops->build(root, ack);
		if (err) {
			store_put(root->store);
			mqtx__free(tp);
			return err;
		}
	}
	*out = tp;
	return 0;
}

int mqtx__tcf_proto_append(const struct tcf_proto *old, struct tcf_filter *f,
			   struct mqtx_extack *ack, struct tcf_proto **out)
{
	const struct tcf_root * or = old->root;
	struct tcf_store *st = or->store;
	struct tcf_proto *tp;
	struct tcf_root *root;
	int err = -EAGAIN;

	if (st->used != or->n || st->cap == or->n ||
	    (or->n && or->filters[or->n - 1]->handle >= f->handle))
		return -EAGAIN;
	tp = tp_alloc(old->ops, old->prio, old->protocol, old->chain);
	if (!tp)
		return -ENOMEM;
	root = tp->root;
	/* Past the end of every root made on @st: no reader looks at the slot. */
	st->slot[or->n] = f;
	st->used = or->n + 1;
	atomic_fetch_add_explicit(&st->refs, 1, memory_order_relaxed);
	root->store = st;
	root->filters = st->slot;
	root->n = or->n + 1;
	if (old->ops->append)
		err = old->ops->append(or, root, ack);
	if (err == -EAGAIN && old->ops->build)
		err = old->ops->build(root, ack);
	else if (err == -EAGAIN)
		err = 0;
	if (err) {
		/* @used stays: the slot may hold a stale pointer, never read again */
		store_put(st);
		mqtx__free(tp);
		return err;
	}
	*out = tp;
	return 0;
}

/* Free @tp; its filters too when @filters (the priority goes away whole). */
void mqtx__tcf_proto_free(struct tcf_proto *tp, bool filters)
{
	if (!tp)
		return;
	if (tp->root->index && tp->ops->free_index)
		tp->ops->free_index(tp->root->index);
	if (filters)
		for (unsigned i = 0; i < tp->root->n; i++)
			mqtx__tcf_filter_free(tp->ops, tp->root->filters[i]);
	store_put(tp->root->store);
	mqtx__free(tp);
}

/* The filter of @tp with @handle (a binary search of its handle order), or NULL. */
struct tcf_filter *mqtx__tcf_proto_get(const struct tcf_proto *tp, uint32_t handle)
{
	const struct tcf_root *r = tp->root;
	unsigned lo = 0, hi = r->n;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (r->filters[mid]->handle < handle)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->filters[lo]->handle == handle ? r->filters[lo] : NULL;
}

/* The lowest handle from 1 that no filter of @tp has (Linux's idr_alloc_u32 from 1). */
uint32_t mqtx__tcf_proto_free_handle(const struct tcf_proto *tp)
{
	const struct tcf_root *r = tp->root;
	uint32_t h = 1;

	for (unsigned i = 0; i < r->n && r->filters[i]->handle <= h; i++)
		if (r->filters[i]->handle == h)
			h++;
	return h;
}

/* @tp's filters with @f in the place of the one with its handle (or inserted by handle), or
 * with @gone removed (@f NULL), into a new array of *@n entries. */
int mqtx__tcf_proto_filters(const struct tcf_proto *tp, struct tcf_filter *f,
			    const struct tcf_filter *gone, struct tcf_filter ***out, unsigned *n)
{
	unsigned old = tp ? tp->root->n : 0, k = 0;
	struct tcf_filter **v;
	bool placed = false;

	v = mqtx__alloc((old + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned i = 0; i < old; i++) {
		struct tcf_filter *o = tp->root->filters[i];

		if (o == gone)
			continue;
		if (f && !placed && o->handle >= f->handle) {
			v[k++] = f;
			placed = true;
			if (o->handle == f->handle)
				continue;
		}
		v[k++] = o;
	}
	if (f && !placed)
		v[k++] = f;
	*out = v;
	*n = k;
	return 0;
}

/* ---- rule sets ---- */

const struct tcf_chain *mqtx__tcf_chain_find(const struct tcf_ruleset *rs, uint32_t index)
{
	if (!rs)
		return NULL;
	for (unsigned i = 0; i < rs->nchains; i++)
		if (rs->chains[i].index == index)
			return &rs->chains[i];
	return NULL;
}

/*
 * A copy of @old where chain @chain holds @new in place of @gone (@gone NULL: @new inserted by
 * priority; @new NULL: @gone removed; both NULL and @flush: the chain removed). An empty result
 * is NULL (no rules).
 */
int mqtx__tcf_rs_edit(const struct tcf_ruleset *old, uint32_t chain, const struct tcf_proto *gone,
		      struct tcf_proto *new, bool flush, struct tcf_ruleset **out)
{
	unsigned nch = old ? old->nchains : 0, ntp = 0, c = 0;
	const struct tcf_chain *target = mqtx__tcf_chain_find(old, chain);
	struct tcf_proto **slot;
	struct tcf_ruleset *rs;
	bool add_chain = !target && new;

	for (unsigned i = 0; i < nch; i++)
		ntp += old->chains[i].n;
	ntp += new ? 1 : 0;
	nch += add_chain ? 1 : 0;
	rs = mqtx__alloc(sizeof(*rs) + nch * sizeof(rs->chains[0]) + ntp * sizeof(*slot));
	if (!rs)
		return -ENOMEM;
	slot = (struct tcf_proto **)&rs->chains[nch];
	for (unsigned i = 0; i <= (old ? old->nchains : 0); i++) {
		const struct tcf_chain *oc = old && i < old->nchains ? &old->chains[i] : NULL;
		struct tcf_chain *nc = &rs->chains[c];
		bool mine;

		/* The new chain goes in index order, before the first higher one. */
		if (add_chain && (!oc || oc->index > chain)) {
			nc->index = chain;
			nc->n = 1;
			nc->tps = slot;
			*slot++ = new;
			add_chain = false;
			nc = &rs->chains[++c];
		}
		if (!oc)
			break;
		mine = oc == target;
		if (mine && flush)
			continue;
		nc->index = oc->index;
		nc->tps = slot;
		nc->n = 0;
		for (unsigned t = 0; t <= oc->n; t++) {
			struct tcf_proto *tp = t < oc->n ? oc->tps[t] : NULL;

			if (mine && new && !gone && (!tp || tp->prio > new->prio)) {
				*slot++ = new;
				nc->n++;
				new = NULL;
			}
			if (!tp)
				break;
			if (mine && tp == gone) {
				if (new) {
					*slot++ = new;
					nc->n++;
				}
				continue;
			}
			*slot++ = tp;
			nc->n++;
		}
		if (nc->n)
			c++;
	}
	rs->nchains = c;
	if (!c) {
		mqtx__free(rs);
		rs = NULL;
	}
	*out = rs;
	return 0;
}

/* The priority of @rs's chain @chain with @prio, or NULL. */
static const struct tcf_proto *find_tp(const struct tcf_ruleset *rs, uint32_t chain, uint32_t prio)
{
	const struct tcf_chain *c = mqtx__tcf_chain_find(rs, chain);

	for (unsigned i = 0; c && i < c->n; i++)
		if (c->tps[i]->prio == prio)
			return c->tps[i];
	return NULL;
}

/* Free the filters of @tp that @now does not hold: both are in handle order, so one walk
 * over the two finds them (a lookup per filter made a change of a large priority cost
 * n log n). */
static void free_unheld(const struct tcf_proto *tp, const struct tcf_proto *now)
{
	const struct tcf_root *r = now ? now->root : NULL;
	unsigned j = 0;

	/* An append: the new root holds every filter of the old one. */
	if (r && r->store == tp->root->store && r->n >= tp->root->n)
		return;
	for (unsigned k = 0; k < tp->root->n; k++) {
		struct tcf_filter *f = tp->root->filters[k];

		while (r && j < r->n && r->filters[j]->handle < f->handle)
			j++;
		if (!r || j == r->n || r->filters[j] != f)
			mqtx__tcf_filter_free(tp->ops, f);
	}
}

/*
 * After the grace period that followed publishing @new in place of @old: free @old, and every
 * priority and filter that only @old held.
 */
void mqtx__tcf_rs_retire(struct tcf_ruleset *old, const struct tcf_ruleset *new)
{
	for (unsigned i = 0; old && i < old->nchains; i++) {
		const struct tcf_chain *oc = &old->chains[i];

		for (unsigned t = 0; t < oc->n; t++) {
			struct tcf_proto *tp = oc->tps[t];
			const struct tcf_proto *now = find_tp(new, oc->index, tp->prio);

			if (now == tp)
				continue;
			free_unheld(tp, now);
			mqtx__tcf_proto_free(tp, false);
		}
	}
	mqtx__free(old);
}

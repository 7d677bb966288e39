// SPDX-License-Identifier: MIT
/* The action tables: every action of a context by kind and index, shared by the filters bound
 * to it, as Linux's act_api.c keeps a kind's actions in an idr per namespace; the standalone
 * verbs of "tc actions" (add, replace, get, delete, flush) work on them. */
#include <errno.h>
#include <stdio.h>

#include "base/rcu.h"
#include "cls/cls_int.h"
#include "cls/tcf.h"

/* The table of filters made without a context (mqtx_tcf_change()). */
static struct tcf_act_table own_table = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct tcf_act_table *table_of(struct tcf_act_table *t)
{
	return t ? t : &own_table;
}

void mqtx__tcf_act_table_init(struct tcf_act_table *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

/* ---- objects ---- */

int mqtx__tcf_act_alloc(const struct tcf_action_ops *ops, struct tcf_action **out)
{
	struct tcf_action *a = mqtx__zalloc(sizeof(*a));
	struct tcf_act_params *pa;

	if (!a)
		return -ENOMEM;
	pa = mqtx__zalloc(sizeof(*pa) + ops->priv_size);
	if (!pa) {
		mqtx__free(a);
		return -ENOMEM;
	}
	a->ops = ops;
	atomic_init(&a->params, pa);
	*out = a;
	return 0;
}

void mqtx__tcf_act_free(struct tcf_action *a)
{
	if (!a)
		return;
	if (a->ops->destroy)
		a->ops->destroy(a);
	mqtx__free(atomic_load(&a->params));
	mqtx__free(a);
}

/* ---- the sorted array (the table's lock held) ---- */

static int cmp(const struct tcf_action_ops *ops, uint32_t index, const struct tcf_action *b)
{
	int c = strcmp(ops->kind, b->ops->kind);

	if (c)
		return c;
	return index < b->index ? -1 : index > b->index;
}

/* Where (@ops, @index) is or would go. */
static unsigned find(const struct tcf_act_table *t, const struct tcf_action_ops *ops,
		     uint32_t index)
{
	unsigned lo = 0, hi = t->n;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (cmp(ops, index, t->v[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct tcf_action *lookup(const struct tcf_act_table *t, const struct tcf_action_ops *ops,
				 uint32_t index)
{
	unsigned at = find(t, ops, index);

	return at < t->n && !cmp(ops, index, t->v[at]) ? t->v[at] : NULL;
}

/* Room for @more actions, so that the inserts after it cannot fail. */
static int reserve(struct tcf_act_table *t, unsigned more)
{
	struct tcf_action **v;
	unsigned cap;

	if (t->n + more <= t->cap)
		return 0;
	cap = t->cap ? t->cap : 8;
	while (cap < t->n + more)
		cap *= 2;
	v = mqtx__alloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (t->n)
		memcpy(v, t->v, t->n * sizeof(*v));
	mqtx__free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

/*
 * The lowest free index of @ops from 1 (Linux's idr_alloc_u32() from 1). The kind's indexes
 * rise by at least one a slot, so those without a gap below them are a prefix of its run: the
 * first slot whose index is not its rank + 1 is found by halving (a batch of a million rules,
 * each with an action, would otherwise walk the run a million times).
 */
static int free_index(const struct tcf_act_table *t, const struct tcf_action_ops *ops,
		      uint32_t *index)
{
	unsigned first = find(t, ops, 1), lo = first, hi = find(t, ops, UINT32_MAX);

	if (hi < t->n && t->v[hi]->ops == ops)
		hi++; /* UINT32_MAX itself is taken */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (t->v[mid]->index == mid - first + 1u)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo - first == UINT32_MAX)
		return -ENOSPC;
	*index = lo - first + 1u;
	return 0;
}

/* Insert @a (its index set, room reserved). */
static void insert(struct tcf_act_table *t, struct tcf_action *a)
{
	unsigned at = find(t, a->ops, a->index);

	memmove(t->v + at + 1, t->v + at, (t->n - at) * sizeof(*t->v));
	t->v[at] = a;
	t->n++;
	a->table = t;
}

static void remove_at(struct tcf_act_table *t, unsigned at)
{
	t->v[at]->table = NULL;
	memmove(t->v + at, t->v + at + 1, (t->n - at - 1) * sizeof(*t->v));
	if (!--t->n) {
		mqtx__free(t->v);
		t->v = NULL;
		t->cap = 0;
	}
}

/* Drop one reference (and a binding); true when it was the last and @a left the table. */
static bool put_locked(struct tcf_act_table *t, struct tcf_action *a, bool bind)
{
	if (bind)
		atomic_fetch_sub_explicit(&a->bindcnt, 1, memory_order_relaxed);
	if (atomic_fetch_sub_explicit(&a->refcnt, 1, memory_order_relaxed) != 1)
		return false;
	if (t)
		remove_at(t, find(t, a->ops, a->index));
	return true;
}

/* ---- filters' actions ---- */

struct tcf_action *mqtx__tcf_act_lookup_bind(struct tcf_act_table *t,
					     const struct tcf_action_ops *ops, uint32_t index)
{
	struct tcf_action *a;

	t = table_of(t);
	pthread_mutex_lock(&t->lock);
	a = index ? lookup(t, ops, index) : NULL;
	if (a) {
		atomic_fetch_add_explicit(&a->refcnt, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&a->bindcnt, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&t->lock);
	return a;
}

int mqtx__tcf_act_bind(struct tcf_act_table *t, struct tcf_action *a, struct tcf_action **out)
{
	struct tcf_action *old;
	int err = 0;

	t = table_of(t);
	pthread_mutex_lock(&t->lock);
	old = a->index ? lookup(t, a->ops, a->index) : NULL;
	if (old) {
		atomic_fetch_add_explicit(&old->refcnt, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&old->bindcnt, 1, memory_order_relaxed);
	} else {
		err = reserve(t, 1);
		if (!err && !a->index)
			err = free_index(t, a->ops, &a->index);
		if (!err) {
			atomic_store_explicit(&a->refcnt, 1, memory_order_relaxed);
			atomic_store_explicit(&a->bindcnt, 1, memory_order_relaxed);
			insert(t, a);
		}
	}
	pthread_mutex_unlock(&t->lock);
	if (old || err)
		mqtx__tcf_act_free(a); /* never published */
	if (!err)
		*out = old ? old : a;
	return err;
}

void mqtx__tcf_act_put(struct tcf_action *a, bool bind)
{
	struct tcf_act_table *t;
	bool last;

	if (!a)
		return;
	/* @a->table changes only under its table's lock, and a table outlives its actions or
	 * lets go of them (fini) while nothing else runs. */
	t = a->table;
	if (t)
		pthread_mutex_lock(&t->lock);
	last = put_locked(t, a, bind);
	if (t)
		pthread_mutex_unlock(&t->lock);
	if (last)
		mqtx__tcf_act_free(a);
}

void mqtx__tcf_act_table_fini(struct tcf_act_table *t)
{
	struct tcf_action **gone;
	unsigned n = 0;

	pthread_mutex_lock(&t->lock);
	gone = t->v; /* reused for the actions to free: never more than were in it */
	for (unsigned i = 0; i < t->n; i++) {
		struct tcf_action *a = t->v[i];

		a->table = NULL;
		/* the table's own reference ("actions add" made it): more refs than bindings */
		if (atomic_load(&a->refcnt) > atomic_load(&a->bindcnt) &&
		    atomic_fetch_sub_explicit(&a->refcnt, 1, memory_order_relaxed) == 1)
			gone[n++] = a;
	}
	t->v = NULL;
	t->n = t->cap = 0;
	pthread_mutex_unlock(&t->lock);
	for (unsigned i = 0; i < n; i++)
		mqtx__tcf_act_free(gone[i]);
	mqtx__free(gone);
	pthread_mutex_destroy(&t->lock);
}

/* ---- printing ---- */

/* print_tcstats2_attr() with the prefix "\t": an action's counters. */
static void dump_stats(const struct tcf_action *a, struct tc_out *p)
{
	mqtx__out_text(p, "\tAction statistics:");
	mqtx__out_nl(p);
	mqtx__out_open(p, "stats");
	mqtx__out_uint(p, OUT_ANY, "bytes", "\tSent %llu bytes", atomic_load(&a->st.bytes));
	mqtx__out_uint(p, OUT_ANY, "packets", " %llu pkt", atomic_load(&a->st.packets));
	mqtx__out_uint(p, OUT_ANY, "drops", " (dropped %llu", atomic_load(&a->st.drops));
	mqtx__out_uint(p, OUT_ANY, "overlimits", ", overlimits %llu",
		       atomic_load(&a->st.overlimits));
	mqtx__out_uint(p, OUT_ANY, "requeues", " requeues %llu) ", 0);
	mqtx__out_nl(p);
	mqtx__out_uint(p, OUT_ANY, "backlog", "\tbacklog %llub", 0);
	mqtx__out_uint(p, OUT_ANY, "qlen", " %llup", 0);
	mqtx__out_text(p, " requeues 0");
	mqtx__out_close(p);
	mqtx__out_nl(p);
}

void mqtx__tcf_exts_dump_terse(const struct tcf_exts *e, struct tc_out *p)
{
	if (!e->n)
		return;
	mqtx__out_open_array(p, "actions");
	for (unsigned i = 0; i < e->n; i++) {
		mqtx__out_open(p, NULL);
		mqtx__out_nl(p);
		mqtx__out_uint(p, OUT_ANY, "order", "\taction order %llu: ", i + 1);
		mqtx__out_str(p, OUT_ANY, "kind", "%s ", e->acts[i]->ops->kind);
		if (p->stats)
			dump_stats(e->acts[i], p);
		mqtx__out_close(p);
	}
	mqtx__out_close_array(p);
}

void mqtx__tcf_act_dump_index(const struct tcf_action *a, const char *lead, struct tc_out *p)
{
	mqtx__out_text(p, "%s", lead);
	mqtx__out_uint(p, OUT_ANY, "index", "index %llu", a->index);
	mqtx__out_int(p, OUT_ANY, "ref", " ref %lld", tcf_act_ref(a));
	mqtx__out_int(p, OUT_ANY, "bind", " bind %lld", tcf_act_bind(a));
}

int mqtx__tcf_refused_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	(void)a;
	(void)pk;
	(void)res;
	return MQTX_ACT_PIPE;
}

void mqtx__tcf_refused_dump(const struct tcf_action *a, struct tc_out *p)
{
	mqtx__out_str(p, OUT_ANY, "kind", "%s ", a->ops->kind);
	mqtx__out_nl(p);
	mqtx__out_uint(p, OUT_ANY, "index", "\t index %llu", a->index);
	mqtx__out_nl(p);
}

void mqtx__tcf_act_dump(const struct tcf_action *a, bool table, struct tc_out *p)
{
	const struct tcf_act_params *pa = atomic_load(&((struct tcf_action *)a)->params);

	a->ops->dump(a, p);
	if (p->stats)
		dump_stats(a, p);
	if (pa->cookie_len) {
		char hex[2 * TCF_COOKIE_MAX + 1];

		for (unsigned i = 0; i < pa->cookie_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", pa->cookie[i]);
		mqtx__out_str(p, OUT_ANY, "cookie", "\tcookie %s", hex);
		mqtx__out_nl(p);
	}
	if (pa->no_percpu) {
		mqtx__out_bool(p, OUT_ANY, "no_percpu", "\tno_percpu", true);
		mqtx__out_nl(p);
	}
	/* What the kernel adds to an action: no hardware holds it (in a listing of the table),
	 * no hardware counts it (in a filter's too). */
	if (table) {
		mqtx__out_bool(p, OUT_ANY, "not_in_hw", "\tnot_in_hw", true);
		mqtx__out_nl(p);
	}
	mqtx__out_text(p, "\tused_hw_stats");
	mqtx__out_open_array(p, "used_hw_stats");
	mqtx__out_str(p, OUT_ANY, NULL, " %s", "disabled");
	mqtx__out_close_array(p);
	mqtx__out_nl(p);
}

/* ---- "actions add|replace|change" ---- */

void mqtx__tcf_act_req_free(struct tcf_act_req *rq)
{
	for (unsigned i = 0; i < rq->n; i++)
		mqtx__tcf_act_free(rq->acts[i]);
	mqtx__free(rq->acts);
	rq->acts = NULL;
	rq->n = 0;
}

/* Whether @rq's action @i names the same kind and index as an earlier one of @rq. */
static bool repeated(const struct tcf_act_req *rq, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (rq->acts[j]->ops == rq->acts[i]->ops &&
		    rq->acts[j]->index == rq->acts[i]->index)
			return true;
	return false;
}

int mqtx__tcf_act_commit(struct tcf_act_table *t, struct tcf_act_req *rq, bool replace)
{
	struct tcf_action *old[32] = { 0 };
	unsigned nold = 0;
	int err = 0;

	if (rq->n > ARRAY_SIZE(old))
		return -EINVAL;
	t = table_of(t);
	pthread_mutex_lock(&t->lock);
	/* Validate and reserve: an index given twice fails as the second create would. */
	for (unsigned i = 0; !err && i < rq->n; i++) {
		struct tcf_action *a = rq->acts[i];

		if (a->index && (lookup(t, a->ops, a->index) || repeated(rq, i)) &&
		    (!replace || repeated(rq, i)))
			err = -EEXIST;
	}
	if (!err)
		err = reserve(t, rq->n);
	/* Commit: what follows cannot fail but for a kind out of indexes, checked first. */
	for (unsigned i = 0; !err && i < rq->n; i++) {
		uint32_t x;

		if (!rq->acts[i]->index)
			err = free_index(t, rq->acts[i]->ops, &x);
	}
	for (unsigned i = 0; !err && i < rq->n; i++) {
		struct tcf_action *a = rq->acts[i], *cur;

		if (!a->index)
			free_index(t, a->ops, &a->index);
		cur = lookup(t, a->ops, a->index);
		if (cur) {
			/* The new parameters for the readers; @a keeps the old ones to free. */
			struct tcf_act_params *pa = atomic_load(&cur->params);
			struct tcf_act_params *npa = atomic_load(&a->params);

			/* a replace without a cookie keeps the one there (tcf_action_init_1()) */
			if (!npa->cookie_len) {
				npa->cookie_len = pa->cookie_len;
				memcpy(npa->cookie, pa->cookie, sizeof(npa->cookie));
			}
			if (a->ops->replace)
				a->ops->replace(a, cur);

			atomic_store_explicit(&cur->params, npa, memory_order_release);
			atomic_store(&a->params, pa);
			old[nold++] = a;
		} else {
			atomic_store_explicit(&a->refcnt, 1, memory_order_relaxed);
			insert(t, a);
		}
	}
	pthread_mutex_unlock(&t->lock);
	if (err)
		return err;
	mqtx__free(rq->acts);
	rq->acts = NULL;
	rq->n = 0;
	if (nold) {
		mqtx__rcu_synchronize();
		for (unsigned i = 0; i < nold; i++)
			mqtx__tcf_act_free(old[i]);
	}
	return 0;
}

/* ---- "actions get|ls|delete|flush" ---- */

int mqtx__tcf_act_show(struct tcf_act_table *t, const struct tcf_action_ops *const *ops,
		       const uint32_t *index, unsigned n, struct tc_out *p)
{
	unsigned total = 0, first = 0;

	t = table_of(t);
	pthread_mutex_lock(&t->lock);
	for (unsigned i = 0; i < n; i++) {
		if (!lookup(t, ops[i], index[i])) {
			pthread_mutex_unlock(&t->lock);
			return -ENOENT;
		}
	}
	if (!n) {
		first = find(t, ops[0], 0);
		while (first + total < t->n && t->v[first + total]->ops == ops[0])
			total++;
	}
	if (!n && !total) { /* the kernel sends no message for a kind without actions */
		pthread_mutex_unlock(&t->lock);
		return 0;
	}
	/* print_action(): the count the kernel sends (none for a get), then the actions */
	mqtx__out_open(p, NULL);
	mqtx__out_uint(p, OUT_ANY, "total acts", "total acts %llu", total);
	mqtx__out_nl(p);
	mqtx__out_close(p);
	mqtx__out_open(p, NULL);
	mqtx__out_open_array(p, "actions");
	mqtx__rcu_read_lock();
	for (unsigned i = 0; i < (n ? n : total); i++) {
		const struct tcf_action *a = n ? lookup(t, ops[i], index[i]) : t->v[first + i];

		mqtx__out_open(p, NULL);
		mqtx__out_nl(p);
		/* a dump numbers from 0, a get from 1 (tca_get_fill()'s nest of each) */
		mqtx__out_uint(p, OUT_ANY, "order", "\taction order %llu: ", n ? i + 1 : i);
		mqtx__tcf_act_dump(a, true, p);
		mqtx__out_close(p);
	}
	mqtx__rcu_read_unlock();
	mqtx__out_close_array(p);
	mqtx__out_close(p);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int mqtx__tcf_act_delete(struct tcf_act_table *t, const struct tcf_action_ops *const *ops,
			 const uint32_t *index, unsigned n)
{
	struct tcf_action *gone[32];
	unsigned ngone = 0;
	int err = 0;

	if (n > ARRAY_SIZE(gone))
		return -EINVAL;
	t = table_of(t);
	pthread_mutex_lock(&t->lock);
	for (unsigned i = 0; !err && i < n; i++) {
		struct tcf_action *a = lookup(t, ops[i], index[i]);

		if (!a)
			err = -ENOENT;
		else if (atomic_load(&a->bindcnt))
			err = -EPERM;
	}
	for (unsigned i = 0; !err && i < n; i++) {
		struct tcf_action *a = lookup(t, ops[i], index[i]);

		/* named twice: gone at the first */
		if (a && put_locked(t, a, false))
			gone[ngone++] = a;
	}
	pthread_mutex_unlock(&t->lock);
	/* No filter holds them: nothing on the data path can see them. */
	for (unsigned i = 0; i < ngone; i++)
		mqtx__tcf_act_free(gone[i]);
	return err;
}

int mqtx__tcf_act_flush(struct tcf_act_table *t, const struct tcf_action_ops *ops, bool *rest)
{
	struct tcf_action **gone = NULL;
	unsigned at, n = 0, ngone = 0;
	int err = 0;

	t = table_of(t);
	pthread_mutex_lock(&t->lock);
	at = find(t, ops, 0);
	while (at + n < t->n && t->v[at + n]->ops == ops && !atomic_load(&t->v[at + n]->bindcnt))
		n++;
	if (!n && at < t->n && t->v[at]->ops == ops)
		err = -EPERM;
	if (n) {
		gone = mqtx__alloc(n * sizeof(*gone));
		if (!gone)
			err = -ENOMEM;
	}
	for (unsigned i = 0; !err && i < n; i++) {
		struct tcf_action *a = t->v[at];

		if (put_locked(t, a, false))
			gone[ngone++] = a;
		else
			at++;
	}
	*rest = !err && at < t->n && t->v[at]->ops == ops;
	pthread_mutex_unlock(&t->lock);
	for (unsigned i = 0; i < ngone; i++)
		mqtx__tcf_act_free(gone[i]);
	mqtx__free(gone);
	return err ? err : (int)n;
}

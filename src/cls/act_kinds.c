// SPDX-License-Identifier: MIT
/* The action kinds mqtx knows, and the indexes of each kind's actions (the lowest free from
 * 1, process-wide, as Linux numbers a kind's actions per namespace). */
#include <errno.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

static const struct tcf_action_ops *const action_kinds[] = {
	&mqtx__tcf_gact_ops,
	&mqtx__tcf_skbedit_ops,
	&mqtx__tcf_police_ops,
	&mqtx__tcf_mirred_ops,
};

const struct tcf_action_ops *mqtx__tcf_action_kind(const char *kind)
{
	for (size_t i = 0; kind && i < ARRAY_SIZE(action_kinds); i++)
		if (!strcmp(action_kinds[i]->kind, kind))
			return action_kinds[i];
	return NULL;
}

/* ---- action indexes ---- */

/* The indexes in use of one kind, ascending. */
struct index_set {
	uint32_t *v;
	unsigned n, cap;
};

static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static struct index_set index_sets[ARRAY_SIZE(action_kinds)];

static struct index_set *set_of(const struct tcf_action_ops *ops)
{
	for (size_t i = 0; i < ARRAY_SIZE(action_kinds); i++)
		if (action_kinds[i] == ops)
			return &index_sets[i];
	return NULL;
}

/* Where @x is or would go in @s. */
static unsigned find(const struct index_set *s, uint32_t x)
{
	unsigned lo = 0, hi = s->n;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int insert(struct index_set *s, unsigned at, uint32_t x)
{
	if (s->n == s->cap) {
		unsigned cap = s->cap ? s->cap * 2 : 16;
		uint32_t *v = mqtx__alloc(cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (s->n)
			memcpy(v, s->v, s->n * sizeof(*v));
		mqtx__free(s->v);
		s->v = v;
		s->cap = cap;
	}
	memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof(*s->v));
	s->v[at] = x;
	s->n++;
	return 0;
}

int mqtx__tcf_action_index_take(const struct tcf_action_ops *ops, uint32_t want, uint32_t *index)
{
	struct index_set *s = set_of(ops);
	unsigned at = 0;
	uint32_t x = want;
	int err;

	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&index_lock);
	if (want) {
		at = find(s, want);
		err = at < s->n && s->v[at] == want ? -EEXIST : 0;
	} else {
		/* The first gap: s->v[at] > at + 1 means at + 1 is free. v is sorted and
		 * distinct, so v[i] == i + 1 holds for a prefix: found by halving, where a
		 * walk made a batch of n actions cost n^2. */
		unsigned hi = s->n;

		while (at < hi) {
			unsigned mid = at + (hi - at) / 2;

			if (s->v[mid] == mid + 1)
				at = mid + 1;
			else
				hi = mid;
		}
		x = at + 1;
		err = x ? 0 : -ENOSPC;
	}
	if (!err)
		err = insert(s, at, x);
	pthread_mutex_unlock(&index_lock);
	if (!err)
		*index = x;
	return err;
}

void mqtx__tcf_action_index_put(const struct tcf_action_ops *ops, uint32_t index)
{
	struct index_set *s = set_of(ops);
	unsigned at;

	if (!s || !index)
		return;
	pthread_mutex_lock(&index_lock);
	at = find(s, index);
	if (at < s->n && s->v[at] == index) {
		memmove(s->v + at, s->v + at + 1, (s->n - at - 1) * sizeof(*s->v));
		s->n--;
	}
	if (!s->n) {
		mqtx__free(s->v);
		s->v = NULL;
		s->cap = 0;
	}
	pthread_mutex_unlock(&index_lock);
}

// SPDX-License-Identifier: MIT
/* A filter's actions: run in order on the data path (Linux's tcf_action_exec()), read from
 * tc's words (parse_action()), printed as tc_print_action() prints them. */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"

#define ACT_MAX 32 /* TCA_ACT_MAX_PRIO */

/* ---- data path ---- */

static int act_run(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	int v;

	if (pk->dry)
		return (a->ops->probe ? a->ops->probe : a->ops->act)(a, pk, res);
	atomic_fetch_add_explicit(&a->st.bytes, pk->pkt->len, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->st.packets, 1, memory_order_relaxed);
	v = a->ops->act(a, pk, res);
	if (v == MQTX_ACT_SHOT)
		atomic_fetch_add_explicit(&a->st.drops, 1, memory_order_relaxed);
	return v;
}

int mqtx__tcf_exts_exec(struct tcf_filter *f, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	unsigned n = f->exts.n, skip = 0, ttl = ACT_MAX;
	int v = MQTX_ACT_OK;

	for (unsigned i = 0; i < n; i++) {
		if (skip) {
			skip--;
			continue;
		}
		v = act_run(f->exts.acts[i], pk, res);
		/* "jump N": on from the N+1-th action of the list; a jump out of it or a loop
		 * stops the actions with "pass" (tcf_action_exec()'s faulty opcode). */
		if ((v & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_JUMP) {
			skip = (unsigned)v & MQTX_ACT_EXT_MASK;
			if (!skip || skip > n || !--ttl)
				return MQTX_ACT_OK;
			i = (unsigned)-1;
			continue;
		}
		if (v != MQTX_ACT_PIPE)
			break;
	}
	return v;
}

/* ---- control path ---- */

static void act_free(struct tcf_action *a)
{
	if (a->ops->destroy)
		a->ops->destroy(a);
	mqtx__tcf_action_index_put(a->ops, a->index);
	mqtx__free(a);
}

void mqtx__tcf_exts_free(struct tcf_exts *e)
{
	for (unsigned i = 0; i < e->n; i++)
		act_free(e->acts[i]);
	mqtx__free(e->acts);
	e->acts = NULL;
	e->n = 0;
}

/* tc's new_cmd(): a word that starts another command ends the actions. */
static bool new_cmd(const char *w)
{
	return mqtx__tc_matches(w, "change") || mqtx__tc_matches(w, "replace") ||
	       mqtx__tc_matches(w, "delete") || mqtx__tc_matches(w, "get") ||
	       mqtx__tc_matches(w, "add");
}

static int act_alloc(const struct tcf_action_ops *ops, struct tcf_action **out)
{
	struct tcf_action *a = mqtx__zalloc(ALIGN_UP(sizeof(*a), 16) + ops->priv_size);

	if (!a)
		return -ENOMEM;
	a->ops = ops;
	*out = a;
	return 0;
}

/* One action at the current word: its kind (a verdict word is gact's), then its words. */
static int parse_one(struct tcf_parse *ps, struct tcf_action **out)
{
	const char *w = tcf_word(ps);
	const struct tcf_action_ops *ops = mqtx__tcf_action_kind(w);
	struct tcf_action *a;
	int err;

	/* tc takes an unknown kind for gact, whose parser then refuses the word; a kind's
	 * parser moves past its name to its words, which must be there (NEXT_ARG()). */
	if (!ops || mqtx__tcf_is_control(w))
		ops = mqtx__tcf_action_kind("gact");
	else if (mqtx__tcf_next(ps))
		return -EINVAL;
	err = act_alloc(ops, &a);
	if (err)
		return err;
	err = ops->parse(a, ps);
	if (!err)
		err = mqtx__tcf_action_index_take(ops, a->index, &a->index);
	if (err == -EEXIST)
		mqtx__tcf_perr(
			ps, MQTX_TC_EXIT_PARSE,
			"%s: action index %u is taken (actions are not shared between filters)",
			ops->kind, a->index);
	if (err) {
		if (ops->destroy)
			ops->destroy(a);
		mqtx__free(a);
		return err;
	}
	*out = a;
	return 0;
}

static int exts_add(struct tcf_exts *e, struct tcf_action *a)
{
	struct tcf_action **v = mqtx__alloc((e->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (e->n)
		memcpy(v, e->acts, e->n * sizeof(*v));
	v[e->n++] = a;
	mqtx__free(e->acts);
	e->acts = v;
	return 0;
}

/* The optional words after an action that tc takes and mqtx has no use for. */
static int skip_act_options(struct tcf_parse *ps)
{
	const char *w;

	while ((w = tcf_word(ps))) {
		if (!strcmp(w, "no_percpu")) {
			ps->i++;
		} else if (mqtx__tc_matches(w, "hw_stats")) {
			if (mqtx__tcf_next(ps))
				return -EINVAL;
			ps->i++;
		} else {
			break;
		}
	}
	return 0;
}

int mqtx__tcf_exts_parse(struct tcf_exts *e, struct tcf_parse *ps)
{
	bool expect = false; /* "action" seen, its kind not yet */
	const char *w;
	int err = 0;

	while ((w = tcf_word(ps))) {
		int at = ps->argc - ps->i;
		const char *kind = w;
		struct tcf_action *a;

		if (!strcmp(w, "action")) {
			ps->i++;
			expect = true;
			continue;
		}
		if (!strcmp(w, "flowid") || !strcmp(w, "classid") || new_cmd(w))
			break;
		if (!strcmp(w, "help"))
			return -EINVAL;
		expect = false;
		if (e->n == ACT_MAX)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "Too many actions: at most %d", ACT_MAX);
		err = parse_one(ps, &a);
		if (!err) {
			err = skip_act_options(ps);
			if (!err)
				err = exts_add(e, a);
			if (err)
				act_free(a);
		}
		if (err) {
			if (err == -ENOMEM)
				return err;
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "bad action parsing");
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "parse_action: bad value (%d:%s)!", at, kind);
		}
	}
	if (expect)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "bad action empty 1");
	return 0;
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

void mqtx__tcf_exts_dump(const struct tcf_exts *e, struct tc_out *p)
{
	if (!e->n)
		return;
	mqtx__out_open_array(p, "actions");
	for (unsigned i = 0; i < e->n; i++) {
		const struct tcf_action *a = e->acts[i];

		mqtx__out_open(p, NULL);
		mqtx__out_nl(p);
		mqtx__out_uint(p, OUT_ANY, "order", "\taction order %llu: ", i + 1);
		a->ops->dump(a, p);
		if (p->stats)
			dump_stats(a, p);
		mqtx__out_close(p);
	}
	mqtx__out_close_array(p);
}

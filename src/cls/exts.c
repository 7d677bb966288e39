// SPDX-License-Identifier: MIT
/* A filter's actions: run in order on the data path (Linux's tcf_action_exec()), read from
 * tc's words (parse_action()), printed as tc_print_action() prints them. */
#include <errno.h>
#include <stdio.h>

#include "base/rcu.h"
#include "cls/cls_int.h"
#include "cls/tcf.h"

#define ACT_MAX 32 /* TCA_ACT_MAX_PRIO */

/* ---- data path ---- */

static int act_run(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	int v;

	if (pk->dry)
		return (a->ops->probe ? a->ops->probe : a->ops->act)(a, pk, res);
	atomic_fetch_add_explicit(&a->st.bytes, pk->len, memory_order_relaxed);
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

void mqtx__tcf_exts_free(struct tcf_exts *e)
{
	for (unsigned i = 0; i < e->n; i++)
		mqtx__tcf_act_put(e->acts[i], true);
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

/* "KIND index N" naming an action of the table: the filter binds to it, whatever the kind's
 * parser would make of the words (Linux ignores them for an action that exists). */
static struct tcf_action *bind_by_index(const struct tcf_action_ops *ops, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);
	struct tcf_action *a;
	uint32_t index;

	if (!w || !mqtx__tc_matches(w, "index") || ps->i + 1 >= ps->argc ||
	    mqtx__tc_get_u32(ps->argv[ps->i + 1], &index, 10) || !index)
		return NULL;
	a = mqtx__tcf_act_lookup_bind(ps->acts, ops, index);
	if (a)
		ps->i += 2;
	return a;
}

/* One action at the current word: its kind (a verdict word is gact's), then its words. */
static int parse_kind(struct tcf_parse *ps, const struct tcf_action_ops **out)
{
	const char *w = tcf_word(ps);
	const struct tcf_action_ops *ops = mqtx__tcf_action_kind(w);

	/* tc takes an unknown kind for gact, whose parser then refuses the word; a kind's
	 * parser moves past its name to its words, which must be there (NEXT_ARG()). */
	if (!ops || mqtx__tcf_is_control(w))
		ops = mqtx__tcf_action_kind("gact");
	else if (mqtx__tcf_next(ps))
		return -EINVAL;
	*out = ops;
	return 0;
}

/* The kind's words and the options after them into a new action in no table. */
static int parse_new(const struct tcf_action_ops *ops, struct tcf_parse *ps,
		     struct tcf_action **out)
{
	struct tcf_action *a;
	int err = mqtx__tcf_act_alloc(ops, &a);

	if (err)
		return err;
	err = ops->parse(a, ps);
	if (!err)
		err = mqtx__tcf_act_options(ps, atomic_load(&a->params));
	if (err) {
		mqtx__tcf_act_free(a);
		return err;
	}
	*out = a;
	return 0;
}

static int parse_one(struct tcf_parse *ps, struct tcf_action **out)
{
	const struct tcf_action_ops *ops;
	struct tcf_action *a;
	int err = parse_kind(ps, &ops);

	if (err)
		return err;
	*out = bind_by_index(ops, ps);
	if (*out) {
		struct tcf_act_params unused;

		err = mqtx__tcf_act_options(ps, &unused);
		if (err)
			mqtx__tcf_act_put(*out, true);
		return err;
	}
	err = parse_new(ops, ps, &a);
	if (!err)
		err = mqtx__tcf_act_bind(ps->acts, a, out);
	if (err == -ENOSPC)
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED, "Error: no action index is left.");
	return err;
}

/* One more action at the end of a list of @n. */
static int acts_append(unsigned *n, struct tcf_action ***acts, struct tcf_action *a)
{
	struct tcf_action **v = mqtx__alloc((*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (*n)
		memcpy(v, *acts, *n * sizeof(*v));
	v[(*n)++] = a;
	mqtx__free(*acts);
	*acts = v;
	return 0;
}

/* tc's hex2mem(): pairs of hex digits. */
static int parse_cookie(const char *s, struct tcf_act_params *pa)
{
	size_t n = strlen(s);

	if (n % 2)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v = 0;

		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + (size_t)k];

			if (c >= '0' && c <= '9')
				v = v * 16 + (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v * 16 + (unsigned)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				v = v * 16 + (unsigned)(c - 'A' + 10);
			else
				return -EINVAL;
		}
		pa->cookie[i] = (uint8_t)v;
	}
	pa->cookie_len = (uint8_t)(n / 2);
	return 0;
}

int mqtx__tcf_act_options(struct tcf_parse *ps, struct tcf_act_params *pa)
{
	const char *w = tcf_word(ps);

	pa->cookie_len = 0;
	pa->no_percpu = false;
	if (w && !strcmp(w, "cookie")) {
		size_t n;

		if (mqtx__tcf_next(ps))
			return -EINVAL;
		w = tcf_word(ps);
		n = strlen(w);
		if (n > 2 * TCF_COOKIE_MAX)
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_ABORT,
				"Error: argument \"%s\" is wrong: %zu Max allowed size %d", w, n,
				2 * TCF_COOKIE_MAX);
		if (parse_cookie(w, pa))
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_ABORT,
				"Error: argument \"%s\" is wrong: cookie must be a hex "
				"string\n\n",
				w);
		ps->i++;
	}
	w = tcf_word(ps);
	if (w && mqtx__tc_matches(w, "hw_stats")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		w = tcf_word(ps);
		if (!mqtx__tc_matches(w, "immediate") && !mqtx__tc_matches(w, "delayed") &&
		    !mqtx__tc_matches(w, "disabled"))
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_ABORT,
				"Error: argument \"%s\" is wrong: value is invalid\n\n", w);
		ps->i++;
	}
	w = tcf_word(ps);
	if (w && !strcmp(w, "no_percpu")) {
		pa->no_percpu = true;
		ps->i++;
	}
	return 0;
}
/* An action that did not parse: out of memory or a refusal stands; anything else is tc's
 * parse_action() failure at word @at of kind @kind. */
static int action_failed(struct tcf_parse *ps, int err, int at, const char *kind)
{
	if (err == -ENOMEM || ps->exit == MQTX_TC_EXIT_REFUSED)
		return err;
	mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "bad action parsing");
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "parse_action: bad value (%d:%s)!", at, kind);
}

/* tc's parse_action(): "[action] KIND WORDS..." again and again up to a filter's next word or
 * another command, each action appended to the list of @n. A filter's actions (@bind) live in
 * the table, binding to one there by index; "actions add" makes new ones in no table. */
static int parse_list(struct tcf_parse *ps, bool bind, unsigned *n, struct tcf_action ***acts)
{
	bool expect = false; /* "action" seen, its kind not yet */
	const char *w;

	while ((w = tcf_word(ps))) {
		int at = ps->argc - ps->i;
		const char *kind = w;
		const struct tcf_action_ops *ops;
		struct tcf_action *a;
		int err;

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
		if (*n == ACT_MAX)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "Too many actions: at most %d", ACT_MAX);
		if (bind) {
			err = parse_one(ps, &a);
		} else {
			err = parse_kind(ps, &ops);
			if (!err)
				err = parse_new(ops, ps, &a);
		}
		if (!err) {
			err = acts_append(n, acts, a);
			if (err && bind)
				mqtx__tcf_act_put(a, true);
			else if (err)
				mqtx__tcf_act_free(a);
		}
		if (err)
			return action_failed(ps, err, at, kind);
	}
	if (expect)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "bad action empty 1");
	return 0;
}

int mqtx__tcf_act_parse(struct tcf_parse *ps, struct tcf_act_req *rq)
{
	int err = parse_list(ps, false, &rq->n, &rq->acts);

	if (err)
		return err;
	if (!rq->n) { /* parse_action() refuses nothing to parse without a word */
		ps->exit = MQTX_TC_EXIT_PARSE;
		return -EINVAL;
	}
	return 0;
}

int mqtx__tcf_exts_parse(struct tcf_exts *e, struct tcf_parse *ps)
{
	return parse_list(ps, true, &e->n, &e->acts);
}

/* ---- printing ---- */

void mqtx__tcf_exts_dump(const struct tcf_exts *e, struct tc_out *p)
{
	if (!e->n)
		return;
	mqtx__out_open_array(p, "actions");
	/* "actions replace" frees the parameters it replaced after a grace period */
	mqtx__rcu_read_lock();
	for (unsigned i = 0; i < e->n; i++) {
		mqtx__out_open(p, NULL);
		mqtx__out_nl(p);
		mqtx__out_uint(p, OUT_ANY, "order", "\taction order %llu: ", i + 1);
		mqtx__tcf_act_dump(e->acts[i], false, p);
		mqtx__out_close(p);
	}
	mqtx__rcu_read_unlock();
	mqtx__out_close_array(p);
}

// SPDX-License-Identifier: MIT
/* basic: filters of extended matches (meta priority, mark, length...), tried in handle order
 * (Linux's cls_basic.c); a filter without a match takes everything. */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/ematch.h"
#include "cls/kinds.h"

#define BASIC_USAGE                                                     \
	"Usage: ... basic [ match EMATCH_TREE ]\n"                      \
	"                 [ action ACTION_SPEC ] [ classid CLASSID ]\n" \
	"\n"                                                            \
	"Where:\tSELECTOR := SAMPLE SAMPLE ...\n"                       \
	"\tFILTERID := X:Y:Z\n"                                         \
	"\tACTION_SPEC := ... look at individual actions\n"             \
	"\n"                                                            \
	"NOTE: CLASSID is parsed as hexadecimal input.\n"

struct basic_filter {
	struct tcf_filter f;
	struct em_tree *match;
};

static struct basic_filter *basic_of(const struct tcf_filter *f)
{
	return (struct basic_filter *)f;
}

/* ---- data path ---- */

/* basic_classify(): the first filter that matches, unless its actions say continue. */
static int basic_classify(const struct tcf_proto *tp, struct tcf_pkt *pk,
			  struct mqtx_tcf_result *res)
{
	const struct tcf_root *r = tp->root;

	for (unsigned i = 0; i < r->n; i++) {
		struct basic_filter *b = basic_of(r->filters[i]);
		int v;

		if (!pk->dry)
			atomic_fetch_add_explicit(&b->f.tries, 1, memory_order_relaxed);
		if (!mqtx__em_match(b->match, pk))
			continue;
		v = tcf_filter_hit(tp, &b->f, pk, res);
		if (v >= 0)
			return v;
	}
	return MQTX_ACT_UNSPEC;
}

/* ---- control path ---- */

static void basic_free_filter(struct tcf_filter *f)
{
	mqtx__em_free(basic_of(f)->match);
}

static int basic_word(struct basic_filter *b, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);
	int err;

	if (mqtx__tc_matches(w, "match")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		mqtx__em_free(b->match);
		b->match = NULL;
		err = mqtx__em_parse(ps, &b->match);
		return err == -EINVAL ? mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"ematch\"")
				      : err;
	}
	if (mqtx__tc_matches(w, "classid") || !strcmp(w, "flowid"))
		return mqtx__tcf_parse_classid(ps, &b->f.classid);
	if (mqtx__tc_matches(w, "action")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		err = mqtx__tcf_exts_parse(&b->f.exts, ps);
		return err == -EINVAL ? mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"action\"")
				      : err;
	}
	if (mqtx__tc_matches(w, "police"))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
				      "Error: basic: write \"action police ...\" instead of "
				      "\"police\".");
	if (strcmp(w, "help"))
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "What is \"%s\"?", w);
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", mqtx__tcf_basic_ops.usage);
}

static int basic_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out)
{
	struct basic_filter *b = (struct basic_filter *)mqtx__tcf_filter_alloc(sizeof(*b), handle);
	int err = 0;

	if (!b)
		return -ENOMEM;
	while (!err && tcf_word(ps))
		err = basic_word(b, ps);
	if (err) {
		mqtx__em_free(b->match);
		mqtx__tcf_filter_free(NULL, &b->f);
		return err;
	}
	*out = &b->f;
	return 0;
}

static void basic_dump(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p)
{
	const struct basic_filter *b = basic_of(f);
	char buf[16];

	(void)tp;
	if (f->handle) { /* tc's print_hex: a string of hex digits in JSON */
		snprintf(buf, sizeof(buf), "%x", f->handle);
		mqtx__out_str(p, OUT_ANY, "handle", "handle 0x%s ", buf);
	}
	if (f->classid)
		mqtx__out_str(p, OUT_ANY, "flowid", "flowid %s ",
			      mqtx__classid_fmt(f->classid, buf, sizeof(buf)));
	if (b->match)
		mqtx__em_dump(b->match, p);
	if (p->stats)
		mqtx__out_uint(p, OUT_ANY, "rule_hit", "\n  (rule hit %llu)",
			       atomic_load(&f->hits));
	mqtx__tcf_exts_dump(&f->exts, p);
}

const struct tcf_proto_ops mqtx__tcf_basic_ops = {
	.kind = "basic",
	.usage = BASIC_USAGE,
	.parse_handle = mqtx__tcf_numeric_handle,
	.parse = basic_parse,
	.classify = basic_classify,
	.dump = basic_dump,
	.free_filter = basic_free_filter,
};

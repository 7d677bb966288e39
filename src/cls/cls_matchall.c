// SPDX-License-Identifier: MIT
/* matchall: one filter that matches every packet (Linux's cls_matchall.c): its class and its
 * actions for everything of its protocol. */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

#define MALL_USAGE                                                      \
	"Usage: ... matchall [skip_sw | skip_hw]\n"                     \
	"                 [ action ACTION_SPEC ] [ classid CLASSID ]\n" \
	"\n"                                                            \
	"Where: SELECTOR := SAMPLE SAMPLE ...\n"                        \
	"       FILTERID := X:Y:Z\n"                                    \
	"       ACTION_SPEC := ... look at individual actions\n"        \
	"\n"                                                            \
	"NOTE: CLASSID is parsed as hexadecimal input.\n"

/* A filter and the flags it was given (tc prints them back). */
struct mall_filter {
	struct tcf_filter f;
	bool skip_hw, skip_sw;
};

/* ---- data path ---- */

static int mall_classify(const struct tcf_proto *tp, struct tcf_pkt *pk,
			 struct mqtx_tcf_result *res)
{
	return tcf_filter_hit(tp, tp->root->filters[0], pk, res);
}

/* ---- control path ---- */

/* What the words left for the end: both flags are tc's error; skip_sw alone the kernel's, as
 * Linux's tc_setup_cb_add() refuses (EOPNOTSUPP) a filter that must be offloaded to a device
 * without offload. */
static int mall_flags_check(struct tcf_parse *ps, const struct mall_filter *m)
{
	if (m->skip_hw && m->skip_sw)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "skip_hw and skip_sw are mutually exclusive");
	if (m->skip_sw)
		return mqtx__tcf_perr(
			ps, MQTX_TC_EXIT_REFUSED,
			"Error: matchall: \"skip_sw\": there is no hardware to offload to.");
	return 0;
}

static int mall_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out)
{
	struct tcf_filter *f = mqtx__tcf_filter_alloc(sizeof(struct mall_filter), handle);
	struct mall_filter *m = (struct mall_filter *)f;
	const char *w;
	int err = 0;

	if (!f)
		return -ENOMEM;
	while (!err && (w = tcf_word(ps))) {
		if (mqtx__tc_matches(w, "classid") || !strcmp(w, "flowid")) {
			err = mqtx__tcf_parse_classid(ps, &f->classid);
		} else if (mqtx__tc_matches(w, "action")) {
			err = mqtx__tcf_next(ps) ? -EINVAL : mqtx__tcf_exts_parse(&f->exts, ps);
			if (err == -EINVAL)
				mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"action\"");
		} else if (!strcmp(w, "skip_hw") || !strcmp(w, "skip_sw")) {
			*(w[5] == 'h' ? &m->skip_hw : &m->skip_sw) = true;
			ps->i++;
		} else {
			if (strcmp(w, "help"))
				mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "What is \"%s\"?", w);
			err = mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s",
					     mqtx__tcf_matchall_ops.usage);
		}
	}
	if (!err)
		err = mall_flags_check(ps, m);
	if (err) {
		mqtx__tcf_filter_free(&mqtx__tcf_matchall_ops, f);
		return err;
	}
	*out = f;
	return 0;
}

/* Linux's mall_change(): one filter per priority. */
static int mall_build(struct tcf_root *root, struct mqtx_extack *ack)
{
	if (root->n <= 1)
		return 0;
	mqtx_extack_set(ack, "matchall holds one filter per priority");
	return -EEXIST;
}

static void mall_dump(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p)
{
	char b[16];

	(void)tp;
	if (f->handle)
		mqtx__out_uint(p, OUT_ANY, "handle", "handle 0x%llx ", f->handle);
	if (f->classid)
		mqtx__out_str(p, OUT_ANY, "flowid", "flowid %s ",
			      mqtx__classid_fmt(f->classid, b, sizeof(b)));
	if (((const struct mall_filter *)f)->skip_hw)
		mqtx__out_bool(p, OUT_ANY, "skip_hw", "\n  skip_hw", true);
	mqtx__out_bool(p, OUT_ANY, "not_in_hw", "\n  not_in_hw", true);
	if (p->stats)
		mqtx__out_uint(p, OUT_ANY, "rule_hit", " (rule hit %llu)", atomic_load(&f->hits));
	mqtx__tcf_exts_dump(&f->exts, p);
}

const struct tcf_proto_ops mqtx__tcf_matchall_ops = {
	.kind = "matchall",
	.usage = MALL_USAGE,
	.parse_handle = mqtx__tcf_numeric_handle,
	.parse = mall_parse,
	.build = mall_build,
	.classify = mall_classify,
	.dump = mall_dump,
};

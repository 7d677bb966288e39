// SPDX-License-Identifier: MIT
/* sample: read as tc reads it, then refused as the kernel would refuse an action it cannot
 * carry out: Linux's act_sample.c hands one packet in RATE to psample, the kernel's sampling
 * channel to user space, and mqtx, itself in user space, has no such channel. */
#include <errno.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

#define SAMPLE_USAGE                                                                             \
	"Usage: sample SAMPLE_CONF\n"                                                            \
	"where:\n"                                                                               \
	"\tSAMPLE_CONF := SAMPLE_PARAMS | SAMPLE_INDEX\n"                                        \
	"\tSAMPLE_PARAMS := rate RATE group GROUP [trunc SIZE] [SAMPLE_INDEX]\n"                 \
	"\tSAMPLE_INDEX := index INDEX\n"                                                        \
	"\tRATE := The ratio of packets observed at the data source to the samples generated.\n" \
	"\tGROUP := the psample sampling group\n"                                                \
	"\tSIZE := the truncation size\n"                                                        \
	"\tINDEX := integer index of the sample action\n"

#define SAMPLE_REFUSED                                                                           \
	"Error: sample: not supported: the samples go to psample, a channel of the kernel's to " \
	"user space, and mqtx runs in user space."

struct sample {
	int verdict;
};

/* ---- data path: never runs (the parse refuses every sample action) ---- */

static int sample_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct sample *s = tcf_act_priv(a);

	(void)pk;
	(void)res;
	return s->verdict;
}

/* ---- control path ---- */

static int usage_exit(struct tcf_parse *ps)
{
	mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", SAMPLE_USAGE);
	ps->exit = MQTX_TC_EXIT_ABORT;
	return -EINVAL;
}

static int sample_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	static const char *const words[] = { "rate", "group", "trunc" };
	static const char *const bad[] = { "Illegal rate %s", "Illegal group num %s",
					   "Illegal truncation size %s" };
	struct sample *s = tcf_act_priv(a);
	bool set[3] = { false, false, false };
	const char *w;
	uint32_t v;

	s->verdict = MQTX_ACT_PIPE;
	while ((w = tcf_word(ps))) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(words); k++)
			if (mqtx__tc_matches(w, words[k]))
				break;
		if (k == ARRAY_SIZE(words)) {
			if (mqtx__tc_matches(w, "help"))
				return usage_exit(ps);
			break;
		}
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &v, 10)) {
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, bad[k], tcf_word(ps));
			return usage_exit(ps);
		}
		set[k] = true;
		ps->i++;
	}
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &s->verdict, false))
		return -EINVAL;
	w = tcf_word(ps);
	if (w && mqtx__tc_matches(w, "index")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &a->index, 10))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "sample: Illegal \"index\"");
		ps->i++;
	}
	if (!a->index && (!set[0] || !set[1])) {
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "param \"%s\" not set",
			       set[1] ? "rate" : "group");
		return usage_exit(ps);
	}
	return mqtx__tcf_refuse_late(ps, SAMPLE_REFUSED);
}

static void sample_dump(const struct tcf_action *a, struct tc_out *p)
{
	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "sample");
	mqtx__out_nl(p);
	mqtx__out_uint(p, OUT_ANY, "index", "\t index %llu", a->index);
	mqtx__out_nl(p);
}

const struct tcf_action_ops mqtx__tcf_sample_ops = {
	.kind = "sample",
	.usage = SAMPLE_USAGE,
	.priv_size = sizeof(struct sample),
	.parse = sample_parse,
	.act = sample_act,
	.dump = sample_dump,
};

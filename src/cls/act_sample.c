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

/* ---- control path ---- */

static int sample_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	static const char *const words[] = { "rate", "group", "trunc" };
	static const char *const bad[] = { "Illegal rate %s", "Illegal group num %s",
					   "Illegal truncation size %s" };
	int verdict = MQTX_ACT_PIPE; /* read as tc reads it; the action is refused */
	bool set[3] = { false, false, false };
	const char *w;
	uint32_t v;

	while ((w = tcf_word(ps))) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(words); k++)
			if (mqtx__tc_matches(w, words[k]))
				break;
		if (k == ARRAY_SIZE(words)) {
			if (mqtx__tc_matches(w, "help"))
				return mqtx__tcf_usage_exit(ps, SAMPLE_USAGE);
			break;
		}
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &v, 10)) {
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, bad[k], tcf_word(ps));
			return mqtx__tcf_usage_exit(ps, SAMPLE_USAGE);
		}
		set[k] = true;
		ps->i++;
	}
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &verdict, false))
		return -EINVAL;
	if (mqtx__tcf_act_index(ps, a, "sample: ", 10) < 0)
		return -EINVAL;
	if (!a->index && (!set[0] || !set[1])) {
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "param \"%s\" not set",
			       set[1] ? "rate" : "group");
		return mqtx__tcf_usage_exit(ps, SAMPLE_USAGE);
	}
	return mqtx__tcf_refuse_late(ps, SAMPLE_REFUSED);
}

const struct tcf_action_ops mqtx__tcf_sample_ops = {
	.kind = "sample",
	.usage = SAMPLE_USAGE,
	.parse = sample_parse,
	.act = mqtx__tcf_refused_act,
	.dump = mqtx__tcf_refused_dump,
};

// SPDX-License-Identifier: MIT
/* gact: the generic action, a verdict (pass, drop, pipe, continue, reclassify, goto chain,
 * jump), optionally another one for 1 packet in N (Linux's act_gact.c). */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

#define GACT_NONE    0
#define GACT_NETRAND 1 /* the other verdict with probability 1/val */
#define GACT_DETERM  2 /* the other verdict for every val-th packet */

#define GACT_USAGE                                                          \
	"Usage: ... gact <ACTION> [RAND] [INDEX]\n"                         \
	"Where: \tACTION := reclassify | drop | continue | pass | pipe |\n" \
	"       \t          goto chain <CHAIN_INDEX> | jump <JUMP_COUNT>\n" \
	"\tRAND := random <RANDTYPE> <ACTION> <VAL>\n"                      \
	"\tRANDTYPE := netrand | determ\n"                                  \
	"\tVAL : = value not exceeding 10000\n"                             \
	"\tJUMP_COUNT := Absolute jump from start of action list\n"         \
	"\tINDEX := index value used\n"

struct gact {
	int verdict;
	int ptype, pverdict;
	uint16_t pval;
	atomic_uint count; /* packets seen, for determ */
};

static MQTX_TLS uint64_t gact_rng = 0x9E3779B97F4A7C15ull;

/* xorshift64*, per thread: netrand needs no more than an unbiased-enough coin. */
static uint32_t rand32(void)
{
	uint64_t x = gact_rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	gact_rng = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

/* ---- data path ---- */

static int gact_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	struct mqtx_pkt *pkt = pk->pkt;
	struct gact *g = tcf_act_priv(a);
	int v = g->verdict;

	(void)res;
	if (g->ptype == GACT_DETERM && g->pval &&
	    !((atomic_fetch_add_explicit(&g->count, 1, memory_order_relaxed) + 1) % g->pval))
		v = g->pverdict;
	else if (g->ptype == GACT_NETRAND && g->pval && !(rand32() % g->pval))
		v = g->pverdict;
	if (v == MQTX_ACT_SHOT)
		pkt->drop_reason = MQTX_DROP_FILTER;
	return v;
}

/* "filter test": the verdict without the coin. */
static int gact_probe(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	struct mqtx_pkt *pkt = pk->pkt;
	struct gact *g = tcf_act_priv(a);

	(void)res;
	if (g->verdict == MQTX_ACT_SHOT)
		pkt->drop_reason = MQTX_DROP_FILTER;
	return g->verdict;
}

/* ---- control path ---- */

static int parse_random(struct gact *g, struct tcf_parse *ps)
{
	const char *w;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	w = tcf_word(ps);
	if (mqtx__tc_matches(w, "netrand"))
		g->ptype = GACT_NETRAND;
	else if (mqtx__tc_matches(w, "determ"))
		g->ptype = GACT_DETERM;
	else
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"random type\"");
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (mqtx__tcf_parse_control(ps, &g->pverdict, false))
		return mqtx__tcf_usage_exit(ps, mqtx__tcf_gact_ops.usage);
	if (!tcf_word(ps) || mqtx__tc_get_u16(tcf_word(ps), &g->pval, 10) || g->pval > 10000)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal probability val  0x%x",
				      g->pval);
	ps->i++;
	return 0;
}

static int gact_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct gact *g = tcf_act_priv(a);
	const char *w = tcf_word(ps);

	if (!w)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
				      "Command line is not complete. Try option \"help\"");
	if (!mqtx__tc_matches(w, "index")) {
		if (mqtx__tcf_parse_control(ps, &g->verdict, false))
			return mqtx__tcf_usage_exit(ps, mqtx__tcf_gact_ops.usage);
		w = tcf_word(ps);
		if (w && mqtx__tc_matches(w, "random")) {
			if (parse_random(g, ps))
				return -EINVAL;
			w = tcf_word(ps);
		} else if (w && mqtx__tc_matches(w, "help")) {
			return mqtx__tcf_usage_exit(ps, mqtx__tcf_gact_ops.usage);
		}
	}
	if (mqtx__tcf_act_index(ps, a, "", 10) < 0)
		return -EINVAL;
	return 0;
}

static void gact_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct gact *g = tcf_act_priv(a);
	static const char *const types[] = { "none", "netrand", "determ" };

	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "gact");
	mqtx__tcf_print_control(p, "action ", g->verdict, "");
	mqtx__out_open(p, "prob");
	mqtx__out_nl(p);
	mqtx__out_str(p, OUT_ANY, "random_type", "\t random type %s", types[g->ptype]);
	mqtx__tcf_print_control(p, " ", g->ptype ? g->pverdict : MQTX_ACT_OK, " ");
	mqtx__out_int(p, OUT_ANY, "val", "val %lld", g->pval);
	mqtx__out_close(p);
	mqtx__out_nl(p);
	mqtx__tcf_act_dump_index(a, "	 ", p);
	mqtx__out_nl(p);
}

const struct tcf_action_ops mqtx__tcf_gact_ops = {
	.kind = "gact",
	.usage = GACT_USAGE,
	.priv_size = sizeof(struct gact),
	.parse = gact_parse,
	.act = gact_act,
	.probe = gact_probe,
	.dump = gact_dump,
};

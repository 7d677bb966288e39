// SPDX-License-Identifier: MIT
/* The words of filter commands as tc reads them: numbers, protocols, class ids, verdicts; and
 * the messages tc prints when it refuses one (iproute2's lib/utils.c, lib/ll_proto.c and
 * tc/tc_util.c behave so). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "cls/cls_int.h"

void mqtx__tcf_parse_init(struct tcf_parse *ps, int argc, char **argv)
{
	memset(ps, 0, sizeof(*ps));
	ps->argc = argc;
	ps->argv = argv;
	ps->protocol = MQTX_ETH_P_ALL;
}

int mqtx__tcf_perr(struct tcf_parse *ps, int exit, const char *fmt, ...)
{
	size_t room = sizeof(ps->err) - ps->errlen;
	va_list ap;
	int n;

	/* tc stops at once where it exits -1, and the kernel's refusal is the last word: nothing
	 * more is printed after either. */
	if (ps->exit == MQTX_TC_EXIT_ABORT || ps->exit == MQTX_TC_EXIT_REFUSED)
		return -EINVAL;
	if (!ps->exit)
		ps->exit = exit;
	if (room > 1) {
		va_start(ap, fmt);
		n = vsnprintf(ps->err + ps->errlen, room - 1, fmt, ap);
		va_end(ap);
		if (n > 0)
			ps->errlen += (size_t)n < room - 1 ? (size_t)n : room - 2;
		if (!ps->errlen || ps->err[ps->errlen - 1] != '\n') /* usages end in one */
			ps->err[ps->errlen++] = '\n';
		ps->err[ps->errlen] = 0;
	}
	return -EINVAL;
}

int mqtx__tcf_refuse_late(struct tcf_parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->late[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(ps->late, sizeof(ps->late), fmt, ap);
	va_end(ap);
	return 0;
}

int mqtx__tcf_late(struct tcf_parse *ps)
{
	if (!ps->late[0])
		return 0;
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED, "%s", ps->late);
}

int mqtx__tcf_next(struct tcf_parse *ps)
{
	if (ps->i + 1 >= ps->argc)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
				      "Command line is not complete. Try option \"help\"");
	ps->i++;
	return 0;
}

int mqtx__tcf_act_index(struct tcf_parse *ps, struct tcf_action *a, const char *who, int base)
{
	const char *w = tcf_word(ps);

	if (!w || !mqtx__tc_matches(w, "index"))
		return 0;
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (mqtx__tc_get_u32(tcf_word(ps), &a->index, base))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%sIllegal \"index\"", who);
	ps->i++;
	return 1;
}

int mqtx__tcf_numeric_handle(const char *s, uint32_t *h, struct tcf_parse *ps)
{
	if (mqtx__tc_get_u32(s, h, 0))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "Illegal handle \"%s\", must be numeric.", s);
	return 0;
}

int mqtx__tcf_usage_exit(struct tcf_parse *ps, const char *usage)
{
	mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", usage);
	ps->exit = MQTX_TC_EXIT_ABORT; /* tc's usage() exits -1 */
	return -EINVAL;
}

int mqtx__tcf_words(struct tcf_parse *ps, tcf_word_fn *fn, void *priv, bool help_prefix,
		    const char *usage)
{
	const char *w;
	int n = 0, rc;

	while ((w = tcf_word(ps))) {
		if (help_prefix ? mqtx__tc_matches(w, "help") : !strcmp(w, "help"))
			return mqtx__tcf_usage_exit(ps, usage);
		rc = fn(priv, ps);
		if (rc < 0)
			return rc;
		if (rc)
			break;
		ps->i++; /* tc's argc--, argv++ past the option's last word */
		n++;
	}
	return n;
}

/* ---- protocols (ll_proto_a2n / ll_proto_n2a) ---- */

static const struct {
	uint16_t id;
	const char *name;
} protos[] = {
	{ 0x0060, "loop" },   { 0x0800, "ip" },	      { 0x0806, "arp" },     { 0x8035, "rarp" },
	{ 0x86DD, "ipv6" },   { 0x8863, "ppp_disc" }, { 0x8864, "ppp_ses" }, { 0x0003, "all" },
	{ 0x8100, "802.1Q" }, { 0x88A8, "802.1ad" },  { 0x8847, "mpls_uc" }, { 0x8848, "mpls_mc" },
	{ 0x0800, "ipv4" },   { 0x88CC, "lldp" },
};

int mqtx__tcf_proto_parse(const char *s, uint16_t *proto)
{
	for (size_t i = 0; i < ARRAY_SIZE(protos); i++) {
		if (!strcasecmp(protos[i].name, s)) {
			*proto = protos[i].id;
			return 0;
		}
	}
	return mqtx__tc_get_u16(s, proto, 0);
}

const char *mqtx__tcf_proto_name(uint16_t proto, char *buf, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(protos); i++)
		if (protos[i].id == proto)
			return protos[i].name;
	snprintf(buf, len, "[%u]", proto);
	return buf;
}

/* ---- verdicts (action_a2n, parse_action_control, print_action_control) ---- */

static const struct {
	const char *word;
	int verdict;
} controls[] = {
	{ "continue", MQTX_ACT_UNSPEC }, { "drop", MQTX_ACT_SHOT },
	{ "shot", MQTX_ACT_SHOT },	 { "pass", MQTX_ACT_OK },
	{ "ok", MQTX_ACT_OK },		 { "reclassify", MQTX_ACT_RECLASSIFY },
	{ "pipe", MQTX_ACT_PIPE },	 { "goto", MQTX_ACT_GOTO_CHAIN },
	{ "jump", MQTX_ACT_JUMP },
};

/* action_a2n(): the first word the argument is a prefix of; with @allow_num a number too. */
static int control_of(const char *w, int *verdict, bool allow_num)
{
	char *end;
	long n;

	for (size_t i = 0; i < ARRAY_SIZE(controls); i++) {
		if (mqtx__tc_matches(w, controls[i].word)) {
			*verdict = controls[i].verdict;
			return 0;
		}
	}
	if (!allow_num || !*w)
		return -EINVAL;
	n = strtol(w, &end, 10);
	if (*end)
		return -EINVAL;
	*verdict = (int)n;
	return 0;
}

int mqtx__tcf_control_word(const char *w, int *verdict)
{
	return control_of(w, verdict, true);
}

bool mqtx__tcf_is_control(const char *w)
{
	int v;

	return !control_of(w, &v, false);
}

int mqtx__tcf_parse_control(struct tcf_parse *ps, int *verdict, bool allow_num)
{
	const char *w = tcf_word(ps);
	uint32_t n;

	if (!w || control_of(w, verdict, allow_num))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Bad action type %s", w ? w : "");
	if (*verdict == MQTX_ACT_GOTO_CHAIN) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (!mqtx__tc_matches(tcf_word(ps), "chain"))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "\"chain index\" expected");
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &n, 10) || n > MQTX_ACT_EXT_MASK)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"chain index\"");
		*verdict |= (int)n;
	} else if (*verdict == MQTX_ACT_JUMP) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &n, 10) || n > MQTX_ACT_EXT_MASK)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Invalid \"jump count\" (%s)",
					      tcf_word(ps));
		*verdict |= (int)n;
	}
	ps->i++;
	return 0;
}

const char *mqtx__tcf_control_name(int verdict, char *buf, size_t len)
{
	switch (verdict) {
	case MQTX_ACT_UNSPEC:
		return "continue";
	case MQTX_ACT_OK:
		return "pass";
	case MQTX_ACT_SHOT:
		return "drop";
	case MQTX_ACT_RECLASSIFY:
		return "reclassify";
	case MQTX_ACT_PIPE:
		return "pipe";
	case MQTX_ACT_STOLEN:
		return "stolen";
	}
	if ((verdict & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_GOTO_CHAIN)
		return "goto";
	if ((verdict & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_JUMP)
		return "jump";
	snprintf(buf, len, "%d", verdict);
	return buf;
}

void mqtx__tcf_print_control(struct tc_out *p, const char *prefix, int verdict, const char *suffix)
{
	char b[16];

	mqtx__out_str(p, OUT_FP, NULL, "%s", prefix);
	mqtx__out_open(p, "control_action");
	mqtx__out_str(p, OUT_ANY, "type", "%s", mqtx__tcf_control_name(verdict, b, sizeof(b)));
	if ((verdict & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_GOTO_CHAIN)
		mqtx__out_uint(p, OUT_ANY, "chain", " chain %llu",
			       (uint32_t)verdict & MQTX_ACT_EXT_MASK);
	if ((verdict & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_JUMP)
		mqtx__out_uint(p, OUT_ANY, "jump", " %llu", (uint32_t)verdict & MQTX_ACT_EXT_MASK);
	mqtx__out_close(p);
	mqtx__out_str(p, OUT_FP, NULL, "%s", suffix);
}

/* ---- class ids ---- */

int mqtx__tcf_parse_classid(struct tcf_parse *ps, uint32_t *classid)
{
	if (mqtx__tcf_next(ps))
		return -EINVAL;
	if (mqtx__classid_parse(tcf_word(ps), classid))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"classid\"");
	ps->i++;
	return 0;
}

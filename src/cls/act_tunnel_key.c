// SPDX-License-Identifier: MIT
/* tunnel_key: read as tc reads it, then refused as the kernel would refuse an action it cannot
 * carry out: Linux's act_tunnel_key.c attaches tunnel metadata (addresses, key, options) for
 * a metadata-mode tunnel device (vxlan, geneve, erspan in collect_md mode) to encapsulate
 * with, or takes it off; mqtx has no tunnel devices to read it. */
#include <errno.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

#define TUNNEL_KEY_USAGE                                     \
	"Usage: tunnel_key unset\n"                          \
	"       tunnel_key set <TUNNEL_KEY>\n"               \
	"Where TUNNEL_KEY is a combination of:\n"            \
	"id <TUNNELID>\n"                                    \
	"src_ip <IP> (mandatory)\n"                          \
	"dst_ip <IP> (mandatory)\n"                          \
	"dst_port <UDP_PORT>\n"                              \
	"geneve_opts | vxlan_opts | erspan_opts <OPTIONS>\n" \
	"csum | nocsum (default is \"csum\")\n"

#define TUNNEL_KEY_REFUSED                                                                         \
	"Error: tunnel_key: not supported: mqtx has no tunnel devices (vxlan, geneve, erspan) to " \
	"encapsulate with the metadata it sets."

struct tunnel_key {
	int verdict;
};

/* ---- data path: never runs (the parse refuses every tunnel_key action) ---- */

static int tunnel_key_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct tunnel_key *t = tcf_act_priv(a);

	(void)pk;
	(void)res;
	return t->verdict;
}

/* ---- control path ---- */

/* tc's words, and whether each takes a value. */
static const struct {
	const char *word;
	bool value;
} words[] = {
	{ "unset", false },	 { "set", false },	 { "src_ip", true },
	{ "dst_ip", true },	 { "id", true },	 { "dst_port", true },
	{ "geneve_opts", true }, { "vxlan_opts", true }, { "erspan_opts", true },
	{ "tos", true },	 { "ttl", true },	 { "csum", false },
	{ "nocsum", false },	 { "nofrag", false },
};

static int tunnel_key_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct tunnel_key *t = tcf_act_priv(a);
	const char *w;

	t->verdict = MQTX_ACT_PIPE;
	while ((w = tcf_word(ps))) {
		size_t k;

		if (mqtx__tc_matches(w, "help")) {
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", TUNNEL_KEY_USAGE);
			ps->exit = MQTX_TC_EXIT_ABORT;
			return -EINVAL;
		}
		for (k = 0; k < ARRAY_SIZE(words); k++)
			if (!strcmp(w, words[k].word))
				break;
		if (k == ARRAY_SIZE(words))
			break;
		if (words[k].value && mqtx__tcf_next(ps))
			return -EINVAL;
		ps->i++;
	}
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &t->verdict, false))
		return -EINVAL;
	w = tcf_word(ps);
	if (w && mqtx__tc_matches(w, "index")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &a->index, 10))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "tunnel_key: Illegal \"index\"");
		ps->i++;
	}
	return mqtx__tcf_refuse_late(ps, TUNNEL_KEY_REFUSED);
}

static void tunnel_key_dump(const struct tcf_action *a, struct tc_out *p)
{
	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "tunnel_key");
	mqtx__out_nl(p);
	mqtx__out_uint(p, OUT_ANY, "index", "\t index %llu", a->index);
	mqtx__out_nl(p);
}

const struct tcf_action_ops mqtx__tcf_tunnel_key_ops = {
	.kind = "tunnel_key",
	.usage = TUNNEL_KEY_USAGE,
	.priv_size = sizeof(struct tunnel_key),
	.parse = tunnel_key_parse,
	.act = tunnel_key_act,
	.dump = tunnel_key_dump,
};

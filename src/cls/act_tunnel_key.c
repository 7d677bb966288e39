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
	int verdict = MQTX_ACT_PIPE; /* read as tc reads it; the action is refused */
	const char *w;

	while ((w = tcf_word(ps))) {
		size_t k;

		if (mqtx__tc_matches(w, "help"))
			return mqtx__tcf_usage_exit(ps, TUNNEL_KEY_USAGE);
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
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &verdict, false))
		return -EINVAL;
	if (mqtx__tcf_act_index(ps, a, "tunnel_key: ", 10) < 0)
		return -EINVAL;
	return mqtx__tcf_refuse_late(ps, TUNNEL_KEY_REFUSED);
}

const struct tcf_action_ops mqtx__tcf_tunnel_key_ops = {
	.kind = "tunnel_key",
	.usage = TUNNEL_KEY_USAGE,
	.parse = tunnel_key_parse,
	.act = mqtx__tcf_refused_act,
	.dump = mqtx__tcf_refused_dump,
};

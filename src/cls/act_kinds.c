// SPDX-License-Identifier: MIT
/* The action kinds mqtx knows. */
#include <errno.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

/* one a line, for the diffs that add one */
/* clang-format off */
static const struct tcf_action_ops *const action_kinds[] = {
	&mqtx__tcf_gact_ops,
	&mqtx__tcf_skbedit_ops,
	&mqtx__tcf_police_ops,
	&mqtx__tcf_mirred_ops,
	&mqtx__tcf_vlan_ops,
	&mqtx__tcf_csum_ops,
	&mqtx__tcf_skbmod_ops,
	&mqtx__tcf_pedit_ops,
	&mqtx__tcf_tunnel_key_ops,
	&mqtx__tcf_sample_ops,
};
/* clang-format on */

const struct tcf_action_ops *mqtx__tcf_action_kind(const char *kind)
{
	for (size_t i = 0; kind && i < ARRAY_SIZE(action_kinds); i++)
		if (!strcmp(action_kinds[i]->kind, kind))
			return action_kinds[i];
	return NULL;
}

const struct tcf_action_ops *mqtx__tcf_act_kind_of(const char *word)
{
	const struct tcf_action_ops *ops = mqtx__tcf_action_kind(word);

	return ops ? ops : &mqtx__tcf_gact_ops;
}

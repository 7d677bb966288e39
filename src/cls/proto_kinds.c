// SPDX-License-Identifier: MIT
/* The classifier kinds mqtx knows. */
#include "cls/cls_int.h"
#include "cls/flower.h"
#include "cls/kinds.h"

static const struct tcf_proto_ops *const proto_kinds[] = {
	&mqtx__tcf_matchall_ops,
	&mqtx__tcf_flower_ops,
	&mqtx__tcf_u32_ops,
	&mqtx__tcf_basic_ops,
};

const struct tcf_proto_ops *mqtx__tcf_proto_kind(const char *kind)
{
	for (size_t i = 0; kind && i < ARRAY_SIZE(proto_kinds); i++)
		if (!strcmp(proto_kinds[i]->kind, kind))
			return proto_kinds[i];
	return NULL;
}

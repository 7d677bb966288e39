// SPDX-License-Identifier: MIT
/* Filter objects: every classifier's filter begins with struct tcf_filter, made when a change
 * is prepared and freed when a change that failed is undone or, after a grace period, when the
 * rule set that held it is gone. */
#include "cls/cls_int.h"

struct tcf_filter *mqtx__tcf_filter_alloc(size_t size, uint32_t handle)
{
	struct tcf_filter *f = mqtx__zalloc(size);

	if (f)
		f->handle = handle;
	return f;
}

void mqtx__tcf_filter_free(const struct tcf_proto_ops *ops, struct tcf_filter *f)
{
	if (!f)
		return;
	if (ops && ops->free_filter)
		ops->free_filter(f);
	mqtx__tcf_exts_free(&f->exts);
	mqtx__free(f);
}

// SPDX-License-Identifier: MIT
/* Dumps of a qdisc's options and statistics, taken under its lock, with tc's dump emitter. */
#include <errno.h>

#include "core/core.h"
#include "tc/tc.h"

enum dump_what { DUMP_OPTIONS, DUMP_XSTATS, DUMP_CLASS_OPTIONS, DUMP_CLASS_XSTATS };

static int dump(struct mqtx_qdisc *q, enum dump_what what, uint32_t minor, unsigned flags,
		char *text, size_t text_len, char *json, size_t json_len)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;
	bool builtin = q->flags & MQTX_QF_BUILTIN;
	struct mqtx_dump d;

	if (!text_len || !json_len)
		return -ENOSPC;
	/* tc prints xstats on lines of their own, each indented by two blanks (print_xstats). */
	mqtx__dump_begin(&d, flags, what == DUMP_OPTIONS || what == DUMP_CLASS_OPTIONS ? "" : "  ",
			 text, text_len, json, json_len);
	mqtx_spin_lock(mqtx__qdisc_lock(q));
	if (what == DUMP_OPTIONS && q->ops->dump && !builtin)
		q->ops->dump(q, &d);
	else if (what == DUMP_XSTATS && q->ops->dump_stats && !builtin)
		q->ops->dump_stats(q, &d);
	else if (what == DUMP_CLASS_OPTIONS && cl && cl->dump)
		cl->dump(q, minor, &d);
	else if (what == DUMP_CLASS_XSTATS && cl && cl->dump_stats)
		cl->dump_stats(q, minor, &d);
	mqtx_spin_unlock(mqtx__qdisc_lock(q));
	return mqtx__dump_end(&d);
}

int mqtx_qdisc_dump_options(struct mqtx_qdisc *q, unsigned flags, char *text, size_t text_len,
			    char *json, size_t json_len)
{
	return dump(q, DUMP_OPTIONS, 0, flags, text, text_len, json, json_len);
}

int mqtx_qdisc_dump_opts(struct mqtx_qdisc *q, char *text, size_t text_len, char *json,
			 size_t json_len)
{
	return dump(q, DUMP_OPTIONS, 0, 0, text, text_len, json, json_len);
}

int mqtx_qdisc_dump_xstats(struct mqtx_qdisc *q, char *text, size_t text_len, char *json,
			   size_t json_len)
{
	return dump(q, DUMP_XSTATS, 0, 0, text, text_len, json, json_len);
}

int mqtx_class_dump_xstats(struct mqtx_qdisc *q, uint32_t minor, char *text, size_t text_len,
			   char *json, size_t json_len)
{
	return dump(q, DUMP_CLASS_XSTATS, minor, 0, text, text_len, json, json_len);
}

int mqtx__class_dump_options(struct mqtx_qdisc *q, uint32_t minor, unsigned flags, char *text,
			     size_t text_len, char *json, size_t json_len)
{
	return dump(q, DUMP_CLASS_OPTIONS, minor, flags, text, text_len, json, json_len);
}

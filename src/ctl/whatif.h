/* SPDX-License-Identifier: MIT */
/* The whatif command: its words, each configuration run in a context of its own on a virtual
 * clock (whatif.c), and the report (whatif_print.c). */
#ifndef MQTX_CTL_WHATIF_H
#define MQTX_CTL_WHATIF_H

#include <mqtx/ctl.h>

#include "gen/whatif.h"

#define WHATIF_CONFIGS_MAX 16

/* One configuration's run: its file, its result and the wall time it took. */
struct whatif_run {
	const char *config;
	struct mqtx_whatif_result *r;
	double wall_s;
};

/**
 * mqtx__whatif_print() - the report of @n runs of the capture @path (@cap): a table with the runs
 * side by side, or with @json the JSON document {"capture", "runs": [...]}.
 */
void mqtx__whatif_print(struct mqtx_buf *out, bool json, const char *path,
			const struct mqtx_whatif_capture *cap, const struct whatif_run *runs,
			unsigned n);

#endif

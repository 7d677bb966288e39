// SPDX-License-Identifier: MIT
/* What "qdisc add ... KIND help" prints: each built-in kind's options, as tc's explain() of its
 * q_KIND.c prints them (tc keeps them in the tool, not in the kernel's sch_KIND.c: so here). */
#include <string.h>

#include "ctl/ctl_int.h"

static const struct {
	const char *kind, *usage;
} usages[] = {
	{ "pfifo", "Usage: ... pfifo [ limit PACKETS ]" },
	{ "bfifo", "Usage: ... bfifo [ limit BYTES ]" },
	{ "pfifo_head_drop", "Usage: ... pfifo_head_drop [ limit PACKETS ]" },
	{ "pfifo_fast", "Usage: ... pfifo_fast  (no options: three bands, Linux's priomap)" },
	{ "noqueue", "Usage: ... noqueue  (no options: packets go straight to the driver)" },
	{ "mq", "Usage: ... mq  (no options: one class per TX queue)" },
	{ "prio", "Usage: ... prio [ bands NUMBER ] [ priomap P1 P2 ... ]" },
	{ "tbf", "Usage: ... tbf limit BYTES burst BYTES rate RATE [ mtu BYTES ]\n"
		 "        [ peakrate RATE ] [ latency TIME ]\n"
		 "(burst is also buffer or maxburst, mtu also minburst; give limit or latency)" },
	{ "codel", "Usage: ... codel [ limit PACKETS ] [ target TIME ] [ interval TIME ]\n"
		   "        [ ce_threshold TIME ] [ ecn | noecn ]" },
	{ "fq_codel", "Usage: ... fq_codel [ limit PACKETS ] [ flows NUMBER ]\n"
		      "        [ memory_limit BYTES ] [ target TIME ] [ interval TIME ]\n"
		      "        [ quantum BYTES ] [ ce_threshold TIME ] [ ecn | noecn ]\n"
		      "        [ drop_batch SIZE ]" },
	{ "ingress", "Usage: ... ingress [ rate RATE burst BYTES ]" },
	{ "mqprio", "Usage: ... mqprio [ num_tc NUMBER ] [ map P0 P1 ... ]\n"
		    "        [ queues count1@offset1 count2@offset2 ... ] [ hw 1|0 ]" },
	{ "wme",
	  "Usage: ... wme [ [ vo | vi | be | bk ]... { limit PACKETS | deadline TIME } ]...\n"
	  "        [ fifo | fq_codel ] [ target TIME ] [ interval TIME ]\n"
	  "        [ quantum BYTES ] [ flows NUMBER ] [ ecn | noecn ]" },
};

const char *mqtx__qdisc_usage(const char *kind)
{
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++)
		if (!strcmp(usages[i].kind, kind))
			return usages[i].usage;
	return NULL;
}

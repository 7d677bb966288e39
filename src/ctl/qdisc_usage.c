// SPDX-License-Identifier: MIT
/* What "qdisc add ... KIND help" prints: each built-in kind's options, as tc's explain() of its
 * q_KIND.c prints them (tc keeps them in the tool, not in the kernel's sch_KIND.c: so here),
 * and "class help". */
#include <stdbool.h>
#include <string.h>

#include "ctl/ctl_int.h"

static const struct {
	const char *kind, *usage;
} usages[] = {
	/* tc's own words where mqtx takes what tc takes */
	{ "pfifo", "Usage: ... <[p|b]fifo | pfifo_head_drop> [ limit NUMBER ]" },
	{ "bfifo", "Usage: ... <[p|b]fifo | pfifo_head_drop> [ limit NUMBER ]" },
	{ "pfifo_head_drop", "Usage: ... <[p|b]fifo | pfifo_head_drop> [ limit NUMBER ]" },
	{ "prio", "Usage: ... prio bands NUMBER priomap P1 P2...[multiqueue]" },
	{ "tbf", "Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ]\n"
		 "\t[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]" },
	{ "codel", "Usage: ... codel [ limit PACKETS ] [ target TIME ]\n"
		   "\t\t [ interval TIME ] [ ecn | noecn ]\n"
		   "\t\t [ ce_threshold TIME ]" },
	/* tc's form, with what mqtx takes */
	{ "fq_codel", "Usage: ... fq_codel\t[ limit PACKETS ] [ flows NUMBER ]\n"
		      "[ memory_limit BYTES ]\n"
		      "[ target TIME ] [ interval TIME ]\n"
		      "[ quantum BYTES ] [ [no]ecn ]\n"
		      "[ ce_threshold TIME ]\n"
		      "[ drop_batch SIZE ]" },
	{ "fq", "Usage: ... fq\t[ limit PACKETS ] [ flow_limit PACKETS ]\n"
		"\t\t[ quantum BYTES ] [ initial_quantum BYTES ]\n"
		"\t\t[ maxrate RATE  ] [ buckets NUMBER ]\n"
		"\t\t[ [no]pacing ] [ refill_delay TIME ]\n"
		"\t\t[ low_rate_threshold RATE ]\n"
		"\t\t[ orphan_mask MASK]\n"
		"\t\t[ timer_slack TIME]\n"
		"\t\t[ ce_threshold TIME ]\n"
		"\t\t[ horizon TIME ]\n"
		"\t\t[ horizon_{cap|drop} ]\n"
		"\t\t[ priomap P0 .. P15 ] [ weights W0 W1 W2 ]" },
	{ "taprio", "Usage: ... taprio clockid CLOCKID\n"
		    "\t\t[num_tc NUMBER] [map P0 P1 ...] "
		    "\t\t[queues COUNT@OFFSET COUNT@OFFSET COUNT@OFFSET ...] "
		    "\t\t[ [sched-entry index cmd gate-mask interval] ... ] "
		    "\t\t[base-time time] [txtime-delay delay]\n"
		    "CLOCKID must be a valid SYS-V id (i.e. CLOCK_TAI)" },
	{ "mqprio", "Usage: ... mqprio\t[num_tc NUMBER] [map P0 P1 ...]\n"
		    "\t\t\t[queues count1@offset1 count2@offset2 ...] [hw 1|0]" },
	{ "ingress", "Usage: ... ingress [ rate RATE burst BYTES ]" },
	/* kinds tc has no parser for */
	{ "pfifo_fast", "Usage: ... pfifo_fast  (no options: three bands, Linux's priomap)" },
	{ "noqueue", "Usage: ... noqueue  (no options: packets go straight to the driver)" },
	{ "mq", "Usage: ... mq  (no options: one class per TX queue)" },
	{ "wme",
	  "Usage: ... wme [ [ vo | vi | be | bk ]... { limit PACKETS | deadline TIME } ]...\n"
	  "        [ fifo | fq_codel ] [ target TIME ] [ interval TIME ]\n"
	  "        [ quantum BYTES ] [ flows NUMBER ] [ ecn | noecn ]" },
};

bool mqtx__qdisc_tc_unparsable(const char *kind)
{
	/* tc 6.1 prints pfifo_fast (q_prio.c) but has no parser for it: options are refused
	 * with exit -1; a kind it does not know at all refuses them with exit 1. */
	return !strcmp(kind, "pfifo_fast");
}

const char *mqtx__qdisc_usage(const char *kind)
{
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++)
		if (!strcmp(usages[i].kind, kind))
			return usages[i].usage;
	return NULL;
}

/* What "class help" prints (and "help" among the words of class show). */
const char mqtx__class_usage[] =
	"Usage: mqtx class [ add | del | change | replace | show ] dev STRING\n"
	"       [ classid CLASSID ] [ root | parent CLASSID ]\n"
	"\n"
	"       mqtx class show [ dev STRING ] [ root | parent CLASSID ] [ classid CLASSID ]\n"
	"                       [ qdisc QHANDLE ]\n"
	"Classes are those of the device's classful qdiscs (mq, mqprio, prio, tbf,\n"
	"taprio): they come with their qdisc, not added one by one.\n";

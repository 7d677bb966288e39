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
	{ "ets",
	  "Usage: ... ets [bands NUMBER] [strict NUMBER] [quanta Q1 Q2...] [priomap P1 P2...]" },
	{ "htb",
	  "Usage: ... qdisc add ... htb [default N] [r2q N]\n"
	  "                      [direct_qlen P] [offload]\n"
	  " default  minor id of class to which unclassified packets are sent {0}\n"
	  " r2q      DRR quantums are computed as rate in Bps/r2q {10}\n"
	  " debug    string of 16 numbers each 0-3 {0}\n"
	  "\n"
	  " direct_qlen  Limit of the direct queue {in packets}\n"
	  " offload  enable hardware offload\n"
	  "... class add ... htb rate R1 [burst B1] [mpu B] [overhead O]\n"
	  "                      [prio P] [slot S] [pslot PS]\n"
	  "                      [ceil R2] [cburst B2] [mtu MTU] [quantum Q]\n"
	  " rate     rate allocated to this class (class can still borrow)\n"
	  " burst    max bytes burst which can be accumulated during idle period {computed}\n"
	  " mpu      minimum packet size used in rate computations\n"
	  " overhead per-packet size overhead used in rate computations\n"
	  " linklay  adapting to a linklayer e.g. atm\n"
	  " ceil     definite upper class rate (no borrows) {rate}\n"
	  " cburst   burst but for ceil {computed}\n"
	  " mtu      max packet size we create rate map for {1600}\n"
	  " prio     priority of leaf; lower are served first {0}\n"
	  " quantum  how much bytes to serve from leaf at once {use r2q}\n"
	  "\n"
	  "TC HTB version 3.3" },
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
	"       mqtx class add dev STRING parent CLASSID classid CLASSID htb rate RATE ...\n"
	"       mqtx class change dev STRING classid CLASSID ets quantum BYTES\n"
	"htb's classes are added, changed and deleted one by one; the classes of mq,\n"
	"mqprio, prio, tbf and ets come with their qdisc (ets's quanta change per class).\n";

// SPDX-License-Identifier: MIT
/* noop: the qdisc of every queue of a device that is down (Linux's noop_qdisc). */
#include "core/core.h"

/*
 * The qdisc of a queue whose device is down. It holds nothing and has no queue lock of its
 * own: the transmit path drops for it (MQTX_DROP_DOWN, on the packet's queue) before any
 * enqueue, and without an enqueue it is never run (a queue woken while down runs nothing).
 */
static struct mqtx_pkt *noop_dequeue(struct mqtx_qdisc *q)
{
	(void)q;
	return NULL;
}

static const struct mqtx_qdisc_ops noop_ops = {
	.id = "noop",
	.dequeue = noop_dequeue,
	.peek = noop_dequeue,
};

struct mqtx_qdisc mqtx__noop_qdisc = {
	.ops = &noop_ops,
	.flags = MQTX_QF_BUILTIN,
};

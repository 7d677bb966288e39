// SPDX-License-Identifier: MIT
/* noqueue: no queue at all; packets go straight to the driver and what it refuses is dropped
 * (the qdisc of virtual devices). Recognised by its missing enqueue. */
#include <mqtx/qdisc.h>

static struct mqtx_pkt *noqueue_dequeue(struct mqtx_qdisc *q)
{
	(void)q;
	return NULL;
}

const struct mqtx_qdisc_ops mqtx__noqueue_qdisc_ops = {
	.id = "noqueue",
	.usage = "Usage: ... noqueue  (no options: packets go straight to the driver)",
	.dequeue = noqueue_dequeue,
	.peek = noqueue_dequeue,
};

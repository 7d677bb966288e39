// SPDX-License-Identifier: MIT
/* The qdisc watchdog: the timer of the qdiscs that hold packets back (tbf, htb, fq, netem). */
#include "qdisc/watchdog.h"

/* qdisc_watchdog(): the queue runs again once the callback has finished (it is a section). */
static void qdisc_watchdog(struct mqtx_timer *t, void *arg)
{
	struct mqtx_qdisc *q = arg;

	(void)t;
	mqtx_txq_schedule(q->dev_queue);
}

void mqtx__qdisc_watchdog_init(struct mqtx_timer *wd, struct mqtx_qdisc *q)
{
	mqtx_timer_init(wd, mqtx_dev_clock(q->dev), qdisc_watchdog, q);
}

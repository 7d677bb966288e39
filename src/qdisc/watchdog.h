/* SPDX-License-Identifier: MIT */
/* The qdisc watchdog (Linux's qdisc_watchdog): a timer a throttled qdisc arms for when its
 * head may leave, which then schedules the qdisc's queue to run again. */
#ifndef MQTX_QDISC_WATCHDOG_H
#define MQTX_QDISC_WATCHDOG_H

#include <mqtx/qdisc.h>

/* Prepare @wd on @q's device clock; arm it with mqtx_timer_arm() (qdisc_watchdog_init). */
void mqtx__qdisc_watchdog_init(struct mqtx_timer *wd, struct mqtx_qdisc *q);

#endif

// SPDX-License-Identifier: MIT
/* Bottom-half sections: per-thread sections in which deferred TX work collects, to run when
 * the outermost section ends (Linux's local_bh_disable/local_bh_enable and raise_softirq). */
#include <mqtx/dev.h>

#include "base/internal.h"

MQTX_TLS unsigned mqtx__bh_count;
MQTX_TLS mqtx__softirq_fn mqtx__softirq_pending;

void mqtx__do_softirq(void)
{
	mqtx__softirq_fn fn = mqtx__softirq_pending;

	/* Run with the section still held, as Linux runs softirqs with bottom halves off: what
	 * the handler schedules collects here too. The handler leaves no work behind (it runs
	 * a bounded number of rounds and hands the rest to its thread), so one call is enough. */
	mqtx__softirq_pending = NULL;
	fn();
	mqtx__softirq_pending = NULL;
}

void mqtx_bh_disable(void)
{
	mqtx__bh_disable();
}

void mqtx_bh_enable(void)
{
	if (unlikely(!mqtx__bh_count)) {
		mqtx_warn("mqtx_bh_enable() without mqtx_bh_disable()");
		return;
	}
	mqtx__bh_enable();
}

// SPDX-License-Identifier: MIT
/* RCU for qdisc and hasher pointers: liburcu's bulletproof flavour, which registers reader
 * threads by itself (a library cannot ask every application thread to register). */
/* The small read-side functions inline (liburcu's _LGPL_SOURCE, for LGPL-compatible code); with
 * -ftls-model=initial-exec (meson.build) they reach liburcu's thread-local reader directly. */
#define _LGPL_SOURCE
#include <urcu-bp.h>

#include "base/rcu.h"

void mqtx__rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

void mqtx__rcu_read_unlock(void)
{
	urcu_bp_read_unlock();
}

void mqtx__rcu_synchronize(void)
{
	urcu_bp_synchronize_rcu();
}

// SPDX-License-Identifier: MIT
/* RCU for qdisc and hasher pointers: liburcu's bulletproof flavour, which registers reader
 * threads by itself (a library cannot ask every application thread to register). */
#include <urcu-bp.h>

#include "core.h"

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

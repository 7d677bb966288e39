// SPDX-License-Identifier: MIT
/* The slow path of the spinlock: spin briefly, yield, then sleep in short futex waits. */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"

#define SPINS  128
#define YIELDS 4
#define NAP_NS 20000 /* longest sleep before looking again: unlock wakes nobody */

/*
 * Queue locks are held for a few list operations, so a short spin usually wins. When it does
 * not, the holder is likely preempted (more threads than CPUs, or a busy machine): spinning or
 * yielding in a crowd then takes the CPU the holder needs to finish. After a few yields a
 * waiter naps in a futex wait on the lock word, so unlock stays one plain store; a nap ends
 * early if the word changes before it starts, and at the latest after NAP_NS.
 */
void mqtx__spin_wait(struct mqtx_spinlock *l)
{
	struct timespec nap = { 0, NAP_NS };
	unsigned tries = 0;

	do {
		while (atomic_load_explicit(&l->v, memory_order_relaxed)) {
			if (++tries < SPINS)
				mqtx_cpu_relax();
			else if (tries < SPINS + YIELDS)
				sched_yield();
			else
				syscall(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 1, &nap, NULL, 0);
		}
	} while (atomic_exchange_explicit(&l->v, 1, memory_order_acquire));
}

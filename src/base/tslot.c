// SPDX-License-Identifier: MIT
/* Thread slots and thread ids. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/tslot.h"

/* 0: not assigned yet; n > 0: slot n - 1; -1: none was free. */
MQTX_TLS int mqtx__tslot_cached;
MQTX_TLS int mqtx__tid_cached;

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t slot_used;
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static void (*_Atomic release_hook)(int slot);

void mqtx__tslot_on_release(void (*fn)(int slot))
{
	atomic_store(&release_hook, fn);
}

static void slot_release(void *arg)
{
	int s = (int)(intptr_t)arg - 1;
	void (*hook)(int slot) = atomic_load(&release_hook);

	/* Before the slot can be handed to another thread. */
	if (hook)
		hook(s);
	/* A later TLS destructor (the scheduler's last mqtx_tx_action) may still free packets
	 * or transmit: this thread must not use a slot another thread may own by then. */
	mqtx__tslot_cached = -1;
	pthread_mutex_lock(&slot_lock);
	slot_used &= ~(1ull << s);
	pthread_mutex_unlock(&slot_lock);
}

static void slot_key_init(void)
{
	pthread_key_create(&slot_key, slot_release);
}

int mqtx__tslot_assign(void)
{
	int s = -1;

	pthread_once(&slot_once, slot_key_init);
	pthread_mutex_lock(&slot_lock);
	if (~slot_used) {
		s = __builtin_ctzll(~slot_used);
		slot_used |= 1ull << s;
	}
	pthread_mutex_unlock(&slot_lock);
	if (s < 0) {
		mqtx__tslot_cached = -1;
		return -1;
	}
	pthread_setspecific(slot_key, (void *)(intptr_t)(s + 1));
	mqtx__tslot_cached = s + 1;
	return s;
}

int mqtx__tid_assign(void)
{
	mqtx__tid_cached = (int)syscall(SYS_gettid);
	return mqtx__tid_cached;
}

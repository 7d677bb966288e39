/* SPDX-License-Identifier: MIT */
/* Thread slots: small dense ids for per-thread caches and counters, recycled at thread exit. */
#ifndef MQTX_TSLOT_H
#define MQTX_TSLOT_H

#include "base/internal.h"

#define MQTX_MAX_TSLOTS 64

extern MQTX_TLS int mqtx__tslot_cached;
int mqtx__tslot_assign(void);

/**
 * mqtx__tslot_on_release() - have @fn(slot) called as a thread that holds a slot exits, before
 * the slot can go to another thread (the packet pools give back that thread's caches). One
 * hook; setting it again replaces it.
 */
void mqtx__tslot_on_release(void (*fn)(int slot));

/** mqtx__tslot() - this thread's slot in [0, MQTX_MAX_TSLOTS), or -1 when all are taken. */
static inline int mqtx__tslot(void)
{
	int s = mqtx__tslot_cached;

	return s > 0 ? s - 1 : (s < 0 ? -1 : mqtx__tslot_assign());
}

/** mqtx__tid() - a non-zero id of the calling thread (the xmit lock owner). */
extern MQTX_TLS int mqtx__tid_cached;
int mqtx__tid_assign(void);

static inline int mqtx__tid(void)
{
	return mqtx__tid_cached ? mqtx__tid_cached : mqtx__tid_assign();
}

#endif

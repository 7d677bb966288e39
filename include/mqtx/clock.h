/* SPDX-License-Identifier: MIT */
/* mqtx clocks: real monotonic time, or virtual time that the caller advances; timers on both. */
#ifndef MQTX_CLOCK_H
#define MQTX_CLOCK_H

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MQTX_NSEC_PER_SEC 1000000000ull

struct mqtx_clock;
struct mqtx_timer;

/** A timer callback: runs without clock locks held, in the clock's timer thread (real time) or
 *  in the thread that advances virtual time. It may re-arm its own timer. */
typedef void (*mqtx_timer_fn)(struct mqtx_timer *t, void *arg);

/**
 * struct mqtx_timer - embed in the owner; initialise with mqtx_timer_init(). Fields are private.
 */
struct mqtx_timer {
	struct mqtx_timer *next_, *prev_;
	struct mqtx_clock *clock_;
	uint64_t expires_;
	mqtx_timer_fn fn_;
	void *arg_;
	bool armed_;
};

/** mqtx_clock_real() - the process-wide monotonic clock (CLOCK_MONOTONIC, ns). Never freed. */
MQTX_API struct mqtx_clock *mqtx_clock_real(void);

/**
 * mqtx_clock_new_virtual() - a clock that moves only when mqtx_clock_advance() is called.
 * @start_ns: its initial time.
 * Return: 0 and *@out, or -ENOMEM.
 */
MQTX_API int mqtx_clock_new_virtual(uint64_t start_ns, struct mqtx_clock **out);

/** mqtx_clock_free() - free a virtual clock (no timer may be armed); NULL and the real clock
 *  are ignored. */
MQTX_API void mqtx_clock_free(struct mqtx_clock *c);

/** mqtx_clock_now() - the clock's time in ns. */
MQTX_API uint64_t mqtx_clock_now(const struct mqtx_clock *c);

/** mqtx_clock_is_virtual() - true for a virtual clock. */
MQTX_API bool mqtx_clock_is_virtual(const struct mqtx_clock *c);

/**
 * mqtx_clock_advance() - move a virtual clock forward by @delta_ns, firing every timer that
 * falls due, in expiry order, with the clock set to each timer's expiry while it runs.
 * Return: the number of timers fired, or -EINVAL for the real clock.
 */
MQTX_API int mqtx_clock_advance(struct mqtx_clock *c, uint64_t delta_ns);

/** mqtx_clock_advance_to() - the same up to the absolute time @t (no-op if @t is past). */
MQTX_API int mqtx_clock_advance_to(struct mqtx_clock *c, uint64_t t);

/** mqtx_clock_next_timer() - expiry of the earliest armed timer, or UINT64_MAX if none. */
MQTX_API uint64_t mqtx_clock_next_timer(struct mqtx_clock *c);

/** mqtx_timer_init() - prepare @t to call @fn(@t, @arg) on @c. */
MQTX_API void mqtx_timer_init(struct mqtx_timer *t, struct mqtx_clock *c, mqtx_timer_fn fn,
			      void *arg);

/** mqtx_timer_arm() - (re)arm @t to fire at absolute time @expires_ns (past: at once). */
MQTX_API void mqtx_timer_arm(struct mqtx_timer *t, uint64_t expires_ns);

/**
 * mqtx_timer_cancel() - disarm @t. On a real clock, waits until its callback is no longer
 * running (unless called from that callback). Returns true if it was armed.
 */
MQTX_API bool mqtx_timer_cancel(struct mqtx_timer *t);

/** mqtx_timer_armed() - true while @t is armed. */
MQTX_API bool mqtx_timer_armed(const struct mqtx_timer *t);

#ifdef __cplusplus
}
#endif
#endif

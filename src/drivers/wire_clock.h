/* SPDX-License-Identifier: MIT */
/* When the wire next completes something: the completion rounds of a simulated driver, one at a
 * time, on a timer of a virtual clock or on a thread of the real one (private to src/drivers/). */
#ifndef MQTX_DRIVERS_WIRE_CLOCK_H
#define MQTX_DRIVERS_WIRE_CLOCK_H

#include <pthread.h>

#include <mqtx/driver.h>

/* A round ("interrupt") at @now: complete what the wire finished by then. Runs with no lock of
 * the wire clock held, so it may arm the next round. */
typedef void (*wire_round_fn)(void *arg, uint64_t now);

/* Embedded in the driver's private data; the fields are wire_clock.c's. */
struct wire_clock {
	struct mqtx_clock *clock;
	bool virt;
	wire_round_fn round;
	void *arg;
	uint64_t coalesce_ns;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t next_at;	 /* the pending round, UINT64_MAX if none */
	uint64_t floor;		 /* no round before this (coalescing) */
	struct mqtx_timer timer; /* virtual time */
	pthread_t thread;	 /* real time */
	bool thread_run;
};

/* From the driver's init: rounds on @clock call @round(@arg, now). */
void mqtx__wire_clock_init(struct wire_clock *w, struct mqtx_clock *clock, wire_round_fn round,
			   void *arg);
/* From the driver's uninit. */
void mqtx__wire_clock_destroy(struct wire_clock *w);

/* From open: nothing pending, rounds at least @coalesce_ns apart. 0, or -EAGAIN when the thread
 * of the real clock cannot start. */
int mqtx__wire_clock_start(struct wire_clock *w, uint64_t coalesce_ns);
/* From stop: once it returns no round runs, until the next start. */
void mqtx__wire_clock_stop(struct wire_clock *w);

/* Ask for a round at @due (or later, when coalescing says so); UINT64_MAX asks for none. */
void mqtx__wire_clock_arm(struct wire_clock *w, uint64_t due);

#endif

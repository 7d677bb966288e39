// SPDX-License-Identifier: MIT
/* The wire clock of the simulated drivers: one completion round at a time, at the earliest time
 * asked for and no sooner than the coalescing delay after the last (ethtool -C's usecs), on a
 * timer in virtual time and on a thread of its own in real time. */
#include <errno.h>
#include <time.h>

#include "drivers/wire_clock.h"

/* Lock held: a round starts, nothing is pending any more, coalescing counts from @now. */
static void round_begin(struct wire_clock *w, uint64_t now)
{
	w->next_at = UINT64_MAX;
	w->floor = now + w->coalesce_ns;
}

static void wire_timer_fn(struct mqtx_timer *t, void *arg)
{
	struct wire_clock *w = arg;
	uint64_t now = mqtx_clock_now(w->clock);

	(void)t;
	pthread_mutex_lock(&w->lock);
	round_begin(w, now);
	pthread_mutex_unlock(&w->lock);
	w->round(w->arg, now);
}

static void *wire_thread(void *arg)
{
	struct wire_clock *w = arg;

	pthread_mutex_lock(&w->lock);
	while (w->thread_run) {
		uint64_t now = mqtx_clock_now(w->clock);

		if (w->next_at == UINT64_MAX) {
			pthread_cond_wait(&w->cond, &w->lock);
		} else if (now < w->next_at) {
			struct timespec ts = {
				.tv_sec = (time_t)(w->next_at / MQTX_NSEC_PER_SEC),
				.tv_nsec = (long)(w->next_at % MQTX_NSEC_PER_SEC),
			};

			pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		} else {
			round_begin(w, now);
			pthread_mutex_unlock(&w->lock);
			w->round(w->arg, now);
			pthread_mutex_lock(&w->lock);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

void mqtx__wire_clock_arm(struct wire_clock *w, uint64_t due)
{
	if (due == UINT64_MAX)
		return;
	pthread_mutex_lock(&w->lock);
	if (due < w->floor)
		due = w->floor;
	if (due < w->next_at) {
		w->next_at = due;
		if (w->virt)
			mqtx_timer_arm(&w->timer, due);
		else
			pthread_cond_signal(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
}

void mqtx__wire_clock_init(struct wire_clock *w, struct mqtx_clock *clock, wire_round_fn round,
			   void *arg)
{
	pthread_condattr_t ca;

	w->clock = clock;
	w->virt = mqtx_clock_is_virtual(clock);
	w->round = round;
	w->arg = arg;
	pthread_mutex_init(&w->lock, NULL);
	/* The thread sleeps until an absolute time of the real clock, which is CLOCK_MONOTONIC. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
}

void mqtx__wire_clock_destroy(struct wire_clock *w)
{
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
}

int mqtx__wire_clock_start(struct wire_clock *w, uint64_t coalesce_ns)
{
	w->coalesce_ns = coalesce_ns;
	w->next_at = UINT64_MAX;
	w->floor = 0;
	if (w->virt) {
		mqtx_timer_init(&w->timer, w->clock, wire_timer_fn, w);
		return 0;
	}
	w->thread_run = true;
	if (pthread_create(&w->thread, NULL, wire_thread, w))
		return -EAGAIN;
	return 0;
}

void mqtx__wire_clock_stop(struct wire_clock *w)
{
	if (w->virt) {
		mqtx_timer_cancel(&w->timer);
		return;
	}
	pthread_mutex_lock(&w->lock);
	w->thread_run = false;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
}

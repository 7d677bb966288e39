// SPDX-License-Identifier: MIT
/* Clocks (real monotonic or virtual) and one-shot timers kept in expiry order. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include <mqtx/clock.h>

#include "base/internal.h"

struct mqtx_clock {
	bool is_virtual;
	atomic_ullong vnow;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* real: the timer thread waits on it */
	pthread_cond_t done;	/* a callback finished */
	struct mqtx_timer head; /* sentinel of the list sorted by expiry */
	struct mqtx_timer *running;
	pthread_t runner;
	bool thread_started;
};

static struct mqtx_clock real_clock;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void clock_init(struct mqtx_clock *c, bool is_virtual, uint64_t start)
{
	pthread_condattr_t ca;

	c->is_virtual = is_virtual;
	atomic_init(&c->vnow, start);
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_cond_init(&c->done, NULL);
	pthread_condattr_destroy(&ca);
	c->head.next_ = c->head.prev_ = &c->head;
}

static void real_init(void)
{
	clock_init(&real_clock, false, 0);
}

struct mqtx_clock *mqtx_clock_real(void)
{
	pthread_once(&real_once, real_init);
	return &real_clock;
}

int mqtx_clock_new_virtual(uint64_t start_ns, struct mqtx_clock **out)
{
	struct mqtx_clock *c = mqtx__zalloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	clock_init(c, true, start_ns);
	*out = c;
	return 0;
}

void mqtx_clock_free(struct mqtx_clock *c)
{
	if (!c || !c->is_virtual)
		return;
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	pthread_cond_destroy(&c->done);
	mqtx__free(c);
}

uint64_t mqtx_clock_now(const struct mqtx_clock *c)
{
	struct timespec ts;

	if (c->is_virtual)
		return atomic_load_explicit(&c->vnow, memory_order_acquire);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * MQTX_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

bool mqtx_clock_is_virtual(const struct mqtx_clock *c)
{
	return c->is_virtual;
}

static void list_del(struct mqtx_timer *t)
{
	t->prev_->next_ = t->next_;
	t->next_->prev_ = t->prev_;
	t->armed_ = false;
}

/* Take the earliest timer due at or before @upto off the list and mark it running. */
static struct mqtx_timer *pop_due(struct mqtx_clock *c, uint64_t upto)
{
	struct mqtx_timer *t = c->head.next_;

	if (t == &c->head || t->expires_ > upto)
		return NULL;
	list_del(t);
	c->running = t;
	c->runner = pthread_self();
	return t;
}

/* Lock held, dropped around the callback. The callback is a section: the queues it wakes run
 * right after it (as a softirq raised by a timer runs when the interrupt ends), on this thread,
 * once the callback counts as finished, so mqtx_timer_cancel() never waits for a queue run. */
static void run_one(struct mqtx_clock *c, struct mqtx_timer *t)
{
	pthread_mutex_unlock(&c->lock);
	mqtx__bh_disable();
	t->fn_(t, t->arg_);
	pthread_mutex_lock(&c->lock);
	c->running = NULL;
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
	mqtx__bh_enable();
	pthread_mutex_lock(&c->lock);
}

int mqtx_clock_advance_to(struct mqtx_clock *c, uint64_t target)
{
	struct mqtx_timer *t;
	int fired = 0;

	if (!c->is_virtual)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	while ((t = pop_due(c, target))) {
		if (t->expires_ > atomic_load_explicit(&c->vnow, memory_order_relaxed))
			atomic_store_explicit(&c->vnow, t->expires_, memory_order_release);
		run_one(c, t);
		fired++;
	}
	if (target > atomic_load_explicit(&c->vnow, memory_order_relaxed))
		atomic_store_explicit(&c->vnow, target, memory_order_release);
	pthread_mutex_unlock(&c->lock);
	return fired;
}

int mqtx_clock_advance(struct mqtx_clock *c, uint64_t delta_ns)
{
	if (!c->is_virtual)
		return -EINVAL;
	return mqtx_clock_advance_to(c, mqtx_clock_now(c) + delta_ns);
}

uint64_t mqtx_clock_next_timer(struct mqtx_clock *c)
{
	uint64_t t;

	pthread_mutex_lock(&c->lock);
	t = c->head.next_ == &c->head ? UINT64_MAX : c->head.next_->expires_;
	pthread_mutex_unlock(&c->lock);
	return t;
}

static void *timer_thread(void *arg)
{
	struct mqtx_clock *c = arg;
	struct mqtx_timer *t;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		uint64_t now = mqtx_clock_now(c);

		while ((t = pop_due(c, now)))
			run_one(c, t);
		if (c->head.next_ == &c->head) {
			pthread_cond_wait(&c->cond, &c->lock);
		} else {
			uint64_t when = c->head.next_->expires_;
			struct timespec ts = { (time_t)(when / MQTX_NSEC_PER_SEC),
					       (long)(when % MQTX_NSEC_PER_SEC) };

			pthread_cond_timedwait(&c->cond, &c->lock, &ts);
		}
	}
	return NULL;
}

void mqtx_timer_init(struct mqtx_timer *t, struct mqtx_clock *c, mqtx_timer_fn fn, void *arg)
{
	memset(t, 0, sizeof(*t));
	t->clock_ = c;
	t->fn_ = fn;
	t->arg_ = arg;
}

void mqtx_timer_arm(struct mqtx_timer *t, uint64_t expires_ns)
{
	struct mqtx_clock *c = t->clock_;
	struct mqtx_timer *pos;

	pthread_mutex_lock(&c->lock);
	if (t->armed_)
		list_del(t);
	t->expires_ = expires_ns;
	/* Insert after every timer due at or before it: equal expiries fire in arming order. */
	for (pos = c->head.prev_; pos != &c->head && pos->expires_ > expires_ns; pos = pos->prev_)
		;
	t->prev_ = pos;
	t->next_ = pos->next_;
	pos->next_->prev_ = t;
	pos->next_ = t;
	t->armed_ = true;
	if (!c->is_virtual) {
		if (!c->thread_started) {
			pthread_t th;

			/* The real clock lives as long as the process; so does its thread. */
			if (!pthread_create(&th, NULL, timer_thread, c)) {
				pthread_detach(th);
				c->thread_started = true;
			}
		}
		pthread_cond_signal(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
}

bool mqtx_timer_cancel(struct mqtx_timer *t)
{
	struct mqtx_clock *c = t->clock_;
	bool was;

	if (!c)
		return false;
	pthread_mutex_lock(&c->lock);
	was = t->armed_;
	if (was)
		list_del(t);
	while (c->running == t && !pthread_equal(c->runner, pthread_self()))
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
	return was;
}

bool mqtx_timer_armed(const struct mqtx_timer *t)
{
	struct mqtx_clock *c = t->clock_;
	bool armed;

	if (!c)
		return false;
	pthread_mutex_lock(&c->lock);
	armed = t->armed_;
	pthread_mutex_unlock(&c->lock);
	return armed;
}

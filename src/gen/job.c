// SPDX-License-Identifier: MIT
// The job core shared by the generator and the replay: threads, pacing, sending, counters.
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <mqtx/clock.h>

#include "core/core.h"
#include "gen/gen.h"
#include "base/internal.h"

/* Every job thread starts here: nothing is sent before all of them exist, so that a start
 * that fails half-way (no thread) has sent nothing. */
static void *job_thread(void *arg)
{
	struct mqtx_job_thread *t = arg;
	struct mqtx_job *job = t->job;

	/* A sleep on an absolute deadline ends that deadline plus the thread's timer slack (50 us
	 * by default, prctl(2)): the pacer's sleeps must end when asked. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (!atomic_load(&job->go))
		sched_yield();
	if (atomic_load(&job->stop)) {
		mqtx__job_thread_done(t);
		return NULL;
	}
	return job->fn(t);
}

int mqtx__job_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool, void *priv, unsigned n,
		    mqtx_job_thread_fn fn, struct mqtx_job **out)
{
	struct mqtx_job *job = mqtx__zalloc(sizeof(*job));

	if (!job) {
		mqtx__free(priv);
		return -ENOMEM;
	}
	job->dev = dev;
	job->pool = pool;
	job->priv = priv;
	job->fn = fn;
	job->clock = mqtx_dev_clock(dev);
	job->start_ns = mqtx_clock_now(job->clock);
	job->nthreads = n;
	atomic_store(&job->running, n);
	for (unsigned i = 0; i < n; i++) {
		struct mqtx_job_thread *t = &job->th[i];

		t->job = job;
		t->index = i;
		if (pthread_create(&t->tid, NULL, job_thread, t)) {
			/* The threads already started see stop and finish without sending. */
			atomic_store(&job->stop, true);
			atomic_store(&job->go, true);
			atomic_fetch_sub(&job->running, n - i);
			mqtx__job_free(job);
			return -EAGAIN;
		}
		t->started = true;
	}
	atomic_store(&job->go, true);
	*out = job;
	return 0;
}

void mqtx__job_thread_done(struct mqtx_job_thread *t)
{
	struct mqtx_job *job = t->job;
	uint64_t now = mqtx_clock_now(job->clock);
	uint64_t end = atomic_load(&job->end_ns);

	/* The end time is in place before the count says done: a reader that sees running == 0
	 * must not find end_ns still unset. The latest thread's time wins. */
	while (end < now && !atomic_compare_exchange_weak(&job->end_ns, &end, now))
		;
	atomic_fetch_sub(&job->running, 1);
}

/* The pacer's margin: how long before a due time a sleep ends, the rest being spun. It follows
 * how late the sleeps end (half way up to a later one, down by 1/32 a sleep), within these
 * bounds: a busy machine spins more, up to 200 us a frame. */
#define PACE_MARGIN_MIN	 5000ull
#define PACE_MARGIN_INIT 30000ull
#define PACE_MARGIN_MAX	 200000ull
/* Sleep at most this long at a time, so that a stop is seen soon. */
#define PACE_SLEEP_MAX 2000000ull

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static bool stopped(const struct mqtx_job *job)
{
	return atomic_load_explicit(&job->stop, memory_order_relaxed);
}

/* Sleep on CLOCK_MONOTONIC (the real clock's) until @margin before @t, then spin to @t; with
 * no margin, sleep to @t. @margin (NULL: none) learns from how late the sleeps end. */
static bool wait_real(struct mqtx_job *job, uint64_t t, uint64_t *margin)
{
	uint64_t m = margin ? *margin : 0, now = mqtx_clock_now(job->clock);

	while (now + m < t) {
		uint64_t aim = t - m, wake;
		struct timespec ts;

		if (stopped(job))
			return false;
		wake = aim - now > PACE_SLEEP_MAX ? now + PACE_SLEEP_MAX : aim;
		ts.tv_sec = (time_t)(wake / MQTX_NSEC_PER_SEC);
		ts.tv_nsec = (long)(wake % MQTX_NSEC_PER_SEC);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = mqtx_clock_now(job->clock);
		if (margin && wake == aim) {
			uint64_t late = now > aim ? now - aim : 0;

			m -= m / 32;
			if (late > m)
				m = (m + late) / 2;
			m = m < PACE_MARGIN_MIN	  ? PACE_MARGIN_MIN
			    : m > PACE_MARGIN_MAX ? PACE_MARGIN_MAX
						  : m;
			*margin = m;
		}
	}
	while (now < t) {
		if (stopped(job))
			return false;
		cpu_relax();
		now = mqtx_clock_now(job->clock);
	}
	return !stopped(job);
}

bool mqtx__job_wait_until(struct mqtx_job *job, uint64_t t)
{
	if (!mqtx_clock_is_virtual(job->clock))
		return wait_real(job, t, NULL);
	while (mqtx_clock_now(job->clock) < t) {
		if (stopped(job))
			return false;
		sched_yield(); /* someone else moves virtual time: let them run */
	}
	return !stopped(job);
}

uint64_t mqtx__pace_at(const struct mqtx_pacer *pc, uint64_t due)
{
	if (pc->started && due > pc->due && pc->sent + (due - pc->due) / 2 > due)
		return pc->sent + (due - pc->due) / 2;
	return due;
}

bool mqtx__job_pace(struct mqtx_job *job, struct mqtx_pacer *pc, uint64_t due)
{
	uint64_t at = mqtx__pace_at(pc, due);
	bool ok;

	if (!pc->margin_ns)
		pc->margin_ns = PACE_MARGIN_INIT;
	pc->started = true;
	pc->due = due;
	if (mqtx_clock_is_virtual(job->clock)) {
		/* No time passes in virtual time while the thread is not scheduled: the frame goes
		 * at its instant, whenever the thread gets to it, so the replay stays exact. */
		pc->sent = at;
		return mqtx__job_wait_until(job, at);
	}
	ok = wait_real(job, at, &pc->margin_ns);
	pc->sent = mqtx_clock_now(job->clock);
	return ok;
}

void mqtx__job_paced(struct mqtx_job *job, struct mqtx_pacer *pc)
{
	if (!mqtx_clock_is_virtual(job->clock))
		pc->sent = mqtx_clock_now(job->clock);
}

uint64_t mqtx__job_pace_ns(uint64_t rate_bps, uint64_t rate_pps, uint64_t bits, uint64_t pkts)
{
	if (rate_bps)
		return (uint64_t)((unsigned __int128)bits * MQTX_NSEC_PER_SEC / rate_bps);
	if (rate_pps)
		return (uint64_t)((unsigned __int128)pkts * MQTX_NSEC_PER_SEC / rate_pps);
	return 0;
}

void mqtx__job_send(struct mqtx_job_thread *t, struct mqtx_pkt **pkts, unsigned n)
{
	uint64_t bytes;
	unsigned ok;

	/* The bytes of the packets taken, each by its own length: a filter that drops some of a
	 * stream of mixed sizes (imix) leaves the others' bytes, not an average. */
	ok = mqtx__dev_xmit_burst_bytes(t->job->dev, pkts, n, &bytes);
	atomic_fetch_add_explicit(&t->sent, ok, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->dropped, n - ok, memory_order_relaxed);
}

void mqtx__job_stats(struct mqtx_job *job, struct mqtx_job_stats *st)
{
	/* Done is read first: a thread counts before it says it is done, so a snapshot that says
	 * done has the final counts (read after, they could say done with counts of before). */
	bool done = atomic_load(&job->running) == 0;

	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < job->nthreads; i++) {
		struct mqtx_job_thread *t = &job->th[i];

		st->sent += atomic_load(&t->sent);
		st->bytes += atomic_load(&t->bytes);
		st->dropped += atomic_load(&t->dropped);
		st->skipped += atomic_load(&t->skipped);
		st->failed += atomic_load(&t->failed);
		st->truncated += atomic_load(&t->truncated);
		st->nomem += atomic_load(&t->nomem);
		st->loops += atomic_load(&t->loops);
	}
	st->start_ns = job->start_ns;
	st->done = done;
	st->now_ns = st->done ? atomic_load(&job->end_ns) : mqtx_clock_now(job->clock);
}

const char *mqtx__job_error(struct mqtx_job *job)
{
	return job->error;
}

void mqtx__job_join(struct mqtx_job *job)
{
	atomic_store(&job->stop, true);
	for (unsigned i = 0; i < MQTX_GEN_THREADS_MAX; i++) {
		if (job->th[i].started)
			pthread_join(job->th[i].tid, NULL);
		job->th[i].started = false;
	}
}

void mqtx__job_free(struct mqtx_job *job)
{
	if (!job)
		return;
	mqtx__job_join(job);
	mqtx__free(job->priv);
	mqtx__free(job);
}

// SPDX-License-Identifier: MIT
/* Packet pool across threads: packets freed on another thread return to the pool, no packet
 * is handed out twice, counts conserve, and a small pool whose packets a completion thread
 * frees serves any number of allocations (invariants only, no timing). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <mqtx/pkt.h>

#define ROUNDS 200000
#define RING   32 /* a small hand-off ring: the pool runs dry regularly */

/* Single-producer single-consumer ring of packet pointers. */
struct ring {
	struct mqtx_pkt *slot[RING];
	atomic_uint head, tail;
};

struct shared {
	struct mqtx_pkt_pool *pool;
	struct ring r;
	atomic_bool done;
	bool free_only; /* the consumer only frees, as a driver's completion thread does */
	atomic_ullong allocated, freed_remote, freed_local, nulls;
	atomic_uint owned; /* packets marked as handed out right now */
	atomic_uint bad;   /* invariant violations seen on any thread (cmocka asserts only here) */
};

#define CHECK(s, cond) ((cond) ? (void)0 : (void)atomic_fetch_add(&(s)->bad, 1))

/* A packet handed out twice would be seen marked already. */
static void take(struct shared *s, struct mqtx_pkt *pkt)
{
	CHECK(s, atomic_exchange((atomic_uchar *)&pkt->cb[0], 1) == 0);
	atomic_fetch_add(&s->owned, 1);
	atomic_fetch_add(&s->allocated, 1);
}

static void give(struct shared *s, struct mqtx_pkt *pkt)
{
	CHECK(s, atomic_exchange((atomic_uchar *)&pkt->cb[0], 0) == 1);
	atomic_fetch_sub(&s->owned, 1);
}

static struct mqtx_pkt *alloc_one(struct shared *s)
{
	struct mqtx_pkt *pkt = mqtx_pkt_alloc(s->pool);

	if (!pkt) {
		atomic_fetch_add(&s->nulls, 1);
		return NULL;
	}
	take(s, pkt);
	CHECK(s, pkt->pool == s->pool && pkt->len == 0 && pkt->user == 0);
	return pkt;
}

/* Consumer: frees what the producer passes, and allocates/frees some of its own. */
static void *consumer(void *arg)
{
	struct shared *s = arg;
	struct mqtx_pkt *mine[4];

	for (;;) {
		unsigned h = atomic_load_explicit(&s->r.head, memory_order_acquire);
		unsigned t = atomic_load_explicit(&s->r.tail, memory_order_relaxed);

		if (h == t) {
			if (atomic_load(&s->done) &&
			    atomic_load_explicit(&s->r.head, memory_order_acquire) == t)
				break;
			sched_yield();
			continue;
		}
		struct mqtx_pkt *pkt = s->r.slot[t % RING];

		atomic_store_explicit(&s->r.tail, t + 1, memory_order_release);
		give(s, pkt);
		mqtx_pkt_free(pkt);
		atomic_fetch_add(&s->freed_remote, 1);
		if (!s->free_only && (t & 7) == 0) {
			unsigned got = 0;

			for (unsigned i = 0; i < 4; i++)
				if ((mine[got] = alloc_one(s)))
					got++;
			for (unsigned i = 0; i < got; i++)
				give(s, mine[i]);
			mqtx_pkt_free_bulk(mine, got);
			atomic_fetch_add(&s->freed_local, got);
		}
	}
	return NULL;
}

/* A failure bound, not a timing: this many NULLs in a row means the pool is stuck. */
#define STUCK 20000000ul

static void run_n(uint32_t count, uint32_t cache_size, unsigned rounds, bool free_only)
{
	struct shared *s = calloc(1, sizeof(*s));
	unsigned long nulls_in_a_row = 0;
	pthread_t th;
	unsigned sent = 0;

	s->free_only = free_only;

	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = count,
								   .data_room = 64,
								   .cache_size = cache_size },
					  &s->pool),
			 0);
	/* The control block is not cleared by allocation: start with every mark clear. */
	struct mqtx_pkt **all = calloc(count, sizeof(*all));

	assert_int_equal(mqtx_pkt_alloc_bulk(s->pool, all, count), count);
	for (uint32_t i = 0; i < count; i++)
		all[i]->cb[0] = 0;
	mqtx_pkt_free_bulk(all, count);
	assert_int_equal(pthread_create(&th, NULL, consumer, s), 0);
	while (sent < rounds) {
		unsigned h = atomic_load_explicit(&s->r.head, memory_order_relaxed);

		if (h - atomic_load_explicit(&s->r.tail, memory_order_acquire) == RING) {
			sched_yield();
			continue;
		}
		struct mqtx_pkt *pkt = alloc_one(s);

		if (!pkt) {
			assert_true(++nulls_in_a_row < STUCK);
			sched_yield();
			continue;
		}
		nulls_in_a_row = 0;
		/* Never more handed out than the pool holds. */
		assert_true(atomic_load(&s->owned) <= count);
		pkt->user = sent + 1; /* reset by the next allocation */
		s->r.slot[h % RING] = pkt;
		atomic_store_explicit(&s->r.head, h + 1, memory_order_release);
		sent++;
	}
	atomic_store(&s->done, true);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(atomic_load(&s->bad), 0);

	assert_int_equal(atomic_load(&s->freed_remote), rounds);
	assert_int_equal(atomic_load(&s->allocated),
			 atomic_load(&s->freed_remote) + atomic_load(&s->freed_local));
	assert_int_equal(atomic_load(&s->owned), 0);
	assert_int_equal(mqtx_pool_failures(s->pool), atomic_load(&s->nulls));
	/* Packets cached by the exited consumer still count as free. */
	assert_int_equal(mqtx_pool_in_use(s->pool), 0);
	/* And all of them can be taken again by this thread (the exited consumer's cache went
	 * back to the shared stack). */

	assert_int_equal(mqtx_pkt_alloc_bulk(s->pool, all, count), count);
	assert_int_equal(mqtx_pool_in_use(s->pool), count);
	mqtx_pkt_free_bulk(all, count);
	assert_int_equal(mqtx_pool_in_use(s->pool), 0);
	free(all);
	mqtx_pool_destroy(s->pool);
	free(s);
}

static void run(uint32_t count, uint32_t cache_size)
{
	run_n(count, cache_size, ROUNDS, false);
}

static void test_cross_thread_caches(void **state)
{
	(void)state;
	run(48, 16); /* 16 asked for, 6 kept: a cache holds an eighth of the pool at most */
}

/* The embedding pattern: a pool of 256 with the default caches, a thread that only frees (a
 * driver's completion thread) and one that allocates, 1000 and more times: the freeing
 * thread's cache never holds the pool, and a dry pool makes it give back what it holds. */
static void test_small_pool_completion_thread(void **state)
{
	(void)state;
	run_n(256, 0, 1000, true);
	run_n(256, 0, 100000, true);
	run_n(16, 0, 10000, true);
}

static void test_cross_thread_no_cache(void **state)
{
	(void)state;
	run(40, 1);
}

static void test_cross_thread_roomy(void **state)
{
	(void)state;
	run(4096, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cross_thread_caches),
		cmocka_unit_test(test_cross_thread_no_cache),
		cmocka_unit_test(test_cross_thread_roomy),
		cmocka_unit_test(test_small_pool_completion_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

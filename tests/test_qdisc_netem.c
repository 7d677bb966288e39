// SPDX-License-Identifier: MIT
/* netem in virtual time: delay, rate, delay with rate, limit, reorder with gap, duplicate,
 * seeded loss and jitter against a reference generator, the distribution tables, dumps,
 * threads and live replace. "test_qdisc_netem --prng SEED N" prints the generator's first N
 * values for tests/netem_prng.py, which derives them on its own. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>

#include "qdisc/netem_rand.h"
#include "test_qdisc_util.h"

#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start */

/* ---- a reference of Linux's prandom, written from lib/random32.c's description: the four
 * lfsr113 components (k, q, s of L'Ecuyer's table), seeded by prandom_seed_state() ---- */
struct ref_rng {
	uint32_t z[4];
};

static void ref_seed(struct ref_rng *r, uint64_t seed)
{
	static const uint32_t min[4] = { 2, 8, 16, 128 };
	uint32_t i = (uint32_t)(seed ^ (seed >> 32) ^ (seed << 10));

	for (int k = 0; k < 4; k++)
		r->z[k] = i < min[k] ? i + min[k] : i;
}

static uint32_t ref_next(struct ref_rng *r)
{
	static const unsigned k[4] = { 31, 29, 28, 25 }, q[4] = { 6, 2, 13, 3 },
			      s[4] = { 18, 2, 7, 13 };
	uint32_t out = 0;

	for (int j = 0; j < 4; j++) {
		uint32_t z = r->z[j], b = ((z << q[j]) ^ z) >> (k[j] - s[j]);

		/* keep the top k bits, shift them up by s, feed in the b bits */
		r->z[j] = ((z & (0xFFFFFFFFu << (32 - k[j]))) << s[j]) ^ b;
		out ^= r->z[j];
	}
	return out;
}

static void tq_detach(struct tq *t)
{
	mqtx_dev_close(t->dev);
	t->q = NULL; /* the device destroys it */
}

static uint64_t sent_by_driver(struct tq *t)
{
	uint64_t pk, by;

	mqtx_null_counts(t->dev, &pk, &by);
	return pk;
}

static uint64_t at(struct tq *t, uint64_t when)
{
	mqtx_clock_advance_to(t->clock, when);
	mqtx_tx_action();
	return sent_by_driver(t);
}

static void setup_netem(struct tq *t, const char *opts)
{
	tq_setup(t, 1000, 1500);
	assert_int_equal(tq_create(t, &mqtx__netem_qdisc_ops, opts), 0);
	tq_attach(t);
}

static void xmit_n(struct tq *t, int n, uint32_t len)
{
	for (int i = 0; i < n; i++)
		mqtx_dev_xmit(t->dev, tq_pkt(t, len, (uint64_t)i));
}

/* delay 10ms: every packet leaves exactly 10 ms after it came, not a nanosecond before. */
static void test_delay(void **state)
{
	struct tq t;

	(void)state;
	setup_netem(&t, "delay 10ms");
	xmit_n(&t, 3, 100);
	assert_int_equal(sent_by_driver(&t), 0);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 10 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 5 * MS);
	xmit_n(&t, 1, 100);
	assert_int_equal(at(&t, T0 + 10 * MS - 1), 0);
	assert_int_equal(at(&t, T0 + 10 * MS), 3);
	assert_int_equal(at(&t, T0 + 15 * MS - 1), 3);
	assert_int_equal(at(&t, T0 + 15 * MS), 4);
	assert_int_equal(t.q->qlen, 0);
	tq_detach(&t);
	tq_teardown(&t);
}

/*
 * A child (Linux's netem_graft()): packets enter it once their time has come, and leave by it.
 * delay 10ms over a pfifo of 2: the four sent at T0 are due at 10 ms, the child takes two and
 * drops two (netem's drops; out of its qlen and backlog), the fifth, sent at 5 ms, enters it at
 * 15 ms. Until then the child is empty and netem gives nothing.
 */
static void test_child(void **state)
{
	struct mqtx_qdisc *c, *old = NULL;
	struct mqtx_extack ack = { "" };
	struct mqtx_txq_stats st;
	struct tq t;
	void *opt;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "delay 10ms"), 0);
	assert_null(t.q->ops->cl_ops->leaf(t.q, 1));
	assert_int_equal(tq_parse(&mqtx__pfifo_qdisc_ops, "limit 2", &opt, t.err, sizeof(t.err)),
			 0);
	assert_int_equal(mqtx_qdisc_create(t.dev, mqtx_dev_txq(t.dev, 0), &mqtx__pfifo_qdisc_ops,
					   0x20000, opt, &ack, &c),
			 0);
	free(opt);
	t.q->ops->cl_ops->graft(t.q, 1, c, &old);
	assert_null(old);
	assert_ptr_equal(t.q->ops->cl_ops->leaf(t.q, 1), c);
	for (int i = 0; i < 4; i++)
		tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i));
	mqtx_clock_advance_to(t.clock, T0 + 5 * MS);
	tq_enq(&t, tq_pkt(&t, 100, 4));
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS - 1);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(c->qlen, 0);
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(t.q->drops, 2);
	assert_int_equal(c->qlen, 1);
	assert_int_equal(t.q->qlen, 2); /* one in the child, one still delayed */
	assert_int_equal(t.q->backlog, 200);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 15 * MS);
	assert_int_equal(tq_deq(&t), 4);
	assert_int_equal(t.q->qlen, 0);
	assert_int_equal(t.q->backlog, 0);
	mqtx_txq_get_stats(mqtx_dev_txq(t.dev, 0), &st);
	assert_int_equal(mqtx_txq_stats_drops(&st), 2); /* freed where they were dropped */
	tq_teardown(&t);				/* destroys the child with netem */
}

/* rate 1mbit (125000 B/s): a 1000-byte packet takes 8 ms, each after the one before:
 * departures at 8, 16, 24 ms; with packetoverhead 250 the 1250 bytes take 10 ms. */
static void test_rate(void **state)
{
	struct tq t;

	(void)state;
	setup_netem(&t, "rate 1mbit");
	xmit_n(&t, 3, 1000);
	assert_int_equal(at(&t, T0 + 8 * MS - 1), 0);
	assert_int_equal(at(&t, T0 + 8 * MS), 1);
	assert_int_equal(at(&t, T0 + 16 * MS - 1), 1);
	assert_int_equal(at(&t, T0 + 16 * MS), 2);
	assert_int_equal(at(&t, T0 + 24 * MS), 3);
	tq_detach(&t);
	tq_teardown(&t);

	/* 1000 + 250 bytes in 100-byte cells of 100 + 4: 13 cells, 1352 bytes: 10.816 ms */
	setup_netem(&t, "rate 1mbit 250 100 4");
	xmit_n(&t, 1, 1000);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 10816000);
	assert_int_equal(at(&t, T0 + 10816000), 1);
	tq_detach(&t);
	tq_teardown(&t);
}

/*
 * delay 10ms rate 1mbit: the first leaves at 10 + 8 = 18 ms. The next starts from the last
 * queued departure (18 ms), its 10 ms of delay less the 18 ms it already waits is nothing,
 * then 8 ms of wire: 26 ms; the third 34 ms (netem_enqueue's rate branch).
 */
static void test_delay_rate(void **state)
{
	struct tq t;

	(void)state;
	setup_netem(&t, "delay 10ms rate 1mbit");
	xmit_n(&t, 3, 1000);
	assert_int_equal(at(&t, T0 + 18 * MS - 1), 0);
	assert_int_equal(at(&t, T0 + 18 * MS), 1);
	assert_int_equal(at(&t, T0 + 26 * MS - 1), 1);
	assert_int_equal(at(&t, T0 + 26 * MS), 2);
	assert_int_equal(at(&t, T0 + 34 * MS - 1), 2);
	assert_int_equal(at(&t, T0 + 34 * MS), 3);
	/* idle past the last: a new packet waits its delay and wire time from now */
	assert_int_equal(at(&t, T0 + 100 * MS), 3);
	xmit_n(&t, 1, 1000);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 118 * MS);
	tq_detach(&t);
	tq_teardown(&t);
}

/* limit 3: a fourth and fifth packet held meanwhile are dropped and counted. */
static void test_limit(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "limit 3 delay 1ms"), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i)),
				 i < 3 ? MQTX_XMIT_SUCCESS : MQTX_XMIT_DROP);
	assert_int_equal(t.q->qlen, 3);
	assert_int_equal(t.q->backlog, 300);
	assert_null(t.q->ops->peek(t.q));
	mqtx_clock_advance_to(t.clock, T0 + MS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(tq_deq(&t), i);
	assert_int_equal(tq_deq(&t), -1);
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/* reorder 100% gap 3: the first two of every three wait their 10 ms, the third goes at once
 * ahead of them (counted as a requeue). */
static void test_reorder_gap(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "delay 10ms reorder 100% gap 3"), 0);
	for (int i = 0; i < 6; i++)
		tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i));
	assert_int_equal(tq_deq(&t), 5);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(t.q->requeues, 2);
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), 3);
	assert_int_equal(tq_deq(&t), 4);
	tq_check_conservation(&t, 6);
	tq_teardown(&t);
}

/* duplicate 100%: each packet twice, the copy first, equal bytes; a copy is not copied. */
static void test_duplicate(void **state)
{
	struct tq t;
	struct mqtx_pkt *p;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "duplicate 100%"), 0);
	for (int i = 0; i < 3; i++) {
		p = tq_udp4(&t, 60, 0x0a000001, 0x0a000002, 1000, (uint16_t)(2000 + i), 0);
		p->user = (uint64_t)i;
		tq_enq(&t, p);
	}
	assert_int_equal(t.q->qlen, 6);
	for (int i = 0; i < 6; i++) {
		p = t.q->ops->dequeue(t.q);
		assert_non_null(p);
		assert_int_equal(p->user, (uint64_t)(i / 2));
		assert_int_equal(p->len, 60);
		assert_int_equal(p->data[14 + 20 + 3], (uint8_t)(2000 + i / 2) & 0xff);
		mqtx_pkt_free(p);
	}
	assert_null(t.q->ops->dequeue(t.q));
	assert_int_equal(mqtx_pool_in_use(t.pool), 0);
	tq_teardown(&t);
}

/* loss 30% seed 7: packet n is lost when the n-th value of the kernel's sequence for seed 7
 * is at most 30% of 2^32; the run repeats exactly, and another seed gives other losses. */
static uint64_t loss_pattern(uint64_t seed, int n)
{
	char opts[64];
	struct tq t;
	uint64_t lost = 0;

	tq_setup(&t, 1000, 1500);
	snprintf(opts, sizeof(opts), "loss 30%% seed %" PRIu64, seed);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, opts), 0);
	for (int i = 0; i < n; i++)
		if (tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i)) == MQTX_XMIT_DROP)
			lost |= 1ull << i;
	while (tq_deq(&t) >= 0)
		;
	tq_check_conservation(&t, (uint64_t)n);
	tq_teardown(&t);
	return lost;
}

static void test_seeded_loss(void **state)
{
	uint32_t p30 = (uint32_t)(0.3 * UINT32_MAX + 0.5);
	uint64_t want = 0, got;
	struct ref_rng r;

	(void)state;
	ref_seed(&r, 7);
	for (int i = 0; i < 64; i++)
		if (p30 >= ref_next(&r))
			want |= 1ull << i;
	got = loss_pattern(7, 64);
	assert_int_equal(got, want);
	assert_true(__builtin_popcountll(got) > 5 && __builtin_popcountll(got) < 40);
	assert_int_equal(loss_pattern(7, 64), got);
	assert_int_not_equal(loss_pattern(8, 64), got);
}

/* delay 10ms 5ms seed 9 (uniform): packet n leaves at 10 ms + (v_n mod 10 ms) - 5 ms, v_n the
 * n-th value of the sequence; they leave in the order of those times. */
static void test_seeded_jitter(void **state)
{
	uint64_t when[8];
	struct ref_rng r;
	struct tq t;

	(void)state;
	ref_seed(&r, 9);
	for (int i = 0; i < 8; i++)
		when[i] = T0 + 10 * MS + ref_next(&r) % (10 * MS) - 5 * MS;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "delay 10ms 5ms seed 9"), 0);
	for (int i = 0; i < 8; i++)
		tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i));
	for (int n = 0; n < 8; n++) {
		int first = -1;

		for (int i = 0; i < 8; i++)
			if (when[i] && (first < 0 || when[i] < when[first]))
				first = i;
		mqtx_clock_advance_to(t.clock, when[first] - 1);
		assert_null(t.q->ops->peek(t.q));
		mqtx_clock_advance_to(t.clock, when[first]);
		assert_int_equal(tq_deq(&t), first);
		when[first] = 0;
	}
	tq_check_conservation(&t, 8);
	tq_teardown(&t);
}

/* loss 100% ecn: an ECN-capable packet is marked CE and sent (its IPv4 checksum still
 * right), one that is not ECN-capable is dropped. */
static void test_ecn(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "loss 100% ecn"), 0);
	assert_int_equal(tq_enq(&t, tq_udp4(&t, 60, 0x0a000001, 0x0a000002, 1, 2, 0x02)),
			 MQTX_XMIT_SUCCESS);
	assert_int_equal(tq_enq(&t, tq_udp4(&t, 60, 0x0a000001, 0x0a000002, 1, 2, 0x00)),
			 MQTX_XMIT_DROP);
	p = t.q->ops->dequeue(t.q);
	assert_non_null(p);
	assert_int_equal(p->data[15] & 3, 3);
	assert_true(tq_ip4_csum_ok(p));
	mqtx_pkt_free(p);
	t.sent++;
	tq_check_conservation(&t, 2);
	tq_teardown(&t);
}

/* corrupt 100%: every packet leaves with exactly one bit flipped; the same seed flips the
 * same bits. */
static uint64_t corrupt_bits(uint64_t seed)
{
	char opts[48];
	uint64_t where = 0;
	struct tq t;

	tq_setup(&t, 1000, 1500);
	snprintf(opts, sizeof(opts), "corrupt 100%% seed %" PRIu64, seed);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, opts), 0);
	for (int i = 0; i < 4; i++)
		tq_enq(&t, tq_pkt(&t, 64, (uint64_t)i));
	for (int i = 0; i < 4; i++) {
		struct mqtx_pkt *p = t.q->ops->dequeue(t.q);
		int flipped = 0;

		assert_non_null(p);
		for (uint32_t b = 0; b < p->len; b++) {
			flipped += __builtin_popcount(p->data[b]);
			if (p->data[b])
				where = where * 131 + b * 8 + (uint64_t)__builtin_ctz(p->data[b]);
		}
		assert_int_equal(flipped, 1);
		mqtx_pkt_free(p);
	}
	tq_teardown(&t);
	return where;
}

static void test_corrupt(void **state)
{
	(void)state;
	assert_int_equal(corrupt_bits(11), corrupt_bits(11));
	assert_int_not_equal(corrupt_bits(11), corrupt_bits(12));
}

/* slot 10ms 10ms packets 2: a slot opens at once for two packets, the next 10 ms after the
 * one that closed it (min = max: no draw decides the time). */
static void test_slot(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "slot 10ms 10ms packets 2"), 0);
	for (int i = 0; i < 5; i++)
		tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i));
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 10 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS - 1);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), 3);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 20 * MS);
	assert_int_equal(tq_deq(&t), 4);
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/* loss gemodel 10% 30% 60% 5% seed 21: the Gilbert-Elliott chain of Linux's loss_gilb_ell()
 * on the reference sequence: in the good state a transition draw (to bad below p) then a loss
 * draw (lost below 1-k); in the bad state a transition draw (to good below r) then a loss draw
 * (lost above h = 1 - (1-h)). */
static void test_gemodel(void **state)
{
	uint32_t p = (uint32_t)(0.10 * UINT32_MAX + 0.5), r = (uint32_t)(0.30 * UINT32_MAX + 0.5);
	uint32_t h = UINT32_MAX - (uint32_t)(0.60 * UINT32_MAX + 0.5);
	uint32_t k1 = (uint32_t)(0.05 * UINT32_MAX + 0.5);
	uint64_t want = 0, got = 0;
	struct ref_rng rng;
	bool bad = false;
	struct tq t;

	(void)state;
	ref_seed(&rng, 21);
	for (int i = 0; i < 64; i++) {
		bool lost;

		if (!bad) {
			bad = ref_next(&rng) < p;
			lost = ref_next(&rng) < k1;
		} else {
			bad = !(ref_next(&rng) < r);
			lost = ref_next(&rng) > h;
		}
		if (lost)
			want |= 1ull << i;
	}
	tq_setup(&t, 1000, 1500);
	assert_int_equal(
		tq_create(&t, &mqtx__netem_qdisc_ops, "loss gemodel 10% 30% 60% 5% seed 21"), 0);
	for (int i = 0; i < 64; i++)
		if (tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i)) == MQTX_XMIT_DROP)
			got |= 1ull << i;
	assert_int_equal(got, want);
	assert_true(got != 0);
	while (tq_deq(&t) >= 0)
		;
	tq_check_conservation(&t, 64);
	tq_teardown(&t);
}

/* The tables equal the .dist files tc ships, when they are installed. */
static void test_dist_tables(void **state)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/tc",
					    "/usr/lib64/tc", "/usr/lib/aarch64-linux-gnu/tc" };
	static const char *const names[] = { "normal", "pareto", "paretonormal" };
	int compared = 0;

	(void)state;
	for (int d = 0; d < 3; d++) {
		const int16_t *tab =
			mqtx__netem_dist_table((enum netem_dist)(NETEM_DIST_NORMAL + d));
		FILE *f = NULL;
		char path[128], line[512];
		int k = 0;

		assert_non_null(tab);
		/* a normal table is symmetric about its middle to within rounding */
		if (d == 0)
			assert_true(tab[2048] >= -3 && tab[2048] <= 3);
		for (unsigned i = 0; !f && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s.dist", dirs[i], names[d]);
			f = fopen(path, "r");
		}
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *p = line, *end;

			if (line[0] == '#')
				continue;
			for (long v = strtol(p, &end, 0); end != p; v = strtol(p, &end, 0)) {
				assert_true(k < NETEM_DIST_SIZE);
				assert_int_equal(tab[k], v);
				k++;
				p = end;
			}
		}
		fclose(f);
		assert_int_equal(k, NETEM_DIST_SIZE);
		compared++;
	}
	if (!compared)
		print_message("tc's .dist files are not installed: tables not compared\n");
}

/* show, -d and -j as tc 6.1 prints them; a change keeps what it does not send. */
static void test_dump(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, NULL), 0);
	assert_string_equal(tq_dump(&t), "limit 1000");
	assert_string_equal(tq_json(&t), "\"limit\":1000,\"ecn\":false,\"gap\":0");
	assert_int_equal(tq_change(&t, "delay 100ms 10ms 25% distribution normal loss 1% 30% "
				       "duplicate 2% reorder 25% gap 5 corrupt 0.5% rate 1mbit 20 "
				       "slot 10 200 packets 2000 bytes 9000 ecn"),
			 0);
	assert_string_equal(tq_dump(&t),
			    "limit 1000 delay 100ms  10ms 25% loss 1% 30% "
			    "duplicate 2% reorder 25% corrupt 0.5% rate 1Mbit "
			    "packetoverhead 20 slot 10ns 200ns packets 2000 bytes 9000 "
			    "ecn  gap 5");
	assert_string_equal(
		tq_json(&t),
		"\"limit\":1000,\"delay\":{\"delay\":0.1,\"jitter\":0.01,\"correlation\":0.25},"
		"\"loss-random\":{\"loss\":0.01,\"correlation\":0.3},\"duplicate\":{\"duplicate\":"
		"0.02,\"correlation\":0},\"reorder\":{\"reorder\":0.25,\"correlation\":0},"
		"\"corrupt\":{\"corrupt\":0.005,\"correlation\":0},\"rate\":{\"rate\":125000,"
		"\"packetoverhead\":20,\"cellsize\":0,\"celloverhead\":0},\"slot\":{\"min-delay\":"
		"1e-08,\"max-delay\":2e-07,\"packets\":2000,\"bytes\":9000},\"ecn\":true,\"gap\":"
		"5");
	/* the loss model falls back to random; rate, slot, ecn, corrupt stay (netem_change) */
	assert_int_equal(tq_change(&t, "loss gemodel 1% seed 42"), 0);
	assert_string_equal(tq_dump(&t),
			    "limit 1000 loss gemodel p 1% r 99% 1-h 100% 1-k 0% "
			    "reorder 25% corrupt 0.5% seed 42 rate 1Mbit "
			    "packetoverhead 20 slot 10ns 200ns packets 2000 bytes 9000 "
			    "ecn ");
	assert_int_equal(tq_change(&t, "loss state 1 slot distribution pareto 1ms 0.1ms"), 0);
	assert_string_equal(tq_dump(&t), "limit 1000 loss state p13 1% p31 99% p32 0% p23 100% "
					 "p14 0% reorder 25% corrupt 0.5% seed 42 rate 1Mbit "
					 "packetoverhead 20 slot distribution 1ms 100us ecn ");
	tq_teardown(&t);
}

/* tc's refusals: the word and its message; Linux's own on what tc lets through. */
static void test_rejects(void **state)
{
	static const struct {
		const char *opts, *msg;
		int err;
	} cases[] = {
		{ "loss 150%", "Illegal \"loss percent\": \"150%\"", -EINVAL },
		{ "loss bogus", "Unknown loss parameter: bogus", -EINVAL },
		{ "loss 1% loss 2%", "Illegal \"duplicate loss argument\": \"loss\"", -EINVAL },
		{ "slot 10 5", "Illegal \"slot max_delay\": \"5\"", -EINVAL },
		{ "slot distribution custom 1ms 1ms", "No distribution data for custom", -EINVAL },
		{ "slot distribution normal 1ms 0", "Non-positive jitter", -EINVAL },
		{ "delay 300s", "Illegal 300000000 time (too large)\nIllegal \"latency\": \"300s\"",
		  -EINVAL },
		{ "ecn", "ecn requested without loss model", MQTX_TC_EUSAGE },
		{ "gap 5", "gap specified without reorder probability", MQTX_TC_EUSAGE },
		{ "reorder 5%", "reordering not possible without specifying some delay",
		  MQTX_TC_EUSAGE },
		{ "distribution normal delay 1ms",
		  "distribution specified but no latency and jitter values", MQTX_TC_EUSAGE },
		{ "foo", "What is \"foo\"?", MQTX_TC_EUSAGE },
		{ "delay", NULL, MQTX_TC_EFATAL },
		{ "rate 10%", "Illegal \"rate\": \"10%\"", -EINVAL },
		{ "slot 1ms packets x", "Illegal \"slot packets\": \"x\"", -EINVAL },
		{ "delay 1ms 1ms 25x", "Illegal \"latency\": \"25x\"", -EINVAL },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, cases[i].opts),
				 cases[i].err);
		if (cases[i].msg)
			assert_string_equal(t.err, cases[i].msg);
	}
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "slot 1ms packets -1"), -EINVAL);
	assert_string_equal(t.err, "negative slot limit");
	assert_null(t.q);
	/* a refused change changes nothing */
	assert_int_equal(tq_create(&t, &mqtx__netem_qdisc_ops, "delay 5ms"), 0);
	assert_int_equal(tq_change(&t, "delay 1ms slot 1ms packets -1"), -EINVAL);
	assert_string_equal(tq_dump(&t), "limit 1000 delay 5ms");
	tq_teardown(&t);
}

/* Packets held for their time move, in order, to the qdisc that replaces netem; a change of
 * netem keeps the departures already given. */
static void test_replace_and_change(void **state)
{
	struct mqtx_qdisc *qs[1], *old[1] = { NULL }, *pf;
	struct tq t;

	(void)state;
	setup_netem(&t, "delay 50ms");
	xmit_n(&t, 4, 100);
	assert_int_equal(tq_change(&t, "delay 1ms"), 0);
	xmit_n(&t, 1, 100);
	assert_int_equal(at(&t, T0 + MS), 1);
	assert_int_equal(at(&t, T0 + 50 * MS - 1), 1);
	assert_int_equal(at(&t, T0 + 50 * MS), 5);
	xmit_n(&t, 3, 100);
	assert_int_equal(mqtx_qdisc_create(t.dev, mqtx_dev_txq(t.dev, 0), &mqtx__pfifo_qdisc_ops,
					   0x20000, NULL, NULL, &pf),
			 0);
	qs[0] = pf;
	mqtx_dev_config_lock(t.dev);
	mqtx_dev_graft_all(t.dev, qs, old);
	mqtx_dev_config_unlock(t.dev);
	assert_ptr_equal(old[0], t.q);
	mqtx_qdisc_destroy(old[0]);
	mqtx_tx_action();
	assert_int_equal(sent_by_driver(&t), 8);
	tq_detach(&t);
	tq_teardown(&t);
}

/* Two threads send through netem (loss, duplicates, jitter, a limit): everything offered or
 * copied is sent, dropped with a count, or queued, and the queue empties once time passes. */
struct sender {
	struct tq *t;
	int n;
	uint64_t refused;
};

static void *send_many(void *arg)
{
	struct sender *s = arg;

	for (int i = 0; i < s->n; i++) {
		struct mqtx_pkt *p = mqtx_pkt_alloc(s->t->pool);

		if (!p)
			continue;
		mqtx_pkt_put(p, 100);
		if (mqtx_dev_xmit(s->t->dev, p) != MQTX_XMIT_SUCCESS)
			s->refused++;
	}
	return NULL;
}

static void test_threads_conserve(void **state)
{
	struct sender s[2];
	pthread_t th[2];
	struct mqtx_txq_stats st;
	uint64_t drops, offered = 0, sent;
	struct tq t;

	(void)state;
	setup_netem(&t, "limit 500 delay 1ms 500us loss 10% duplicate 10% seed 3");
	for (int i = 0; i < 2; i++) {
		s[i] = (struct sender){ .t = &t, .n = 1500 };
		assert_int_equal(pthread_create(&th[i], NULL, send_many, &s[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		offered += (uint64_t)s[i].n;
	}
	at(&t, T0 + 10 * MS);
	sent = sent_by_driver(&t);
	mqtx_txq_get_stats(mqtx_dev_txq(t.dev, 0), &st);
	drops = mqtx_txq_stats_drops(&st);
	assert_int_equal(t.q->qlen, 0);
	assert_int_equal(mqtx_pool_in_use(t.pool), 0);
	/* every packet offered is sent or dropped; the copies add to what is sent */
	assert_true(sent + drops >= offered);
	assert_int_equal(drops, t.q->drops);
	assert_true(drops > 0);
	tq_detach(&t);
	tq_teardown(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay),
		cmocka_unit_test(test_child),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_delay_rate),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_reorder_gap),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_seeded_loss),
		cmocka_unit_test(test_seeded_jitter),
		cmocka_unit_test(test_ecn),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_slot),
		cmocka_unit_test(test_gemodel),
		cmocka_unit_test(test_dist_tables),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_replace_and_change),
		cmocka_unit_test(test_threads_conserve),
	};

	if (argc == 4 && !strcmp(argv[1], "--prng")) {
		struct netem_prng s;

		mqtx__netem_prng_seed(&s, strtoull(argv[2], NULL, 0));
		for (long n = strtol(argv[3], NULL, 0); n > 0; n--)
			printf("%u\n", mqtx__netem_prng_u32(&s));
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

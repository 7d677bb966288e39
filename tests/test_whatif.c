// SPDX-License-Identifier: MIT
// What-if in virtual time: captures written here, whose per-flow delays and drops on a sim wire
// of known rate are worked out by hand; a sparse flow behind a bulk one under fq_codel and under
// a long pfifo; the same numbers twice; memory that does not grow with the capture's length.
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include <mqtx/mqtx.h>
#include <mqtx/whatif.h>

#include "ctl/ctl_int.h"
#include "gen/gen.h"
#include "gen/whatif.h"

/* ---- captures ---- */

/* One frame of a capture: when (ns), its length without FCS, its UDP source port. */
struct frame {
	uint64_t t;
	uint32_t len;
	uint16_t sport;
};

static void put32(FILE *f, uint32_t v)
{
	assert_int_equal(fwrite(&v, 4, 1, f), 1);
}

/* A pcap with ns timestamps (magic 0xa1b23c4d), Ethernet link type. */
static FILE *pcap_new(const char *path)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	put32(f, 0xa1b23c4d);
	put32(f, 2 | 4 << 16); /* version 2.4 */
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535);
	put32(f, 1);
	return f;
}

/* Ethernet, IPv4 10.0.0.1 -> 10.0.0.2, UDP @sport -> 9, padded to @len bytes. */
static void pcap_frame(FILE *f, const struct frame *fr)
{
	uint8_t b[1600] = { 0 };

	assert_true(fr->len >= 42 && fr->len <= sizeof(b));
	b[12] = 0x08;				/* IPv4 */
	b[14] = 0x45;				/* version 4, 20-byte header */
	b[16] = (uint8_t)((fr->len - 14) >> 8); /* total length */
	b[17] = (uint8_t)(fr->len - 14);
	b[22] = 64;
	b[23] = 17; /* UDP */
	memcpy(b + 26, (uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
	b[34] = (uint8_t)(fr->sport >> 8);
	b[35] = (uint8_t)fr->sport;
	b[37] = 9;
	b[38] = (uint8_t)((fr->len - 34) >> 8);
	b[39] = (uint8_t)(fr->len - 34);
	put32(f, (uint32_t)(fr->t / 1000000000));
	put32(f, (uint32_t)(fr->t % 1000000000));
	put32(f, fr->len);
	put32(f, fr->len);
	assert_int_equal(fwrite(b, fr->len, 1, f), 1);
}

static void write_capture(const char *path, const struct frame *frames, unsigned n)
{
	FILE *f = pcap_new(path);

	for (unsigned i = 0; i < n; i++)
		pcap_frame(f, &frames[i]);
	assert_int_equal(fclose(f), 0);
}

static char tmpdir[] = "/tmp/mqtx-whatif.XXXXXX";

static const char *tmp(const char *name)
{
	static char p[4][128];
	static unsigned k;
	char *s = p[k++ % 4];

	snprintf(s, sizeof(p[0]), "%s/%s", tmpdir, name);
	return s;
}

/* ---- runs ---- */

/* The capture at @path through the device the lines @cfg make, as whatif runs a config. */
static struct mqtx_whatif_result *run(const char *path, const char *const *cfg, unsigned nflows,
				      struct mqtx_whatif_capture **capp)
{
	struct mqtx_whatif_capture *cap;
	struct mqtx_whatif_result *r = NULL;
	struct mqtx_clock *clk;
	struct mqtx_ctl *ctl;
	struct mqtx_buf out, err;
	char msg[256];
	int fd;

	assert_int_equal(mqtx_clock_new_virtual(0, &clk), 0);
	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	ctl->clock = clk;
	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	for (; *cfg; cfg++) {
		int rc = mqtx_ctl_exec_line(ctl, *cfg, 0, &out, &err);

		if (rc)
			fail_msg("%s: %s", *cfg, err.data);
	}
	fd = mqtx__replay_open(path, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_true(mqtx__replay_check(fd, msg, sizeof(msg)) > 0);
	assert_int_equal(mqtx__whatif_scan(fd, nflows, &cap, msg, sizeof(msg)), 0);
	if (mqtx__whatif_run(mqtx_ctl_dev_next(ctl, NULL), fd, cap, true, &r, msg, sizeof(msg)))
		fail_msg("run: %s", msg);
	close(fd);
	mqtx_ctl_free(ctl);
	mqtx_clock_free(clk);
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
	if (capp)
		*capp = cap;
	else
		mqtx__whatif_capture_free(cap);
	return r;
}

/* Every frame of every flow and queue is sent or dropped, each drop with one reason. */
static void assert_conserved(const struct mqtx_whatif_result *r)
{
	uint64_t in = 0;

	for (unsigned f = 0; f <= r->nflows; f++) {
		const struct mqtx_whatif_acc *a = &r->flows[f];
		uint64_t d = 0;

		for (unsigned k = 0; k < MQTX_DROP_REASON_MAX; k++)
			d += a->drops[k];
		assert_int_equal(a->packets, a->sent + a->dropped);
		assert_int_equal(a->dropped, d);
		assert_int_equal(a->delay.n, a->sent);
		in += a->packets;
	}
	assert_int_equal(in, r->total.packets);
	assert_int_equal(r->total.packets, r->total.sent + r->total.dropped);
}

/* ---- the histogram ---- */

/* Every value falls in a bucket whose lower edge is at most 1/128 below it (exact below 128),
 * and buckets grow with the value. */
static void test_hist_bound(void **state)
{
	unsigned last = 0;

	(void)state;
	for (uint64_t v = 0; v < ((uint64_t)1 << 47); v += v < 70000 ? 1 : v / 997) {
		unsigned b = mqtx__whatif_hist_bucket(v);
		uint64_t e = mqtx__whatif_hist_edge(b);

		assert_true(b < MQTX_WHATIF_HIST_BUCKETS);
		assert_true(b >= last);
		last = b;
		assert_true(e <= v);
		if (v < 128)
			assert_int_equal(e, v);
		else
			assert_true((v - e) * 128 < v);
	}
}

/* Nearest rank, never below the minimum nor above the maximum. */
static void test_pct(void **state)
{
	struct mqtx_whatif_hist *h = calloc(1, sizeof(*h));

	(void)state;
	assert_int_equal(mqtx__whatif_pct(h, 50), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		mqtx__whatif_hist_add(h, v * 1024);
	assert_int_equal(mqtx__whatif_pct(h, 50), 500 * 1024);
	/* 900 * 1024 is a bucket's edge; 999 * 1024 lies in the bucket [249, 250) * 4096. */
	assert_int_equal(mqtx__whatif_pct(h, 90), 900 * 1024);
	assert_int_equal(mqtx__whatif_pct(h, 99.9), 249 * 4096);
	assert_int_equal(mqtx__whatif_pct(h, 100), 1000 * 1024);
	assert_int_equal(h->min, 1024);
	free(h);
}

/* ---- exact runs ---- */

/*
 * Eight frames of 104 bytes at one instant, flows A (port 1) and B (port 2) in turn, on a wire of
 * 1 Gbit/s: each takes (104 + 24) * 8 bits = 1024 ns, so the k-th frame ends k * 1024 ns after
 * the burst. A ring of 256 takes them all at once.
 */
static const struct frame burst[] = {
	{ 0, 104, 1 }, { 0, 104, 2 }, { 0, 104, 1 }, { 0, 104, 2 },
	{ 0, 104, 1 }, { 0, 104, 2 }, { 0, 104, 1 }, { 0, 104, 2 },
};

static void test_burst_exact(void **state)
{
	const char *cfg[] = { "dev add eth0 type sim txqueues 1 rate 1000000000 up", NULL };
	struct mqtx_whatif_capture *cap;
	struct mqtx_whatif_result *r;
	const struct mqtx_whatif_acc *a, *b;

	(void)state;
	write_capture(tmp("burst.pcap"), burst, 8);
	r = run(tmp("burst.pcap"), cfg, 10, &cap);
	assert_conserved(r);
	assert_int_equal(cap->nflows, 2);
	assert_int_equal(cap->flows[0].sport, 1); /* as many frames: the one seen first */
	a = &r->flows[0];
	b = &r->flows[1];
	assert_int_equal(r->total.sent, 8);
	assert_int_equal(r->total.dropped, 0);
	assert_int_equal(r->total.bytes, 8 * 104);
	assert_int_equal(mqtx__whatif_pct(&r->total.delay, 50), 4 * 1024);
	assert_int_equal(mqtx__whatif_pct(&r->total.delay, 90), 8 * 1024);
	assert_int_equal(r->total.delay.min, 1024);
	assert_int_equal(r->total.delay.max, 8 * 1024);
	/* A: frames 1, 3, 5, 7; B: 2, 4, 6, 8. */
	assert_int_equal(a->sent, 4);
	assert_int_equal(mqtx__whatif_pct(&a->delay, 50), 3 * 1024);
	assert_int_equal(mqtx__whatif_pct(&a->delay, 90), 7 * 1024);
	assert_int_equal(a->delay.max, 7 * 1024);
	assert_int_equal(mqtx__whatif_pct(&b->delay, 50), 4 * 1024);
	assert_int_equal(b->delay.min, 2 * 1024);
	assert_int_equal(b->delay.max, 8 * 1024);
	assert_int_equal(r->flows[2].packets, 0); /* no other */
	assert_int_equal(r->virtual_ns, 8 * 1024);
	assert_int_equal(r->queues[0].sent, 8);
	mqtx__whatif_result_free(r);
	mqtx__whatif_capture_free(cap);
}

/*
 * The same burst on a ring of 2 under pfifo limit 2: frames 1 and 2 go straight to the ring (an
 * empty qdisc is bypassed), which is then full and stops the queue; 3 and 4 wait in the pfifo;
 * 5 to 8 find it full and are dropped (qdisc). Frame k of 1..4 ends at k * 1024 ns.
 */
static void test_burst_drops_exact(void **state)
{
	const char *cfg[] = { "dev add eth0 type sim txqueues 1 rate 1000000000 ring 2",
			      "qdisc add dev eth0 root pfifo limit 2", "dev set eth0 up", NULL };
	struct mqtx_whatif_result *r;
	const struct mqtx_whatif_acc *a, *b;

	(void)state;
	write_capture(tmp("burst.pcap"), burst, 8);
	r = run(tmp("burst.pcap"), cfg, 10, NULL);
	assert_conserved(r);
	a = &r->flows[0];
	b = &r->flows[1];
	assert_int_equal(r->total.sent, 4);
	assert_int_equal(r->total.drops[MQTX_DROP_QDISC], 4);
	assert_int_equal(a->packets, 4);
	assert_int_equal(a->sent, 2);
	assert_int_equal(a->drops[MQTX_DROP_QDISC], 2);
	assert_int_equal(a->delay.min, 1024);
	assert_int_equal(a->delay.max, 3 * 1024);
	assert_int_equal(b->sent, 2);
	assert_int_equal(b->drops[MQTX_DROP_QDISC], 2);
	assert_int_equal(b->delay.min, 2 * 1024);
	assert_int_equal(b->delay.max, 4 * 1024);
	assert_int_equal(r->queues[0].packets, 8);
	assert_int_equal(r->queues[0].dropped, 4);
	assert_int_equal(r->virtual_ns, 4 * 1024);
	mqtx__whatif_result_free(r);
}

/*
 * A bulk flow (port 1) of 100 frames of 1514 bytes at t = 0 on a 10 Mbit/s wire (1.2304 ms each,
 * 123 ms in all) and a sparse flow (port 2) of a 100-byte frame every 10 ms from 1 ms. Behind a
 * long pfifo the sparse frames wait for the bulk backlog (the fifth, at 41 ms, for about 80 ms);
 * fq_codel serves the sparse flow first, so it waits at most for the two bulk frames on the ring
 * and its own time on the wire (2.56 ms). BQL keeps each run's batch to what the ring takes:
 * without it, the batch of 64 the ring refuses waits in the requeue list, ahead of any flow.
 */
static void test_sparse_behind_bulk(void **state)
{
	const char *fifo[] = { "dev add eth0 type sim txqueues 1 rate 10mbit ring 2 bql",
			       "qdisc add dev eth0 root pfifo limit 1000", "dev set eth0 up",
			       NULL };
	const char *fq[] = { "dev add eth0 type sim txqueues 1 rate 10mbit ring 2 bql",
			     "qdisc add dev eth0 root fq_codel", "dev set eth0 up", NULL };
	struct frame fr[110];
	struct mqtx_whatif_result *rf, *rq;
	unsigned n = 0;

	(void)state;
	for (unsigned i = 0; i < 100; i++)
		fr[n++] = (struct frame){ 0, 1514, 1 };
	for (unsigned i = 0; i < 10; i++)
		fr[n++] = (struct frame){ 1000000 + i * 10000000ull, 100, 2 };
	write_capture(tmp("sparse.pcap"), fr, n);
	rf = run(tmp("sparse.pcap"), fifo, 10, NULL);
	rq = run(tmp("sparse.pcap"), fq, 10, NULL);
	assert_conserved(rf);
	assert_conserved(rq);
	assert_int_equal(rf->flows[1].packets, 10);
	assert_int_equal(rf->flows[1].sent, 10);
	assert_int_equal(rq->flows[1].sent, 10);
	assert_true(mqtx__whatif_pct(&rf->flows[1].delay, 50) > 60000000);
	assert_true(rq->flows[1].delay.max <= 2 * 1230400 + 99200);
	/* fq_codel's CoDel drops bulk frames that waited past its target. */
	assert_int_equal(rf->total.dropped, 0);
	assert_true(rq->flows[0].drops[MQTX_DROP_AQM] > 0);
	mqtx__whatif_result_free(rf);
	mqtx__whatif_result_free(rq);
}

/*
 * 6000 frames of 104 bytes at one instant into a ring of 4096 without BQL: the ring stops the
 * queue 64 descriptors short of full and wakes it at a quarter free, when a qdisc run sends a
 * quota of 64 a round, for more rounds than a section makes. Every frame still leaves at its
 * exact time, the k-th k * 1024 ns after the burst: the run keeps its queue runs to itself.
 */
static void test_deep_ring_exact(void **state)
{
	const char *cfg[] = { "dev add eth0 type sim txqueues 1 rate 1000000000 ring 4096",
			      "qdisc add dev eth0 root pfifo limit 10000", "dev set eth0 up",
			      NULL };
	struct frame *fr = calloc(6000, sizeof(*fr));
	struct mqtx_whatif_result *r;

	(void)state;
	for (unsigned i = 0; i < 6000; i++)
		fr[i] = (struct frame){ 0, 104, (uint16_t)(1 + i % 2) };
	write_capture(tmp("deep.pcap"), fr, 6000);
	free(fr);
	r = run(tmp("deep.pcap"), cfg, 10, NULL);
	assert_conserved(r);
	assert_int_equal(r->total.sent, 6000);
	assert_int_equal(r->total.delay.min, 1024);
	assert_int_equal(r->total.delay.max, 6000 * 1024);
	assert_int_equal(r->flows[0].delay.max, 5999 * 1024);
	assert_int_equal(r->virtual_ns, 6000 * 1024);
	/* nearest rank 3000 of 1..6000 * 1024: 3000 * 1024 lies in the bucket [2992, 3008) * 1024 */
	assert_int_equal(mqtx__whatif_pct(&r->total.delay, 50), 2992 * 1024);
	mqtx__whatif_result_free(r);
}

/* ---- the command ---- */

/* "mqtx -j whatif": the document without its wall times. */
static char *whatif_json(const char *capture, const char *config)
{
	char *argv[] = { "whatif", (char *)capture, "config", (char *)config, "flows", "3", NULL };
	struct mqtx_buf out, err;
	struct mqtx_ctl *ctl;
	char *s, *w;

	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	assert_int_equal(mqtx_whatif_attach(ctl), 0);
	assert_int_equal(mqtx_whatif_attach(ctl), -EEXIST);
	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	if (mqtx_ctl_exec(ctl, 6, argv, MQTX_CTL_F_JSON, &out, &err))
		fail_msg("whatif: %s", err.data);
	s = strdup(out.data);
	while ((w = strstr(s, "\"wall_s\":"))) {
		char *e = w + 9;

		while (*e && *e != ',')
			e++;
		memmove(w, e + 1, strlen(e + 1) + 1);
	}
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
	mqtx_ctl_free(ctl);
	return s;
}

static void test_deterministic(void **state)
{
	FILE *f = fopen(tmp("fq.conf"), "w");
	char *a, *b;

	(void)state;
	assert_non_null(f);
	fputs("dev add eth0 type sim txqueues 2 rate 10mbit ring 4 bql\n"
	      "qdisc add dev eth0 root handle 1: mq\n"
	      "qdisc add dev eth0 parent 1:1 fq_codel\n"
	      "qdisc add dev eth0 parent 1:2 codel\n"
	      "dev set eth0 up\n",
	      f);
	assert_int_equal(fclose(f), 0);
	a = whatif_json(tmp("sparse.pcap"), tmp("fq.conf"));
	b = whatif_json(tmp("sparse.pcap"), tmp("fq.conf"));
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\"flows\":[{\"proto\":\"udp\",\"src\":\"10.0.0.1\","
				  "\"dst\":\"10.0.0.2\",\"sport\":1,\"dport\":9,\"packets\":100,"));
	free(a);
	free(b);
}

/* ---- memory ---- */

static uint64_t n_allocs, n_bytes;

static void *count_alloc(size_t size, size_t align, void *arg)
{
	n_allocs++;
	n_bytes += size;
	return mqtx_default_alloc(size, align, arg);
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A 1 kpps capture of @n frames (4 flows, 200 bytes) through fq_codel on a 2 Mbit/s wire (it
 * keeps a backlog); the allocations it made. */
static void periodic_run(unsigned n, uint64_t *allocs, uint64_t *bytes)
{
	const char *cfg[] = { "dev add eth0 type sim txqueues 1 rate 2mbit ring 8",
			      "qdisc add dev eth0 root fq_codel", "dev set eth0 up", NULL };
	FILE *f = pcap_new(tmp("long.pcap"));
	struct mqtx_whatif_result *r;

	for (unsigned i = 0; i < n; i++)
		pcap_frame(f, &(struct frame){ i * 1000000ull, 200, (uint16_t)(1 + i % 4) });
	assert_int_equal(fclose(f), 0);
	n_allocs = n_bytes = 0;
	r = run(tmp("long.pcap"), cfg, 10, NULL);
	*allocs = n_allocs;
	*bytes = n_bytes;
	assert_int_equal(r->total.packets, n);
	assert_conserved(r);
	mqtx__whatif_result_free(r);
}

/* Ten times the capture costs the same allocations and no more resident memory. */
static void test_memory_flat(void **state)
{
	uint64_t a1, b1, a2, b2;
	long rss1, rss2;

	(void)state;
	periodic_run(20000, &a1, &b1);
	rss1 = max_rss_kb();
	periodic_run(200000, &a2, &b2);
	rss2 = max_rss_kb();
	assert_int_equal(a1, a2);
	assert_int_equal(b1, b2);
	assert_true(rss2 - rss1 < 4096);
}

static int setup(void **state)
{
	static const struct mqtx_allocator counting = { count_alloc, mqtx_default_free, NULL };

	(void)state;
	mqtx_set_allocator(&counting);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	const char *names[] = { "burst.pcap", "sparse.pcap", "fq.conf", "long.pcap", "deep.pcap" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(tmp(names[i]));
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_bound),	   cmocka_unit_test(test_pct),
		cmocka_unit_test(test_burst_exact),	   cmocka_unit_test(test_burst_drops_exact),
		cmocka_unit_test(test_sparse_behind_bulk), cmocka_unit_test(test_deep_ring_exact),
		cmocka_unit_test(test_deterministic),	   cmocka_unit_test(test_memory_flat),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: MIT
// pcap replay: Linux cooked captures made Ethernet (each frame's bytes read back from a pcap
// device), frames longer than the MTU failed or cut, and in virtual time the exact frames of
// --pps with --limit, --duration and --loopdelay-ms.
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <sched.h>

#include <mqtx/driver.h>
#include <mqtx/mqtx.h>
#include <mqtx/pcap.h>

#include "gen/gen.h"

static char data_dir[4096];

struct rig {
	struct mqtx_clock *clk;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	char out[64]; /* the pcap device's file, when it is one */
};

static void rig_init(struct rig *r, bool virtual_time, const char *pcap_out, uint32_t mtu)
{
	struct mqtx_pool_cfg pc = { .count = 256, .cache_size = 16 };
	struct mqtx_dev_cfg c = { .name = "r0", .ops = &mqtx_null_ops, .num_txq = 2, .mtu = mtu };

	memset(r, 0, sizeof(*r));
	if (virtual_time)
		assert_int_equal(mqtx_clock_new_virtual(0, &r->clk), 0);
	c.clock = r->clk;
	if (pcap_out) {
		/* mkstemp() made the file: it is replaced, as a user says "overwrite". */
		struct mqtx_pcap_cfg p = { .file = r->out, .overwrite = true };

		snprintf(r->out, sizeof(r->out), "%s", pcap_out);
		assert_int_equal(mqtx_pcap_dev_create(&c, &p, &r->dev), 0);
	} else {
		assert_int_equal(mqtx_dev_create(&c, &r->dev), 0);
	}
	assert_int_equal(mqtx_dev_open(r->dev), 0);
	assert_int_equal(mqtx_pool_create(&pc, &r->pool), 0);
}

static void rig_free(struct rig *r)
{
	mqtx_dev_destroy(r->dev);
	mqtx_pool_destroy(r->pool);
	mqtx_clock_free(r->clk);
}

/* Open and check a capture of tests/data into @cfg, as the replay command does. */
static void capture(const char *name, struct mqtx_replay_cfg *cfg, long want_records)
{
	char path[4200], msg[256];

	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	memset(cfg, 0, sizeof(*cfg));
	cfg->path = name;
	cfg->speed = 1.0;
	cfg->loops = 1;
	cfg->fd = mqtx__replay_open(path, msg, sizeof(msg));
	assert_true(cfg->fd >= 0);
	cfg->records = mqtx__replay_check(cfg->fd, msg, sizeof(msg));
	assert_int_equal(cfg->records, want_records);
}

/* Run the replay to its end; with a virtual clock, move time in steps of 0.1 ms up to
 * @horizon_ns after the start and no further, so that the replay's end is exact too. */
static void run(struct rig *r, const struct mqtx_replay_cfg *cfg, uint64_t horizon_ns,
		struct mqtx_job_stats *st)
{
	uint64_t end = r->clk ? mqtx_clock_now(r->clk) + horizon_ns : 0;
	struct mqtx_job *job;
	char msg[256];

	assert_int_equal(mqtx__replay_start(r->dev, r->pool, cfg, msg, sizeof(msg), &job), 0);
	close(cfg->fd);
	for (;;) {
		mqtx__job_stats(job, st);
		if (st->done)
			break;
		if (r->clk && mqtx_clock_now(r->clk) < end)
			mqtx_clock_advance(r->clk, 100000);
		sched_yield();
	}
	assert_string_equal(mqtx__job_error(job), "");
	mqtx__job_free(job);
}

/* What a pcap device wrote, frame by frame. */
static int read_back(const char *path, uint8_t frames[][128], size_t *lens, int max)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, ebuf);
	struct pcap_pkthdr *h;
	const u_char *d;
	int n = 0;

	assert_non_null(p);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	while (n < max && pcap_next_ex(p, &h, &d) == 1) {
		assert_true(h->caplen <= 128);
		memcpy(frames[n], d, h->caplen);
		lens[n++] = h->caplen;
	}
	pcap_close(p);
	return n;
}

/* The Ethernet headers the cooked records of tests/data/make_captures.py become: destination
 * (zero, broadcast, IPv4 and IPv6 groups), source (the record's address, or zero without one),
 * EtherType (or the 802.3 length of the LLC record). */
static const uint8_t want_hdr[6][14] = {
	{ 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x08, 0x00 },
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x00 },
	{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb, 2, 0, 0, 0, 0, 1, 0x08, 0x00 },
	{ 0x33, 0x33, 0xff, 0x00, 0x00, 0x01, 2, 0, 0, 0, 0, 1, 0x86, 0xdd },
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00 },
	{ 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0x00, 38 },
};

static void cooked(const char *name, size_t hdr_len)
{
	char out[] = "/tmp/mqtx-replay-XXXXXX";
	uint8_t frames[8][128], in[8][128];
	size_t lens[8], in_lens[8];
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	char path[4200], ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	struct rig r;
	pcap_t *p;
	int fd = mkstemp(out), n = 0;

	assert_true(fd >= 0);
	close(fd);
	rig_init(&r, false, out, 1500);
	capture(name, &cfg, 6);
	cfg.topspeed = true;
	run(&r, &cfg, 0, &st);
	assert_int_equal(st.sent, 6);
	assert_int_equal(st.skipped, 2); /* CAN, and a record cut inside its header */
	assert_int_equal(st.failed, 0);
	mqtx_dev_destroy(r.dev); /* the file is complete */
	r.dev = NULL;
	assert_int_equal(read_back(out, frames, lens, 8), 6);
	/* The payload after the cooked header is the payload after the Ethernet header. */
	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	p = pcap_open_offline(path, ebuf);
	assert_non_null(p);
	while (n < 6 && pcap_next_ex(p, &h, &d) == 1) {
		memcpy(in[n], d, h->caplen);
		in_lens[n++] = h->caplen;
	}
	pcap_close(p);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(lens[i], in_lens[i] - hdr_len + 14);
		assert_memory_equal(frames[i], want_hdr[i], 14);
		assert_memory_equal(frames[i] + 14, in[i] + hdr_len, lens[i] - 14);
	}
	unlink(out);
	rig_free(&r);
}

static void test_sll(void **state)
{
	(void)state;
	cooked("sll.pcap", 16);
}

static void test_sll2(void **state)
{
	(void)state;
	cooked("sll2.pcap", 20);
}

/* Addresses given for cooked records replace the ones made up (tcprewrite's --enet-smac and
 * --enet-dmac). */
static void test_sll_addresses(void **state)
{
	static const uint8_t s[6] = { 2, 0xaa, 0, 0, 0, 1 }, dm[6] = { 2, 0xbb, 0, 0, 0, 2 };
	char out[] = "/tmp/mqtx-replay-XXXXXX";
	uint8_t frames[8][128];
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	size_t lens[8];
	struct rig r;
	int fd = mkstemp(out);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	rig_init(&r, false, out, 1500);
	capture("sll2.pcap", &cfg, 6);
	cfg.topspeed = true;
	cfg.has_smac = cfg.has_dmac = true;
	memcpy(cfg.smac, s, 6);
	memcpy(cfg.dmac, dm, 6);
	run(&r, &cfg, 0, &st);
	mqtx_dev_destroy(r.dev);
	r.dev = NULL;
	assert_int_equal(read_back(out, frames, lens, 8), 6);
	for (int i = 0; i < 6; i++) {
		assert_memory_equal(frames[i], dm, 6);
		assert_memory_equal(frames[i] + 6, s, 6);
	}
	unlink(out);
	rig_free(&r);
}

/* mtu.pcap: 1514, 1515, 1518 tagged, 1519 tagged, 1600. With MTU 1500 a frame may have 1514
 * bytes, 1518 with a VLAN tag: two pass, three fail; with mtu-trunc those three go cut. */
static void test_mtu(void **state)
{
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	uint64_t pk, by;
	struct rig r;

	(void)state;
	rig_init(&r, false, NULL, 1500);
	capture("mtu.pcap", &cfg, 5);
	cfg.topspeed = true;
	run(&r, &cfg, 0, &st);
	assert_int_equal(st.sent, 2);
	assert_int_equal(st.failed, 3);
	assert_int_equal(st.truncated, 0);
	mqtx_null_counts(r.dev, &pk, &by);
	assert_int_equal(pk, 2);
	assert_int_equal(by, 1514 + 1518);

	capture("mtu.pcap", &cfg, 5);
	cfg.topspeed = true;
	cfg.mtu_trunc = true;
	run(&r, &cfg, 0, &st);
	assert_int_equal(st.sent, 5);
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.truncated, 3);
	mqtx_null_counts(r.dev, &pk, &by);
	assert_int_equal(pk, 2 + 5);
	assert_int_equal(by, 1514 + 1518 + 1514 + 1514 + 1518 + 1518 + 1514);
	rig_free(&r);
}

/* A capture whose every frame fails ends after one pass, even with loop 0. */
static void test_mtu_all_fail(void **state)
{
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	struct rig r;

	(void)state;
	rig_init(&r, false, NULL, 1000);
	capture("mtu.pcap", &cfg, 5);
	cfg.topspeed = true;
	cfg.loops = 0;
	run(&r, &cfg, 0, &st);
	assert_int_equal(st.sent, 0);
	assert_int_equal(st.failed, 5);
	rig_free(&r);
}

/* --pps 1000 (a frame a millisecond), --loop 0, --loopdelay-ms 2, --duration of 25 ms, in
 * virtual time: frames at 0..9 ms, the next pass after the 10 ms slot and 2 ms at 12..21 ms,
 * the third at 24 ms; the frame due at 25 ms is not sent. */
static void test_pps_loopdelay_duration(void **state)
{
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	struct rig r;

	(void)state;
	rig_init(&r, true, NULL, 1500);
	capture("good.pcap", &cfg, 10);
	cfg.pps = 1000;
	cfg.loops = 0;
	cfg.loopdelay_ns = 2000000;
	cfg.duration_ns = 25000000;
	run(&r, &cfg, 25000000, &st);
	assert_int_equal(st.sent, 10 + 10 + 1);
	assert_int_equal(st.loops, 2);
	assert_int_equal(st.now_ns - st.start_ns, 25000000);
	rig_free(&r);
}

/* A fractional --pps (tcpreplay's 0.25: 15 a minute) and --limit: 3 frames, at 0, 4 and 8 s. */
static void test_fractional_pps_limit(void **state)
{
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	struct rig r;

	(void)state;
	rig_init(&r, true, NULL, 1500);
	capture("good.pcap", &cfg, 10);
	cfg.pps = 0.25;
	cfg.limit = 3;
	run(&r, &cfg, 8000000000ull, &st);
	assert_int_equal(st.sent, 3);
	assert_int_equal(st.now_ns - st.start_ns, 8000000000ull);
	rig_free(&r);
}

/* --limit counts frames across passes; the capture's own timing with --duration: good.pcap's
 * records are 1 ms apart, so a 5 ms duration sends the first five. */
static void test_limit_loops_and_timed_duration(void **state)
{
	struct mqtx_replay_cfg cfg;
	struct mqtx_job_stats st;
	struct rig r;

	(void)state;
	rig_init(&r, true, NULL, 1500);
	capture("good.pcap", &cfg, 10);
	cfg.topspeed = true;
	cfg.loops = 0;
	cfg.limit = 25;
	run(&r, &cfg, 0, &st);
	assert_int_equal(st.sent, 25);
	assert_int_equal(st.loops, 2);

	capture("good.pcap", &cfg, 10);
	cfg.duration_ns = 5000000;
	run(&r, &cfg, 5000000, &st);
	assert_int_equal(st.sent, 5);
	assert_int_equal(st.now_ns - st.start_ns, 5000000);
	rig_free(&r);
}

/* A link type replay cannot send is refused by name, before anything is sent. */
static void test_raw_refused(void **state)
{
	char path[4200], msg[256];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/raw.pcap", data_dir);
	fd = mqtx__replay_open(path, msg, sizeof(msg));
	assert_true(fd >= 0);
	assert_int_equal(mqtx__replay_check(fd, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "link type RAW (Raw IP, DLT 12) cannot be replayed: Ethernet "
				 "(EN10MB) and Linux cooked (LINUX_SLL, LINUX_SLL2) can");
	close(fd);
}

/* A frame of the generator (valid checksums): UDP or TCP, IPv4 or IPv6, a VLAN tag or none. */
static size_t edit_frame(uint8_t *f, bool tcp, bool v6, int vlan)
{
	struct mqtx_gen_cfg cfg;
	int len;

	mqtx_gen_cfg_default(&cfg);
	cfg.proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	cfg.vlan = vlan;
	cfg.size = 128;
	if (v6) {
		cfg.ipv6 = true;
		cfg.src6[0] = cfg.dst6[0] = 0xfd;
	}
	len = mqtx_gen_build(&cfg, 7, f, 256);
	assert_true(len > 0);
	return (size_t)len;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* --fixcsum restores spoilt checksums; --unique-ip moves the addresses by the pass, its
 * checksums those a full recompute gives, and a bad checksum stays bad. */
static void test_frame_edits(void **state)
{
	(void)state;
	for (int v = 0; v < 8; v++) {
		bool tcp = v & 1, v6 = v & 2;
		int vlan = v & 4 ? 5 : -1;
		size_t ip = 14 + (vlan >= 0 ? 4 : 0), l4 = ip + (v6 ? 40 : 20);
		size_t sa = ip + (v6 ? 20 : 12), da = ip + (v6 ? 36 : 16), c = l4 + (tcp ? 16 : 6);
		uint8_t good[256], f[256], g[256];
		size_t len = edit_frame(good, tcp, v6, vlan);

		memcpy(f, good, len);
		f[c] ^= 0x5a;
		if (!v6)
			f[ip + 10] ^= 0xa5;
		mqtx__frame_fixcsum(f, len);
		assert_memory_equal(f, good, len);

		memcpy(f, good, len);
		mqtx__frame_unique_ip(f, len, 0);
		assert_memory_equal(f, good, len);
		mqtx__frame_unique_ip(f, len, 3);
		assert_int_equal(be32(f + sa), be32(good + sa) + 3);
		assert_int_equal(be32(f + da), be32(good + da) - 3);
		memcpy(g, f, len);
		mqtx__frame_fixcsum(g, len);
		assert_memory_equal(f, g, len);

		memcpy(f, good, len);
		f[c] ^= 0x01; /* a wrong checksum: still wrong after the move */
		mqtx__frame_unique_ip(f, len, 9);
		memcpy(g, f, len);
		mqtx__frame_fixcsum(g, len);
		assert_int_equal(f[c] ^ g[c], 0x01);
	}
	/* Not IP: nothing changes. */
	{
		uint8_t f[64] = { [12] = 0x08, [13] = 0x06 }, g[64];

		memcpy(g, f, sizeof(f));
		mqtx__frame_unique_ip(f, sizeof(f), 2);
		mqtx__frame_fixcsum(f, sizeof(f));
		assert_memory_equal(f, g, sizeof(f));
	}
}

int main(void)
{
	const char *src = getenv("MQTX_SRCDIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sll),
		cmocka_unit_test(test_sll2),
		cmocka_unit_test(test_sll_addresses),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_mtu_all_fail),
		cmocka_unit_test(test_pps_loopdelay_duration),
		cmocka_unit_test(test_fractional_pps_limit),
		cmocka_unit_test(test_limit_loops_and_timed_duration),
		cmocka_unit_test(test_raw_refused),
		cmocka_unit_test(test_frame_edits),
	};

	snprintf(data_dir, sizeof(data_dir), "%s/tests/data", src ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

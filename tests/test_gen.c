// SPDX-License-Identifier: MIT
// The traffic generator: frames with valid checksums (own verifier, and tshark when present),
// exact counts through a null device, pacing in virtual time (per frame, bursts, the catch-up
// rule), a flow on one thread, stop.
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <pthread.h>
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

#include "gen/gen.h"
#include "tc/tc.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* An independent RFC 1071 check: the sum over a region including its checksum is 0xffff. */
static uint16_t sum16(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Check an IPv6 header; returns the next header. The pseudo-header sum is added to *@ph. */
static int check_ip6(const uint8_t *ip, size_t l3len, uint8_t tclass, uint32_t *ph)
{
	assert_int_equal(ip[0] >> 4, 6);
	assert_int_equal((uint8_t)(get16(ip) >> 4), tclass);
	assert_int_equal(get16(ip + 4), l3len - 40);
	assert_int_equal(ip[7], 64);
	*ph = sum16(0, ip + 8, 32) + ip[6] + (uint32_t)(l3len - 40);
	return ip[6];
}

/* Check one frame (IPv4, or IPv6 by its EtherType); returns the L4 protocol. */
static int check_frame_tc(const uint8_t *f, size_t len, size_t want_len, int vlan, uint8_t tos)
{
	size_t l3 = vlan >= 0 ? 18 : 14, l4len;
	const uint8_t *ip = f + l3, *l4;
	uint32_t ph;
	int proto;

	assert_int_equal(len, want_len);
	if (vlan >= 0) {
		assert_int_equal(get16(f + 12), 0x8100);
		assert_int_equal(get16(f + 14) & 0xfff, vlan);
	}
	if (get16(f + l3 - 2) == 0x86dd) {
		proto = check_ip6(ip, len - l3, tos, &ph);
		l4 = ip + 40;
		l4len = len - l3 - 40;
	} else {
		assert_int_equal(get16(f + l3 - 2), 0x0800);
		assert_int_equal(ip[0], 0x45);
		assert_int_equal(ip[1], tos);
		assert_int_equal(get16(ip + 2), len - l3);
		assert_int_equal(sum16(0, ip, 20), 0xffff);
		proto = ip[9];
		l4 = ip + 20;
		l4len = len - l3 - 20;
		ph = sum16(0, ip + 12, 8) + ip[9] + (uint32_t)l4len;
	}
	assert_int_equal(sum16(ph, l4, l4len), 0xffff);
	if (proto == IPPROTO_UDP)
		assert_int_equal(get16(l4 + 4), l4len);
	return proto;
}

static int check_frame(const uint8_t *f, size_t len, size_t want_len, int vlan)
{
	return check_frame_tc(f, len, want_len, vlan, 0);
}

static void test_frames_valid(void **state)
{
	struct mqtx_gen_cfg cfg;
	uint8_t buf[2048];

	(void)state;
	mqtx_gen_cfg_default(&cfg);
	for (int proto = 0; proto < 2; proto++) {
		cfg.proto = proto ? IPPROTO_TCP : IPPROTO_UDP;
		for (int v = -1; v <= 100; v += 101) {
			cfg.vlan = v;
			cfg.size = MQTX_GEN_SIZE_IMIX;
			for (uint64_t seq = 0; seq < 24; seq++) {
				int len = mqtx_gen_build(&cfg, seq, buf, sizeof(buf));
				uint32_t want = mqtx_gen_frame_size(&cfg, seq) - MQTX_GEN_FCS;

				assert_int_equal(check_frame(buf, (size_t)len, want, v), cfg.proto);
			}
			for (uint32_t size = 64; size <= 1522; size += 97) {
				cfg.size = size;
				check_frame(buf, (size_t)mqtx_gen_build(&cfg, 7, buf, sizeof(buf)),
					    size - 4, v);
			}
		}
	}
	cfg.size = 1518;
	assert_int_equal(mqtx_gen_build(&cfg, 0, buf, 100), -ENOSPC);
}

static void set_ipv6(struct mqtx_gen_cfg *cfg)
{
	static const uint8_t s6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t d6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };

	cfg->ipv6 = true;
	memcpy(cfg->src6, s6, 16);
	memcpy(cfg->dst6, d6, 16);
	cfg->src_lo = 1, cfg->src_hi = 4;
	cfg->dst_lo = 1, cfg->dst_hi = 1;
}

/* IPv6: the same checks over the IPv6 pseudo-header, the TOS as traffic class, VLAN tags, and
 * the smallest frames that hold the headers. */
static void test_frames_valid_ipv6(void **state)
{
	struct mqtx_gen_cfg cfg;
	struct mqtx_pkt_pool *pool = NULL;
	struct mqtx_job *job = NULL;
	uint8_t buf[2048];

	(void)state;
	mqtx_gen_cfg_default(&cfg);
	set_ipv6(&cfg);
	cfg.flows = 4;
	cfg.tos = 0xb8; /* EF */
	for (int proto = 0; proto < 2; proto++) {
		cfg.proto = proto ? IPPROTO_TCP : IPPROTO_UDP;
		for (int v = -1; v <= 100; v += 101) {
			uint32_t min = 14 + (v >= 0 ? 4 : 0) + 40 + (proto ? 20 : 8) + 4;
			const uint8_t *ip = buf + (v >= 0 ? 18 : 14);

			cfg.vlan = v;
			assert_int_equal(mqtx_gen_min_size(&cfg), min);
			cfg.size = MQTX_GEN_SIZE_IMIX;
			for (uint64_t seq = 0; seq < 24; seq++) {
				int len = mqtx_gen_build(&cfg, seq, buf, sizeof(buf));
				uint32_t want = mqtx_gen_frame_size(&cfg, seq);

				assert_true(want == min || want == 594 || want == 1518);
				assert_int_equal(
					check_frame_tc(buf, (size_t)len, want - 4, v, 0xb8),
					cfg.proto);
				/* the source's last 32 bits walk 1..4 under 2001:db8:: */
				assert_int_equal(get16(ip + 8), 0x2001);
				assert_int_equal(get16(ip + 20), 0);
				assert_int_equal(ip[23], 1 + seq % 4);
			}
			for (uint32_t size = min; size <= 1522; size += 97) {
				cfg.size = size;
				check_frame_tc(buf,
					       (size_t)mqtx_gen_build(&cfg, 7, buf, sizeof(buf)),
					       size - 4, v, 0xb8);
			}
		}
	}
	/* a size too small for the headers is refused before anything starts */
	cfg.proto = IPPROTO_UDP;
	cfg.vlan = -1;
	cfg.size = 64;
	assert_int_equal(mqtx__gen_start(NULL, pool, &cfg, &job), -EINVAL);
	assert_null(job);
	cfg.size = 66;
	assert_int_equal(check_frame_tc(buf, (size_t)mqtx_gen_build(&cfg, 0, buf, sizeof(buf)), 62,
					-1, 0xb8),
			 IPPROTO_UDP);
}

static void test_imix_and_flows(void **state)
{
	struct mqtx_gen_cfg cfg;
	unsigned n64 = 0, n594 = 0, n1518 = 0;
	uint8_t buf[2048];
	uint16_t seen[16] = { 0 };

	(void)state;
	mqtx_gen_cfg_default(&cfg);
	cfg.size = MQTX_GEN_SIZE_IMIX;
	for (uint64_t s = 0; s < 1200; s++) {
		uint32_t z = mqtx_gen_frame_size(&cfg, s);

		n64 += z == 64, n594 += z == 594, n1518 += z == 1518;
	}
	assert_int_equal(n64, 700);
	assert_int_equal(n594, 400);
	assert_int_equal(n1518, 100);
	/* 4 sources x 2 destinations x 2 source ports = 16 distinct tuples, source fastest */
	cfg.size = 64;
	cfg.flows = 16;
	cfg.src_lo = 0x0a000001, cfg.src_hi = 0x0a000004;
	cfg.dst_lo = 0x0a010001, cfg.dst_hi = 0x0a010002;
	cfg.sport_lo = 5000, cfg.sport_hi = 5001;
	for (uint64_t s = 0; s < 16; s++) {
		mqtx_gen_build(&cfg, s, buf, sizeof(buf));
		assert_int_equal(buf[14 + 15], 1 + s % 4);	 /* last byte of the source */
		assert_int_equal(buf[14 + 19], 1 + (s / 4) % 2); /* of the destination */
		assert_int_equal(get16(buf + 34), 5000 + (s / 8) % 2);
		seen[(buf[29] - 1) | ((buf[33] - 1) << 2) | ((get16(buf + 34) - 5000) << 3)]++;
	}
	for (int i = 0; i < 16; i++)
		assert_int_equal(seen[i], 1);
	assert_int_equal(mqtx__tos2prio(0x10), 6); /* IPTOS_LOWDELAY: interactive */
	assert_int_equal(mqtx__tos2prio(0x08), 2); /* IPTOS_THROUGHPUT: bulk */
	assert_int_equal(mqtx__tos2prio(0xb8), 4); /* EF */
}

/* Count the frames of @path that tshark's display @filter (checksums verified) matches;
 * -1 when tshark is missing. */
static int tshark_count(const char *path, const char *filter)
{
	char cmd[768];
	FILE *f;
	int n = -1;

	if (system("command -v tshark >/dev/null 2>&1") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE "
		 "-o tcp.check_checksum:TRUE -Y '%s' 2>/dev/null | wc -l",
		 path, filter);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

/* 200 frames of @cfg (UDP and TCP alternating, every third with a VLAN tag) into a pcap. */
static void write_pcap(const char *path, struct mqtx_gen_cfg *cfg)
{
	uint8_t buf[2048];
	pcap_dumper_t *d;
	pcap_t *p;

	p = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(p, path);
	assert_non_null(d);
	for (uint64_t s = 0; s < 200; s++) {
		struct pcap_pkthdr h = { .ts = { 1, (long)s } };

		cfg->proto = s & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		cfg->vlan = s % 3 == 0 ? (int)s : -1;
		h.caplen = h.len = (bpf_u_int32)mqtx_gen_build(cfg, s, buf, sizeof(buf));
		pcap_dump((u_char *)d, &h, buf);
	}
	pcap_dump_close(d);
	pcap_close(p);
}

/* Frames written with libpcap and read back by tshark (skipped when tshark is missing). */
static void test_tshark(void **state)
{
	char path[] = "/tmp/mqtx-gen-XXXXXX.pcap";
	struct mqtx_gen_cfg cfg;
	int fd, n;

	(void)state;
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	mqtx_gen_cfg_default(&cfg);
	cfg.size = MQTX_GEN_SIZE_IMIX;
	cfg.flows = 50;
	write_pcap(path, &cfg);
	n = tshark_count(path, "ip.checksum.status == 1 && (udp.checksum.status == 1 || "
			       "tcp.checksum.status == 1) && !_ws.malformed");
	unlink(path);
	if (n < 0)
		skip();
	assert_int_equal(n, 200);
}

/* The same for IPv6: tshark checks UDP and TCP checksums over the IPv6 pseudo-header, and
 * reads the traffic class, the addresses and the VLAN tags back. */
static void test_tshark_ipv6(void **state)
{
	char path[] = "/tmp/mqtx-gen6-XXXXXX.pcap";
	struct mqtx_gen_cfg cfg;
	int fd, n, tagged;

	(void)state;
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	mqtx_gen_cfg_default(&cfg);
	set_ipv6(&cfg);
	cfg.size = MQTX_GEN_SIZE_IMIX;
	cfg.flows = 50;
	cfg.tos = 46 << 2;
	write_pcap(path, &cfg);
	n = tshark_count(path, "ipv6 && !ip && ipv6.tclass.dscp == 46 && ipv6.hlim == 64 && "
			       "ipv6.src == 2001:db8::/125 && ipv6.dst == 2001:db8:1::1 && "
			       "(udp.checksum.status == 1 || tcp.checksum.status == 1) && "
			       "!_ws.malformed");
	tagged = tshark_count(path, "vlan && ipv6 && (udp.checksum.status == 1 || "
				    "tcp.checksum.status == 1)");
	unlink(path);
	if (n < 0)
		skip();
	assert_int_equal(n, 200);
	assert_int_equal(tagged, 67); /* s % 3 == 0 for s < 200 */
}

static struct mqtx_dev *null_dev(struct mqtx_clock *clock, uint32_t nq)
{
	struct mqtx_dev_cfg c = {
		.name = "g0", .ops = &mqtx_null_ops, .num_txq = nq, .clock = clock
	};
	struct mqtx_dev *dev;

	assert_int_equal(mqtx_dev_create(&c, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	return dev;
}

static void test_count_exact(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 512, .cache_size = 32 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev = null_dev(NULL, 4);
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats st;
	struct mqtx_job *job;
	uint64_t pk, by;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.count = 10000;
	cfg.threads = 3;
	cfg.flows = 64;
	cfg.size = MQTX_GEN_SIZE_IMIX;
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	do {
		sched_yield();
		mqtx__job_stats(job, &st);
	} while (!st.done);
	mqtx__job_join(job);
	mqtx__job_stats(job, &st);
	mqtx_null_counts(dev, &pk, &by);
	assert_int_equal(st.sent + st.dropped, 10000);
	assert_int_equal(pk, st.sent);
	assert_int_equal(by, st.bytes);
	/* 10000 = 833 rounds of 12 (4294 bytes) + 4 frames of 60, 590, 60, 60 */
	assert_int_equal(by + 0, 833ull * 4294 + 770);
	mqtx__job_free(job);
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
}

static uint64_t wait_sent(struct mqtx_job *job, uint64_t want)
{
	struct mqtx_job_stats st;

	for (long i = 0; i < 200000000; i++) {
		mqtx__job_stats(job, &st);
		if (st.sent >= want || st.done)
			break;
		sched_yield();
	}
	/* give a runaway sender a chance to show itself */
	for (int i = 0; i < 1000; i++)
		sched_yield();
	mqtx__job_stats(job, &st);
	return st.sent;
}

/* 1000 pps for 10 ms of virtual time: frame k is due at k ms, so exactly k + 1 frames have
 * gone when the clock reads k ms, and 10 in all. */
static void test_pacing_virtual(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 64, .cache_size = 8 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_clock *clk;
	struct mqtx_dev *dev;
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats st;
	struct mqtx_job *job;

	(void)state;
	assert_int_equal(mqtx_clock_new_virtual(1000000, &clk), 0);
	dev = null_dev(clk, 2);
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.rate_pps = 1000;
	cfg.duration_ns = 10000000;
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	for (uint64_t k = 0; k < 10; k++) {
		assert_int_equal(wait_sent(job, k + 1), k + 1);
		mqtx_clock_advance(clk, 1000000);
	}
	do {
		sched_yield();
		mqtx__job_stats(job, &st);
	} while (!st.done);
	assert_int_equal(st.sent, 10);
	assert_int_equal(st.now_ns - st.start_ns, 10000000);
	mqtx__job_free(job);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
	mqtx_clock_free(clk);
}

/* A late frame goes no sooner than half its gap after the last frame went; an early or
 * on-time one at its due time. */
static void test_pace_rule(void **state)
{
	struct mqtx_pacer pc = { 0 };

	(void)state;
	assert_int_equal(mqtx__pace_at(&pc, 7000), 7000); /* the first frame: its due time */
	pc = (struct mqtx_pacer){ .started = true, .due = 1000, .sent = 1000 };
	assert_int_equal(mqtx__pace_at(&pc, 2000), 2000); /* on time */
	pc.sent = 5000;					  /* the last frame went 4 gaps late */
	assert_int_equal(mqtx__pace_at(&pc, 2000), 5500);
	pc = (struct mqtx_pacer){ .started = true, .due = 1000, .sent = 2200 };
	assert_int_equal(mqtx__pace_at(&pc, 2000), 2700);
	pc.due = 2000;
	pc.sent = 2500; /* caught up: at its due time again */
	assert_int_equal(mqtx__pace_at(&pc, 3200), 3200);
	pc.sent = 1500; /* a due time not after the last one: at once */
	assert_int_equal(mqtx__pace_at(&pc, 1000), 1000);
}

/* Records every frame's number (pkt->user) in arrival order. */
struct seq_log {
	pthread_mutex_t lock;
	uint64_t n, seq[4096];
};

static unsigned seq_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct seq_log *l = mqtx_dev_priv(dev);

	(void)txq;
	(void)more;
	pthread_mutex_lock(&l->lock);
	for (unsigned i = 0; i < n; i++)
		if (l->n < 4096)
			l->seq[l->n++] = pkts[i]->user;
	pthread_mutex_unlock(&l->lock);
	mqtx_pkt_free_bulk(pkts, n);
	return n;
}

static const struct mqtx_dev_ops seq_ops = { .kind = "seqlog", .xmit_burst = seq_xmit };

static struct seq_log *logged_dev(struct mqtx_clock *clk, struct mqtx_dev **devp)
{
	struct mqtx_dev_cfg dc = { .name = "s0",
				   .ops = &seq_ops,
				   .num_txq = 1,
				   .clock = clk,
				   .priv_size = sizeof(struct seq_log) };
	struct seq_log *l;

	assert_int_equal(mqtx_dev_create(&dc, devp), 0);
	l = mqtx_dev_priv(*devp);
	pthread_mutex_init(&l->lock, NULL);
	assert_int_equal(mqtx_dev_open(*devp), 0);
	return l;
}

/* 15 flows on 4 threads (15 % 4 != 0): every frame of 0..2999 arrives once, and each flow's
 * frames in order, since a flow belongs to one thread. */
static void test_flow_one_thread(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 512, .cache_size = 16 };
	uint64_t last[15], seen[3000] = { 0 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats st;
	struct seq_log *l;
	struct mqtx_job *job;
	struct mqtx_dev *dev;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.flows = 15;
	cfg.threads = 4;
	cfg.count = 3000;
	l = logged_dev(NULL, &dev);
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	do {
		sched_yield();
		mqtx__job_stats(job, &st);
	} while (!st.done);
	assert_int_equal(st.sent, 3000);
	assert_int_equal(l->n, 3000);
	memset(last, 0xff, sizeof(last));
	for (uint64_t i = 0; i < l->n; i++) {
		uint64_t s = l->seq[i], f = s % 15;

		assert_true(s < 3000);
		assert_int_equal(seen[s]++, 0);
		assert_true(last[f] == UINT64_MAX || last[f] < s);
		last[f] = s;
	}
	/* fewer flows than threads: only as many threads as flows */
	mqtx__job_free(job);
	cfg.flows = 2;
	cfg.threads = 5;
	cfg.count = 10;
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	assert_int_equal(job->nthreads, 2);
	mqtx__job_free(job);
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
}

/* 1000 pps on 3 threads with 3 flows in virtual time: frame k is due at k ms whichever thread
 * sends it, so at k ms exactly k + 1 frames have gone, in order. With burst 4, frames go four
 * at a time, each burst at its first frame's due time. */
static void test_pacing_threads_burst(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 64, .cache_size = 4 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_clock *clk;
	struct mqtx_dev *dev;
	struct mqtx_gen_cfg cfg;
	struct seq_log *l;
	struct mqtx_job *job;

	(void)state;
	assert_int_equal(mqtx_clock_new_virtual(0, &clk), 0);
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.rate_pps = 1000;
	cfg.flows = 3;
	cfg.threads = 3;
	cfg.count = 9;
	l = logged_dev(clk, &dev);
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	for (uint64_t k = 0; k < 9; k++) {
		uint64_t s;

		assert_int_equal(wait_sent(job, k + 1), k + 1);
		pthread_mutex_lock(&l->lock);
		s = l->seq[k];
		pthread_mutex_unlock(&l->lock);
		assert_int_equal(s, k);
		mqtx_clock_advance(clk, 1000000);
	}
	mqtx__job_free(job);
	cfg.threads = 1;
	cfg.burst = 4;
	cfg.count = 10;
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	for (uint64_t k = 0; k < 3; k++) {
		assert_int_equal(wait_sent(job, k * 4 + 1), k < 2 ? k * 4 + 4 : 10);
		mqtx_clock_advance(clk, 4000000);
	}
	mqtx__job_free(job);
	cfg.burst = MQTX_GEN_BURST + 1;
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), -EINVAL);
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
	mqtx_clock_free(clk);
}

static void test_stop(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 256, .cache_size = 32 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev = null_dev(NULL, 2);
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats st;
	struct mqtx_job *job;
	uint64_t pk, by;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.threads = 2;
	assert_int_equal(mqtx__gen_start(dev, pool, &cfg, &job), 0);
	assert_true(wait_sent(job, 1000) >= 1000);
	mqtx__job_join(job);
	mqtx__job_stats(job, &st);
	assert_true(st.done);
	mqtx_null_counts(dev, &pk, &by);
	assert_int_equal(pk, st.sent);
	mqtx__job_free(job);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
}

/* Rates, sizes and times are tc's (qdisc/tcunits.c); the generator only adds packet rates. */
static void test_parsers(void **state)
{
	uint64_t bps, pps;
	uint32_t lo, hi;
	uint16_t plo, phi;
	uint8_t base[16];

	(void)state;
	assert_int_equal(mqtx__parse_rate("10mbit", &bps, &pps), 0);
	assert_int_equal(bps, 10000000);
	assert_int_equal(pps, 0);
	assert_int_equal(mqtx__parse_rate("2kpps", &bps, &pps), 0);
	assert_int_equal(pps, 2000);
	assert_int_equal(bps, 0);
	assert_int_equal(mqtx__parse_rate("2.5KPPS", &bps, &pps), 0);
	assert_int_equal(pps, 2500);
	assert_int_equal(mqtx__parse_rate("1mbps", &bps, &pps), 0);
	assert_int_equal(bps, 8000000);
	/* what tc accepts, the generator accepts: exponents, binary prefixes, bare bit/s */
	assert_int_equal(mqtx__parse_rate("1e3kbit", &bps, &pps), 0);
	assert_int_equal(bps, 1000000);
	assert_int_equal(mqtx__parse_rate("1kibit", &bps, &pps), 0);
	assert_int_equal(bps, 1024);
	assert_int_equal(mqtx__parse_rate("100", &bps, &pps), 0);
	assert_int_equal(bps, 100);
	assert_int_equal(pps, 0);
	/* bits are not truncated to bytes: 100bit is 100 bit/s, not 96 */
	assert_int_equal(mqtx__parse_rate("100bit", &bps, &pps), 0);
	assert_int_equal(bps, 100);
	bps = pps = 7;
	assert_int_equal(mqtx__parse_rate("fast", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("-1mbit", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("0pps", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("0.5bit", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("2gpps", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("pps", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("2mpps ", &bps, &pps), -EINVAL);
	assert_int_equal(mqtx__parse_rate("2e15pps", &bps, &pps), -EINVAL);
	assert_int_equal(bps + pps, 14); /* a refused value leaves both alone */
	assert_int_equal(mqtx__parse_ipv4_range("10.0.0.1-10.0.0.9", &lo, &hi), 0);
	assert_int_equal(hi - lo, 8);
	assert_int_equal(mqtx__parse_ipv4_range("10.0.0.9-10.0.0.1", &lo, &hi), -EINVAL);
	assert_int_equal(mqtx__parse_ipv4_range("10.0.0.256", &lo, &hi), -EINVAL);
	memset(base, 0, sizeof(base));
	assert_int_equal(mqtx__parse_ipv6_range("2001:db8::1:fffe-2001:db8::2:1", base, &lo, &hi),
			 0);
	assert_int_equal(lo, 0x1fffe);
	assert_int_equal(hi, 0x20001);
	assert_int_equal(base[0], 0x20);
	assert_int_equal(base[3], 0xb8);
	assert_int_equal(mqtx__parse_ipv6_range("fd00::7", base, &lo, &hi), 0);
	assert_int_equal(lo, 7);
	assert_int_equal(hi, 7);
	assert_int_equal(base[0], 0xfd);
	assert_int_equal(mqtx__parse_ipv6_range("fd00::1-fd01::1", base, &lo, &hi), -ERANGE);
	assert_int_equal(mqtx__parse_ipv6_range("fd00::9-fd00::1", base, &lo, &hi), -EINVAL);
	assert_int_equal(mqtx__parse_ipv6_range("fd00::g", base, &lo, &hi), -EINVAL);
	assert_int_equal(mqtx__parse_ipv6_range("10.0.0.1", base, &lo, &hi), -EINVAL);
	assert_int_equal(mqtx__parse_ipv6_range("fd00::1-", base, &lo, &hi), -EINVAL);
	assert_int_equal(base[0], 0xfd); /* refused: unchanged */
	assert_int_equal(mqtx__parse_port_range("80-90", &plo, &phi), 0);
	assert_int_equal(phi, 90);
	assert_int_equal(mqtx__parse_port_range("65536", &plo, &phi), -EINVAL);
	assert_int_equal(mqtx__parse_port_range("1-2-3", &plo, &phi), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_valid),
		cmocka_unit_test(test_imix_and_flows),
		cmocka_unit_test(test_tshark),
		cmocka_unit_test(test_count_exact),
		cmocka_unit_test(test_frames_valid_ipv6),
		cmocka_unit_test(test_tshark_ipv6),
		cmocka_unit_test(test_pacing_virtual),
		cmocka_unit_test(test_pace_rule),
		cmocka_unit_test(test_flow_one_thread),
		cmocka_unit_test(test_pacing_threads_burst),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_parsers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

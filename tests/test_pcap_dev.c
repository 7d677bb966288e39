// SPDX-License-Identifier: MIT
/* The pcap driver: pcapng with one interface per TX queue as tshark reads it, exact virtual
 * timestamps through a wire, every generated frame once and intact, a file valid after
 * SIGTERM, a full disk and a file-size limit (every frame written whole or dropped with its
 * reason, the file valid), set-up errors. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mount.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <mqtx/pcap.h>

#include "kdev_util.h"

#define NQ 4

static struct mqtx_pkt_pool *pool;
static char dir[64];
static bool own_mounts; /* the program runs in a mount namespace of its own */

static void xmit_on(struct mqtx_dev *dev, const struct mqtx_gen_cfg *cfg, uint64_t seq, uint16_t q)
{
	struct mqtx_pkt *pkt = mqtx_pkt_alloc(pool);
	uint8_t buf[2048];
	int len = mqtx_gen_build(cfg, seq, buf, sizeof(buf));

	assert_non_null(pkt);
	memcpy(mqtx_pkt_put(pkt, (uint32_t)len), buf, (size_t)len);
	pkt->queue_mapping = q;
	pkt->flags |= MQTX_PKT_F_QMAP_SET;
	assert_int_equal(mqtx_dev_xmit(dev, pkt), MQTX_XMIT_SUCCESS);
}

/* The driver's counters through the one accessor of every driver: each queue's, their sum, the
 * same through the older pcap-only call, and the refusals. */
static void check_ktxq_stats(struct mqtx_dev *dev, uint64_t per_queue)
{
	struct mqtx_dev_cfg nc = { .name = "nul0", .num_txq = 1, .ops = &mqtx_null_ops };
	struct mqtx_ktxq_stats ks, old;
	struct mqtx_dev *null_dev;
	uint64_t stops = 0;

	for (int i = 0; i < NQ; i++) {
		assert_int_equal(mqtx_dev_ktxq_stats(dev, i, &ks), 0);
		assert_int_equal(ks.packets, per_queue);
		assert_int_equal(ks.completed, per_queue);
		stops += ks.stops;
	}
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks), 0);
	assert_int_equal(ks.packets, per_queue * NQ);
	assert_int_equal(ks.stops, stops);
	assert_int_equal(mqtx_pcap_txq_stats(dev, -1, &old), 0);
	assert_memory_equal(&old, &ks, sizeof(ks));
	assert_int_equal(mqtx_dev_ktxq_stats(dev, NQ, &ks), -EINVAL);
	assert_int_equal(mqtx_dev_create(&nc, &null_dev), 0);
	assert_int_equal(mqtx_dev_ktxq_stats(null_dev, 0, &ks), -EOPNOTSUPP);
	assert_int_equal(mqtx_pcap_txq_stats(null_dev, 0, &ks), -EINVAL);
	mqtx_dev_destroy(null_dev);
}

/* pcapng through a 1 Gbit/s wire in virtual time: tshark shows one interface per queue named
 * "pc0:txN" with as many frames as mqtx's queue counters, and each frame's timestamp is
 * exactly when the wire started it. */
static void test_pcapng_queues_and_times(void **state)
{
	struct mqtx_pcap_cfg pc = { .rate_bps = 1000000000, .ring = 64 };
	struct mqtx_dev_cfg c = { .name = "pc0", .num_txq = NQ, .flags = MQTX_DEV_F_BQL };
	const uint64_t t0 = 5 * MQTX_NSEC_PER_SEC;
	struct mqtx_clock *clock;
	struct mqtx_dev *dev;
	struct mqtx_gen_cfg cfg;
	struct mqtx_dev_stats ds;
	char path[128], ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t per_q[NQ] = { 0 };
	pcap_t *rd;

	(void)state;
	snprintf(path, sizeof(path), "%s/q.pcapng", dir);
	pc.file = path;
	assert_int_equal(mqtx_clock_new_virtual(t0, &clock), 0);
	c.clock = clock;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.size = 64; /* 60 bytes without FCS: (60 + 24) * 8 = 672 ns at 1 Gbit/s */
	/* 100 frames on each queue at t0: more than the ring, so queues stop and wake. */
	for (uint64_t s = 0; s < 100 * NQ; s++)
		xmit_on(dev, &cfg, s, (uint16_t)(s % NQ));
	for (int k = 0; k < 1000 && !mqtx_dev_all_tx_empty(dev); k++)
		mqtx_clock_advance(clock, 10000);
	assert_true(mqtx_dev_all_tx_empty(dev));
	assert_true(kt_conserved(dev, &ds));
	assert_int_equal(ds.txq.packets, 100 * NQ);
	assert_true(ds.txq.stops > 0);
	check_ktxq_stats(dev, 100);
	mqtx_dev_destroy(dev);
	mqtx_clock_free(clock);

	rd = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	assert_non_null(rd);
	for (uint64_t s = 0; pcap_next_ex(rd, &h, &d) == 1; s++) {
		uint64_t ts = (uint64_t)h->ts.tv_sec * MQTX_NSEC_PER_SEC + (uint64_t)h->ts.tv_usec;
		uint64_t seq = kt_frame_seq(d, h->caplen);

		/* Frame k of a queue starts when frame k - 1 of that queue is done. */
		assert_int_equal(ts, t0 + per_q[seq % NQ]++ * 672);
	}
	pcap_close(rd);
	for (unsigned i = 0; i < NQ; i++)
		assert_int_equal(kt_num("tshark -r %s -T fields -e frame.interface_name 2>/dev/null"
					" | grep -c '^pc0:tx%u$'",
					path, i),
				 100);
	assert_int_equal(kt_num("tshark -r %s -T fields -e frame.interface_name 2>/dev/null"
				" | wc -l",
				path),
			 100 * NQ);
}

/* The generator's frames through 4 queues into a pcap file: each exactly once, as generated,
 * in per-flow order. */
static void test_pcap_gen_exact(void **state)
{
	struct mqtx_pcap_cfg pc = { .format = MQTX_PCAP_FORMAT_PCAP };
	/* A qdisc limit above the whole run: two generator threads outrun one file. */
	struct mqtx_dev_cfg c = { .name = "pc1", .num_txq = NQ, .tx_queue_len = 100000 };
	struct mqtx_dev *dev;
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats js;
	char path[128], ebuf[PCAP_ERRBUF_SIZE];
	struct kt_frame *f = calloc(20000, sizeof(*f));
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t n = 0;
	pcap_t *rd;

	(void)state;
	snprintf(path, sizeof(path), "%s/g.pcap", dir);
	pc.file = path;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	kt_gen_exact(&cfg, 2);
	assert_int_equal(kt_gen_run(dev, pool, &cfg, &js), 0);
	assert_int_equal(js.sent, cfg.count);
	mqtx_dev_destroy(dev);
	rd = pcap_open_offline(path, ebuf);
	assert_non_null(rd);
	while (n < 20000 && pcap_next_ex(rd, &h, &d) == 1) {
		f[n].len = h->caplen;
		f[n].data = malloc(h->caplen);
		memcpy(f[n++].data, d, h->caplen);
	}
	pcap_close(rd);
	assert_int_equal(kt_check_frames(f, n, &cfg, cfg.count), 0);
	for (size_t i = 0; i < n; i++)
		free(f[i].data);
	free(f);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * MQTX_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* On the real clock the file holds wall-clock time: every stamp lies between the wall clock
 * before the device came up and after the last frame; and each frame has a stamp of its own,
 * later than the one before, though the generator hands them over 32 at a time. */
static void test_pcap_wall_clock_each_frame(void **state)
{
	struct mqtx_pcap_cfg pc = { .format = MQTX_PCAP_FORMAT_PCAP };
	struct mqtx_dev_cfg c = { .name = "pc5", .num_txq = 1, .tx_queue_len = 100000 };
	char path[128], ebuf[PCAP_ERRBUF_SIZE];
	uint64_t before, after, last = 0, n = 0;
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats js;
	struct pcap_pkthdr *h;
	struct mqtx_dev *dev;
	const u_char *d;
	pcap_t *rd;

	(void)state;
	snprintf(path, sizeof(path), "%s/w.pcap", dir);
	pc.file = path;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	before = realtime_ns();
	assert_int_equal(mqtx_dev_open(dev), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.count = 2000;
	assert_int_equal(kt_gen_run(dev, pool, &cfg, &js), 0);
	assert_int_equal(js.sent, 2000);
	mqtx_dev_destroy(dev);
	after = realtime_ns();
	rd = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	assert_non_null(rd);
	while (pcap_next_ex(rd, &h, &d) == 1) {
		uint64_t ts = (uint64_t)h->ts.tv_sec * MQTX_NSEC_PER_SEC + (uint64_t)h->ts.tv_usec;

		assert_true(ts >= before && ts <= after);
		assert_true(ts > last);
		last = ts;
		n++;
	}
	pcap_close(rd);
	assert_int_equal(n, 2000);
}

/* On the real clock a wire completes lazily (by the next burst, or a millisecond after its frame
 * ends) and at once for a stopped queue: a generator at top speed into 64-descriptor rings stops
 * every queue and each stop is woken; every frame is written and, once the wire is idle,
 * completed, and the device holds nothing. */
static void test_pcap_real_wire_completes(void **state)
{
	struct mqtx_pcap_cfg pc = { .rate_bps = 1000000000, .ring = 64 };
	struct mqtx_dev_cfg c = { .name = "pc6", .num_txq = NQ, .tx_queue_len = 100000 };
	struct mqtx_ktxq_stats ks;
	struct mqtx_gen_cfg cfg;
	struct mqtx_job_stats js;
	struct mqtx_dev *dev;
	char path[128];
	uint64_t end;

	(void)state;
	snprintf(path, sizeof(path), "%s/r.pcap", dir);
	pc.file = path;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	mqtx_gen_cfg_default(&cfg);
	cfg.count = 20000;
	cfg.flows = 64;
	assert_int_equal(kt_gen_run(dev, pool, &cfg, &js), 0);
	assert_int_equal(js.sent, 20000);
	end = kt_now_ms() + 20000; /* a failure bound: the last round is a millisecond away */
	do
		assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks), 0);
	while (ks.completed < ks.packets && kt_now_ms() < end);
	assert_int_equal(ks.packets, 20000);
	assert_int_equal(ks.completed, 20000);
	assert_true(ks.stops > 0);
	assert_int_equal(ks.wakes, ks.stops);
	assert_true(mqtx_dev_all_tx_empty(dev));
	mqtx_dev_destroy(dev);
}

/* A process killed by SIGTERM in the middle leaves a valid file with every frame it sent. */
static void test_pcapng_valid_after_sigterm(void **state)
{
	char path[128];
	int status;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/t.pcapng", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct mqtx_pcap_cfg pc = { .file = path };
		struct mqtx_dev_cfg c = { .name = "pc2", .num_txq = 2 };
		struct mqtx_gen_cfg cfg;
		struct mqtx_dev *dev;

		mqtx_gen_cfg_default(&cfg);
		if (mqtx_pcap_dev_create(&c, &pc, &dev) || mqtx_dev_open(dev))
			_exit(1);
		for (uint64_t s = 0; s < 777; s++)
			xmit_on(dev, &cfg, s, (uint16_t)(s % 2));
		kill(getpid(), SIGTERM); /* no handler: the process dies here */
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* tshark reads it to the end without complaint. */
	assert_int_equal(
		kt_num("tshark -r %s 2>&1 | grep -c 'cut short\\|appears to be damaged'", path), 0);
	assert_int_equal(kt_num("tshark -r %s 2>/dev/null | wc -l", path), 777);
}

/* How often @needle is in the log. */
static int log_count(const char *needle)
{
	int n = 0;

	pthread_mutex_lock(&kt_log_lock);
	for (const char *s = kt_log_buf; (s = strstr(s, needle)); s++)
		n++;
	pthread_mutex_unlock(&kt_log_lock);
	return n;
}

/* Read @path whole with libpcap: its frames, or -1 when it does not end with a whole record.
 * *@bytes: the sum of the records' lengths. */
static long read_capture(const char *path, bool ng, uint64_t *bytes)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *rd = pcap_open_offline(path, ebuf);
	long n = 0;
	int rc;

	assert_non_null(rd);
	*bytes = 0;
	while ((rc = pcap_next_ex(rd, &h, &d)) == 1) {
		*bytes += ng ? 32 + (h->caplen + 3u) / 4 * 4 : 16 + h->caplen;
		n++;
	}
	if (rc != PCAP_ERROR_BREAK)
		printf("%s: %s after %ld frames\n", path, pcap_geterr(rd), n);
	pcap_close(rd);
	return rc == PCAP_ERROR_BREAK ? n : -1;
}

/* @n frames of @size bytes on the queues of @dev in turn. */
static void xmit_n(struct mqtx_dev *dev, uint64_t first, unsigned n, uint32_t size)
{
	struct mqtx_gen_cfg cfg;

	mqtx_gen_cfg_default(&cfg);
	cfg.size = size;
	for (uint64_t s = first; s < first + n; s++)
		xmit_on(dev, &cfg, s, (uint16_t)(s % mqtx_dev_num_txq(dev)));
}

/* Send until every queue of @dev is empty, advancing virtual clock @clock (or none). */
static void drain(struct mqtx_dev *dev, struct mqtx_clock *clock)
{
	for (int k = 0; clock && k < 100000 && !mqtx_dev_all_tx_empty(dev); k++)
		mqtx_clock_advance(clock, 10000);
	assert_true(mqtx_dev_all_tx_empty(dev));
}

/* A full file system: every frame is in the file whole or dropped as nospace, the file is a
 * valid capture of exactly the frames written, the first failure is logged once and the sum
 * when the device goes; once there is room again, frames are written again. pcapng goes
 * through a wire with BQL in virtual time: a dropped frame never goes on it. */
static void full_disk(bool ng)
{
	struct mqtx_pcap_cfg pc = { .format = ng ? MQTX_PCAP_FORMAT_PCAPNG : MQTX_PCAP_FORMAT_PCAP,
				    .rate_bps = ng ? 1000000000 : 0 };
	struct mqtx_dev_cfg c = { .name = "pcf", .num_txq = 2, .flags = MQTX_DEV_F_BQL };
	struct mqtx_clock *clock = NULL;
	char small[96], path[128], sum[256];
	struct mqtx_dev_stats ds;
	struct mqtx_ktxq_stats ks;
	struct mqtx_dev *dev;
	uint64_t bytes, written, nospace;
	struct stat st;

	if (!own_mounts)
		skip();
	snprintf(small, sizeof(small), "%s/small", dir);
	assert_int_equal(kt_sh("mkdir -p %s && mount -t tmpfs -o size=64k tmpfs %s && "
			       "head -c 16384 /dev/zero >%s/filler",
			       small, small, small),
			 0);
	snprintf(path, sizeof(path), "%s/full.%s", small, ng ? "pcapng" : "pcap");
	pc.file = path;
	if (ng) {
		assert_int_equal(mqtx_clock_new_virtual(MQTX_NSEC_PER_SEC, &clock), 0);
		c.clock = clock;
	}
	kt_log_reset();
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	xmit_n(dev, 0, 200, 1000); /* 200 KB for 48 KiB */
	drain(dev, clock);
	assert_true(kt_conserved(dev, &ds));
	assert_int_equal(ds.txq.bql_inflight, 0);
	nospace = ds.txq.drops[MQTX_DROP_NOSPACE];
	written = ds.txq.packets;
	assert_true(nospace > 0 && written > 0);
	assert_int_equal(written + nospace, 200);
	assert_int_equal(mqtx_txq_stats_drops(&ds.txq), nospace);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks), 0);
	assert_int_equal(ks.packets, written);
	assert_int_equal(ks.errors, nospace);
	assert_int_equal(ks.last_errno, ENOSPC);
	assert_int_equal(log_count("cannot write: No space left on device"), 1);
	/* The file holds exactly the frames written, whole, and nothing after them. */
	assert_int_equal(read_capture(path, ng, &bytes), (long)written);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((uint64_t)st.st_size - bytes, ng ? 28 + 2 * 44 : 24);
	/* Room again: the device, still up, writes again. */
	assert_true(mqtx_dev_is_up(dev));
	assert_int_equal(kt_sh("rm %s/filler", small), 0);
	xmit_n(dev, 200, 10, 1000);
	drain(dev, clock);
	assert_true(kt_conserved(dev, &ds));
	assert_int_equal(ds.txq.packets, written + 10);
	assert_int_equal(ds.txq.drops[MQTX_DROP_NOSPACE], nospace);
	assert_int_equal(mqtx_dev_ktxq_stats(dev, -1, &ks), 0);
	assert_int_equal(ks.completed, written + 10);
	mqtx_dev_destroy(dev);
	mqtx_clock_free(clock);
	snprintf(sum, sizeof(sum), "pcf: %s: %llu frames were not written (nospace %llu)", path,
		 (unsigned long long)nospace, (unsigned long long)nospace);
	assert_true(kt_log_has(sum));
	assert_int_equal(log_count("cannot write"), 1);
	assert_int_equal(read_capture(path, ng, &bytes), (long)written + 10);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	assert_int_equal(kt_sh("umount %s", small), 0);
}

static void test_pcap_full_disk(void **state)
{
	(void)state;
	full_disk(false);
}

static void test_pcapng_full_disk(void **state)
{
	(void)state;
	full_disk(true);
}

/* Past the file-size limit a write fails (EFBIG, SIGXFSZ ignored): the frames are dropped as
 * write, the record the limit cut is taken off again, and the file stays valid. */
static void test_pcap_write_error(void **state)
{
	struct mqtx_pcap_cfg pc = { .format = MQTX_PCAP_FORMAT_PCAP };
	struct mqtx_dev_cfg c = { .name = "pcw", .num_txq = 1 };
	struct rlimit old, lim;
	struct mqtx_dev_stats ds;
	struct mqtx_dev *dev;
	char path[128];
	uint64_t bytes;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/fsize.pcap", dir);
	pc.file = path;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = (struct rlimit){ 20000, old.rlim_max }; /* the soft limit: it can be raised again */
	kt_log_reset();
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	xmit_n(dev, 0, 50, 1000);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_true(kt_conserved(dev, &ds));
	assert_true(ds.txq.drops[MQTX_DROP_WRITE] > 0);
	assert_int_equal(ds.txq.packets + ds.txq.drops[MQTX_DROP_WRITE], 50);
	assert_true(kt_log_has("cannot write: File too large"));
	mqtx_dev_destroy(dev);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(read_capture(path, false, &bytes), (long)ds.txq.packets);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((uint64_t)st.st_size, 24 + bytes);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

/* Whether @path holds exactly @text. */
static bool holds(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return !strcmp(buf, text);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A device on @file (@overwrite), expected to fail with @err and to log @why. */
static void refused(const char *file, bool overwrite, int err, const char *why)
{
	struct mqtx_pcap_cfg pc = { .file = file, .overwrite = overwrite };
	struct mqtx_dev_cfg c = { .name = "pco", .num_txq = 1 };
	struct mqtx_dev *dev = NULL;

	kt_log_reset();
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), err);
	assert_null(dev);
	assert_true(kt_log_has(why));
}

/* Opened by name: no symbolic link followed, an existing file only with overwrite and only the
 * caller's, nothing but a regular file and without blocking, and a device that refuses the
 * first write is not removed (only what this open created is). */
static void test_pcap_open_rules(void **state)
{
	struct mqtx_pcap_cfg pc = { .overwrite = true };
	struct mqtx_dev_cfg c = { .name = "pco", .num_txq = 1 };
	char target[128], slink[128], hard[128], theirs[128], fifo[128], full[128], mine[128];
	struct mqtx_dev *dev;
	uint64_t bytes;

	(void)state;
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(slink, sizeof(slink), "%s/link.pcap", dir);
	snprintf(theirs, sizeof(theirs), "%s/theirs.pcap", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo.pcap", dir);
	snprintf(full, sizeof(full), "%s/full", dir);
	snprintf(mine, sizeof(mine), "%s/mine.pcap", dir);
	put_file(target, "keep");
	assert_int_equal(symlink(target, slink), 0);
	refused(slink, false, -ELOOP, "link.pcap: a symbolic link, which is not followed");
	refused(slink, true, -ELOOP, "link.pcap: a symbolic link, which is not followed");
	assert_true(holds(target, "keep"));
	put_file(theirs, "theirs");
	assert_int_equal(chown(theirs, 65534, 65534), 0);
	refused(theirs, true, -EPERM, "theirs.pcap: belongs to uid 65534, not to you (uid 0)");
	assert_true(holds(theirs, "theirs"));
	/* A FIFO without a reader would make a blocking open wait forever. */
	assert_int_equal(mkfifo(fifo, 0666), 0);
	refused(fifo, false, -EINVAL, "fifo.pcap: a FIFO, not a regular file");
	refused(fifo, true, -EINVAL, "fifo.pcap: a FIFO, not a regular file");
	/* /dev/full: opened, it would refuse the header, and the old code removed the node. */
	assert_int_equal(mknod(full, S_IFCHR | 0666, makedev(1, 7)), 0);
	refused(full, false, -EINVAL, "full: a character device, not a regular file");
	refused(full, true, -EINVAL, "full: a character device, not a regular file");
	assert_int_equal(access(full, F_OK), 0);
	/* A hard link to a file of one's own is another file: not replaced. */
	snprintf(hard, sizeof(hard), "%s/hard.pcap", dir);
	assert_int_equal(link(target, hard), 0);
	refused(hard, true, -EPERM, "hard.pcap: has 2 links: not replaced");
	assert_true(holds(target, "keep"));
	/* The caller's own file: refused as it is, replaced with overwrite. */
	put_file(mine, "old");
	refused(mine, false, -EEXIST, "mine.pcap: File exists (add \"overwrite\" to replace it)");
	assert_true(holds(mine, "old"));
	pc.file = mine;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	xmit_n(dev, 0, 3, 100);
	mqtx_dev_destroy(dev);
	assert_int_equal(read_capture(mine, false, &bytes), 3);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

/* A full file system refuses the header: a file this open created is removed, one that was
 * there (overwrite) is not. */
static void test_pcap_remove_only_created(void **state)
{
	struct mqtx_pcap_cfg pc = { 0 };
	struct mqtx_dev_cfg c = { .name = "pcr", .num_txq = 1 };
	char small[96], path[128];
	struct mqtx_dev *dev = NULL;

	(void)state;
	if (!own_mounts)
		skip();
	snprintf(small, sizeof(small), "%s/small", dir);
	assert_int_equal(kt_sh("mkdir -p %s && mount -t tmpfs -o size=64k tmpfs %s && "
			       "touch %s/there.pcap",
			       small, small, small),
			 0);
	kt_sh("head -c 1048576 /dev/zero >%s/filler 2>/dev/null", small); /* fills it up */
	snprintf(path, sizeof(path), "%s/new.pcap", small);
	pc.file = path;
	kt_log_reset();
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), -ENOSPC);
	assert_true(kt_log_has("new.pcap: cannot write: No space left on device"));
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/there.pcap", small);
	pc.overwrite = true;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), -ENOSPC);
	assert_int_equal(access(path, F_OK), 0);
	assert_null(dev);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	assert_int_equal(kt_sh("umount %s", small), 0);
}

/* A file handed over open: a regular file open for writing, empty unless overwrite; the caller
 * keeps its descriptor; a failure removes nothing. */
static void test_pcap_dev_create_fd(void **state)
{
	struct mqtx_pcap_cfg pc = { .file = "client.pcap" };
	struct mqtx_dev_cfg c = { .name = "pcd", .num_txq = 1 };
	char path[128], fifo[128];
	struct mqtx_dev *dev = NULL;
	uint64_t bytes;
	bool created;
	char msg[256];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/client.pcap", dir);
	snprintf(fifo, sizeof(fifo), "%s/fd-fifo", dir);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	kt_log_reset();
	fd = open(fifo, O_RDWR | O_NONBLOCK);
	assert_int_equal(mqtx_pcap_dev_create_fd(&c, &pc, fd, &dev), -EINVAL);
	assert_true(kt_log_has("pcap: client.pcap: a FIFO, not a regular file"));
	close(fd);
	put_file(path, "old");
	fd = open(path, O_RDONLY);
	assert_int_equal(mqtx_pcap_dev_create_fd(&c, &pc, fd, &dev), -EINVAL);
	assert_true(kt_log_has("client.pcap: not open for writing"));
	close(fd);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_int_equal(mqtx_pcap_dev_create_fd(&c, &pc, fd, &dev), -EINVAL);
	assert_true(kt_log_has("client.pcap: open for appending"));
	close(fd);
	fd = open(path, O_WRONLY);
	assert_int_equal(mqtx_pcap_dev_create_fd(&c, &pc, fd, &dev), -EEXIST);
	assert_true(kt_log_has("client.pcap: not empty (add \"overwrite\" to replace it)"));
	assert_true(holds(path, "old"));
	assert_null(dev);
	pc.overwrite = true;
	assert_int_equal(mqtx_pcap_dev_create_fd(&c, &pc, fd, &dev), 0);
	assert_true(fcntl(fd, F_GETFD) >= 0); /* the caller's, still open */
	close(fd);
	assert_int_equal(mqtx_dev_open(dev), 0);
	xmit_n(dev, 0, 4, 100);
	mqtx_dev_destroy(dev);
	assert_int_equal(read_capture(path, false, &bytes), 4);
	/* mqtx_pcap_open(): created, or not. */
	fd = mqtx_pcap_open(path, false, &created, msg, sizeof(msg));
	assert_int_equal(fd, -EEXIST);
	assert_false(created);
	fd = mqtx_pcap_open(path, true, &created, msg, sizeof(msg));
	assert_true(fd >= 0 && !created);
	close(fd);
	assert_int_equal(unlink(path), 0);
	fd = mqtx_pcap_open(path, false, &created, msg, sizeof(msg));
	assert_true(fd >= 0 && created);
	close(fd);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

static void test_pcap_setup_errors(void **state)
{
	struct mqtx_pcap_cfg pc = { .file = "/nonexistent-dir/x.pcap" };
	struct mqtx_dev_cfg c = { .name = "pcx", .num_txq = 2 };
	struct mqtx_dev *dev = NULL;

	(void)state;
	kt_log_reset();
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), -ENOENT);
	assert_true(kt_log_has("pcap: /nonexistent-dir/x.pcap: cannot create: No such file"));
	pc.file = NULL;
	assert_int_equal(mqtx_pcap_dev_create(&c, &pc, &dev), -EINVAL);
	assert_true(kt_log_has("pcap: pcx: needs a file"));
	assert_null(dev);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcapng_queues_and_times),
		cmocka_unit_test(test_pcap_gen_exact),
		cmocka_unit_test(test_pcap_wall_clock_each_frame),
		cmocka_unit_test(test_pcap_real_wire_completes),
		cmocka_unit_test(test_pcapng_valid_after_sigterm),
		cmocka_unit_test(test_pcap_full_disk),
		cmocka_unit_test(test_pcapng_full_disk),
		cmocka_unit_test(test_pcap_write_error),
		cmocka_unit_test(test_pcap_open_rules),
		cmocka_unit_test(test_pcap_remove_only_created),
		cmocka_unit_test(test_pcap_dev_create_fd),
		cmocka_unit_test(test_pcap_setup_errors),
	};
	struct mqtx_pool_cfg pc = { .count = 8192 };
	int rc;

	if (kt_sh("command -v tshark >/dev/null"))
		kt_skip("tshark is missing (it reads the pcapng interfaces back)");
	/* A tmpfs of our own for the full disk, gone with the program. */
	own_mounts =
		unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	snprintf(dir, sizeof(dir), "/tmp/mqtx-pcap-XXXXXX");
	if (!mkdtemp(dir) || mqtx_pool_create(&pc, &pool))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	mqtx_pool_destroy(pool);
	kt_sh("rm -rf %s", dir);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/* Helpers for the tests of the drivers over kernel interfaces: a private network namespace,
 * shell commands, a libpcap capture on the far side, frame checks, a queue-recording BPF
 * program. Every test program calls kt_enter_netns() first: what it creates lives in a
 * namespace of its own, which the kernel removes when the program exits, even on a crash. */
#ifndef MQTX_TESTS_KDEV_UTIL_H
#define MQTX_TESTS_KDEV_UTIL_H

#include <errno.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/mqtx.h>

#include "gen/gen.h"

#define KT_SKIP 77

static inline void kt_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	fflush(stdout);
	exit(KT_SKIP);
}

static inline uint64_t kt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Run a shell command (formatted); returns its exit status. Output goes to /dev/null unless
 * the command redirects it itself. */
static inline int __attribute__((format(printf, 1, 2))) kt_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* Read a number from the first line of a command's output (-1 on failure). */
static inline long long __attribute__((format(printf, 1, 2))) kt_num(const char *fmt, ...)
{
	char cmd[1024], line[128];
	long long v = -1;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		v = strtoll(line, NULL, 10);
	pclose(f);
	return v;
}

/* A counter of @ifname from /proc/net/dev (sysfs shows the namespace it was mounted in):
 * rx_packets, rx_dropped, tx_packets or tx_dropped; -1 if not found. Read here rather than
 * through a shell, so that waiting on it costs no process per look. */
static inline long long kt_if_stat(const char *ifname, const char *stat)
{
	/* The columns after "name:": rx bytes packets errs drop fifo frame compressed
	 * multicast, then tx bytes packets errs drop ... */
	int col = !strcmp(stat, "rx_packets")	? 1
		  : !strcmp(stat, "rx_dropped") ? 3
		  : !strcmp(stat, "tx_packets") ? 9
		  : !strcmp(stat, "tx_dropped") ? 11
						: -1;
	long long v = -1;
	char line[512];
	FILE *f;

	f = col < 0 ? NULL : fopen("/proc/net/dev", "r");
	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f)) {
		char *name = line + strspn(line, " "), *p = strchr(line, ':');

		if (!p)
			continue;
		*p++ = 0;
		if (strcmp(name, ifname))
			continue;
		for (int i = 0; i <= col; i++)
			v = strtoll(p, &p, 10);
	}
	fclose(f);
	return v;
}

/* Into a network namespace of our own, before any thread exists, so that every thread and
 * child shares it. IPv6 is off so that the kernel sends nothing of its own on our links. */
static inline void kt_enter_netns(void)
{
	if (geteuid() != 0)
		kt_skip("needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) for a network namespace");
	if (unshare(CLONE_NEWNET))
		kt_skip("cannot create a network namespace (unshare CLONE_NEWNET failed)");
	if (kt_sh("command -v ip >/dev/null") != 0)
		kt_skip("the ip tool (iproute2) is missing");
	kt_sh("ip link set lo up");
	kt_sh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1"
	      " >/dev/null 2>&1");
}

/* A veth pair @a <-> @b with @nq queues each way; GRO on @b so that veth delivers through
 * @b's per-queue NAPI rings (drivers/net/veth.c veth_xmit(): the frame goes to the peer's rx
 * queue of the sender's tx queue number), which ethtool -S counts per queue. */
static inline int kt_veth(const char *a, const char *b, unsigned nq)
{
	if (kt_sh("ip link add %s numtxqueues %u numrxqueues %u type veth peer %s "
		  "numtxqueues %u numrxqueues %u",
		  a, nq, nq, b, nq, nq))
		return -1;
	kt_sh("ethtool -K %s tso off gso off >/dev/null 2>&1", a);
	kt_sh("ethtool -K %s gro on >/dev/null 2>&1", b);
	return kt_sh("ip link set %s up && ip link set %s up", a, b);
}

/* rx_queue_N_xdp_packets of @ifname (veth's per-queue receive counter). */
static inline long long kt_veth_rxq(const char *ifname, unsigned q)
{
	return kt_num("ethtool -S %s | awk '$1 == \"rx_queue_%u_xdp_packets:\" { print $2 }'",
		      ifname, q);
}

/* Run generator @cfg on @dev to the end (a failure bound of 60 s), then wait until every queue
 * is empty. Returns the job's final counters in @st; 0, or -1 if it did not finish. */
static inline int kt_gen_run(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
			     const struct mqtx_gen_cfg *cfg, struct mqtx_job_stats *st)
{
	uint64_t end = kt_now_ms() + 60000;
	struct mqtx_job *job;

	if (mqtx__gen_start(dev, pool, cfg, &job))
		return -1;
	do {
		usleep(2000);
		mqtx__job_stats(job, st);
	} while (!st->done && kt_now_ms() < end);
	mqtx__job_join(job);
	mqtx__job_stats(job, st);
	mqtx__job_free(job);
	while (!mqtx_dev_all_tx_empty(dev) && kt_now_ms() < end)
		usleep(1000);
	return st->done && mqtx_dev_all_tx_empty(dev) ? 0 : -1;
}

/* Every packet handed to @dev is transmitted, dropped with a reason, or still queued. */
static inline bool kt_conserved(struct mqtx_dev *dev, struct mqtx_dev_stats *st)
{
	mqtx_dev_get_stats(dev, st);
	return st->xmit == st->txq.packets + mqtx_txq_stats_drops(&st->txq) + st->txq.qlen;
}

/* Collects the library's log lines, for tests of error messages. */
static char kt_log_buf[8192];
static pthread_mutex_t kt_log_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void kt_log_fn(enum mqtx_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	pthread_mutex_lock(&kt_log_lock);
	if (strlen(kt_log_buf) + strlen(msg) + 2 < sizeof(kt_log_buf)) {
		strcat(kt_log_buf, msg);
		strcat(kt_log_buf, "\n");
	}
	pthread_mutex_unlock(&kt_log_lock);
}

static inline void kt_log_reset(void)
{
	pthread_mutex_lock(&kt_log_lock);
	kt_log_buf[0] = 0;
	pthread_mutex_unlock(&kt_log_lock);
	mqtx_set_log(kt_log_fn, NULL, MQTX_LOG_WARN);
}

static inline bool kt_log_has(const char *needle)
{
	bool found;

	pthread_mutex_lock(&kt_log_lock);
	found = strstr(kt_log_buf, needle) != NULL;
	pthread_mutex_unlock(&kt_log_lock);
	if (!found)
		printf("log has no \"%s\":\n%s", needle, kt_log_buf);
	return found;
}

/* ---- capture on the far side ---- */

/*
 * The capture's snap length: the longest frame of a run (IMIX's 1518 bytes less the FCS) with
 * room to spare, and no more. libpcap cuts its TPACKET ring into slots of the snap length
 * (pcap-linux.c create_ring()): with 4096, 64 MB gave 16071 slots, fewer than a run's 20000
 * frames, and a capture thread kept off the CPU for a while lost the rest; with 1600 the same
 * 64 MB has some 40000, twice a run. A longer frame is cut and fails the byte comparison.
 */
#define KT_CAP_SNAPLEN 1600
#define KT_CAP_BUFFER  (64 << 20)

struct kt_frame {
	uint32_t len;
	uint8_t *data;
};

struct kt_cap {
	pcap_t *p;
	pthread_t thread;
	atomic_bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled when the thread has emptied the ring */
	struct kt_frame *f;
	size_t n, cap;
	/* The capture socket's own books since the start (pcap_stats(), taken by the capture
	 * thread each time it has emptied the ring): the frames the filter let in, and those of
	 * them the kernel could not put into a full ring. Under @lock. */
	uint64_t recv, drop;
	struct pcap_stat base;
};

static inline void kt_cap_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct kt_cap *c = (struct kt_cap *)user;

	pthread_mutex_lock(&c->lock);
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->f = realloc(c->f, c->cap * sizeof(*c->f));
	}
	c->f[c->n].len = h->caplen;
	c->f[c->n].data = malloc(h->caplen);
	memcpy(c->f[c->n].data, bytes, h->caplen);
	c->n++;
	pthread_mutex_unlock(&c->lock);
}

/* Publish the socket's counts, taken after the ring was found empty: every frame counted
 * before this point is kept (in @c->n) or dropped, unless it is still being written into
 * the ring, and then n + drop < recv says so. */
static inline void kt_cap_stats(struct kt_cap *c)
{
	struct pcap_stat ps;

	if (pcap_stats(c->p, &ps))
		return;
	pthread_mutex_lock(&c->lock);
	c->recv = ps.ps_recv - c->base.ps_recv;
	c->drop = ps.ps_drop - c->base.ps_drop;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static inline void *kt_cap_thread(void *arg)
{
	struct kt_cap *c = arg;
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(c->p), .events = POLLIN };

	while (!atomic_load(&c->stop)) {
		if (pcap_dispatch(c->p, -1, kt_cap_cb, (u_char *)c) > 0)
			continue;
		kt_cap_stats(c);
		poll(&pfd, 1, 10); /* a frame wakes it; the timeout only looks at @stop */
	}
	while (pcap_dispatch(c->p, -1, kt_cap_cb, (u_char *)c) > 0)
		;
	kt_cap_stats(c);
	return NULL;
}

/* Capture on @ifname what matches @filter (a pcap filter), into memory. 0 or -1. */
static inline int kt_cap_start(struct kt_cap *c, const char *ifname, const char *filter)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	pthread_condattr_t ca;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	c->p = pcap_create(ifname, ebuf);
	if (!c->p)
		return -1;
	pcap_set_snaplen(c->p, KT_CAP_SNAPLEN);
	pcap_set_buffer_size(c->p, KT_CAP_BUFFER);
	pcap_set_immediate_mode(c->p, 1);
	if (pcap_activate(c->p) < 0 || pcap_setnonblock(c->p, 1, ebuf) ||
	    pcap_compile(c->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(c->p, &prog))
		goto err_close;
	pcap_freecode(&prog);
	/* What came before the filter is not ours. */
	if (pcap_stats(c->p, &c->base) || pthread_create(&c->thread, NULL, kt_cap_thread, c))
		goto err_close;
	return 0;

err_close:
	pcap_close(c->p);
	c->p = NULL;
	return -1;
}

/* The filter let in @want frames and the thread has taken each of them out of the ring, kept
 * or counted as dropped. Under @c->lock. */
static inline bool kt_cap_drained(const struct kt_cap *c, uint64_t want)
{
	return c->recv >= want && c->n + c->drop >= c->recv;
}

/*
 * Wait until the capture socket has counted @want frames and the thread has drained them from
 * the ring (at most @ms: a failure bound), then stop; @c->n, @c->recv and @c->drop are final.
 */
static inline void kt_cap_stop(struct kt_cap *c, uint64_t want, unsigned ms)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (long)(ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&c->lock);
	while (!kt_cap_drained(c, want))
		if (pthread_cond_timedwait(&c->cond, &c->lock, &end) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&c->lock);
	atomic_store(&c->stop, true);
	pthread_join(c->thread, NULL);
	pcap_close(c->p);
}

static inline void kt_cap_free(struct kt_cap *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->f[i].data);
	free(c->f);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
}

/* The sequence number the generator put into a UDP/IPv4 frame without VLAN. */
static inline uint64_t kt_frame_seq(const uint8_t *d, uint32_t len)
{
	const uint8_t *p = d + 14 + 20 + 8;

	if (len < 14 + 20 + 8 + 8)
		return UINT64_MAX;
	return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
	       (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
	       (uint64_t)p[6] << 8 | p[7];
}

/*
 * Check frames @f[0..n) against generator @cfg that sent @count frames: each one of them
 * byte-identical to what was generated, none seen twice, each flow's frames in order. A frame
 * missing from @f is not noticed here. Returns 0, or -1 with a message printed.
 */
static inline int kt_check_kept(const struct kt_frame *f, size_t n, const struct mqtx_gen_cfg *cfg,
				uint64_t count)
{
	uint8_t *seen = calloc(count, 1), buf[4096];
	int64_t *last = malloc(sizeof(*last) * cfg->flows);
	int rc = 0;

	for (uint32_t i = 0; i < cfg->flows; i++)
		last[i] = -1;
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t seq = kt_frame_seq(f[i].data, f[i].len);
		int len;

		if (seq >= count) {
			printf("frame %zu: not one of ours (seq %llu)\n", i,
			       (unsigned long long)seq);
			rc = -1;
			break;
		}
		len = mqtx_gen_build(cfg, seq, buf, sizeof(buf));
		if (len != (int)f[i].len || memcmp(buf, f[i].data, f[i].len)) {
			printf("frame %zu (seq %llu): bytes differ from what was generated\n", i,
			       (unsigned long long)seq);
			rc = -1;
		} else if (seen[seq]++) {
			printf("seq %llu seen twice\n", (unsigned long long)seq);
			rc = -1;
		} else if ((int64_t)seq < last[seq % cfg->flows]) {
			printf("flow %llu: seq %llu after %lld\n",
			       (unsigned long long)(seq % cfg->flows), (unsigned long long)seq,
			       (long long)last[seq % cfg->flows]);
			rc = -1;
		}
		last[seq % cfg->flows] = (int64_t)seq;
	}
	free(seen);
	free(last);
	return rc;
}

/* The same, and every one of the @count frames is in @f: each exactly once. */
static inline int kt_check_frames(const struct kt_frame *f, size_t n,
				  const struct mqtx_gen_cfg *cfg, uint64_t count)
{
	int rc = kt_check_kept(f, n, cfg, count);

	if (!rc && n != count) {
		printf("got %zu of %llu frames\n", n, (unsigned long long)count);
		rc = -1;
	}
	return rc;
}

/* ---- what the tests of every driver run ---- */

/* The veth pair of the af_packet and af_xdp tests, mqa0 (the driver's) -> mqb0 (the capture's),
 * KT_VETH_NQ queues each way: cmocka group set-up and tear-down. */
#define KT_VETH_NQ 4

static inline int kt_veth_setup(void **state)
{
	(void)state;
	return kt_veth("mqa0", "mqb0", KT_VETH_NQ) ? -1 : 0;
}

static inline int kt_veth_teardown(void **state)
{
	(void)state;
	kt_sh("ip link del mqa0 2>/dev/null");
	return 0;
}

/* The run that checks a driver frame by frame: 20000 IMIX frames of 64 flows from @threads
 * generator threads. */
static inline void kt_gen_exact(struct mqtx_gen_cfg *cfg, unsigned threads)
{
	mqtx_gen_cfg_default(cfg);
	cfg->flows = 64;
	cfg->count = 20000;
	cfg->size = MQTX_GEN_SIZE_IMIX;
	cfg->threads = threads;
}

/* Wait until @ifname's kernel receive counter has passed @base by @want (at most @ms: a failure
 * bound). Returns how many it counted since @base. */
static inline long long kt_wait_rx(const char *ifname, long long base, uint64_t want, unsigned ms)
{
	uint64_t end = kt_now_ms() + ms;
	long long rx;

	while ((rx = kt_if_stat(ifname, "rx_packets") - base) < (long long)want &&
	       kt_now_ms() < end)
		usleep(1000);
	return rx;
}

/*
 * What the far side of a run of @cfg got, @rx frames by the kernel's receive counter of
 * @ifname, checked where each count is kept. The kernel's count: every frame delivered, none
 * twice. The capture socket's: it was offered each of them, so a frame the kernel counts but
 * does not hand on fails. The frames the capture kept: each intact, once, in its flow's order.
 * A capture that overflowed its ring (a thread kept off the CPU longer than the ring lasts)
 * loses frames of its own; the kernel counts those for it (ps_drop), kept + dropped must equal
 * offered, and the frames it kept are checked as above: its loss is not the driver's.
 * 0, or -1 with a message printed.
 */
static inline int kt_check_delivered(const struct kt_cap *c, const struct mqtx_gen_cfg *cfg,
				     const char *ifname, long long rx)
{
	if (rx != (long long)cfg->count) {
		printf("%s: the kernel received %lld of %llu frames\n", ifname, rx,
		       (unsigned long long)cfg->count);
		return -1;
	}
	if (c->recv != (uint64_t)rx) {
		printf("%s: the capture was offered %llu of the %lld frames the kernel received\n",
		       ifname, (unsigned long long)c->recv, rx);
		return -1;
	}
	if (c->n + c->drop != c->recv) {
		printf("%s: the capture kept %zu and dropped %llu of the %llu it was offered\n",
		       ifname, c->n, (unsigned long long)c->drop, (unsigned long long)c->recv);
		return -1;
	}
	if (c->drop && !c->n) {
		printf("%s: the capture kept none of the frames: nothing to compare\n", ifname);
		return -1;
	}
	if (c->drop)
		printf("note: %s: the capture's ring overflowed: %llu dropped, %zu kept\n", ifname,
		       (unsigned long long)c->drop, c->n);
	return kt_check_kept(c->f, c->n, cfg, cfg->count);
}

/*
 * Run generator @cfg on @dev with a capture on @ifname, the far side: every frame sent and
 * received by the kernel once, intact and in its flow's order as far as the capture saw them
 * (kt_check_delivered()); the device's counters conserved, with all of them transmitted. 0, or
 * -1 with a message printed.
 */
static inline int kt_run_captured(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
				  const struct mqtx_gen_cfg *cfg, const char *ifname)
{
	long long rx0 = kt_if_stat(ifname, "rx_packets"), rx = 0;
	struct mqtx_job_stats js;
	struct mqtx_dev_stats ds;
	struct kt_cap cap;
	int rc = -1;

	/* The generator's source MAC: nothing of the kernel's own. */
	if (rx0 < 0 || kt_cap_start(&cap, ifname, "ether src 02:00:00:00:00:01")) {
		printf("no capture on %s\n", ifname);
		return -1;
	}
	if (kt_gen_run(dev, pool, cfg, &js))
		printf("the generator did not finish\n");
	else if (js.sent != cfg->count)
		printf("the generator sent %llu of %llu\n", (unsigned long long)js.sent,
		       (unsigned long long)cfg->count);
	else
		rc = 0;
	/* What mqtx handed over may still be in the kernel's queues (a qdisc, veth's rings): wait
	 * until the kernel has counted it all, then until the capture has seen as much. */
	if (!rc)
		rx = kt_wait_rx(ifname, rx0, cfg->count, 20000);
	kt_cap_stop(&cap, rx > 0 ? (uint64_t)rx : 0, 10000);
	/* Read again once the capture has stopped: a frame too many shows here. */
	rx = kt_if_stat(ifname, "rx_packets") - rx0;
	if (!rc)
		rc = kt_check_delivered(&cap, cfg, ifname, rx);
	kt_cap_free(&cap);
	if (rc)
		return rc;
	if (!kt_conserved(dev, &ds) || ds.txq.packets != cfg->count) {
		printf("%s: %llu handed over, %llu transmitted of %llu\n", mqtx_dev_name(dev),
		       (unsigned long long)ds.xmit, (unsigned long long)ds.txq.packets,
		       (unsigned long long)cfg->count);
		return -1;
	}
	return 0;
}

/*
 * Delete interface @ifname while a generator sends on @dev: the device must fail (within 10 s,
 * a failure bound) and every packet be accounted for. @js and @ds get the job's and the
 * device's final counters. 0, or -1 with a message printed.
 */
static inline int kt_delete_under_traffic(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
					  const char *ifname, struct mqtx_job_stats *js,
					  struct mqtx_dev_stats *ds)
{
	struct mqtx_gen_cfg cfg;
	struct mqtx_job *job;
	uint64_t end;
	int rc = 0;

	mqtx_gen_cfg_default(&cfg);
	cfg.flows = 16;
	cfg.count = 50000000; /* far more than it can send before the deletion */
	if (mqtx__gen_start(dev, pool, &cfg, &job)) {
		printf("the generator did not start\n");
		return -1;
	}
	do {
		usleep(1000);
		mqtx__job_stats(job, js);
	} while (js->sent < 2000);
	if (kt_sh("ip link del %s", ifname)) {
		printf("ip link del %s failed\n", ifname);
		rc = -1;
	}
	end = kt_now_ms() + 10000;
	while (mqtx_dev_is_up(dev) && kt_now_ms() < end)
		usleep(1000);
	if (mqtx_dev_is_up(dev)) {
		printf("%s is still up\n", mqtx_dev_name(dev));
		rc = -1;
	}
	/* The helper's close marks the device down first and purges after, all under the config
	 * lock: once we get the lock, the close is over and the counts are final. */
	mqtx_dev_config_lock(dev);
	mqtx_dev_config_unlock(dev);
	mqtx__job_join(job);
	mqtx__job_stats(job, js);
	mqtx__job_free(job);
	if (!kt_conserved(dev, ds) || ds->xmit != js->sent + js->dropped) {
		printf("%s: %llu handed over, the generator sent %llu and dropped %llu\n",
		       mqtx_dev_name(dev), (unsigned long long)ds->xmit,
		       (unsigned long long)js->sent, (unsigned long long)js->dropped);
		rc = -1;
	}
	return rc;
}

#include "kt_bpf.h"

#endif

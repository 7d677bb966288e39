// SPDX-License-Identifier: MIT
// pcap/pcapng replay through the multiqueue path (libpcap reads both formats; Linux cooked
// captures become Ethernet in cooked.c), paced by the capture's timestamps (scaled), by a rate,
// or as fast as possible, like tcpreplay.
#include <errno.h>
#include <fcntl.h>
#include <net/ethernet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mqtx/clock.h>
#include <mqtx/pkt.h>

#include "gen/gen.h"
#include "base/internal.h"

struct replay_priv {
	struct mqtx_replay_cfg cfg;
	int fd; /* the capture, read again for every pass; the replay thread closes it */
};

int mqtx__replay_open(const char *path, char *msg, size_t msglen)
{
	/* Without O_NONBLOCK, opening a FIFO waits for a writer: forever, for a command. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		fd = -errno;
		snprintf(msg, msglen, "%s", strerror(-fd));
	}
	return fd;
}

static const char *file_type(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Ethernet, and what tcpdump -i any writes (made Ethernet by cooked.c). */
static bool replayable(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2;
}

/* A reader of the capture from its start. It reads a duplicate of @fd, which pcap_close() closes,
 * so that @fd stays open for the next pass. */
static pcap_t *replay_reader(int fd, char *msg, size_t msglen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = NULL;
	pcap_t *p;

	if (d < 0 || lseek(d, 0, SEEK_SET) < 0 || !(f = fdopen(d, "rb"))) {
		snprintf(msg, msglen, "%s", strerror(errno));
		if (d >= 0)
			close(d);
		return NULL;
	}
	p = pcap_fopen_offline(f, ebuf);
	if (!p) {
		fclose(f);
		snprintf(msg, msglen, "%s", ebuf);
		return NULL;
	}
	if (!replayable(pcap_datalink(p))) {
		int dlt = pcap_datalink(p);

		snprintf(
			msg, msglen,
			"link type %s (%s, DLT %d) cannot be replayed: Ethernet (EN10MB) and Linux "
			"cooked (LINUX_SLL, LINUX_SLL2) can",
			pcap_datalink_val_to_name(dlt) ?: "unknown",
			pcap_datalink_val_to_description(dlt) ?: "no description", dlt);
		pcap_close(p);
		return NULL;
	}
	return p;
}

long mqtx__replay_check(int fd, char *msg, size_t msglen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	struct stat st;
	long n = 0, rec = 0;
	pcap_t *p;
	int rc;

	msg[0] = '\0';
	if (fstat(fd, &st)) {
		snprintf(msg, msglen, "%s", strerror(errno));
		return -EINVAL;
	}
	/* A FIFO or a device could block the reader or never end: only a file is a capture. */
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "%s, not a capture file", file_type(st.st_mode));
		return -EINVAL;
	}
	p = replay_reader(fd, msg, msglen);
	if (!p)
		return -EINVAL;
	/* libpcap reports a cut record or an impossible length as an error (-1); count from 1
	 * as tcpdump and wireshark number records. */
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint16_t type;

		rec++;
		n += mqtx__cooked_len(pcap_datalink(p), data, h->caplen, &type) >= 0;
	}
	if (rc == PCAP_ERROR) {
		snprintf(msg, msglen, "record %ld: %s", rec + 1, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
	mqtx_dbg("replay: capture checked, %ld records", n);
	return n;
}

static uint64_t ts_ns(const struct pcap_pkthdr *h, bool nano)
{
	return (uint64_t)h->ts.tv_sec * MQTX_NSEC_PER_SEC +
	       (uint64_t)h->ts.tv_usec * (nano ? 1 : 1000);
}

/* When a record @gap ns after the first is due, @speed times faster, from @start: saturating
 * far in the future (a slow replay of a long capture waits until it is stopped). */
static uint64_t scaled_due(uint64_t start, uint64_t gap, double speed)
{
	double d = (double)gap / speed;

	if (d >= (double)(UINT64_MAX / 2 - start))
		return UINT64_MAX / 2;
	return start + (uint64_t)d;
}

/* The Ethernet length of the record to send, cut to the device's MTU with mtu_trunc; 0 when it
 * is not sent (skipped: no frame; failed: too long). A frame may be as long as the device's MTU
 * plus its Ethernet header, and 4 more when it carries a VLAN tag (Linux's af_packet rule). */
static uint32_t frame_len(struct mqtx_job_thread *t, int dlt, const struct pcap_pkthdr *h,
			  const u_char *data)
{
	const struct replay_priv *rp = t->job->priv;
	uint16_t type;
	long len = mqtx__cooked_len(dlt, data, h->caplen, &type);
	uint32_t max;

	if (len < 0) {
		atomic_fetch_add_explicit(&t->skipped, 1, memory_order_relaxed);
		return 0;
	}
	max = mqtx_dev_mtu(t->job->dev) + ETHER_HDR_LEN +
	      (type == ETHERTYPE_VLAN || type == 0x88a8 ? 4 : 0);
	if ((uint64_t)len <= max)
		return (uint32_t)len;
	if (!rp->cfg.mtu_trunc) {
		atomic_fetch_add_explicit(&t->failed, 1, memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&t->truncated, 1, memory_order_relaxed);
	return max;
}

/* One pass over the file; returns false when the job must end (stop, or an error). */
static bool replay_pass(struct mqtx_job_thread *t, pcap_t *p, uint64_t *bits, uint64_t *n,
			uint64_t *base, bool *sent)
{
	struct mqtx_job *job = t->job;
	const struct replay_priv *rp = job->priv;
	const struct mqtx_replay_cfg *cfg = &rp->cfg;
	bool nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	uint64_t first = 0, pass_start = mqtx_clock_now(job->clock);
	int dlt = pcap_datalink(p);
	struct pcap_pkthdr *h;
	const u_char *data;
	long rec = 0;
	int rc;

	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint64_t due = 0;
		struct mqtx_pkt *pkt;
		uint32_t len;

		rec++;
		if (rec == 1)
			first = ts_ns(h, nano);
		len = frame_len(t, dlt, h, data);
		if (!len)
			continue;
		if (cfg->rate_bps || cfg->rate_pps)
			due = *base + mqtx__job_pace_ns(cfg->rate_bps, cfg->rate_pps, *bits, *n);
		else if (!cfg->topspeed && ts_ns(h, nano) > first)
			due = scaled_due(pass_start, ts_ns(h, nano) - first, cfg->speed);
		if (due && !mqtx__job_wait_until(job, due))
			return false;
		if (atomic_load_explicit(&job->stop, memory_order_relaxed))
			return false;
		while (!(pkt = mqtx_pkt_alloc(job->pool))) {
			atomic_fetch_add_explicit(&t->nomem, 1, memory_order_relaxed);
			if (!mqtx__job_wait_until(job, mqtx_clock_now(job->clock) + 100000))
				return false;
		}
		if (!mqtx_pkt_put(pkt, len)) {
			mqtx_pkt_free(pkt);
			atomic_fetch_add_explicit(&t->skipped, 1, memory_order_relaxed);
			continue;
		}
		mqtx__cooked_to_eth(dlt, data, h->caplen, cfg, pkt->data, len);
		*bits += (uint64_t)len * 8;
		(*n)++;
		*sent = true;
		mqtx__job_send(t, &pkt, 1);
	}
	if (rc == PCAP_ERROR) {
		/* The file changed since it was checked. */
		snprintf(job->error, sizeof(job->error), "record %ld: %s", rec + 1, pcap_geterr(p));
		return false;
	}
	atomic_fetch_add_explicit(&t->loops, 1, memory_order_relaxed);
	return true;
}

static void *replay_thread(void *arg)
{
	struct mqtx_job_thread *t = arg;
	struct mqtx_job *job = t->job;
	const struct replay_priv *rp = job->priv;
	uint64_t bits = 0, n = 0, base = job->start_ns;

	for (uint64_t pass = 0; !rp->cfg.loops || pass < rp->cfg.loops; pass++) {
		pcap_t *p = replay_reader(rp->fd, job->error, sizeof(job->error));
		bool more, sent = false;

		if (!p)
			break;
		more = replay_pass(t, p, &bits, &n, &base, &sent);
		pcap_close(p);
		/* A pass that sent nothing (every frame too long) would spin: one is enough. */
		if (!more || !sent)
			break;
	}
	close(rp->fd);
	mqtx__job_thread_done(t);
	return NULL;
}

int mqtx__replay_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
		       const struct mqtx_replay_cfg *cfg, char *msg, size_t msglen,
		       struct mqtx_job **out)
{
	struct replay_priv *rp;
	int rc, fd;

	if ((cfg->rate_bps && cfg->rate_pps) ||
	    !(cfg->speed >= MQTX_REPLAY_SPEED_MIN && cfg->speed <= MQTX_REPLAY_SPEED_MAX)) {
		snprintf(msg, msglen, "bad replay configuration");
		return -EINVAL;
	}
	rp = mqtx__zalloc(sizeof(*rp));
	if (!rp) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	fd = fcntl(cfg->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(msg, msglen, "%s", strerror(errno));
		mqtx__free(rp);
		return -EMFILE;
	}
	rp->cfg = *cfg;
	rp->cfg.path = NULL; /* the caller's; the job does not need it */
	if (cfg->records == 0)
		rp->cfg.loops = 1; /* nothing to send: one pass, not an endless spin */
	rp->fd = fd;
	/* One thread: on failure it never ran, so the copy of the descriptor is still ours. */
	rc = mqtx__job_start(dev, pool, rp, 1, replay_thread, out);
	if (rc) {
		close(fd);
		snprintf(msg, msglen, rc == -ENOMEM ? "out of memory" : "cannot start a thread");
	}
	return rc;
}

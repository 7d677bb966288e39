// SPDX-License-Identifier: MIT
// pcap/pcapng replay through the multiqueue path (libpcap reads both formats; Linux cooked
// captures become Ethernet in cooked.c), paced by the capture's timestamps (scaled), by a rate,
// or as fast as possible, like tcpreplay.
#include <errno.h>
#include <fcntl.h>
#include <net/ethernet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mqtx/clock.h>
#include <mqtx/pkt.h>

#include "gen/gen.h"
#include "gen/whatif.h"
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
 * so that @fd stays open for the next pass. libpcap reads record by record; under it a buffer of
 * REPLAY_READ_BUF makes that a read(2) per 256 KiB, not per 4 KiB (a system call costs a
 * microsecond or two in a VM, as much as a frame's whole path in a what-if run). */
int mqtx__replay_reader(int fd, struct mqtx_replay_reader *r, char *msg, size_t msglen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = NULL;

	r->p = NULL;
	r->buf = NULL;
	if (d < 0 || lseek(d, 0, SEEK_SET) < 0 || !(f = fdopen(d, "rb"))) {
		snprintf(msg, msglen, "%s", strerror(errno));
		if (d >= 0)
			close(d);
		return -EINVAL;
	}
	__fsetlocking(f, FSETLOCKING_BYCALLER); /* one thread reads it: no lock per fread */
	r->buf = mqtx__alloc(REPLAY_READ_BUF);
	if (!r->buf) {
		fclose(f);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	setvbuf(f, r->buf, _IOFBF, REPLAY_READ_BUF);
	r->p = pcap_fopen_offline(f, ebuf);
	if (!r->p) {
		fclose(f);
		mqtx__free(r->buf);
		r->buf = NULL;
		snprintf(msg, msglen, "%s", ebuf);
		return -EINVAL;
	}
	if (!replayable(pcap_datalink(r->p))) {
		int dlt = pcap_datalink(r->p);

		snprintf(
			msg, msglen,
			"link type %s (%s, DLT %d) cannot be replayed: Ethernet (EN10MB) and Linux "
			"cooked (LINUX_SLL, LINUX_SLL2) can",
			pcap_datalink_val_to_name(dlt) ?: "unknown",
			pcap_datalink_val_to_description(dlt) ?: "no description", dlt);
		mqtx__replay_close(r);
		return -EINVAL;
	}
	return 0;
}

void mqtx__replay_close(struct mqtx_replay_reader *r)
{
	if (r->p)
		pcap_close(r->p); /* the file, then its buffer */
	mqtx__free(r->buf);
	r->p = NULL;
	r->buf = NULL;
}

int mqtx__replay_check_file(int fd, char *msg, size_t msglen)
{
	struct stat st;

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
	return 0;
}

long mqtx__replay_check(int fd, char *msg, size_t msglen)
{
	struct mqtx_replay_reader r;
	struct pcap_pkthdr *h;
	const u_char *data;
	long n = 0, rec = 0;
	pcap_t *p;
	int rc;

	if (mqtx__replay_check_file(fd, msg, msglen))
		return -EINVAL;
	rc = mqtx__replay_reader(fd, &r, msg, msglen);
	if (rc)
		return rc;
	p = r.p;
	/* libpcap reports a cut record or an impossible length as an error (-1); count from 1
	 * as tcpdump and wireshark number records. */
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint16_t type;

		rec++;
		n += mqtx__cooked_len(pcap_datalink(p), data, h->caplen, &type) >= 0;
	}
	if (rc == PCAP_ERROR) {
		snprintf(msg, msglen, "record %ld: %s", rec + 1, pcap_geterr(p));
		mqtx__replay_close(&r);
		return -EINVAL;
	}
	mqtx__replay_close(&r);
	mqtx_dbg("replay: capture checked, %ld records", n);
	return n;
}

uint64_t mqtx__replay_ts_ns(const struct pcap_pkthdr *h, bool nano)
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

/*
 * Where the replay stands: the rate's pace (@bits and @n since @base, which a loop delay moves),
 * the start of the pass's timestamps (@pass_start), the due time of the last frame (@last), the
 * end of the duration (@end, 0: none) and whether the pass sent anything. Each is a due time,
 * not a reading of the clock, so that a replay in virtual time is exact. @pacer sends each frame
 * at its instant, and late frames one at a time.
 */
struct pace {
	uint64_t bits, n, base, pass_start, last, end;
	bool sent;
	struct mqtx_pacer pacer;
};

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

#define DUE_NOW UINT64_MAX /* topspeed: whenever it is reached (scaled_due() stays below) */

/* When the record @gap after the pass's first is due, or DUE_NOW. */
static uint64_t record_due(const struct mqtx_replay_cfg *cfg, const struct pace *pc, uint64_t gap)
{
	if (cfg->rate_bps)
		return pc->base + mqtx__job_pace_ns(cfg->rate_bps, 0, pc->bits, 0);
	if (cfg->pps > 0) {
		double d = (double)pc->n * 1e9 / cfg->pps;

		return d >= (double)(UINT64_MAX / 2 - pc->base) ? UINT64_MAX / 2
								: pc->base + (uint64_t)d;
	}
	if (!cfg->topspeed)
		return scaled_due(pc->pass_start, gap, cfg->speed);
	return DUE_NOW;
}

/* Wait until @due; false when the job must end: stopped, or @due is past the duration (the
 * replay then ends when the duration does). */
static bool wait_due(struct mqtx_job *job, struct pace *pc, uint64_t due)
{
	if (pc->end && (due != DUE_NOW ? due : mqtx_clock_now(job->clock)) >= pc->end) {
		mqtx__job_wait_until(job, pc->end);
		return false;
	}
	if (due != DUE_NOW && !mqtx__job_pace(job, &pc->pacer, due))
		return false;
	return !atomic_load_explicit(&job->stop, memory_order_relaxed);
}

/* A packet holding @len bytes of the record's frame in *@out: 0, 1 when the frame is larger
 * than a packet buffer (skipped), -1 when the job must end. */
static int frame_pkt(struct mqtx_job_thread *t, int dlt, const struct pcap_pkthdr *h,
		     const u_char *data, uint32_t len, struct mqtx_pkt **out)
{
	struct mqtx_job *job = t->job;
	const struct replay_priv *rp = job->priv;
	struct mqtx_pkt *pkt;

	while (!(pkt = mqtx_pkt_alloc(job->pool))) {
		atomic_fetch_add_explicit(&t->nomem, 1, memory_order_relaxed);
		if (!mqtx__job_wait_until(job, mqtx_clock_now(job->clock) + 100000))
			return -1;
	}
	if (!mqtx_pkt_put(pkt, len)) {
		mqtx_pkt_free(pkt);
		atomic_fetch_add_explicit(&t->skipped, 1, memory_order_relaxed);
		return 1;
	}
	mqtx__cooked_to_eth(dlt, data, h->caplen, &rp->cfg, pkt->data, len);
	if (rp->cfg.unique_ip)
		mqtx__frame_unique_ip(pkt->data, len, (uint32_t)atomic_load(&t->loops));
	if (rp->cfg.fixcsum)
		mqtx__frame_fixcsum(pkt->data, len);
	*out = pkt;
	return 0;
}

/* One pass over the file; returns false when the job must end (stop, limit, duration, error). */
static bool replay_pass(struct mqtx_job_thread *t, pcap_t *p, struct pace *pc)
{
	struct mqtx_job *job = t->job;
	const struct replay_priv *rp = job->priv;
	const struct mqtx_replay_cfg *cfg = &rp->cfg;
	bool nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	uint64_t first = 0, due;
	int dlt = pcap_datalink(p);
	struct pcap_pkthdr *h;
	const u_char *data;
	long rec = 0;
	int rc;

	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		struct mqtx_pkt *pkt;
		uint32_t len;

		rec++;
		if (rec == 1)
			first = mqtx__replay_ts_ns(h, nano);
		if (cfg->limit && atomic_load(&t->sent) + atomic_load(&t->dropped) >= cfg->limit)
			return false;
		len = frame_len(t, dlt, h, data);
		if (!len)
			continue;
		due = record_due(cfg, pc,
				 mqtx__replay_ts_ns(h, nano) > first
					 ? mqtx__replay_ts_ns(h, nano) - first
					 : 0);
		if (!wait_due(job, pc, due))
			return false;
		pc->last = due != DUE_NOW ? due : mqtx_clock_now(job->clock);
		rc = frame_pkt(t, dlt, h, data, len, &pkt);
		if (rc < 0)
			return false;
		if (rc)
			continue;
		pc->bits += (uint64_t)len * 8;
		pc->n++;
		pc->sent = true;
		mqtx__job_send(t, &pkt, 1);
		if (due != DUE_NOW)
			mqtx__job_paced(job, &pc->pacer);
	}
	if (rc == PCAP_ERROR) {
		/* The file changed since it was checked. */
		snprintf(job->error, sizeof(job->error), "record %ld: %s", rec + 1, pcap_geterr(p));
		return false;
	}
	atomic_fetch_add_explicit(&t->loops, 1, memory_order_relaxed);
	return true;
}

/* Between passes: the next one's timestamps start where the last frame went (or, with a rate,
 * where the next frame is due); tcpreplay's --loopdelay-ms pauses first, and the rate's pace
 * starts again after it. False when the job must end meanwhile. */
static bool next_pass(struct mqtx_job *job, struct pace *pc)
{
	const struct replay_priv *rp = job->priv;
	const struct mqtx_replay_cfg *cfg = &rp->cfg;
	uint64_t next = pc->sent ? pc->last : pc->pass_start;

	if (cfg->rate_bps || cfg->pps > 0)
		next = record_due(cfg, pc, 0);
	else if (cfg->topspeed)
		next = mqtx_clock_now(job->clock);
	pc->pass_start = next;
	if (!cfg->loopdelay_ns)
		return true;
	next += cfg->loopdelay_ns;
	if (!wait_due(job, pc, next))
		return false;
	pc->pass_start = pc->base = next;
	pc->bits = pc->n = 0;
	return true;
}

static void *replay_thread(void *arg)
{
	struct mqtx_job_thread *t = arg;
	struct mqtx_job *job = t->job;
	const struct replay_priv *rp = job->priv;
	const struct mqtx_replay_cfg *cfg = &rp->cfg;
	struct pace pc = { .base = job->start_ns, .pass_start = job->start_ns };

	if (cfg->duration_ns)
		pc.end = job->start_ns + cfg->duration_ns;
	for (uint64_t pass = 0; !cfg->loops || pass < cfg->loops; pass++) {
		struct mqtx_replay_reader r;
		bool more;

		if (pass && !next_pass(job, &pc))
			break;
		if (mqtx__replay_reader(rp->fd, &r, job->error, sizeof(job->error)))
			break;
		pc.sent = false;
		more = replay_pass(t, r.p, &pc);
		mqtx__replay_close(&r);
		/* A pass that sent nothing (every frame too long) would spin: one is enough. */
		if (!more || !pc.sent)
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

	if ((cfg->rate_bps && cfg->pps > 0) || !(cfg->pps >= 0 && cfg->pps <= 1e15) ||
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

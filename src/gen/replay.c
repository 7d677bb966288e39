// SPDX-License-Identifier: MIT
// pcap/pcapng replay through the multiqueue path (libpcap reads both formats), paced by the
// capture's timestamps (scaled), by a rate, or as fast as possible, like tcpreplay.
#include <errno.h>
#include <net/ethernet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/clock.h>
#include <mqtx/pkt.h>

#include "gen/gen.h"
#include "base/internal.h"

struct replay_priv {
	struct mqtx_replay_cfg cfg;
	char path[4096];
};

static pcap_t *replay_open(const char *path, char *msg, size_t msglen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline(path, ebuf);

	if (!p) {
		snprintf(msg, msglen, "%s", ebuf);
		return NULL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(msg, msglen, "link type %s is not Ethernet",
			 pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
		pcap_close(p);
		return NULL;
	}
	return p;
}

long mqtx__replay_check(const char *path, char *msg, size_t msglen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	long n = 0, rec = 0;
	pcap_t *p;
	int rc;

	msg[0] = '\0';
	p = replay_open(path, msg, msglen);
	if (!p)
		return strstr(msg, "No such file") ? -ENOENT : -EINVAL;
	/* libpcap reports a cut record or an impossible length as an error (-1); count from 1
	 * as tcpdump and wireshark number records. */
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		rec++;
		n += h->caplen >= ETHER_HDR_LEN;
	}
	if (rc == PCAP_ERROR) {
		snprintf(msg, msglen, "record %ld: %s", rec + 1, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
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

/* One pass over the file; returns false when the job must end (stop, or an error). */
static bool replay_pass(struct mqtx_job_thread *t, pcap_t *p, uint64_t *bits, uint64_t *n,
			uint64_t *base)
{
	struct mqtx_job *job = t->job;
	const struct replay_priv *rp = job->priv;
	const struct mqtx_replay_cfg *cfg = &rp->cfg;
	bool nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	uint64_t first = 0, pass_start = mqtx_clock_now(job->clock);
	struct pcap_pkthdr *h;
	const u_char *data;
	long rec = 0;
	int rc;

	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint64_t due = 0;
		struct mqtx_pkt *pkt;

		rec++;
		if (rec == 1)
			first = ts_ns(h, nano);
		/* Not a frame: nothing a device could send (a kernel device refuses it too). */
		if (h->caplen < ETHER_HDR_LEN) {
			atomic_fetch_add_explicit(&t->skipped, 1, memory_order_relaxed);
			continue;
		}
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
		if (!mqtx_pkt_put(pkt, h->caplen)) {
			mqtx_pkt_free(pkt);
			atomic_fetch_add_explicit(&t->skipped, 1, memory_order_relaxed);
			continue;
		}
		memcpy(pkt->data, data, h->caplen);
		*bits += (uint64_t)h->caplen * 8;
		(*n)++;
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
		pcap_t *p = replay_open(rp->path, job->error, sizeof(job->error));
		bool more;

		if (!p)
			break;
		more = replay_pass(t, p, &bits, &n, &base);
		pcap_close(p);
		if (!more)
			break;
	}
	mqtx__job_thread_done(t);
	return NULL;
}

int mqtx__replay_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
		       const struct mqtx_replay_cfg *cfg, char *msg, size_t msglen,
		       struct mqtx_job **out)
{
	struct replay_priv *rp;
	long n;
	int rc;

	if (strlen(cfg->path) >= sizeof(rp->path) || (cfg->rate_bps && cfg->rate_pps) ||
	    !(cfg->speed >= MQTX_REPLAY_SPEED_MIN && cfg->speed <= MQTX_REPLAY_SPEED_MAX)) {
		snprintf(msg, msglen, "bad replay configuration");
		return -EINVAL;
	}
	n = mqtx__replay_check(cfg->path, msg, msglen);
	if (n < 0)
		return (int)n;
	rp = mqtx__zalloc(sizeof(*rp));
	if (!rp) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	rp->cfg = *cfg;
	if (n == 0)
		rp->cfg.loops = 1; /* nothing to send: one pass, not an endless spin */
	strcpy(rp->path, cfg->path);
	rp->cfg.path = rp->path;
	rc = mqtx__job_start(dev, pool, rp, 1, replay_thread, out);
	if (rc)
		snprintf(msg, msglen, rc == -ENOMEM ? "out of memory" : "cannot start a thread");
	return rc;
}

// SPDX-License-Identifier: MIT
// Fuzz capture reading through the replay path: whatever the pcap or pcapng bytes, the check
// accepts exactly what libpcap reads whole as Ethernet or Linux cooked (read here on its own,
// from memory), and a replay of an accepted capture accounts for every record: sent, refused,
// skipped or failed (longer than the MTU), or sent cut to the MTU when mtu-trunc is on.
#include <pcap/pcap.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mqtx/driver.h>
#include <mqtx/mqtx.h>

#include "fuzz.h"
#include "gen/gen.h"

static struct mqtx_pkt_pool *pool;
static struct mqtx_dev *dev;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct mqtx_pool_cfg pc = { .count = 256, .data_room = 2048 };
	struct mqtx_dev_cfg dc = { .name = "fz0", .ops = &mqtx_null_ops, .num_txq = 2 };

	(void)argc;
	(void)argv;
	if (mqtx_pool_create(&pc, &pool) || mqtx_dev_create(&dc, &dev) || mqtx_dev_open(dev))
		abort();
	return 0;
}

/* What libpcap itself makes of the bytes. */
struct reading {
	bool valid; /* opened, Ethernet or cooked, and every record whole */
	long records, frames;
};

/* Whether a record holds a frame, from the link layer's own rules: an Ethernet header, or a
 * cooked header (16 bytes, protocol at 14; SLL2: 20 bytes, protocol at 0) whose protocol is an
 * EtherType or 802.3/802.2, which Ethernet can carry. */
static bool holds_frame(int dlt, const u_char *d, uint32_t caplen)
{
	unsigned proto;

	switch (dlt) {
	case DLT_EN10MB:
		return caplen >= 14;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return false;
		proto = (unsigned)d[14] << 8 | d[15];
		break;
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return false;
		proto = (unsigned)d[0] << 8 | d[1];
		break;
	default:
		return false;
	}
	return proto >= 0x600 || proto == 1 || proto == 4;
}

static struct reading read_independently(const uint8_t *data, size_t size)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct reading r = { 0 };
	struct pcap_pkthdr *h;
	const u_char *d;
	FILE *f = size ? fmemopen((void *)data, size, "rb") : NULL;
	pcap_t *p;
	int rc;

	if (!f)
		return r;
	p = pcap_fopen_offline(f, ebuf);
	if (!p) {
		fclose(f);
		return r;
	}
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		r.records++;
		r.frames += holds_frame(pcap_datalink(p), d, h->caplen);
	}
	r.valid = rc == PCAP_ERROR_BREAK &&
		  (pcap_datalink(p) == DLT_EN10MB || pcap_datalink(p) == DLT_LINUX_SLL ||
		   pcap_datalink(p) == DLT_LINUX_SLL2);
	pcap_close(p);
	return r;
}

static int memfd_of(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.pcap", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reading r = read_independently(data, size);
	struct mqtx_replay_cfg cfg = { .path = "fuzz.pcap", .speed = 1.0, .topspeed = true };
	struct mqtx_dev_stats before, after;
	struct mqtx_job_stats st;
	struct mqtx_job *job;
	char msg[256] = "";
	long n;
	int fd = memfd_of(data, size);

	n = mqtx__replay_check(fd, msg, sizeof(msg));
	FUZZ_CHECK((n >= 0) == r.valid, "check %ld (%s), libpcap %s", n, msg,
		   r.valid ? "valid" : "invalid");
	if (n < 0) {
		FUZZ_CHECK(msg[0], "refused without a reason");
		close(fd);
		return 0;
	}
	FUZZ_CHECK(n == r.frames, "check counted %ld frames, libpcap %ld", n, r.frames);
	cfg.fd = fd;
	cfg.records = n;
	cfg.loops = 1;
	/* The last byte picks whether frames beyond the MTU fail or go cut. */
	cfg.mtu_trunc = data[size - 1] & 1;
	mqtx_dev_get_stats(dev, &before);
	FUZZ_CHECK(mqtx__replay_start(dev, pool, &cfg, msg, sizeof(msg), &job) == 0, "start: %s",
		   msg);
	close(fd); /* the job reads its own copy */
	do {
		sched_yield();
		mqtx__job_stats(job, &st);
	} while (!st.done);
	mqtx__job_join(job);
	mqtx__job_stats(job, &st);
	FUZZ_CHECK(!*mqtx__job_error(job), "replay error: %s", mqtx__job_error(job));
	mqtx__job_free(job);
	/* One pass, every record accounted for. */
	FUZZ_CHECK(st.loops == 1, "loops %llu", (unsigned long long)st.loops);
	FUZZ_CHECK(st.sent + st.dropped + st.skipped + st.failed == (uint64_t)r.records,
		   "sent %llu dropped %llu skipped %llu failed %llu of %ld records",
		   (unsigned long long)st.sent, (unsigned long long)st.dropped,
		   (unsigned long long)st.skipped, (unsigned long long)st.failed, r.records);
	FUZZ_CHECK(cfg.mtu_trunc ? !st.failed : !st.truncated, "failed %llu truncated %llu",
		   (unsigned long long)st.failed, (unsigned long long)st.truncated);
	FUZZ_CHECK(st.truncated <= st.sent + st.dropped, "truncated %llu of %llu",
		   (unsigned long long)st.truncated, (unsigned long long)(st.sent + st.dropped));
	mqtx_dev_get_stats(dev, &after);
	FUZZ_CHECK(after.xmit - before.xmit == st.sent + st.dropped, "device saw %llu",
		   (unsigned long long)(after.xmit - before.xmit));
	FUZZ_CHECK(after.xmit ==
			   after.txq.packets + mqtx_txq_stats_drops(&after.txq) + after.txq.qlen,
		   "conservation");
	FUZZ_CHECK(mqtx_pool_in_use(pool) == 0, "%u packets not returned",
		   (unsigned)mqtx_pool_in_use(pool));
	return 0;
}

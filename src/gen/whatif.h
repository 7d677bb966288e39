/* SPDX-License-Identifier: MIT */
/* What-if: a capture replayed in virtual time through a device, with the delay and the drops of
 * every frame counted per flow and per queue (library-internal; the whatif command drives it). */
#ifndef MQTX_GEN_WHATIF_H
#define MQTX_GEN_WHATIF_H

#include <pcap/pcap.h>
#include <stdio.h>

#include <mqtx/dev.h>

/* Bytes of the buffer under a capture's reader. */
#define REPLAY_READ_BUF (256u << 10)

/** struct mqtx_replay_reader - libpcap's reader of a capture and the buffer under it. */
struct mqtx_replay_reader {
	pcap_t *p;
	char *buf;
};

/**
 * mqtx__replay_reader() - @r reads the capture @fd from its start (a duplicate of @fd);
 * only Ethernet and Linux cooked link types. @msg gets why on failure.
 * Return: 0 (close it with mqtx__replay_close()), -EINVAL, or -ENOMEM (its buffer).
 */
int mqtx__replay_reader(int fd, struct mqtx_replay_reader *r, char *msg, size_t msglen);
/** mqtx__replay_close() - the reader, its descriptor and its buffer go. */
void mqtx__replay_close(struct mqtx_replay_reader *r);
/** mqtx__replay_ts_ns() - a record's timestamp in ns (@nano: the capture counts ns). */
uint64_t mqtx__replay_ts_ns(const struct pcap_pkthdr *h, bool nano);

#define MQTX_WHATIF_FLOWS_DEFAULT 10
#define MQTX_WHATIF_FLOWS_MAX	  1000
/* Distinct 5-tuples the first pass tells apart; later ones count in "other" only. */
#define MQTX_WHATIF_TUPLES_MAX (1u << 22)
/* Points of each backlog curve: when time runs past them, neighbours merge (their maximum). */
#define MQTX_WHATIF_SAMPLES 256

/*
 * A delay histogram in ns: values below 2^HIST_SUB_BITS exactly, above in buckets of
 * 2^HIST_SUB_BITS per power of two. A percentile reports its bucket's lower edge (brought into
 * the exact [min, max] of the delays): never above the exact order statistic and less than
 * 1/128 (0.78 %) below it. Delays beyond 2^HIST_TOP ns
 * (19.5 hours) share the top bucket; the maximum is kept exactly.
 */
#define MQTX_WHATIF_HIST_SUB_BITS 7
#define MQTX_WHATIF_HIST_TOP	  46
#define MQTX_WHATIF_HIST_BUCKETS \
	((MQTX_WHATIF_HIST_TOP - MQTX_WHATIF_HIST_SUB_BITS + 2) << MQTX_WHATIF_HIST_SUB_BITS)

struct mqtx_whatif_hist {
	uint64_t n, min, max;
	uint64_t b[MQTX_WHATIF_HIST_BUCKETS];
};

/** mqtx__whatif_hist_add() - count one delay of @ns. */
void mqtx__whatif_hist_add(struct mqtx_whatif_hist *h, uint64_t ns);
/** mqtx__whatif_hist_bucket() - the bucket of @ns; mqtx__whatif_hist_edge() - its lower edge. */
unsigned mqtx__whatif_hist_bucket(uint64_t ns);
uint64_t mqtx__whatif_hist_edge(unsigned bucket);
/**
 * mqtx__whatif_pct() - the @p-th percentile (0 < @p <= 100) of @h in ns: the lower edge of the
 * bucket that holds the ceil(@p / 100 * n)-th smallest delay (nearest rank); @p 100 gives the
 * exact maximum; no value is below the exact minimum. 0 for an empty histogram.
 */
uint64_t mqtx__whatif_pct(const struct mqtx_whatif_hist *h, double p);

/* A flow: its 5-tuple, as the dissector reads it (addresses in network order, ports host). */
struct mqtx_whatif_key {
	uint16_t n_proto; /* 0x0800, 0x86dd, or another EtherType (no addresses then) */
	uint8_t ip_proto;
	uint8_t pad_;
	uint16_t sport, dport;
	uint8_t src[16], dst[16]; /* IPv4: the first 4 bytes */
};

/** mqtx__whatif_key() - the flow of an Ethernet frame. */
void mqtx__whatif_key(const uint8_t *frame, uint32_t len, struct mqtx_whatif_key *k);

/**
 * struct mqtx_whatif_capture - what the first pass over a capture found.
 * @records: records read; @frames: those holding an Ethernet frame; @span_ns: from the first
 * record's timestamp to the last one's; @flows: the @nflows biggest flows by frames, biggest
 * first (ties: the flow seen first); @frames_of: their frame counts; @tuples: distinct flows
 * seen (at most MQTX_WHATIF_TUPLES_MAX told apart); @dlt: the link type.
 */
struct mqtx_whatif_capture {
	uint64_t records, frames, span_ns, tuples;
	int dlt;
	unsigned nflows;
	struct mqtx_whatif_key *flows;
	uint64_t *frames_of;
	/* the lookup of a frame's flow among @flows: open addressing, index + 1, 0 empty */
	uint32_t *slots;
	uint32_t nslots;
};

/**
 * mqtx__whatif_scan() - read the capture @fd (a regular file: mqtx__replay_check_file()) once,
 * from its start, and find its @nflows biggest flows; a cut record or a link type that cannot be
 * replayed fails it as mqtx__replay_check() would. Memory grows with the distinct flows, not
 * with the capture's length.
 * Return: 0 and *@out (mqtx__whatif_capture_free()); -ENOMEM; -EINVAL with @msg.
 */
int mqtx__whatif_scan(int fd, unsigned nflows, struct mqtx_whatif_capture **out, char *msg,
		      size_t msglen);
void mqtx__whatif_capture_free(struct mqtx_whatif_capture *c);
/** mqtx__whatif_flow_of() - the index of @k among the capture's flows, or nflows ("other"). */
unsigned mqtx__whatif_flow_of(const struct mqtx_whatif_capture *c, const struct mqtx_whatif_key *k);

/**
 * struct mqtx_whatif_acc - what happened to a set of frames (a flow, a queue, all of them).
 * @packets, @bytes: frames offered to the device and their bytes; @sent, @sent_bytes: their
 * last bit left the wire; @dropped: dropped, by reason in @drops; @delay: from the frame's
 * arrival to the end of its last bit on the wire, of every frame sent.
 */
struct mqtx_whatif_acc {
	uint64_t packets, bytes, sent, sent_bytes, dropped;
	uint64_t drops[MQTX_DROP_REASON_MAX];
	struct mqtx_whatif_hist delay;
};

/**
 * struct mqtx_whatif_result - one run.
 * @total: every frame; @queues: per TX queue (@nq: the device's num_txq); @flows: per flow of
 * the capture's list, then "other" (nflows + 1); @skipped: frames not offered (longer than the
 * device's MTU allows, or larger than a packet buffer); @virtual_ns: from the first frame's
 * arrival until the device was empty; @backlog: with a plot, per queue MQTX_WHATIF_SAMPLES
 * points of its qdisc backlog in bytes, the largest seen in each @sample_ns (@nsamples used).
 */
struct mqtx_whatif_result {
	struct mqtx_whatif_acc total;
	struct mqtx_whatif_acc *queues, *flows;
	uint32_t nq;
	unsigned nflows;
	uint64_t skipped, virtual_ns;
	uint64_t *backlog;
	uint64_t sample_ns;
	unsigned nsamples;
};

/**
 * mqtx__whatif_run() - replay the capture @fd of @cap through @dev: every frame enters it at
 * its timestamp (from the first one's), through mqtx_dev_xmit(); then time goes on until the
 * device is empty. @dev: a sim device on a virtual clock, up, that nothing else uses meanwhile;
 * it is brought down to take a receiving peer (its qdiscs stay), and left down. @backlog:
 * record the backlog curves.
 * Return: 0 and *@out (mqtx__whatif_result_free()); -EINVAL with @msg (not a sim device, not
 * virtual time, a frame left behind); -ENOMEM.
 */
int mqtx__whatif_run(struct mqtx_dev *dev, int fd, const struct mqtx_whatif_capture *cap,
		     bool backlog, struct mqtx_whatif_result **out, char *msg, size_t msglen);
void mqtx__whatif_result_free(struct mqtx_whatif_result *r);

/** mqtx__whatif_flow_name() - "udp 10.0.0.1:5 > 10.0.0.2:9" into @buf; "other" for NULL. */
const char *mqtx__whatif_flow_name(const struct mqtx_whatif_key *k, char *buf, size_t len);
/** mqtx__whatif_proto() - "tcp", "udp", "icmp", the protocol number, or the EtherType. */
const char *mqtx__whatif_proto(const struct mqtx_whatif_key *k, char *buf, size_t len);
/** mqtx__whatif_addr() - the source (@dst false) or destination address, "" without one. */
const char *mqtx__whatif_addr(const struct mqtx_whatif_key *k, bool dst, char *buf, size_t len);

/**
 * mqtx__whatif_svg() - write the picture of @n runs (@names: their configuration files) to @f:
 * per run the delay CDF of the biggest flows of @cap (log x) and the backlog of each queue over
 * time. Return: 0, or -EIO when writing failed.
 */
int mqtx__whatif_svg(FILE *f, const struct mqtx_whatif_capture *cap,
		     struct mqtx_whatif_result *const *runs, const char *const *names, unsigned n);

#endif

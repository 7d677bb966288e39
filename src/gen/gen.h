/* SPDX-License-Identifier: MIT */
/* Traffic generator and pcap replay engines (library-internal; driven by the gen/replay
 * commands of the control language). */
#ifndef MQTX_GEN_GEN_H
#define MQTX_GEN_GEN_H

#include <pthread.h>
#include <stdatomic.h>

#include <mqtx/dev.h>
#include <mqtx/gen.h>

/** mqtx__tos2prio() - Linux's ip_tos2prio: the priority of an IPv4 TOS byte. */
uint32_t mqtx__tos2prio(uint8_t tos);

/**
 * struct mqtx_job_stats - progress of a generator or a replay.
 * @sent, @bytes: frames accepted by the device (queued or sent); @dropped: refused by it;
 * @skipped: replay records not sent (no frame: shorter than its link header, a cooked record
 *          of a protocol Ethernet cannot carry; or larger than a packet buffer);
 * @failed: replay frames longer than the device's MTU allows, not sent (tcpreplay's "Failed
 *          packets"); @truncated: such frames sent cut to the MTU (mtu-trunc);
 * @nomem: waits for packets;
 * @start_ns, @now_ns: on the device clock; @done: finished (or stopped); @loops: replay passes.
 */
struct mqtx_job_stats {
	uint64_t sent, bytes, dropped, skipped, failed, truncated, nomem;
	uint64_t start_ns, now_ns;
	uint64_t loops;
	bool done;
};

struct mqtx_job;

/**
 * mqtx__gen_start() - start a generator on @dev taking packets from @pool.
 * Return: 0 and *@out; -EINVAL (a bad configuration), -ENOMEM, -EAGAIN (no thread).
 */
int mqtx__gen_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
		    const struct mqtx_gen_cfg *cfg, struct mqtx_job **out);

/**
 * struct mqtx_replay_cfg - how a capture is replayed.
 * @path: the capture's name, for messages only (the job does not keep it).
 * @fd: the capture, checked with mqtx__replay_check(); the job reads a copy of it.
 * @records: what mqtx__replay_check() counted (0: one pass, whatever @loops says).
 * @speed: timing multiplier of the capture's timestamps (1.0: as recorded), from
 *         MQTX_REPLAY_SPEED_MIN to MQTX_REPLAY_SPEED_MAX; used when neither rate is set and
 *         @topspeed is false.
 * @rate_bps, @pps: pace at this rate instead of the timestamps (@pps may be a fraction).
 * @topspeed: as fast as possible.
 * @loops: passes over the file (0: until stopped).
 * @loopdelay_ns: wait between passes (the pace starts again after it).
 * @limit: frames handed to the device, then the replay ends (0: no limit).
 * @duration_ns: the replay ends then: a frame due at or after it is not sent (0: no limit).
 * @mtu_trunc: a frame longer than the device's MTU allows is sent cut to it, not failed.
 * @smac, @dmac: with @has_smac, @has_dmac, the Ethernet addresses of cooked records.
 * @unique_ip: tcpreplay's --unique-ip: pass k (from 0) sends IPv4 and IPv6 frames with the last
 *         32 bits of the source address up by k and of the destination down by k, checksums
 *         updated (a bad one stays bad), so that each pass's flows are new.
 * @fixcsum: tcpreplay's --fixcsum: the IPv4 header and the TCP and UDP checksums are recomputed.
 */
#define MQTX_REPLAY_SPEED_MIN 1e-6
#define MQTX_REPLAY_SPEED_MAX 1e6

struct mqtx_replay_cfg {
	const char *path;
	int fd;
	long records;
	double speed;
	uint64_t rate_bps;
	double pps;
	bool topspeed;
	uint64_t loops, loopdelay_ns, limit, duration_ns;
	bool mtu_trunc, has_smac, has_dmac, unique_ip, fixcsum;
	uint8_t smac[6], dmac[6];
};

/**
 * mqtx__replay_open() - open the capture @path read-only without blocking (a FIFO opens at once,
 * and mqtx__replay_check() then refuses it). @msg receives the reason on failure.
 * Return: the descriptor, or -errno.
 */
int mqtx__replay_open(const char *path, char *msg, size_t msglen);

/**
 * mqtx__replay_check_file() - without reading it: @fd must be a regular file (a FIFO or a device
 * could block a reader or never end; a directory is no capture). @msg says what it is instead.
 * Return: 0 or -EINVAL.
 */
int mqtx__replay_check_file(int fd, char *msg, size_t msglen);

/**
 * mqtx__replay_check() - read the whole capture @fd once, from its start: it must be a regular
 * file (mqtx__replay_check_file()), its records intact and its link
 * type Ethernet or Linux cooked (SLL, SLL2). @msg receives "record N: what" (or what else is
 * wrong) on failure.
 * Return: the number of records that hold a frame (see mqtx__cooked_len()), -EINVAL, or -ENOMEM
 * (@msg "out of memory").
 */
long mqtx__replay_check(int fd, char *msg, size_t msglen);

/**
 * mqtx__cooked_len() - the length of the Ethernet frame a record of link type @dlt (EN10MB,
 * LINUX_SLL, LINUX_SLL2) becomes, and its EtherType in *@ethertype (0 for an 802.3 length).
 * Return: the length, or -1 when the record holds no frame (shorter than its link header, or a
 * cooked protocol that Ethernet cannot carry).
 */
long mqtx__cooked_len(int dlt, const uint8_t *data, uint32_t caplen, uint16_t *ethertype);

/**
 * mqtx__cooked_to_eth() - write the first @len bytes of the Ethernet frame of a record that
 * mqtx__cooked_len() accepted into @out. A cooked record's protocol becomes the EtherType; its
 * Ethernet source is @cfg's smac, else its link-layer address when that has 6 bytes, else zero;
 * its destination @cfg's dmac, else broadcast for a broadcast record, the group address of an
 * IPv4 or IPv6 multicast destination, else zero (tcprewrite's default).
 */
void mqtx__cooked_to_eth(int dlt, const uint8_t *data, uint32_t caplen,
			 const struct mqtx_replay_cfg *cfg, uint8_t *out, size_t len);

/* Big-endian (network order) stores. */
static inline void mqtx__put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void mqtx__put32(uint8_t *p, uint32_t v)
{
	mqtx__put16(p, (uint16_t)(v >> 16));
	mqtx__put16(p + 2, (uint16_t)v);
}

/** mqtx__csum_add() - RFC 1071: add @len bytes at @p to the one's-complement @sum (unfolded). */
uint32_t mqtx__csum_add(uint32_t sum, const uint8_t *p, size_t len);
/** mqtx__csum_fold() - fold @sum to 16 bits and complement it: the checksum field's value. */
uint16_t mqtx__csum_fold(uint32_t sum);

/**
 * mqtx__frame_unique_ip() - --unique-ip on Ethernet frame @f of @len bytes for pass @pass (0
 * changes nothing): see struct mqtx_replay_cfg. A frame without IPv4 or IPv6 is left alone.
 */
void mqtx__frame_unique_ip(uint8_t *f, size_t len, uint32_t pass);

/**
 * mqtx__frame_fixcsum() - recompute the IPv4 header checksum and the TCP or UDP checksum of
 * Ethernet frame @f (after VLAN tags; IPv6 without extension headers). A fragment, or a segment
 * the frame does not hold whole, keeps its L4 checksum.
 */
void mqtx__frame_fixcsum(uint8_t *f, size_t len);

/**
 * mqtx__replay_start() - replay the capture of @cfg (checked with mqtx__replay_check()) on @dev.
 * Return: 0 and *@out; -EINVAL with @msg, -ENOMEM, -EMFILE, -EAGAIN.
 */
int mqtx__replay_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
		       const struct mqtx_replay_cfg *cfg, char *msg, size_t msglen,
		       struct mqtx_job **out);

/** mqtx__job_stats() - a snapshot of the job's progress. */
void mqtx__job_stats(struct mqtx_job *job, struct mqtx_job_stats *st);

/** mqtx__job_error() - the error that ended a replay early ("" if none). */
const char *mqtx__job_error(struct mqtx_job *job);

/** mqtx__job_join() - stop the job and wait for its threads (its counters are then final). */
void mqtx__job_join(struct mqtx_job *job);

/** mqtx__job_free() - stop the job, join its threads and free it; NULL allowed. */
void mqtx__job_free(struct mqtx_job *job);

/* ---- the job core shared by gen.c and replay.c ---- */

typedef void *(*mqtx_job_thread_fn)(void *arg);

struct mqtx_job_thread {
	struct mqtx_job *job;
	unsigned index;
	pthread_t tid;
	bool started;
	/* the thread's own counters, summed by mqtx__job_stats() */
	_Atomic uint64_t sent, bytes, dropped, skipped, failed, truncated, nomem, loops;
};

struct mqtx_job {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	struct mqtx_clock *clock;
	mqtx_job_thread_fn fn;
	_Atomic bool go; /* every thread exists: they may start sending */
	_Atomic bool stop;
	_Atomic unsigned running;
	uint64_t start_ns;
	_Atomic uint64_t end_ns;
	unsigned nthreads;
	struct mqtx_job_thread th[MQTX_GEN_THREADS_MAX];
	char error[160];
	void *priv; /* gen or replay state, freed with the job */
};

/**
 * mqtx__job_start() - a new job on @dev drawing packets from @pool, owning @priv (from
 * mqtx__alloc(); freed with the job, or here on failure), with @n threads running @fn. @fn
 * runs once every thread exists.
 * Return: 0 and *@out; -ENOMEM, -EAGAIN (no thread). A failed start sent nothing.
 */
int mqtx__job_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool, void *priv, unsigned n,
		    mqtx_job_thread_fn fn, struct mqtx_job **out);

/** mqtx__job_thread_done() - a job thread finished (end_ns: the latest finish time). */
void mqtx__job_thread_done(struct mqtx_job_thread *t);

/**
 * mqtx__job_wait_until() - wait until @t on the job's clock, sleeping (no spin: for waits whose
 * precision does not matter, and for bursts). Return false if the job was told to stop meanwhile.
 */
bool mqtx__job_wait_until(struct mqtx_job *job, uint64_t t);

/**
 * struct mqtx_pacer - one thread's per-frame pace: when its last frame was due (@due) and when
 * it went (@sent), and how long before a due time its sleep ends so that it spins the rest
 * (@margin_ns, learnt from how late its sleeps end). Zero it before the first frame.
 */
struct mqtx_pacer {
	uint64_t due, sent, margin_ns;
	bool started;
};

/**
 * mqtx__job_pace() - wait until the frame due at @due may go: sleep on an absolute deadline to
 * shortly before it, then spin to the instant. A frame never goes early; a late one goes no
 * sooner than half its gap (@due less the last frame's due time) after the last frame went, so
 * that a thread that fell behind catches up at up to twice its rate, one frame at a time, and
 * never in a burst. Return false if the job was told to stop meanwhile.
 */
bool mqtx__job_pace(struct mqtx_job *job, struct mqtx_pacer *pc, uint64_t due);

/**
 * mqtx__job_paced() - the frame mqtx__job_pace() let go has been handed to the device: in real
 * time, the next frame's half gap counts from now, so that the time taken to build and hand
 * over a late frame does not shorten the gap after it.
 */
void mqtx__job_paced(struct mqtx_job *job, struct mqtx_pacer *pc);

/**
 * mqtx__pace_at() - when mqtx__job_pace() lets the frame due at @due go: @due, or, behind (the
 * last frame went after its due time), half the gap after the last frame went, if later.
 * In virtual time a frame goes at this instant, since no time passes while a thread is not
 * scheduled; in real time at the clock's reading when the wait ends.
 */
uint64_t mqtx__pace_at(const struct mqtx_pacer *pc, uint64_t due);

/** mqtx__job_pace_ns() - when the next frame is due: @bits or packets so far at a rate. */
uint64_t mqtx__job_pace_ns(uint64_t rate_bps, uint64_t rate_pps, uint64_t bits, uint64_t pkts);

/**
 * mqtx__job_send() - hand @n packets to the device, counting into @t; packets are consumed.
 */
void mqtx__job_send(struct mqtx_job_thread *t, struct mqtx_pkt **pkts, unsigned n);

#endif

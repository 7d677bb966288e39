/* SPDX-License-Identifier: MIT */
/* mqtx traffic generation: the frame builder of the generator, for any program that needs
 * valid Ethernet/IPv4|IPv6/UDP|TCP frames of a set of flows. */
#ifndef MQTX_GEN_H
#define MQTX_GEN_H

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frame sizes include the 4-byte FCS, as pktgen and the IMIX literature count them; the
 * frame built has no FCS (the wire, e.g. the sim driver, adds it). */
#define MQTX_GEN_FCS	     4
#define MQTX_GEN_SIZE_MIN    64
#define MQTX_GEN_SIZE_IMIX   0 /* cfg.size: the 7:4:1 mix of 64, 594 and 1518 bytes */
#define MQTX_GEN_THREADS_MAX 16
#define MQTX_GEN_BURST	     32

/**
 * struct mqtx_gen_cfg - what a generator sends.
 * @flows: distinct 4-tuples cycled through (1..); the tuple of flow f walks the source range
 *         fastest, then destinations, source ports, destination ports.
 * @size: frame size with FCS (MQTX_GEN_SIZE_MIN..mtu + 18 [+ 4 with a VLAN tag]) or
 *        MQTX_GEN_SIZE_IMIX.
 * @rate_bps: pacing over all threads in bits/s of frames without FCS (0: as fast as possible).
 * @rate_pps: pacing over all threads in frames/s; at most one of the two rates is set.
 * @count: frames to send over all threads (0: no limit).
 * @duration_ns: stop after this long on the device's clock (0: no limit).
 * @threads: sending threads, 1..MQTX_GEN_THREADS_MAX. Flow f belongs to thread f % @threads,
 *        which sends that flow's frames in order, so no flow is ever reordered; with fewer
 *        flows than threads, only @flows threads run. Paced, every frame is due when it would
 *        be with one thread.
 * @burst: with a rate, frames go in bursts of this many (1..MQTX_GEN_BURST), each when its
 *        first frame is due, and a late burst goes at once; 0 paces each frame (late frames
 *        go one at a time, at no less than half their gap). Without a rate the generator
 *        sends bursts of MQTX_GEN_BURST as fast as it can, whatever this says.
 * @proto: IPPROTO_UDP or IPPROTO_TCP.
 * @tos: the IPv4 TOS byte or the IPv6 traffic class (also sets the packet priority as Linux's
 *       ip_tos2prio does).
 * @src_lo: the first source address (IPv4, host byte order); @src_hi: the last (inclusive).
 * @dst_lo: the first destination address; @dst_hi: the last.
 * @sport_lo: the first source port (host byte order); @sport_hi: the last.
 * @dport_lo: the first destination port; @dport_hi: the last.
 * @ipv6: build IPv6 frames: addresses are @src6/@dst6 with their last 32 bits taken from the
 *       address ranges above (only the first 12 bytes of @src6/@dst6 are used).
 * @src6: the IPv6 source prefix; @dst6: the IPv6 destination prefix.
 * @vlan: an 802.1Q tag with this VID (0..4095), or -1 for none.
 * @src_mac: the Ethernet source; @dst_mac: the Ethernet destination.
 */
struct mqtx_gen_cfg {
	uint32_t flows;
	uint32_t size;
	uint64_t rate_bps, rate_pps;
	uint64_t count;
	uint64_t duration_ns;
	unsigned threads;
	uint8_t proto;
	uint8_t tos;
	uint32_t src_lo, src_hi, dst_lo, dst_hi;
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	bool ipv6;
	uint8_t src6[16], dst6[16];
	int vlan;
	uint8_t src_mac[6], dst_mac[6];
	unsigned burst;
};

/**
 * mqtx_gen_cfg_default() - one UDP flow 10.0.0.1 -> 10.0.0.2:9 (source ports 1024..65535),
 * 64 bytes, one thread, no VLAN, locally administered MACs 02:00:00:00:00:01 -> ...:02.
 * @cfg: filled in whole.
 */
MQTX_API void mqtx_gen_cfg_default(struct mqtx_gen_cfg *cfg);

/**
 * mqtx_gen_build() - write frame number @seq of @cfg into @buf: the 4-tuple of flow
 * @seq % flows, an IPv4 header with a valid checksum (or IPv6), a UDP or TCP header whose
 * checksum covers the IPv4 or IPv6 pseudo-header, and a payload starting with @seq (big
 * endian) followed by a byte pattern.
 * @cfg: the frames; @size must hold the headers (mqtx_gen_min_size()).
 * @seq: the frame's number.
 * @buf: where the frame goes; @cap: its room in bytes.
 * Return: the frame length (without FCS); -ENOSPC if @cap is too small; -EINVAL if the size
 * cannot hold the headers.
 */
MQTX_API int mqtx_gen_build(const struct mqtx_gen_cfg *cfg, uint64_t seq, uint8_t *buf, size_t cap);

/**
 * mqtx_gen_frame_size() - the size with FCS of frame @seq of @cfg (resolves IMIX; an IMIX size
 * below mqtx_gen_min_size() is raised to it, which only IPv6 needs).
 * Return: the size in bytes, FCS included.
 */
MQTX_API uint32_t mqtx_gen_frame_size(const struct mqtx_gen_cfg *cfg, uint64_t seq);

/**
 * mqtx_gen_min_size() - the smallest frame with FCS that holds the headers of @cfg.
 * Return: at least MQTX_GEN_SIZE_MIN (IPv6/UDP needs 66, IPv6/TCP 78, 4 more with a VLAN tag).
 */
MQTX_API uint32_t mqtx_gen_min_size(const struct mqtx_gen_cfg *cfg);

/**
 * struct mqtx_jobs - the generators and replays of a control context: the gen and replay
 * commands, their job table and the packet pool of each device their jobs use. A front end
 * (mqtxd, mqtx -batch) makes one and attaches it to its context; jobs outlive the commands that
 * start them, and stop when their device is deleted or the table is freed.
 */
struct mqtx_jobs;
struct mqtx_ctl;

/**
 * mqtx_jobs_new() - an empty job table, attached to no context.
 * Return: 0 and *@out, or -ENOMEM.
 */
MQTX_API int mqtx_jobs_new(struct mqtx_jobs **out);

/**
 * mqtx_jobs_attach() - register the gen and replay commands of @jobs in @ctl (see
 * mqtx_ctl_register()) and watch its devices (mqtx_ctl_watch()): deleting a device stops its
 * jobs and releases its pool first; freeing @ctl stops every job and detaches @jobs.
 * Return: 0; -EBUSY (@jobs is attached already); -EEXIST (@ctl has a gen or replay command);
 * -ENOMEM. On an error nothing is registered.
 */
MQTX_API int mqtx_jobs_attach(struct mqtx_jobs *jobs, struct mqtx_ctl *ctl);

/**
 * mqtx_jobs_free() - stop every job (joining its threads), bring the devices whose pools it
 * holds down (their queues give the packets back), release the pools, unregister the commands
 * from the context it is attached to, and free @jobs. No command may run on that context
 * meanwhile. NULL is allowed.
 */
MQTX_API void mqtx_jobs_free(struct mqtx_jobs *jobs);

#ifdef __cplusplus
}
#endif
#endif

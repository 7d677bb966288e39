/* SPDX-License-Identifier: MIT */
/* The sim driver: a multiqueue NIC model with a descriptor ring and a wire per TX queue. */
#ifndef MQTX_SIM_H
#define MQTX_SIM_H

#include <mqtx/driver.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MQTX_SIM_RING_MAX     65536
#define MQTX_SIM_RING_DEFAULT 256
/* Bytes a frame occupies on an Ethernet wire beyond its own: preamble + SFD (8), FCS (4),
 * inter-frame gap (12). The frame's len is taken as the frame without FCS. */
#define MQTX_SIM_WIRE_OVERHEAD 24
/* Completion-round spacing used in real time when the configuration says 0. */
#define MQTX_SIM_REAL_COALESCE_NS 20000

/**
 * struct mqtx_sim_cfg - the model of one sim device (the same for each of its TX queues).
 * @ring: descriptors per TX queue, 1..MQTX_SIM_RING_MAX (0: MQTX_SIM_RING_DEFAULT). One
 *        packet takes one descriptor.
 * @rate_pps: wire rate of each queue in packets/s (0: no packet-rate limit).
 * @rate_bps: wire rate of each queue in bits/s, charging (len + MQTX_SIM_WIRE_OVERHEAD) * 8
 *        bits per frame (0: no bit-rate limit). When both rates are set a frame takes the
 *        longer of the two times. Both 0: infinitely fast, frames complete at the next round.
 *        A frame's wire time is rounded up to whole ns.
 * @stop_thresh: after a burst, the queue is stopped (DRV_XOFF) when fewer than this many
 *        descriptors are free. A burst takes what fits; the rest goes back to the stack
 *        (requeued), which cannot happen while stop_thresh >= the largest burst (64).
 *        1..ring (0: min(64, ring / 4), at least 1).
 * @wake_thresh: a stopped queue is woken when at least this many descriptors are free:
 *        stop_thresh..ring (0: max(ring / 4, stop_thresh)).
 * @coalesce_ns: minimum time between two completion rounds (interrupt coalescing). 0 means
 *        none on a virtual clock (every frame completes exactly when its wire time ends) and
 *        MQTX_SIM_REAL_COALESCE_NS on the real clock.
 * @peer: if set, completed frames are handed to mqtx_dev_receive(@peer) instead of being
 *        freed (a cable to another device). Not owned; must outlive this device's traffic.
 *
 * Time comes from the device's clock: on a virtual clock completions happen inside
 * mqtx_clock_advance() (a timer per device); on the real clock one completion thread per device
 * runs from open to close.
 */
struct mqtx_sim_cfg {
	uint32_t ring;
	uint64_t rate_pps;
	uint64_t rate_bps;
	uint32_t stop_thresh;
	uint32_t wake_thresh;
	uint64_t coalesce_ns;
	struct mqtx_dev *peer;
};

/**
 * The sim driver. Prefer mqtx_sim_dev_create(); mqtx_dev_change() sets its ring, coalescing
 * and (bit) rate while the device is down, as a NIC that resets to apply them (-EBUSY while
 * up; a new rate replaces a packet rate); a device created with mqtx_dev_create() and
 * these ops uses the default configuration until mqtx_sim_configure().
 */
MQTX_API extern const struct mqtx_dev_ops mqtx_sim_ops;

/**
 * mqtx_sim_configure() - set the model of a sim device; it applies from the next open.
 * Validates everything before changing anything. @cfg is copied.
 * Return: 0; -EINVAL (not a sim device, ring out of range, thresholds out of range, peer is
 * the device itself); -EBUSY while the device is up.
 */
MQTX_API int mqtx_sim_configure(struct mqtx_dev *dev, const struct mqtx_sim_cfg *cfg);

/**
 * mqtx_sim_get_cfg() - the device's model with every default filled in (ring, thresholds,
 * coalescing for its clock), as it runs or will run at the next open.
 * Return: 0, or -EINVAL if @dev is not a sim device.
 */
MQTX_API int mqtx_sim_get_cfg(struct mqtx_dev *dev, struct mqtx_sim_cfg *cfg);

/**
 * mqtx_sim_dev_create() - mqtx_dev_create() with the sim driver and configuration @sim
 * (NULL: defaults). @base->ops and @base->priv_size are ignored.
 * Return: 0 and *@out; the errors of mqtx_dev_create() and mqtx_sim_configure().
 */
MQTX_API int mqtx_sim_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_sim_cfg *sim,
				 struct mqtx_dev **out);

/**
 * struct mqtx_sim_txq_stats - driver-side counters of one TX queue (or their sum).
 * @completed_pkts, @completed_bytes: frames the wire finished.
 * @ring: frames on the ring now; @ring_max: the most ever on it.
 * @refused: frames refused because fewer than stop_thresh descriptors were free when they were
 *        offered (the queue had been woken by someone else); the stack requeues them.
 * @flushed: frames dropped from the ring when the device went down.
 * @stops, @wakes: how often the driver stopped and woke the queue.
 * @rounds: completion rounds that completed at least one frame of this queue.
 */
struct mqtx_sim_txq_stats {
	uint64_t completed_pkts, completed_bytes;
	uint64_t ring, ring_max;
	uint64_t refused, flushed;
	uint64_t stops, wakes;
	uint64_t rounds;
};

/**
 * mqtx_sim_txq_stats() - counters of queue @i of sim device @dev (kept across close/open).
 * Return: 0; -EINVAL if @dev is not a sim device or @i >= num_txq.
 */
MQTX_API int mqtx_sim_txq_stats(struct mqtx_dev *dev, uint32_t i, struct mqtx_sim_txq_stats *st);

/**
 * mqtx_sim_stats() - the sum over all queues (ring_max is the largest of any queue).
 * Return: 0; -EINVAL if @dev is not a sim device.
 */
MQTX_API int mqtx_sim_stats(struct mqtx_dev *dev, struct mqtx_sim_txq_stats *st);

#ifdef __cplusplus
}
#endif
#endif

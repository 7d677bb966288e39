/* SPDX-License-Identifier: MIT */
/* The af_xdp driver: each TX queue is an AF_XDP socket on one queue of a Linux interface. */
#ifndef MQTX_AF_XDP_H
#define MQTX_AF_XDP_H

#include <mqtx/ktxq.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mqtx_xdp_mode {
	MQTX_XDP_AUTO = 0, /* zero-copy where the driver supports it, else copy */
	MQTX_XDP_COPY,	   /* XDP_COPY: works on every interface (veth included) */
	MQTX_XDP_ZEROCOPY, /* XDP_ZEROCOPY: fails where the driver has no support */
};

#define MQTX_XDP_FRAME_DEFAULT 2048
#define MQTX_XDP_RING_DEFAULT  2048
#define MQTX_XDP_RING_MAX      65536

/**
 * struct mqtx_af_xdp_cfg - the interface queues under an mqtx device.
 * @ifname: the interface (required; it must exist, and be up when the device is opened).
 * @queue: the first queue id: mqtx TX queue i is the socket on queue @queue + i.
 * @mode: enum mqtx_xdp_mode.
 * @frame: UMEM frame size, 2048 or 4096 (0: MQTX_XDP_FRAME_DEFAULT, or the pool's). A frame
 *        holds a packet's metadata too (128 bytes): a packet of another pool longer than the
 *        rest (struct mqtx_pool_frames.buf_size) is refused with EMSGSIZE.
 * @ring: TX and completion ring entries per queue, the packets a queue may have in flight,
 *        and the frames per queue of the device's own pool: a power of two,
 *        64..MQTX_XDP_RING_MAX (0: MQTX_XDP_RING_DEFAULT).
 *
 * Only TX rings are made and no XDP program is loaded (libxdp's
 * XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD), so nothing is attached to the interface. The sockets
 * share one UMEM: the memory of a packet pool made by mqtx_pool_create_frames(), the device's
 * own (mqtx_af_xdp_pool()) or the caller's (mqtx_af_xdp_dev_create_with_pool()). A packet of
 * that pool is sent where it was built: its TX descriptor points into its own frame, and the
 * device holds the packet until the completion ring gives it back, then frees it to the pool
 * (xstats "in_place"). A packet of any other pool is copied once into a frame the queue took
 * from the UMEM's pool, and freed at once ("copied"; "copy_waits" counts the times a queue
 * stopped because the pool had no frame left, until packets come back). Completions are
 * turned into per-queue completions (BQL with MQTX_DEV_F_BQL) and wakes. The kernel sends a
 * socket's frames on its own queue (net/xdp/xsk.c: the generic path sets queue_mapping to the
 * socket's queue id, and zero-copy drivers use that queue's hardware ring).
 */
struct mqtx_af_xdp_cfg {
	const char *ifname;
	uint32_t queue;
	enum mqtx_xdp_mode mode;
	uint32_t frame;
	uint32_t ring;
};

/** The af_xdp driver (create devices with mqtx_af_xdp_dev_create()). */
MQTX_API extern const struct mqtx_dev_ops mqtx_af_xdp_ops;

/**
 * mqtx_af_xdp_dev_create() - an mqtx device over queues @xdp->queue .. + @base->num_txq - 1
 * of @xdp->ifname (@base->num_txq 0: the interface's TX queues from @xdp->queue on), one XSK
 * socket each, made through libxdp, over a UMEM that is a pool of the device's own: @ring
 * frames per queue, without per-thread caches (mqtx_af_xdp_pool()). @base->ops and priv_size
 * are ignored.
 * Return: 0 and *@out; -EINVAL (no interface name, frame or ring out of range, a queue id the
 * interface does not have); -ENODEV (no such interface); -EPERM (not permitted: needs
 * CAP_NET_RAW and CAP_NET_ADMIN, and CAP_IPC_LOCK past the memlock limit); -EOPNOTSUPP
 * (zero-copy asked and the driver has no AF_XDP support, or no AF_XDP in the kernel);
 * -ENOMEM. Each error is logged naming the interface and the cause; nothing is left behind.
 */
MQTX_API int mqtx_af_xdp_dev_create(const struct mqtx_dev_cfg *base,
				    const struct mqtx_af_xdp_cfg *xdp, struct mqtx_dev **out);

/**
 * mqtx_af_xdp_dev_create_with_pool() - the same, with @pool's memory as the UMEM: its packets
 * are sent without a copy, and the queues take their copy frames from it. @pool must come from
 * mqtx_pool_create_frames() with frames of 2048 or 4096 bytes (@xdp->frame 0 or the same);
 * the device holds it (mqtx_pool_hold()) until it is destroyed, so the caller may destroy its
 * own reference at any time, frames in flight included.
 * Return: as mqtx_af_xdp_dev_create(); -EINVAL also for a NULL @pool, a pool not made of
 * frames, or frames of another size.
 */
MQTX_API int mqtx_af_xdp_dev_create_with_pool(const struct mqtx_dev_cfg *base,
					      const struct mqtx_af_xdp_cfg *xdp,
					      struct mqtx_pkt_pool *pool, struct mqtx_dev **out);

/**
 * mqtx_af_xdp_txq_stats() - kernel-side counters of queue @i (@i < 0: the sum). errors and
 * err[] count the kernel's refusals of sends (per send call, since a frame on the TX ring is
 * no longer the caller's) plus XDP_STATISTICS tx_invalid_descs.
 * Deprecated: mqtx_dev_ktxq_stats() gives the same for every driver over a kernel interface.
 * Return: 0; -EINVAL if @dev is not an af_xdp device or @i >= num_txq.
 */
MQTX_API int mqtx_af_xdp_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st);

/** mqtx_af_xdp_zerocopy() - 1 if the sockets run zero-copy, 0 in copy mode, -EINVAL. */
MQTX_API int mqtx_af_xdp_zerocopy(struct mqtx_dev *dev);

/**
 * mqtx_af_xdp_pool() - the pool whose memory is @dev's UMEM: packets allocated from it are
 * sent without a copy. It lives as long as the device, or longer with mqtx_pool_hold().
 * Return: the pool; NULL if @dev is not an af_xdp device.
 */
MQTX_API struct mqtx_pkt_pool *mqtx_af_xdp_pool(struct mqtx_dev *dev);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/* The af_packet driver: one AF_PACKET socket per TX queue on a Linux interface. */
#ifndef MQTX_AF_PACKET_H
#define MQTX_AF_PACKET_H

#include <mqtx/ktxq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SO_MARK of TX queue i's socket is MQTX_AFP_MARK_TAG | i; the steering program (below) turns
 * it into the kernel queue and clears it. */
#define MQTX_AFP_MARK_TAG  0x6d710000u
#define MQTX_AFP_MARK_MASK 0xffff0000u

/**
 * struct mqtx_af_packet_cfg - the interface under an mqtx device.
 * @ifname: the interface (required; it must exist and be up when the device is opened).
 * @no_bypass: send through the kernel's qdisc of @ifname (no PACKET_QDISC_BYPASS). The
 *        default bypasses it: mqtx is the qdisc layer, frames go straight to the driver.
 * @no_steer: with @no_bypass, do not attach the steering program, and let the kernel pick the
 *        queue by its flow hash.
 * @sndbuf: SO_SNDBUF of every socket in bytes (0: the kernel's default). A send the socket
 *        has no room for fails with EAGAIN, which stops the mqtx queue until the socket is
 *        writable again.
 *
 * Which kernel queue a frame leaves on (kernel 6.x, net/packet/af_packet.c, net/core/dev.c):
 *   - with the bypass, packet_pick_tx_queue() records the sending CPU modulo the interface's
 *     real_num_tx_queues as the frame's "receive queue" and asks ndo_select_queue() or
 *     netdev_pick_tx(): the XPS map of that CPU if the interface has one, else skb_tx_hash(),
 *     which returns that recorded queue. The queue is the sending CPU's, whatever the socket:
 *     mqtx queue i cannot choose it (nothing a socket sets reaches it without a qdisc pass);
 *   - without the bypass, the frame passes the interface's tc egress hook before
 *     netdev_core_pick_tx(). mqtx attaches there a small BPF program that writes the socket's
 *     queue + 1 into skb->queue_mapping; skb_tx_hash() then takes it as the recorded queue,
 *     so mqtx queue i leaves on kernel queue i (when mqtx has at most as many queues as the
 *     interface, and the interface has no XPS map, which netdev_pick_tx() would ask first).
 */
struct mqtx_af_packet_cfg {
	const char *ifname;
	bool no_bypass;
	bool no_steer;
	uint32_t sndbuf;
};

/** The af_packet driver (create devices with mqtx_af_packet_dev_create()). */
MQTX_API extern const struct mqtx_dev_ops mqtx_af_packet_ops;

/**
 * mqtx_af_packet_dev_create() - an mqtx device over interface @afp->ifname with
 * @base->num_txq sockets (0: as many as the interface has TX queues), each bound to the
 * interface. Frames are sent in batches with sendmmsg(), non-blocking. @base->ops and
 * priv_size are ignored.
 * Return: 0 and *@out; -EINVAL (no interface name); -ENODEV (no such interface); -EPERM (not
 * permitted: needs CAP_NET_RAW, and CAP_NET_ADMIN for the steering program); -ENOMEM; or the
 * kernel's error. Each error is logged naming the interface and the cause; nothing (socket,
 * program) is left behind.
 */
MQTX_API int mqtx_af_packet_dev_create(const struct mqtx_dev_cfg *base,
				       const struct mqtx_af_packet_cfg *afp, struct mqtx_dev **out);

/**
 * mqtx_af_packet_bypass() - whether af_packet device @dev sends past the kernel's qdisc of its
 * interface (PACKET_QDISC_BYPASS: the default) or through it (@no_bypass at creation).
 * Return: 1 (bypass), 0 (through the kernel's qdisc), -EINVAL if @dev is not an af_packet
 * device.
 */
MQTX_API int mqtx_af_packet_bypass(struct mqtx_dev *dev);

/**
 * mqtx_af_packet_txq_stats() - kernel-side counters of queue @i (@i < 0: the sum).
 * Deprecated: mqtx_dev_ktxq_stats() gives the same for every driver over a kernel interface.
 * Return: 0; -EINVAL if @dev is not an af_packet device or @i >= num_txq.
 */
MQTX_API int mqtx_af_packet_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/* The tap driver: each TX queue writes into its own queue of a multi-queue Linux TAP device. */
#ifndef MQTX_TAP_H
#define MQTX_TAP_H

#include <mqtx/ktxq.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct mqtx_tap_cfg - the TAP device under an mqtx device.
 * @ifname: the TAP interface (NULL or "": the mqtx device's name). Created with
 *        IFF_MULTI_QUEUE when it does not exist (and removed when the mqtx device is
 *        destroyed); attached to when it is a multi-queue TAP already (left in place).
 * @vnet_hdr: IFF_VNET_HDR: every frame is preceded by a virtio_net_hdr of zeroes (no checksum
 *        or segmentation offload asked), for a TAP that others opened with vnet headers.
 * @sndbuf: TUNSETSNDBUF of every queue in bytes (0: the kernel's default, which never fills);
 *        the kernel refuses a write with EAGAIN while the queue's frames not yet consumed by
 *        the receive path exceed it, which stops the mqtx queue until its fd is writable.
 *
 * The device's TX queue i writes into file descriptor i, attached i-th to the TAP, which is
 * the kernel's queue i of the TAP (drivers/net/tun.c: tun_attach() gives a new file
 * queue_index = numqueues, and tun_get_user() records it as the frame's receive queue) when
 * mqtx created the TAP; on a TAP others already attached to, mqtx's queues follow theirs.
 * Writes are non-blocking; one poller thread per device waits for the fds of stopped queues.
 */
struct mqtx_tap_cfg {
	const char *ifname;
	bool vnet_hdr;
	uint32_t sndbuf;
};

/** The tap driver (create devices with mqtx_tap_dev_create()). */
MQTX_API extern const struct mqtx_dev_ops mqtx_tap_ops;

/**
 * mqtx_tap_dev_create() - create an mqtx device over TAP @tap->ifname with @base->num_txq
 * queues (1..256), one file descriptor each. The TAP is brought up when the device is opened
 * and down when it is closed (if it was down before). @base->ops and priv_size are ignored;
 * MQTX_DEV_F_NO_QUEUE in @base->flags gives the queues no qdisc (as Linux's TAP has).
 * Return: 0 and *@out; -EINVAL (a bad name, more than 256 queues; the interface exists and is
 * not a multi-queue TAP); -EPERM (not permitted: needs CAP_NET_ADMIN); -ENOENT (no
 * /dev/net/tun); -E2BIG (the TAP has no room for more queues); -ENOMEM. Each error is logged
 * naming the interface and the cause; nothing is left behind.
 */
MQTX_API int mqtx_tap_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_tap_cfg *tap,
				 struct mqtx_dev **out);

/**
 * mqtx_tap_txq_stats() - kernel-side counters of queue @i (@i < 0: the sum over all queues).
 * Deprecated: mqtx_dev_ktxq_stats() gives the same for every driver over a kernel interface.
 * Return: 0; -EINVAL if @dev is not a tap device or @i >= num_txq.
 */
MQTX_API int mqtx_tap_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st);

/** mqtx_tap_ifname() - the TAP interface's name, or NULL if @dev is not a tap device. */
MQTX_API const char *mqtx_tap_ifname(struct mqtx_dev *dev);

#ifdef __cplusplus
}
#endif
#endif

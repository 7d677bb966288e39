/* SPDX-License-Identifier: MIT */
/* Kernel-side counters of one TX queue, shared by the drivers over kernel interfaces. */
#ifndef MQTX_KTXQ_H
#define MQTX_KTXQ_H

#include <mqtx/driver.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The errnos a kernel interface refuses a frame with, one counter each. A frame refused with
 * one of them is dropped and counted on its queue as MQTX_DROP_KERNEL; the counter below says
 * which errno. EAGAIN is not among them: it stops the queue and the frame is sent later.
 */
enum mqtx_kerr {
	MQTX_KERR_ENOBUFS = 0, /* the device's queue or the peer's backlog was full */
	MQTX_KERR_ENXIO,       /* the interface is gone (unbound socket) */
	MQTX_KERR_EMSGSIZE,    /* larger than the interface's MTU */
	MQTX_KERR_ENETDOWN,    /* the interface is down */
	MQTX_KERR_ENODEV,      /* no such device */
	MQTX_KERR_EINVAL,      /* the kernel found the frame invalid (too short, bad header) */
	MQTX_KERR_EIO,	       /* TAP: the interface is not up */
	MQTX_KERR_EBADFD,      /* TAP: the queue was detached from its interface (deleted) */
	MQTX_KERR_EBUSY,       /* AF_XDP: the kernel dropped a frame on its way out */
	MQTX_KERR_OTHER,       /* anything else (the last one is in last_errno) */
	MQTX_KERR_MAX
};

/** mqtx_kerr_name() - the errno's name ("ENOBUFS", ...; "other"); "?" when out of range. */
MQTX_API const char *mqtx_kerr_name(enum mqtx_kerr e);

/** mqtx_kerr_of() - the counter of errno @err (positive or negative). */
MQTX_API enum mqtx_kerr mqtx_kerr_of(int err);

/**
 * struct mqtx_ktxq_stats - what the kernel did with the frames of one TX queue (or the sum).
 * @packets, @bytes: frames the kernel accepted (written, sent, put on its TX ring).
 * @completed: of those, frames whose completion came back (AF_XDP's completion ring, pcap's
 *        wire); equal to @packets where the kernel copies at once (TAP, AF_PACKET).
 * @calls: system calls made to send.
 * @busy: sends refused with EAGAIN (the queue was then stopped until the kernel had room).
 * @stops, @wakes: how often the driver stopped and woke the queue.
 * @errors: frames dropped because the kernel refused them; @err: the same by errno.
 * @flushed: frames in flight (accepted, not completed) when the device went down.
 * @last_errno: the most recent errno refused with (positive), 0 if none.
 */
struct mqtx_ktxq_stats {
	uint64_t packets, bytes;
	uint64_t completed;
	uint64_t calls;
	uint64_t busy;
	uint64_t stops, wakes;
	uint64_t errors;
	uint64_t err[MQTX_KERR_MAX];
	uint64_t flushed;
	int last_errno;
};

/**
 * mqtx_dev_ktxq_stats() - the kernel-side counters of queue @i of a device over a kernel
 * interface or a file (tap, af_packet, af_xdp, pcap), through its driver's ops->ktxq_stats.
 * @dev: the device.
 * @i: the queue, or < 0 for the sum over all queues (@last_errno: the last queue's that has one).
 * @st: filled in.
 * Return: 0; -EOPNOTSUPP if the driver keeps no such counters; -EINVAL if @i >= num_txq.
 */
MQTX_API int mqtx_dev_ktxq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st);

/** mqtx_if_tx_queues() - how many TX queues interface @ifname has (ethtool's channel count),
 *  or -errno (-ENODEV: no such interface). */
MQTX_API int mqtx_if_tx_queues(const char *ifname);

/**
 * mqtx_kdev_ifname() - the kernel interface a tap, af_packet or af_xdp device sends on.
 * @dev: the device.
 * @gone: if not NULL, set to whether the interface the device is attached to is gone (deleted;
 *        an interface of the same name made since is another one, which the device attaches
 *        to when it is next opened).
 * Return: the interface's name, or NULL when @dev is not over a kernel interface.
 */
MQTX_API const char *mqtx_kdev_ifname(struct mqtx_dev *dev, bool *gone);

#ifdef __cplusplus
}
#endif
#endif

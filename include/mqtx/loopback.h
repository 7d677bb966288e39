/* SPDX-License-Identifier: MIT */
/* The loopback driver: every transmitted frame comes back through the device's receive path. */
#ifndef MQTX_LOOPBACK_H
#define MQTX_LOOPBACK_H

#include <mqtx/driver.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per-thread statistics slots; threads beyond this many share slots (still exact). */
#define MQTX_LOOPBACK_STAT_SLOTS 64

/**
 * The loopback driver (Linux drivers/net/loopback.c): xmit_burst hands each frame to
 * mqtx_dev_receive() on the same device and counts it in a per-thread statistics block reached
 * through mqtx_dev_ml_priv() (as Linux's loopback since 2.6.27), so the private area stays free
 * (priv_size may be 0).
 * Create it with MQTX_DEV_F_NO_QUEUE for Linux's noqueue behaviour. Any number of TX queues.
 */
MQTX_API extern const struct mqtx_dev_ops mqtx_loopback_ops;

/** struct mqtx_loopback_stats - frames looped back and accepted by the receive path. */
struct mqtx_loopback_stats {
	uint64_t packets, bytes;
};

/**
 * mqtx_loopback_get_stats() - the per-thread counters of @dev summed (frames the receive path
 * dropped are not included; they are in mqtx_dev_stats.rx_drops).
 * Return: 0; -EINVAL if @dev is not a loopback device.
 */
MQTX_API int mqtx_loopback_get_stats(struct mqtx_dev *dev, struct mqtx_loopback_stats *st);

#ifdef __cplusplus
}
#endif
#endif

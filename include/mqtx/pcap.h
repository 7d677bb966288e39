/* SPDX-License-Identifier: MIT */
/* The pcap driver: a device whose wire is a capture file (pcap, or pcapng with one interface
 * per TX queue). */
#ifndef MQTX_PCAP_H
#define MQTX_PCAP_H

#include <mqtx/ktxq.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mqtx_pcap_format {
	MQTX_PCAP_FORMAT_AUTO = 0, /* pcapng if the file name ends in ".pcapng", else pcap */
	MQTX_PCAP_FORMAT_PCAP,	   /* libpcap's format, nanosecond timestamps */
	MQTX_PCAP_FORMAT_PCAPNG,   /* one interface per TX queue, named "NAME:txN" */
};

#define MQTX_PCAP_RING_DEFAULT	256
#define MQTX_PCAP_WIRE_OVERHEAD 24 /* preamble + SFD, FCS, inter-frame gap, as the sim driver */

/**
 * struct mqtx_pcap_cfg - the file under a pcap device.
 * @file: the path (required); created or truncated at creation.
 * @format: enum mqtx_pcap_format.
 * @rate_bps: wire rate of each TX queue in bits/s, charging (len + MQTX_PCAP_WIRE_OVERHEAD) * 8
 *        bits a frame (0: no wire; a frame is complete when written). With a rate, a frame's
 *        timestamp is when the wire starts it, and it completes (BQL, wake) when the wire is
 *        done, on the device's clock (virtual time gives exact timestamps).
 * @ring: frames a queue may have on its wire, 64..65536 (0: MQTX_PCAP_RING_DEFAULT); the
 *        queue stops while a burst of 64 still fits and wakes at a quarter free.
 * @snaplen: bytes of each frame recorded (0: 65535).
 *
 * Timestamps come from the device's clock. Each burst is written to the file at once, in whole
 * records, so the file is valid whenever the process stops, SIGTERM and SIGKILL included. A
 * frame the file system does not take whole is dropped, counted as MQTX_DROP_NOSPACE (ENOSPC,
 * EDQUOT) or MQTX_DROP_WRITE (any other errno: EIO, EFBIG past RLIMIT_FSIZE, ...), with the
 * errno in the queue's counters (mqtx_pcap_txq_stats()), and what was written of its record is
 * cut off again: the file holds exactly the frames counted as transmitted. The device stays up
 * and writes again when the file system takes frames again. The first refusal since the device
 * came up is logged (MQTX_LOG_WARN), and when it goes down, how many frames were dropped in
 * all. A process that writes captures should ignore SIGXFSZ, so that a file-size limit is such
 * an error rather than its death. Both formats are written by mqtx itself.
 */
struct mqtx_pcap_cfg {
	const char *file;
	enum mqtx_pcap_format format;
	uint64_t rate_bps;
	uint32_t ring;
	uint32_t snaplen;
};

/** The pcap driver (create devices with mqtx_pcap_dev_create()). */
MQTX_API extern const struct mqtx_dev_ops mqtx_pcap_ops;

/**
 * mqtx_pcap_dev_create() - an mqtx device writing its frames to @pc->file. @base->ops and
 * priv_size are ignored.
 * Return: 0 and *@out; -EINVAL (no file, ring out of range, unknown format); the errno of
 * creating the file (-ENOENT, -EACCES, ...); -ENOMEM. Errors are logged naming the file and
 * the cause; nothing is left behind (a file that could not be set up is removed).
 */
MQTX_API int mqtx_pcap_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc,
				  struct mqtx_dev **out);

/**
 * mqtx_pcap_txq_stats() - counters of queue @i (@i < 0: the sum): packets written, completed
 * by the wire, stops and wakes, frames the file system refused (@errors, by errno in @err and
 * @last_errno; each is also a drop of the queue, MQTX_DROP_NOSPACE or MQTX_DROP_WRITE).
 * Return: 0; -EINVAL if @dev is not a pcap device or @i >= num_txq.
 */
MQTX_API int mqtx_pcap_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st);

#ifdef __cplusplus
}
#endif
#endif

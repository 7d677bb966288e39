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
 * @file: the path (required), created by mqtx_pcap_dev_create() as mqtx_pcap_open() says: never
 *        through a symbolic link, and an existing file only with @overwrite.
 * @format: enum mqtx_pcap_format.
 * @rate_bps: wire rate of each TX queue in bits/s, charging (len + MQTX_PCAP_WIRE_OVERHEAD) * 8
 *        bits a frame (0: no wire; a frame is complete when written). With a rate, a frame's
 *        timestamp is when the wire starts it, and it completes (BQL, wake) when the wire is
 *        done, on the device's clock (virtual time gives exact timestamps).
 * @ring: frames a queue may have on its wire, 64..65536 (0: MQTX_PCAP_RING_DEFAULT); the
 *        queue stops while a burst of 64 still fits and wakes at a quarter free.
 * @snaplen: bytes of each frame recorded (0: 65535).
 * @overwrite: replace a file that is already there, if it is a regular file of the caller's
 *        own (its effective uid) with no other link; without, an existing file is refused
 *        (-EEXIST).
 *
 * Timestamps are wall-clock time (ns): on the real clock, CLOCK_REALTIME when the device comes
 * up (mqtx_dev_open()) plus the device clock's time since, so that a capture carries its date
 * and merges with others while its spacing stays the device clock's; on a virtual clock, that
 * clock's time as it is. Each frame has its own stamp: with @rate_bps, when its wire starts it;
 * without, the clock's reading as it is written, later than the last frame of its queue (by
 * 1 ns at least). Each burst is written to the file at once, in whole
 * records, so the file is valid whenever the process stops, SIGTERM and SIGKILL included. A
 * frame the file system does not take whole is dropped, counted as MQTX_DROP_NOSPACE (ENOSPC,
 * EDQUOT) or MQTX_DROP_WRITE (any other errno: EIO, EFBIG past RLIMIT_FSIZE, ...), with the
 * errno in the queue's counters (mqtx_dev_ktxq_stats()), and what was written of its record is
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
	bool overwrite;
};

/** The pcap driver (create devices with mqtx_pcap_dev_create()). */
MQTX_API extern const struct mqtx_dev_ops mqtx_pcap_ops;

/**
 * mqtx_pcap_dev_create() - an mqtx device writing its frames to @pc->file, which it opens with
 * mqtx_pcap_open() (a relative path is the calling process's). @base->ops and priv_size are
 * ignored.
 * Return: 0 and *@out; -EINVAL (no file, ring out of range, unknown format); the errors of
 * mqtx_pcap_open() (-EEXIST, -ELOOP, -EINVAL, -EPERM, -ENOENT, -EACCES, ...); the errno of
 * writing the header (-ENOSPC, ...); -ENOMEM. Errors are logged naming the file and the cause.
 * Nothing is left behind: a file this call created is removed when the device cannot be set
 * up; a file that was there (@pc->overwrite) is not.
 */
MQTX_API int mqtx_pcap_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc,
				  struct mqtx_dev **out);

/**
 * mqtx_pcap_dev_create_fd() - mqtx_pcap_dev_create() on a file that is already open: a server
 * writes a client's capture this way, the client having opened it with mqtx_pcap_open(), so
 * that the kernel checked the client's rights and resolved its relative path. @fd must be a
 * regular file (a FIFO, a device, a directory is refused before any write), open for writing
 * and not for appending, and empty unless @pc->overwrite (which then empties it). The device
 * writes to a duplicate of @fd; the caller still closes @fd. @pc->file only names the file in
 * messages. Nothing is removed on a failure: whoever created the file removes it.
 * Return: as mqtx_pcap_dev_create(): -EINVAL (also: not a regular file, not open for writing,
 * open for appending), -EEXIST (not empty without @pc->overwrite), -ENOSPC, -ENOMEM, ...
 */
MQTX_API int mqtx_pcap_dev_create_fd(const struct mqtx_dev_cfg *base,
				     const struct mqtx_pcap_cfg *pc, int fd, struct mqtx_dev **out);

/**
 * mqtx_pcap_open() - open @path for a pcap device's frames, as mqtx_pcap_dev_create() does; a
 * client calls it to open its capture with its own rights and pass it to a server
 * (mqtx_pcap_dev_create_fd()). The file is created (O_CREAT | O_EXCL, mode 0666 less the
 * umask), so that no symbolic link, FIFO or file put there is followed or reused. With
 * @overwrite, a regular file already there is opened instead, if it belongs to the caller's
 * effective uid and has no other name (one link: a hard link put there names another file),
 * and emptied. A symbolic link is never followed (O_NOFOLLOW), anything but a
 * regular file is refused without being opened for writing, and nothing blocks (O_NONBLOCK).
 * @path: the file; a relative path is the calling process's.
 * @overwrite: replace a regular file of the caller's own that is there.
 * @created: set to true when this call created the file: only then may the caller remove it
 *        when what it was for fails.
 * @msg: @msglen bytes for why it failed, naming @path ("PATH: a symbolic link, which is not
 *        followed").
 * Return: the descriptor (write-only, close-on-exec, non-blocking), or -EEXIST (a file is there
 * and @overwrite is false), -ELOOP (a symbolic link), -EINVAL (not a regular file: a FIFO, a
 * device, a directory, a socket), -EPERM (@overwrite and another user's file, or one with other
 * links), or the errno of
 * open() (-EACCES, -ENOENT, ...). On failure nothing is left behind.
 */
MQTX_API int mqtx_pcap_open(const char *path, bool overwrite, bool *created, char *msg,
			    size_t msglen);

/**
 * mqtx_pcap_txq_stats() - counters of queue @i (@i < 0: the sum): packets written, completed
 * by the wire, stops and wakes, frames the file system refused (@errors, by errno in @err and
 * @last_errno; each is also a drop of the queue, MQTX_DROP_NOSPACE or MQTX_DROP_WRITE).
 * Deprecated: mqtx_dev_ktxq_stats() gives the same for every driver over a kernel interface.
 * Return: 0; -EINVAL if @dev is not a pcap device or @i >= num_txq.
 */
MQTX_API int mqtx_pcap_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st);

#ifdef __cplusplus
}
#endif
#endif

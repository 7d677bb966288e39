/* SPDX-License-Identifier: MIT */
/* The mqtxd control-socket protocol: framing, strict decoding, and I/O with deadlines.
 *
 * Every message is a frame: a 4-byte big-endian payload length, then the payload. Integers in
 * payloads are big-endian u32.
 *
 * Request (client to daemon): one frame of at most MQTX_REQ_MAX payload bytes:
 *   u32 flags  MQTX_CTL_F_STATS, _JSON, _DETAILS, _BRIEF, PROTO_REQ_FILE; no other
 *   u32 argc   at most MQTX_ARGC_MAX
 *   argc NUL-terminated words, which fill the payload exactly.
 * With PROTO_REQ_FILE the frame carries one open file descriptor (SCM_RIGHTS, sent with its
 * first bytes): the file that the command reads or writes (the word mqtx_ctl_file_word()
 * names), opened by the client (mqtx_ctl_file_open()), so that the daemon never opens a name
 * for it. A descriptor without the flag,
 * the flag without a descriptor, or more than one make the request malformed.
 *
 * Reply (daemon to client): a sequence of frames, each payload starting with a u32 type:
 *   PROTO_OUT  then 1..PROTO_CHUNK_MAX bytes of the command's output text
 *   PROTO_ERR  then 1..PROTO_CHUNK_MAX bytes of its error text
 *   PROTO_END  then the u32 exit code, 0..255: exactly 8 bytes, and the reply's last frame.
 * The output is the OUT chunks joined in order, the error text the ERR chunks, so a reply has
 * no size limit while no frame is large; the daemon sends all of the output, then all of the
 * error text, then END. Any other frame (an unknown type, an empty or oversized chunk, an END
 * of another size or with a code above 255) is a protocol error: the client drops the
 * connection.
 *
 * A connection carries any number of request/reply pairs, one at a time. The daemon runs a
 * request only once all of it has arrived; a malformed or oversized one gets an error reply
 * (exit code 1) and the connection is closed.
 */
#ifndef MQTX_TOOLS_PROTO_H
#define MQTX_TOOLS_PROTO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MQTX_REQ_MAX	65536u /* largest request payload */
#define MQTX_ARGC_MAX	1024u
#define PROTO_CHUNK_MAX (256u << 10) /* largest text chunk of a reply frame */
#define PROTO_REQ_FILE	0x80000000u  /* request flag: a file descriptor comes with it */
#define PROTO_FDS_MAX	4	     /* descriptors proto_read() keeps; more are refused */

enum proto_type {
	PROTO_OUT = 1,
	PROTO_ERR = 2,
	PROTO_END = 3,
};

/**
 * struct proto_wait - how long an I/O helper may wait.
 * @deadline: from proto_deadline(); -1: no limit.
 * @sigs: a count of the signals taken (the caller's handler increments it), or NULL; the wait
 *        ends (EINTR) once it differs from @seen, so a signal that came before the wait began
 *        does not end it.
 * @seen: the value of *@sigs when the operation began.
 */
struct proto_wait {
	int64_t deadline;
	const volatile sig_atomic_t *sigs;
	sig_atomic_t seen;
};

/**
 * struct proto_fds - the descriptors that came with the bytes read (SCM_RIGHTS).
 * @fd: the first @n of them, open (close-on-exec); proto_fds_close() closes them.
 * @n: how many.
 * @excess: more came than PROTO_FDS_MAX, or were cut short: those were closed.
 */
struct proto_fds {
	int fd[PROTO_FDS_MAX];
	unsigned n;
	bool excess;
};

/** proto_fds_close() - close the descriptors of @f and forget them. */
void proto_fds_close(struct proto_fds *f);

/** proto_deadline() - the monotonic time @ms milliseconds from now; -1 if @ms is negative. */
int64_t proto_deadline(int ms);

/**
 * proto_read() - read exactly @len bytes from the stream socket @fd within @w (NULL: no limit).
 * Descriptors that come with them are added to @fds; with @fds NULL the kernel drops them.
 * Return: 0; or -1 with errno 0 (the peer closed), ETIMEDOUT, EINTR (see struct proto_wait) or
 * the socket's error.
 */
int proto_read(int fd, void *buf, size_t len, const struct proto_wait *w, struct proto_fds *fds);

/**
 * proto_write() - write all of @len bytes within @w (NULL: no limit), passing the descriptor
 * @file (-1: none) with the first of them. Return: as proto_read().
 */
int proto_write(int fd, const void *buf, size_t len, int file, const struct proto_wait *w);

/** proto_encode_req() - build a request frame; returns it (malloc'd) and its length in *@len. */
char *proto_encode_req(unsigned flags, int argc, char **argv, size_t *len);

/**
 * proto_decode_req() - check and split a request payload in place (@argv, room for
 * MQTX_ARGC_MAX + 1, points into @p). Return: 0, or -1 for a malformed payload.
 */
int proto_decode_req(char *p, size_t len, unsigned *flags, int *argc, char **argv);

/** proto_send_reply() - send code, output and error text as one reply within @w. Return 0/-1. */
int proto_send_reply(int fd, int code, const char *out, size_t outlen, const char *err,
		     size_t errlen, const struct proto_wait *w);

/** struct proto_reply - a reply as received: exit code, output and error text. */
struct proto_reply {
	int code;
	char *out, *err; /* malloc'd, NUL-terminated */
	size_t outlen, errlen;
};

/**
 * proto_recv_reply() - read one reply into @r, each of its frames within @frame_ms (negative:
 * no limit) of the one before (of the call, for the first). Nothing is left allocated on
 * failure. Return: 0; or -1 with errno as proto_read(), EPROTO (a frame breaks the rules above)
 * or ENOMEM.
 */
int proto_recv_reply(int fd, struct proto_wait *w, int frame_ms, struct proto_reply *r);

/** proto_reply_free() - free what proto_recv_reply() filled in. */
void proto_reply_free(struct proto_reply *r);

#endif

/* SPDX-License-Identifier: MIT */
/* The mqtxd control-socket protocol and what mqtx and mqtxd share (socket path, I/O helpers).
 *
 * Every message is a 4-byte big-endian payload length followed by the payload.
 * Request payload: u32 flags (MQTX_CTL_F_*), u32 argc, then argc NUL-terminated words that
 * fill the payload exactly. Reply payload: u32 exit code, u32 n, n bytes of output, u32 m,
 * m bytes of error text. All integers big-endian. A connection carries any number of
 * request/reply pairs; the daemon runs a request only once it has all of it. */
#ifndef MQTX_TOOLS_PROTO_H
#define MQTX_TOOLS_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MQTX_REQ_MAX   65536u	    /* largest request payload */
#define MQTX_ARGC_MAX  1024u
#define MQTX_REPLY_MAX (64u << 20) /* largest reply payload a client accepts */
#define MQTX_SOCK_NAME "mqtx.sock"

/** proto_default_socket() - $MQTX_SOCKET, else the first of $XDG_RUNTIME_DIR/mqtx.sock,
 *  /run/mqtx/mqtx.sock (root), /tmp/mqtx-UID/mqtx.sock; @server creates the directory. */
int proto_default_socket(char *buf, size_t len, int server);

/** proto_read_full() / proto_write_full() - all of @len bytes; 0, or -1 (errno; EOF: 0 set). */
int proto_read_full(int fd, void *buf, size_t len);
int proto_write_full(int fd, const void *buf, size_t len);

/** proto_encode_req() - build a request; returns the malloc'd message and its length. */
char *proto_encode_req(unsigned flags, int argc, char **argv, size_t *len);

/**
 * proto_decode_req() - check and split a request payload in place (@argv points into @p;
 * at most MQTX_ARGC_MAX words). Return 0, or -1 for a malformed payload.
 */
int proto_decode_req(char *p, size_t len, unsigned *flags, int *argc, char **argv);

/** proto_send_reply() - send code/out/err as one reply. Return 0 or -1. */
int proto_send_reply(int fd, int code, const char *out, size_t outlen, const char *err,
		     size_t errlen);

/** proto_recv_reply() - read one reply; *@out and *@err are malloc'd, NUL-terminated. */
int proto_recv_reply(int fd, int *code, char **out, char **err);

/** proto_connect() - connect to the daemon's socket; -1 with errno. */
int proto_connect(const char *path);

#endif

// SPDX-License-Identifier: MIT
// Fuzz the control-socket protocol (tools/proto.c) on real sockets: the same bytes taken as a
// request payload, as the stream of requests mqtxd reads, and as the stream of reply frames mqtx
// reads. Whatever comes, nothing is read outside the bytes; a payload that decodes encodes back
// to the same bytes, and a reply that is taken is sent again and read back the same.
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mqtx/ctl.h>

#include "fuzz.h"
#include "proto.h"

#define MAX_INPUT 60000 /* fits a socket's buffer: one thread writes all, then reads */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* A connected pair whose end [0] holds @data, then end of file; end [1] is returned. */
static int stream_of(const uint8_t *data, size_t size)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	if (size && write(sv[0], data, size) != (ssize_t)size)
		abort();
	close(sv[0]);
	return sv[1];
}

/* The payload of one request: decoded, it encodes back to exactly the same bytes. */
static void request_payload(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1), *argv[MQTX_ARGC_MAX + 1], *enc;
	unsigned flags;
	size_t len;
	int argc;

	if (!p)
		return;
	memcpy(p, data, size);
	if (proto_decode_req(p, size, &flags, &argc, argv) == 0) {
		FUZZ_CHECK(argc >= 0 && (unsigned)argc <= MQTX_ARGC_MAX && !argv[argc], "argc %d",
			   argc);
		for (int i = 0; i < argc; i++)
			FUZZ_CHECK(argv[i] >= p && argv[i] + strlen(argv[i]) < p + size, "word %d",
				   i);
		enc = proto_encode_req(flags, argc, argv, &len);
		FUZZ_CHECK(enc && len == size + 4 && !memcmp(enc + 4, data, size),
			   "encodes to %zu bytes, not %zu", len, size + 4);
		free(enc);
	}
	free(p);
}

/* The stream mqtxd reads: requests framed as conn.c frames them, one after another. */
static void request_stream(const uint8_t *data, size_t size)
{
	struct proto_wait w = { .deadline = proto_deadline(1000) };
	int fd = stream_of(data, size);
	size_t used = 0;

	for (;;) {
		char hdr[4], *body, *argv[MQTX_ARGC_MAX + 1];
		struct proto_fds fds = { .n = 0 };
		unsigned flags;
		uint32_t n;
		int argc;

		if (proto_read(fd, hdr, 4, &w, &fds))
			break;
		memcpy(&n, hdr, 4);
		n = ntohl(n);
		if (n > MQTX_REQ_MAX)
			break; /* mqtxd answers "request too large" and closes */
		body = malloc(n ? n : 1);
		if (!body || proto_read(fd, body, n, &w, &fds)) {
			free(body);
			break;
		}
		used += 4 + n;
		FUZZ_CHECK(used <= size, "read %zu of %zu bytes", used, size);
		FUZZ_CHECK(fds.n == 0 && !fds.excess, "descriptors from nowhere");
		if (proto_decode_req(body, n, &flags, &argc, argv)) {
			free(body);
			break; /* malformed: mqtxd closes */
		}
		free(body);
	}
	FUZZ_CHECK(errno != ETIMEDOUT, "a read waited past the end of the stream");
	close(fd);
}

/* The stream mqtx reads: replies, each sent again and read back the same. */
static void reply_stream(const uint8_t *data, size_t size)
{
	struct proto_wait w = { .deadline = -1 };
	int fd = stream_of(data, size);
	struct proto_reply r, again;

	while (proto_recv_reply(fd, &w, 1000, &r) == 0) {
		int sv[2];

		FUZZ_CHECK(r.code >= 0 && r.code <= 255, "code %d", r.code);
		FUZZ_CHECK(r.outlen + r.errlen + 12 <= size, "more text than bytes");
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			abort();
		FUZZ_CHECK(proto_send_reply(sv[0], r.code, r.out, r.outlen, r.err, r.errlen, &w) ==
				   0,
			   "send: %s", strerror(errno));
		close(sv[0]);
		FUZZ_CHECK(proto_recv_reply(sv[1], &w, 1000, &again) == 0, "read back: %s",
			   strerror(errno));
		FUZZ_CHECK(again.code == r.code && again.outlen == r.outlen &&
				   again.errlen == r.errlen &&
				   !memcmp(again.out, r.out, r.outlen) &&
				   !memcmp(again.err, r.err, r.errlen),
			   "a reply read back differs");
		proto_reply_free(&again);
		proto_reply_free(&r);
		close(sv[1]);
	}
	FUZZ_CHECK(errno != ETIMEDOUT, "a read waited past the end of the stream");
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	request_payload(data, size);
	request_stream(data, size);
	reply_stream(data, size);
	return 0;
}

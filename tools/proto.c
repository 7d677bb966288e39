// SPDX-License-Identifier: MIT
// The mqtxd control-socket protocol: framing, encoding and strict decoding (see proto.h).
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

int proto_default_socket(char *buf, size_t len, int server)
{
	const char *env = getenv("MQTX_SOCKET"), *xdg = getenv("XDG_RUNTIME_DIR");
	char dir[256];
	struct stat st;

	if (env && *env)
		return snprintf(buf, len, "%s", env) < (int)len ? 0 : -1;
	if (xdg && *xdg)
		return snprintf(buf, len, "%s/%s", xdg, MQTX_SOCK_NAME) < (int)len ? 0 : -1;
	if (server && geteuid() == 0) {
		mkdir("/run/mqtx", 0755);
		if (stat("/run/mqtx", &st) == 0 && S_ISDIR(st.st_mode))
			return snprintf(buf, len, "/run/mqtx/%s", MQTX_SOCK_NAME) < (int)len ? 0 : -1;
	}
	if (!server && stat("/run/mqtx/" MQTX_SOCK_NAME, &st) == 0)
		return snprintf(buf, len, "/run/mqtx/%s", MQTX_SOCK_NAME) < (int)len ? 0 : -1;
	snprintf(dir, sizeof(dir), "/tmp/mqtx-%u", (unsigned)geteuid());
	/* A private directory: nobody else can plant or replace the socket. */
	if (server && mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	if (server && (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())) {
		errno = EPERM;
		return -1;
	}
	return snprintf(buf, len, "%s/%s", dir, MQTX_SOCK_NAME) < (int)len ? 0 : -1;
}

int proto_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int proto_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put32(char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

char *proto_encode_req(unsigned flags, int argc, char **argv, size_t *len)
{
	size_t n = 12;
	char *m, *p;

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	m = malloc(n);
	if (!m)
		return NULL;
	put32(m, (uint32_t)(n - 4));
	put32(m + 4, flags);
	put32(m + 8, (uint32_t)argc);
	p = m + 12;
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		memcpy(p, argv[i], l);
		p += l;
	}
	*len = n;
	return m;
}

int proto_decode_req(char *p, size_t len, unsigned *flags, int *argc, char **argv)
{
	uint32_t n;
	size_t off = 8;

	if (len < 8)
		return -1;
	*flags = get32(p);
	n = get32(p + 4);
	if (n > MQTX_ARGC_MAX)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		char *nul = off < len ? memchr(p + off, '\0', len - off) : NULL;

		if (!nul)
			return -1;
		argv[i] = p + off;
		off = (size_t)(nul - p) + 1;
	}
	if (off != len)
		return -1; /* trailing bytes: not what a client sends */
	*argc = (int)n;
	argv[n] = NULL;
	return 0;
}

int proto_send_reply(int fd, int code, const char *out, size_t outlen, const char *err,
		     size_t errlen)
{
	char h[12];
	char e[4];

	put32(h, (uint32_t)(12 + outlen + errlen));
	put32(h + 4, (uint32_t)code);
	put32(h + 8, (uint32_t)outlen);
	put32(e, (uint32_t)errlen);
	if (proto_write_full(fd, h, sizeof(h)) || (outlen && proto_write_full(fd, out, outlen)) ||
	    proto_write_full(fd, e, 4) || (errlen && proto_write_full(fd, err, errlen)))
		return -1;
	return 0;
}

int proto_recv_reply(int fd, int *code, char **out, char **err)
{
	char h[4], *m;
	uint32_t n, ol, el;

	*out = *err = NULL;
	if (proto_read_full(fd, h, 4))
		return -1;
	n = get32(h);
	if (n < 12 || n > MQTX_REPLY_MAX) {
		errno = EPROTO;
		return -1;
	}
	m = malloc(n);
	if (!m || proto_read_full(fd, m, n)) {
		free(m);
		return -1;
	}
	*code = (int)get32(m);
	ol = get32(m + 4);
	if (ol > n - 12 || get32(m + 8 + ol) != n - 12 - ol) {
		free(m);
		errno = EPROTO;
		return -1;
	}
	el = n - 12 - ol;
	*out = malloc(ol + 1);
	*err = malloc(el + 1);
	if (!*out || !*err) {
		free(*out), free(*err), free(m);
		return -1;
	}
	memcpy(*out, m + 8, ol);
	(*out)[ol] = '\0';
	memcpy(*err, m + 12 + ol, el);
	(*err)[el] = '\0';
	free(m);
	return 0;
}

int proto_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

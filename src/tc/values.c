// SPDX-License-Identifier: MIT
/* tc's words and values: the prefix matcher, numbers in a base, MAC addresses, and the rates,
 * address and port ranges of the gen/replay/dev commands. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc/tc.h"

bool mqtx__tc_matches(const char *word, const char *full)
{
	size_t n = strlen(word);

	return n && n <= strlen(full) && !memcmp(word, full, n);
}

/* get_u32() and friends: strtoul in @base, the whole word, within @max. */
static int get_unsigned(const char *s, unsigned long max, int base, unsigned long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, base);
	if (end == s || *end || errno || *v > max)
		return -EINVAL;
	return 0;
}

#define DEFINE_GET(name, type, max)                               \
	int mqtx__tc_get_##name(const char *s, type *v, int base) \
	{                                                         \
		unsigned long x;                                  \
		if (get_unsigned(s, max, base, &x))               \
			return -EINVAL;                           \
		*v = (type)x;                                     \
		return 0;                                         \
	}

DEFINE_GET(u32, uint32_t, 0xFFFFFFFFul)
DEFINE_GET(u16, uint16_t, 0xFFFFul)
DEFINE_GET(u8, uint8_t, 0xFFul)

int mqtx__tc_get_u64(const char *s, uint64_t *v, int base)
{
	unsigned long long x;
	char *end;

	/* strtoull() as tc calls it: a '-' wraps ("-1" is the largest), only ERANGE refuses */
	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, base);
	if (end == s || *end || (x == ULLONG_MAX && errno == ERANGE))
		return -EINVAL;
	*v = x;
	return 0;
}

int mqtx__tc_get_integer(const char *s, int *v, int base)
{
	char *end;
	long x;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	x = strtol(s, &end, base);
	if (end == s || *end || errno || x < INT_MIN || x > INT_MAX)
		return -EINVAL;
	*v = (int)x;
	return 0;
}

int mqtx__tc_split(const char *s, char *buf, size_t size, char **rest)
{
	size_t n = strlen(s);

	if (n >= size)
		return -EINVAL;
	memcpy(buf, s, n + 1);
	*rest = strchr(buf, '/');
	if (*rest)
		*(*rest)++ = 0;
	return 0;
}

int mqtx__parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char c;

	/* ll_addr_a2n() reads each part with "%x" and refuses one above 255. */
	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &c) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

const char *mqtx__mac_fmt(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
	return buf;
}

int mqtx__parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Rates are tc's (one grammar for every front end), plus packet rates; 1 Pbit/s or 1e15 pps
 * bounds them so that pacing arithmetic stays far from overflow. */
#define RATE_MAX 1000000000000000ull

int mqtx__parse_rate(const char *s, uint64_t *bps, uint64_t *pps)
{
	uint64_t b = 0, p = 0;

	if (mqtx_tc_parse_rate_pps(s, &p) && mqtx_tc_parse_rate_bits(s, &b))
		return -EINVAL;
	if ((!b && !p) || b > RATE_MAX || p > RATE_MAX)
		return -EINVAL;
	*bps = b;
	*pps = p;
	return 0;
}

static int parse_ipv4(const char *s, size_t len, uint32_t *a)
{
	char tmp[INET_ADDRSTRLEN];
	struct in_addr in;

	if (len == 0 || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (inet_pton(AF_INET, tmp, &in) != 1)
		return -EINVAL;
	*a = ntohl(in.s_addr);
	return 0;
}

/* "A" or "A-B" with A <= B, each end read by @end from its @len characters. */
static int parse_range(const char *s, int (*end)(const char *s, size_t len, uint32_t *v),
		       uint32_t *lo, uint32_t *hi)
{
	const char *dash = strchr(s, '-');
	uint32_t a, b;

	if (end(s, dash ? (size_t)(dash - s) : strlen(s), &a))
		return -EINVAL;
	b = a;
	if (dash && end(dash + 1, strlen(dash + 1), &b))
		return -EINVAL;
	if (b < a)
		return -EINVAL;
	*lo = a;
	*hi = b;
	return 0;
}

int mqtx__parse_ipv4_range(const char *s, uint32_t *lo, uint32_t *hi)
{
	return parse_range(s, parse_ipv4, lo, hi);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int mqtx__parse_ipv6_range(const char *s, uint8_t base[16], uint32_t *lo, uint32_t *hi)
{
	const char *dash = strchr(s, '-');
	char tmp[INET6_ADDRSTRLEN];
	uint8_t a[16], b[16];
	size_t n = dash ? (size_t)(dash - s) : strlen(s);

	if (n == 0 || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (inet_pton(AF_INET6, tmp, a) != 1)
		return -EINVAL;
	memcpy(b, a, 16);
	if (dash && inet_pton(AF_INET6, dash + 1, b) != 1)
		return -EINVAL;
	if (memcmp(a, b, 12))
		return -ERANGE; /* the flow counter walks the last 32 bits only */
	if (get32(b + 12) < get32(a + 12))
		return -EINVAL;
	memcpy(base, a, 16);
	*lo = get32(a + 12);
	*hi = get32(b + 12);
	return 0;
}

static int parse_port(const char *s, size_t len, uint32_t *p)
{
	uint64_t v;
	char tmp[8];

	if (len == 0 || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (mqtx__parse_u64(tmp, &v) || v > 65535)
		return -EINVAL;
	*p = (uint32_t)v;
	return 0;
}

int mqtx__parse_port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	uint32_t a, b;

	if (parse_range(s, parse_port, &a, &b))
		return -EINVAL;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

/* An address with a port maybe: "A", "A:P", "[A6]", "[A6]:P" or a bare IPv6 address. */
int mqtx__parse_endpoint(const char *s, struct tc_endpoint *e)
{
	char host[64];
	const char *port = NULL;
	size_t n;

	memset(e, 0, sizeof(*e));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -EINVAL;
		n = (size_t)(close - s - 1);
		memcpy(host, s + 1, n < sizeof(host) ? n : 0);
		port = close[1] ? close + 2 : NULL;
	} else if (strchr(s, ':') && strchr(s, ':') == strrchr(s, ':')) {
		n = (size_t)(strchr(s, ':') - s);
		memcpy(host, s, n < sizeof(host) ? n : 0);
		port = strchr(s, ':') + 1;
	} else {
		n = strlen(s);
		memcpy(host, s, n < sizeof(host) ? n : 0);
	}
	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	host[n] = '\0';
	if (inet_pton(AF_INET, host, e->addr) == 1)
		e->family = AF_INET;
	else if (inet_pton(AF_INET6, host, e->addr) == 1)
		e->family = AF_INET6;
	else
		return -EINVAL;
	if (port) {
		uint64_t v;

		if (mqtx__parse_u64(port, &v) || v > 65535)
			return -EINVAL;
		e->port = (uint16_t)v;
		e->has_port = true;
	}
	return 0;
}

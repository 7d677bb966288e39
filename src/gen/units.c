// SPDX-License-Identifier: MIT
// Value parsers for the gen/replay/dev commands: numbers, tc-style rates and times, ranges.
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/gen.h"
#include "internal.h"

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

/* A number with an optional fractional part, then a unit from @units (case-insensitive). */
static int parse_scaled(const char *s, const char *const *units, const double *scale,
			size_t nunits, double *v)
{
	char *end;
	double x;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !isfinite(x) || x < 0)
		return -EINVAL;
	for (size_t i = 0; i < nunits; i++) {
		if (!strcasecmp(end, units[i])) {
			*v = x * scale[i];
			return 0;
		}
	}
	return -EINVAL;
}

int mqtx__parse_rate(const char *s, uint64_t *bps, uint64_t *pps)
{
	/* tc(8): bit and bps (bytes per second) with SI and IEC prefixes; plus pps. */
	static const char *const units[] = { "",     "bit",   "kbit", "mbit", "gbit", "tbit",
					     "kibit", "mibit", "gibit", "bps", "kbps", "mbps",
					     "gbps", "kibps", "mibps", "gibps", "pps", "kpps",
					     "mpps" };
	static const double scale[] = { 1,	    1,	  1e3,	  1e6,	  1e9,	  1e12,
					1024.0, 1048576.0, 1073741824.0, 8, 8e3, 8e6,
					8e9,	8192.0, 8388608.0, 8589934592.0, 1, 1e3, 1e6 };
	double v;
	size_t n = ARRAY_SIZE(units);

	if (parse_scaled(s, units, scale, n, &v) || v < 1 || v > 1e15)
		return -EINVAL;
	*bps = *pps = 0;
	if (strcasestr(s, "pps"))
		*pps = (uint64_t)v;
	else
		*bps = (uint64_t)v;
	return 0;
}

int mqtx__parse_time(const char *s, uint64_t *ns)
{
	static const char *const units[] = { "", "s", "sec", "ms", "msec", "us", "usec", "ns",
					     "m", "min" };
	static const double scale[] = { 1e9, 1e9, 1e9, 1e6, 1e6, 1e3, 1e3, 1, 60e9, 60e9 };
	double v;

	if (parse_scaled(s, units, scale, ARRAY_SIZE(units), &v) || v > 1e18)
		return -EINVAL;
	*ns = (uint64_t)v;
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

int mqtx__parse_ipv4_range(const char *s, uint32_t *lo, uint32_t *hi)
{
	const char *dash = strchr(s, '-');
	uint32_t a, b;

	if (!dash)
		dash = s + strlen(s);
	if (parse_ipv4(s, (size_t)(dash - s), &a))
		return -EINVAL;
	b = a;
	if (*dash && parse_ipv4(dash + 1, strlen(dash + 1), &b))
		return -EINVAL;
	if (b < a)
		return -EINVAL;
	*lo = a;
	*hi = b;
	return 0;
}

static int parse_port(const char *s, uint16_t *p)
{
	uint64_t v;
	char tmp[8];
	size_t len = strcspn(s, "-");

	if (len == 0 || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (mqtx__parse_u64(tmp, &v) || v > 65535)
		return -EINVAL;
	*p = (uint16_t)v;
	return 0;
}

int mqtx__parse_port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	const char *dash = strchr(s, '-');
	uint16_t a, b;

	if (parse_port(s, &a))
		return -EINVAL;
	b = a;
	if (dash && parse_port(dash + 1, &b))
		return -EINVAL;
	if (dash && strchr(dash + 1, '-'))
		return -EINVAL;
	if (b < a)
		return -EINVAL;
	*lo = a;
	*hi = b;
	return 0;
}

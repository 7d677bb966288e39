// SPDX-License-Identifier: MIT
/* tc(8) units: rates, sizes and times read and spelled as iproute2's tc_util.c/utils.c do, and
 * the option helpers of a qdisc's parser. */
#include "base/internal.h"
#include <mqtx/tc.h>
#include "tc/tc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *name;
	double scale;
};

/* tc's rate suffixes (bits per second); matched case-insensitively, so "mbps" is MBps. */
static const struct unit rate_units[] = {
	{ "bit", 1. },
	{ "kibit", 1024. },
	{ "kbit", 1000. },
	{ "mibit", 1024. * 1024. },
	{ "mbit", 1000000. },
	{ "gibit", 1024. * 1024. * 1024. },
	{ "gbit", 1000000000. },
	{ "tibit", 1024. * 1024. * 1024. * 1024. },
	{ "tbit", 1000000000000. },
	{ "bps", 8. },
	{ "kibps", 8. * 1024. },
	{ "kbps", 8000. },
	{ "mibps", 8. * 1024. * 1024. },
	{ "mbps", 8000000. },
	{ "gibps", 8. * 1024. * 1024. * 1024. },
	{ "gbps", 8000000000. },
	{ "tibps", 8. * 1024. * 1024. * 1024. * 1024. },
	{ "tbps", 8000000000000. },
};

/* Time suffixes, in microseconds (tc's TIME_UNITS_PER_SEC). */
static const struct unit time_units[] = {
	{ "s", 1e6 },	  { "sec", 1e6 }, { "secs", 1e6 }, { "ms", 1e3 },   { "msec", 1e3 },
	{ "msecs", 1e3 }, { "us", 1. },	  { "usec", 1. },  { "usecs", 1. },
};

static const struct unit size_units[] = {
	{ "b", 1. },
	{ "k", 1024. },
	{ "kb", 1024. },
	{ "m", 1024. * 1024. },
	{ "mb", 1024. * 1024. },
	{ "g", 1024. * 1024. * 1024. },
	{ "gb", 1024. * 1024. * 1024. },
	{ "kbit", 1024. / 8 },
	{ "mbit", 1024. * 1024. / 8 },
	{ "gbit", 1024. * 1024. * 1024. / 8 },
};

/*
 * A number as tc's get_size/get_rate/get_time read it: strtod (so "010" is ten, "0x10" and
 * "1e3" work, blanks and '+' may lead), finite and not negative, then one of @units or nothing
 * (scale @bare). Stores value * scale. Checked against tc 6.1 on this kernel.
 */
static int parse_scaled(const char *s, const struct unit *units, size_t n, double bare, double *out)
{
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (*end == '\0') {
		*out = v * bare;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcasecmp(end, units[i].name) == 0) {
			*out = v * units[i].scale;
			return 0;
		}
	}
	return -EINVAL;
}

/* @v as a u64 (truncated), or -EINVAL when it does not fit. */
static int to_u64(double v, uint64_t *out)
{
	if (v >= 18446744073709549568.0)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

int mqtx_tc_parse_rate(const char *s, uint64_t *bytes_per_sec)
{
	double bits;

	if (parse_scaled(s, rate_units, ARRAY_SIZE(rate_units), 1., &bits))
		return -EINVAL;
	return to_u64(bits / 8, bytes_per_sec);
}

/*
 * The device a command's words are for, as tc knows its name while it parses them: what a
 * rate's "N%" is a share of. The command layer sets it around a kind's parse, on its thread.
 */
static MQTX_TLS const char *link_dev;
static MQTX_TLS bool link_found;
static MQTX_TLS uint64_t link_bps;

void mqtx__tc_set_link(const char *dev, bool found, uint64_t bps)
{
	link_dev = dev;
	link_found = found;
	link_bps = bps;
}

/* tc's get_percent_rate64(): the speed first (Linux's sysfs file of the interface), then the
 * share, whose bits tc prints with "%f" and reads back as a rate. */
int mqtx_tc_parse_rate_percent(const char *s, uint64_t *bytes_per_sec, struct mqtx_extack *ack)
{
	char path[96], bits[64];
	double share;
	char *end;

	if (!link_dev || !*link_dev)
		return mqtx_extack_set(ack, "%s", "");
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", link_dev);
	if (!link_found)
		return mqtx_extack_set(ack, "fopen %s: %s", path, strerror(ENOENT));
	if (!link_bps)
		return mqtx_extack_set(ack,
				       "property \"speed\" in file %s is currently unknown\n"
				       "Failed to parse %s",
				       path, path);
	share = strtod(s, &end) / 100.;
	if (strcmp(end, "%"))
		return mqtx_extack_set(ack,
				       "Specified rate value could not be read or is malformed");
	if (share > 1. || share < 0.)
		return mqtx_extack_set(
			ack, "Invalid rate specified; should be between [0,100]%% but is %s", s);
	snprintf(bits, sizeof(bits), "%f", share * (double)link_bps);
	return mqtx_tc_parse_rate(bits, bytes_per_sec) ? mqtx_extack_set(ack, "%s", "") : 0;
}

int mqtx_tc_parse_rate_bits(const char *s, uint64_t *bits_per_sec)
{
	double bits;

	if (parse_scaled(s, rate_units, ARRAY_SIZE(rate_units), 1., &bits))
		return -EINVAL;
	return to_u64(bits, bits_per_sec);
}

/* Packet rates (not tc's; pktgen and trafgen count packets): the number as tc reads one. */
static const struct unit pps_units[] = {
	{ "pps", 1. },
	{ "kpps", 1e3 },
	{ "mpps", 1e6 },
};

int mqtx_tc_parse_rate_pps(const char *s, uint64_t *pps)
{
	size_t n = s ? strlen(s) : 0;
	double v;

	/* A bare number is a bit rate, never packets. */
	if (n < 3 || strcasecmp(s + n - 3, "pps"))
		return -EINVAL;
	if (parse_scaled(s, pps_units, ARRAY_SIZE(pps_units), 1., &v))
		return -EINVAL;
	return to_u64(v, pps);
}

int mqtx_tc_parse_time(const char *s, uint64_t *ns)
{
	double us;

	if (parse_scaled(s, time_units, ARRAY_SIZE(time_units), 1., &us) ||
	    us * 1000. >= 18446744073709549568.0)
		return -EINVAL;
	*ns = (uint64_t)llround(us * 1000.);
	return 0;
}

int mqtx_tc_parse_size(const char *s, uint64_t *bytes)
{
	double b;

	if (parse_scaled(s, size_units, ARRAY_SIZE(size_units), 1., &b) || b > (double)UINT32_MAX)
		return -EINVAL;
	*bytes = (uint64_t)b;
	return 0;
}

static int parse_u32_base(const char *s, int base, uint32_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull would also take blanks and a sign ("-1" wraps); a number starts with a digit. */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno || *end || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* tc's get_unsigned(.., 0) is strtoul base 0: "0x1f" is hex, "017" octal. */
int mqtx_tc_parse_u32(const char *s, uint32_t *v)
{
	return parse_u32_base(s, 0, v);
}

/* Where tc reads get_integer(.., 10) (prio's bands and priomap): "010" is ten. */
int mqtx_tc_parse_u32_dec(const char *s, uint32_t *v)
{
	return parse_u32_base(s, 10, v);
}

char *mqtx_tc_print_rate(char *buf, size_t len, uint64_t bytes_per_sec)
{
	static const char *const prefix[] = { "", "K", "M", "G", "T" };
	uint64_t r = bytes_per_sec * 8;
	unsigned i;

	/* Scale while the number stays exact, or while it is at least 1000 units anyway. */
	for (i = 0; i < ARRAY_SIZE(prefix) - 1; i++) {
		if (r < 1000)
			break;
		if (r % 1000 != 0 && r < 1000 * 1000)
			break;
		r /= 1000;
	}
	snprintf(buf, len, "%.0f%sbit", (double)r, prefix[i]);
	return buf;
}

char *mqtx_tc_print_time(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = ns / 1000;
	double t = (double)us;

	if (t >= 1e6)
		snprintf(buf, len, "%.3gs", t / 1e6);
	else if (t >= 1e3)
		snprintf(buf, len, "%.3gms", t / 1e3);
	else
		snprintf(buf, len, "%uus", (unsigned)us);
	return buf;
}

char *mqtx_tc_print_size(char *buf, size_t len, uint64_t bytes)
{
	double sz = (double)bytes;

	if (bytes >= 1024 * 1024 && fabs(1024. * 1024. * rint(sz / (1024 * 1024)) - sz) < 1024)
		snprintf(buf, len, "%gMb", rint(sz / (1024 * 1024)));
	else if (bytes >= 1024 && fabs(1024. * rint(sz / 1024) - sz) < 16)
		snprintf(buf, len, "%gKb", rint(sz / 1024));
	else
		snprintf(buf, len, "%llub", (unsigned long long)bytes);
	return buf;
}

const char *mqtx_tc_next_arg(int argc, char **argv, int *i, struct mqtx_extack *ack)
{
	if (*i + 1 >= argc) {
		/* tc's NEXT_ARG(): incomplete_command(), which names no word. */
		mqtx_extack_set(ack, "Command line is not complete. Try option \"help\"");
		return NULL;
	}
	return argv[++*i];
}

#define DEFINE_ARG(name, type, parse, what)                                                      \
	int mqtx_tc_arg_##name(int argc, char **argv, int *i, type *v, struct mqtx_extack *ack)  \
	{                                                                                        \
		const char *opt = argv[*i];                                                      \
		const char *val = mqtx_tc_next_arg(argc, argv, i, ack);                          \
		if (!val)                                                                        \
			return MQTX_TC_EFATAL;                                                   \
		if (parse(val, v))                                                               \
			return mqtx_extack_set(ack, "illegal \"%s\" value \"%s\" (expected %s)", \
					       opt, val, what);                                  \
		return 0;                                                                        \
	}

DEFINE_ARG(u32, uint32_t, mqtx_tc_parse_u32, "an unsigned integer")
DEFINE_ARG(u32_dec, uint32_t, mqtx_tc_parse_u32_dec, "a decimal integer")
DEFINE_ARG(time, uint64_t, mqtx_tc_parse_time, "a time such as 5ms")
DEFINE_ARG(size, uint64_t, mqtx_tc_parse_size, "a size such as 10kb")
DEFINE_ARG(rate, uint64_t, mqtx_tc_parse_rate, "a rate such as 1mbit")

int mqtx_tc_unknown(const char *kind, const char *tok, struct mqtx_extack *ack)
{
	(void)kind;
	if (!strcmp(tok, "help")) {
		if (ack)
			ack->msg[0] = '\0';
	} else {
		mqtx_extack_set(ack, "What is \"%s\"?", tok);
	}
	return MQTX_TC_EUSAGE;
}

int mqtx_extack_set(struct mqtx_extack *ack, const char *fmt, ...)
{
	va_list ap;

	if (ack) {
		va_start(ap, fmt);
		vsnprintf(ack->msg, sizeof(ack->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

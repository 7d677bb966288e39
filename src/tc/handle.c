// SPDX-License-Identifier: MIT
/* Qdisc handles and class ids, parsed and printed as tc(8) does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc/tc.h"
#include <mqtx/qdisc.h>

/*
 * tc reads handles with strtoul(s, &end, 16) into a 32-bit variable (get_qdisc_handle() and
 * get_tc_classid() in iproute2's utils.c): leading blanks, a sign and a "0x" are accepted, and
 * the value is cut to 32 bits before it is checked. The same calls here give the same answers.
 */
static uint32_t hex32(const char *s, const char **end)
{
	char *e;
	uint32_t v = (uint32_t)strtoul(s, &e, 16);

	*end = e;
	return v;
}

int mqtx__handle_parse(const char *s, uint32_t *h)
{
	const char *end;
	uint32_t maj;

	if (!strcmp(s, "none")) {
		*h = 0;
		return 0;
	}
	maj = hex32(s, &end);
	if (end == s || maj > 0xFFFF)
		return -EINVAL;
	/* What follows ':' is never read: "1:2" is 1: ("handle 4:zz" is 4:). */
	if (*end != ':' && *end)
		return -EINVAL;
	*h = maj << 16;
	return 0;
}

int mqtx__classid_parse(const char *s, uint32_t *h)
{
	const char *end;
	uint32_t maj, min;

	if (!strcmp(s, "root")) {
		*h = MQTX_H_ROOT;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*h = 0;
		return 0;
	}
	maj = hex32(s, &end);
	if (end == s) {
		maj = 0; /* ":Y" */
		if (*end != ':')
			return -EINVAL;
	}
	if (*end != ':') {
		/* "X" alone is X itself, a minor of major 0 unless it has more digits. */
		if (*end)
			return -EINVAL;
		*h = maj;
		return 0;
	}
	if (maj > 0xFFFF)
		return -EINVAL;
	s = end + 1;
	min = hex32(s, &end);
	if (*end || min > 0xFFFF)
		return -EINVAL;
	*h = maj << 16 | min;
	return 0;
}

const char *mqtx__classid_fmt(uint32_t h, char *buf, size_t len)
{
	if (h == MQTX_H_ROOT)
		snprintf(buf, len, "root");
	else if (h == MQTX_H_UNSPEC)
		snprintf(buf, len, "none");
	else if (!MQTX_H_MAJ(h))
		snprintf(buf, len, ":%x", MQTX_H_MIN(h));
	else if (!MQTX_H_MIN(h))
		snprintf(buf, len, "%x:", MQTX_H_MAJ(h) >> 16);
	else
		snprintf(buf, len, "%x:%x", MQTX_H_MAJ(h) >> 16, MQTX_H_MIN(h));
	return buf;
}

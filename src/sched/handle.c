// SPDX-License-Identifier: MIT
/* Qdisc handles and class ids, parsed and printed as tc(8) does. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sched/qtree.h"

/* Up to 8 hex digits into *@v; returns the characters consumed (0: none). */
static size_t hex_prefix(const char *s, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	for (; s[i]; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (*v < (1ull << 40))
			*v = *v * 16 + d;
	}
	return i;
}

int mqtx__handle_parse(const char *s, uint32_t *h)
{
	uint64_t maj;
	size_t n;

	if (!strcmp(s, "none")) {
		*h = 0;
		return 0;
	}
	n = hex_prefix(s, &maj);
	/* tc: a major above ffff ("10000:") or anything but ':' after it ("123^") is refused. */
	if (!n || maj > 0xFFFF)
		return -EINVAL;
	s += n;
	if (*s == ':')
		s++;
	/* tc ignores what follows ':'; a minor other than 0 is refused here instead. */
	if (*s && strcmp(s, "0"))
		return -EINVAL;
	*h = (uint32_t)maj << 16;
	return 0;
}

int mqtx__classid_parse(const char *s, uint32_t *h)
{
	uint64_t maj = 0, min = 0;
	size_t n;

	if (!strcmp(s, "root")) {
		*h = MQTX_H_ROOT;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*h = 0;
		return 0;
	}
	n = hex_prefix(s, &maj);
	s += n;
	if (*s != ':') {
		/* "X" alone is a minor of major 0 in tc's get_tc_classid(). */
		if (!n || *s || maj > 0xFFFF)
			return -EINVAL;
		*h = (uint32_t)maj;
		return 0;
	}
	if (maj > 0xFFFF)
		return -EINVAL;
	s++;
	n = hex_prefix(s, &min);
	if (s[n] || min > 0xFFFF)
		return -EINVAL;
	*h = (uint32_t)(maj << 16 | min);
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

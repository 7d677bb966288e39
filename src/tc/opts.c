// SPDX-License-Identifier: MIT
/* Table-driven option parsing: a command or kind lists its options (keyword, the parser of the
 * value, the field it goes to, the bounds), and one loop reads them, instead of a chain of
 * string comparisons in each. */
#include <errno.h>
#include <string.h>

#include "tc/tc.h"

const struct tc_opt *mqtx__tc_opt_find(const struct tc_opt *t, size_t n, const char *word)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].prefix ? mqtx__tc_matches(word, t[i].word) : !strcmp(t[i].word, word))
			return &t[i];
	return NULL;
}

int mqtx__tc_opt_apply(const struct tc_opt *o, const char *v, void *base)
{
	if (o->parse(v, (char *)base + o->off, o))
		return -EINVAL;
	if (o->given)
		*(bool *)((char *)base + o->given - 1) = true;
	return 0;
}

int mqtx__tc_opt_str(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	*(const char **)field = v;
	return 0;
}

/* A number within the row's bounds; @limit: what the field holds. */
static int bounded(const char *v, const struct tc_opt *o, uint64_t limit, uint64_t *x)
{
	uint64_t max = o->max ? o->max : limit;

	if (mqtx__parse_u64(v, x) || *x < o->min || *x > max)
		return -EINVAL;
	return 0;
}

#define DEFINE_OPT(name, type, limit)                                               \
	int mqtx__tc_opt_##name(const char *v, void *field, const struct tc_opt *o) \
	{                                                                           \
		uint64_t x;                                                         \
		if (bounded(v, o, limit, &x))                                       \
			return -EINVAL;                                             \
		*(type *)field = (type)x;                                           \
		return 0;                                                           \
	}

DEFINE_OPT(int, int, INT32_MAX)
DEFINE_OPT(u8, uint8_t, UINT8_MAX)
DEFINE_OPT(u32, uint32_t, UINT32_MAX)

int mqtx__tc_opt_tc_u32(const char *v, void *field, const struct tc_opt *o)
{
	uint32_t x;

	if (mqtx__tc_get_u32(v, &x, 0) || x < o->min || (o->max && x > o->max))
		return -EINVAL;
	*(uint32_t *)field = x;
	return 0;
}

int mqtx__tc_opt_ignore(const char *v, void *field, const struct tc_opt *o)
{
	(void)v;
	(void)field;
	(void)o;
	return 0;
}

int mqtx__tc_opt_classid(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	return mqtx__classid_parse(v, field);
}

int mqtx__tc_opt_endpoint(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	return mqtx__parse_endpoint(v, field);
}

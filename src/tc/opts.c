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
	int err = o->parse(v, (char *)base + o->off, o);

	if (err)
		return err < 0 ? err : -EINVAL;
	if (o->given)
		*(bool *)((char *)base + o->given - 1) = true;
	if (o->flags)
		*(unsigned *)((char *)base + o->flags - 1) |= o->flag;
	return 0;
}

bool mqtx__tc_opt_given(const struct tc_opt *o, const void *base)
{
	return o->given && *(const bool *)((const char *)base + o->given - 1);
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
DEFINE_OPT(u64, uint64_t, UINT64_MAX)

/* mqtx_tc_parse_u32() (base 0) or mqtx_tc_parse_u32_dec() within the row's bounds. */
static int unsigned_in(const char *v, bool dec, void *field, const struct tc_opt *o)
{
	uint32_t x;

	if ((dec ? mqtx_tc_parse_u32_dec(v, &x) : mqtx_tc_parse_u32(v, &x)) || x < o->min ||
	    (o->max && x > o->max))
		return -EINVAL;
	*(uint32_t *)field = x;
	return 0;
}

int mqtx__tc_opt_dec(const char *v, void *field, const struct tc_opt *o)
{
	return unsigned_in(v, true, field, o);
}

int mqtx__tc_opt_unsigned(const char *v, void *field, const struct tc_opt *o)
{
	return unsigned_in(v, false, field, o);
}

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

int mqtx__tc_opt_str_once(const char *v, void *field, const struct tc_opt *o)
{
	if (*(const char **)field)
		return -EEXIST;
	return mqtx__tc_opt_str(v, field, o);
}

int mqtx__tc_opt_classid_once(const char *v, void *field, const struct tc_opt *o)
{
	if (*(uint32_t *)field)
		return -EEXIST;
	return mqtx__tc_opt_classid(v, field, o);
}

int mqtx__tc_opt_endpoint(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	return mqtx__parse_endpoint(v, field);
}

int mqtx__tc_opt_time(const char *v, void *field, const struct tc_opt *o)
{
	uint64_t ns;

	if (mqtx_tc_parse_time(v, &ns) || ns < o->min)
		return -EINVAL;
	*(uint64_t *)field = ns;
	return 0;
}

int mqtx__tc_opt_rate_bits(const char *v, void *field, const struct tc_opt *o)
{
	uint64_t bps;

	if (mqtx_tc_parse_rate_bits(v, &bps) || bps < o->min)
		return -EINVAL;
	*(uint64_t *)field = bps;
	return 0;
}

int mqtx__tc_opt_mac(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	return mqtx__parse_mac(v, field);
}

int mqtx__tc_opt_onoff(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	if (strcmp(v, "on") && strcmp(v, "off"))
		return -EINVAL;
	*(bool *)field = v[1] == 'n';
	return 0;
}

int mqtx__tc_opt_word(const char *v, void *field, const struct tc_opt *o)
{
	for (int i = 0; o->words[i]; i++) {
		if (!strcmp(v, o->words[i])) {
			*(int *)field = i;
			return 0;
		}
	}
	return -EINVAL;
}

// SPDX-License-Identifier: MIT
/* The tc language's room: tc's prefix rule, two-part words, the merged MAC parser, option
 * tables, and the printer that gives tc's text or its JSON from one sequence of calls. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tc/tc.h"

static void test_matches(void **state)
{
	(void)state;
	assert_true(mqtx__tc_matches("ad", "add"));
	assert_true(mqtx__tc_matches("add", "add"));
	assert_false(mqtx__tc_matches("", "add"));
	assert_false(mqtx__tc_matches("adds", "add"));
	assert_false(mqtx__tc_matches("dd", "add"));
}

static void test_get_unsigned(void **state)
{
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;
	uint8_t v8;

	(void)state;
	assert_int_equal(mqtx__tc_get_u64("18446744073709551615", &v64, 10), 0);
	assert_true(v64 == UINT64_MAX);
	assert_int_equal(mqtx__tc_get_u64("18446744073709551616", &v64, 10), -EINVAL);
	assert_int_equal(mqtx__tc_get_u64("-2", &v64, 10), 0); /* strtoull wraps, as in tc */
	assert_true(v64 == UINT64_MAX - 1);
	assert_int_equal(mqtx__tc_get_u64("0x10", &v64, 10), -EINVAL);
	assert_int_equal(mqtx__tc_get_u64("", &v64, 10), -EINVAL);
	assert_int_equal(mqtx__tc_get_u32("0x10", &v32, 0), 0);
	assert_int_equal(v32, 16);
	assert_int_equal(mqtx__tc_get_u32("010", &v32, 0), 0);
	assert_int_equal(v32, 8);
	assert_int_equal(mqtx__tc_get_u32("010", &v32, 10), 0);
	assert_int_equal(v32, 10);
	assert_int_equal(mqtx__tc_get_u32("-1", &v32, 0), -EINVAL);
	assert_int_equal(mqtx__tc_get_u32("4294967296", &v32, 0), -EINVAL);
	assert_int_equal(mqtx__tc_get_u16("65535", &v16, 0), 0);
	assert_int_equal(mqtx__tc_get_u16("65536", &v16, 0), -EINVAL);
	assert_int_equal(mqtx__tc_get_u8("255", &v8, 0), 0);
	assert_int_equal(mqtx__tc_get_u8("256", &v8, 0), -EINVAL);
	assert_int_equal(mqtx__tc_get_u8("1x", &v8, 0), -EINVAL);
}

/* "VALUE/MASK": cut at the first '/', the rest (more slashes too) after it; a word that does not
 * fit the buffer is refused whole. */
static void test_split(void **state)
{
	char buf[8], *rest;

	(void)state;
	assert_int_equal(mqtx__tc_split("1/ff", buf, sizeof(buf), &rest), 0);
	assert_string_equal(buf, "1");
	assert_string_equal(rest, "ff");
	assert_int_equal(mqtx__tc_split("1/2/3", buf, sizeof(buf), &rest), 0);
	assert_string_equal(buf, "1");
	assert_string_equal(rest, "2/3");
	assert_int_equal(mqtx__tc_split("1234567", buf, sizeof(buf), &rest), 0);
	assert_string_equal(buf, "1234567");
	assert_null(rest);
	assert_int_equal(mqtx__tc_split("/", buf, sizeof(buf), &rest), 0);
	assert_string_equal(buf, "");
	assert_string_equal(rest, "");
	assert_int_equal(mqtx__tc_split("12345678", buf, sizeof(buf), &rest), -EINVAL);
}

/* As tc's ll_addr_a2n(): each part "%x", at most ff, so "2:0:..." and "0x2:..." are one. */
static void test_mac(void **state)
{
	uint8_t m[6];

	(void)state;
	assert_int_equal(mqtx__parse_mac("02:00:00:00:00:01", m), 0);
	assert_memory_equal(m, ((uint8_t[]){ 2, 0, 0, 0, 0, 1 }), 6);
	assert_int_equal(mqtx__parse_mac("2:0:0:0:0:ff", m), 0);
	assert_memory_equal(m, ((uint8_t[]){ 2, 0, 0, 0, 0, 0xff }), 6);
	assert_int_equal(mqtx__parse_mac("0x2:0:0:0:0:1", m), 0);
	assert_int_equal(m[0], 2);
	assert_int_equal(mqtx__parse_mac("123:0:0:0:0:1", m), -EINVAL);
	assert_int_equal(mqtx__parse_mac("02:00:00:00:00", m), -EINVAL);
	assert_int_equal(mqtx__parse_mac("02:00:00:00:00:01:02", m), -EINVAL);
}

struct opts {
	const char *name;
	uint32_t count;
	uint8_t small;
	int port;
	uint32_t id;
	bool has_id;
};

#define O(m) offsetof(struct opts, m)

static const struct tc_opt table[] = {
	{ "name", mqtx__tc_opt_str, O(name) },
	{ "count", mqtx__tc_opt_u32, O(count), .min = 1, .max = 100 },
	{ "small", mqtx__tc_opt_u8, O(small) },
	{ "port", mqtx__tc_opt_int, O(port), .max = 65535, .prefix = true },
	{ "id", mqtx__tc_opt_classid, O(id), .given = TC_OPT_GIVEN(struct opts, has_id) },
};

static int apply(const char *w, const char *v, struct opts *o)
{
	const struct tc_opt *row = mqtx__tc_opt_find(table, sizeof(table) / sizeof(table[0]), w);

	return row ? mqtx__tc_opt_apply(row, v, o) : -ENOENT;
}

static void test_opts(void **state)
{
	struct opts o = { 0 };

	(void)state;
	assert_int_equal(apply("name", "x", &o), 0);
	assert_string_equal(o.name, "x");
	assert_int_equal(apply("count", "100", &o), 0);
	assert_int_equal(o.count, 100);
	assert_int_equal(apply("count", "0", &o), -EINVAL); /* below min */
	assert_int_equal(apply("count", "101", &o), -EINVAL);
	assert_int_equal(o.count, 100); /* a refused value changes nothing */
	assert_int_equal(apply("small", "256", &o), -EINVAL);
	assert_int_equal(apply("po", "80", &o), 0); /* tc's prefix rule where the row asks */
	assert_int_equal(o.port, 80);
	assert_int_equal(apply("nam", "y", &o), -ENOENT); /* whole words elsewhere */
	assert_false(o.has_id);
	assert_int_equal(apply("id", "1:2", &o), 0);
	assert_int_equal(o.id, 0x10002);
	assert_true(o.has_id);
}

/* The same calls, once as text and once as JSON. */
static void print_sample(struct tc_out *p)
{
	mqtx__out_open_array(p, NULL);
	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_ANY, "kind", "qdisc %s", "a\"b");
	mqtx__out_uint(p, OUT_ANY, "limit", " limit %llup", 10);
	mqtx__out_bool(p, OUT_ANY, "ecn", " ecn", true);
	mqtx__out_str(p, OUT_FP, NULL, " %s", "text-only");
	mqtx__out_int(p, OUT_JSON, "delta", NULL, -3);
	mqtx__out_null(p, "map", " map none");
	mqtx__out_counter(p, "sent", 7);
	mqtx__out_open_array(p, "cpus");
	mqtx__out_uint(p, OUT_JSON, NULL, NULL, 1);
	mqtx__out_uint(p, OUT_JSON, NULL, NULL, 2);
	mqtx__out_close_array(p);
	mqtx__out_open(p, "options");
	mqtx__out_members(p, "\"x\":1");
	mqtx__out_close(p);
	mqtx__out_close(p);
	mqtx__out_nl(p);
	mqtx__out_close_array(p);
	mqtx__out_end(p);
}

static void test_out(void **state)
{
	struct mqtx_buf b;
	struct tc_out p;

	(void)state;
	mqtx_buf_init(&b);
	mqtx__out_init(&p, &b, false, false, false);
	print_sample(&p);
	assert_false(mqtx__out_failed(&p));
	assert_string_equal(b.data, "qdisc a\"b limit 10p ecn text-only map none sent 7\n");
	mqtx_buf_free(&b);

	mqtx__out_init(&p, &b, true, false, false);
	print_sample(&p);
	assert_string_equal(b.data,
			    "[{\"kind\":\"a\\\"b\",\"limit\":10,\"ecn\":true,\"delta\":-3,"
			    "\"map\":null,\"sent\":7,\"cpus\":[1,2],\"options\":{\"x\":1}}]\n");
	mqtx_buf_free(&b);
}

/* Into a caller's array: what does not fit is an overflow (cut, as snprintf cuts), and
 * nothing is written after it. */
static void test_out_fixed(void **state)
{
	char mem[8];
	struct tc_out p;

	(void)state;
	mqtx__out_init_fixed(&p, mem, sizeof(mem), false);
	mqtx__out_text(&p, "%s", "1234");
	assert_false(mqtx__out_failed(&p));
	mqtx__out_text(&p, "%s", "5678");
	assert_true(mqtx__out_failed(&p));
	assert_string_equal(mem, "1234567");
	mqtx__out_text(&p, "%s", "9");
	assert_string_equal(mem, "1234567");
	mqtx__out_init_fixed(&p, mem, 0, true);
	assert_true(mqtx__out_failed(&p));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_matches),	  cmocka_unit_test(test_get_unsigned),
	cmocka_unit_test(test_split),	  cmocka_unit_test(test_mac),
	cmocka_unit_test(test_opts),	  cmocka_unit_test(test_out),
	cmocka_unit_test(test_out_fixed),
};

int main(void)
{
	return cmocka_run_group_tests(tests, NULL, NULL);
}

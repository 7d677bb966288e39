// SPDX-License-Identifier: MIT
/* Handles and class ids: parsed and printed exactly as tc(8) does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/qtree.h"

static void test_handle_good(void **state)
{
	static const struct {
		const char *s;
		uint32_t h;
	} cases[] = {
		{ "1:", 0x10000 },
		{ "1", 0x10000 },
		{ "a:", 0xa0000 },
		{ "8001:", 0x80010000 },
		{ "ffff:", 0xffff0000 },
		{ "FFFF:", 0xffff0000 },
		{ "0:", 0 },
		{ "none", 0 },
		{ "10:0", 0x100000 },
		/* tc's strtoul(.., 16): "0x", a sign and blanks; nothing after ':' is read. */
		{ "0x10:", 0x100000 },
		{ "0X1", 0x10000 },
		{ "+2:", 0x20000 },
		{ " 3:", 0x30000 },
		{ "1:2", 0x10000 },
		{ "4:zz", 0x40000 },
		{ "1::", 0x10000 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t h = 0xdead;

		assert_int_equal(mqtx__handle_parse(cases[i].s, &h), 0);
		assert_int_equal(h, cases[i].h);
	}
}

static void test_handle_bad(void **state)
{
	static const char *const bad[] = { "10000:", "123^", "",      ":",   "x:",
					   "-1:",    "0x:",  "fffff", "1 :", "0x10000:" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t h = 0xdead;

		assert_int_equal(mqtx__handle_parse(bad[i], &h), -EINVAL);
		assert_int_equal(h, 0xdead);
	}
}

static void test_classid(void **state)
{
	static const struct {
		const char *s;
		uint32_t h;
		const char *fmt;
	} cases[] = {
		{ "root", MQTX_H_ROOT, "root" },
		{ "1:a", 0x1000a, "1:a" },
		{ "1:", 0x10000, "1:" },
		{ ":4", 0x4, ":4" },
		{ "ffff:fff1", MQTX_H_INGRESS, "ffff:fff1" },
		{ "8001:10", 0x80010010, "8001:10" },
		{ "5", 0x5, ":5" },
		{ "0x1:0x3", 0x10003, "1:3" },
		{ "0x1:+a", 0x1000a, "1:a" },
		{ "ffffffff", MQTX_H_ROOT, "root" },
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t h = 0;

		assert_int_equal(mqtx__classid_parse(cases[i].s, &h), 0);
		assert_int_equal(h, cases[i].h);
		assert_string_equal(mqtx__classid_fmt(h, buf, sizeof(buf)), cases[i].fmt);
	}
	static const char *const bad[] = { "10000:1", "1:10000", "1:x",	 "123^",
					   "",	      "1:2:3",	 "-1:1", "0x:1" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t h = 7;

		assert_int_equal(mqtx__classid_parse(bad[i], &h), -EINVAL);
		assert_int_equal(h, 7);
	}
	assert_string_equal(mqtx__classid_fmt(0, buf, sizeof(buf)), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handle_good),
		cmocka_unit_test(test_handle_bad),
		cmocka_unit_test(test_classid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

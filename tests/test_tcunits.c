// SPDX-License-Identifier: MIT
/* tc units: rates, times and sizes parsed and printed exactly as iproute2's tc does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mqtx/tc.h>

static uint64_t rate(const char *s)
{
	uint64_t v = 12345;

	assert_int_equal(mqtx_tc_parse_rate(s, &v), 0);
	return v;
}

static uint64_t tm(const char *s)
{
	uint64_t v = 12345;

	assert_int_equal(mqtx_tc_parse_time(s, &v), 0);
	return v;
}

static uint64_t sz(const char *s)
{
	uint64_t v = 12345;

	assert_int_equal(mqtx_tc_parse_size(s, &v), 0);
	return v;
}

static void test_parse_rate(void **state)
{
	(void)state;
	assert_int_equal(rate("1mbit"), 125000);
	assert_int_equal(rate("1Mbit"), 125000);
	assert_int_equal(rate("8000"), 1000); /* bare number: bits per second */
	assert_int_equal(rate("8000bit"), 1000);
	assert_int_equal(rate("100kbit"), 12500);
	assert_int_equal(rate("1kibit"), 128);
	assert_int_equal(rate("1gbit"), 125000000);
	assert_int_equal(rate("1mibit"), 131072);
	assert_int_equal(rate("1tbit"), 125000000000ull);
	assert_int_equal(rate("1500bps"), 1500); /* bps is bytes per second */
	assert_int_equal(rate("1kbps"), 1000);
	assert_int_equal(rate("1mbps"), 1000000);
	assert_int_equal(rate("2MBps"), 2000000);
	assert_int_equal(rate("1kibps"), 1024);
	assert_int_equal(rate("1.5mbit"), 187500);
	assert_int_equal(rate("9bit"), 1); /* 1.125 bytes/s truncates */
}

/* The same grammar in bits (not truncated to bytes) and, for the generator, packet rates. */
static void test_parse_rate_bits_pps(void **state)
{
	static const char *const bad_pps[] = { "",	"pps",	 "1000",  "1000bit", "1gpps",
					       "-1pps", "1 pps", "1ppsx", "inf pps", "1e30pps" };
	uint64_t v = 7;

	(void)state;
	assert_int_equal(mqtx_tc_parse_rate_bits("9bit", &v), 0);
	assert_int_equal(v, 9);
	assert_int_equal(mqtx_tc_parse_rate_bits("1.5mbit", &v), 0);
	assert_int_equal(v, 1500000);
	assert_int_equal(mqtx_tc_parse_rate_bits("1kbps", &v), 0);
	assert_int_equal(v, 8000);
	assert_int_equal(mqtx_tc_parse_rate_bits("1e3", &v), 0);
	assert_int_equal(v, 1000);
	v = 7;
	assert_int_equal(mqtx_tc_parse_rate_bits("1pps", &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_rate_bits("99999999999999999999999tbit", &v), -EINVAL);
	assert_int_equal(v, 7);
	assert_int_equal(mqtx_tc_parse_rate_pps("1000pps", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(mqtx_tc_parse_rate_pps("2.5kpps", &v), 0);
	assert_int_equal(v, 2500);
	assert_int_equal(mqtx_tc_parse_rate_pps("1MPPS", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(mqtx_tc_parse_rate_pps("1e2kpps", &v), 0);
	assert_int_equal(v, 100000);
	v = 7;
	for (size_t i = 0; i < sizeof(bad_pps) / sizeof(bad_pps[0]); i++)
		assert_int_equal(mqtx_tc_parse_rate_pps(bad_pps[i], &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_rate_pps(NULL, &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_parse_rate_rejects(void **state)
{
	static const char *const bad[] = { "",	     "mbit",   "1mbitx",
					   "1 mbit", "-1mbit", "1.2.3mbit",
					   "inf",    "nan",    "0x",
					   "1kb",    "1m",     "99999999999999999999999tbit" };
	uint64_t v = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mqtx_tc_parse_rate(bad[i], &v), -EINVAL);
		assert_int_equal(v, 7);
	}
	assert_int_equal(mqtx_tc_parse_rate(NULL, &v), -EINVAL);
	/* What tc 6.1 takes through strtod (checked with tbf on this machine): exponents, hex,
	 * a leading '+' or blank. */
	assert_int_equal(rate("1e3kbit"), 125000);
	assert_int_equal(rate("0x10mbit"), 2000000);
	assert_int_equal(rate("1e6"), 125000);
	assert_int_equal(rate("+1mbit"), 125000);
	assert_int_equal(rate(" 1mbit"), 125000);
}

static void test_parse_time(void **state)
{
	(void)state;
	assert_int_equal(tm("5ms"), 5000000);
	assert_int_equal(tm("100"), 100000); /* bare number: microseconds */
	assert_int_equal(tm("100us"), 100000);
	assert_int_equal(tm("1s"), 1000000000);
	assert_int_equal(tm("2sec"), 2000000000);
	assert_int_equal(tm("3secs"), 3000000000ull);
	assert_int_equal(tm("7msec"), 7000000);
	assert_int_equal(tm("7MSECS"), 7000000);
	assert_int_equal(tm("9usec"), 9000);
	assert_int_equal(tm("9usecs"), 9000);
	assert_int_equal(tm("1.5ms"), 1500000);
	assert_int_equal(tm(".5s"), 500000000);
	assert_int_equal(tm("0"), 0);
}

static void test_parse_time_rejects(void **state)
{
	static const char *const bad[] = { "",	  "ms",	  "5 ms", "5m", "5min",
					   "5ns", "-5ms", "5ms ", "x" };
	uint64_t v = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mqtx_tc_parse_time(bad[i], &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_parse_size(void **state)
{
	(void)state;
	assert_int_equal(sz("1514"), 1514);
	assert_int_equal(sz("1514b"), 1514);
	assert_int_equal(sz("10kb"), 10240);
	assert_int_equal(sz("10k"), 10240);
	assert_int_equal(sz("10KB"), 10240);
	assert_int_equal(sz("32mb"), 33554432);
	assert_int_equal(sz("32m"), 33554432);
	assert_int_equal(sz("1g"), 1073741824);
	assert_int_equal(sz("1gb"), 1073741824);
	assert_int_equal(sz("8kbit"), 1024);
	assert_int_equal(sz("1mbit"), 131072);
	assert_int_equal(sz("1.5kb"), 1536);
}

static void test_parse_size_rejects(void **state)
{
	static const char *const bad[] = { "", "kb", "10kib", "10 kb", "-1", "4gb", "1t", "10bit" };
	uint64_t v = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mqtx_tc_parse_size(bad[i], &v), -EINVAL);
	assert_int_equal(v, 7);
	assert_int_equal(mqtx_tc_parse_size("4294967295", &v), 0);
	assert_int_equal(v, 4294967295u);
}

static void test_parse_u32(void **state)
{
	uint32_t v = 7;

	(void)state;
	assert_int_equal(mqtx_tc_parse_u32("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(mqtx_tc_parse_u32("4294967295", &v), 0);
	assert_int_equal(v, 4294967295u);
	assert_int_equal(mqtx_tc_parse_u32("4294967296", &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_u32("-1", &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_u32("12x", &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_u32("", &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_u32(" 1", &v), -EINVAL);
	assert_int_equal(v, 4294967295u);
}

/* tc's get_unsigned(.., 0): strtoul base 0, so hex and octal, but no sign and no trailer. */
static void test_parse_u32_bases(void **state)
{
	static const struct {
		const char *s;
		uint32_t v;
	} good[] = {
		{ "0x10", 16 },
		{ "0X1f", 31 },
		{ "0xffffffff", 4294967295u },
		{ "010", 8 },
		{ "0777", 511 },
		{ "00", 0 },
		{ "0x0", 0 },
		{ "037777777777", 4294967295u },
	};
	static const char *const bad[] = {
		"0x",
		"0x100000000",
		"040000000000",
		"08",
		"09",
		"0xg",
		"0x10 ",
		"1k",
		"+1",
		"-0",
		"-0x1",
		"\t1",
		"99999999999999999999999",
		"1.0",
		"1e3",
	};
	uint32_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		if (mqtx_tc_parse_u32(good[i].s, &v) || v != good[i].v)
			fail_msg("\"%s\": %u, want %u", good[i].s, v, good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (mqtx_tc_parse_u32(bad[i], &v) != -EINVAL || v != 12345)
			fail_msg("\"%s\" was taken as %u", bad[i], v);
	}
	assert_int_equal(mqtx_tc_parse_u32(NULL, &v), -EINVAL);
	/* Base 10 only (tc's get_integer(.., 10), prio's numbers): "010" is ten, "0x10" bad. */
	assert_int_equal(mqtx_tc_parse_u32_dec("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(mqtx_tc_parse_u32_dec("08", &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(mqtx_tc_parse_u32_dec("0x10", &v), -EINVAL);
	assert_int_equal(mqtx_tc_parse_u32_dec("-1", &v), -EINVAL);
}

static void test_print_rate(void **state)
{
	char b[MQTX_TC_BUF];

	(void)state;
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 125000), "1Mbit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 187500), "1500Kbit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 125), "1Kbit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 124), "992bit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 125000000), "1Gbit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 1250000000000ull), "10Tbit");
	/* not exact, but at least 1000 of the next unit: rounded down there */
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 187500125), "1500Mbit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 128), "1024bit");
	assert_string_equal(mqtx_tc_print_rate(b, sizeof(b), 0), "0bit");
}

static void test_print_time(void **state)
{
	char b[MQTX_TC_BUF];

	(void)state;
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 5000000), "5ms");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 100000000), "100ms");
	/* CoDel's 4882 * 1024 ns target reads back as tc shows it */
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 4882ull * 1024), "5ms");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 97656ull * 1024), "100ms");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 1500000000), "1.5s");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 1000000000), "1s");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 250000), "250us");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 999999), "999us");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 1234567), "1.23ms");
	assert_string_equal(mqtx_tc_print_time(b, sizeof(b), 0), "0us");
}

static void test_print_size(void **state)
{
	char b[MQTX_TC_BUF];

	(void)state;
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 33554432), "32Mb");
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 10240), "10Kb");
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 1514), "1514b");
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 1000), "1000b");
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 10250), "10Kb");	/* within 16 */
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 10256), "10256b"); /* not */
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 1514000), "1514000b");
	assert_string_equal(mqtx_tc_print_size(b, sizeof(b), 16490), "16490b");
}

/* Printing then parsing gives the value back wherever the printed form is exact. */
static void test_round_trip(void **state)
{
	static const uint64_t rates[] = { 125, 1000, 125000, 187500, 125000000, 1250000 };
	static const uint64_t times[] = { 5000000, 100000000, 250000, 1500000000, 20000 };
	static const uint64_t sizes[] = { 1514, 10240, 33554432, 1, 65536, 1048576 * 3 };
	char b[MQTX_TC_BUF];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		assert_int_equal(mqtx_tc_parse_rate(mqtx_tc_print_rate(b, sizeof(b), rates[i]), &v),
				 0);
		assert_int_equal(v, rates[i]);
	}
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		assert_int_equal(mqtx_tc_parse_time(mqtx_tc_print_time(b, sizeof(b), times[i]), &v),
				 0);
		assert_int_equal(v, times[i]);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(mqtx_tc_parse_size(mqtx_tc_print_size(b, sizeof(b), sizes[i]), &v),
				 0);
		assert_int_equal(v, sizes[i]);
	}
}

static void test_arg_helpers(void **state)
{
	char *argv[] = { "limit", "12x", "target", "5ms", "rate" };
	struct mqtx_extack ack = { "" };
	uint64_t ns;
	uint32_t u;
	int i = 0;

	(void)state;
	assert_int_equal(mqtx_tc_arg_u32(5, argv, &i, &u, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "\"limit\""));
	assert_non_null(strstr(ack.msg, "\"12x\""));
	i = 2;
	assert_int_equal(mqtx_tc_arg_time(5, argv, &i, &ns, &ack), 0);
	assert_int_equal(i, 3);
	assert_int_equal(ns, 5000000);
	i = 4;
	/* the words end where a value was due: tc's incomplete_command(), exit 255 */
	assert_int_equal(mqtx_tc_arg_rate(5, argv, &i, &ns, &ack), MQTX_TC_EFATAL);
	assert_string_equal(ack.msg, "Command line is not complete. Try option \"help\"");
	assert_int_equal(mqtx_tc_unknown("prio", "bogus", &ack), MQTX_TC_EUSAGE);
	assert_string_equal(ack.msg, "What is \"bogus\"?");
	assert_int_equal(mqtx_tc_unknown("prio", "help", &ack), MQTX_TC_EUSAGE);
	assert_string_equal(ack.msg, ""); /* the usage alone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_parse_rate_rejects),
		cmocka_unit_test(test_parse_rate_bits_pps),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_parse_time_rejects),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_size_rejects),
		cmocka_unit_test(test_parse_u32),
		cmocka_unit_test(test_parse_u32_bases),
		cmocka_unit_test(test_print_rate),
		cmocka_unit_test(test_print_time),
		cmocka_unit_test(test_print_size),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_arg_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* The dev command: device and interface names held to ip link's rule (IFNAMSIZ), and its
 * messages, which name the device once. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctl_fixture.h"

/* @line must fail with @code and exactly @msg, and leave the device list as it was. */
static void refused(struct mqtx_ctl *ctl, const char *line, int code, const char *msg)
{
	char *before, *after, *out, *err;

	assert_int_equal(fixture_run(ctl, "dev show", &before, NULL), 0);
	assert_int_equal(fixture_run(ctl, line, &out, &err), code);
	assert_string_equal(err, msg);
	assert_string_equal(out, "");
	assert_int_equal(fixture_run(ctl, "dev show", &after, NULL), 0);
	assert_string_equal(after, before);
	free(before);
	free(after);
	free(out);
	free(err);
}

/* A name is an interface's: 15 bytes at most (IFNAMSIZ - 1), as ip link add name takes it. */
static void test_dev_name_length(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *out, *err;

	(void)state;
	assert_int_equal(fixture_run(ctl, "dev add abcdefghijklmno type null", &out, &err), 0);
	assert_non_null(mqtx_ctl_dev(ctl, "abcdefghijklmno"));
	free(out);
	free(err);
	refused(ctl, "dev add abcdefghijklmnop type null", MQTX_CTL_EHANDLE,
		"Error: argument \"abcdefghijklmnop\" is wrong: \"name\" not a valid ifname\n");
	refused(ctl, "dev add abcdefghijklmnopqrstuvwxyz012345 type null", MQTX_CTL_EHANDLE,
		"Error: argument \"abcdefghijklmnopqrstuvwxyz012345\" is wrong: \"name\" not a "
		"valid ifname\n");
	refused(ctl, "dev add \"a b\" type null", MQTX_CTL_EHANDLE,
		"Error: argument \"a b\" is wrong: \"name\" not a valid ifname\n");
	/* A TAP takes the device's name when it has no ifname: the same rule, checked first. */
	refused(ctl, "dev add abcdefghijklmnop type tap txqueues 1", MQTX_CTL_EHANDLE,
		"Error: argument \"abcdefghijklmnop\" is wrong: \"name\" not a valid ifname\n");
	fixture_free(ctl);
}

/* The interface a kernel backend takes is refused by its word before anything is opened. */
static void test_ifname_length(void **state)
{
	static const char *const lines[] = {
		"dev add t1 type tap txqueues 1 ifname abcdefghijklmnop",
		"dev add p1 type af_packet ifname abcdefghijklmnop",
		"dev add x1 type af_xdp ifname abcdefghijklmnop queue 0",
	};
	struct mqtx_ctl *ctl = fixture_ctl();

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		refused(ctl, lines[i], MQTX_CTL_EHANDLE,
			"Error: argument \"abcdefghijklmnop\" is wrong: \"ifname\" not a valid "
			"ifname\n");
	refused(ctl, "dev add p1 type af_packet ifname \"\"", MQTX_CTL_EHANDLE,
		"Error: argument \"\" is wrong: \"ifname\" not a valid ifname\n");
	refused(ctl, "dev add p1 type af_packet ifname a/b", MQTX_CTL_EHANDLE,
		"Error: argument \"a/b\" is wrong: \"ifname\" not a valid ifname\n");
	fixture_free(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_name_length),
		cmocka_unit_test(test_ifname_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

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

#include <mqtx/ktxq.h>
#include <mqtx/pkt.h>

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
	refused(ctl, "dev add abcdefghijklmnop type null", MQTX_TC_EXIT_ABORT,
		"Error: argument \"abcdefghijklmnop\" is wrong: \"name\" not a valid ifname\n");
	refused(ctl, "dev add abcdefghijklmnopqrstuvwxyz012345 type null", MQTX_TC_EXIT_ABORT,
		"Error: argument \"abcdefghijklmnopqrstuvwxyz012345\" is wrong: \"name\" not a "
		"valid ifname\n");
	refused(ctl, "dev add \"a b\" type null", MQTX_TC_EXIT_ABORT,
		"Error: argument \"a b\" is wrong: \"name\" not a valid ifname\n");
	/* A TAP takes the device's name when it has no ifname: the same rule, checked first. */
	refused(ctl, "dev add abcdefghijklmnop type tap txqueues 1", MQTX_TC_EXIT_ABORT,
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
		refused(ctl, lines[i], MQTX_TC_EXIT_ABORT,
			"Error: argument \"abcdefghijklmnop\" is wrong: \"ifname\" not a valid "
			"ifname\n");
	refused(ctl, "dev add p1 type af_packet ifname \"\"", MQTX_TC_EXIT_ABORT,
		"Error: argument \"\" is wrong: \"ifname\" not a valid ifname\n");
	refused(ctl, "dev add p1 type af_packet ifname a/b", MQTX_TC_EXIT_ABORT,
		"Error: argument \"a/b\" is wrong: \"ifname\" not a valid ifname\n");
	fixture_free(ctl);
}

/* A driver whose interface is gone: its open says so as the kernel backends do, naming the
 * device first ("NAME: IF: why"). */
static int gone_open(struct mqtx_dev *dev)
{
	mqtx_log(MQTX_LOG_ERR, "%s: veth7: the interface is gone", mqtx_dev_name(dev));
	return -ENODEV;
}

static int gone_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		       size_t msglen)
{
	(void)set;
	snprintf(msg, msglen, "%s: veth7: cannot set mtu: no such interface", mqtx_dev_name(dev));
	return -ENODEV;
}

static unsigned take_all(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	(void)dev, (void)txq, (void)more;
	mqtx_pkt_free_bulk(pkts, n);
	return n;
}

static const struct mqtx_dev_ops gone_ops = {
	.kind = "gone",
	.open = gone_open,
	.xmit_burst = take_all,
	.change = gone_change,
};

/* What the library says about a device already names it: the command says the name once. */
static void test_dev_named_once(void **state)
{
	struct mqtx_dev_cfg cfg = { .name = "p0", .ops = &gone_ops, .num_txq = 1 };
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_dev *dev;

	(void)state;
	assert_int_equal(mqtx_dev_create(&cfg, &dev), 0);
	assert_int_equal(mqtx_ctl_add_dev(ctl, dev), 0);
	refused(ctl, "dev set p0 up", MQTX_TC_EXIT_REFUSED,
		"dev set: p0: veth7: the interface is gone\n");
	assert_false(mqtx_dev_is_up(dev));
	refused(ctl, "dev set p0 mtu 1400", MQTX_TC_EXIT_REFUSED,
		"dev set: p0: veth7: cannot set mtu: no such interface\n");
	assert_int_equal(mqtx_dev_mtu(dev), 1500);
	/* A driver's kind, then the device: "tap: NAME: why" (a TAP takes the device's name). */
	refused(ctl, "dev add t0 type tap txqueues 300", MQTX_TC_EXIT_REFUSED,
		"dev add: t0: tap: 300 queues, a TAP has at most 256\n");
	fixture_free(ctl);
}

/* A device over no kernel interface has none to name. */
static void test_kdev_ifname(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	bool gone = true;

	(void)state;
	assert_null(mqtx_kdev_ifname(mqtx_ctl_dev(ctl, "eth0"), &gone));
	assert_true(gone); /* untouched */
	assert_null(mqtx_kdev_ifname(NULL, NULL));
	fixture_free(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_name_length),
		cmocka_unit_test(test_ifname_length),
		cmocka_unit_test(test_dev_named_once),
		cmocka_unit_test(test_kdev_ifname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

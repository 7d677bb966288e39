// SPDX-License-Identifier: MIT
/* skbmod: the exact header after set dmac/smac/etype and swap mac, ECN marking of each
 * codepoint with the IPv4 checksum verified by the test's own code, and what tc prints. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "act_fixture.h"

static const struct flow udp4 = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0, 0, 100 };
static const struct flow udp6 = { "fd00::1", "fd00::2", 1000, 53, 0, 0, 0, 120 };

static void test_set_swap(void **state)
{
	uint8_t f[256], g[256];
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp4, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action skbmod set dmac 11:22:33:44:55:66 smac "
		    "77:88:99:aa:bb:cc etype 0x88b5");
	memcpy(g, f, n);
	memcpy(g, "\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\x88\xb5", 14);
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_memory_equal(p->data, g, n);
	mqtx_pkt_free(p);
	/* swap mac alone: the kernel keeps only the swap */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action skbmod set dmac "
		    "11:22:33:44:55:66 swap mac");
	memcpy(g, f, n);
	memcpy(g, f + 6, 6);
	memcpy(g + 6, f, 6);
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_memory_equal(p->data, g, n);
	mqtx_pkt_free(p);
	cx_ok(&t.c, "filter show block 5");
	assert_non_null(strstr(t.c.out, "\taction order 1: skbmod pipe swap mac \n\t index "));
	at_teardown(&t);
}

/* ecn: ECT(0) and ECT(1) become CE with a right checksum; Not-ECT and CE stay as they are. */
static void test_ecn(void **state)
{
	static const uint8_t from[4] = { 0, 1, 2, 3 }, to[4] = { 0, 3, 3, 3 };
	uint8_t f[256];
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action skbmod ecn");
	for (int i = 0; i < 4; i++) {
		struct flow fl = udp4;

		fl.tos = (uint8_t)(0xB8 | from[i]);
		n = at_frame(&t, &fl, f, sizeof(f));
		p = at_pkt(&t, f, n);
		assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
		assert_int_equal(p->data[15], 0xB8 | to[i]);
		assert_true(t_ipv4_ok(p->data + 14));
		assert_memory_equal(p->data + 16, f + 16, 8); /* the rest as it was */
		mqtx_pkt_free(p);
	}
	for (int i = 0; i < 4; i++) {
		struct flow fl = udp6;

		fl.tos = (uint8_t)(0xB8 | from[i]);
		n = at_frame(&t, &fl, f, sizeof(f));
		p = at_pkt(&t, f, n);
		assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
		/* the traffic class straddles bytes 0 and 1 of the header */
		assert_int_equal(((p->data[14] & 15) << 4 | p->data[15] >> 4), 0xB8 | to[i]);
		assert_true(t_ipv6_ok(p->data + 14));
		mqtx_pkt_free(p);
	}
	at_teardown(&t);
}

/* drop as the verdict: counted as an overlimit too, as Linux counts it. */
static void test_drop_words(void **state)
{
	uint8_t f[256];
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action skbmod set etype 0x0001 drop index 3");
	n = at_frame(&t, &udp4, f, sizeof(f));
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_SHOT);
	mqtx_pkt_free(p);
	cx_ok(&t.c, "-s filter show block 5");
	assert_non_null(strstr(t.c.out,
			       "\taction order 1: skbmod drop set etype 0x1 \n\t \n\t index 3 "
			       "ref 1 bind 1\n"));
	assert_non_null(strstr(t.c.out, "pkt (dropped 1, overlimits 1 "));
	cx_ok(&t.c, "-j filter show block 5");
	assert_non_null(strstr(t.c.out, "{\"order\":1,\"control_action\":{\"type\":\"drop\"},"
					"\"etype\":\"0x1\",\"index\":3,"));
	assert_non_null(strstr(cx_rc(&t.c, 1,
				     "filter add block 5 matchall action skbmod set smac "
				     "00:44:55:44:55"),
			       "Invalid smac address 00:44:55:44:55\n"));
	assert_non_null(strstr(cx_rc(&t.c, 255,
				     "filter add block 5 matchall action skbmod set etype "
				     "0xfefef"),
			       "Error: argument \"0xfefef\" is wrong: ethertype is invalid\n"));
	assert_non_null(strstr(cx_rc(&t.c, 2, "filter add block 5 matchall action skbmod index 9"),
			       "RTNETLINK answers: Invalid argument"));
	at_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_swap),
		cmocka_unit_test(test_ecn),
		cmocka_unit_test(test_drop_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

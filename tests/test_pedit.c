// SPDX-License-Identifier: MIT
/* pedit: the exact bytes its keys make of a frame (raw offsets from the network header, the
 * layered fields of eth, ip, ip6, tcp and udp, set, add, decrement, retain, at/offmask/shift),
 * a key that cannot apply (an overlimit, the rest not applied), and pedit followed by csum
 * leaving valid packets, verified by the test's own checksum code. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "act_fixture.h"

static const struct flow udp4 = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0, 0, 100 };
static const struct flow tcp6 = { "fd00::1", "fd00::2", 1000, 80, 6, 0, 0, 120 };

/* @f through block 5: its bytes after the actions in @g, the verdict returned. */
static int run(struct at *t, const uint8_t *f, uint32_t n, uint8_t *g)
{
	struct mqtx_pkt *p = at_pkt(t, f, n);
	int v = at_run(t, p);

	assert_int_equal(p->len, n);
	memcpy(g, p->data, n);
	mqtx_pkt_free(p);
	return v;
}

/* ttl, addresses and the UDP port, then csum: every checksum right again. */
static void test_ip_then_csum(void **state)
{
	uint8_t f[256], g[256], want[256];
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp4, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action pedit ex munge ip ttl set 10 munge ip src "
		    "set 192.168.1.2 munge ip dst set 10.0.0.99 munge udp dport set 4789 pipe "
		    "action csum ip4h udp");
	assert_int_equal(run(&t, f, n, g), MQTX_ACT_OK);
	memcpy(want, f, n);
	want[22] = 10;
	memcpy(want + 26, "\xc0\xa8\x01\x02\x0a\x00\x00\x63", 8);
	want[36] = 0x12;
	want[37] = 0xb5;
	/* all but the two checksums as asked; the checksums right */
	want[24] = g[24], want[25] = g[25], want[40] = g[40], want[41] = g[41];
	assert_memory_equal(g, want, n);
	assert_true(t_ipv4_ok(g + 14));
	/* without csum they are wrong: the test can tell */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action pedit ex munge ip "
		    "ttl set 10");
	run(&t, f, n, g);
	assert_int_equal(g[22], 10);
	assert_false(t_ipv4_ok(g + 14));
	at_teardown(&t);
}

/* Raw keys: offsets from the network header (negative ones reach the MAC header), u8/u16/u32,
 * retain, and at/offmask/shift reading an offset from the packet. */
static void test_raw(void **state)
{
	uint8_t f[256], g[256], want[256];
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp4, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action pedit munge offset -12 u32 set 0x11223344 "
		    "munge offset 8 u8 set 0x12 retain 0x0f munge offset 2 u16 set 0xbeef "
		    "munge offset 0 u32 at 0 f0 2 set 0x0a000063");
	assert_int_equal(run(&t, f, n, g), MQTX_ACT_OK);
	memcpy(want, f, n);
	memcpy(want + 2, "\x11\x22\x33\x44", 4); /* -12 from the network header */
	want[22] = (uint8_t)((f[22] & 0xF0) | 0x02);
	want[16] = 0xbe;
	want[17] = 0xef;
	/* (0x45 & 0xf0) >> 2 = 16: the key lands on the destination address */
	memcpy(want + 30, "\x0a\x00\x00\x63", 4);
	assert_memory_equal(g, want, n);
	at_teardown(&t);
}

/* add and decrement, in the field's lane: ttl 64 - 1, tos + 4, a ttl of 0 wraps. */
static void test_add(void **state)
{
	uint8_t f[256], g[256];
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp4, f, sizeof(f));
	assert_int_equal(f[22], 64);
	cx_ok(&t.c,
	      "filter add block 5 matchall action pedit ex munge ip ttl decrement munge ip tos "
	      "add 4");
	run(&t, f, n, g);
	assert_int_equal(g[22], 63);
	assert_int_equal(g[15], f[15] + 4);
	assert_memory_equal(g + 23, f + 23, n - 23);
	f[22] = 0;
	run(&t, f, n, g);
	assert_int_equal(g[22], 255);
	assert_int_equal(g[23], f[23]); /* no borrow out of the lane */
	at_teardown(&t);
}

/* eth and ip6 fields, and tcp over IPv6 found past the IPv6 header; csum tcp after. */
static void test_eth_ip6_tcp(void **state)
{
	static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0xf1, 0x01,
					  0,	0,    0,    0,	  0, 0, 0,    1 };
	uint8_t f[256], g[256], want[256];
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &tcp6, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action pedit ex munge eth src set "
		    "11:22:33:44:55:66 munge eth dst set ff:ee:dd:cc:bb:aa munge ip6 dst set "
		    "2001:0db8:0:f101::1 munge ip6 hoplimit set 7 munge tcp dport set 8080 pipe "
		    "action csum tcp");
	assert_int_equal(run(&t, f, n, g), MQTX_ACT_OK);
	memcpy(want, f, n);
	memcpy(want, "\xff\xee\xdd\xcc\xbb\xaa\x11\x22\x33\x44\x55\x66", 12);
	memcpy(want + 14 + 24, dst6, 16);
	want[14 + 7] = 7;
	want[54 + 2] = 0x1f;
	want[54 + 3] = 0x90;
	want[54 + 16] = g[54 + 16], want[54 + 17] = g[54 + 17];
	assert_memory_equal(g, want, n);
	assert_true(t_ipv6_ok(g + 14));
	at_teardown(&t);
}

/* A key past the frame: counted as an overlimit, the keys before it applied, those after not,
 * and the verdict stays the action's. A udp key on TCP over IPv6 cannot find its header. */
static void test_bad_key(void **state)
{
	uint8_t f[256], g[256];
	uint64_t pkts, drops;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp4, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action pedit munge offset 8 u8 set 9 munge offset "
		    "4000 u32 set 1 munge offset 9 u8 set 99 pass");
	assert_int_equal(run(&t, f, n, g), MQTX_ACT_OK);
	assert_int_equal(g[22], 9);
	assert_int_equal(g[23], f[23]);
	at_counts(&t, 1, &pkts, &drops);
	assert_int_equal(pkts, 1);
	assert_int_equal(drops, 0);
	cx_ok(&t.c, "-s filter show block 5");
	assert_non_null(strstr(t.c.out, "(dropped 0, overlimits 1 "));
	n = at_frame(&t, &tcp6, f, sizeof(f));
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action pedit ex munge udp "
		    "dport set 1");
	run(&t, f, n, g);
	assert_memory_equal(g, f, n);
	at_teardown(&t);
}

static void test_words(void **state)
{
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c,
	      "filter add block 5 matchall action pedit ex munge ip ttl set 10 munge offset 12 "
	      "u16 set 0x1234 pipe index 3");
	cx_ok(&t.c, "filter show block 5");
	assert_non_null(strstr(t.c.out,
			       "\taction order 1:  pedit action pipe keys 2\n \t index 3 "
			       "ref 1 bind 1\n\t key #0  at ipv4+8: val 0a000000 mask "
			       "00ffffff\n\t key #1  at 12: val 12340000 mask 0000ffff\n"));
	cx_ok(&t.c, "-j filter show block 5");
	assert_non_null(strstr(t.c.out,
			       "\"kind\":\"pedit\",\"control_action\":{\"type\":\"pipe\"},"
			       "\"nkeys\":2,\"index\":3,\"ref\":1,\"bind\":1,\"keys\":[{"
			       "\"htype\":\"ipv4\",\"offset\":8,\"cmd\":\"set\",\"val\":"
			       "\"a000000\",\"mask\":\"ffffff\"},{\"htype\":\"network\","
			       "\"offset\":12,\"cmd\":\"set\",\"val\":\"12340000\",\"mask\":"
			       "\"ffff\"}],\"used_hw_stats\":[\"disabled\"]}"));
	assert_non_null(strstr(cx_rc(&t.c, 1,
				     "filter add block 5 matchall action pedit munge offset "
				     "2 u32 set 1"),
			       "pack_key32: 32 bit offsets must begin in 32bit boundaries\nBad "
			       "pedit construct ((null))\nUsage: ... pedit munge [ex]"));
	assert_non_null(strstr(cx_rc(&t.c, 1,
				     "filter add block 5 matchall action pedit munge ip ttl "
				     "add 1"),
			       "Non extended mode. only 'set' command is supported\nbad pedit "
			       "parsing\nBad pedit construct (ip)\n"));
	assert_non_null(strstr(cx_rc(&t.c, 2, "filter add block 5 matchall action pedit pass"),
			       "Error: act_pedit: Pedit requires keys to be passed."));
	at_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip_then_csum), cmocka_unit_test(test_raw),
		cmocka_unit_test(test_add),	     cmocka_unit_test(test_eth_ip6_tcp),
		cmocka_unit_test(test_bad_key),	     cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

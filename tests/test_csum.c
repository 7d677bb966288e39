// SPDX-License-Identifier: MIT
/* csum: checksums made wrong, then recomputed by the action and verified by the test's own
 * code; only what was asked for; Linux's odd cases (UDP without a checksum, a UDP length that
 * is not the packet's, a non-first fragment, a short frame) and the counts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "act_fixture.h"

static const struct flow udp4 = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0, 0, 100 };
static const struct flow tcp4 = { "10.1.0.1", "10.2.0.1", 1000, 80, 6, 0, 0, 120 };
static const struct flow udp6 = { "fd00::1", "fd00::2", 1000, 53, 0, 0, 0, 120 };
static const struct flow tcp6 = { "fd00::1", "fd00::2", 1000, 80, 6, 0, 0, 120 };
static const struct flow udp4v = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0, 7, 100 };

/* Spoil the IPv4 header's checksum and the transport's (at @l4 + @at). */
static void spoil(uint8_t *f, uint32_t nh, uint32_t at)
{
	f[nh + 10] ^= 0x5A;
	f[nh + at] ^= 0xA5;
}

static void test_ipv4(void **state)
{
	uint8_t f[256];
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action csum ip4h and udp or tcp");
	n = at_frame(&t, &udp4, f, sizeof(f));
	assert_true(t_ipv4_ok(f + 14)); /* the generator's frame is right to begin with */
	spoil(f, 14, 20 + 6);
	assert_false(t_ipv4_ok(f + 14));
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_true(t_ipv4_ok(p->data + 14));
	mqtx_pkt_free(p);
	n = at_frame(&t, &tcp4, f, sizeof(f));
	spoil(f, 14, 20 + 16);
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_true(t_ipv4_ok(p->data + 14));
	mqtx_pkt_free(p);
	/* behind a VLAN tag */
	n = at_frame(&t, &udp4v, f, sizeof(f));
	assert_int_equal(f[12], 0x81);
	spoil(f, 18, 20 + 6);
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_true(t_ipv4_ok(p->data + 18));
	mqtx_pkt_free(p);
	at_teardown(&t);
}

/* Only the checksums named: "udp" leaves the header's as it found it. */
static void test_only_asked(void **state)
{
	uint8_t f[256], g[256];
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action csum udp");
	n = at_frame(&t, &udp4, g, sizeof(g));
	memcpy(f, g, n);
	spoil(f, 14, 20 + 6);
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_int_equal(p->data[24], f[24]); /* still spoiled */
	assert_memory_equal(p->data + 34, g + 34, n - 34);
	mqtx_pkt_free(p);
	/* tcp does not touch a UDP datagram */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action csum tcp");
	p = at_pkt(&t, f, n);
	at_run(&t, p);
	assert_memory_equal(p->data, f, n);
	mqtx_pkt_free(p);
	at_teardown(&t);
}

static void test_ipv6(void **state)
{
	uint8_t f[256];
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action csum tcp udp");
	n = at_frame(&t, &udp6, f, sizeof(f));
	assert_true(t_ipv6_ok(f + 14));
	f[14 + 40 + 6] ^= 0x33;
	assert_false(t_ipv6_ok(f + 14));
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_true(t_ipv6_ok(p->data + 14));
	mqtx_pkt_free(p);
	n = at_frame(&t, &tcp6, f, sizeof(f));
	f[14 + 40 + 17] ^= 0x33;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_true(t_ipv6_ok(p->data + 14));
	mqtx_pkt_free(p);
	at_teardown(&t);
}

/* ICMP and SCTP: the frame's transport made one (its protocol number changed). */
static void test_icmp_sctp(void **state)
{
	uint8_t f[256];
	struct mqtx_pkt *p;
	uint32_t n, crc;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action csum icmp sctp iph");
	n = at_frame(&t, &udp4, f, sizeof(f));
	f[14 + 9] = 1;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_true(t_ok(t_sum(p->data + 14, 20, 0)));
	assert_true(t_ok(t_sum(p->data + 34, n - 34, 0)));
	mqtx_pkt_free(p);
	f[14 + 9] = 132;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	memcpy(f, p->data, n);
	memset(f + 34 + 8, 0, 4);
	crc = t_crc32c(f + 34, n - 34);
	assert_int_equal(p->data[42] | p->data[43] << 8 | p->data[44] << 16 |
				 (uint32_t)p->data[45] << 24,
			 crc);
	mqtx_pkt_free(p);
	at_teardown(&t);
}

/* Linux's odd cases. */
static void test_odd(void **state)
{
	uint8_t f[256], g[256];
	uint64_t pkts, drops;
	struct mqtx_pkt *p;
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action csum udp");
	n = at_frame(&t, &udp4, g, sizeof(g));
	/* an IPv4 UDP datagram without a checksum keeps none */
	memcpy(f, g, n);
	f[40] = f[41] = 0;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_memory_equal(p->data, f, n);
	mqtx_pkt_free(p);
	/* a UDP length that is not the packet's: the checksum is left 0 */
	memcpy(f, g, n);
	f[38] ^= 0x01;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_int_equal(p->data[40] | p->data[41], 0);
	mqtx_pkt_free(p);
	/* a non-first fragment has no transport header to sum */
	memcpy(f, g, n);
	f[14 + 7] = 0x10;
	f[40] ^= 0xFF;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_memory_equal(p->data, f, n);
	mqtx_pkt_free(p);
	/* a total length past the frame: dropped, as Linux drops what it cannot pull */
	memcpy(f, g, n);
	f[16] = 0x05;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_SHOT);
	mqtx_pkt_free(p);
	at_counts(&t, 1, &pkts, &drops);
	assert_int_equal(pkts, 4);
	assert_int_equal(drops, 1);
	/* not IP: nothing to do */
	memcpy(f, g, n);
	f[12] = 0x88;
	f[13] = 0xB5;
	p = at_pkt(&t, f, n);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_memory_equal(p->data, f, n);
	mqtx_pkt_free(p);
	at_teardown(&t);
}

static void test_words(void **state)
{
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action csum udp or tcp continue index 27 action "
		    "csum icmp ip4h sctp igmp udplite udp tcp");
	cx_ok(&t.c, "filter show block 5");
	assert_non_null(strstr(t.c.out,
			       "\taction order 1: csum (tcp, udp) action continue\n\tindex "
			       "27 ref 1 bind 1\n"));
	assert_non_null(strstr(t.c.out, "csum (iph, icmp, igmp, tcp, udp, udplite, sctp) action "
					"pass\n"));
	cx_ok(&t.c, "-j filter show block 5");
	assert_non_null(strstr(t.c.out,
			       "\"kind\":\"csum\",\"csum\":\"tcp, udp\",\"control_action\":"
			       "{\"type\":\"continue\"},\"index\":27"));
	assert_non_null(
		strstr(cx_rc(&t.c, 1, "filter add block 5 matchall action csum foobar"),
		       "Illegal csum construct, empty <UPDATE> list\nbad action parsing\n"));
	assert_non_null(
		strstr(cx_rc(&t.c, 1, "filter add block 5 matchall action csum udp index x"),
		       "Illegal \"index\" (x) <csum>\n"));
	at_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4), cmocka_unit_test(test_only_asked),
		cmocka_unit_test(test_ipv6), cmocka_unit_test(test_icmp_sctp),
		cmocka_unit_test(test_odd),  cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* vlan: the exact bytes of a frame after pop, push, modify, pop_eth and push_eth, the protocol
 * the next filter sees, frames without headroom, the drops Linux makes and their counts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "act_fixture.h"

static const struct flow udp1 = { "10.1.0.1", "10.2.0.1", 1000, 53 };

/* @a with the 4 bytes @tag inserted at offset 12. */
static uint32_t with_tag(const uint8_t *a, uint32_t n, const uint8_t tag[4], uint8_t *out)
{
	memcpy(out, a, 12);
	memcpy(out + 12, tag, 4);
	memcpy(out + 16, a + 12, n - 12);
	return n + 4;
}

static void expect(struct at *t, const uint8_t *in, uint32_t n, int verdict, const uint8_t *want,
		   uint32_t wn)
{
	struct mqtx_pkt *p = at_pkt(t, in, n);

	assert_int_equal(at_run(t, p), verdict);
	if (want) {
		assert_int_equal(p->len, wn);
		assert_memory_equal(p->data, want, wn);
	}
	mqtx_pkt_free(p);
}

static void test_push_pop(void **state)
{
	static const uint8_t q5[4] = { 0x81, 0x00, 0x60, 0x05 }; /* prio 3, vid 5 */
	static const uint8_t ad7[4] = { 0x88, 0xA8, 0x00, 0x07 };
	uint8_t f[256], g[256], h[256];
	uint64_t pkts, drops;
	uint32_t n, gn, hn;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp1, f, sizeof(f));
	gn = with_tag(f, n, q5, g);
	cx_ok(&t.c, "filter add block 5 matchall action vlan push id 5 priority 3");
	expect(&t, f, n, MQTX_ACT_OK, g, gn);
	/* a second push goes outside the first: 802.1ad over 802.1Q */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action vlan push id 7 "
		    "protocol 802.1ad");
	hn = with_tag(g, gn, ad7, h);
	expect(&t, g, gn, MQTX_ACT_OK, h, hn);
	/* pop takes the outer tag off; an untagged frame is left as it is */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action vlan pop");
	expect(&t, h, hn, MQTX_ACT_OK, g, gn);
	expect(&t, g, gn, MQTX_ACT_OK, f, n);
	expect(&t, f, n, MQTX_ACT_OK, f, n);
	at_counts(&t, 1, &pkts, &drops);
	assert_int_equal(pkts, 3);
	assert_int_equal(drops, 0);
	at_teardown(&t);
}

/* modify: the VID, the priority only when given, the TPID always; nothing without a tag. */
static void test_modify(void **state)
{
	static const uint8_t q5[4] = { 0x81, 0x00, 0x70, 0x05 };    /* prio 3, DEI, vid 5 */
	static const uint8_t q9[4] = { 0x81, 0x00, 0x70, 0x09 };    /* vid 9, the rest kept */
	static const uint8_t ad9p1[4] = { 0x88, 0xA8, 0x30, 0x09 }; /* prio 1, DEI, vid 9 */
	uint8_t f[256], g[256], h[256];
	uint32_t n, gn, hn;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp1, f, sizeof(f));
	gn = with_tag(f, n, q5, g);
	cx_ok(&t.c, "filter add block 5 matchall action vlan modify id 9");
	hn = with_tag(f, n, q9, h);
	expect(&t, g, gn, MQTX_ACT_OK, h, hn);
	expect(&t, f, n, MQTX_ACT_OK, f, n);
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action vlan modify id 9 "
		    "priority 1 protocol 802.1ad");
	hn = with_tag(f, n, ad9p1, h);
	expect(&t, g, gn, MQTX_ACT_OK, h, hn);
	at_teardown(&t);
}

/* After a push the next filter sees the tag's protocol; after a pop the frame's own. */
static void test_protocol_after(void **state)
{
	uint8_t f[256];
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp1, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 prio 1 matchall action vlan push id 5 continue");
	cx_ok(&t.c, "filter add block 5 prio 2 protocol 802.1Q matchall action drop");
	cx_ok(&t.c, "filter add block 5 prio 3 protocol ip matchall action pass");
	expect(&t, f, n, MQTX_ACT_SHOT, NULL, 0);
	cx_ok(&t.c, "filter replace block 5 prio 2 handle 1 protocol 802.1Q matchall action vlan "
		    "pop continue");
	expect(&t, f, n, MQTX_ACT_OK, f, n);
	at_teardown(&t);
}

/* pop_eth takes the Ethernet header off, push_eth puts one on with the packet's protocol; each
 * refuses the frame Linux's refuses (a drop): pop_eth of a tagged frame, push_eth over a
 * header. */
static void test_eth(void **state)
{
	static const uint8_t q5[4] = { 0x81, 0x00, 0x00, 0x05 };
	uint8_t f[256], g[256], h[256];
	uint64_t pkts, drops;
	uint32_t n, gn;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp1, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action vlan pop_eth action vlan push_eth dst_mac "
		    "0a:0b:0c:0d:0e:0f src_mac 1:2:3:4:5:6");
	memcpy(h, f, n);
	memcpy(h, "\x0a\x0b\x0c\x0d\x0e\x0f\x01\x02\x03\x04\x05\x06", 12);
	expect(&t, f, n, MQTX_ACT_OK, h, n);
	gn = with_tag(f, n, q5, g);
	expect(&t, g, gn, MQTX_ACT_SHOT, NULL, 0);
	at_counts(&t, 1, &pkts, &drops);
	assert_int_equal(pkts, 2);
	assert_int_equal(drops, 1);
	at_counts(&t, 2, &pkts, &drops);
	assert_int_equal(pkts, 1);
	assert_int_equal(drops, 0);
	/* pop_eth alone leaves the IP packet */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action vlan pop_eth");
	expect(&t, f, n, MQTX_ACT_OK, f + 14, n - 14);
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action vlan push_eth "
		    "dst_mac 0a:0b:0c:0d:0e:0f src_mac 1:2:3:4:5:6");
	expect(&t, f, n, MQTX_ACT_SHOT, NULL, 0);
	at_teardown(&t);
}

/* Without headroom the tag goes in through the tailroom; without either the frame is dropped
 * (Linux's push that cannot allocate). */
static void test_no_room(void **state)
{
	static const uint8_t q5[4] = { 0x81, 0x00, 0x00, 0x05 };
	uint8_t f[256], g[256];
	struct mqtx_pkt *p;
	uint32_t n, gn, room;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp1, f, sizeof(f));
	gn = with_tag(f, n, q5, g);
	cx_ok(&t.c, "filter add block 5 matchall action vlan push id 5");
	p = mqtx_pkt_alloc(t.c.pool);
	mqtx_pkt_push(p, mqtx_pkt_headroom(p));
	p->len = 0;
	memcpy(mqtx_pkt_put(p, n), f, n);
	assert_int_equal(mqtx_pkt_headroom(p), 0);
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_int_equal(p->len, gn);
	assert_memory_equal(p->data, g, gn);
	/* a full buffer */
	p->len = 0;
	room = mqtx_pkt_tailroom(p);
	memset(mqtx_pkt_put(p, room), 0, room);
	memcpy(p->data, f, 14);
	assert_int_equal(at_run(&t, p), MQTX_ACT_SHOT);
	assert_int_equal(p->len, room);
	mqtx_pkt_free(p);
	at_teardown(&t);
}

/* Through a device: the egress hook pushes the tag before the queue is chosen, so the queue
 * sends and counts the longer frame; a pop_eth without push_eth is counted as a filter drop. */
static void test_device(void **state)
{
	uint8_t f[256];
	uint32_t n;
	struct at t;

	(void)state;
	at_setup(&t);
	n = at_frame(&t, &udp1, f, sizeof(f));
	cx_ok(&t.c, "filter add block 5 matchall action vlan push id 5");
	assert_int_equal(cx_send(&t.c, t.c.dev, &udp1, 10), 10);
	assert_int_equal(cx_stats(t.c.dev).txq.packets, 10);
	assert_int_equal(cx_stats(t.c.dev).txq.bytes, 10 * (n + 4));
	cx_ok(&t.c,
	      "filter replace block 5 pref 49152 handle 1 matchall action vlan pop_eth action "
	      "vlan pop_eth");
	assert_int_equal(cx_send(&t.c, t.c.dev, &udp1, 3), 0);
	assert_int_equal(cx_stats(t.c.dev).txq.drops[MQTX_DROP_FILTER], 3);
	cx_conserved(t.c.dev);
	at_teardown(&t);
}

/* What tc reads and prints, and what the kernel refuses after tc has read every word. */
static void test_words(void **state)
{
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action vlan push id 4094 protocol 802.1AD pass "
		    "index 10 action vlan modify id 1 action vlan push_eth dst_mac 1:2:3:4:5:6 "
		    "src_mac a:b:c:d:e:f");
	cx_ok(&t.c, "filter show block 5");
	assert_non_null(strstr(t.c.out, "\taction order 1: vlan  push id 4094 protocol 802.1ad "
					"priority 0 pass\n\t index 10 ref 1 bind 1\n"));
	assert_non_null(strstr(t.c.out, "vlan  modify id 1 protocol 802.1Q pipe\n"));
	assert_non_null(strstr(t.c.out, "vlan  push_eth dst_mac 01:02:03:04:05:06 src_mac "
					"0a:0b:0c:0d:0e:0f pipe\n"));
	cx_ok(&t.c, "-j filter show block 5");
	assert_non_null(strstr(t.c.out, "{\"order\":1,\"kind\":\"vlan\",\"vlan_action\":\"push\","
					"\"id\":4094,\"protocol\":\"802.1ad\",\"priority\":0,"
					"\"control_action\":{\"type\":\"pass\"},\"index\":10,"));
	assert_non_null(strstr(cx_rc(&t.c, 2,
				     "filter add block 5 matchall action vlan push id 4095 "
				     "action pass"),
			       "RTNETLINK answers: Numerical result out of range"));
	/* the next words are read before the kernel is asked: tc's error comes first */
	assert_non_null(strstr(cx_rc(&t.c, 255,
				     "filter add block 5 matchall action vlan push id 4095 "
				     "action gact bogus"),
			       "Bad action type bogus"));
	assert_non_null(strstr(cx_rc(&t.c, 1, "filter add block 5 matchall action vlan pop push"),
			       "unexpected \"push\" - action already specified\nUsage: vlan pop"));
	assert_non_null(strstr(cx_rc(&t.c, 255,
				     "filter add block 5 matchall action vlan push id 5 "
				     "priority 8"),
			       "Error: argument \"8\" is wrong: prio is invalid"));
	assert_non_null(strstr(cx_rc(&t.c, 1, "filter add block 5 matchall action vlan modify"),
			       "id needs to be set for modify"));
	cx_ok(&t.c, "filter show block 5");
	assert_null(strstr(t.c.out, "4095"));
	at_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_pop),       cmocka_unit_test(test_modify),
		cmocka_unit_test(test_protocol_after), cmocka_unit_test(test_eth),
		cmocka_unit_test(test_no_room),	       cmocka_unit_test(test_device),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* u32 and basic: each u32 selector on frames of the generator's builder (and on frames edited
 * to be fragments), the order of u32's nodes, marks; basic's meta matches with and/or/not and
 * parentheses, evaluated left to right. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"

#define L3 14 /* the network header of an untagged frame */

/* A packet of @f with @mark and @priority. */
static struct mqtx_pkt *marked(struct cx *c, const struct flow *f, uint32_t mark, uint32_t prio)
{
	struct mqtx_pkt *p = cx_pkt(c, f, 0);

	p->mark = mark;
	p->priority = prio;
	return p;
}

static const struct flow udp4 = { "10.0.0.1", "10.0.1.2", 4000, 53, 17 };

static void test_u32_ip(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip u32 match ip dst 10.0.1.0/24 match ip dport 80 0xffff "
	       "flowid 1:1");
	add(b, "prio 2 protocol ip u32 match ip src 10.0.0.1/32 match ip protocol 17 0xff "
	       "flowid 1:2");
	add(b, "prio 3 protocol ip u32 match ip tos 0xb8 0xfc flowid 1:3");
	/* tcp dst is at the next header: the offset a link computes from the IHL */
	add(b, "prio 4 protocol ip handle 1: u32 divisor 1");
	add(b, "prio 4 protocol ip u32 ht 1: match tcp dst 443 0xffff flowid 1:4");
	add(b, "prio 4 protocol ip u32 match ip protocol 6 0xff offset at 0 mask 0f00 shift 6 "
	       "eat link 1:");
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.1.7", 1, 80, 6 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.2.7", 1, 80, 6 }), NOMATCH);
	assert_int_equal(cls(&c, b, &udp4), 2);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.2.7", 1, 80, 6 }), NOMATCH);
	/* EF: dscp 46, tos 0xb8, ECN bits masked off */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.2.7", 1, 2, 6, 0xb9 }), 3);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.2.7", 1, 2, 6, 0xa0 }),
			 NOMATCH);
	/* tcp dst: the next header, found by the link's offset */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.2.7", 1, 443, 6 }), 4);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.2.7", 1, 444, 6 }), NOMATCH);
	/* the link asks for TCP: UDP to 443 stays out */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.0.2.7", 1, 443, 17 }), NOMATCH);
	/* "protocol ip": an IPv6 frame meets none of them */
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "fd00::7", 1, 443, 6 }), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_u32_ip6_and_raw(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ipv6 u32 match ip6 dst fd00:1::/64 match ip6 protocol 6 0xff "
	       "flowid 1:1");
	add(b, "prio 2 protocol ipv6 u32 match ip6 src fd00::5/128 flowid 1:2");
	add(b, "prio 3 protocol ipv6 u32 match ip6 priority 0x20 0xfc flowid 1:3");
	/* ports as raw words at the next header: dport as u16 at 2, sport in the word at 0; the
	 * next header is where the links say: after the IHL for IPv4 (no eat: nexthdr+ keys add
	 * the offset), 40 bytes on for IPv6 */
	add(b, "prio 4 protocol all handle 4: u32 divisor 1");
	add(b, "prio 4 protocol all u32 ht 4: match u16 53 0xffff at nexthdr+2 flowid 1:4");
	add(b, "prio 4 protocol all u32 match u8 0x40 0xf0 at 0 offset at 0 mask 0f00 shift 6 "
	       "link 4:");
	add(b, "prio 4 protocol all u32 match u8 0x60 0xf0 at 0 offset plus 40 link 4:");
	add(b, "prio 5 protocol all handle 5: u32 divisor 1");
	add(b, "prio 5 protocol all u32 ht 5: match u32 0x0fa00000 0xffff0000 at nexthdr+0 "
	       "flowid 1:5");
	add(b, "prio 5 protocol all u32 match u8 0x40 0xf0 at 0 offset at 0 mask 0f00 shift 6 "
	       "link 5:");
	/* ip protocol as a byte at offset 9 of the network header */
	add(b, "prio 6 protocol ip u32 match u8 6 0xff at 9 flowid 1:6");
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "fd00:1::7", 1, 2, 6 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "fd00:1::7", 1, 2, 17 }), NOMATCH);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::5", "fd00:2::7", 1, 2, 6 }), 2);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::6", "fd00:2::7", 1, 2, 6, 0x22 }), 3);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 53, 17 }), 4);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.0.2", 4000, 54, 17 }), 5);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.0.2", 4001, 54, 6 }), 6);
	/* the same ports for both: prio 4 first */
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::6", "fd00:2::7", 4000, 53, 17 }), 4);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* Filters of one priority are tried in the order of their nodes, not of their adding. */
static void test_u32_node_order(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip handle 800::900 u32 match ip dst 10.0.1.0/24 flowid 1:9");
	add(b, "prio 1 protocol ip handle 800::10 u32 match ip dst 10.0.0.0/8 flowid 1:1");
	assert_int_equal(cls(&c, b, &udp4), 1);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 800::10 u32"), 0);
	assert_int_equal(cls(&c, b, &udp4), 9);
	/* the next automatic node is the lowest free from 800 (gen_new_kid()) */
	add(b, "prio 1 protocol ip u32 match ip dst 10.0.1.2/32 flowid 1:2");
	assert_int_equal(cls(&c, b, &udp4), 2);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 800::800 u32"), 0);
	assert_int_equal(cls(&c, b, &udp4), 9);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 800::900 u32"), 0);
	assert_int_equal(cls(&c, b, &udp4), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static struct mqtx_pkt *fragment(struct cx *c, uint16_t frag)
{
	struct mqtx_pkt *p = cx_pkt(c, &udp4, 0);

	p->data[L3 + 6] = (uint8_t)(frag >> 8);
	p->data[L3 + 7] = (uint8_t)frag;
	return p;
}

static void test_u32_frag_and_mark(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip u32 match ip nofrag flowid 1:1");
	add(b, "prio 2 protocol ip u32 match ip firstfrag flowid 1:2");
	add(b, "prio 3 protocol ip u32 match ip mf match ip df flowid 1:3");
	add(b, "prio 5 protocol ip u32 match ip protocol 17 0xff flowid 1:5");
	assert_int_equal(cls_pkt(b, fragment(&c, 0)), 1);
	/* nofrag is MF clear and offset 0: DF does not matter */
	assert_int_equal(cls_pkt(b, fragment(&c, 0x4000)), 1);
	assert_int_equal(cls_pkt(b, fragment(&c, 0x2000)), 2); /* MF, offset 0 */
	assert_int_equal(cls_pkt(b, fragment(&c, 0x6000)), 2); /* firstfrag before df+mf */
	assert_int_equal(cls_pkt(b, fragment(&c, 0x0010)), 5); /* a later fragment */
	assert_int_equal(cls_pkt(b, fragment(&c, 0x6010)), 3);
	mqtx_tcf_block_put(b);

	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol all u32 match mark 0x10 0xf0 flowid 1:1");
	add(b, "prio 2 protocol all u32 match mark 7 0xff match ip dport 53 0xffff flowid 1:2");
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0x1f, 0)), 1);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0x20, 0)), NOMATCH);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0x107, 0)), 2);
	assert_int_equal(
		cls_pkt(b, marked(&c, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 54, 17 }, 7, 0)),
		NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* Without a class or actions a u32 node only links (here: nowhere) and never ends the search. */
static void test_u32_actions(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip u32 match ip dst 10.0.1.2/32");
	add(b, "prio 2 protocol ip u32 match ip dport 53 0xffff action drop");
	add(b, "prio 3 protocol ip u32 match u32 0 0 at 0 flowid 1:3");
	assert_int_equal(cls(&c, b, &udp4), DROPPED);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 54, 17 }), 3);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_u32_refused(void **state)
{
	static const char *const bad[] = {
		"prio 1 protocol ip u32 match ip dst 10.0.0.0/33 flowid 1:1",
		"prio 1 protocol ip u32 match ip dport 70000 0xffff flowid 1:1",
		"prio 1 protocol ip u32 match ip src 10.0.0.1 match ip src 10.0.0.2 flowid 1:1",
		"prio 1 protocol ip u32 match u16 1 0xffff at 3 flowid 1:1",
		"prio 1 protocol ip u32 match u32 1 1 at 2 flowid 1:1",
		"prio 1 protocol ip u32 match ip bogus 1 1 flowid 1:1",
		"prio 1 protocol ip u32 match udp dport 1 0xffff flowid 1:1",
		"prio 1 protocol ip u32 divisor 3",
		"prio 1 protocol ip u32 divisor 512",
		"prio 1 protocol ip u32 ht 801: match ip src 1.1.1.1 flowid 1:1",
		"prio 1 protocol ip u32 ht 800:1: match ip src 1.1.1.1 flowid 1:1",
		"prio 1 protocol ip handle 801::1 u32 match ip src 1.1.1.1 flowid 1:1",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 flowid 1:1 offset at 1",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 offset shift 16 link 5:",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 link 800:",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 link 5:",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 link 5:0:1",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 hashkey mask ff at 2 flowid 1:1",
		"prio 1 protocol ip u32 match ip src 1.1.1.1 skip_sw flowid 1:1",
		"prio 1 protocol ip u32 ht 800: classid 1:1",
		"prio 1 protocol ip handle 800: u32 divisor 1",
		"prio 1 protocol ip u32 sample ip src 1.1.1.1 match ip src 1.1.1.1 flowid 1:1",
	};
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(change(b, MQTX_TCF_ADD, bad[i]), 0);
	/* nothing was added */
	assert_int_equal(cls(&c, b, &udp4), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_basic_meta(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol all basic match meta(priority eq 5) classid 1:1");
	add(b, "prio 2 protocol all basic match meta(nf_mark gt 100) and meta(nf_mark lt 200) "
	       "classid 1:2");
	add(b, "prio 3 protocol all basic match not meta(priority eq 0) or meta(nf_mark eq 1) "
	       "classid 1:3");
	add(b, "prio 4 protocol all basic match meta(nf_mark mask 0xf0 eq 0x30) classid 1:4");
	add(b, "prio 5 protocol all basic match meta(nf_mark shift 8 eq 2) classid 1:5");
	add(b, "prio 6 protocol all basic classid 1:6");
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 5)), 1);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 150, 0)), 2);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 200, 0)), 6);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 4)), 3);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 1, 0)), 3);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0x3a, 0)), 4);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0x2ff, 0)), 5);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 0)), 6);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* "a or b and c" is ((a or b) and c), left to right; parentheses group. */
static void test_basic_order(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol all basic match meta(priority eq 1) or meta(priority eq 2) and "
	       "meta(nf_mark eq 9) classid 1:1");
	add(b, "prio 2 protocol all basic match meta(priority eq 3) or ( meta(priority eq 4) and "
	       "meta(nf_mark eq 9) ) classid 1:2");
	add(b, "prio 3 protocol all basic match not ( meta(pkt_len lt 1000) ) classid 1:3");
	/* a true "or" ends the sequence: 1 matches whatever the mark */
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 1)), 1);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 9, 2)), 1);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 2)), NOMATCH);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 3)), 2);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 9, 4)), 2);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 4)), NOMATCH);
	assert_int_equal(
		cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.2", 1, 2, 17, 0, -1, 1200 }), 3);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_basic_refused(void **state)
{
	static const char *const bad[] = {
		"prio 1 protocol all basic match meta(priority eq) classid 1:1",
		"prio 1 protocol all basic match meta(colour eq 1) classid 1:1",
		"prio 1 protocol all basic match meta(priority eq 1 classid 1:1",
		"prio 1 protocol all basic match meta(priority eq 1) and classid 1:1",
		"prio 1 protocol all basic match ( meta(priority eq 1) classid 1:1",
		"prio 1 protocol all basic match cmp(u8 eq 1) classid 1:1",
		"prio 1 protocol all basic police rate 1mbit burst 10k",
		"prio 1 protocol all handle x basic classid 1:1",
	};
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(change(b, MQTX_TCF_ADD, bad[i]), 0);
	assert_int_equal(cls_pkt(b, marked(&c, &udp4, 0, 1)), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u32_ip),	       cmocka_unit_test(test_u32_ip6_and_raw),
		cmocka_unit_test(test_u32_node_order), cmocka_unit_test(test_u32_frag_and_mark),
		cmocka_unit_test(test_u32_actions),    cmocka_unit_test(test_u32_refused),
		cmocka_unit_test(test_basic_meta),     cmocka_unit_test(test_basic_order),
		cmocka_unit_test(test_basic_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

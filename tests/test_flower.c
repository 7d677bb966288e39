// SPDX-License-Identifier: MIT
/* flower: every key with its mask, ranges and flags, on frames of the generator's builder;
 * several masks in one priority; a thousand filters of one mask and of as many masks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"

static const struct flow tcp4 = { "10.0.0.1", "10.0.0.2", 40000, 1, 6 };

static void test_ipv4_tuple(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip flower dst_ip 10.8.0.0/16 ip_proto tcp dst_port 80 classid 1:1");
	add(b, "prio 2 protocol ip flower src_ip 10.0.0.1 ip_proto udp classid 1:2");
	add(b, "prio 3 protocol ip flower ip_proto tcp dst_port 8000/0xff00 classid 1:3");
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.8.3.4", 40000, 80, 6 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.9.3.4", 40000, 80, 6 }),
			 NOMATCH);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.8.3.4", 40000, 80, 17 }), 2);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.2", "10.8.3.4", 40000, 81, 17 }),
			 NOMATCH);
	/* 8000/0xff00 is 0x1f00..0x1fff */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.1.1.1", 1, 0x1f42, 6 }), 3);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.9", "10.1.1.1", 1, 0x2042, 6 }),
			 NOMATCH);
	/* an IPv6 frame is not "protocol ip" */
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::1", "fd00::2", 40000, 80, 6 }), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_ipv6_ranges(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ipv6 flower dst_ip 2001:db8::/32 ip_proto udp src_port 1000-2000 "
	       "classid 1:1");
	add(b, "prio 1 protocol ipv6 flower dst_ip 2001:db8::/32 ip_proto udp src_port 3000-4000 "
	       "dst_port 53 classid 1:2");
	add(b, "prio 2 protocol ipv6 flower src_ip fd00::1/128 classid 1:3");
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "2001:db8::1", 1000, 1, 0 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "2001:db8:5::1", 2000, 1, 0 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "2001:db8::1", 2001, 1, 0 }),
			 NOMATCH);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "2001:db8::1", 3500, 53, 0 }), 2);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::9", "2001:db8::1", 3500, 54, 0 }),
			 NOMATCH);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::1", "2001:db9::1", 1, 1, 0 }), 3);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::1", "2001:db8::1", 1500, 1, 0 }), 1);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* The outer tag's id and priority, the type inside it, addresses of the frame. */
static void test_vlan_mac(void **state)
{
	struct mqtx_tcf_block *b;
	struct mqtx_pkt *p;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol 802.1q flower vlan_id 5 vlan_prio 3 classid 1:1");
	add(b, "prio 2 protocol 802.1q flower vlan_id 5 vlan_ethtype ipv4 dst_ip 10.2.0.0/16 "
	       "classid 1:2");
	add(b, "prio 3 protocol ip flower src_mac 02:00:00:00:00:01 dst_mac 02:00:00:00:00:00/40 "
	       "classid 1:3");
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.2.0.1", 1, 1, 0, 0, 5 }, 0);
	assert_int_equal(cls_pkt(b, p), 2); /* priority 0 */
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.2.0.1", 1, 1, 0, 0, 5 }, 0);
	p->data[14] |= 3 << 5;
	assert_int_equal(cls_pkt(b, p), 1);
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.3.0.1", 1, 1, 0, 0, 6 }, 0);
	assert_int_equal(cls_pkt(b, p), NOMATCH);
	/* the generator's addresses: 02:..:01 sends to 02:..:02, inside the /40 */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.3.0.1", 1, 1, 0 }), 3);
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.3.0.1", 1, 1, 0 }, 0);
	p->data[4] = 1; /* dst 02:00:00:00:01:02 */
	assert_int_equal(cls_pkt(b, p), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* tos with a DSCP mask, ttl, tcp flags, fragments. */
static void test_tos_ttl_flags_frag(void **state)
{
	struct mqtx_tcf_block *b;
	struct mqtx_pkt *p;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip flower ip_tos 0xb8/0xfc classid 1:1"); /* DSCP 46 */
	add(b, "prio 2 protocol ip flower ip_ttl 1 classid 1:2");
	add(b, "prio 3 protocol ip flower ip_proto tcp tcp_flags 0x2/0x12 classid 1:3"); /* SYN */
	add(b, "prio 4 protocol ip flower ip_flags frag/nofirstfrag classid 1:4");
	add(b, "prio 5 protocol ip flower ip_flags firstfrag classid 1:5");
	add(b, "prio 6 protocol ipv6 flower ip_tos 0x20/0xe0 classid 1:6");
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 1, 0, 0xb9 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 1, 0, 0xb4 }),
			 NOMATCH);
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 1, 0 }, 0);
	p->data[14 + 8] = 1;
	assert_int_equal(cls_pkt(b, p), 2);
	p = cx_pkt(&c, &tcp4, 0);
	assert_int_equal(cls_pkt(b, p), NOMATCH); /* PSH|ACK */
	p = cx_pkt(&c, &tcp4, 0);
	p->data[14 + 20 + 13] = 0x02; /* SYN */
	assert_int_equal(cls_pkt(b, p), 3);
	p = cx_pkt(&c, &tcp4, 0);
	p->data[14 + 20 + 13] = 0x12; /* SYN|ACK: the mask takes ACK */
	assert_int_equal(cls_pkt(b, p), NOMATCH);
	/* a later fragment (offset 8), then a first one (MF, offset 0) */
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 1, 0 }, 0);
	p->data[14 + 6] = 0x00;
	p->data[14 + 7] = 0x01;
	assert_int_equal(cls_pkt(b, p), 4);
	p = cx_pkt(&c, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 1, 0 }, 0);
	p->data[14 + 6] = 0x20;
	assert_int_equal(cls_pkt(b, p), 5);
	assert_int_equal(cls(&c, b, &(struct flow){ "fd00::1", "fd00::2", 1, 1, 0, 0x2a }), 6);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* One priority, several masks: each mask its own table; the mask of the lowest handle first. */
static void test_masks_in_one_prio(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 handle 1 protocol ip flower dst_ip 10.0.0.0/8 classid 1:1");
	add(b, "prio 1 handle 2 protocol ip flower dst_ip 10.1.0.0/16 classid 1:2");
	add(b, "prio 1 handle 3 protocol ip flower dst_ip 10.1.2.3 classid 1:3");
	add(b, "prio 1 handle 4 protocol ip flower dst_ip 11.0.0.0/8 classid 1:4");
	assert_int_equal(cls(&c, b, &(struct flow){ "1.1.1.1", "10.1.2.3", 1, 1, 0 }), 1);
	assert_int_equal(cls(&c, b, &(struct flow){ "1.1.1.1", "11.1.2.3", 1, 1, 0 }), 4);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 handle 1 flower"), 0);
	assert_int_equal(cls(&c, b, &(struct flow){ "1.1.1.1", "10.1.2.3", 1, 1, 0 }), 2);
	assert_int_equal(cls(&c, b, &(struct flow){ "1.1.1.1", "10.9.2.3", 1, 1, 0 }), NOMATCH);
	/* the same key and mask twice is refused; another handle with another key is not */
	assert_int_equal(change(b, MQTX_TCF_ADD, "prio 1 protocol ip flower dst_ip 11.0.0.0/8"),
			 -EEXIST);
	assert_int_equal(change(b, MQTX_TCF_REPLACE,
				"prio 1 handle 4 protocol ip flower dst_ip 11.0.0.0/8 classid 1:7"),
			 0);
	assert_int_equal(cls(&c, b, &(struct flow){ "1.1.1.1", "11.1.2.3", 1, 1, 0 }), 7);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* A thousand filters of one mask, and of a thousand masks: each flow finds its own. */
static void test_thousand(void **state)
{
	struct mqtx_tcf_block *one, *many;
	char line[160], dst[32];
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &one), 0);
	assert_int_equal(mqtx_tcf_block_get(0, &many), 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line),
			 "prio 1 protocol ip flower dst_ip 10.%d.%d.1 classid 1:%x", i / 256,
			 i % 256, i + 1);
		add(one, line);
		/* dst_ip /1../32 with src_ip /1../32: a distinct mask each */
		snprintf(line, sizeof(line),
			 "prio 1 protocol ip flower dst_ip 10.%d.%d.1/%d src_ip 1.1.1.1/%d "
			 "classid 1:%x",
			 i / 256, i % 256, 32 - i % 31, 32 - i / 31, i + 1);
		add(many, line);
	}
	for (int i = 0; i < 1000; i += 7) {
		snprintf(dst, sizeof(dst), "10.%d.%d.1", i / 256, i % 256);
		assert_int_equal(cls(&c, one, &(struct flow){ "1.1.1.1", dst, 1, 1, 0 }), i + 1);
	}
	assert_int_equal(cls(&c, one, &(struct flow){ "1.1.1.1", "10.200.0.1", 1, 1, 0 }), NOMATCH);
	/* in "many" the masks are tried in the order of their filters' handles: the first one's
	 * /32 takes 10.0.0.1; every dst prefix is 10/2 or narrower */
	assert_int_equal(cls(&c, many, &(struct flow){ "1.1.1.1", "10.0.0.1", 1, 1, 0 }), 1);
	assert_int_equal(cls(&c, many, &(struct flow){ "1.1.1.1", "200.0.0.1", 1, 1, 0 }), NOMATCH);
	mqtx_tcf_block_put(one);
	mqtx_tcf_block_put(many);
	cx_teardown(&c);
}

/* tc's checks and messages, through the command language. */
static void test_words(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_rc(&c, 1, "filter add dev eth0 egress flower dst_ip 10.0.0.1");
	assert_string_equal(c.out, "Illegal \"dst_ip\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower dst_ip 10.0.0.1/33");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower dst_ip fd00::1");
	assert_string_equal(c.out, "Error: inet prefix is expected rather than \"fd00::1\".\n");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower dst_port 80");
	assert_string_equal(c.out, "Illegal \"dst_port\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower ip_proto tcp dst_port 90-80");
	assert_string_equal(c.out,
			    "max value should be greater than min value\nIllegal \"dst_port\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower ip_proto icmpv6");
	assert_string_equal(c.out, "Illegal \"eth_type\" for ip proto\nIllegal \"ip_proto\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress flower vlan_id 5");
	assert_string_equal(c.out, "Can't set \"vlan_id\" if ethertype isn't 802.1Q or 802.1AD\n");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol 802.1q flower vlan_id 5000");
	assert_string_equal(c.out, "Illegal \"vlan_id\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower tcp_flags 0x1000");
	cx_rc(&c, 1, "filter add dev eth0 egress protocol ip flower ip_flags frag/bogus");
	assert_string_equal(c.out, "Illegal \"ip_flags\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress flower dst_mac 02:00:00:00:00");
	assert_string_equal(c.out, "Illegal \"dst_mac\"\n");
	cx_rc(&c, 2, "filter add dev eth0 egress protocol arp flower arp_tip 10.0.0.1");
	assert_non_null(strstr(c.out, "\"arp_tip\" is not supported"));
	cx_rc(&c, 1, "filter add dev eth0 egress flower bogus");
	assert_true(!strncmp(c.out, "What is \"bogus\"?\nUsage: ... flower", 34));
	cx_rc(&c, 1, "filter add dev eth0 egress flower action skbedit what");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 4 flower ip_proto tcp dst_port 80");
	cx_rc(&c, 2,
	      "filter add dev eth0 egress protocol ip prio 4 flower ip_proto tcp dst_port 80");
	assert_string_equal(
		c.out, "Error: Filters 0x1 and 0x2 of this priority have the same key and mask.\n"
		       "We have an error talking to the kernel\n");
	cx_ok(&c, "filter show dev eth0 egress");
	assert_string_equal(c.out, "filter protocol ip pref 4 flower chain 0 \n"
				   "filter protocol ip pref 4 flower chain 0 handle 0x1 \n"
				   "  eth_type ipv4\n"
				   "  ip_proto tcp\n"
				   "  dst_port 80\n"
				   "  not_in_hw\n");
	cx_teardown(&c);
}

/* Drops by a flower filter, through clsact, on the device's counters. */
static void test_drop_counts(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress protocol ip flower ip_proto udp dst_port 53 "
		  "action drop");
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 9, 53 }, 10),
			 0);
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 9, 54 }, 10),
			 10);
	assert_int_equal(cx_stats(c.dev).txq.drops[MQTX_DROP_FILTER], 10);
	cx_conserved(c.dev);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "  not_in_hw (rule hit 10)\n"));
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_tuple),
		cmocka_unit_test(test_ipv6_ranges),
		cmocka_unit_test(test_vlan_mac),
		cmocka_unit_test(test_tos_ttl_flags_frag),
		cmocka_unit_test(test_masks_in_one_prio),
		cmocka_unit_test(test_thousand),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_drop_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

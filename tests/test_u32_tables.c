// SPDX-License-Identifier: MIT
/* u32's hash tables and links (the bucket a hash key picks, offsets with and without eat, the
 * stack's depth, deletions), their counters with exact counts through a device, and basic's
 * ematches (cmp, u32, nbyte, text, meta) on frames of the generator's builder. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"

#define L3 14 /* the network header of an untagged frame */
#define L4 34 /* its UDP header (IHL 5) */

/* A UDP flow from 10.0.0.1 port 4000. */
#define TO(dst, dport) (&(struct flow){ "10.0.0.1", (dst), 4000, (dport), 17 })

/* A table of 256 buckets hashed on the destination's last byte, reached through a node that
 * eats the IP header: each bucket's nodes see the UDP header at offset 0. */
static void hash_setup(struct mqtx_tcf_block *b)
{
	add(b, "prio 1 protocol ip handle 2: u32 divisor 256");
	add(b, "prio 1 protocol ip u32 ht 800:: match ip protocol 17 0xff hashkey mask 0x000000ff "
	       "at 16 offset at 0 mask 0f00 shift 6 eat link 2:");
	/* sample puts each node in the bucket of its address, as tc computes it */
	add(b, "prio 1 protocol ip u32 ht 2: sample ip dst 10.0.1.2 match udp dst 53 0xffff "
	       "flowid 1:5");
	add(b, "prio 1 protocol ip u32 ht 2: sample ip dst 10.0.1.7 match udp dst 54 0xffff "
	       "flowid 1:6");
	add(b, "prio 1 protocol ip u32 ht 2:7: match u16 0 0 at 0 flowid 1:7");
}

static void test_hash_buckets(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	hash_setup(b);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.2", 1, 53, 17 }), 5);
	/* bucket 7 tries 54 first, then the node that takes all */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.7", 1, 54, 17 }), 6);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.7", 1, 53, 17 }), 7);
	/* bucket 2's node wants 53; bucket 3 is empty; TCP never follows the link */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.2", 1, 54, 17 }), NOMATCH);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.3", 1, 53, 17 }), NOMATCH);
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.0.1.2", 1, 53, 6 }), NOMATCH);
	/* the same address in another /24 lands in the same bucket */
	assert_int_equal(cls(&c, b, &(struct flow){ "10.0.0.1", "10.9.9.2", 1, 53, 17 }), 5);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* A node that links is itself terminal after its table yields nothing (u32_classify's pop). */
static void test_link_then_terminal(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip handle 3: u32 divisor 1");
	add(b, "prio 1 protocol ip u32 ht 3: match u16 53 0xffff at nexthdr+2 flowid 1:3");
	/* without eat: the offset goes to the nexthdr+ keys only */
	add(b, "prio 1 protocol ip u32 match ip protocol 17 0xff offset at 0 mask 0f00 shift 6 "
	       "link 3: flowid 1:9");
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), 3);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 54)), 9);
	/* offset plus: a fixed 20 bytes, as the IHL of these frames says */
	add(b, "prio 2 protocol ip handle 4: u32 divisor 1");
	add(b, "prio 2 protocol ip u32 ht 4: match u16 54 0xffff at nexthdr+2 flowid 1:4");
	add(b, "prio 2 protocol ip u32 match ip protocol 17 0xff offset plus 20 link 4:");
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 54)), 9); /* prio 1 still ends it */
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip"), 0);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 54)), 4);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), NOMATCH);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* A table that links to itself: the walk stops at a depth of 8 and the priority matches nothing,
 * as Linux's "dead loop"; the next priority still classifies. */
static void test_depth_limit(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip handle 1: u32 divisor 1");
	add(b, "prio 1 protocol ip u32 ht 1: match u8 0 0 at 0 link 1:");
	add(b, "prio 1 protocol ip u32 match u8 0 0 at 0 link 1:");
	add(b, "prio 1 protocol ip u32 match u8 0 0 at 0 flowid 1:1");
	add(b, "prio 2 protocol ip u32 match u8 0 0 at 0 flowid 1:2");
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), 2);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_deletions(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	hash_setup(b);
	/* the root table stays; a table a node links to stays */
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 800: u32"), -EINVAL);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 2: u32"), -EBUSY);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), 5);
	/* the linking node goes; then the table, and its nodes with it */
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 800::800 u32"), 0);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), NOMATCH);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 2: u32"), 0);
	assert_int_equal(change(b, MQTX_TCF_DELETE, "prio 1 protocol ip handle 2:2:800 u32"),
			 -ENOENT);
	/* the table's handle is free again; a node can't be added to a table that is gone */
	assert_int_not_equal(change(b, MQTX_TCF_ADD,
				    "prio 1 protocol ip u32 ht 2: match u8 0 0 "
				    "flowid 1:1"),
			     0);
	add(b, "prio 1 protocol ip handle 2: u32 divisor 16");
	add(b, "prio 1 protocol ip u32 ht 2:f: match u8 0 0 flowid 1:1");
	assert_int_not_equal(change(b, MQTX_TCF_ADD,
				    "prio 1 protocol ip u32 ht 2:10: match u8 0 0 "
				    "flowid 1:1"),
			     0);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* Six tables, 1: to 6:, of @nodes nodes each, into @b. */
static void add_tables(struct mqtx_tcf_block *b, unsigned nodes)
{
	char w[96];

	for (unsigned t = 1; t <= 6; t++) {
		snprintf(w, sizeof(w), "prio 1 protocol ip handle %u: u32 divisor 1", t);
		add(b, w);
		for (unsigned n = 1; n <= nodes; n++) {
			snprintf(w, sizeof(w),
				 "prio 1 protocol ip handle %u:0:%u u32 ht %u: match u8 0 0 flowid "
				 "1:1",
				 t, n, t);
			add(b, w);
		}
	}
}

/* Deleting one table takes its nodes and no other table's, wherever it sits among them. */
static void test_table_deletion_keeps_others(void **state)
{
	static const unsigned sizes[] = { 3, 13 };
	char w[96];
	struct cx c;

	(void)state;
	cx_setup(&c);
	for (unsigned z = 0; z < 2; z++) {
		for (unsigned gone = 1; gone <= 6; gone++) {
			struct mqtx_tcf_block *b;

			assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
			add_tables(b, sizes[z]);
			snprintf(w, sizeof(w), "prio 1 protocol ip handle %u: u32", gone);
			assert_int_equal(change(b, MQTX_TCF_DELETE, w), 0);
			for (unsigned t = 1; t <= 6; t++)
				for (unsigned n = 1; n <= sizes[z]; n++) {
					snprintf(w, sizeof(w),
						 "prio 1 protocol ip handle %u:0:%u u32", t, n);
					assert_int_equal(change(b, MQTX_TCF_DELETE, w),
							 t == gone ? -ENOENT : 0);
				}
			mqtx_tcf_block_put(b);
		}
	}
	cx_teardown(&c);
}

/* A change of a node keeps its selector (Linux ignores the new one) and takes the new class,
 * actions and link. */
static void test_change_keeps_selector(void **state)
{
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	add(b, "prio 1 protocol ip u32 match ip dst 10.0.1.2/32 flowid 1:1");
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), 1);
	assert_int_equal(change(b, MQTX_TCF_REPLACE,
				"prio 1 protocol ip handle 800::800 u32 match ip dst 10.0.1.3/32 "
				"flowid 1:2"),
			 0);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), 2);
	assert_int_equal(cls(&c, b, TO("10.0.1.3", 53)), NOMATCH);
	/* without a selector: the same */
	assert_int_equal(
		change(b, MQTX_TCF_REPLACE, "prio 1 protocol ip handle 800::800 u32 action drop"),
		0);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), DROPPED);
	/* a table's handle is not a node's */
	add(b, "prio 1 protocol ip handle 2: u32 divisor 2");
	assert_int_equal(change(b, MQTX_TCF_REPLACE,
				"prio 1 protocol ip handle 2: u32 match u8 0 0 flowid 1:1"),
			 -EINVAL);
	/* a link given to the node */
	add(b, "prio 1 protocol ip u32 ht 2:1: match u8 0 0 flowid 1:7");
	assert_int_equal(
		change(b, MQTX_TCF_REPLACE,
		       "prio 1 protocol ip handle 800::800 u32 hashkey mask 1 at 16 link 2:"),
		0);
	assert_int_equal(cls(&c, b, TO("10.0.1.3", 53)), NOMATCH); /* the selector stays */
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

/* Counters through a device: each node visited counts a try, each terminal match a success,
 * each key that matched its own. */
static void test_counts(void **state)
{
	const char *out;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 1 handle 2: u32 divisor 256");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 1 u32 match ip protocol 17 0xff "
		  "hashkey mask 0x000000ff at 16 offset at 0 mask 0f00 shift 6 eat link 2:");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 1 u32 ht 2:2: match udp dst 53 "
		  "0xffff action ok");
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.2", 53), 10), 10);
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.2", 54), 4), 4);
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.3", 53), 3), 3);
	out = cx_ok(&c, "-s filter show dev eth0 egress");
	/* the linking node: 17 visits, never terminal; its key matched all 17 */
	assert_non_null(strstr(out, "fh 800::800 order 2048 key ht 800 bkt 0 link 2: not_in_hw "
				    "(rule hit 17 success 0)\n  match 00110000/00ff0000 at 8 "
				    "(success 17 ) \n    offset 0f00>>6 at 0  eat \n    hash mask "
				    "000000ff at 16 "));
	/* bucket 2's node: 14 visits, 10 matches */
	assert_non_null(strstr(out, "fh 2:2:800 order 2048 key ht 2 bkt 2 terminal flowid "
				    "not_in_hw (rule hit 14 success 10)\n  match 00000035/0000ffff "
				    "at nexthdr+0 (success 10 ) "));
	out = cx_ok(&c, "filter show dev eth0 egress");
	/* the dump: the priority, table 2:, its node, then the root table and its node */
	assert_non_null(strstr(out, "pref 1 u32 chain 0 \nfilter protocol ip pref 1 u32 chain 0 "
				    "fh 2: ht divisor 256 \nfilter protocol ip pref 1 u32 chain 0 "
				    "fh 2:2:800 "));
	assert_non_null(strstr(out, "fh 800: ht divisor 1 \nfilter protocol ip pref 1 u32 chain 0 "
				    "fh 800::800 "));
	cx_teardown(&c);
}

/* The hash tables of a block are shared by its u32 priorities (Linux's tc_u_common): each
 * priority's root table has a handle of its own (800:, then 801:, 802:), a node of one priority
 * may link to, or be placed in, a table another made, and the packets that reach the table
 * through the link count on its nodes, which the dump shows with the table's priority. */
static void test_shared_tables(void **state)
{
	const char *out;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 10 handle 5: u32 divisor 1");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 10 u32 ht 5: match udp dst 53 "
		  "0xffff flowid 1:5 action ok");
	/* prio 20's root is 801:; its node reaches 5: after the IP header */
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 20 u32 match ip protocol 17 0xff "
		  "offset plus 20 link 5:");
	/* a node of prio 30 goes in prio 10's table 5:, after 5::800 */
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 30 u32 ht 5: match udp dst 54 "
		  "0xffff flowid 1:6 action ok");
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.2", 53), 6), 6);
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.2", 54), 3), 3);
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.2", 55), 2), 2);
	out = cx_ok(&c, "-s filter show dev eth0 egress");
	/* prio 10's own root table is empty: every packet reaches 5: through prio 20's link */
	assert_non_null(strstr(out, "pref 10 u32 chain 0 fh 5: ht divisor 1 \n"));
	assert_non_null(strstr(out,
			       "pref 10 u32 chain 0 fh 5::800 order 2048 key ht 5 bkt 0 flowid "
			       "1:5 not_in_hw (rule hit 11 success 6)"));
	assert_non_null(strstr(out,
			       "pref 10 u32 chain 0 fh 5::801 order 2049 key ht 5 bkt 0 flowid "
			       "1:6 not_in_hw (rule hit 5 success 3)"));
	assert_non_null(strstr(out, "pref 10 u32 chain 0 fh 800: ht divisor 1 \n"));
	assert_non_null(strstr(out, "pref 20 u32 chain 0 fh 801::800 order 2048 key ht 801 bkt 0 "
				    "link 5: not_in_hw (rule hit 11 success 0)"));
	assert_non_null(strstr(out, "pref 30 u32 chain 0 fh 802: ht divisor 1 \n"));
	assert_null(strstr(out, "pref 30 u32 chain 0 fh 5:"));
	/* a node is named by its handle from any u32 priority of the block */
	cx_ok(&c, "filter replace dev eth0 egress protocol ip prio 30 handle 5::801 u32 flowid 1:7 "
		  "action ok");
	out = cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(out,
			       "pref 10 u32 chain 0 fh 5::801 order 2049 key ht 5 bkt 0 flowid "
			       "1:7 not_in_hw (rule hit 5 success 3)"));
	/* the table is in use by prio 20's node, whichever priority asks; so is its priority */
	out = cx_rc(&c, 2, "filter del dev eth0 egress prio 10 handle 5: u32");
	assert_non_null(strstr(out, "Error: cls_u32: Can not delete in-use filter. (5:)"));
	cx_rc(&c, 2, "filter del dev eth0 egress prio 30 handle 5: u32");
	cx_rc(&c, 2, "filter del dev eth0 egress prio 10");
	/* a root table is never linked to, nor deleted */
	cx_rc(&c, 2,
	      "filter add dev eth0 egress protocol ip prio 30 u32 match u8 0 0 "
	      "link 800:");
	cx_rc(&c, 2, "filter del dev eth0 egress prio 30 handle 800: u32");
	/* without the link, nothing reaches 5: */
	cx_ok(&c, "filter del dev eth0 egress prio 20");
	assert_int_equal(cx_send(&c, c.dev, TO("10.0.1.2", 53), 4), 4);
	out = cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(out,
			       "fh 5::800 order 2048 key ht 5 bkt 0 flowid 1:5 not_in_hw (rule "
			       "hit 11 success 6)"));
	/* the table goes, from the priority of another; its nodes with it */
	cx_ok(&c, "filter del dev eth0 egress prio 30 handle 5: u32");
	out = cx_ok(&c, "filter show dev eth0 egress");
	assert_null(strstr(out, "fh 5:"));
	assert_non_null(strstr(out, "pref 10 u32 chain 0 fh 800: ht divisor 1 \n"));
	/* a new priority's root takes the next handle */
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 40 u32 match u8 0 0 flowid 1:1");
	out = cx_ok(&c, "filter show dev eth0 egress");
	assert_non_null(strstr(out, "pref 40 u32 chain 0 fh 803::800 order 2048 key ht 803 "));
	cx_teardown(&c);
}

/* A packet of @f with @text written into its UDP payload. */
static struct mqtx_pkt *with_payload(struct cx *c, const struct flow *f, const char *text)
{
	struct mqtx_pkt *p = cx_pkt(c, f, 0);

	assert_true(p->len >= L4 + 8 + strlen(text));
	memcpy(p->data + L4 + 8, text, strlen(text));
	return p;
}

static void test_ematch_kinds(void **state)
{
	const struct flow big = { "10.0.0.1", "10.0.1.2", 4000, 80, 17, 0, -1, 300 };
	struct mqtx_tcf_block *b;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	/* the UDP destination port three ways: cmp at the transport layer, cmp with trans (the
	 * bytes swapped), and u32 at the network header's offset 20 (the ports' word) */
	add(b, "prio 1 protocol all basic match cmp(u16 at 2 layer transport eq 53) classid 1:1");
	add(b, "prio 2 protocol all basic match cmp(u16 at 2 layer 2 trans eq 0x3600) classid 1:2");
	add(b, "prio 3 protocol all basic match u32(u16 55 0xffff at 22) classid 1:3");
	/* bytes: nbyte at the transport layer (the payload after 8 bytes of UDP), text between two
	 * offsets of the frame */
	add(b, "prio 4 protocol all basic match nbyte(\"GET\" at 8 layer 2) classid 1:4");
	add(b, "prio 5 protocol all basic match text(bm \"HOST\" from 40 to 60) classid 1:5");
	/* meta: the length with a shift, the protocol, a VLAN tag the frame lacks */
	add(b, "prio 6 protocol all basic match meta(pkt_len shift 8 eq 1) and "
	       "meta(protocol eq 0x800) classid 1:6");
	add(b, "prio 7 protocol all basic match meta(vlan eq 0) or meta(nf_mark eq priority) "
	       "classid 1:7");
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 53)), 1);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 54)), 2);
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 55)), 3);
	assert_int_equal(cls_pkt(b, with_payload(&c, TO("10.0.1.2", 56), "GET /")), 4);
	/* no GET: only prio 7 is left, whose second term holds (mark 0, priority 0) */
	assert_int_equal(cls_pkt(b, with_payload(&c, TO("10.0.1.2", 56), "xGET /")), 7);
	/* HOST at 42..45 of the frame: inside 40..60; at 57..60 it runs past the end (and the
	 * 300-byte frame falls to prio 6) */
	assert_int_equal(cls_pkt(b, with_payload(&c, TO("10.0.1.2", 56), "HOST")), 5);
	assert_int_equal(cls_pkt(b, with_payload(&c, &big, "...............HOST")), 6);
	assert_int_equal(cls_pkt(b, with_payload(&c, &big, "...........HOST")), 5);
	/* 300 bytes: 300 >> 8 is 1 */
	assert_int_equal(cls(&c, b, &big), 6);
	/* no tag: meta(vlan) fails, which is false (not an error); mark 0 equals priority 0 */
	assert_int_equal(cls(&c, b, TO("10.0.1.2", 57)), 7);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

static void test_ematch_print_and_refuse(void **state)
{
	const char *out;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	/* (the command splitter takes quotes away: nbyte's needle is its first word anyway) */
	cx_ok(&c, "filter add dev eth0 egress prio 1 handle 1 basic match not cmp(u8 at 9 layer "
		  "network eq 17) or ( u32(u8 0xaa 0xf0 at -14) and nbyte(\"ab\" at 0) ) and "
		  "meta(nf_mark shift 2 mask 0xff lt 7) classid 1:1");
	out = cx_ok(&c, "filter show dev eth0 egress");
	assert_non_null(strstr(out, "handle 0x1 flowid 1:1 \n  NOT cmp(u8 at 9 layer 1 eq 17) OR "
				    "(u32(0000a000/0000f000 at -16) AND nbyte(61 62 \"ab\" at 0 "
				    "layer 1)) AND meta(nf_mark shift 2 mask 0x000000ff lt 7)\n"));
	cx_rc(&c, 1, "filter add dev eth0 egress prio 2 basic match u32(u8 0x1122 0x0f at 0)");
	assert_non_null(strstr(
		c.out,
		"Illegal key (>0xFF)\n... >>u32(u8 0x1122 0x0f at 0)<< ...\nIllegal \"ematch\""));
	cx_rc(&c, 1, "filter add dev eth0 egress prio 2 basic match meta(sk_prio eq 1)");
	assert_non_null(strstr(c.out, "meta: unknown meta id"));
	cx_rc(&c, 1, "filter add dev eth0 egress prio 2 basic match meta(priority eq)");
	assert_non_null(strstr(c.out, "meta: missing rvalue"));
	cx_rc(&c, 1, "filter add dev eth0 egress prio 2 basic match cmp(u8 at 0 layer 3 eq 1)");
	assert_non_null(strstr(c.out, "cmp: illegal layer, must be in 0..2"));
	cx_rc(&c, 2, "filter add dev eth0 egress prio 2 basic match canid(sff 1)");
	assert_non_null(strstr(c.out, "RTNETLINK answers: No such file or directory"));
	cx_rc(&c, 1, "filter add dev eth0 egress prio 2 basic match nosuch(1)");
	assert_non_null(strstr(c.out, "Unknown ematch \"nosuch\""));
	out = cx_ok(&c, "filter show dev eth0 egress");
	assert_null(strstr(out, "pref 2"));
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_buckets),
		cmocka_unit_test(test_link_then_terminal),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_deletions),
		cmocka_unit_test(test_table_deletion_keeps_others),
		cmocka_unit_test(test_change_keeps_selector),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_shared_tables),
		cmocka_unit_test(test_ematch_kinds),
		cmocka_unit_test(test_ematch_print_and_refuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

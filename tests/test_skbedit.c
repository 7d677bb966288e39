// SPDX-License-Identifier: MIT
/* skbedit's inheritdsfield and ptype: the priority an IPv4 or IPv6 packet's DS field gives (its
 * DSCP, after any "priority"), what other packets keep, and ptype kept without touching the
 * packet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "act_fixture.h"

/* The priority flow @f's packet leaves block 5 with, having come in with @prio. */
static uint32_t prio_after(struct at *t, const struct flow *f, uint32_t prio)
{
	uint8_t buf[256];
	uint32_t n = at_frame(t, f, buf, sizeof(buf)), got;
	struct mqtx_pkt *p = at_pkt(t, buf, n);

	p->priority = prio;
	assert_int_equal(at_run(t, p), MQTX_ACT_OK);
	got = p->priority;
	assert_memory_equal(p->data, buf, n); /* the frame is not edited */
	mqtx_pkt_free(p);
	return got;
}

static void test_inheritdsfield(void **state)
{
	static const struct flow ef4 = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0xb8 };
	static const struct flow af11_6 = { "2001:db8::1", "2001:db8::2", 1000, 53, 0, 0x28 };
	static const struct flow be4 = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0x00 };
	static const struct flow cs7_4 = { "10.1.0.1", "10.2.0.1", 1000, 53, 0, 0xe3 }; /* ECN 3 */
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action skbedit inheritdsfield");
	assert_int_equal(prio_after(&t, &ef4, 7), 46);
	assert_int_equal(prio_after(&t, &af11_6, 7), 10);
	assert_int_equal(prio_after(&t, &be4, 7), 0);
	assert_int_equal(prio_after(&t, &cs7_4, 0), 56); /* the ECN bits do not count */
	/* after "priority": the DS field wins, as Linux applies them in that order */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action skbedit priority "
		    "1:5 inheritdsfield");
	assert_int_equal(prio_after(&t, &ef4, 7), 46);
	/* ptype alone leaves the priority and the frame as they are */
	cx_ok(&t.c, "filter replace block 5 pref 49152 handle 1 matchall action skbedit ptype "
		    "broadcast");
	assert_int_equal(prio_after(&t, &ef4, 7), 7);
	cx_ok(&t.c, "filter show block 5");
	assert_non_null(strstr(t.c.out, "skbedit  ptype broadcast pipe"));
	at_teardown(&t);
}

/* A frame that is not IP keeps its priority; so does an IPv4 header cut short. */
static void test_not_ip(void **state)
{
	static const uint8_t arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2,	   0, 0, 0, 0,
					 1,    0x08, 0x06, 0x00, 0x01, 0x08, 0x00, 6, 4, 0, 1 };
	static const uint8_t cut[24] = {
		2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45, 0xb8
	};
	struct mqtx_pkt *p;
	struct at t;

	(void)state;
	at_setup(&t);
	cx_ok(&t.c, "filter add block 5 matchall action skbedit inheritdsfield");
	p = at_pkt(&t, arp, sizeof(arp));
	p->priority = 3;
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_int_equal(p->priority, 3);
	mqtx_pkt_free(p);
	p = at_pkt(&t, cut, sizeof(cut));
	p->priority = 3;
	assert_int_equal(at_run(&t, p), MQTX_ACT_OK);
	assert_int_equal(p->priority, 3);
	mqtx_pkt_free(p);
	at_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inheritdsfield),
		cmocka_unit_test(test_not_ip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

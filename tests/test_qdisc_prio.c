// SPDX-License-Identifier: MIT
/* prio: band selection (every branch of Linux's classify), strict priority, child limits,
 * options, band changes, grafting. */
#include <errno.h>

#include <mqtx/ctl.h>

#include "test_qdisc_util.h"

/* prio's classes through its struct mqtx_class_ops: band b is class minor b + 1. */
static uint32_t bands_of(struct mqtx_qdisc *q)
{
	return q->ops->cl_ops->count(q);
}

static struct mqtx_qdisc *band(struct mqtx_qdisc *q, uint32_t b)
{
	return q->ops->cl_ops->leaf(q, b + 1);
}

#define PRIO_DEFAULT_MAP "priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1"

static struct mqtx_pkt *prio_pkt(struct tq *t, uint32_t priority, uint64_t user)
{
	struct mqtx_pkt *p = tq_pkt(t, 100, user);

	p->priority = priority;
	return p;
}

static void test_defaults_and_order(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops, NULL), 0);
	assert_string_equal(tq_dump(&t), "bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1");
	assert_int_equal(bands_of(t.q), 3);
	/* priority 1 -> band 2, 0 -> band 1, 6 -> band 0, 16 + 7 -> 7 & 15 -> band 0 */
	tq_enq(&t, prio_pkt(&t, 1, 10));
	tq_enq(&t, prio_pkt(&t, 0, 20));
	tq_enq(&t, prio_pkt(&t, 6, 30));
	tq_enq(&t, prio_pkt(&t, 23, 31));
	/* <handle major>:3 names band 2 directly */
	tq_enq(&t, prio_pkt(&t, 0x10003, 11));
	assert_int_equal(t.q->qlen, 5);
	assert_int_equal(t.q->backlog, 500);
	assert_int_equal(band(t.q, 2)->qlen, 2);
	assert_int_equal(t.q->ops->peek(t.q)->user, 30);
	assert_int_equal(tq_deq(&t), 30);
	assert_int_equal(tq_deq(&t), 31);
	assert_int_equal(tq_deq(&t), 20);
	assert_int_equal(tq_deq(&t), 10);
	assert_int_equal(tq_deq(&t), 11);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(band(t.q, 0)->packets, 2);
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/*
 * Every branch of Linux's prio_classify() without filters, on a prio of handle 1: with 4 bands
 * and a priomap whose entries differ, each case lands in one band only. The "not ..." notes
 * are where reading the low 4 bits of any priority goes wrong.
 */
static void test_classify_handles(void **state)
{
	static const struct {
		uint32_t priority, band;
	} cases[] = {
		{ 0x00000002, 1 }, /* plain priority: priomap[2] */
		{ 0x00000012, 1 }, /* 18 & 15 = 2 */
		{ 0x00010001, 0 }, /* 1:1 names band 0 */
		{ 0x00010004, 3 }, /* 1:4 names band 3 */
		{ 0x00010000, 2 }, /* 1:0 names no band: priomap[0] */
		{ 0x00010005, 2 }, /* 1:5 is beyond 4 bands: priomap[0], not priomap[5] */
		{ 0x00010011, 2 }, /* 1:11 likewise, not priomap[17 & 15] */
		{ 0x00020001, 2 }, /* another qdisc's 2:1: priority 0, not priomap[1] */
		{ 0x00020003, 2 }, /* 2:3: priomap[0], not band 2 or priomap[3] */
		{ 0xffff0006, 2 }, /* any major but ours */
		{ 0x00000003, 0 }, /* priomap[3] */
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops,
				   "bands 4 priomap 2 3 1 0 3 0 3 3 3 3 3 3 3 3 3 3"),
			 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t before = band(t.q, cases[i].band)->qlen;

		tq_enq(&t, prio_pkt(&t, cases[i].priority, i));
		if (band(t.q, cases[i].band)->qlen != before + 1)
			fail_msg("priority 0x%08x did not go to band %u", cases[i].priority,
				 cases[i].band);
	}
	tq_check_conservation(&t, sizeof(cases) / sizeof(cases[0]));
	tq_teardown(&t);
}

static void test_child_limit_counts(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops, NULL), 0);
	/* each band is a pfifo of tx_queue_len packets */
	for (int i = 0; i < 12; i++)
		tq_enq(&t, prio_pkt(&t, 0, (uint64_t)i));
	assert_int_equal(t.refused, 2);
	assert_int_equal(t.q->qlen, 10);
	assert_int_equal(t.q->drops, 2);
	assert_int_equal(band(t.q, 1)->drops, 2);
	tq_check_conservation(&t, 12);
	tq_teardown(&t);
}

static void test_rejects(void **state)
{
	/* tc's parser refuses some (exit 1, 255 or 1 and the usage); prio_tune() the rest,
	 * without a message: mqtx logs why. */
	static const struct {
		const char *opt, *msg;
		int err;
	} bad[] = {
		{ "bands 1", "\"bands\" 1 is not in 2..16", -EINVAL },
		{ "bands 17", "\"bands\" 17 is not in 2..16", -EINVAL },
		{ "bands -1", "\"bands\" -1 is not in 2..16", -EINVAL }, /* tc's int */
		{ "bands x", "\"x\"", -EINVAL },
		{ "bands", "Command line is not complete", MQTX_TC_EFATAL },
		{ "priomap 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1", "TC_PRIO_MAX=15", -EINVAL },
		{ "bands 2 priomap 0 1 2", "\"2\" is out of bands", -EINVAL },
		{ "priomap 0 16", "\"16\" is out of bands", -EINVAL },
		{ "priomap 3", "\"3\" is out of bands", -EINVAL },	   /* the default 3 bands */
		{ "priomap 3 bands 4", "\"3\" is out of bands", -EINVAL }, /* ... so far */
		{ "priomap 0 priomap 1", "Error: duplicate priomap", -EINVAL },
		{ "priomap 0 1x", "\"1x\"", -EINVAL },
		{ "bands 2", "entry 1 is band 2, out of 2 bands", -EINVAL }, /* the default map */
		{ "bogus", "What is \"bogus\"?", MQTX_TC_EUSAGE },
		{ "priomap 0 help", "", MQTX_TC_EUSAGE },
		{ "bands 0x4", "\"0x4\"", -EINVAL }, /* tc reads prio's numbers in base 10 */
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops, bad[i].opt), bad[i].err);
		if (!strstr(t.err, bad[i].msg))
			fail_msg("\"%s\": message \"%s\"", bad[i].opt, t.err);
	}
	/* "multiqueue" is taken and ignored, as Linux ignores what tc sends for it */
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops, "bands 4 multiqueue"), 0);
	mqtx_qdisc_destroy(t.q);
	t.q = NULL;
	assert_null(t.q);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops,
				   "bands 2 priomap 1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1"),
			 0);
	assert_string_equal(tq_dump(&t), "bands 2 priomap 1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1");
	/* a refused change changes nothing */
	assert_int_equal(tq_change(&t, "priomap 3"), -EINVAL);
	assert_int_equal(tq_change(&t, "bands 3 priomap 0 0 5"), -EINVAL);
	assert_int_equal(tq_change(&t, "bands 17 priomap 16"), -EINVAL);
	assert_string_equal(tq_dump(&t), "bands 2 priomap 1 1 1 1 1 1 0 0 1 1 1 1 1 1 1 1");
	assert_int_equal(bands_of(t.q), 2);
	tq_teardown(&t);
	/* "010" is ten bands in tc (decimal), not eight. */
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops, "bands 010"), 0);
	assert_int_equal(bands_of(t.q), 10);
	tq_teardown(&t);
}

/* Every change is the whole configuration, as tc sends it: what a command leaves out is back
 * to the default (bands 3, Linux's map), and bands that go away take their packets along. */
static void test_change_bands(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops, NULL), 0);
	/* a partial priomap replaces the first entries of the default map */
	assert_int_equal(tq_change(&t, "bands 5 priomap 4 3"), 0);
	assert_string_equal(tq_dump(&t), "bands 5 priomap 4 3 2 2 1 2 0 0 1 1 1 1 1 1 1 1");
	tq_enq(&t, prio_pkt(&t, 0, 1)); /* band 4 */
	tq_enq(&t, prio_pkt(&t, 0, 2));
	tq_enq(&t, prio_pkt(&t, 1, 3)); /* band 3 */
	tq_enq(&t, prio_pkt(&t, 6, 4)); /* band 0 */
	assert_int_equal(t.q->qlen, 4);
	/* "bands 3" alone brings the default map back: valid on three bands */
	assert_int_equal(tq_change(&t, "bands 3"), 0);
	assert_string_equal(tq_dump(&t), "bands 3 " PRIO_DEFAULT_MAP);
	assert_int_equal(t.q->qlen, 1);
	assert_int_equal(t.q->backlog, 100);
	assert_int_equal(t.q->drops, 3);
	assert_int_equal(bands_of(t.q), 3); /* bands 3 and 4 are gone */
	assert_int_equal(tq_deq(&t), 4);
	tq_check_conservation(&t, 4);
	/* no options at all: the defaults */
	assert_int_equal(tq_change(&t, "bands 4 priomap 3 3"), 0);
	assert_int_equal(tq_change(&t, ""), 0);
	assert_string_equal(tq_dump(&t), "bands 3 " PRIO_DEFAULT_MAP);
	tq_teardown(&t);
}

/* Run @cmd on @ctl; returns its exit code, its error text in @err. */
static int run(struct mqtx_ctl *ctl, const char *cmd, struct mqtx_buf *out, struct mqtx_buf *err)
{
	out->len = err->len = 0;
	if (out->data)
		out->data[0] = '\0';
	if (err->data)
		err->data[0] = '\0';
	return mqtx_ctl_exec_line(ctl, cmd, 0, out, err);
}

/* Grafting a band's child by class id moves the band's backlog into the new child. */
static void test_graft(void **state)
{
	static const char *const refused[][2] = {
		{ "qdisc add dev tq0 parent 1:4 bfifo", "Specified class not found." },
		{ "qdisc add dev tq0 parent 1:0 bfifo", "Specified class not found." },
		/* Linux checks the parent before a loop: 1: is the root, not 1:1's child */
		{ "qdisc replace dev tq0 parent 1:1 handle 1: prio",
		  "Cannot move an existing qdisc to a different parent." },
		{ "qdisc add dev tq0 parent 10:1 pfifo", "" }, /* bfifo has no classes */
		{ "qdisc add dev tq0 parent 7:1 pfifo", "Failed to find specified qdisc." },
	};
	struct mqtx_ctl *ctl;
	struct mqtx_buf o, e;
	struct mqtx_qdisc *bf;
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(ctl, t.dev), 0); /* the context destroys it */
	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	assert_int_equal(run(ctl, "qdisc add dev tq0 root handle 1: prio", &o, &e), 0);
	mqtx_dev_config_lock(t.dev);
	t.q = mqtx_txq_qdisc(mqtx_dev_txq(t.dev, 0));
	mqtx_dev_config_unlock(t.dev);
	assert_string_equal(t.q->ops->id, "prio");
	for (int i = 0; i < 4; i++)
		tq_enq(&t, prio_pkt(&t, 6, (uint64_t)i));
	/* the 4 queued packets move over in order; the bfifo keeps 300 bytes, drops one */
	assert_int_equal(
		run(ctl, "qdisc add dev tq0 parent 1:1 handle 10: bfifo limit 300", &o, &e), 0);
	bf = band(t.q, 0);
	assert_string_equal(bf->ops->id, "bfifo");
	assert_int_equal(bf->handle, 0x100000);
	assert_int_equal(bf->parent, 0x10001);
	assert_int_equal(bf->qlen, 3);
	assert_int_equal(t.q->qlen, 3);
	assert_int_equal(t.q->backlog, 300);
	assert_int_equal(t.q->drops, 1);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (run(ctl, refused[i][0], &o, &e) == 0 || !strstr(e.data, refused[i][1]))
			fail_msg("\"%s\" was not refused: \"%s\"", refused[i][0],
				 e.data ? e.data : "");
		assert_ptr_equal(band(t.q, 0), bf); /* a refused graft changes nothing */
		assert_int_equal(bands_of(t.q), 3);
	}
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), -1);
	tq_check_conservation(&t, 4);
	t.q = NULL;
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	mqtx_ctl_free(ctl);
	assert_int_equal(mqtx_pool_in_use(t.pool), 0);
	mqtx_pool_destroy(t.pool);
	mqtx_clock_free(t.clock);
}

/* A band's tbf out of tokens still hands its packets to the qdisc that replaces it. */
static void test_graft_moves_held_backlog(void **state)
{
	struct mqtx_ctl *ctl;
	struct mqtx_buf o, e;
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(ctl, t.dev), 0); /* the context destroys it */
	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	assert_int_equal(run(ctl, "qdisc add dev tq0 root handle 1: prio", &o, &e), 0);
	assert_int_equal(run(ctl,
			     "qdisc add dev tq0 parent 1:2 handle 20: tbf rate 8kbit "
			     "burst 150 limit 100000",
			     &o, &e),
			 0);
	mqtx_dev_config_lock(t.dev);
	t.q = mqtx_txq_qdisc(mqtx_dev_txq(t.dev, 0));
	mqtx_dev_config_unlock(t.dev);
	for (int i = 0; i < 3; i++)
		tq_enq(&t, prio_pkt(&t, 0, (uint64_t)i)); /* priority 0: band 1, class 1:2 */
	assert_int_equal(tq_deq(&t), 0);		  /* 0.15 s of tokens, 0.1 s a packet */
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(run(ctl, "qdisc replace dev tq0 parent 1:2 handle 21: pfifo", &o, &e), 0);
	assert_string_equal(band(t.q, 1)->ops->id, "pfifo");
	assert_int_equal(t.q->qlen, 2);
	assert_int_equal(t.q->drops, 0);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), 2);
	tq_check_conservation(&t, 3);
	t.q = NULL;
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	mqtx_ctl_free(ctl);
	assert_int_equal(mqtx_pool_in_use(t.pool), 0);
	mqtx_pool_destroy(t.pool);
	mqtx_clock_free(t.clock);
}

static void test_reset_and_destroy_with_backlog(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__prio_qdisc_ops,
				   "bands 16"
				   " priomap 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0"),
			 0);
	for (uint32_t i = 0; i < 32; i++)
		tq_enq(&t, prio_pkt(&t, i, i));
	assert_int_equal(t.q->qlen, 32); /* 2 per band: all fit */
	tq_teardown(&t);		 /* destroy purges every band; teardown checks the pool */
}

/* Through the configuration layer: a band's child is replaced by handle via prio's cl_ops. */
static void test_ctl_graft_by_handle(void **state)
{
	static const char *const cmds[] = {
		"qdisc add dev tq0 root handle 1: prio bands 4 priomap 3 3 3",
		"qdisc add dev tq0 parent 1:2 handle 20: fq_codel limit 100",
		"qdisc add dev tq0 parent 1:4 handle 40: tbf rate 1mbit burst 10kb latency 50ms",
	};
	struct mqtx_dev_cfg dc = { .name = "tq0", .ops = &mqtx_null_ops, .num_txq = 1 };
	struct mqtx_dev *dev;
	struct mqtx_ctl *ctl;
	struct mqtx_buf o, e;

	(void)state;
	assert_int_equal(mqtx_dev_create(&dc, &dev), 0);
	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(ctl, dev), 0);
	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (mqtx_ctl_exec_line(ctl, cmds[i], 0, &o, &e) != 0)
			fail_msg("%s: %s", cmds[i], e.data ? e.data : "");
	}
	assert_int_equal(mqtx_ctl_exec_line(ctl, "qdisc show dev tq0", 0, &o, &e), 0);
	assert_non_null(strstr(o.data, "prio 1: root"));
	assert_non_null(strstr(o.data, "bands 4 priomap 3 3 3 2 1 2 0 0 1 1 1 1 1 1 1 1"));
	assert_non_null(strstr(o.data, "fq_codel 20: parent 1:2 limit 100p flows 1024"));
	assert_non_null(strstr(o.data, "tbf 40: parent 1:4 rate 1Mbit burst 10Kb lat 50ms"));
	/* a band that does not exist is refused */
	assert_int_not_equal(
		mqtx_ctl_exec_line(ctl, "qdisc add dev tq0 parent 1:5 codel", 0, &o, &e), 0);
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	mqtx_ctl_free(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_order),
		cmocka_unit_test(test_classify_handles),
		cmocka_unit_test(test_child_limit_counts),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_change_bands),
		cmocka_unit_test(test_graft),
		cmocka_unit_test(test_graft_moves_held_backlog),
		cmocka_unit_test(test_reset_and_destroy_with_backlog),
		cmocka_unit_test(test_ctl_graft_by_handle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

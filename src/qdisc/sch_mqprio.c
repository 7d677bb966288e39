// SPDX-License-Identifier: MIT
/* mqprio: mq plus traffic classes (priority -> tc -> queue range) for the picker (sch_mqprio.c).
 * mqtx's mqprio takes filters too (Linux's has none): run before the queue is chosen, a class
 * they name (major:q+1, a queue; major:ffe0+tc, a traffic class) chooses it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqtx/cls.h>

#include "qdisc/mq.h"

/* Traffic class tc is the virtual class major:(MQTX_TC_CLASS_MIN + tc) (TC_H_MIN_PRIORITY). */
#define MQTX_TC_CLASS_MIN 0xFFE0u

struct mqprio_opt {
	uint8_t num_tc;
	uint8_t map[MQTX_TC_MAX];
	uint8_t hw;
	uint16_t count[MQTX_TC_MAX], offset[MQTX_TC_MAX];
};

struct mqprio_priv {
	struct mqtx_mq_priv mq; /* first: the mq helpers use it */
	struct mqprio_opt cfg;
	struct mqtx_tcf_block *block; /* its filters (its own, or shared: egress_block) */
	struct mqtx_hook hook;	      /* runs them, while it is the root */
	bool hooked;
};

/* tc's defaults when options are absent (q_mqprio.c). */
static const struct mqprio_opt mqprio_defaults = {
	.num_tc = 8,
	.map = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 1, 1, 3, 3, 3, 3 },
	.hw = 1,
};

/* tc's get_u8()/get_u16() in base 10: what strtoul() reads, whole, up to @max. */
static bool parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return end != s && !*end && errno != ERANGE && *v <= max;
}

/* "count@offset" as tc splits it: strtok(.., "@"), so leading and doubled '@' are skipped and
 * what follows a second one is ignored. */
static bool parse_pair(const char *s, uint16_t *count, uint16_t *offset)
{
	char buf[64], *save, *c, *o;
	unsigned long vc, vo;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	c = strtok_r(buf, "@", &save);
	o = c ? strtok_r(NULL, "@", &save) : NULL;
	if (!parse_uint(c, 0xFFFF, &vc) || !parse_uint(o, 0xFFFF, &vo))
		return false;
	*count = (uint16_t)vc;
	*offset = (uint16_t)vo;
	return true;
}

/* A word tc's mqprio_parse_opt() does not know: invarg(), exit -1. */
static int unknown_arg(const char *w, struct mqtx_extack *ack)
{
	mqtx_extack_set(ack, "Error: argument \"%s\" is wrong: unknown argument", w);
	return MQTX_TC_EFATAL;
}

/* A u8 option's value: tc's NEXT_ARG() then get_u8(.., 10). */
static int parse_u8_arg(int argc, char **argv, int *i, uint8_t *out, struct mqtx_extack *ack)
{
	const char *name = argv[*i], *v = mqtx_tc_next_arg(argc, argv, i, ack);
	unsigned long u;

	if (!v)
		return MQTX_TC_EFATAL;
	if (!parse_uint(v, 255, &u))
		return mqtx_extack_set(ack, "Illegal \"%s\" \"%s\"", name, v);
	*out = (uint8_t)u;
	return 0;
}

static int mqprio_parse(int argc, char **argv, void *optp, struct mqtx_extack *ack)
{
	struct mqprio_opt *o = optp;
	unsigned long v;
	unsigned pairs = 0;
	int err;

	*o = mqprio_defaults;
	for (int i = 0; i < argc; i++) {
		unsigned idx = 0;

		if (!strcmp(argv[i], "num_tc")) {
			err = parse_u8_arg(argc, argv, &i, &o->num_tc, ack);
			if (err)
				return err;
		} else if (!strcmp(argv[i], "map")) {
			/* Up to 16 numbers; the rest of the map is 0 (tc). */
			for (;
			     idx < MQTX_TC_MAX && i + 1 < argc && parse_uint(argv[i + 1], 255, &v);
			     idx++, i++)
				o->map[idx] = (uint8_t)v;
			for (; idx < MQTX_TC_MAX; idx++)
				o->map[idx] = 0;
		} else if (!strcmp(argv[i], "queues")) {
			for (; idx < MQTX_TC_MAX && i + 1 < argc &&
			       parse_pair(argv[i + 1], &o->count[idx], &o->offset[idx]);
			     idx++, i++)
				pairs++;
		} else if (!strcmp(argv[i], "hw")) {
			err = parse_u8_arg(argc, argv, &i, &o->hw, ack);
			if (err)
				return err;
		} else if (!strcmp(argv[i], "help")) {
			return mqtx_tc_unknown("mqprio", argv[i], ack);
		} else {
			return unknown_arg(argv[i], ack);
		}
	}
	if (pairs > o->num_tc)
		return mqtx_extack_set(ack,
				       "queues count/offset pair count %u can not be higher "
				       "than given num_tc %u",
				       pairs, o->num_tc);
	return 0;
}

/* mqprio_validate_qopt() with allow_overlapping_txqs = false: a true interval check; the queue
 * ranges only with @check_queues (without hw offload). taprio validates its map with it too. */
int mqtx__mqprio_validate(struct mqtx_dev *dev, unsigned num_tc, const uint8_t *map,
			  const uint16_t *count, const uint16_t *offset, bool check_queues,
			  struct mqtx_extack *ack)
{
	unsigned real = mqtx_dev_real_num_txq(dev);

	if (num_tc > MQTX_TC_MAX)
		return mqtx_extack_set(
			ack,
			"Number of traffic classes is outside valid range. (num_tc %u, "
			"at most %u)",
			num_tc, MQTX_TC_MAX);
	for (unsigned i = 0; i < MQTX_TC_MAX; i++) {
		if (map[i] >= num_tc)
			return mqtx_extack_set(ack,
					       "Invalid traffic class in priority to traffic class "
					       "mapping. (priority %u to TC %u of %u)",
					       i, map[i], num_tc);
	}
	if (!check_queues)
		return 0; /* counts are the driver's business with offload (refused below) */
	for (unsigned i = 0; i < num_tc; i++) {
		unsigned last = (unsigned)offset[i] + count[i];

		/* These three are NL_SET_ERR_MSG_FMT_MOD(): the module's name comes first. */
		if (!count[i])
			return mqtx_extack_set(ack, "sch_mqprio_lib: No queues for TC %u", i);
		if (offset[i] >= real || last > real)
			return mqtx_extack_set(ack,
					       "sch_mqprio_lib: Queues %u:%u for TC %u exceed the "
					       "%u TX queues available",
					       count[i], offset[i], i, real);
		for (unsigned j = i + 1; j < num_tc; j++) {
			unsigned lj = (unsigned)offset[j] + count[j];

			if (offset[i] < lj && offset[j] < last)
				return mqtx_extack_set(ack,
						       "sch_mqprio_lib: TC %u queues %u@%u overlap "
						       "with TC %u queues %u@%u",
						       i, count[i], offset[i], j, count[j],
						       offset[j]);
		}
	}
	return 0;
}

static int mqprio_validate(struct mqtx_dev *dev, const struct mqprio_opt *o,
			   struct mqtx_extack *ack)
{
	return mqtx__mqprio_validate(dev, o->num_tc, o->map, o->count, o->offset, !o->hw, ack);
}

/* ---- filters: a selection hook (MQTX_HOOK_SELECT), after clsact's egress filters ---- */

static int mqprio_filter(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct mqtx_qdisc *q = arg;
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);
	struct mqtx_tcf_result res;
	uint32_t minor, real = mqtx_dev_real_num_txq(dev);
	int q_;

	/* a queue clsact's filters chose stands */
	if (pkt->flags & MQTX_PKT_F_QMAP_SET)
		return MQTX_HOOK_PASS;
	switch (mqtx_tcf_classify(pp->block, dev, pkt, &res)) {
	case MQTX_ACT_SHOT:
		return MQTX_HOOK_DROP;
	case MQTX_ACT_STOLEN:
		return MQTX_HOOK_STOLEN;
	case MQTX_ACT_UNSPEC:
		return MQTX_HOOK_PASS;
	}
	if (MQTX_H_MAJ(res.classid) && MQTX_H_MAJ(res.classid) != MQTX_H_MAJ(q->handle))
		return MQTX_HOOK_PASS;
	minor = MQTX_H_MIN(res.classid);
	if (minor >= MQTX_TC_CLASS_MIN && minor < MQTX_TC_CLASS_MIN + pp->cfg.num_tc)
		q_ = mqtx_dev_pick_tx_tc(dev, pkt, minor - MQTX_TC_CLASS_MIN);
	else if (minor >= 1 && minor <= real)
		q_ = (int)minor - 1;
	else
		return MQTX_HOOK_PASS; /* no such class: the priority decides */
	pkt->queue_mapping = (uint16_t)q_;
	pkt->flags |= MQTX_PKT_F_QMAP_SET;
	return MQTX_HOOK_PASS;
}

static int mqprio_init(struct mqtx_qdisc *q, const void *optp, struct mqtx_extack *ack)
{
	const struct mqprio_opt *o = optp ? optp : &mqprio_defaults;
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);
	int err;

	if (mqtx_dev_num_txq(q->dev) < 2)
		return -EOPNOTSUPP;
	err = mqprio_validate(q->dev, o, ack);
	if (err)
		return err;
	if (o->hw)
		return mqtx_extack_set(ack,
				       "Device does not support hardware offload. (hw %u on %s)",
				       o->hw, mqtx_dev_name(q->dev));
	pp->cfg = *o;
	pp->hook = (struct mqtx_hook){ mqprio_filter, q };
	err = mqtx_tcf_block_get(q->egress_block, &pp->block);
	if (err)
		return err;
	return mqtx__mq_init_children(q, ack);
}

/* The root now: the children go to their queues and the device takes the traffic classes. */
static void mqprio_attach(struct mqtx_qdisc *q, struct mqtx_qdisc **qs)
{
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);

	mqtx__mq_attach(q, qs);
	mqtx_dev_set_tc(q->dev, pp->cfg.num_tc, pp->cfg.map, pp->cfg.count, pp->cfg.offset);
	/* allocates nothing; busy only if another root's hook were still set, which detach
	 * clears first */
	pp->hooked = !mqtx_dev_set_hook(q->dev, MQTX_HOOK_SELECT, &pp->hook);
}

static void mqprio_unhook(struct mqtx_qdisc *q)
{
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);

	if (pp->hooked)
		mqtx_dev_clear_hook(q->dev, MQTX_HOOK_SELECT, &pp->hook);
	pp->hooked = false;
}

static void mqprio_detach(struct mqtx_qdisc *q)
{
	mqprio_unhook(q);
	mqtx_dev_reset_tc(q->dev);
}

static void mqprio_destroy(struct mqtx_qdisc *q)
{
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);

	mqprio_unhook(q);
	mqtx__mq_destroy(q);
	mqtx_tcf_block_put(pp->block);
	pp->block = NULL;
}

static void mqprio_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);
	char queues[16 * 16] = "";
	uint32_t map[MQTX_TC_MAX];
	size_t len = 0;

	for (unsigned i = 0; i < MQTX_TC_MAX; i++)
		map[i] = pp->cfg.map[i];
	for (unsigned i = 0; i < pp->cfg.num_tc; i++)
		len += (size_t)snprintf(queues + len, sizeof(queues) - len, "(%u:%u) ",
					pp->cfg.offset[i],
					pp->cfg.offset[i] + pp->cfg.count[i] - 1);
	mqtx_dump_uint(d, "tc", "tc %" PRIu64, pp->cfg.num_tc);
	mqtx_dump_uint_array(d, "map", "map", map, MQTX_TC_MAX);
	mqtx_dump_str(d, "queues", "\n             queues:%s", queues);
}

/* ---- classes (mqprio_walk): a virtual class major:ffe0+tc per traffic class, counting the
 * sum over its queues, then the queue classes, each with its traffic class as parent. ---- */

static bool tc_holds(const struct mqprio_opt *o, unsigned tc, uint32_t txq)
{
	return txq >= o->offset[tc] && txq < (uint32_t)o->offset[tc] + o->count[tc];
}

static void mqprio_walk(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);
	const struct mqprio_opt *o = &pp->cfg;
	uint32_t n = cl->count(q);

	for (unsigned tc = 0; tc < o->num_tc; tc++) {
		struct mqtx_qdisc_stats st = { 0 }, c;
		struct mqtx_class vc = { .minor = MQTX_TC_CLASS_MIN + tc,
					 .parent = MQTX_H_ROOT,
					 .stats = &st };

		for (uint32_t i = 0; i < n; i++) {
			if (tc_holds(o, tc, i)) {
				mqtx_qdisc_tree_stats(cl->leaf(q, i + 1), &c);
				mqtx_qdisc_stats_add(&st, &c);
			}
		}
		fn(q, &vc, arg);
	}
	for (uint32_t m = 1; m <= n; m++) {
		struct mqtx_qdisc_stats st;
		struct mqtx_class c = { .minor = m, .leaf = cl->leaf(q, m), .stats = &st };

		/* netdev_txq_to_tc(): no parent when no range holds the queue. */
		for (unsigned tc = 0; tc < o->num_tc; tc++)
			if (tc_holds(o, tc, m - 1))
				c.parent = MQTX_H_MAKE(q->handle, MQTX_TC_CLASS_MIN + tc);
		mqtx_qdisc_tree_stats(c.leaf, &st);
		fn(q, &c, arg);
	}
}

/* Filters go on the qdisc (parent major:), not on a class. */
static struct mqtx_tcf_block *mqprio_tcf_block(struct mqtx_qdisc *q, uint32_t minor,
					       struct mqtx_extack *ack)
{
	struct mqprio_priv *pp = mqtx_qdisc_priv(q);

	if (!minor)
		return pp->block;
	mqtx_extack_set(ack, "mqprio: filters go on the qdisc (parent %x:), not on its classes",
			q->handle >> 16);
	return NULL;
}

static const struct mqtx_class_ops mqprio_class_ops = {
	.tcf_block = mqprio_tcf_block,
	.count = mqtx__mq_class_count,
	.leaf = mqtx__mq_class_leaf,
	.select_queue = mqtx__mq_class_select_queue,
	.graft = mqtx__mq_class_graft,
	.walk = mqprio_walk,
};

const struct mqtx_qdisc_ops mqtx__mqprio_qdisc_ops = {
	.id = "mqprio",
	.usage = "Usage: ... mqprio\t[num_tc NUMBER] [map P0 P1 ...]\n"
		 "\t\t\t[queues count1@offset1 count2@offset2 ...] [hw 1|0]",
	.priv_size = sizeof(struct mqprio_priv),
	.opt_size = sizeof(struct mqprio_opt),
	/* mqtx's: filters shared by index too */
	.static_flags = MQTX_QF_MQROOT | MQTX_QF_EGRESS_BLOCK,
	.enqueue = mqtx__mq_enqueue,
	.dequeue = mqtx__mq_dequeue,
	.peek = mqtx__mq_dequeue,
	.parse = mqprio_parse,
	.init = mqprio_init,
	.destroy = mqprio_destroy,
	.dump = mqprio_dump,
	.attach = mqprio_attach,
	.detach = mqprio_detach,
	.cl_ops = &mqprio_class_ops,
};

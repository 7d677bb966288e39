// SPDX-License-Identifier: MIT
/*
 * "filter test": where a flow's packets go on a device, as the transmit path would take them,
 * without sending anything or touching a counter: clsact's egress filters (what matched, their
 * verdicts and actions), then the queue (the one a filter set, else the device's hash), then
 * the filters of the classful qdisc on that queue and the class they choose. With "ingress":
 * the ingress filters and whether the frame is delivered.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/gen.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"
#include "core/core.h"
#include "ctl/ctl_int.h"
#include "gen/gen.h"
#include "sched/qtree.h"

#define TEST_USAGE                                                                               \
	"Usage: mqtx filter test dev NAME [ egress | ingress ] --src A[:P] --dst A[:P]\n"        \
	"                        [ --sport P ] [ --dport P ] [ --proto tcp | udp | icmp | N ]\n" \
	"                        [ --dscp N | --tos N ] [ --vlan ID ] [ --mark M ]\n"            \
	"                        [ --priority CLASSID ] [ --size BYTES ]\n"                      \
	"Prints the filters the flow's packets match, the queue they leave on and the class\n"   \
	"they get there, or that they are dropped or redirected. Nothing is sent or counted.\n"

struct test_args {
	const char *dev;
	bool ingress;
	struct tc_endpoint src, dst;
	bool has_src, has_dst;
	int sport, dport; /* -1: the endpoint's */
	uint8_t proto, tos;
	int vlan;
	uint32_t mark, priority, size;
	bool has_priority;
};

static const char *strip_dashes(const char *w)
{
	return w[0] == '-' && w[1] == '-' ? w + 2 : w;
}

static int parse_proto(const char *v, void *field, const struct tc_opt *o)
{
	uint8_t *proto = field;

	if (!strcmp(v, "tcp"))
		*proto = IPPROTO_TCP;
	else if (!strcmp(v, "udp"))
		*proto = IPPROTO_UDP;
	else if (!strcmp(v, "icmp"))
		*proto = IPPROTO_ICMP;
	else if (mqtx__tc_opt_u8(v, proto, o))
		return -EINVAL;
	return 0;
}

/* The DSCP: the upper six bits of the TOS byte (its ECN bits stay). */
static int parse_dscp(const char *v, void *field, const struct tc_opt *o)
{
	uint8_t *tos = field, x;

	if (mqtx__tc_opt_u8(v, &x, o))
		return -EINVAL;
	*tos = (uint8_t)(x << 2 | (*tos & 3));
	return 0;
}

#define ARG(m) offsetof(struct test_args, m)

static const struct tc_opt test_opts[] = {
	{ "dev", mqtx__tc_opt_str, ARG(dev) },
	{ "src", mqtx__tc_opt_endpoint, ARG(src),
	  .given = TC_OPT_GIVEN(struct test_args, has_src) },
	{ "dst", mqtx__tc_opt_endpoint, ARG(dst),
	  .given = TC_OPT_GIVEN(struct test_args, has_dst) },
	{ "sport", mqtx__tc_opt_int, ARG(sport), .max = 65535 },
	{ "dport", mqtx__tc_opt_int, ARG(dport), .max = 65535 },
	{ "proto", parse_proto, ARG(proto), .min = 1, .max = 255 },
	{ "dscp", parse_dscp, ARG(tos), .max = 63 },
	{ "tos", mqtx__tc_opt_u8, ARG(tos), .max = 255 },
	{ "vlan", mqtx__tc_opt_int, ARG(vlan), .max = 4095 },
	{ "mark", mqtx__tc_opt_tc_u32, ARG(mark) },
	{ "priority", mqtx__tc_opt_classid, ARG(priority),
	  .given = TC_OPT_GIVEN(struct test_args, has_priority) },
	{ "size", mqtx__tc_opt_u32, ARG(size), .max = 65535 },
};

/* One option: 0, -EINVAL (a bad value), -ENOENT (no such option). */
static int test_word(const char *w, const char *v, struct test_args *a)
{
	const struct tc_opt *o = mqtx__tc_opt_find(test_opts, ARRAY_SIZE(test_opts), w);

	return o ? mqtx__tc_opt_apply(o, v, a) : -ENOENT;
}

static int test_parse(const struct mqtx_ctl_call *c, struct test_args *a)
{
	for (int i = 0; i < c->argc; i++) {
		const char *w = strip_dashes(c->argv[i]);
		const char *v = i + 1 < c->argc ? c->argv[i + 1] : NULL;
		int err;

		if (!strcmp(w, "egress") || !strcmp(w, "ingress")) {
			a->ingress = w[0] == 'i';
			continue;
		}
		if (!v) {
			mqtx_buf_printf(c->err, "filter test: \"%s\" needs a value\n", c->argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		err = test_word(w, v, a);
		if (err == -ENOENT) {
			mqtx_buf_printf(
				c->err,
				"filter test: what is \"%s\"? Try \"mqtx filter test help\".\n",
				c->argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		if (err) {
			mqtx_buf_printf(c->err, "filter test: invalid %s \"%s\"\n", w, v);
			return MQTX_TC_EXIT_PARSE;
		}
		i++;
	}
	if (!a->dev) {
		mqtx_buf_printf(c->err, "filter test: dev NAME is required\n");
		return MQTX_TC_EXIT_PARSE;
	}
	if (!a->has_src || !a->has_dst || a->src.family != a->dst.family) {
		mqtx_buf_printf(
			c->err,
			"filter test: --src and --dst of one address family are required\n");
		return MQTX_TC_EXIT_PARSE;
	}
	return 0;
}

/* The generator's frame of the flow, as it would send it. */
static int build(const struct test_args *a, uint8_t *f, size_t cap)
{
	struct mqtx_gen_cfg g;
	uint32_t s, d;

	mqtx_gen_cfg_default(&g);
	g.proto = a->proto;
	g.tos = a->tos;
	g.vlan = a->vlan;
	g.ipv6 = a->src.family == AF_INET6;
	if (g.ipv6) {
		memcpy(g.src6, a->src.addr, 16);
		memcpy(g.dst6, a->dst.addr, 16);
		memcpy(&s, a->src.addr + 12, 4);
		memcpy(&d, a->dst.addr + 12, 4);
	} else {
		memcpy(&s, a->src.addr, 4);
		memcpy(&d, a->dst.addr, 4);
	}
	g.src_lo = g.src_hi = ntohl(s);
	g.dst_lo = g.dst_hi = ntohl(d);
	g.sport_lo = g.sport_hi = (uint16_t)(a->sport >= 0 ? a->sport : a->src.port);
	g.dport_lo = g.dport_hi = (uint16_t)(a->dport >= 0 ? a->dport : a->dst.port);
	g.size = a->size ? a->size : mqtx_gen_min_size(&g);
	if (g.size < mqtx_gen_min_size(&g))
		g.size = mqtx_gen_min_size(&g);
	return mqtx_gen_build(&g, 0, f, cap);
}

/* The last word: where the packet ends up. */
static void verdict_line(struct tc_out *p, int v, const struct mqtx_pkt *pkt)
{
	const char *what = v == MQTX_ACT_SHOT ? "drop" : v == MQTX_ACT_STOLEN ? "stolen" : "pass";

	mqtx__out_str(p, OUT_ANY, "verdict", "verdict %s", what);
	if (v == MQTX_ACT_SHOT)
		mqtx__out_str(p, OUT_ANY, "reason", " reason %s",
			      mqtx_drop_reason_name((enum mqtx_drop_reason)pkt->drop_reason));
}

/* The filter block of qdisc @q, when its kind has one. */
static struct mqtx_tcf_block *qdisc_block(struct mqtx_qdisc *q)
{
	struct mqtx_extack ack;

	if (!q->ops->cl_ops || !q->ops->cl_ops->tcf_block)
		return NULL;
	return q->ops->cl_ops->tcf_block(q, 0, &ack);
}

/* Run the filters of @q's block @b on @pkt, their hits in @p's array @key, each named after
 * @q ("qdisc prio 40" and the hits' colon). Returns their verdict, their result in @res. */
static int qdisc_block_test(struct mqtx_dev *dev, struct mqtx_qdisc *q, struct mqtx_tcf_block *b,
			    const char *key, struct mqtx_pkt *pkt, struct mqtx_tcf_result *res,
			    struct tc_out *p)
{
	char what[64], h[16];
	int v;

	mqtx__classid_fmt(q->handle, h, sizeof(h));
	snprintf(what, sizeof(what), "qdisc %s %.*s", q->ops->id, (int)strcspn(h, ":"), h);
	mqtx__out_open_array(p, key);
	v = mqtx__tcf_test(b, dev, pkt, res, what, p);
	mqtx__out_close_array(p);
	return v;
}

/* The classful qdisc that holds queue @qi's packets, its filters and their class; its
 * filters' verdict (MQTX_ACT_UNSPEC without any). */
static int qdisc_stage(struct mqtx_dev *dev, uint16_t qi, struct mqtx_pkt *pkt, struct tc_out *p)
{
	struct mqtx_qdisc *q = dev->txq[qi].qdisc_sleeping;
	struct mqtx_tcf_result res;
	struct mqtx_tcf_block *b;
	char h[16];
	int v;

	if (!q || (q->flags & MQTX_QF_INGRESS) || !(b = qdisc_block(q)))
		return MQTX_ACT_UNSPEC;
	v = qdisc_block_test(dev, q, b, "qdisc_filters", pkt, &res, p);
	mqtx__classid_fmt(q->handle, h, sizeof(h));
	mqtx__out_str(p, OUT_ANY, "qdisc", "qdisc %s ", q->ops->id);
	mqtx__out_str(p, OUT_ANY, "handle", "%s ", h);
	if (v == MQTX_ACT_SHOT || v == MQTX_ACT_STOLEN) {
		verdict_line(p, v, pkt);
	} else if (v >= 0) {
		mqtx__classid_fmt(res.classid, h, sizeof(h));
		mqtx__out_str(p, OUT_ANY, "class", "class %s", h);
	} else {
		mqtx__out_text(p, "no filter matched: its own map decides");
	}
	mqtx__out_nl(p);
	return v;
}

/*
 * The filters of an mq-like root (mqprio's), run before the queue is chosen: a class they name
 * (major:q+1, major:ffe0+tc) chooses it, as mqprio's selection hook does. Returns their verdict
 * (MQTX_ACT_UNSPEC without any), with the queue in the probe when they chose one.
 */
static int root_stage(struct mqtx_dev *dev, struct mqtx_pkt *pkt, struct tc_out *p)
{
	struct mqtx_qdisc *q = mqtx__qtree_root(dev);
	struct mqtx_tcf_result res;
	struct mqtx_tcf_block *b;
	uint32_t minor;
	int v;

	if ((pkt->flags & MQTX_PKT_F_QMAP_SET) || !q || !(q->flags & MQTX_QF_MQROOT) ||
	    !(b = qdisc_block(q)))
		return MQTX_ACT_UNSPEC;
	v = qdisc_block_test(dev, q, b, "root_filters", pkt, &res, p);
	if (v < 0 || v == MQTX_ACT_SHOT || v == MQTX_ACT_STOLEN)
		return v;
	if (MQTX_H_MAJ(res.classid) && MQTX_H_MAJ(res.classid) != MQTX_H_MAJ(q->handle))
		return v;
	minor = MQTX_H_MIN(res.classid);
	if (minor >= 0xFFE0u && minor < 0xFFF0u) /* a traffic class */
		pkt->queue_mapping = mqtx_dev_pick_tx_tc(dev, pkt, minor - 0xFFE0u);
	else if (minor >= 1 && minor <= atomic_load(&dev->real_num_txq))
		pkt->queue_mapping = (uint16_t)(minor - 1);
	else
		return v;
	pkt->flags |= MQTX_PKT_F_QMAP_SET;
	return v;
}

static int run(const struct mqtx_ctl_call *c, struct mqtx_dev *dev, const struct test_args *a,
	       struct mqtx_pkt *pkt, struct tc_out *p)
{
	uint32_t parent = a->ingress ? TCF_PARENT_INGRESS : TCF_PARENT_EGRESS;
	struct mqtx_tcf_block *b = NULL;
	struct mqtx_tcf_result res;
	struct mqtx_extack ack;
	int v = MQTX_ACT_UNSPEC;
	uint32_t real;
	uint16_t qi;

	(void)c;
	mqtx__out_open(p, NULL);
	mqtx__out_open_array(p, "filters");
	if (!mqtx__ctl_filter_block(dev, parent, true, &b, &ack))
		v = mqtx__tcf_test(b, dev, pkt, &res, a->ingress ? "ingress" : "egress", p);
	mqtx__out_close_array(p);
	if (!a->ingress && v != MQTX_ACT_SHOT && v != MQTX_ACT_STOLEN) {
		int rv = root_stage(dev, pkt, p);

		if (rv == MQTX_ACT_SHOT || rv == MQTX_ACT_STOLEN)
			v = rv;
	}
	if (v == MQTX_ACT_SHOT || v == MQTX_ACT_STOLEN || a->ingress) {
		verdict_line(p, v, pkt);
		if (a->ingress && v != MQTX_ACT_SHOT && v != MQTX_ACT_STOLEN)
			mqtx__out_text(p, ": delivered");
		mqtx__out_nl(p);
		mqtx__out_close(p);
		return MQTX_TC_EXIT_OK;
	}
	real = atomic_load(&dev->real_num_txq);
	if (pkt->flags & MQTX_PKT_F_QMAP_SET)
		qi = pkt->queue_mapping < real ? pkt->queue_mapping : 0;
	else
		qi = mqtx_dev_pick_tx(dev, pkt);
	mqtx__out_uint(p, OUT_ANY, "queue", "queue %llu", qi);
	mqtx__out_uint(p, OUT_ANY, "txqueues", " txqueues %llu", real);
	mqtx__out_bool(p, OUT_ANY, "set_by_filter", " (set by a filter)",
		       (pkt->flags & MQTX_PKT_F_QMAP_SET) != 0);
	mqtx__out_nl(p);
	v = qdisc_stage(dev, qi, pkt, p);
	if (v != MQTX_ACT_SHOT && v != MQTX_ACT_STOLEN) {
		verdict_line(p, v, pkt);
		mqtx__out_nl(p);
	}
	mqtx__out_close(p);
	return MQTX_TC_EXIT_OK;
}

int mqtx__ctl_filter_test(const struct mqtx_ctl_call *c)
{
	struct mqtx_pool_cfg pc = { .count = 1, .cache_size = 1 };
	struct test_args a = { .sport = -1, .dport = -1, .proto = IPPROTO_UDP, .vlan = -1 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_pkt *pkt;
	struct mqtx_dev *dev;
	struct mqtx_buf pb;
	struct tc_out p;
	uint8_t frame[2048];
	int n, rc;

	for (int i = 0; i < c->argc; i++) {
		if (!strcmp(c->argv[i], "help") || !strcmp(c->argv[i], "--help")) {
			mqtx_buf_printf(c->out, "%s", TEST_USAGE);
			return MQTX_TC_EXIT_OK;
		}
	}
	rc = test_parse(c, &a);
	if (rc)
		return rc;
	dev = mqtx_ctl_call_dev(c, a.dev);
	if (!dev)
		return MQTX_TC_EXIT_PARSE;
	n = build(&a, frame, sizeof(frame));
	if (n <= 0) {
		mqtx_buf_printf(c->err, "filter test: no frame of %u bytes for that flow\n",
				a.size);
		return MQTX_TC_EXIT_PARSE;
	}
	if (mqtx_pool_create(&pc, &pool))
		return mqtx__ctl_errno(c, "filter test", -ENOMEM);
	pkt = mqtx_pkt_alloc(pool);
	memcpy(mqtx_pkt_put(pkt, (uint32_t)n), frame, (size_t)n);
	pkt->mark = a.mark;
	/* as the generator sends it: the priority of its TOS unless one is given */
	pkt->priority = a.has_priority ? a.priority : mqtx__tos2prio(a.tos);
	mqtx_buf_init(&pb);
	mqtx__out_init(&p, &pb, c->flags & MQTX_CTL_F_JSON, false, false);
	mqtx_dev_config_lock(dev);
	rc = run(c, dev, &a, pkt, &p);
	mqtx_dev_config_unlock(dev);
	mqtx_pkt_free(pkt);
	mqtx_pool_destroy(pool);
	if (pb.nomem) {
		rc = mqtx__ctl_errno(c, "filter test", -ENOMEM);
	} else if (pb.data) {
		mqtx_buf_printf(c->out, "%s%s", pb.data, p.json ? "\n" : "");
	}
	mqtx_buf_free(&pb);
	return rc;
}

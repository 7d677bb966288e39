/* SPDX-License-Identifier: MIT */
/* Test fixture for filters: a command context with its devices, a packet pool, frames of any
 * flow from the generator's builder, and the accounting every test checks. */
#ifndef MQTX_TEST_CLS_FIXTURE_H
#define MQTX_TEST_CLS_FIXTURE_H

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctl_fixture.h"
#include <mqtx/cls.h>
#include <mqtx/mqtx.h>

struct cx {
	struct mqtx_ctl *ctl;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev; /* eth0: 4 queues, null driver, up */
	char out[16384];
};

static inline void cx_setup(struct cx *c)
{
	struct mqtx_pool_cfg pc = { .count = 4096 };

	c->ctl = fixture_ctl();
	assert_int_equal(mqtx_pool_create(&pc, &c->pool), 0);
	c->dev = mqtx_ctl_dev(c->ctl, "eth0");
	assert_non_null(c->dev);
}

static inline void cx_teardown(struct cx *c)
{
	fixture_free(c->ctl);
	assert_int_equal(mqtx_pool_in_use(c->pool), 0);
	mqtx_pool_destroy(c->pool);
}

/* Run a command; its exit code must be @rc. Returns its output and error text (in c->out). */
static inline const char *cx_rc(struct cx *c, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline const char *cx_rc(struct cx *c, int rc, const char *fmt, ...)
{
	char line[2048], *out, *err;
	va_list ap;
	int got;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	got = fixture_run(c->ctl, line, &out, &err);
	snprintf(c->out, sizeof(c->out), "%s%s", out, err);
	free(out);
	free(err);
	if (got != rc)
		fail_msg("\"%s\" exited %d, not %d: %s", line, got, rc, c->out);
	return c->out;
}

#define cx_ok(c, ...) cx_rc((c), 0, __VA_ARGS__)

/* A flow: what the generator's builder needs to make its frame. */
struct flow {
	const char *src, *dst; /* IPv4 or IPv6 addresses */
	uint16_t sport, dport;
	uint8_t proto; /* 0: UDP */
	uint8_t tos;
	int vlan;      /* -1: untagged */
	uint32_t size; /* 0: the smallest */
};

static inline void flow_cfg(const struct flow *f, struct mqtx_gen_cfg *g)
{
	uint32_t a;

	mqtx_gen_cfg_default(g);
	g->proto = f->proto ? f->proto : 17;
	g->tos = f->tos;
	g->vlan = f->vlan ? f->vlan : -1;
	g->ipv6 = strchr(f->src, ':') != NULL;
	if (g->ipv6) {
		/* the builder takes the last 32 bits of an address from the IPv4 range */
		assert_int_equal(inet_pton(AF_INET6, f->src, g->src6), 1);
		assert_int_equal(inet_pton(AF_INET6, f->dst, g->dst6), 1);
		memcpy(&a, g->src6 + 12, 4);
		g->src_lo = g->src_hi = ntohl(a);
		memcpy(&a, g->dst6 + 12, 4);
		g->dst_lo = g->dst_hi = ntohl(a);
	} else {
		assert_int_equal(inet_pton(AF_INET, f->src, &a), 1);
		g->src_lo = g->src_hi = ntohl(a);
		assert_int_equal(inet_pton(AF_INET, f->dst, &a), 1);
		g->dst_lo = g->dst_hi = ntohl(a);
	}
	g->sport_lo = g->sport_hi = f->sport;
	g->dport_lo = g->dport_hi = f->dport;
	g->size = f->size ? f->size : mqtx_gen_min_size(g);
}

/* A packet of flow @f, its sequence number @seq in pkt->user. */
static inline struct mqtx_pkt *cx_pkt(struct cx *c, const struct flow *f, uint64_t seq)
{
	struct mqtx_pkt *p = mqtx_pkt_alloc(c->pool);
	struct mqtx_gen_cfg g;
	int n;

	assert_non_null(p);
	flow_cfg(f, &g);
	n = mqtx_gen_build(&g, seq, p->data, mqtx_pkt_tailroom(p));
	assert_true(n > 0);
	mqtx_pkt_put(p, (uint32_t)n);
	p->user = seq;
	return p;
}

/* Send @n packets of @f on @dev; returns how many mqtx_dev_xmit() accepted. */
static inline unsigned cx_send(struct cx *c, struct mqtx_dev *dev, const struct flow *f, unsigned n)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < n; i++)
		ok += mqtx_dev_xmit(dev, cx_pkt(c, f, i)) != MQTX_XMIT_DROP;
	return ok;
}

static inline struct mqtx_dev_stats cx_stats(struct mqtx_dev *dev)
{
	struct mqtx_dev_stats st;

	mqtx_dev_get_stats(dev, &st);
	return st;
}

/* Every packet handed to @dev is sent, dropped with a reason, or queued. */
static inline void cx_conserved(struct mqtx_dev *dev)
{
	struct mqtx_dev_stats st = cx_stats(dev);

	assert_int_equal(st.xmit, st.txq.packets + mqtx_txq_stats_drops(&st.txq) + st.txq.qlen);
}

static inline uint64_t cx_txq_packets(struct mqtx_dev *dev, uint32_t q)
{
	struct mqtx_txq_stats st;

	mqtx_txq_get_stats(mqtx_dev_txq(dev, q), &st);
	return st.packets;
}

/* ---- classifying with a block directly, without a device ---- */

#define NOMATCH (-1)
#define DROPPED (-2)

/* Split @line into words and change @b with them. */
static inline int change(struct mqtx_tcf_block *b, int verb, const char *line)
{
	struct mqtx_extack ack = { "" };
	char buf[512], *argv[64], *save = NULL;
	int argc = 0, err;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	err = mqtx_tcf_change(b, verb, argc, argv, &ack);
	if (err)
		print_message("%s: %s\n", line, ack.msg);
	return err;
}

#define add(b, line) assert_int_equal(change((b), MQTX_TCF_ADD, (line)), 0)

/* The minor of the class @p classifies to, NOMATCH or DROPPED. */
static inline int cls_pkt(struct mqtx_tcf_block *b, struct mqtx_pkt *p)
{
	struct mqtx_tcf_result res;
	int v = mqtx_tcf_classify(b, NULL, p, &res);

	mqtx_pkt_free(p);
	if (v == MQTX_ACT_UNSPEC)
		return NOMATCH;
	if (v == MQTX_ACT_SHOT)
		return DROPPED;
	assert_int_equal(v, MQTX_ACT_OK);
	return (int)(res.classid & 0xFFFF);
}

static inline int cls(struct cx *c, struct mqtx_tcf_block *b, const struct flow *f)
{
	return cls_pkt(b, cx_pkt(c, f, 0));
}

#endif

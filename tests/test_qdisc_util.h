/* SPDX-License-Identifier: MIT */
/* Shared fixture of the qdisc tests: a down null-driver device on a virtual clock, packets,
 * option parsing from a string, direct enqueue/dequeue with drop accounting, dumps. */
#ifndef MQTX_TEST_QDISC_UTIL_H
#define MQTX_TEST_QDISC_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mqtx/ctl.h>
#include <mqtx/driver.h>
#include <mqtx/qdisc.h>

#include "qdisc/kinds.h"

struct tq {
	struct mqtx_clock *clock;
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	struct mqtx_qdisc *q;
	uint64_t freed;	   /* packets that came back on to_free */
	uint64_t accepted; /* SUCCESS or CN */
	uint64_t refused;  /* DROP */
	uint64_t sent;	   /* dequeued */
	char err[200];
};

static inline void tq_setup(struct tq *t, uint32_t txqlen, uint32_t mtu)
{
	struct mqtx_pool_cfg pc = { .count = 4096, .data_room = 2048 };
	struct mqtx_dev_cfg dc = { .name = "tq0", .ops = &mqtx_null_ops, .num_txq = 1 };

	memset(t, 0, sizeof(*t));
	assert_int_equal(mqtx_clock_new_virtual(1000000000ull, &t->clock), 0);
	dc.clock = t->clock;
	dc.tx_queue_len = txqlen;
	dc.mtu = mtu;
	assert_int_equal(mqtx_dev_create(&dc, &t->dev), 0);
	assert_int_equal(mqtx_pool_create(&pc, &t->pool), 0);
}

static inline void tq_teardown(struct tq *t)
{
	mqtx_qdisc_destroy(t->q);
	t->q = NULL;
	mqtx_dev_destroy(t->dev);
	assert_int_equal(mqtx_pool_in_use(t->pool), 0);
	mqtx_pool_destroy(t->pool);
	mqtx_clock_free(t->clock);
}

/* Split @opts on spaces and run the kind's parser into a fresh options buffer. */
static inline int tq_parse(const struct mqtx_qdisc_ops *ops, const char *opts, void **optp,
			   char *err, size_t errlen)
{
	struct mqtx_extack ack = { "" };
	char buf[512], *argv[64];
	int argc = 0, ret;
	void *opt;

	*optp = NULL;
	if (!opts)
		return 0;
	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *s = strtok(buf, " "); s && argc < 64; s = strtok(NULL, " "))
		argv[argc++] = s;
	opt = calloc(1, ops->opt_size ? ops->opt_size : 1);
	assert_non_null(opt);
	ret = ops->parse ? ops->parse(argc, argv, opt, &ack) : (argc ? -EINVAL : 0);
	if (err)
		snprintf(err, errlen, "%s", ack.msg);
	if (ret) {
		free(opt);
		return ret;
	}
	*optp = opt;
	return 0;
}

/* What the qdisc logged while it refused (Linux's refusals without a message log why). */
static char tq_logged[200];

static inline void tq_log(enum mqtx_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	snprintf(tq_logged, sizeof(tq_logged), "%s", msg);
}

/* The message of a refused create or change: the extack's, else what was logged. */
static inline void tq_refused(struct tq *t, const struct mqtx_extack *ack)
{
	snprintf(t->err, sizeof(t->err), "%s", ack->msg[0] ? ack->msg : tq_logged);
}

/* Create t->q of kind @ops with @opts (NULL: defaults). Returns the error of parse/create. */
static inline int tq_create(struct tq *t, const struct mqtx_qdisc_ops *ops, const char *opts)
{
	struct mqtx_extack ack = { "" };
	void *opt;
	int ret;

	ret = tq_parse(ops, opts, &opt, t->err, sizeof(t->err));
	if (ret)
		return ret;
	tq_logged[0] = '\0';
	mqtx_set_log(tq_log, NULL, MQTX_LOG_ERR);
	ret = mqtx_qdisc_create(t->dev, mqtx_dev_txq(t->dev, 0), ops, 0x10000, opt, &ack, &t->q);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	if (ret)
		tq_refused(t, &ack);
	free(opt);
	return ret;
}

static inline int tq_change(struct tq *t, const char *opts)
{
	struct mqtx_extack ack = { "" };
	struct mqtx_pkt *to_free = NULL;
	void *opt;
	int ret;

	ret = tq_parse(t->q->ops, opts, &opt, t->err, sizeof(t->err));
	if (ret)
		return ret;
	tq_logged[0] = '\0';
	mqtx_set_log(tq_log, NULL, MQTX_LOG_ERR);
	ret = t->q->ops->change(t->q, opt, &to_free, &ack);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	if (ret)
		tq_refused(t, &ack);
	t->freed += mqtx_qdisc_free_dropped(t->dev, to_free);
	free(opt);
	return ret;
}

static inline struct mqtx_pkt *tq_pkt(struct tq *t, uint32_t len, uint64_t user)
{
	struct mqtx_pkt *p = mqtx_pkt_alloc(t->pool);

	assert_non_null(p);
	assert_non_null(mqtx_pkt_put(p, len));
	memset(p->data, 0, len);
	p->user = user;
	return p;
}

/* An Ethernet/IPv4/UDP frame of @len bytes (>= 42) with the given 5-tuple and TOS byte. */
static inline struct mqtx_pkt *tq_udp4(struct tq *t, uint32_t len, uint32_t saddr, uint32_t daddr,
				       uint16_t sport, uint16_t dport, uint8_t tos)
{
	struct mqtx_pkt *p = tq_pkt(t, len, 0);
	uint8_t *f = p->data, *ip = f + 14, *udp = ip + 20;
	uint32_t sum = 0;
	uint16_t tot = (uint16_t)(len - 14);

	f[12] = 0x08;
	f[13] = 0x00;
	ip[0] = 0x45;
	ip[1] = tos;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[8] = 64;
	ip[9] = 17;
	for (int i = 0; i < 4; i++) {
		ip[12 + i] = (uint8_t)(saddr >> (24 - 8 * i));
		ip[16 + i] = (uint8_t)(daddr >> (24 - 8 * i));
	}
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	return p;
}

/* The IPv4 header checksum of a tq_udp4 frame verifies (sums to 0xffff). */
static inline bool tq_ip4_csum_ok(const struct mqtx_pkt *p)
{
	const uint8_t *ip = p->data + 14;
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* Enqueue directly; frees whatever came back on to_free. Returns the qdisc's code. */
static inline int tq_enq(struct tq *t, struct mqtx_pkt *p)
{
	struct mqtx_pkt *to_free = NULL;
	int ret = t->q->ops->enqueue(t->q, p, &to_free);

	t->freed += mqtx_qdisc_free_dropped(t->dev, to_free);
	if (ret == MQTX_XMIT_DROP)
		t->refused++;
	else
		t->accepted++;
	return ret;
}

/* Dequeue directly; returns the packet's user tag and frees it, or -1 when none. */
static inline int64_t tq_deq(struct tq *t)
{
	struct mqtx_pkt *p = t->q->ops->dequeue(t->q);
	int64_t u;

	if (!p)
		return -1;
	u = (int64_t)p->user;
	t->sent++;
	mqtx_pkt_free(p);
	return u;
}

/* Every packet handed in is sent, dropped (counted by the qdisc) or still queued. */
static inline void tq_check_conservation(struct tq *t, uint64_t handed)
{
	struct mqtx_txq_stats st;
	struct mqtx_dev_stats ds;
	uint64_t drops;

	assert_int_equal(t->accepted + t->refused, handed);
	mqtx_txq_get_stats(mqtx_dev_txq(t->dev, 0), &st);
	mqtx_dev_get_stats(t->dev, &ds);
	/* An ingress qdisc's drops are receive drops; the others', the TX queue's. */
	drops = (t->q->flags & MQTX_QF_INGRESS) ? ds.rx_drops : mqtx_txq_stats_drops(&st);
	assert_int_equal(t->sent + drops + t->q->qlen, handed);
	assert_int_equal(t->q->drops, drops);
	assert_int_equal(mqtx_pool_in_use(t->pool), t->q->qlen);
}

static inline const char *tq_dump(struct tq *t)
{
	static char text[512], json[1024];

	assert_true(mqtx_qdisc_dump_opts(t->q, text, sizeof(text), json, sizeof(json)) >= 0);
	return text;
}

/* The options as "tc -d" prints them (text, or JSON with @json). */
static inline const char *tq_dump_details(struct tq *t, bool json)
{
	static char text[512], js[1024];

	assert_true(mqtx_qdisc_dump_options(t->q, MQTX_DUMP_F_DETAILS, text, sizeof(text), js,
					    sizeof(js)) >= 0);
	return json ? js : text;
}

/* The qdisc's xstats (@minor 0) or its class @minor's, as "tc -s" prints them (text, or JSON
 * with @json). */
static inline const char *tq_xstats(struct tq *t, uint32_t minor, bool json)
{
	static char text[512], js[1024];

	if (minor)
		assert_true(mqtx_class_dump_xstats(t->q, minor, text, sizeof(text), js,
						   sizeof(js)) >= 0);
	else
		assert_true(mqtx_qdisc_dump_xstats(t->q, text, sizeof(text), js, sizeof(js)) >= 0);
	return json ? js : text;
}

/* The JSON members of the options ("options":{...} without the braces), as -j prints them. */
static inline const char *tq_json(struct tq *t)
{
	static char text[512], json[1024];

	assert_true(mqtx_qdisc_dump_opts(t->q, text, sizeof(text), json, sizeof(json)) >= 0);
	return json;
}

/* Attach t->q to the device's only queue and bring the device up. */
static inline void tq_attach(struct tq *t)
{
	struct mqtx_qdisc *qs[1] = { t->q }, *old[1] = { NULL };

	mqtx_dev_config_lock(t->dev);
	mqtx_dev_graft_all(t->dev, qs, old);
	mqtx_dev_config_unlock(t->dev);
	assert_int_equal(mqtx_dev_open(t->dev), 0);
}

/* What the null driver of the fixture's device has taken. */
static inline uint64_t tq_driver_sent(struct tq *t)
{
	uint64_t pk, by;

	mqtx_null_counts(t->dev, &pk, &by);
	return pk;
}

/* Advance to @when (absolute), run what the timers scheduled, return the driver's count. */
static inline uint64_t tq_at(struct tq *t, uint64_t when)
{
	mqtx_clock_advance_to(t->clock, when);
	mqtx_tx_action();
	return tq_driver_sent(t);
}

/* Replace t->q at the root of the up device by a new pfifo while it holds packets (they move
 * into the pfifo), destroy it, run the queue; returns what the driver has taken then. */
static inline uint64_t tq_replace_by_pfifo(struct tq *t)
{
	struct mqtx_qdisc *qs[1], *old[1] = { NULL };

	assert_int_equal(mqtx_qdisc_create(t->dev, mqtx_dev_txq(t->dev, 0), &mqtx__pfifo_qdisc_ops,
					   0x20000, NULL, NULL, &qs[0]),
			 0);
	mqtx_dev_config_lock(t->dev);
	mqtx_dev_graft_all(t->dev, qs, old);
	mqtx_dev_config_unlock(t->dev);
	assert_ptr_equal(old[0], t->q);
	mqtx_qdisc_destroy(old[0]);
	t->q = qs[0];
	mqtx_tx_action();
	return tq_driver_sent(t);
}

/* A command context that owns the fixture's device (it destroys it), with reply buffers. */
struct tq_ctl {
	struct mqtx_ctl *ctl;
	struct mqtx_buf out, err;
};

static inline void tq_ctl_open(struct tq *t, struct tq_ctl *c)
{
	assert_int_equal(mqtx_ctl_new(&c->ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(c->ctl, t->dev), 0);
	mqtx_buf_init(&c->out);
	mqtx_buf_init(&c->err);
}

/* Run @cmd; returns its exit code (MQTX_CTL_*). */
static inline int tq_ctl_run(struct tq_ctl *c, const char *cmd)
{
	c->out.len = c->err.len = 0;
	return mqtx_ctl_exec_line(c->ctl, cmd, 0, &c->out, &c->err);
}

/* The qdisc at the root of the fixture's only queue, into t->q. */
static inline void tq_ctl_root(struct tq *t)
{
	mqtx_dev_config_lock(t->dev);
	t->q = mqtx_txq_qdisc(mqtx_dev_txq(t->dev, 0));
	mqtx_dev_config_unlock(t->dev);
}

/* Free the context (and so the device with its qdiscs), then the rest of the fixture. */
static inline void tq_ctl_close(struct tq *t, struct tq_ctl *c)
{
	t->q = NULL;
	mqtx_buf_free(&c->out);
	mqtx_buf_free(&c->err);
	mqtx_ctl_free(c->ctl);
	assert_int_equal(mqtx_pool_in_use(t->pool), 0);
	mqtx_pool_destroy(t->pool);
	mqtx_clock_free(t->clock);
}

#endif

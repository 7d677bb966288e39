/* SPDX-License-Identifier: MIT */
/* Shared by the WME tests: frames to stations, a sim-wifi device on a virtual clock, a record
 * of what the medium delivered, the conservation law. */
#ifndef MQTX_TEST_WME_UTIL_H
#define MQTX_TEST_WME_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mqtx/mqtx.h>
#include <mqtx/qdisc.h>
#include <mqtx/sim_wifi.h>

#include "helpers.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000ull

/* Station n (0..15): 02:00:00:00:00:n. A constant table: threads share it. */
static inline const uint8_t *sta_mac(uint8_t n)
{
	static const uint8_t m[16][6] = {
		{ 0x02, 0, 0, 0, 0, 0 },  { 0x02, 0, 0, 0, 0, 1 },  { 0x02, 0, 0, 0, 0, 2 },
		{ 0x02, 0, 0, 0, 0, 3 },  { 0x02, 0, 0, 0, 0, 4 },  { 0x02, 0, 0, 0, 0, 5 },
		{ 0x02, 0, 0, 0, 0, 6 },  { 0x02, 0, 0, 0, 0, 7 },  { 0x02, 0, 0, 0, 0, 8 },
		{ 0x02, 0, 0, 0, 0, 9 },  { 0x02, 0, 0, 0, 0, 10 }, { 0x02, 0, 0, 0, 0, 11 },
		{ 0x02, 0, 0, 0, 0, 12 }, { 0x02, 0, 0, 0, 0, 13 }, { 0x02, 0, 0, 0, 0, 14 },
		{ 0x02, 0, 0, 0, 0, 15 },
	};

	return m[n & 15];
}

/* An Ethernet/IPv4/UDP frame of @len bytes (>= 42) to @dst with DSCP @dscp; pkt->user = @user. */
static inline struct mqtx_pkt *wifi_frame(struct mqtx_pkt_pool *pool, const uint8_t *dst,
					  unsigned dscp, uint32_t len, uint64_t user)
{
	struct mqtx_pkt *p = mqtx_pkt_alloc(pool);
	uint8_t *f;

	if (!p || !(f = mqtx_pkt_put(p, len)))
		abort(); /* the pool or its data room is too small for the test */
	memset(f, 0, len);
	memcpy(f, dst, 6);
	f[6] = 0x02;
	f[11] = 0xfe;
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = (uint8_t)(dscp << 2);
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;
	f[26] = 10;
	f[29] = 1;
	f[30] = 10;
	f[33] = dst[5];
	f[34] = (uint8_t)(user >> 8);
	f[35] = (uint8_t)user;
	f[37] = 9;
	p->user = user;
	return p;
}

/* DSCPs that land on each UP by default (RFC 8325): UP 0 DF, 1 CS1, 4 CS4, 5 CS5, 6 EF, 7 CS6. */
#define DSCP_BE 0
#define DSCP_BK 8
#define DSCP_VI 34
#define DSCP_VO 46

/* What the medium delivered, in order. */
struct delivered {
	unsigned n;
	uint64_t user[8192];
	uint8_t sta[8192], up[8192], ac[8192];
	uint64_t at[8192], lat[8192];
};

static inline void record_done(struct mqtx_dev *dev, const struct mqtx_pkt *pkt,
			       enum mqtx_wme_ac ac, uint64_t done_ns, void *arg)
{
	struct delivered *d = arg;

	(void)dev;
	if (d->n >= 8192)
		return;
	d->user[d->n] = pkt->user;
	d->sta[d->n] = pkt->data[5];
	d->up[d->n] = (uint8_t)(pkt->priority & 7);
	d->ac[d->n] = (uint8_t)ac;
	d->at[d->n] = done_ns;
	d->lat[d->n] = done_ns - pkt->tstamp;
	d->n++;
}

/* A sim-wifi device "wl0" with the default model on a virtual clock at T0, and stations 1
 * (QoS-capable) and 2 (QoS-capable as @qos2). */
struct wifi_env {
	struct mqtx_clock *clock;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
};

static inline void wifi_env_new(struct wifi_env *e, bool qos2)
{
	struct mqtx_dev_cfg c = { .name = "wl0" };
	struct mqtx_extack ack = { "" };

	memset(e, 0, sizeof(*e));
	assert_int_equal(test_env_virtual(T0, 1024, &e->clock, &e->pool), 0);
	c.clock = e->clock;
	assert_int_equal(mqtx_sim_wifi_dev_create(&c, NULL, NULL, &e->dev, &ack), 0);
	assert_int_equal(mqtx_wme_sta_add(e->dev, sta_mac(1), true, &ack), 0);
	assert_int_equal(mqtx_wme_sta_add(e->dev, sta_mac(2), qos2, &ack), 0);
}

/* Change the wme qdisc of TX queue @queue of @dev with tc-style options. */
static inline void wme_qchange(struct mqtx_dev *dev, uint16_t queue, const char *opts)
{
	const struct mqtx_qdisc_ops *ops = mqtx_qdisc_lookup("wme");
	struct mqtx_extack ack = { "" };
	struct mqtx_pkt *to_free = NULL;
	char buf[128], *argv[16], *save = NULL;
	struct mqtx_qdisc *q;
	int argc = 0;
	void *opt;

	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	opt = calloc(1, ops->opt_size);
	assert_int_equal(ops->parse(argc, argv, opt, &ack), 0);
	mqtx_dev_config_lock(dev);
	q = mqtx_txq_qdisc(mqtx_dev_txq(dev, queue));
	assert_ptr_equal(q->ops, ops);
	assert_int_equal(ops->change(q, opt, &to_free, &ack), 0);
	mqtx_dev_config_unlock(dev);
	mqtx_qdisc_free_dropped(dev, to_free);
	free(opt);
}

/* Every frame handed to the device was delivered by the driver, dropped with a reason, or is
 * still queued. */
static inline void check_conservation(struct mqtx_dev *dev, uint64_t handed)
{
	struct mqtx_dev_stats ds;

	mqtx_dev_get_stats(dev, &ds);
	assert_int_equal(ds.xmit, handed);
	assert_int_equal(ds.txq.packets + mqtx_txq_stats_drops(&ds.txq) + ds.txq.qlen, handed);
}

#endif

// SPDX-License-Identifier: MIT
// Fuzz WME on a sim-wifi device: random stations (QoS or not, reserved TIDs, block-ack
// sessions), ACM, admitted streams, QoS Maps and classifiers, then what-if queries and frames.
// A verdict is always a real queue with a real UP and follows admission control's rules,
// asking changes nothing, and every frame sent is delivered, dropped with a reason, or queued.
#include <errno.h>
#include <string.h>

#include <mqtx/clock.h>
#include <mqtx/mqtx.h>
#include <mqtx/sim_wifi.h>

#include "fuzz.h"

#define NUM_STA 8

static struct mqtx_clock *clk;
static struct mqtx_pkt_pool *pool;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct mqtx_pool_cfg pc = { .count = 512, .data_room = 512 };

	(void)argc;
	(void)argv;
	if (mqtx_clock_new_virtual(1000000000ull, &clk) || mqtx_pool_create(&pc, &pool))
		abort();
	return 0;
}

struct cursor {
	const uint8_t *p;
	size_t n;
};

static uint8_t get8(struct cursor *c)
{
	if (!c->n)
		return 0;
	c->n--;
	return *c->p++;
}

static const uint8_t *sta(unsigned n)
{
	static uint8_t m[NUM_STA + 2][6];

	m[n][0] = 0x02;
	m[n][5] = (uint8_t)n;
	return m[n];
}

/* A QoS Map from raw bytes: set exactly when it passes the check, and printed it reads back. */
static void qos_map(struct mqtx_dev *dev, struct cursor *c)
{
	struct mqtx_wme_qos_map m = { 0 }, back = { 0 };
	struct mqtx_extack ack = { 0 };
	char text[256];
	int ok;

	m.num_except = get8(c) % (MQTX_WME_QOS_MAP_MAX_EXCEPT + 2);
	for (unsigned i = 0; i < m.num_except && i < MQTX_WME_QOS_MAP_MAX_EXCEPT; i++) {
		m.except[i].dscp = get8(c);
		m.except[i].up = get8(c);
	}
	for (unsigned u = 0; u < MQTX_WME_NUM_UP; u++) {
		m.range[u].low = get8(c);
		m.range[u].high = get8(c);
	}
	ok = mqtx_wme_qos_map_check(&m, &ack);
	FUZZ_CHECK(ok == 0 || ack.msg[0], "refused without a reason");
	FUZZ_CHECK(mqtx_wme_set_qos_map(dev, &m, &ack) == ok, "set and check disagree");
	if (ok)
		return;
	mqtx_wme_qos_map_format(&m, text, sizeof(text));
	FUZZ_CHECK(mqtx_wme_qos_map_parse(text, &back, &ack) == 0 && !memcmp(&m, &back, sizeof(m)),
		   "\"%s\" does not read back", text);
}

/* Stations, sessions and admitted streams. */
static void peers(struct mqtx_dev *dev, struct cursor *c)
{
	struct mqtx_extack ack = { 0 };
	unsigned n = get8(c) % (NUM_STA + 1);

	for (unsigned i = 1; i <= n; i++) {
		uint8_t f = get8(c);

		FUZZ_CHECK(mqtx_wme_sta_add(dev, sta(i), f & 1, &ack) == 0, "%s", ack.msg);
		if (f & 2)
			mqtx_wme_sta_set_reserved_tid(dev, sta(i), (f >> 2) & 7, &ack);
		if (f & 0x20)
			mqtx_wme_ba_start(dev, sta(i), get8(c) & 7, &ack);
	}
	for (unsigned i = get8(c) % 5; i; i--)
		mqtx_wme_set_tspec(dev, get8(c) % 4, get8(c) % 8, get8(c), &ack);
	if (get8(c) & 1)
		mqtx_clock_advance(clk, 200000); /* the peers answer the ADDBA requests */
}

static void query(struct mqtx_dev *dev, struct cursor *c, const struct mqtx_wme_info *info)
{
	struct mqtx_wme_query q = { .flags = (get8(c) | get8(c) << 8) & 0x1ffu };
	struct mqtx_wme_stats before, after;
	struct mqtx_extack ack = { 0 };
	struct mqtx_wme_verdict v;
	uint8_t p = get8(c);
	int rc;

	q.priority = p & 0x80 ? 256u + (p & 7) : p;
	q.vlan_pcp = get8(c) & 7;
	q.dscp = get8(c) & 63;
	memcpy(q.sta, sta(get8(c) % (NUM_STA + 2)), 6);
	mqtx_wme_get_stats(dev, &before);
	rc = mqtx_wme_classify(dev, &q, &v, &ack);
	mqtx_wme_get_stats(dev, &after);
	FUZZ_CHECK(!memcmp(&before, &after, sizeof(before)), "a what-if query counted");
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOENT, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(ack.msg[0], "refused without a reason");
		return;
	}
	FUZZ_CHECK(v.up < 8 && v.ac < MQTX_WME_NUM_AC, "up %u ac %u", v.up, v.ac);
	if (v.drop) {
		FUZZ_CHECK(info->noadmit == MQTX_WME_NOADMIT_DROP && (info->acm & 1u << v.ac),
			   "dropped at AC %u, acm %#x", v.ac, info->acm);
		return;
	}
	FUZZ_CHECK(v.queue < 4 + info->num_agg_queues, "queue %u", v.queue);
	FUZZ_CHECK(v.ampdu == (v.queue >= 4) && (v.ampdu || v.queue == v.ac), "queue %u ac %u%s",
		   v.queue, v.ac, v.ampdu ? " ampdu" : "");
	FUZZ_CHECK(!v.downgraded || info->acm, "downgraded without ACM");
	if (!v.downgraded && !(q.flags & MQTX_WME_Q_MGMT))
		FUZZ_CHECK(v.ac == mqtx_wme_up_to_ac(v.up), "up %u on AC %u", v.up, v.ac);
}

static void frame(struct mqtx_dev *dev, struct cursor *c, uint8_t kind,
		  const struct mqtx_wme_info *info, uint64_t *sent)
{
	size_t len = get8(c);
	struct mqtx_pkt *pkt;
	unsigned up;

	if (len > c->n)
		len = c->n;
	up = mqtx_wme_classify8021d(c->p, len, kind, info->has_qos_map ? &info->qos_map : NULL,
				    info->legacy);
	FUZZ_CHECK(up < 8, "up %u", up);
	FUZZ_CHECK(up == mqtx_wme_classify8021d(c->p, len, kind,
						info->has_qos_map ? &info->qos_map : NULL,
						info->legacy),
		   "not stable");
	pkt = mqtx_pkt_alloc(pool);
	if (pkt && mqtx_pkt_put(pkt, (uint32_t)len)) {
		memcpy(pkt->data, c->p, len);
		pkt->priority = kind & 0x40 ? 256u + (kind & 7) : kind & 7;
		if (kind & 0x20)
			pkt->flags |= MQTX_PKT_F_MGMT;
		mqtx_dev_xmit(dev, pkt);
		(*sent)++;
	} else if (pkt) {
		mqtx_pkt_free(pkt);
	}
	c->p += len;
	c->n -= len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mqtx_dev_cfg base = { .name = "wl0", .clock = clk };
	struct cursor c = { data, size };
	struct mqtx_extack ack = { 0 };
	struct mqtx_wme_info info;
	struct mqtx_dev_stats st;
	struct mqtx_dev *dev;
	uint64_t sent = 0;
	uint8_t b = get8(&c);

	FUZZ_CHECK(mqtx_sim_wifi_dev_create(&base, NULL, NULL, &dev, &ack) == 0, "%s", ack.msg);
	FUZZ_CHECK(mqtx_dev_open(dev) == 0, "open");
	FUZZ_CHECK(mqtx_wme_set_acm(dev, b & 0xf, &ack) == 0, "%s", ack.msg);
	mqtx_wme_set_noadmit(dev, (b >> 4) & 1, &ack);
	mqtx_wme_set_legacy(dev, (b >> 5) & 1, &ack);
	if (b & 0x40)
		qos_map(dev, &c);
	peers(dev, &c);
	FUZZ_CHECK(mqtx_wme_get_info(dev, &info) == 0, "info");
	while (c.n) {
		uint8_t kind = get8(&c);

		if (kind & 0x80)
			frame(dev, &c, kind, &info, &sent);
		else
			query(dev, &c, &info);
	}
	mqtx_clock_advance(clk, 2000000000ull); /* the medium sends what it can, sessions end */
	mqtx_dev_get_stats(dev, &st);
	FUZZ_CHECK(st.xmit == sent &&
			   st.xmit == st.txq.packets + mqtx_txq_stats_drops(&st.txq) + st.txq.qlen,
		   "sent %llu xmit %llu packets %llu qlen %llu", (unsigned long long)sent,
		   (unsigned long long)st.xmit, (unsigned long long)st.txq.packets,
		   (unsigned long long)st.txq.qlen);
	mqtx_dev_destroy(dev);
	FUZZ_CHECK(mqtx_pool_in_use(pool) == 0, "%u packets not returned",
		   (unsigned)mqtx_pool_in_use(pool));
	return 0;
}

// SPDX-License-Identifier: MIT
/* Block-ack sessions start and stop (accepted and refused) while several threads send, in
 * real time, with FIFO queues and with fq_codel sharing the radio's flow table: every station's
 * frames are delivered in the order they were sent, and every frame is delivered, dropped with
 * a counted reason, or still queued (or, taken by the driver, expired before the air). */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "wme_util.h"

#define SENDERS 2
#define FRAMES	4000

static struct mqtx_pkt_pool *pool;
static struct mqtx_dev *dev;
static atomic_bool senders_done;
static atomic_uint_fast64_t delivered[SENDERS], misordered;
static uint64_t last[SENDERS];
static bool seen[SENDERS];

/* Sender s: station s + 1, TID 0 for the first (BE), 5 for the second (VI, CS5). */
static const unsigned dscp_of[SENDERS] = { 0, 40 };
static const unsigned tid_of[SENDERS] = { 0, 5 };

static void on_done(struct mqtx_dev *d, const struct mqtx_pkt *pkt, enum mqtx_wme_ac ac,
		    uint64_t done_ns, void *arg)
{
	unsigned s = pkt->data[5] - 1u;

	(void)d;
	(void)ac;
	(void)done_ns;
	(void)arg;
	if (s >= SENDERS)
		return;
	/* Only the medium's thread calls this. */
	if (seen[s] && pkt->user <= last[s])
		atomic_fetch_add(&misordered, 1);
	seen[s] = true;
	last[s] = pkt->user;
	atomic_fetch_add(&delivered[s], 1);
}

/* wifi_frame() writes the sequence number into the UDP source port: a flow per frame. Flow
 * queueing keeps the order within a flow only, so with fq_codel each station sends one flow. */
static bool one_flow;

static void *sender(void *arg)
{
	unsigned s = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < FRAMES; i++) {
		struct mqtx_pkt *p =
			wifi_frame(pool, sta_mac((uint8_t)(s + 1)), dscp_of[s], 200, i);

		if (one_flow)
			p->data[34] = p->data[35] = 0;
		mqtx_dev_xmit(dev, p);
		if (i % 64 == 63)
			usleep(200); /* let the medium drain a little */
	}
	return NULL;
}

static void *control(void *arg)
{
	unsigned *ops = arg, round = 0;
	struct mqtx_extack ack;

	while (!atomic_load(&senders_done)) {
		unsigned s = round % SENDERS;

		/* Every third session is refused by the peer. */
		mqtx_sim_wifi_set_ba(
			dev, round % 3 == 2 ? MQTX_SIM_WIFI_BA_REFUSE : MQTX_SIM_WIFI_BA_ACCEPT,
			30000);
		if (!mqtx_wme_ba_start(dev, sta_mac((uint8_t)(s + 1)), tid_of[s], &ack))
			ops[0]++;
		usleep(700);
		if (!mqtx_wme_ba_stop(dev, sta_mac((uint8_t)(s + 1)), tid_of[s], &ack))
			ops[1]++;
		usleep(300);
		round++;
	}
	return NULL;
}

/* Frames the driver took and let expire before the air (counted as sent by the stack). */
static uint64_t ring_expired(void)
{
	uint64_t n = 0;

	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		struct mqtx_sim_wifi_ac_stats a;

		assert_int_equal(mqtx_sim_wifi_ac_stats(dev, (enum mqtx_wme_ac)ac, &a), 0);
		n += a.expired;
	}
	return n;
}

static void ba_under_traffic(const char *qdisc_opts)
{
	struct mqtx_pool_cfg pc = { .count = 16384 };
	struct mqtx_dev_cfg c = { .name = "wl0" };
	struct mqtx_sim_wifi_cfg sw = { .rate_bps = 600000000ull, .done = on_done };
	struct mqtx_wme_cfg wc = { .num_agg_queues = 1 };
	struct mqtx_extack ack = { "" };
	struct mqtx_dev_stats ds;
	struct mqtx_wme_stats ws;
	pthread_t th[SENDERS], ctl;
	unsigned ops[2] = { 0, 0 };
	uint64_t total = 0;

	one_flow = qdisc_opts != NULL;
	atomic_store(&senders_done, false);
	atomic_store(&misordered, 0);
	for (unsigned s = 0; s < SENDERS; s++) {
		atomic_store(&delivered[s], 0);
		seen[s] = false;
	}
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	assert_int_equal(mqtx_sim_wifi_dev_create(&c, &sw, &wc, &dev, &ack), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	for (uint16_t q = 0; qdisc_opts && q < mqtx_dev_num_txq(dev); q++)
		wme_qchange(dev, q, qdisc_opts);
	for (unsigned s = 0; s < SENDERS; s++)
		assert_int_equal(mqtx_wme_sta_add(dev, sta_mac((uint8_t)(s + 1)), true, &ack), 0);
	pthread_create(&ctl, NULL, control, ops);
	for (unsigned s = 0; s < SENDERS; s++)
		pthread_create(&th[s], NULL, sender, (void *)(uintptr_t)s);
	for (unsigned s = 0; s < SENDERS; s++)
		pthread_join(th[s], NULL);
	atomic_store(&senders_done, true);
	pthread_join(ctl, NULL);
	for (int i = 0; i < 20000 && !mqtx_dev_all_tx_empty(dev); i++)
		usleep(1000);
	assert_true(mqtx_dev_all_tx_empty(dev));
	assert_int_equal(mqtx_dev_close(dev), 0);

	assert_int_equal(atomic_load(&misordered), 0);
	assert_true(ops[0] > 0 && ops[1] > 0);
	mqtx_dev_get_stats(dev, &ds);
	for (unsigned s = 0; s < SENDERS; s++)
		total += atomic_load(&delivered[s]);
	assert_int_equal(ds.xmit, SENDERS * FRAMES);
	assert_int_equal(ds.txq.qlen, 0);
	assert_int_equal(ds.txq.packets, total + ring_expired());
	assert_int_equal(ds.txq.packets + mqtx_txq_stats_drops(&ds.txq), SENDERS * FRAMES);
	assert_int_equal(mqtx_wme_get_stats(dev, &ws), 0);
	print_message("sessions started %u stopped %u; moved to agg %llu, back %llu; "
		      "delivered %llu, dropped %llu\n",
		      ops[0], ops[1], (unsigned long long)ws.moved_to_agg,
		      (unsigned long long)ws.moved_to_ac, (unsigned long long)total,
		      (unsigned long long)mqtx_txq_stats_drops(&ds.txq));
	mqtx_dev_destroy(dev);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
	mqtx_pool_destroy(pool);
}

static void test_ba_under_traffic(void **state)
{
	(void)state;
	ba_under_traffic(NULL);
}

static void test_ba_under_traffic_radio_fq(void **state)
{
	(void)state;
	ba_under_traffic("fq_codel radio");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ba_under_traffic),
		cmocka_unit_test(test_ba_under_traffic_radio_fq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

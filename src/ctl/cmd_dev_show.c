// SPDX-License-Identifier: MIT
/* "dev show" and "dev stats": a device's state, settings, queues and counters, as text or JSON
 * from the same calls. */
#include <stdio.h>
#include <string.h>

#include <mqtx/ctl.h>
#include <mqtx/driver.h>
#include <mqtx/tc.h>

#include "base/internal.h"
#include "core/core.h"
#include "ctl/ctl_int.h"
#include "ctl/dev_kinds.h"

static const char *hash_name(enum mqtx_hash_algo a)
{
	static const char *const names[] = { "jhash", "toeplitz", "toeplitz-sym", "callback" };

	return (unsigned)a < ARRAY_SIZE(names) ? names[a] : "?";
}

/* The hash options after the algorithm, as "dev set ... hash" takes them: every one that is set
 * (seed always; the key when one was given; l4 where it counts, with Toeplitz: jhash always
 * hashes the ports). JSON has every field. */
static void show_hash_opts(const struct mqtx_hash_cfg *hc, struct tc_out *p)
{
	char key[2 * sizeof(hc->key) + 1];

	mqtx__out_uint(p, OUT_ANY, "seed", " seed 0x%llx", hc->seed);
	if (hc->key_len) {
		for (unsigned i = 0; i < hc->key_len && i < sizeof(hc->key); i++)
			snprintf(key + 2 * i, 3, "%02x", hc->key[i]);
		mqtx__out_str(p, OUT_ANY, "key", " key %s", key);
	}
	mqtx__out_bool(p, OUT_JSON, "l4", NULL, hc->l4);
	mqtx__out_bool(p, OUT_FP, NULL, " l4", hc->l4 && hc->algo != MQTX_HASH_JHASH);
}

static void state_words(uint32_t st, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", st & MQTX_TXQ_DRV_XOFF ? "XOFF," : "",
		 st & MQTX_TXQ_STACK_XOFF ? "STACK_XOFF," : "",
		 st & MQTX_TXQ_FROZEN ? "frozen," : "", st ? "" : "running");
	if (st && strlen(buf))
		buf[strlen(buf) - 1] = '\0';
}

/* "dropped N (reason n ...)" for a per-reason array; JSON: the total as @key (NULL: none) and,
 * with @reasons, each reason's count in a "drop_reasons" object. */
static void show_drops(const uint64_t *drops, const char *key, bool reasons, struct tc_out *p)
{
	uint64_t total = 0;
	bool any = false;

	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
		total += drops[r];
	mqtx__out_uint(p, key ? OUT_ANY : OUT_FP, key, "dropped %llu", total);
	if (reasons)
		mqtx__out_open(p, "drop_reasons");
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++) {
		if (!drops[r])
			continue;
		mqtx__out_text(p, "%s%s %llu", any ? " " : " (", mqtx_drop_reason_name(r),
			       (unsigned long long)drops[r]);
		if (reasons)
			mqtx__out_uint(p, OUT_JSON, mqtx_drop_reason_name(r), NULL, drops[r]);
		any = true;
	}
	if (reasons)
		mqtx__out_close(p);
	mqtx__out_text(p, "%s", any ? ")" : "");
}

/* A queue: its line, or its JSON object left open (the caller adds to it and closes it). */
static void show_txq(const struct mqtx_txq_stats *st, uint32_t i, struct tc_out *p)
{
	char state[48];

	state_words(st->state, state, sizeof(state));
	mqtx__out_open(p, NULL);
	mqtx__out_uint(p, OUT_ANY, "queue", "    txq %llu: ", i);
	mqtx__out_str(p, OUT_ANY, "state", "state %s ", state);
	mqtx__out_uint(p, OUT_ANY, "packets", "packets %llu ", st->packets);
	mqtx__out_uint(p, OUT_ANY, "bytes", "bytes %llu ", st->bytes);
	show_drops(st->drops, "drops", false, p);
	mqtx__out_uint(p, OUT_ANY, "requeues", " requeues %llu", st->requeues);
	mqtx__out_uint(p, OUT_ANY, "qlen", " qlen %llu", st->qlen);
	mqtx__out_uint(p, OUT_ANY, "backlog", " backlog %llub", st->backlog);
	mqtx__out_uint(p, OUT_ANY, "bql_limit", " bql limit %llu", st->bql_limit);
	mqtx__out_uint(p, OUT_ANY, "bql_inflight", " inflight %llu", st->bql_inflight);
	mqtx__out_nl(p);
}

static void xstat_one(const char *name, uint64_t value, void *arg)
{
	struct tc_out *p = arg;

	mqtx__out_counter(p, name, value);
}

/*
 * The driver's own counters of queue @txq (-1: the device), as ethtool -S shows a NIC's: for
 * the drivers over the kernel, what the kernel did with the frames and each errno it refused
 * them with, next to mqtx's counters. Nothing for a driver that has none.
 */
static void show_xstats(struct mqtx_dev *dev, int txq, struct tc_out *p)
{
	if (!mqtx_dev_ops(dev)->get_xstats)
		return;
	mqtx__out_open(p, "xstats");
	mqtx__out_text(p, "%s", txq < 0 ? "    driver:" : "      driver:");
	mqtx_dev_xstats(dev, txq, xstat_one, p);
	mqtx__out_close(p);
	mqtx__out_nl(p);
}

/* The device's totals, text only (JSON has the queues'). */
static void show_totals(struct mqtx_dev *dev, struct tc_out *p)
{
	struct mqtx_dev_stats ds;

	mqtx_dev_get_stats(dev, &ds);
	/* JSON: where ip -j -s link puts an interface's totals, under "stats64". */
	mqtx__out_open(p, "stats64");
	mqtx__out_open(p, "tx");
	mqtx__out_uint(p, OUT_ANY, "packets", "    TX: packets %llu", ds.txq.packets);
	mqtx__out_uint(p, OUT_ANY, "bytes", " bytes %llu ", ds.txq.bytes);
	show_drops(ds.txq.drops, "dropped", true, p);
	mqtx__out_uint(p, OUT_ANY, "requeues", " requeues %llu", ds.txq.requeues);
	mqtx__out_uint(p, OUT_ANY, "xmit", " xmit %llu", ds.xmit);
	mqtx__out_uint(p, OUT_ANY, "capped", " capped %llu", ds.select_capped);
	mqtx__out_uint(p, OUT_ANY, "qlen", " qlen %llu", ds.txq.qlen);
	mqtx__out_uint(p, OUT_ANY, "backlog", " backlog %llub", ds.txq.backlog);
	mqtx__out_close(p);
	mqtx__out_nl(p);
	mqtx__out_open(p, "rx");
	mqtx__out_uint(p, OUT_ANY, "packets", "    RX: packets %llu", ds.rx_packets);
	mqtx__out_uint(p, OUT_ANY, "bytes", " bytes %llu ", ds.rx_bytes);
	show_drops(ds.rx_drop_reasons, "dropped", true, p);
	mqtx__out_close(p);
	mqtx__out_close(p);
	mqtx__out_nl(p);
}

/* The queues of @dev, each with its driver's counters when @xstats. */
static void show_queues(struct mqtx_dev *dev, bool xstats, struct tc_out *p)
{
	mqtx__out_open_array(p, "queues");
	for (uint32_t i = 0; i < mqtx_dev_real_num_txq(dev); i++) {
		struct mqtx_txq_stats st;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &st);
		show_txq(&st, i, p);
		if (xstats)
			show_xstats(dev, (int)i, p);
		mqtx__out_close(p);
	}
	mqtx__out_close_array(p);
}

/* The head of a device's line, or of its JSON object (left open). */
static void show_head(struct mqtx_dev *dev, struct tc_out *p)
{
	bool up = mqtx_dev_is_up(dev);

	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_ANY, "name", "%s: ", mqtx_dev_name(dev));
	mqtx__out_str(p, OUT_FP, NULL, "<%s> ", up ? "UP" : "DOWN");
	mqtx__out_bool(p, OUT_JSON, "up", NULL, up);
	mqtx__out_str(p, OUT_ANY, "kind", "kind %s ", mqtx_dev_ops(dev)->kind);
	mqtx__out_uint(p, OUT_ANY, "txqueues", "txqueues %llu ", mqtx_dev_real_num_txq(dev));
}

static void show_dev(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	const struct dev_kind *k = mqtx__dev_kind_of(dev);
	struct mqtx_hash_cfg hc;

	mqtx_dev_hash_cfg(dev, &hc);
	show_head(dev, p);
	mqtx__out_uint(p, OUT_ANY, "maxqueues", "maxqueues %llu ", mqtx_dev_num_txq(dev));
	mqtx__out_uint(p, OUT_ANY, "txqueuelen", "txqueuelen %llu ", mqtx_dev_tx_queue_len(dev));
	mqtx__out_uint(p, OUT_ANY, "mtu", "mtu %llu ", mqtx_dev_mtu(dev));
	mqtx__out_str(p, OUT_ANY, "hash", "hash %s", hash_name(hc.algo));
	show_hash_opts(&hc, p);
	mqtx__xps_show(dev, true, p);
	if (k && k->show)
		k->show(dev, flags, p);
	mqtx__out_nl(p);
	mqtx__xps_show(dev, false, p);
	if (flags & MQTX_CTL_F_STATS) {
		show_totals(dev, p);
		show_xstats(dev, -1, p);
		if (k && k->stats)
			k->stats(dev, p);
		show_queues(dev, true, p);
	}
	mqtx__out_close(p);
}

/* "dev stats": one line per device and per queue, fixed fields, for scripts; with -j the
 * same counters as a JSON object, for mqtx top and scripts, with the driver's own. */
static void show_stats(struct mqtx_dev *dev, struct tc_out *p)
{
	const struct dev_kind *k = mqtx__dev_kind_of(dev);

	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_ANY, "name", "dev %s", mqtx_dev_name(dev));
	mqtx__out_uint(p, OUT_FP, NULL, " up %llu", mqtx_dev_is_up(dev));
	mqtx__out_bool(p, OUT_JSON, "up", NULL, mqtx_dev_is_up(dev));
	mqtx__out_str(p, OUT_ANY, "kind", " kind %s", mqtx_dev_ops(dev)->kind);
	mqtx__out_uint(p, OUT_ANY, "txqueues", " txq %llu", mqtx_dev_real_num_txq(dev));
	mqtx__out_uint(p, OUT_ANY, "txqueuelen", " qlen_limit %llu", mqtx_dev_tx_queue_len(dev));
	mqtx__out_uint(p, OUT_ANY, "now", " now %llu", mqtx_clock_now(mqtx_dev_clock(dev)));
	mqtx__out_nl(p);
	mqtx__out_open_array(p, "queues");
	for (uint32_t i = 0; i < mqtx_dev_real_num_txq(dev); i++) {
		struct mqtx_txq_stats st;
		char state[48];

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &st);
		state_words(st.state, state, sizeof(state));
		mqtx__out_open(p, NULL);
		mqtx__out_uint(p, OUT_ANY, "queue", "q %llu", i);
		mqtx__out_str(p, OUT_JSON, "state", NULL, state);
		mqtx__out_uint(p, OUT_ANY, "packets", " %llu", st.packets);
		mqtx__out_uint(p, OUT_ANY, "bytes", " %llu", st.bytes);
		mqtx__out_uint(p, OUT_ANY, "drops", " %llu", mqtx_txq_stats_drops(&st));
		mqtx__out_uint(p, OUT_ANY, "requeues", " %llu", st.requeues);
		mqtx__out_uint(p, OUT_ANY, "qlen", " %llu", st.qlen);
		mqtx__out_uint(p, OUT_ANY, "backlog", " %llu", st.backlog);
		mqtx__out_uint(p, OUT_FP, NULL, " %llu", st.state);
		mqtx__out_uint(p, OUT_ANY, "bql_limit", " %llu", st.bql_limit);
		mqtx__out_uint(p, OUT_ANY, "bql_inflight", " %llu", st.bql_inflight);
		mqtx__out_close(p);
		mqtx__out_nl(p);
	}
	mqtx__out_close_array(p);
	if (p->json && k && k->stats)
		k->stats(dev, p);
	mqtx__out_close(p);
}

int mqtx__ctl_dev_show(const struct mqtx_ctl_call *c, int argc, char **argv, bool stats)
{
	struct mqtx_dev *one, **devs = c->ctl->devs;
	unsigned n = c->ctl->ndevs, flags = c->flags;
	struct mqtx_buf *out = c->out;
	struct tc_out p;

	if (argc > 1) {
		mqtx_buf_printf(c->err, "dev show: what is \"%s\"?\n", argv[1]);
		return MQTX_TC_EXIT_PARSE;
	}
	if (argc == 1) {
		one = mqtx_ctl_call_dev(c, argv[0]);
		if (!one)
			return MQTX_TC_EXIT_PARSE;
		devs = &one;
		n = 1;
	}
	mqtx__out_init(&p, out, flags & MQTX_CTL_F_JSON, flags & MQTX_CTL_F_STATS,
		       flags & MQTX_CTL_F_DETAILS);
	mqtx__out_open_array(&p, NULL);
	for (unsigned i = 0; i < n; i++) {
		if (stats)
			show_stats(devs[i], &p);
		else
			show_dev(devs[i], flags, &p);
	}
	mqtx__out_close_array(&p);
	mqtx__out_end(&p);
	return MQTX_TC_EXIT_OK;
}

// SPDX-License-Identifier: MIT
/* The sim-wifi kind of dev add: its words (the model, EDCA, the peer's block-ack answers, WME),
 * what dev show prints of it, and its per-AC counters for dev show -s and top. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/sim_wifi.h>
#include <mqtx/tc.h>
#include <mqtx/wme.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/dev_kinds.h"

/* struct swf_opt.edca_set bits: the fields an "edca AC ..." gave. */
#define EDCA_AIFSN 0x1u
#define EDCA_CWMIN 0x2u
#define EDCA_CWMAX 0x4u
#define EDCA_TXOP  0x8u

struct swf_opt {
	struct mqtx_sim_wifi_cfg sw;
	struct mqtx_wme_cfg wme;
	bool has_agg;
	uint8_t edca_set[MQTX_WME_NUM_AC];
};

_Static_assert(sizeof(struct swf_opt) <= KIND_OPT_MAX, "kind options fit");

static const char *const ba_modes[] = { "accept", "refuse", "silent" };

static int bad(struct mqtx_buf *err, const char *w, const char *v, const char *want)
{
	mqtx_buf_printf(err, "dev add: invalid sim-wifi %s \"%s\"%s%s\n", w, v ? v : "",
			want ? ": " : "", want ? want : "");
	return -1;
}

/* "edca AC { aifsn N | cwmin N | cwmax N | txop TIME } ...": the words used, or -1. */
static int parse_edca(struct swf_opt *o, int argc, char **argv, struct mqtx_buf *err)
{
	int ac = argc > 1 ? mqtx_wme_ac_parse(argv[1]) : -EINVAL, i = 2;
	struct mqtx_sim_wifi_edca *e;

	if (ac < 0)
		return bad(err, "edca", argc > 1 ? argv[1] : NULL, "an AC: vo, vi, be or bk");
	e = &o->sw.edca[ac];
	for (; i + 1 < argc; i += 2) {
		const char *w = argv[i], *v = argv[i + 1];
		uint32_t x;

		if (!strcmp(w, "txop")) {
			if (mqtx_tc_parse_time(v, &e->txop_ns))
				return bad(err, w, v, "a time such as 1504us, or 0");
			o->edca_set[ac] |= EDCA_TXOP;
			continue;
		}
		if (strcmp(w, "aifsn") && strcmp(w, "cwmin") && strcmp(w, "cwmax"))
			break;
		if (mqtx_tc_parse_u32_dec(v, &x) || x > 32767)
			return bad(err, w, v, w[0] == 'a' ? "1..15" : "2^n - 1, 0..32767");
		if (w[0] == 'a') {
			e->aifsn = x;
			o->edca_set[ac] |= EDCA_AIFSN;
		} else if (w[3] == 'i') {
			e->cwmin = x;
			o->edca_set[ac] |= EDCA_CWMIN;
		} else {
			e->cwmax = x;
			o->edca_set[ac] |= EDCA_CWMAX;
		}
	}
	if (i == 2)
		return bad(err, "edca", argv[1], "aifsn, cwmin, cwmax or txop must follow the AC");
	return i;
}

/* WME's words: "aggqueues N", "stations N", "acm LIST", "noadmit drop|bk", "legacy on|off",
 * "role default|sta|ap", "bssid MAC". */
static int parse_wme(struct swf_opt *o, const char *w, const char *v, struct mqtx_buf *err)
{
	struct mqtx_extack ack = { "" };
	uint32_t x;

	if (!strcmp(w, "role")) {
		for (x = MQTX_WME_ROLE_DEFAULT; x <= MQTX_WME_ROLE_AP; x++)
			if (!strcmp(v, mqtx_wme_role_name((enum mqtx_wme_role)x)))
				break;
		if (x > MQTX_WME_ROLE_AP)
			return bad(err, w, v, "default, sta or ap");
		o->wme.role = (enum mqtx_wme_role)x;
		return 2;
	}
	if (!strcmp(w, "bssid")) {
		if (mqtx_wme_mac_parse(v, o->wme.bssid, &ack)) {
			mqtx_buf_printf(err, "dev add: %s\n", ack.msg);
			return -1;
		}
		return 2;
	}
	if (!strcmp(w, "aggqueues") || !strcmp(w, "stations")) {
		bool agg = w[0] == 'a';

		if (mqtx_tc_parse_u32_dec(v, &x) ||
		    (agg ? x > MQTX_WME_MAX_AGG_QUEUES : !x || x > MQTX_WME_MAX_STATIONS))
			return bad(err, w, v, agg ? "0..64" : "1..65536");
		*(agg ? &o->wme.num_agg_queues : &o->wme.max_stations) = x;
		o->has_agg |= agg;
	} else if (!strcmp(w, "acm")) {
		if (mqtx_wme_acm_parse(v, &o->wme.acm, &ack)) {
			mqtx_buf_printf(err, "dev add: %s\n", ack.msg);
			return -1;
		}
	} else if (!strcmp(w, "noadmit")) {
		if (strcmp(v, "drop") && strcmp(v, "bk"))
			return bad(err, w, v, "drop or bk");
		o->wme.noadmit = v[0] == 'd' ? MQTX_WME_NOADMIT_DROP : MQTX_WME_NOADMIT_BK;
	} else if (!strcmp(w, "legacy")) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return bad(err, w, v, "on or off");
		o->wme.legacy = v[1] == 'n';
	} else {
		return 0;
	}
	return 2;
}

/* The model's words: rate, ring, ampdu, ba, ba-delay, ba-timeout, seed, coalesce. */
static int parse_model(struct mqtx_sim_wifi_cfg *c, const char *w, const char *v,
		       struct mqtx_buf *err)
{
	uint32_t x;

	if (!strcmp(w, "rate")) {
		if (mqtx_tc_parse_rate_bits(v, &c->rate_bps) || !c->rate_bps)
			return bad(err, w, v, "a bit rate such as 54mbit");
	} else if (!strcmp(w, "ring")) {
		if (mqtx_tc_parse_u32_dec(v, &x) || !x || x > MQTX_SIM_WIFI_RING_MAX)
			return bad(err, w, v, "1..65536");
		c->ring = x;
	} else if (!strcmp(w, "ampdu")) {
		if (mqtx_tc_parse_u32_dec(v, &x) || !x || x > MQTX_SIM_WIFI_AMPDU_MAX)
			return bad(err, w, v, "1..64");
		c->ampdu_max = x;
	} else if (!strcmp(w, "ba")) {
		size_t m = 0;

		while (m < ARRAY_SIZE(ba_modes) && strcmp(v, ba_modes[m]))
			m++;
		if (m == ARRAY_SIZE(ba_modes))
			return bad(err, w, v, "accept, refuse or silent");
		c->ba_mode = (enum mqtx_sim_wifi_ba_mode)m;
	} else if (!strcmp(w, "ba-delay") || !strcmp(w, "ba-timeout") || !strcmp(w, "coalesce")) {
		uint64_t *t = w[0] == 'c'   ? &c->coalesce_ns
			      : w[3] == 'd' ? &c->ba_delay_ns
					    : &c->ba_timeout_ns;

		if (mqtx_tc_parse_time(v, t) || !*t)
			return bad(err, w, v, "a time such as 100us");
	} else if (!strcmp(w, "seed")) {
		if (mqtx__parse_u64(v, &c->seed) || !c->seed)
			return bad(err, w, v, "1..2^64-1");
	} else {
		return 0;
	}
	return 2;
}

int mqtx__sim_wifi_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	struct swf_opt *o = opt;
	int n;

	if (!strcmp(argv[0], "edca"))
		return parse_edca(o, argc, argv, err);
	if (argc < 2)
		return 0;
	n = parse_wme(o, argv[0], argv[1], err);
	return n ? n : parse_model(&o->sw, argv[0], argv[1], err);
}

int mqtx__sim_wifi_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
			  struct mqtx_extack *ack)
{
	const struct swf_opt *o = opt;
	struct mqtx_sim_wifi_cfg sw = o->sw;
	struct mqtx_wme_cfg wme = o->wme;

	/* An AC given some EDCA fields keeps the default of the others, the role's. */
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		struct mqtx_sim_wifi_edca *e = &sw.edca[ac], d;
		unsigned set = o->edca_set[ac];

		if (!set || mqtx_sim_wifi_edca_default(wme.role, (enum mqtx_wme_ac)ac, &d))
			continue;
		e->aifsn = (set & EDCA_AIFSN) ? e->aifsn : d.aifsn;
		e->cwmin = (set & EDCA_CWMIN) ? e->cwmin : d.cwmin;
		e->cwmax = (set & EDCA_CWMAX) ? e->cwmax : d.cwmax;
		e->txop_ns = (set & EDCA_TXOP) ? e->txop_ns : d.txop_ns;
	}
	if (!o->has_agg)
		wme.num_agg_queues = MQTX_SIM_WIFI_AGG_DEFAULT;
	return mqtx_sim_wifi_dev_create(base, &sw, &wme, out, ack);
}

/* ---- dev show ---- */

static void show_text(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	struct mqtx_buf *out = p->buf;

	struct mqtx_sim_wifi_cfg c;
	char b[MQTX_TC_BUF], t[MQTX_TC_BUF];

	if (mqtx_sim_wifi_get_cfg(dev, &c))
		return;
	mqtx_buf_printf(out, " rate %s ring %u ampdu %u ba %s ba-delay %s",
			mqtx_tc_print_rate(b, sizeof(b), c.rate_bps / 8), c.ring, c.ampdu_max,
			ba_modes[c.ba_mode], mqtx_tc_print_time(t, sizeof(t), c.ba_delay_ns));
	mqtx__wme_show(dev, p);
	if (!(flags & MQTX_CTL_F_DETAILS))
		return;
	mqtx_buf_printf(out,
			"\n    model: ba-timeout %s seed %llu coalesce %s stop_thresh %u "
			"wake_thresh %u",
			mqtx_tc_print_time(b, sizeof(b), c.ba_timeout_ns),
			(unsigned long long)c.seed, mqtx_tc_print_time(t, sizeof(t), c.coalesce_ns),
			c.stop_thresh, c.wake_thresh);
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		mqtx_buf_printf(out, "\n    edca %s aifsn %u cwmin %u cwmax %u txop %s",
				mqtx_wme_ac_name((enum mqtx_wme_ac)ac), c.edca[ac].aifsn,
				c.edca[ac].cwmin, c.edca[ac].cwmax,
				mqtx_tc_print_time(b, sizeof(b), c.edca[ac].txop_ns));
}

static void show_json(struct mqtx_dev *dev, struct tc_out *p)
{
	struct mqtx_buf *out = p->buf;

	struct mqtx_sim_wifi_cfg c;

	if (mqtx_sim_wifi_get_cfg(dev, &c))
		return;
	mqtx_buf_printf(out,
			",\"sim_wifi\":{\"rate\":%llu,\"ring\":%u,\"ampdu\":%u,\"ba\":\"%s\","
			"\"ba_delay_ns\":%llu,\"ba_timeout_ns\":%llu,\"seed\":%llu,"
			"\"coalesce_ns\":%llu,\"edca\":[",
			(unsigned long long)c.rate_bps, c.ring, c.ampdu_max, ba_modes[c.ba_mode],
			(unsigned long long)c.ba_delay_ns, (unsigned long long)c.ba_timeout_ns,
			(unsigned long long)c.seed, (unsigned long long)c.coalesce_ns);
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		mqtx_buf_printf(out,
				"%s{\"ac\":\"%s\",\"aifsn\":%u,\"cwmin\":%u,\"cwmax\":%u,"
				"\"txop_ns\":%llu}",
				ac ? "," : "", mqtx_wme_ac_name((enum mqtx_wme_ac)ac),
				c.edca[ac].aifsn, c.edca[ac].cwmin, c.edca[ac].cwmax,
				(unsigned long long)c.edca[ac].txop_ns);
	mqtx_buf_printf(out, "]}");
	mqtx__wme_show(dev, p);
}

/* The medium's settings and WME's: in JSON all of them, in text the details with -d only. */
void mqtx__sim_wifi_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	if (p->json)
		show_json(dev, p);
	else
		show_text(dev, flags, p);
}

/* ---- dev show -s, dev stats -j: per AC, the medium's counters and WME's ---- */

static void ac_stats(unsigned ac, const struct mqtx_sim_wifi_ac_stats *a,
		     const struct mqtx_wme_stats *w, struct tc_out *p)
{
	const struct {
		const char *name;
		uint64_t v;
	} c[] = {
		{ "frames", a->frames },	 { "bytes", a->bytes },
		{ "txops", a->txops },		 { "airtime_ns", a->airtime_ns },
		{ "ampdus", a->ampdus },	 { "ampdu_frames", a->ampdu_frames },
		{ "lat_sum_ns", a->lat_sum_ns }, { "lat_max_ns", a->lat_max_ns },
		{ "collisions", a->collisions }, { "queued", a->queued },
		{ "selected", w->selected[ac] }, { "downgraded", w->downgraded[ac] },
		{ "noadmit", w->noadmit[ac] },	 { "ampdu", w->ampdu[ac] },
		{ "expired", a->expired },	 { "expired_requeued", a->expired_requeued },
	};

	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_ANY, "ac", "    ac %s:", mqtx_wme_ac_name((enum mqtx_wme_ac)ac));
	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		mqtx__out_counter(p, c[i].name, c[i].v);
	mqtx__out_close(p);
	mqtx__out_nl(p);
}

static void wme_stats(const struct mqtx_wme_stats *w, struct tc_out *p)
{
	const struct {
		const char *name;
		uint64_t v;
	} c[] = {
		{ "mgmt", w->mgmt },
		{ "nonqos", w->nonqos },
		{ "eapol", w->eapol },
		{ "ba_requested", w->ba_requested },
		{ "ba_accepted", w->ba_accepted },
		{ "ba_refused", w->ba_refused },
		{ "ba_timeouts", w->ba_timeouts },
		{ "ba_stopped", w->ba_stopped },
		{ "ba_pool_full", w->ba_pool_full },
		{ "moved_to_agg", w->moved_to_agg },
		{ "moved_to_ac", w->moved_to_ac },
		{ "ba_busy", w->ba_busy },
	};

	mqtx__out_open(p, "wme_stats");
	mqtx__out_text(p, "    wme:");
	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		mqtx__out_counter(p, c[i].name, c[i].v);
	mqtx__out_close(p);
	mqtx__out_nl(p);
}

void mqtx__sim_wifi_stats(struct mqtx_dev *dev, struct tc_out *p)
{
	struct mqtx_sim_wifi_ac_stats a;
	struct mqtx_wme_stats w;

	if (mqtx_wme_get_stats(dev, &w))
		return;
	mqtx__out_open_array(p, "ac");
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		if (!mqtx_sim_wifi_ac_stats(dev, (enum mqtx_wme_ac)ac, &a))
			ac_stats(ac, &a, &w, p);
	mqtx__out_close_array(p);
	wme_stats(&w, p);
}

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

/* As their enums count them: enum mqtx_sim_wifi_ba_mode, enum mqtx_wme_noadmit. */
static const char *const ba_modes[] = { "accept", "refuse", "silent", NULL };
static const char *const noadmit_modes[] = { "bk", "drop", NULL };

static int bad(struct mqtx_buf *err, const char *w, const char *v, const char *want)
{
	mqtx_buf_printf(err, "dev add: invalid sim-wifi %s \"%s\"%s%s\n", w, v ? v : "",
			want ? ": " : "", want ? want : "");
	return -1;
}

/* The fields of one AC's "edca", and which of them the command gave (EDCA_*). */
struct edca_words {
	struct mqtx_sim_wifi_edca e;
	unsigned set;
};

#define EDCA(m) offsetof(struct edca_words, e.m), .flags = TC_OPT_GIVEN(struct edca_words, set)

static const struct tc_opt edca_opts[] = {
	{ "aifsn", mqtx__tc_opt_dec, EDCA(aifsn), .max = 32767, .flag = EDCA_AIFSN,
	  .hint = "1..15" },
	{ "cwmin", mqtx__tc_opt_dec, EDCA(cwmin), .max = 32767, .flag = EDCA_CWMIN,
	  .hint = "2^n - 1, 0..32767" },
	{ "cwmax", mqtx__tc_opt_dec, EDCA(cwmax), .max = 32767, .flag = EDCA_CWMAX,
	  .hint = "2^n - 1, 0..32767" },
	{ "txop", mqtx__tc_opt_time, EDCA(txop_ns), .flag = EDCA_TXOP,
	  .hint = "a time such as 1504us, or 0" },
};

/* "edca AC { aifsn N | cwmin N | cwmax N | txop TIME } ...": the words used, or -1. */
static int parse_edca(struct swf_opt *o, int argc, char **argv, struct mqtx_buf *err)
{
	int ac = argc > 1 ? mqtx_wme_ac_parse(argv[1]) : -EINVAL, i = 2;
	struct edca_words ew;

	if (ac < 0)
		return bad(err, "edca", argc > 1 ? argv[1] : NULL, "an AC: vo, vi, be or bk");
	ew.e = o->sw.edca[ac];
	ew.set = o->edca_set[ac];
	for (; i + 1 < argc; i += 2) {
		const struct tc_opt *r =
			mqtx__tc_opt_find(edca_opts, ARRAY_SIZE(edca_opts), argv[i]);

		if (!r)
			break;
		if (mqtx__tc_opt_apply(r, argv[i + 1], &ew))
			return bad(err, argv[i], argv[i + 1], r->hint);
	}
	if (i == 2)
		return bad(err, "edca", argv[1], "aifsn, cwmin, cwmax or txop must follow the AC");
	o->sw.edca[ac] = ew.e;
	o->edca_set[ac] = (uint8_t)ew.set;
	return i;
}

/* WME's role: default, sta or ap, as the library names them. */
static int parse_role(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	for (int r = MQTX_WME_ROLE_DEFAULT; r <= MQTX_WME_ROLE_AP; r++) {
		if (!strcmp(v, mqtx_wme_role_name((enum mqtx_wme_role)r))) {
			*(enum mqtx_wme_role *)field = (enum mqtx_wme_role)r;
			return 0;
		}
	}
	return -EINVAL;
}

#define WME(m) offsetof(struct swf_opt, wme.m)
#define SW(m)  offsetof(struct swf_opt, sw.m)

/* The words of one value each: WME's and the model's. */
static const struct tc_opt swf_opts[] = {
	{ "role", parse_role, WME(role), .hint = "default, sta or ap" },
	{ "aggqueues", mqtx__tc_opt_dec, WME(num_agg_queues), .max = MQTX_WME_MAX_AGG_QUEUES,
	  .given = TC_OPT_GIVEN(struct swf_opt, has_agg), .hint = "0..64" },
	{ "stations", mqtx__tc_opt_dec, WME(max_stations), .min = 1, .max = MQTX_WME_MAX_STATIONS,
	  .hint = "1..65536" },
	{ "noadmit", mqtx__tc_opt_word, WME(noadmit), .words = noadmit_modes,
	  .hint = "drop or bk" },
	{ "legacy", mqtx__tc_opt_onoff, WME(legacy), .hint = "on or off" },
	{ "rate", mqtx__tc_opt_rate_bits, SW(rate_bps), .min = 1,
	  .hint = "a bit rate such as 54mbit" },
	{ "ring", mqtx__tc_opt_dec, SW(ring), .min = 1, .max = MQTX_SIM_WIFI_RING_MAX,
	  .hint = "1..65536" },
	{ "ampdu", mqtx__tc_opt_dec, SW(ampdu_max), .min = 1, .max = MQTX_SIM_WIFI_AMPDU_MAX,
	  .hint = "1..64" },
	{ "ba", mqtx__tc_opt_word, SW(ba_mode), .words = ba_modes,
	  .hint = "accept, refuse or silent" },
	{ "ba-delay", mqtx__tc_opt_time, SW(ba_delay_ns), .min = 1,
	  .hint = "a time such as 100us" },
	{ "ba-timeout", mqtx__tc_opt_time, SW(ba_timeout_ns), .min = 1,
	  .hint = "a time such as 100us" },
	{ "coalesce", mqtx__tc_opt_time, SW(coalesce_ns), .min = 1,
	  .hint = "a time such as 100us" },
	{ "seed", mqtx__tc_opt_u64, SW(seed), .min = 1, .hint = "1..2^64-1" },
};

/* "bssid MAC", "acm LIST": the library's parsers, whose message names the bad part. */
static int parse_lib(struct swf_opt *o, const char *w, const char *v, struct mqtx_buf *err)
{
	struct mqtx_extack ack = { "" };

	if (w[0] == 'b' ? mqtx_wme_mac_parse(v, o->wme.bssid, &ack)
			: mqtx_wme_acm_parse(v, &o->wme.acm, &ack)) {
		mqtx_buf_printf(err, "dev add: %s\n", ack.msg);
		return -1;
	}
	return 2;
}

int mqtx__sim_wifi_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	struct swf_opt *o = opt;
	const struct tc_opt *r;

	if (!strcmp(argv[0], "edca"))
		return parse_edca(o, argc, argv, err);
	if (argc < 2)
		return 0;
	if (!strcmp(argv[0], "bssid") || !strcmp(argv[0], "acm"))
		return parse_lib(o, argv[0], argv[1], err);
	r = mqtx__tc_opt_find(swf_opts, ARRAY_SIZE(swf_opts), argv[0]);
	if (!r)
		return 0;
	if (mqtx__tc_opt_apply(r, argv[1], o))
		return bad(err, argv[0], argv[1], r->hint);
	return 2;
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

/* The model's settings beyond the first line, and EDCA's: in JSON inside the "sim_wifi"
 * object, in text after WME's, with -d only. */
static void show_model(const struct mqtx_sim_wifi_cfg *c, struct tc_out *p)
{
	char b[MQTX_TC_BUF];

	mqtx__out_str(p, OUT_FP, NULL, "\n    model: ba-timeout %s",
		      mqtx_tc_print_time(b, sizeof(b), c->ba_timeout_ns));
	mqtx__out_uint(p, OUT_JSON, "ba_timeout_ns", NULL, c->ba_timeout_ns);
	mqtx__out_uint(p, OUT_ANY, "seed", " seed %llu", c->seed);
	mqtx__out_str(p, OUT_FP, NULL, " coalesce %s",
		      mqtx_tc_print_time(b, sizeof(b), c->coalesce_ns));
	mqtx__out_uint(p, OUT_JSON, "coalesce_ns", NULL, c->coalesce_ns);
	mqtx__out_uint(p, OUT_FP, NULL, " stop_thresh %llu", c->stop_thresh);
	mqtx__out_uint(p, OUT_FP, NULL, " wake_thresh %llu", c->wake_thresh);
	mqtx__out_open_array(p, "edca");
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		const struct mqtx_sim_wifi_edca *e = &c->edca[ac];

		mqtx__out_open(p, NULL);
		mqtx__out_str(p, OUT_ANY, "ac", "\n    edca %s",
			      mqtx_wme_ac_name((enum mqtx_wme_ac)ac));
		mqtx__out_uint(p, OUT_ANY, "aifsn", " aifsn %llu", e->aifsn);
		mqtx__out_uint(p, OUT_ANY, "cwmin", " cwmin %llu", e->cwmin);
		mqtx__out_uint(p, OUT_ANY, "cwmax", " cwmax %llu", e->cwmax);
		mqtx__out_str(p, OUT_FP, NULL, " txop %s",
			      mqtx_tc_print_time(b, sizeof(b), e->txop_ns));
		mqtx__out_uint(p, OUT_JSON, "txop_ns", NULL, e->txop_ns);
		mqtx__out_close(p);
	}
	mqtx__out_close_array(p);
}

/* The medium's settings and WME's: in JSON all of them, in text the details with -d only. */
void mqtx__sim_wifi_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	struct mqtx_sim_wifi_cfg c;
	char b[MQTX_TC_BUF];

	if (mqtx_sim_wifi_get_cfg(dev, &c))
		return;
	mqtx__out_open(p, "sim_wifi");
	mqtx__out_str(p, OUT_FP, NULL, " rate %s",
		      mqtx_tc_print_rate(b, sizeof(b), c.rate_bps / 8));
	mqtx__out_uint(p, OUT_JSON, "rate", NULL, c.rate_bps);
	mqtx__out_uint(p, OUT_ANY, "ring", " ring %llu", c.ring);
	mqtx__out_uint(p, OUT_ANY, "ampdu", " ampdu %llu", c.ampdu_max);
	mqtx__out_str(p, OUT_ANY, "ba", " ba %s", ba_modes[c.ba_mode]);
	mqtx__out_str(p, OUT_FP, NULL, " ba-delay %s",
		      mqtx_tc_print_time(b, sizeof(b), c.ba_delay_ns));
	mqtx__out_uint(p, OUT_JSON, "ba_delay_ns", NULL, c.ba_delay_ns);
	if (p->json)
		show_model(&c, p);
	mqtx__out_close(p);
	mqtx__wme_show(dev, p);
	if (!p->json && (flags & MQTX_CTL_F_DETAILS))
		show_model(&c, p);
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

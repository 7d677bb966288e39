// SPDX-License-Identifier: MIT
/* 802.11 WME in the command language: the wme command (what-if classification), the WME words
 * of dev set (ACM, QoS Map, admission policy, classifier, TSPEC, the simulated peer's block-ack
 * answers) and the WME settings dev show prints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/sim_wifi.h>
#include <mqtx/tc.h>
#include <mqtx/wme.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"

/* A TSPEC's medium time when none is given: the whole second, in the 32 us units of ADDTS. */
#define TSPEC_TIME_ALL 31250u

/* As their enums count them: enum mqtx_sim_wifi_ba_mode, enum mqtx_wme_noadmit. */
static const char *const ba_modes[] = { "accept", "refuse", "silent", NULL };
static const char *const noadmit_modes[] = { "bk", "drop", NULL };
static const uint8_t up_of_ac[MQTX_WME_NUM_AC] = { 7, 5, 0, 1 };
static const char *const ac_lower[MQTX_WME_NUM_AC] = { "vo", "vi", "be", "bk" }; /* as typed */

const char *mqtx__wme_acm_format(uint8_t acm, char *buf)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		if (acm & (1u << ac))
			n += (size_t)snprintf(buf + n, 24 - n, "%s%s", n ? "," : "", ac_lower[ac]);
	if (!n)
		snprintf(buf, 24, "none");
	return buf;
}

/* ---- dev set: the WME words ---- */

static int set_bad(struct mqtx_buf *err, const char *w, const char *v, const char *want)
{
	mqtx_buf_printf(err, "dev set: invalid %s \"%s\" (%s)\n", w, v ? v : "", want);
	return -1;
}

/* "tspec AC up U [ medium-time N ]" or "tspec AC off". */
static int set_tspec(struct wme_set *s, int argc, char **argv, struct mqtx_buf *err)
{
	int ac = argc > 1 ? mqtx_wme_ac_parse(argv[1]) : -EINVAL;
	uint32_t up, t = TSPEC_TIME_ALL;

	if (ac < 0)
		return set_bad(err, "tspec", argc > 1 ? argv[1] : NULL, "an AC: vo, vi, be, bk");
	s->mask |= WME_SET_TSPEC;
	s->tspec_ac = (uint8_t)ac;
	if (argc > 2 && !strcmp(argv[2], "off")) {
		s->tspec_up = up_of_ac[ac]; /* any UP of the AC: the library checks the pair */
		s->tspec_time = 0;
		return 3;
	}
	if (argc < 4 || strcmp(argv[2], "up") || mqtx_tc_parse_u32_dec(argv[3], &up) || up > 7)
		return set_bad(err, "tspec",
			       argc > 3	  ? argv[3]
			       : argc > 2 ? argv[2]
					  : NULL,
			       "tspec AC up 0..7 [ medium-time N ], or tspec AC off");
	if ((int)mqtx_wme_up_to_ac(up) != ac) {
		mqtx_buf_printf(err, "dev set: tspec: UP %u is not of AC %s\n", up,
				mqtx_wme_ac_name((enum mqtx_wme_ac)ac));
		return -1;
	}
	if (argc > 5 && !strcmp(argv[4], "medium-time")) {
		if (mqtx_tc_parse_u32_dec(argv[5], &t) || !t)
			return set_bad(err, "medium-time", argv[5], "1.. in units of 32 us");
		s->tspec_up = (uint8_t)up;
		s->tspec_time = t;
		return 6;
	}
	s->tspec_up = (uint8_t)up;
	s->tspec_time = t;
	return 4;
}

/* "role { default | ap | sta [ bssid MAC ] }". */
static int set_role(struct wme_set *s, int argc, char **argv, struct mqtx_buf *err)
{
	struct mqtx_extack ack = { "" };
	int r;

	for (r = MQTX_WME_ROLE_DEFAULT; r <= MQTX_WME_ROLE_AP; r++)
		if (argc > 1 && !strcmp(argv[1], mqtx_wme_role_name((enum mqtx_wme_role)r)))
			break;
	if (r > MQTX_WME_ROLE_AP)
		return set_bad(err, "role", argc > 1 ? argv[1] : NULL, "default, sta or ap");
	s->role = (enum mqtx_wme_role)r;
	s->mask |= WME_SET_ROLE;
	if (r != MQTX_WME_ROLE_STA || argc < 3 || strcmp(argv[2], "bssid"))
		return 2;
	if (mqtx_wme_mac_parse(argc > 3 ? argv[3] : "", s->bssid, &ack)) {
		mqtx_buf_printf(err, "dev set: %s\n", ack.msg);
		return -1;
	}
	s->has_bssid = true;
	return 4;
}

/* Values given by the library's parsers: their message names the bad part. */
static int set_list(struct wme_set *s, const char *w, const char *v, struct mqtx_buf *err)
{
	struct mqtx_extack ack = { "" };

	if (!v) {
		mqtx_buf_printf(err, "dev set: \"%s\" needs a value\n", w);
		return -1;
	}
	if (!strcmp(w, "acm")) {
		if (mqtx_wme_acm_parse(v, &s->acm, &ack))
			goto bad;
		s->mask |= WME_SET_ACM;
		return 2;
	}
	s->mask |= WME_SET_QOS_MAP;
	s->has_map = strcmp(v, "none") != 0;
	if (s->has_map && mqtx_wme_qos_map_parse(v, &s->map, &ack))
		goto bad;
	return 2;
bad:
	mqtx_buf_printf(err, "dev set: %s\n", ack.msg);
	return -1;
}

#define SET(m) offsetof(struct wme_set, m), .flags = TC_OPT_GIVEN(struct wme_set, mask)

/* The words of one value each that no library parser reads. */
static const struct tc_opt wme_set_opts[] = {
	{ "noadmit", mqtx__tc_opt_word, SET(noadmit), .flag = WME_SET_NOADMIT,
	  .words = noadmit_modes, .hint = "drop or bk" },
	{ "legacy", mqtx__tc_opt_onoff, SET(legacy), .flag = WME_SET_LEGACY, .hint = "on or off" },
	{ "ba", mqtx__tc_opt_word, SET(ba), .flag = WME_SET_BA, .words = ba_modes,
	  .hint = "accept, refuse or silent" },
	{ "ba-delay", mqtx__tc_opt_time, SET(ba_delay_ns), .min = 1, .flag = WME_SET_BA_DELAY,
	  .hint = "a time such as 100us" },
};

int mqtx__wme_set_word(struct wme_set *s, int argc, char **argv, struct mqtx_buf *err)
{
	const char *w = argv[0], *v = argc > 1 ? argv[1] : NULL;
	const struct tc_opt *o;

	if (!strcmp(w, "acm") || !strcmp(w, "qosmap"))
		return set_list(s, w, v, err);
	if (!strcmp(w, "tspec"))
		return set_tspec(s, argc, argv, err);
	if (!strcmp(w, "role"))
		return set_role(s, argc, argv, err);
	o = mqtx__tc_opt_find(wme_set_opts, ARRAY_SIZE(wme_set_opts), w);
	if (!o)
		return 0;
	if (!v || mqtx__tc_opt_apply(o, v, s))
		return set_bad(err, w, v, o->hint);
	return 2;
}

/*
 * Everything that can fail is checked first: the device has WME (and is a sim-wifi device for
 * ba); the QoS Map, the one setting that allocates, goes first, so that its failure leaves the
 * rest untouched; what follows cannot fail on a device that passed those checks.
 */
int mqtx__wme_set_apply(const struct mqtx_ctl_call *c, struct mqtx_dev *dev,
			const struct wme_set *s)
{
	struct mqtx_extack ack = { "" };
	struct mqtx_sim_wifi_cfg sw;
	struct mqtx_wme_info old;
	int err = 0;

	if (!mqtx_wme_enabled(dev)) {
		mqtx_buf_printf(c->err, "dev set: device %s is not a Wi-Fi device (no WME)\n",
				mqtx_dev_name(dev));
		return MQTX_TC_EXIT_REFUSED;
	}
	if ((s->mask & (WME_SET_BA | WME_SET_BA_DELAY)) && mqtx_sim_wifi_get_cfg(dev, &sw)) {
		mqtx_buf_printf(
			c->err,
			"dev set: %s is not a sim-wifi device: no simulated peer answers its "
			"block-ack requests\n",
			mqtx_dev_name(dev));
		return MQTX_TC_EXIT_REFUSED;
	}
	mqtx_wme_get_info(dev, &old);
	/* Role sta keeps the BSSID the device has unless the command gives one; the library
	 * checks it. */
	if (s->mask & WME_SET_ROLE)
		err = mqtx_wme_set_role(dev, s->role, s->has_bssid ? s->bssid : old.bssid, &ack);
	if (!err && (s->mask & WME_SET_QOS_MAP)) {
		err = mqtx_wme_set_qos_map(dev, s->has_map ? &s->map : NULL, &ack);
		/* Back to the role it had, which was valid: nothing changes. */
		if (err && (s->mask & WME_SET_ROLE))
			mqtx_wme_set_role(dev, old.role, old.bssid, NULL);
	}
	if (err) {
		mqtx_buf_printf(c->err, "dev set: %s\n", ack.msg[0] ? ack.msg : mqtx_strerror(err));
		return MQTX_TC_EXIT_REFUSED;
	}
	/* The commit: every value was checked by the parse, the device by the tests above. */
	if (s->mask & WME_SET_ACM)
		mqtx_wme_set_acm(dev, s->acm, &ack);
	if (s->mask & WME_SET_NOADMIT)
		mqtx_wme_set_noadmit(dev, s->noadmit, &ack);
	if (s->mask & WME_SET_LEGACY)
		mqtx_wme_set_legacy(dev, s->legacy, &ack);
	if (s->mask & WME_SET_TSPEC)
		mqtx_wme_set_tspec(dev, (enum mqtx_wme_ac)s->tspec_ac, s->tspec_up, s->tspec_time,
				   &ack);
	if (s->mask & (WME_SET_BA | WME_SET_BA_DELAY))
		mqtx_sim_wifi_set_ba(dev, (s->mask & WME_SET_BA) ? s->ba : sw.ba_mode,
				     (s->mask & WME_SET_BA_DELAY) ? s->ba_delay_ns
								  : sw.ba_delay_ns);
	return MQTX_TC_EXIT_OK;
}

/* ---- what dev show prints of WME ---- */

/* The JSON spelling of a set of ACs: their names ("VO"), an array. */
static void show_acm(uint8_t acm, struct tc_out *p)
{
	mqtx__out_open_array(p, "acm");
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		if (acm & (1u << ac))
			mqtx__out_str(p, OUT_JSON, NULL, NULL,
				      mqtx_wme_ac_name((enum mqtx_wme_ac)ac));
	mqtx__out_close_array(p);
}

/* The role (and a station's BSSID): in JSON after "legacy", in text at the end of the line. */
static void show_role(const struct mqtx_wme_info *in, unsigned t, char *buf, struct tc_out *p)
{
	mqtx__out_str(p, t, "role", " role %s", mqtx_wme_role_name(in->role));
	if (in->role == MQTX_WME_ROLE_STA)
		mqtx__out_str(p, t, "bssid", " bssid %s", mqtx_wme_mac_format(in->bssid, buf));
}

void mqtx__wme_show(struct mqtx_dev *dev, struct tc_out *p)
{
	struct mqtx_wme_info in;
	char acm[24], qm[160];
	bool any = false;

	if (mqtx_wme_get_info(dev, &in))
		return;
	mqtx__out_open(p, "wme");
	mqtx__out_uint(p, OUT_ANY, "aggqueues", "\n    wme: aggqueues %llu", in.num_agg_queues);
	mqtx__out_uint(p, OUT_ANY, "agg_in_use", " in-use %llu", in.agg_in_use);
	mqtx__out_uint(p, OUT_ANY, "stations", " stations %llu", in.stations);
	mqtx__out_str(p, OUT_FP, NULL, " acm %s", mqtx__wme_acm_format(in.acm, acm));
	show_acm(in.acm, p);
	mqtx__out_str(p, OUT_ANY, "noadmit", " noadmit %s",
		      in.noadmit == MQTX_WME_NOADMIT_BK ? "bk" : "drop");
	mqtx__out_str(p, OUT_FP, NULL, " legacy %s", in.legacy ? "on" : "off");
	mqtx__out_bool(p, OUT_JSON, "legacy", NULL, in.legacy);
	show_role(&in, OUT_JSON, qm, p);
	if (in.has_qos_map) {
		mqtx_wme_qos_map_format(&in.qos_map, qm, sizeof(qm));
		mqtx__out_str(p, OUT_ANY, "qosmap", " qosmap %s", qm);
	} else {
		mqtx__out_null(p, "qosmap", " qosmap none");
	}
	mqtx__out_open_array(p, "tspec");
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		if (!in.tspec_time[ac])
			continue;
		mqtx__out_open(p, NULL);
		mqtx__out_str(p, OUT_FP, NULL, " tspec %s", ac_lower[ac]);
		mqtx__out_str(p, OUT_JSON, "ac", NULL, mqtx_wme_ac_name((enum mqtx_wme_ac)ac));
		mqtx__out_uint(p, OUT_ANY, "up", " up %llu", in.tspec_up[ac]);
		mqtx__out_uint(p, OUT_ANY, "medium_time", " medium-time %llu", in.tspec_time[ac]);
		mqtx__out_close(p);
		any = true;
	}
	mqtx__out_close_array(p);
	if (!any)
		mqtx__out_text(p, " tspec none");
	show_role(&in, OUT_FP, qm, p);
	mqtx__out_close(p);
}

/* ---- wme classify ---- */

static void wme_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(b,
			"Usage: mqtx [ -j ] wme classify [ dev NAME ] [ priority P ] [ vlan-pcp "
			"PCP ]\n"
			"                [ dscp D [ ipv6 ] ] [ eapol | mgmt | multicast | nonqos "
			"| sta MAC ]\n"
			"Prints where a frame goes: \"up U ac AC queue Q\" (\" ampdu\" on an "
			"aggregation queue),\n"
			"or \"drop no-admissible-ac\". Without dev: a device with no stations, "
			"ACM or QoS map.\n");
}

/* A number of the query into a uint8_t: mqtx_tc_parse_u32() within the row's bounds. */
static int parse_u8(const char *v, void *field, const struct tc_opt *o)
{
	uint32_t x;

	if (mqtx__tc_opt_unsigned(v, &x, o))
		return -EINVAL;
	*(uint8_t *)field = (uint8_t)x;
	return 0;
}

struct classify_args {
	struct mqtx_wme_query q;
	const char *dev;
};

#define QUERY(m) \
	offsetof(struct classify_args, q.m), .flags = TC_OPT_GIVEN(struct classify_args, q.flags)

static const struct tc_opt classify_opts[] = {
	{ "dev", mqtx__tc_opt_str, offsetof(struct classify_args, dev) },
	{ "priority", mqtx__tc_opt_unsigned, QUERY(priority), .flag = MQTX_WME_Q_PRIORITY },
	{ "vlan-pcp", parse_u8, QUERY(vlan_pcp), .max = 255, .flag = MQTX_WME_Q_VLAN },
	{ "dscp", parse_u8, QUERY(dscp), .max = 255, .flag = MQTX_WME_Q_DSCP },
};

/* "sta MAC": the library's parser, whose message names the bad part. */
static int classify_sta(struct mqtx_wme_query *q, const char *v, struct mqtx_buf *err)
{
	struct mqtx_extack ack = { "" };

	if (mqtx_wme_mac_parse(v, q->sta, &ack)) {
		mqtx_buf_printf(err, "wme classify: %s\n", ack.msg);
		return -1;
	}
	q->flags |= MQTX_WME_Q_STA;
	return 0;
}

static int classify_parse(int argc, char **argv, struct classify_args *a, struct mqtx_buf *err)
{
	static const struct {
		const char *w;
		uint32_t flag;
	} kinds[] = {
		{ "ipv6", MQTX_WME_Q_IPV6 },	 { "eapol", MQTX_WME_Q_EAPOL },
		{ "mgmt", MQTX_WME_Q_MGMT },	 { "multicast", MQTX_WME_Q_MULTICAST },
		{ "nonqos", MQTX_WME_Q_NONQOS },
	};

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const struct tc_opt *o;
		size_t k;

		for (k = 0; k < ARRAY_SIZE(kinds) && strcmp(w, kinds[k].w); k++)
			;
		if (k < ARRAY_SIZE(kinds)) {
			a->q.flags |= kinds[k].flag;
			continue;
		}
		o = mqtx__tc_opt_find(classify_opts, ARRAY_SIZE(classify_opts), w);
		if (!strcmp(w, "sta")) {
			if (classify_sta(&a->q, v, err))
				return -1;
		} else if (!o || (!v && o->parse == mqtx__tc_opt_str)) {
			mqtx_buf_printf(
				err, "wme classify: what is \"%s\"? Try \"mqtx wme help\".\n", w);
			return -1;
		} else if (!v || mqtx__tc_opt_apply(o, v, a)) {
			mqtx_buf_printf(err, "wme classify: invalid %s \"%s\"\n", w, v ? v : "");
			return -1;
		}
		i++;
	}
	return 0;
}

/* The verdict: tc_out's text (the library's line) or its JSON object. */
static void print_verdict(const struct mqtx_wme_verdict *v, struct tc_out *p)
{
	char line[64];

	mqtx_wme_verdict_format(v, line, sizeof(line));
	mqtx__out_str(p, OUT_FP, NULL, "%s\n", line);
	mqtx__out_open(p, NULL);
	mqtx__out_bool(p, OUT_JSON, "drop", NULL, v->drop);
	mqtx__out_uint(p, OUT_JSON, "up", NULL, v->up);
	mqtx__out_str(p, OUT_JSON, "ac", NULL, mqtx_wme_ac_name(v->ac));
	mqtx__out_uint(p, OUT_JSON, "queue", NULL, v->queue);
	mqtx__out_bool(p, OUT_JSON, "ampdu", NULL, v->ampdu);
	mqtx__out_bool(p, OUT_JSON, "downgraded", NULL, v->downgraded);
	mqtx__out_close(p);
	mqtx__out_end(p);
}

static int wme_classify(const struct mqtx_ctl_call *c, int argc, char **argv)
{
	struct classify_args a = { .dev = NULL };
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_verdict v;
	struct mqtx_dev *dev = NULL;
	struct tc_out p;
	int err;

	if (classify_parse(argc, argv, &a, c->err))
		return MQTX_TC_EXIT_PARSE;
	if (a.dev && !(dev = mqtx_ctl_call_dev(c, a.dev)))
		return MQTX_TC_EXIT_PARSE;
	err = mqtx_wme_classify(dev, &a.q, &v, &ack);
	if (err) {
		mqtx_buf_printf(c->err, "wme classify: %s\n",
				ack.msg[0] ? ack.msg : mqtx_strerror(err));
		/* A query that describes no frame is a parse error; a device that cannot answer
		 * one (no WME, no such station) refuses it. */
		return err == -EINVAL ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_REFUSED;
	}
	mqtx__out_init(&p, c->out, c->flags & MQTX_CTL_F_JSON, false, false);
	print_verdict(&v, &p);
	return MQTX_TC_EXIT_OK;
}

int mqtx__ctl_cmd_wme(const struct mqtx_ctl_call *c, void *arg)
{
	const char *verb;
	const struct mqtx_ctl_call w = mqtx__ctl_after_verb(c, "help", &verb);

	(void)arg;
	if (mqtx__ctl_asks_help(verb, &w)) {
		wme_usage(c->out);
		return MQTX_TC_EXIT_OK;
	}
	if (mqtx__tc_matches(verb, "classify"))
		return wme_classify(c, w.argc, w.argv);
	return mqtx__ctl_unknown_verb(c->err, "wme", verb, MQTX_TC_EXIT_PARSE);
}

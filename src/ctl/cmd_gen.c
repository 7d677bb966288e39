// SPDX-License-Identifier: MIT
/* The gen command's grammar, and the job table (jobs.c) attached to a context as two registered
 * commands: gen, and replay (cmd_replay.c). */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <mqtx/tc.h>
#include <mqtx/wme.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/jobs.h"

/* What the gen grammar reads: the generator's configuration and what the checks after the
 * options need. */
struct gen_args {
	struct mqtx_gen_cfg cfg;
	int af[2]; /* the family given for the source and the destination; 0: none */
	bool size_given, dmac, help;
	const char *dev, *sta;
};

/*
 * tc reads a bare time as microseconds, so "duration 10" would mean 10 us to tc but 10 s to
 * anyone who has used pktgen or trafgen: a bare number is refused (-EDOM) instead of guessed
 * at. With a unit, the time is tc's (mqtx_tc_parse_time).
 */
static int parse_duration(const char *v, void *field, const struct tc_opt *o)
{
	char *end = (char *)v;

	if (isdigit((unsigned char)*v) || *v == '.')
		strtod(v, &end);
	if (end != v && !*end)
		return -EDOM;
	return mqtx__tc_opt_time(v, field, o);
}

/* "src"/"dst" A[-B] into struct gen_args: an IPv6 address (it has a ':') or IPv4, its family
 * recorded; -ERANGE: an IPv6 range that varies above its last 32 bits. */
static int parse_addr(const char *v, void *field, const struct tc_opt *o)
{
	struct gen_args *a = field;
	struct mqtx_gen_cfg *cfg = &a->cfg;
	bool src = o->word[0] == 's';
	uint32_t *lo = src ? &cfg->src_lo : &cfg->dst_lo, *hi = src ? &cfg->src_hi : &cfg->dst_hi;
	int rc;

	if (!strchr(v, ':')) {
		if (mqtx__parse_ipv4_range(v, lo, hi))
			return -EINVAL;
		a->af[!src] = AF_INET;
		return 0;
	}
	rc = mqtx__parse_ipv6_range(v, src ? cfg->src6 : cfg->dst6, lo, hi);
	if (rc)
		return rc == -ERANGE ? rc : -EINVAL;
	a->af[!src] = AF_INET6;
	return 0;
}

/* "sport"/"dport" P[-Q] into the struct mqtx_gen_cfg. */
static int parse_ports(const char *v, void *field, const struct tc_opt *o)
{
	struct mqtx_gen_cfg *cfg = field;
	bool s = o->word[0] == 's';

	if (mqtx__parse_port_range(v, s ? &cfg->sport_lo : &cfg->dport_lo,
				   s ? &cfg->sport_hi : &cfg->dport_hi))
		return -EINVAL;
	return 0;
}

/* A frame size (tc's sizes, within the row's bounds), or imix. */
static int parse_size(const char *v, void *field, const struct tc_opt *o)
{
	uint64_t x;

	if (!strcmp(v, "imix"))
		x = MQTX_GEN_SIZE_IMIX;
	else if (mqtx_tc_parse_size(v, &x) || x < o->min || x > o->max)
		return -EINVAL;
	*(uint32_t *)field = (uint32_t)x;
	return 0;
}

/* A bit rate or a packet rate into the struct mqtx_gen_cfg. */
static int parse_rate(const char *v, void *field, const struct tc_opt *o)
{
	struct mqtx_gen_cfg *cfg = field;

	(void)o;
	return mqtx__parse_rate(v, &cfg->rate_bps, &cfg->rate_pps);
}

/* The DSCP: the upper six bits of the TOS byte. */
static int parse_dscp(const char *v, void *field, const struct tc_opt *o)
{
	uint8_t x;

	if (mqtx__tc_opt_u8(v, &x, o))
		return -EINVAL;
	*(uint8_t *)field = (uint8_t)(x << 2);
	return 0;
}

/* udp or tcp */
static int parse_proto(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	if (strcmp(v, "udp") && strcmp(v, "tcp"))
		return -EINVAL;
	*(uint8_t *)field = v[0] == 'u' ? IPPROTO_UDP : IPPROTO_TCP;
	return 0;
}

#define ARG(m) offsetof(struct gen_args, m)
#define CFG(m) offsetof(struct gen_args, cfg.m)

static const struct tc_opt gen_opts[] = {
	{ "flows", mqtx__tc_opt_u32, CFG(flows), .min = 1 },
	{ "size", parse_size, CFG(size), .min = MQTX_GEN_SIZE_MIN, .max = 9018,
	  .given = TC_OPT_GIVEN(struct gen_args, size_given), .hint = "64..mtu+18 or imix" },
	{ "rate", parse_rate, ARG(cfg) },
	{ "count", mqtx__tc_opt_u64, CFG(count), .min = 1 },
	{ "duration", parse_duration, CFG(duration_ns), .min = 1,
	  .hint = "a time such as 10s, 500ms" },
	{ "threads", mqtx__tc_opt_u32, CFG(threads), .min = 1, .max = MQTX_GEN_THREADS_MAX,
	  .hint = "1..16" },
	{ "burst", mqtx__tc_opt_u32, CFG(burst), .min = 1, .max = MQTX_GEN_BURST, .hint = "1..32" },
	{ "proto", parse_proto, CFG(proto), .hint = "udp|tcp" },
	{ "tos", mqtx__tc_opt_u8, CFG(tos) },
	{ "dscp", parse_dscp, CFG(tos), .max = 63 },
	{ "src", parse_addr, 0 },
	{ "dst", parse_addr, 0 },
	{ "sport", parse_ports, ARG(cfg) },
	{ "dport", parse_ports, ARG(cfg) },
	{ "vlan", mqtx__tc_opt_int, CFG(vlan), .max = 4095, .hint = "0..4095" },
	{ "smac", mqtx__tc_opt_mac, CFG(src_mac) },
	{ "dmac", mqtx__tc_opt_mac, CFG(dst_mac), .given = TC_OPT_GIVEN(struct gen_args, dmac) },
};

/* After the options: one address family for both ends (an end not given follows the other),
 * and a size that holds the headers of that family: without a size given, the smallest. */
static int settle_family(struct gen_args *a, struct mqtx_buf *err)
{
	struct mqtx_gen_cfg *cfg = &a->cfg;
	const int *af = a->af;
	static const uint8_t def6[2][16] = {
		{ 0xfd, [15] = 1 }, /* fd00::1 -> fd00::2, as 10.0.0.1 -> 10.0.0.2 */
		{ 0xfd, [15] = 2 },
	};

	if (af[0] && af[1] && af[0] != af[1]) {
		mqtx_buf_printf(err,
				"gen: src and dst must be of one address family (src IPv%d, "
				"dst IPv%d)\n",
				af[0] == AF_INET6 ? 6 : 4, af[1] == AF_INET6 ? 6 : 4);
		return MQTX_TC_EXIT_PARSE;
	}
	cfg->ipv6 = af[0] == AF_INET6 || af[1] == AF_INET6;
	if (cfg->ipv6 && !af[0]) {
		memcpy(cfg->src6, def6[0], 16);
		cfg->src_lo = cfg->src_hi = 1;
	}
	if (cfg->ipv6 && !af[1]) {
		memcpy(cfg->dst6, def6[1], 16);
		cfg->dst_lo = cfg->dst_hi = 2;
	}
	if (!a->size_given && cfg->size < mqtx_gen_min_size(cfg))
		cfg->size = mqtx_gen_min_size(cfg);
	if (cfg->size != MQTX_GEN_SIZE_IMIX && cfg->size < mqtx_gen_min_size(cfg)) {
		mqtx_buf_printf(err, "gen: size %u cannot hold the %s/%s headers (at least %u)\n",
				cfg->size, cfg->ipv6 ? "IPv6" : "IPv4",
				cfg->proto == IPPROTO_TCP ? "TCP" : "UDP", mqtx_gen_min_size(cfg));
		return MQTX_TC_EXIT_PARSE;
	}
	return 0;
}

/* One "word value" pair of the gen grammar; returns 0, or an exit code after a message. */
static int gen_opt(struct gen_args *a, const char *w, const char *v, struct mqtx_buf *err)
{
	const struct tc_opt *o = mqtx__tc_opt_find(gen_opts, ARRAY_SIZE(gen_opts), w);
	int rc;

	if (!v)
		return mqtx_buf_printf(err, "gen: \"%s\" needs a value\n", w), MQTX_TC_EXIT_PARSE;
	if (!o) {
		mqtx_buf_printf(err, "gen: what is \"%s\"? Try \"mqtx gen help\".\n", w);
		return MQTX_TC_EXIT_PARSE;
	}
	rc = mqtx__tc_opt_apply(o, v, a);
	if (rc == -EDOM)
		mqtx_buf_printf(err, "gen: duration needs a unit (s, ms, us): \"%s\"\n", v);
	else if (rc == -ERANGE)
		mqtx_buf_printf(err,
				"gen: invalid %s \"%s\": an IPv6 range may vary only in its "
				"last 32 bits\n",
				w, v);
	else if (rc && o->hint)
		mqtx_buf_printf(err, "gen: invalid %s (%s) \"%s\"\n", w, o->hint, v);
	else if (rc)
		mqtx_buf_printf(err, "gen: invalid %s \"%s\"\n", w, v);
	return rc ? MQTX_TC_EXIT_PARSE : 0;
}

static void gen_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx gen dev NAME [ flows N ] [ size BYTES | size imix ] [ rate RATE ]\n"
		"                [ count N | duration TIME ] [ threads K ] [ burst N ]\n"
		"                [ proto udp | tcp ]\n"
		"                [ tos TOS | dscp DSCP ] [ src A[-B] ] [ dst A[-B] ]\n"
		"                [ sport P[-Q] ] [ dport P[-Q] ] [ vlan VID ] [ smac MAC ]\n"
		"                [ dmac MAC | sta MAC ]\n"
		"                [ detach ]\n"
		"       mqtx gen show [ ID ]\n"
		"       mqtx gen stop { ID | all }\n"
		"RATE := { NUMBER[k|m|g|t]bit | NUMBER[k|m|g|t]bps | NUMBER[k|m]pps }  (tc's "
		"rates;\n"
		"        a bare NUMBER is bit/s)\n"
		"TIME := NUMBER{s|ms|us}  (tc's times; a unit is required: \"duration 10\" is "
		"refused)\n"
		"A, B: IPv4 or IPv6 addresses (one family; IPv6 ranges vary in the last 32 bits);\n"
		"      an IPv6 address selects IPv6 frames, TOS/DSCP going to the traffic class\n"
		"BYTES: tc's sizes (1514, 1kb): the frame with FCS, 64..mtu+18 (IPv6: from 66 "
		"with\n"
		"       UDP, 78 with TCP; imix and the default size rise to that);\n"
		"       imix: 7:4:1 of 64, 594 and 1518\n"
		"sta MAC: to that station of a Wi-Fi device (dmac MAC, the station known)\n");
}

/* "sta MAC": the frames go to that station of the Wi-Fi device @dev (its destination MAC),
 * so that WME selects for it (a frame to an unknown peer goes to BE, unclassified). */
static int gen_sta(const struct mqtx_ctl_call *c, struct mqtx_dev *dev, const char *sta,
		   struct mqtx_gen_cfg *cfg)
{
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_sta_info info;
	int err;

	if (mqtx_wme_mac_parse(sta, cfg->dst_mac, &ack)) {
		mqtx_buf_printf(c->err, "gen: %s\n", ack.msg);
		return MQTX_TC_EXIT_PARSE;
	}
	err = mqtx_wme_sta_get(dev, cfg->dst_mac, &info);
	if (err == -EOPNOTSUPP)
		mqtx_buf_printf(c->err, "gen: device %s is not a Wi-Fi device (no WME)\n",
				mqtx_dev_name(dev));
	else if (err)
		mqtx_buf_printf(c->err, "gen: unknown station %s on %s\n", sta, mqtx_dev_name(dev));
	return err ? MQTX_TC_EXIT_REFUSED : 0;
}

/* The words after "gen" into @a; 0 (@a->help: "help" was among them), or an exit code after a
 * message. */
static int gen_parse(int argc, char **argv, struct gen_args *a, struct mqtx_buf *err)
{
	mqtx_gen_cfg_default(&a->cfg);
	for (int i = 1; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc;

		if (!strcmp(argv[i], "help")) {
			a->help = true;
			return 0;
		}
		if (!strcmp(argv[i], "detach")) {
			i--; /* the tool's word: return at once; the library always does */
		} else if (!strcmp(argv[i], "dev")) {
			if (!v) {
				mqtx_buf_printf(err, "gen: invalid dev \"\"\n");
				return MQTX_TC_EXIT_PARSE;
			}
			a->dev = v;
		} else if (!strcmp(argv[i], "sta")) {
			a->sta = v ? v : "";
		} else if ((rc = gen_opt(a, argv[i], v, err))) {
			return rc;
		}
	}
	return 0;
}

static int cmd_gen(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_jobs *s = arg;
	struct mqtx_buf *out = c->out, *err = c->err;
	char **argv = c->argv;
	int argc = c->argc;
	struct gen_args a = { .af = { 0, 0 } };
	struct job_prep prep;
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	uint32_t max;
	int rc;

	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop")))
		return mqtx__jobs_admin(s, c);
	if (argc < 2 || !strcmp(argv[1], "help")) {
		gen_usage(argc < 2 ? err : out);
		return argc < 2 ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_OK;
	}
	rc = gen_parse(argc, argv, &a, err);
	if (rc || a.help) {
		if (a.help)
			gen_usage(out);
		return rc;
	}
	if (a.sta && a.dmac) {
		mqtx_buf_printf(err, "gen: give sta or dmac, not both\n");
		return MQTX_TC_EXIT_PARSE;
	}
	rc = settle_family(&a, err);
	if (!rc)
		rc = mqtx__jobs_dev(c, a.dev, &dev);
	if (!rc && a.sta)
		rc = gen_sta(c, dev, a.sta, &a.cfg);
	if (rc)
		return rc;
	max = mqtx_dev_mtu(dev) + 18 + (a.cfg.vlan >= 0 ? 4 : 0);
	if (a.cfg.size > max) {
		mqtx_buf_printf(err, "gen: size %u is larger than the device allows (%u)\n",
				a.cfg.size, max);
		return MQTX_TC_EXIT_REFUSED;
	}
	rc = mqtx__jobs_prepare(s, c, dev, &prep);
	if (rc)
		return rc;
	if (mqtx__gen_start(dev, prep.pool->pool, &a.cfg, &job)) {
		mqtx__jobs_abort(&prep);
		mqtx_buf_printf(err, "gen: cannot start the generator on %s (out of resources)\n",
				mqtx_dev_name(dev));
		return MQTX_TC_EXIT_REFUSED;
	}
	mqtx__jobs_commit(s, c, &prep, dev, job);
	return MQTX_TC_EXIT_OK;
}

int mqtx_jobs_attach(struct mqtx_jobs *s, struct mqtx_ctl *ctl)
{
	const struct mqtx_ctl_cmd gen = { "gen", cmd_gen, s,
					  "gen dev NAME [ flows N ] [ size S | size imix ] [ rate "
					  "R ] [ count C | duration T ] "
					  "...\ngen { show [ ID ] | stop { ID | all } }" };
	const struct mqtx_ctl_cmd replay = { "replay", mqtx__ctl_cmd_replay, s, mqtx__replay_help };
	int err;

	if (s->ctl)
		return -EBUSY;
	err = mqtx_ctl_watch(ctl, mqtx__jobs_gone, s);
	if (err)
		return err;
	err = mqtx_ctl_register(ctl, &gen);
	if (err)
		goto unwatch;
	err = mqtx_ctl_register(ctl, &replay);
	if (err)
		goto unregister;
	s->ctl = ctl;
	return 0;
unregister:
	mqtx_ctl_unregister(ctl, "gen");
unwatch:
	mqtx_ctl_unwatch(ctl, mqtx__jobs_gone, s);
	return err;
}

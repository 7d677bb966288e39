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

#include "ctl/ctl_int.h"
#include "ctl/jobs.h"

static int bad(struct mqtx_buf *err, const char *cmd, const char *what, const char *tok)
{
	mqtx_buf_printf(err, "%s: invalid %s \"%s\"\n", cmd, what, tok ? tok : "");
	return MQTX_TC_EXIT_PARSE;
}

/*
 * tc reads a bare time as microseconds, so "duration 10" would mean 10 us to tc but 10 s to
 * anyone who has used pktgen or trafgen: a bare number is refused instead of guessed at.
 * With a unit, the time is tc's (mqtx_tc_parse_time).
 */
static int parse_duration(struct mqtx_gen_cfg *cfg, const char *v, struct mqtx_buf *err)
{
	char *end = (char *)v;

	if (isdigit((unsigned char)*v) || *v == '.')
		strtod(v, &end);
	if (end != v && !*end) {
		mqtx_buf_printf(err, "gen: duration needs a unit (s, ms, us): \"%s\"\n", v);
		return MQTX_TC_EXIT_PARSE;
	}
	if (mqtx_tc_parse_time(v, &cfg->duration_ns) || !cfg->duration_ns)
		return bad(err, "gen", "duration (a time such as 10s, 500ms)", v);
	return 0;
}

/* "src"/"dst" A[-B]: an IPv6 address (it has a ':') or IPv4; @af[0] and @af[1] record the
 * family given for the source and the destination. */
static int parse_addr(struct mqtx_gen_cfg *cfg, const char *w, const char *v, int af[2],
		      struct mqtx_buf *err)
{
	bool src = w[0] == 's';
	uint32_t *lo = src ? &cfg->src_lo : &cfg->dst_lo, *hi = src ? &cfg->src_hi : &cfg->dst_hi;
	int rc;

	if (!strchr(v, ':')) {
		if (mqtx__parse_ipv4_range(v, lo, hi))
			return bad(err, "gen", w, v);
		af[!src] = AF_INET;
		return 0;
	}
	rc = mqtx__parse_ipv6_range(v, src ? cfg->src6 : cfg->dst6, lo, hi);
	if (rc == -ERANGE) {
		mqtx_buf_printf(err,
				"gen: invalid %s \"%s\": an IPv6 range may vary only in its "
				"last 32 bits\n",
				w, v);
		return MQTX_TC_EXIT_PARSE;
	}
	if (rc)
		return bad(err, "gen", w, v);
	af[!src] = AF_INET6;
	return 0;
}

/* After the options: one address family for both ends (an end not given follows the other),
 * and a size that holds the headers of that family: without a size given, the smallest. */
static int settle_family(struct mqtx_gen_cfg *cfg, const int af[2], bool size_given,
			 struct mqtx_buf *err)
{
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
	if (!size_given && cfg->size < mqtx_gen_min_size(cfg))
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
static int gen_opt(struct mqtx_gen_cfg *cfg, const char *w, const char *v, int af[2],
		   struct mqtx_buf *err)
{
	uint64_t x;

	if (!v)
		return mqtx_buf_printf(err, "gen: \"%s\" needs a value\n", w), MQTX_TC_EXIT_PARSE;
	if (!strcmp(w, "flows")) {
		if (mqtx__parse_u64(v, &x) || !x || x > UINT32_MAX)
			return bad(err, "gen", "flows", v);
		cfg->flows = (uint32_t)x;
	} else if (!strcmp(w, "size")) {
		if (!strcmp(v, "imix"))
			cfg->size = MQTX_GEN_SIZE_IMIX;
		else if (mqtx_tc_parse_size(v, &x) || x < MQTX_GEN_SIZE_MIN || x > 9018)
			return bad(err, "gen", "size (64..mtu+18 or imix)", v);
		else
			cfg->size = (uint32_t)x;
	} else if (!strcmp(w, "rate")) {
		if (mqtx__parse_rate(v, &cfg->rate_bps, &cfg->rate_pps))
			return bad(err, "gen", "rate", v);
	} else if (!strcmp(w, "count")) {
		if (mqtx__parse_u64(v, &cfg->count) || !cfg->count)
			return bad(err, "gen", "count", v);
	} else if (!strcmp(w, "duration")) {
		return parse_duration(cfg, v, err);
	} else if (!strcmp(w, "threads")) {
		if (mqtx__parse_u64(v, &x) || !x || x > MQTX_GEN_THREADS_MAX)
			return bad(err, "gen", "threads (1..16)", v);
		cfg->threads = (unsigned)x;
	} else if (!strcmp(w, "burst")) {
		if (mqtx__parse_u64(v, &x) || !x || x > MQTX_GEN_BURST)
			return bad(err, "gen", "burst (1..32)", v);
		cfg->burst = (unsigned)x;
	} else if (!strcmp(w, "proto")) {
		if (strcmp(v, "udp") && strcmp(v, "tcp"))
			return bad(err, "gen", "proto (udp|tcp)", v);
		cfg->proto = !strcmp(v, "udp") ? IPPROTO_UDP : IPPROTO_TCP;
	} else if (!strcmp(w, "tos") || !strcmp(w, "dscp")) {
		bool dscp = w[0] == 'd';

		if (mqtx__parse_u64(v, &x) || x > (dscp ? 63 : 255))
			return bad(err, "gen", w, v);
		cfg->tos = (uint8_t)(dscp ? x << 2 : x);
	} else if (!strcmp(w, "src") || !strcmp(w, "dst")) {
		return parse_addr(cfg, w, v, af, err);
	} else if (!strcmp(w, "sport") || !strcmp(w, "dport")) {
		bool s = w[0] == 's';

		if (mqtx__parse_port_range(v, s ? &cfg->sport_lo : &cfg->dport_lo,
					   s ? &cfg->sport_hi : &cfg->dport_hi))
			return bad(err, "gen", w, v);
	} else if (!strcmp(w, "vlan")) {
		if (mqtx__parse_u64(v, &x) || x > 4095)
			return bad(err, "gen", "vlan (0..4095)", v);
		cfg->vlan = (int)x;
	} else if (!strcmp(w, "smac") || !strcmp(w, "dmac")) {
		if (mqtx__parse_mac(v, w[0] == 's' ? cfg->src_mac : cfg->dst_mac))
			return bad(err, "gen", w, v);
	} else {
		mqtx_buf_printf(err, "gen: what is \"%s\"? Try \"mqtx gen help\".\n", w);
		return MQTX_TC_EXIT_PARSE;
	}
	return 0;
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

static int cmd_gen(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_jobs *s = arg;
	struct mqtx_buf *out = c->out, *err = c->err;
	char **argv = c->argv;
	int argc = c->argc;
	struct mqtx_gen_cfg cfg;
	const char *name = NULL, *sta = NULL;
	bool dmac = false;
	struct job_prep prep;
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	int af[2] = { 0, 0 };
	bool size_given = false;
	uint32_t max;
	int rc;

	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop")))
		return mqtx__jobs_admin(s, c);
	if (argc < 2 || !strcmp(argv[1], "help")) {
		gen_usage(argc < 2 ? err : out);
		return argc < 2 ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_OK;
	}
	mqtx_gen_cfg_default(&cfg);
	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "help")) {
			gen_usage(out);
			return MQTX_TC_EXIT_OK;
		}
		if (!strcmp(argv[i], "detach")) {
			i--; /* the tool's word: return at once; the library always does */
			continue;
		}
		if (!strcmp(argv[i], "dev")) {
			if (i + 1 >= argc)
				return bad(err, "gen", "dev", "");
			name = argv[i + 1];
			continue;
		}
		if (!strcmp(argv[i], "sta")) {
			sta = i + 1 < argc ? argv[i + 1] : "";
			continue;
		}
		dmac |= !strcmp(argv[i], "dmac");
		rc = gen_opt(&cfg, argv[i], i + 1 < argc ? argv[i + 1] : NULL, af, err);
		if (rc)
			return rc;
		size_given |= !strcmp(argv[i], "size");
	}
	if (sta && dmac) {
		mqtx_buf_printf(err, "gen: give sta or dmac, not both\n");
		return MQTX_TC_EXIT_PARSE;
	}
	rc = settle_family(&cfg, af, size_given, err);
	if (!rc)
		rc = mqtx__jobs_dev(c, name, &dev);
	if (!rc && sta)
		rc = gen_sta(c, dev, sta, &cfg);
	if (rc)
		return rc;
	max = mqtx_dev_mtu(dev) + 18 + (cfg.vlan >= 0 ? 4 : 0);
	if (cfg.size > max) {
		mqtx_buf_printf(err, "gen: size %u is larger than the device allows (%u)\n",
				cfg.size, max);
		return MQTX_TC_EXIT_REFUSED;
	}
	rc = mqtx__jobs_prepare(s, c, dev, &prep);
	if (rc)
		return rc;
	if (mqtx__gen_start(dev, prep.pool->pool, &cfg, &job)) {
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

// SPDX-License-Identifier: MIT
/* The gen and replay commands: their grammar, and the job table (jobs.c) they start jobs in,
 * attached to a context as two registered commands. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mqtx/tc.h>

#include "ctl/ctl_int.h"
#include "ctl/jobs.h"

static int bad(struct mqtx_buf *err, const char *cmd, const char *what, const char *tok)
{
	mqtx_buf_printf(err, "%s: invalid %s \"%s\"\n", cmd, what, tok ? tok : "");
	return MQTX_CTL_EPARSE;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char c;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &c) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
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
		return MQTX_CTL_EPARSE;
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
		return MQTX_CTL_EPARSE;
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
		mqtx_buf_printf(err, "gen: src and dst must be of one address family\n");
		return MQTX_CTL_EPARSE;
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
		return MQTX_CTL_EPARSE;
	}
	return 0;
}

/* One "word value" pair of the gen grammar; returns 0, or an exit code after a message. */
static int gen_opt(struct mqtx_gen_cfg *cfg, const char *w, const char *v, int af[2],
		   struct mqtx_buf *err)
{
	uint64_t x;

	if (!v)
		return mqtx_buf_printf(err, "gen: \"%s\" needs a value\n", w), MQTX_CTL_EPARSE;
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
		if (parse_mac(v, w[0] == 's' ? cfg->src_mac : cfg->dst_mac))
			return bad(err, "gen", w, v);
	} else {
		mqtx_buf_printf(err, "gen: what is \"%s\"? Try \"mqtx gen help\".\n", w);
		return MQTX_CTL_EPARSE;
	}
	return 0;
}

static void gen_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx gen dev NAME [ flows N ] [ size BYTES | size imix ] [ rate RATE ]\n"
		"                [ count N | duration TIME ] [ threads K ] [ proto udp | tcp ]\n"
		"                [ tos TOS | dscp DSCP ] [ src A[-B] ] [ dst A[-B] ]\n"
		"                [ sport P[-Q] ] [ dport P[-Q] ] [ vlan VID ] [ smac MAC ] [ dmac "
		"MAC ]\n"
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
		"       imix: 7:4:1 of 64, 594 and 1518\n");
}

/* Resolve "dev NAME" to an up device; a message and an exit code otherwise. */
static int job_dev(const struct mqtx_ctl_call *c, const char *name, struct mqtx_dev **dev)
{
	if (!name) {
		mqtx_buf_printf(c->err, "%s: \"dev NAME\" is required\n", c->argv[0]);
		return MQTX_CTL_EPARSE;
	}
	*dev = mqtx_ctl_call_dev(c, name);
	if (!*dev)
		return MQTX_CTL_EPARSE;
	if (!mqtx_dev_is_up(*dev)) {
		mqtx_buf_printf(c->err, "%s: device \"%s\" is down\n", c->argv[0], name);
		return MQTX_CTL_EREFUSED;
	}
	return 0;
}

static int cmd_gen(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_jobs *s = arg;
	struct mqtx_buf *out = c->out, *err = c->err;
	char **argv = c->argv;
	int argc = c->argc;
	struct mqtx_gen_cfg cfg;
	const char *name = NULL;
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
		return argc < 2 ? MQTX_CTL_EPARSE : MQTX_CTL_OK;
	}
	mqtx_gen_cfg_default(&cfg);
	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "help")) {
			gen_usage(out);
			return MQTX_CTL_OK;
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
		rc = gen_opt(&cfg, argv[i], i + 1 < argc ? argv[i + 1] : NULL, af, err);
		if (rc)
			return rc;
		size_given |= !strcmp(argv[i], "size");
	}
	rc = settle_family(&cfg, af, size_given, err);
	if (!rc)
		rc = job_dev(c, name, &dev);
	if (rc)
		return rc;
	max = mqtx_dev_mtu(dev) + 18 + (cfg.vlan >= 0 ? 4 : 0);
	if (cfg.size > max) {
		mqtx_buf_printf(err, "gen: size %u is larger than the device allows (%u)\n",
				cfg.size, max);
		return MQTX_CTL_EREFUSED;
	}
	rc = mqtx__jobs_prepare(s, c, dev, &prep);
	if (rc)
		return rc;
	if (mqtx__gen_start(dev, prep.pool->pool, &cfg, &job)) {
		mqtx__jobs_abort(&prep);
		mqtx_buf_printf(err, "gen: cannot start the generator (out of resources)\n");
		return MQTX_CTL_EREFUSED;
	}
	mqtx__jobs_commit(s, c, &prep, dev, job);
	return MQTX_CTL_OK;
}

static void replay_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx replay FILE dev NAME [ speed X | rate RATE | topspeed ] [ loop N ]\n"
		"                   [ detach ]\n"
		"       mqtx replay show [ ID ]\n"
		"       mqtx replay stop { ID | all }\n"
		"FILE: pcap or pcapng with Ethernet frames; loop 0 repeats until stopped\n");
}

static int replay_opts(int argc, char **argv, struct mqtx_replay_cfg *cfg, const char **name,
		       struct mqtx_buf *err)
{
	for (int i = 2; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(w, "topspeed")) {
			cfg->topspeed = true;
			continue;
		}
		if (!strcmp(w, "detach"))
			continue; /* the tool's word (see gen) */
		if (!v)
			return bad(err, "replay", w, "");
		i++;
		if (!strcmp(w, "dev")) {
			*name = v;
		} else if (!strcmp(w, "speed")) {
			cfg->speed = strtod(v, &end);
			if (*end || end == v)
				return bad(err, "replay", "speed", v);
			if (!(cfg->speed >= MQTX_REPLAY_SPEED_MIN &&
			      cfg->speed <= MQTX_REPLAY_SPEED_MAX)) {
				mqtx_buf_printf(err,
						"replay: speed \"%s\" is out of range (%g to %g)\n",
						v, MQTX_REPLAY_SPEED_MIN, MQTX_REPLAY_SPEED_MAX);
				return MQTX_CTL_EPARSE;
			}
		} else if (!strcmp(w, "rate")) {
			if (mqtx__parse_rate(v, &cfg->rate_bps, &cfg->rate_pps))
				return bad(err, "replay", "rate", v);
		} else if (!strcmp(w, "loop")) {
			if (mqtx__parse_u64(v, &cfg->loops))
				return bad(err, "replay", "loop", v);
		} else {
			mqtx_buf_printf(err, "replay: what is \"%s\"? Try \"mqtx replay help\".\n",
					w);
			return MQTX_CTL_EPARSE;
		}
	}
	return 0;
}

/*
 * The capture, open and checked: the client's descriptor for a server's request, else the file
 * named. It is read whole with the command lock dropped, so that a big file delays only its own
 * command (as Linux drops RTNL while it loads a qdisc module); nothing of the context is used
 * until the lock is taken again. Returns 0 with cfg->fd (the caller closes it), or an exit code.
 */
static int read_capture(const struct mqtx_ctl_call *c, struct mqtx_replay_cfg *cfg)
{
	const struct mqtx_ctl_req *req = c->req;
	char msg[256] = "";
	int fd;

	if (req && req->fd < 0) {
		mqtx_buf_printf(c->err,
				"replay: %s: the file must come open with the command (a "
				"server opens no file by name for its clients; mqtx sends it)\n",
				cfg->path);
		return MQTX_CTL_EPARSE;
	}
	mqtx__ctl_unlock(c->ctl);
	if (req) {
		fd = fcntl(req->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			snprintf(msg, sizeof(msg), "%s", strerror(errno));
	} else {
		fd = mqtx__replay_open(cfg->path, msg, sizeof(msg));
	}
	cfg->records = fd >= 0 ? mqtx__replay_check(fd, msg, sizeof(msg)) : -1;
	mqtx__ctl_relock(c->ctl);
	if (cfg->records < 0) {
		if (fd >= 0)
			close(fd);
		mqtx_buf_printf(c->err, "replay: %s: %s\n", cfg->path, msg);
		return MQTX_CTL_EPARSE;
	}
	cfg->fd = fd;
	return 0;
}

/* With the capture checked and the lock held again: the device, the limits, the job. */
static int start_replay(struct mqtx_jobs *s, const struct mqtx_ctl_call *c,
			const struct mqtx_replay_cfg *cfg, const char *name)
{
	struct job_prep prep;
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	char msg[256];
	int rc;

	rc = job_dev(c, name, &dev);
	if (!rc)
		rc = mqtx__jobs_prepare(s, c, dev, &prep);
	if (rc)
		return rc;
	rc = mqtx__replay_start(dev, prep.pool->pool, cfg, msg, sizeof(msg), &job);
	if (rc) {
		mqtx__jobs_abort(&prep);
		mqtx_buf_printf(c->err, "replay: %s: %s\n", cfg->path, msg);
		return rc == -EINVAL ? MQTX_CTL_EPARSE : MQTX_CTL_EREFUSED;
	}
	mqtx__jobs_commit(s, c, &prep, dev, job);
	return MQTX_CTL_OK;
}

static int cmd_replay(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_replay_cfg cfg = { .speed = 1.0, .loops = 1, .fd = -1 };
	struct mqtx_jobs *s = arg;
	char **argv = c->argv;
	int argc = c->argc;
	const char *name = NULL;
	int rc;

	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop")))
		return mqtx__jobs_admin(s, c);
	if (argc < 2 || !strcmp(argv[1], "help") || (argc > 2 && !strcmp(argv[argc - 1], "help"))) {
		replay_usage(argc < 2 ? c->err : c->out);
		return argc < 2 ? MQTX_CTL_EPARSE : MQTX_CTL_OK;
	}
	cfg.path = argv[1];
	rc = replay_opts(argc, argv, &cfg, &name, c->err);
	if (rc)
		return rc;
	if (cfg.topspeed + (cfg.rate_bps || cfg.rate_pps) + (cfg.speed != 1.0) > 1) {
		mqtx_buf_printf(c->err, "replay: give only one of speed, rate and topspeed\n");
		return MQTX_CTL_EPARSE;
	}
	rc = read_capture(c, &cfg);
	if (rc)
		return rc;
	rc = start_replay(s, c, &cfg, name);
	close(cfg.fd);
	return rc;
}

int mqtx_jobs_attach(struct mqtx_jobs *s, struct mqtx_ctl *ctl)
{
	const struct mqtx_ctl_cmd gen = { "gen", cmd_gen, s,
					  "gen dev NAME [ flows N ] [ size S | size imix ] [ rate "
					  "R ] [ count C | duration T ] "
					  "...\ngen { show [ ID ] | stop { ID | all } }" };
	const struct mqtx_ctl_cmd replay = {
		"replay", cmd_replay, s,
		"replay FILE dev NAME [ speed X | rate R | topspeed ] [ loop N ]\n"
		"replay { show [ ID ] | stop { ID | all } }"
	};
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

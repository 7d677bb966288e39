// SPDX-License-Identifier: MIT
/* The replay command: its grammar (mqtx's words and tcpreplay's spellings of them), the capture
 * read and checked with the command lock dropped, and the job started in the job table. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqtx/tc.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/jobs.h"
#include "ctl/replay_words.h"

const char mqtx__replay_help[] =
	"replay FILE dev NAME [ speed X | rate R | topspeed ] [ loop N [ loopdelay T ] ]\n"
	"       [ count N ] [ duration T ] [ mtu-trunc ] [ smac MAC ] [ dmac MAC ]\n"
	"replay { show [ ID ] | stop { ID | all } }";

/* What the words said beyond the configuration: the device, and the words that set the
 * timing and the loops (for the combinations tcpreplay refuses). */
struct rargs {
	struct mqtx_replay_cfg *cfg;
	const char *dev, *timing, *loop, *loopdelay;
};

static void replay_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx replay FILE dev NAME [ speed X | rate RATE | topspeed ]\n"
		"                   [ loop N [ loopdelay TIME ] ] [ count N ] [ duration TIME ]\n"
		"                   [ mtu-trunc ] [ smac MAC ] [ dmac MAC ] [ detach ]\n"
		"       mqtx replay show [ ID ]\n"
		"       mqtx replay stop { ID | all }\n"
		"FILE: pcap or pcapng of Ethernet or Linux cooked (SLL, SLL2: tcpdump -i any) "
		"frames;\n"
		"      cooked ones get an Ethernet header (source: their address when it has 6\n"
		"      bytes, else smac or zero; destination: dmac, broadcast, the multicast "
		"group's\n"
		"      address, else zero)\n"
		"loop 0 repeats until stopped; count N ends after N frames; duration TIME ends "
		"then;\n"
		"frames longer than the device's MTU fail (counted) unless mtu-trunc cuts them\n"
		"RATE := { NUMBER[k|m|g|t]bit | NUMBER[k|m|g|t]bps | NUMBER[k|m]pps }  (tc's "
		"rates)\n"
		"TIME := NUMBER{s|ms|us}  (tc's times, with a unit)\n"
		"tcpreplay's spellings work too: --multiplier X, --pps N, --mbps N, --topspeed,\n"
		"--loop N, --loopdelay-ms N, --limit N, --duration SECS, --mtu-trunc (also -x -p "
		"-M\n"
		"-t -l -L and --opt=value); tcprewrite's --enet-smac, --enet-dmac; --intf1 NAME;\n"
		"--unique-ip (addresses moved each loop), --fixcsum (-C: checksums recomputed);\n"
		"-K, -q and --stats N (progress every N seconds) for the tool; the options may\n"
		"come before or after FILE, as tcpreplay's: mqtx replay -i eth0 --pps 10 FILE\n");
}

static int bad(struct mqtx_buf *err, const char *what, const char *tok)
{
	mqtx_buf_printf(err, "replay: invalid %s \"%s\"\n", what, tok ? tok : "");
	return MQTX_TC_EXIT_PARSE;
}

/* A positive number (tcpreplay's --pps, --mbps), at most @max. */
static int parse_positive(const char *v, double max, double *x)
{
	char *end;

	*x = strtod(v, &end);
	return end == v || *end || !isfinite(*x) || *x <= 0 || *x > max ? -EINVAL : 0;
}

/* A tc time with its unit (a bare number is refused, as gen's duration). */
static int parse_time(const char *w, const char *v, bool zero_ok, uint64_t *ns,
		      struct mqtx_buf *err)
{
	char *end = (char *)v;

	if (isdigit((unsigned char)*v) || *v == '.')
		strtod(v, &end);
	if (end != v && !*end) {
		mqtx_buf_printf(err, "replay: %s needs a unit (s, ms, us): \"%s\"\n", w, v);
		return MQTX_TC_EXIT_PARSE;
	}
	if (mqtx_tc_parse_time(v, ns) || (!*ns && !zero_ok))
		return bad(err, w, v);
	return 0;
}

/* tcpreplay's modes exclude each other: speed, a rate, topspeed. */
static int set_timing(struct rargs *a, const char *w, struct mqtx_buf *err)
{
	if (a->timing) {
		mqtx_buf_printf(err,
				"replay: \"%s\" and \"%s\" cannot be combined: give one of speed "
				"(--multiplier), rate (--pps, --mbps) and topspeed\n",
				a->timing, w);
		return MQTX_TC_EXIT_PARSE;
	}
	a->timing = w;
	return 0;
}

static int timing_opt(struct rargs *a, enum rword what, const char *w, const char *v,
		      struct mqtx_buf *err)
{
	struct mqtx_replay_cfg *cfg = a->cfg;
	uint64_t pps = 0;
	double x;
	char *end;
	int rc = set_timing(a, w, err);

	if (rc)
		return rc;
	switch (what) {
	case R_SPEED:
		cfg->speed = strtod(v, &end);
		if (*end || end == v)
			return bad(err, "speed", v);
		if (!(cfg->speed >= MQTX_REPLAY_SPEED_MIN && cfg->speed <= MQTX_REPLAY_SPEED_MAX)) {
			mqtx_buf_printf(err, "replay: speed \"%s\" is out of range (%g to %g)\n", v,
					MQTX_REPLAY_SPEED_MIN, MQTX_REPLAY_SPEED_MAX);
			return MQTX_TC_EXIT_PARSE;
		}
		return 0;
	case R_RATE:
		if (mqtx__parse_rate(v, &cfg->rate_bps, &pps))
			return bad(err, "rate", v);
		cfg->pps = (double)pps;
		return 0;
	case R_PPS:
		if (parse_positive(v, 1e15, &cfg->pps))
			return bad(err, "--pps (packets per second, such as 100 or 0.25)", v);
		return 0;
	case R_MBPS:
		if (parse_positive(v, 1e9, &x) || x * 1e6 < 1)
			return bad(err, "--mbps (megabits per second, such as 100 or 2.5)", v);
		cfg->rate_bps = (uint64_t)(x * 1e6);
		return 0;
	default:
		cfg->topspeed = true;
		return 0;
	}
}

/* One word (and its value @v); returns 0, or an exit code after a message. */
static int replay_opt(struct rargs *a, enum rword what, const char *w, const char *v,
		      struct mqtx_buf *err)
{
	struct mqtx_replay_cfg *cfg = a->cfg;
	uint64_t x;

	switch (what) {
	case R_DEV:
		a->dev = v;
		return 0;
	case R_SPEED:
	case R_RATE:
	case R_PPS:
	case R_MBPS:
	case R_TOPSPEED:
		return timing_opt(a, what, w, v, err);
	case R_LOOP:
		a->loop = w;
		return mqtx__parse_u64(v, &cfg->loops) ? bad(err, w, v) : 0;
	case R_LOOPDELAY:
		a->loopdelay = w;
		return parse_time(w, v, true, &cfg->loopdelay_ns, err);
	case R_LOOPDELAY_MS:
		a->loopdelay = w;
		if (mqtx__parse_u64(v, &x) || x > UINT64_MAX / 1000000)
			return bad(err, "--loopdelay-ms (milliseconds)", v);
		cfg->loopdelay_ns = x * 1000000;
		return 0;
	case R_COUNT:
		if (mqtx__parse_u64(v, &cfg->limit) || !cfg->limit)
			return bad(err, w, v);
		return 0;
	case R_DURATION:
		return parse_time(w, v, false, &cfg->duration_ns, err);
	case R_DURATION_S:
		if (mqtx__parse_u64(v, &x) || !x || x > UINT64_MAX / 1000000000)
			return bad(err, "--duration (whole seconds, at least 1)", v);
		cfg->duration_ns = x * 1000000000;
		return 0;
	case R_MTU_TRUNC:
		cfg->mtu_trunc = true;
		return 0;
	case R_STATS:
		return mqtx__parse_u64(v, &x) || x > 86400 ? bad(err, "--stats (seconds)", v) : 0;
	case R_UNIQUE_IP:
		cfg->unique_ip = true;
		return 0;
	case R_FIXCSUM:
		cfg->fixcsum = true;
		return 0;
	case R_REFUSED:
		for (size_t k = 0; k < mqtx__nrword_refusals; k++)
			if (!strcmp(mqtx__rword_refusals[k][0], w))
				mqtx_buf_printf(err, "replay: \"%s\" is not supported: %s\n", w,
						mqtx__rword_refusals[k][1]);
		return MQTX_TC_EXIT_PARSE;
	case R_SMAC:
	case R_DMAC:
		if (mqtx__parse_mac(v, what == R_SMAC ? cfg->smac : cfg->dmac))
			return bad(err, w, v);
		*(what == R_SMAC ? &cfg->has_smac : &cfg->has_dmac) = true;
		return 0;
	default:
		return 0; /* detach, -K, -q: the tool's words (see gen) */
	}
}

static int replay_opts(int argc, char **argv, int file, struct rargs *a, struct mqtx_buf *err)
{
	for (int i = 1; i < argc; i++) {
		const char *eq =
			argv[i][0] == '-' && argv[i][1] == '-' ? strchr(argv[i], '=') : NULL;
		size_t n = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		const char *v = NULL;
		int k = i == file ? -1 : mqtx__rword_of(argv[i]);
		int rc;

		if (i == file)
			continue;
		if (k < 0) {
			mqtx_buf_printf(err, "replay: what is \"%s\"? Try \"mqtx replay help\".\n",
					argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		if (mqtx__rwords[k].value) {
			v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!v) {
				mqtx_buf_printf(err, "replay: \"%s\" needs a value\n", argv[i]);
				return MQTX_TC_EXIT_PARSE;
			}
		} else if (eq) {
			mqtx_buf_printf(err, "replay: \"%.*s\" takes no value\n", (int)n, argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		rc = replay_opt(a, mqtx__rwords[k].what, mqtx__rwords[k].word, v, err);
		if (rc)
			return rc;
	}
	if (a->loopdelay && !a->loop) {
		/* tcpreplay: "--loopdelay-ms must appear in combination with loop" */
		mqtx_buf_printf(err, "replay: \"%s\" needs \"loop\" (or \"--loop\")\n",
				a->loopdelay);
		return MQTX_TC_EXIT_PARSE;
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
		return MQTX_TC_EXIT_PARSE;
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
		return cfg->records == -ENOMEM ? MQTX_TC_EXIT_REFUSED : MQTX_TC_EXIT_PARSE;
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

	rc = mqtx__jobs_dev(c, name, &dev);
	if (!rc)
		rc = mqtx__jobs_prepare(s, c, dev, &prep);
	if (rc)
		return rc;
	rc = mqtx__replay_start(dev, prep.pool->pool, cfg, msg, sizeof(msg), &job);
	if (rc) {
		mqtx__jobs_abort(&prep);
		mqtx_buf_printf(c->err, "replay: %s: %s\n", cfg->path, msg);
		return rc == -EINVAL ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_REFUSED;
	}
	mqtx__jobs_commit(s, c, &prep, dev, job);
	return MQTX_TC_EXIT_OK;
}

int mqtx__ctl_cmd_replay(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_replay_cfg cfg = { .speed = 1.0, .loops = 1, .fd = -1 };
	struct rargs a = { .cfg = &cfg };
	struct mqtx_jobs *s = arg;
	char **argv = c->argv;
	int argc = c->argc;
	int rc;

	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop")))
		return mqtx__jobs_admin(s, c);
	if (argc < 2 || !strcmp(argv[1], "help") || (argc > 2 && !strcmp(argv[argc - 1], "help"))) {
		replay_usage(argc < 2 ? c->err : c->out);
		return argc < 2 ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_OK;
	}
	rc = mqtx__replay_file_arg(argc, argv);
	if (rc < 0) {
		mqtx_buf_printf(c->err,
				"replay: which capture? Give its FILE (\"mqtx replay help\")\n");
		return MQTX_TC_EXIT_PARSE;
	}
	cfg.path = argv[rc];
	rc = replay_opts(argc, argv, rc, &a, c->err);
	if (rc)
		return rc;
	rc = read_capture(c, &cfg);
	if (rc)
		return rc;
	rc = start_replay(s, c, &cfg, a.dev);
	close(cfg.fd);
	return rc;
}

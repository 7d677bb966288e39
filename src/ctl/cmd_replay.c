// SPDX-License-Identifier: MIT
/* The replay command: its grammar, the capture read and checked with the command lock dropped,
 * and the job started in the job table. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqtx/tc.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/jobs.h"

const char mqtx__replay_help[] = "replay FILE dev NAME [ speed X | rate R | topspeed ] [ loop N ]\n"
				 "       [ mtu-trunc ] [ smac MAC ] [ dmac MAC ]\n"
				 "replay { show [ ID ] | stop { ID | all } }";

static int bad(struct mqtx_buf *err, const char *cmd, const char *what, const char *tok)
{
	mqtx_buf_printf(err, "%s: invalid %s \"%s\"\n", cmd, what, tok ? tok : "");
	return MQTX_CTL_EPARSE;
}

static void replay_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx replay FILE dev NAME [ speed X | rate RATE | topspeed ] [ loop N ]\n"
		"                   [ mtu-trunc ] [ smac MAC ] [ dmac MAC ] [ detach ]\n"
		"       mqtx replay show [ ID ]\n"
		"       mqtx replay stop { ID | all }\n"
		"FILE: pcap or pcapng of Ethernet or Linux cooked (SLL, SLL2: tcpdump -i any) "
		"frames;\n"
		"      cooked ones get an Ethernet header (source: their address when it has 6\n"
		"      bytes, else smac or zero; destination: dmac, broadcast, the multicast "
		"group's\n"
		"      address, else zero; --enet-smac and --enet-dmac are smac and dmac)\n"
		"loop 0 repeats until stopped; frames longer than the device's MTU fail (counted)\n"
		"unless mtu-trunc (--mtu-trunc) cuts them\n");
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
		if (!strcmp(w, "mtu-trunc") || !strcmp(w, "--mtu-trunc")) {
			cfg->mtu_trunc = true; /* tcprewrite's and tcpreplay-edit's spelling */
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
		} else if (!strcmp(w, "smac") || !strcmp(w, "dmac") || !strcmp(w, "--enet-smac") ||
			   !strcmp(w, "--enet-dmac")) {
			/* tcprewrite's spellings: one address each (no tcpprep cache splits
			 * the directions here) */
			bool src = !strcmp(w, "smac") || !strcmp(w, "--enet-smac");

			if (mqtx__parse_mac(v, src ? cfg->smac : cfg->dmac))
				return bad(err, "replay", w, v);
			*(src ? &cfg->has_smac : &cfg->has_dmac) = true;
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

	rc = mqtx__jobs_dev(c, name, &dev);
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

int mqtx__ctl_cmd_replay(const struct mqtx_ctl_call *c, void *arg)
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

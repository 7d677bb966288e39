// SPDX-License-Identifier: MIT
// The gen and replay commands: start generators and replays inside a control context, list
// them, stop them; the per-device packet pools they draw from.
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqtx/clock.h>
#include <mqtx/ctl.h>
#include <mqtx/pkt.h>

#include "ctl/cmd_tool.h"
#include "gen/gen.h"
#include "base/internal.h"
#include <mqtx/tc.h>

#define POOL_PKTS      8192
#define POOL_ROOM      2048
#define KEEP_FINISHED  32
#define JOB_LINE_MAX   1024 /* one job's show or stop line, whatever its counters */
#define STARTED_MAX    128  /* "KIND ID started on NAME\n" */

/* Who created a job or a pool: a server's client (mqtx_ctl_exec_req()), or nobody. */
struct tool_owner {
	bool set;
	unsigned id;
};

struct tool_job {
	struct tool_job *next;
	unsigned id;
	const char *kind; /* "gen" or "replay" */
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	struct tool_owner owner;
};

struct tool_pool {
	struct tool_pool *next;
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	struct tool_owner owner;
};

/* What the gen and replay commands keep per context (ctl->tool, made on first use). */
struct mqtx_tool_state {
	struct tool_job *jobs;
	struct tool_pool *pools;
	unsigned next_id;
};

/*
 * The request of the command this thread runs, set by mqtx_ctl_exec_req() around its call of
 * mqtx_ctl_exec(): the dispatcher (ctl.c) passes no per-request context to the commands, and a
 * command runs entirely on its caller's thread.
 */
static MQTX_TLS const struct mqtx_ctl_req *cur_req;

static struct tool_owner cur_owner(void)
{
	return (struct tool_owner){ .set = cur_req != NULL, .id = cur_req ? cur_req->owner : 0 };
}

static bool owned_by_caller(struct tool_owner o)
{
	return cur_req && o.set && o.id == cur_req->owner;
}

static struct mqtx_tool_state *get_tool_state(struct mqtx_ctl *ctl, bool create)
{
	if (!ctl->tool && create && (ctl->tool = mqtx__zalloc(sizeof(*ctl->tool))))
		ctl->tool->next_id = 1;
	return ctl->tool;
}

static struct tool_pool *find_pool(struct mqtx_tool_state *s, struct mqtx_dev *dev)
{
	for (struct tool_pool *tp = s->pools; tp; tp = tp->next)
		if (tp->dev == dev)
			return tp;
	return NULL;
}

/* A new pool for @dev's jobs, or a message and NULL past the caller's pool limit or out of
 * memory. */
static struct tool_pool *pool_new(struct mqtx_tool_state *s, struct mqtx_dev *dev,
				  const char *cmd, struct mqtx_buf *err)
{
	struct mqtx_pool_cfg pc = { .count = POOL_PKTS, .data_room = POOL_ROOM };
	struct tool_pool *tp;
	unsigned held = 0;

	for (tp = s->pools; tp; tp = tp->next)
		held += owned_by_caller(tp->owner);
	if (cur_req && cur_req->max_pools && held >= cur_req->max_pools) {
		mqtx_buf_printf(err, "%s: %s holds %u packet pools (one per device its jobs were "
				"the first to use), its limit; delete one of those devices first\n",
				cmd, cur_req->who, held);
		return NULL;
	}
	tp = mqtx__zalloc(sizeof(*tp));
	if (tp && mqtx_pool_create(&pc, &tp->pool)) {
		mqtx__free(tp);
		tp = NULL;
	}
	if (!tp) {
		mqtx_buf_printf(err, "%s: out of memory for the packet pool\n", cmd);
		return NULL;
	}
	tp->dev = dev;
	tp->owner = cur_owner();
	return tp;
}

/* A server's client may have max_jobs generators and replays running; 0 or an exit code. */
static int job_limit(struct mqtx_tool_state *s, const char *cmd, struct mqtx_buf *err)
{
	unsigned running = 0;

	if (!cur_req || !cur_req->max_jobs)
		return 0;
	for (struct tool_job *tj = s->jobs; tj; tj = tj->next) {
		struct mqtx_job_stats st;

		if (!owned_by_caller(tj->owner))
			continue;
		mqtx__job_stats(tj->job, &st);
		running += !st.done;
	}
	if (running < cur_req->max_jobs)
		return 0;
	mqtx_buf_printf(err, "%s: %s has %u generators and replays running, its limit; stop one "
			"first\n", cmd, cur_req->who, running);
	return MQTX_CTL_EREFUSED;
}

static void job_unlink_free(struct mqtx_tool_state *s, struct tool_job *tj)
{
	struct tool_job **pp;

	for (pp = &s->jobs; *pp && *pp != tj; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = tj->next;
	mqtx__job_free(tj->job);
	mqtx__free(tj);
}

/* Forget the oldest finished jobs beyond KEEP_FINISHED (nobody asked for their results). */
static void reap_finished(struct mqtx_tool_state *s)
{
	struct tool_job *tj, *last = NULL;
	unsigned kept = 0;

	for (tj = s->jobs; tj; tj = tj->next) {
		struct mqtx_job_stats st;

		mqtx__job_stats(tj->job, &st);
		if (st.done && ++kept > KEEP_FINISHED)
			last = tj;
	}
	if (last)
		job_unlink_free(s, last);
}

/*
 * What a new job needs, made before it starts so that a failure changes nothing: the context's
 * tool state, the device's pool, the job's entry and room for its "started" line.
 */
struct job_prep {
	struct tool_pool *pool; /* the device's; not yet listed if @new_pool */
	struct tool_job *tj;
	bool new_state, new_pool;
};

/* Free what job_prepare() made (all of it, or what it got to). */
static void job_abort(struct mqtx_ctl *ctl, struct job_prep *p)
{
	mqtx__free(p->tj);
	if (p->new_pool) {
		mqtx_pool_destroy(p->pool->pool);
		mqtx__free(p->pool);
	}
	if (p->new_state) {
		mqtx__free(ctl->tool);
		ctl->tool = NULL;
	}
}

/* Returns 0, or an exit code with the message in @err (a limit, or out of memory). */
static int job_prepare(struct mqtx_ctl *ctl, struct mqtx_dev *dev, const char *cmd,
		       struct mqtx_buf *out, struct mqtx_buf *err, struct job_prep *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->new_state = !ctl->tool;
	if (!get_tool_state(ctl, true)) {
		p->new_state = false;
		mqtx_buf_printf(err, "%s: out of memory\n", cmd);
		return MQTX_CTL_EREFUSED;
	}
	rc = job_limit(ctl->tool, cmd, err);
	if (rc)
		goto abort;
	rc = MQTX_CTL_EREFUSED;
	p->pool = find_pool(ctl->tool, dev);
	if (!p->pool) {
		p->pool = pool_new(ctl->tool, dev, cmd, err);
		if (!p->pool)
			goto abort;
		p->new_pool = true;
	}
	p->tj = mqtx__zalloc(sizeof(*p->tj));
	if (!p->tj || mqtx__buf_reserve(out, STARTED_MAX)) {
		mqtx_buf_printf(err, "%s: out of memory\n", cmd);
		goto abort;
	}
	return 0;
abort:
	job_abort(ctl, p);
	return rc;
}

/* @job runs: list the pool and the job, say so. Cannot fail (job_prepare() made room). */
static void job_commit(struct mqtx_ctl *ctl, struct job_prep *p, const char *kind,
		       struct mqtx_dev *dev, struct mqtx_job *job, struct mqtx_buf *out)
{
	struct mqtx_tool_state *s = ctl->tool;
	struct tool_job *tj = p->tj, **pp;

	if (p->new_pool) {
		p->pool->next = s->pools;
		s->pools = p->pool;
	}
	tj->id = s->next_id++;
	tj->kind = kind;
	tj->dev = dev;
	tj->job = job;
	tj->owner = cur_owner();
	for (pp = &s->jobs; *pp; pp = &(*pp)->next)
		;
	*pp = tj; /* oldest first, for show */
	reap_finished(s);
	mqtx_buf_printf(out, "%s %u started on %s\n", kind, tj->id, mqtx_dev_name(dev));
}

static void show_job(const struct tool_job *tj, struct mqtx_buf *out)
{
	struct mqtx_job_stats st;
	const char *e;
	double secs;

	char line[JOB_LINE_MAX];
	int n;

	mqtx__job_stats(tj->job, &st);
	e = st.done ? mqtx__job_error(tj->job) : "";
	secs = (double)(st.now_ns - st.start_ns) / 1e9;
	/* Formatted here, then appended at most JOB_LINE_MAX - 1 bytes: what stop made room for. */
	n = snprintf(line, sizeof(line),
		     "%s %u dev %s %s sent %llu bytes %llu dropped %llu skipped %llu "
		     "nomem %llu loops %llu elapsed %.3fs rate %.0fpps %.3fMbit",
		     tj->kind, tj->id, mqtx_dev_name(tj->dev),
		     *e ? "error" : st.done ? "done" : "running", (unsigned long long)st.sent,
		     (unsigned long long)st.bytes, (unsigned long long)st.dropped,
		     (unsigned long long)st.skipped, (unsigned long long)st.nomem,
		     (unsigned long long)st.loops, secs, secs > 0 ? (double)st.sent / secs : 0.0,
		     secs > 0 ? (double)st.bytes * 8 / secs / 1e6 : 0.0);
	if (*e && n >= 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, " error: %s", e);
	mqtx_buf_printf(out, "%.*s\n", JOB_LINE_MAX - 2, line);
}

static struct tool_job *find_job(struct mqtx_tool_state *s, const char *word, struct mqtx_buf *err,
				 const char *cmd)
{
	uint64_t id;

	if (mqtx__parse_u64(word, &id) || !id) {
		mqtx_buf_printf(err, "%s: invalid job id \"%s\"\n", cmd, word);
		return NULL;
	}
	for (struct tool_job *tj = s ? s->jobs : NULL; tj; tj = tj->next)
		if (tj->id == id)
			return tj;
	mqtx_buf_printf(err, "%s: no job %s\n", cmd, word);
	return NULL;
}

/* Print one job; with @stop, end it first (its final counters) and forget it. */
static void show_or_stop(struct mqtx_tool_state *s, struct tool_job *tj, bool stop,
			 struct mqtx_buf *out)
{
	if (stop)
		mqtx__job_join(tj->job);
	show_job(tj, out);
	if (stop)
		job_unlink_free(s, tj);
}

/* A job stopped cannot be started again: make room for the final counters of @n jobs first. */
static int stop_room(struct mqtx_buf *out, size_t n, const char *cmd, struct mqtx_buf *err)
{
	if (!mqtx__buf_reserve(out, n * JOB_LINE_MAX))
		return 0;
	mqtx_buf_printf(err, "%s stop: out of memory\n", cmd);
	return -ENOMEM;
}

/* "show [ID]" and "stop ID|all" shared by gen and replay; stop prints the final counters. */
static int job_admin(struct mqtx_ctl *ctl, int argc, char **argv, struct mqtx_buf *out,
		     struct mqtx_buf *err)
{
	struct mqtx_tool_state *s = get_tool_state(ctl, false);
	bool stop = !strcmp(argv[1], "stop");
	struct tool_job *tj, *next;
	size_t n;

	if (argc > 3) {
		mqtx_buf_printf(err, "%s %s: what is \"%s\"?\n", argv[0], argv[1], argv[3]);
		return MQTX_CTL_EPARSE;
	}
	if (stop && argc == 2) {
		mqtx_buf_printf(err, "%s stop: give a job id or \"all\"\n", argv[0]);
		return MQTX_CTL_EPARSE;
	}
	if (argc == 3 && strcmp(argv[2], "all")) {
		tj = find_job(s, argv[2], err, argv[0]);
		if (!tj)
			return MQTX_CTL_EREFUSED;
		if (stop && stop_room(out, 1, argv[0], err))
			return MQTX_CTL_EREFUSED;
		show_or_stop(s, tj, stop, out);
		return MQTX_CTL_OK;
	}
	n = 0;
	for (tj = s ? s->jobs : NULL; tj; tj = tj->next)
		n++;
	if (stop && stop_room(out, n, argv[0], err))
		return MQTX_CTL_EREFUSED;
	for (tj = s ? s->jobs : NULL; tj; tj = next) {
		next = tj->next;
		show_or_stop(s, tj, stop, out);
	}
	return MQTX_CTL_OK;
}

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
		mqtx_buf_printf(err, "gen: invalid %s \"%s\": an IPv6 range may vary only in its "
				"last 32 bits\n", w, v);
		return MQTX_CTL_EPARSE;
	}
	if (rc)
		return bad(err, "gen", w, v);
	af[!src] = AF_INET6;
	return 0;
}

/* After the options: one address family for both ends (an end not given follows the other),
 * and a size that holds the headers of that family. */
static int settle_family(struct mqtx_gen_cfg *cfg, const int af[2], struct mqtx_buf *err)
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
	mqtx_buf_printf(b,
		"Usage: mqtx gen dev NAME [ flows N ] [ size BYTES | size imix ] [ rate RATE ]\n"
		"                [ count N | duration TIME ] [ threads K ] [ proto udp | tcp ]\n"
		"                [ tos TOS | dscp DSCP ] [ src A[-B] ] [ dst A[-B] ]\n"
		"                [ sport P[-Q] ] [ dport P[-Q] ] [ vlan VID ] [ smac MAC ] [ dmac MAC ]\n"
		"                [ detach ]\n"
		"       mqtx gen show [ ID ]\n"
		"       mqtx gen stop { ID | all }\n"
		"RATE := { NUMBER[k|m|g|t]bit | NUMBER[k|m|g|t]bps | NUMBER[k|m]pps }  (tc's rates;\n"
		"        a bare NUMBER is bit/s)\n"
		"TIME := NUMBER{s|ms|us}  (tc's times; a unit is required: \"duration 10\" is refused)\n"
		"A, B: IPv4 or IPv6 addresses (one family; IPv6 ranges vary in the last 32 bits);\n"
		"      an IPv6 address selects IPv6 frames, TOS/DSCP going to the traffic class\n"
		"BYTES: tc's sizes (1514, 1kb): the frame with FCS, 64..mtu+18 (IPv6: from 66 with\n"
		"       UDP, 78 with TCP; imix raises its 64 to that);\n"
		"       imix: 7:4:1 of 64, 594 and 1518\n");
}

/* Resolve "dev NAME" to an up device; a message and an exit code otherwise. */
static int job_dev(struct mqtx_ctl *ctl, const char *cmd, const char *name,
		   struct mqtx_dev **dev, struct mqtx_buf *err)
{
	if (!name) {
		mqtx_buf_printf(err, "%s: \"dev NAME\" is required\n", cmd);
		return MQTX_CTL_EPARSE;
	}
	*dev = mqtx__tool_find_dev(ctl, name);
	if (!*dev) {
		mqtx_buf_printf(err, "%s: cannot find device \"%s\"\n", cmd, name);
		return MQTX_CTL_EREFUSED;
	}
	if (!mqtx_dev_is_up(*dev)) {
		mqtx_buf_printf(err, "%s: device \"%s\" is down\n", cmd, name);
		return MQTX_CTL_EREFUSED;
	}
	return 0;
}

static int cmd_gen(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		   struct mqtx_buf *out, struct mqtx_buf *err)
{
	struct mqtx_gen_cfg cfg;
	const char *name = NULL;
	struct job_prep prep;
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	int af[2] = { 0, 0 };
	uint32_t max;
	int rc;

	(void)flags;
	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop")))
		return job_admin(ctl, argc, argv, out, err);
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
	}
	rc = settle_family(&cfg, af, err);
	if (!rc)
		rc = job_dev(ctl, "gen", name, &dev, err);
	if (rc)
		return rc;
	max = mqtx_dev_mtu(dev) + 18 + (cfg.vlan >= 0 ? 4 : 0);
	if (cfg.size > max) {
		mqtx_buf_printf(err, "gen: size %u is larger than the device allows (%u)\n",
				cfg.size, max);
		return MQTX_CTL_EREFUSED;
	}
	rc = job_prepare(ctl, dev, "gen", out, err, &prep);
	if (rc)
		return rc;
	if (mqtx__gen_start(dev, prep.pool->pool, &cfg, &job)) {
		job_abort(ctl, &prep);
		mqtx_buf_printf(err, "gen: cannot start the generator (out of resources)\n");
		return MQTX_CTL_EREFUSED;
	}
	job_commit(ctl, &prep, "gen", dev, job, out);
	return MQTX_CTL_OK;
}

static void replay_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(b,
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
			if (!(cfg->speed >= MQTX_REPLAY_SPEED_MIN && cfg->speed <= MQTX_REPLAY_SPEED_MAX)) {
				mqtx_buf_printf(err, "replay: speed \"%s\" is out of range (%g to %g)\n",
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
static int read_capture(struct mqtx_ctl *ctl, struct mqtx_replay_cfg *cfg, struct mqtx_buf *err)
{
	char msg[256] = "";
	int fd;

	if (cur_req && cur_req->fd < 0) {
		mqtx_buf_printf(err, "replay: %s: the file must come open with the command (a "
				"server opens no file by name for its clients; mqtx sends it)\n",
				cfg->path);
		return MQTX_CTL_EPARSE;
	}
	pthread_mutex_unlock(&ctl->lock);
	if (cur_req) {
		fd = fcntl(cur_req->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			snprintf(msg, sizeof(msg), "%s", strerror(errno));
	} else {
		fd = mqtx__replay_open(cfg->path, msg, sizeof(msg));
	}
	cfg->records = fd >= 0 ? mqtx__replay_check(fd, msg, sizeof(msg)) : -1;
	pthread_mutex_lock(&ctl->lock);
	if (cfg->records < 0) {
		if (fd >= 0)
			close(fd);
		mqtx_buf_printf(err, "replay: %s: %s\n", cfg->path, msg);
		return MQTX_CTL_EPARSE;
	}
	cfg->fd = fd;
	return 0;
}

/* With the capture checked and the lock held again: the device, the limits, the job. */
static int start_replay(struct mqtx_ctl *ctl, const struct mqtx_replay_cfg *cfg, const char *name,
			struct mqtx_buf *out, struct mqtx_buf *err)
{
	struct job_prep prep;
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	char msg[256];
	int rc;

	rc = job_dev(ctl, "replay", name, &dev, err);
	if (!rc)
		rc = job_prepare(ctl, dev, "replay", out, err, &prep);
	if (rc)
		return rc;
	rc = mqtx__replay_start(dev, prep.pool->pool, cfg, msg, sizeof(msg), &job);
	if (rc) {
		job_abort(ctl, &prep);
		mqtx_buf_printf(err, "replay: %s: %s\n", cfg->path, msg);
		return rc == -EINVAL ? MQTX_CTL_EPARSE : MQTX_CTL_EREFUSED;
	}
	job_commit(ctl, &prep, "replay", dev, job, out);
	return MQTX_CTL_OK;
}

static int cmd_replay(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		      struct mqtx_buf *out, struct mqtx_buf *err)
{
	struct mqtx_replay_cfg cfg = { .speed = 1.0, .loops = 1, .fd = -1 };
	const char *name = NULL;
	int rc;

	(void)flags;
	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop")))
		return job_admin(ctl, argc, argv, out, err);
	if (argc < 2 || !strcmp(argv[1], "help") || (argc > 2 && !strcmp(argv[argc - 1], "help"))) {
		replay_usage(argc < 2 ? err : out);
		return argc < 2 ? MQTX_CTL_EPARSE : MQTX_CTL_OK;
	}
	cfg.path = argv[1];
	rc = replay_opts(argc, argv, &cfg, &name, err);
	if (rc)
		return rc;
	if (cfg.topspeed + (cfg.rate_bps || cfg.rate_pps) + (cfg.speed != 1.0) > 1) {
		mqtx_buf_printf(err, "replay: give only one of speed, rate and topspeed\n");
		return MQTX_CTL_EPARSE;
	}
	rc = read_capture(ctl, &cfg, err);
	if (rc)
		return rc;
	rc = start_replay(ctl, &cfg, name, out, err);
	close(cfg.fd);
	return rc;
}

static void release_pool(struct mqtx_tool_state *s, struct mqtx_dev *dev)
{
	struct tool_pool **pp, *tp;

	for (pp = &s->pools; (tp = *pp); pp = &tp->next) {
		if (tp->dev != dev)
			continue;
		*pp = tp->next;
		/* A packet still out (held by a peer device) keeps the pool alive: leak it
		 * rather than let that packet come back to freed memory. */
		if (mqtx_pool_in_use(tp->pool) == 0)
			mqtx_pool_destroy(tp->pool);
		else
			mqtx_warn("mqtx: pool of %s still has %u packets out; kept",
				  mqtx_dev_name(dev), mqtx_pool_in_use(tp->pool));
		mqtx__free(tp);
		return;
	}
}

void mqtx__tool_dev_gone(struct mqtx_ctl *ctl, struct mqtx_dev *dev)
{
	struct mqtx_tool_state *s = get_tool_state(ctl, false);
	struct tool_job *tj, *next;

	if (s) {
		for (tj = s->jobs; tj; tj = next) {
			next = tj->next;
			if (tj->dev == dev)
				job_unlink_free(s, tj);
		}
	}
	if (mqtx_dev_is_up(dev))
		mqtx_dev_close(dev); /* purges qdiscs and driver rings back into the pool */
	if (s)
		release_pool(s, dev);
}

void mqtx__tool_ctl_free(struct mqtx_ctl *ctl)
{
	struct mqtx_tool_state *s = ctl->tool;

	if (!s)
		return;
	while (s->jobs)
		job_unlink_free(s, s->jobs);
	for (unsigned i = 0; i < ctl->ndevs; i++)
		mqtx__tool_dev_gone(ctl, ctl->devs[i]);
	mqtx__free(s);
	ctl->tool = NULL;
}

int mqtx__cmd_gen(struct mqtx_ctl_args *a)
{
	return mqtx__tool_call(a, "gen", cmd_gen);
}

int mqtx__cmd_replay(struct mqtx_ctl_args *a)
{
	return mqtx__tool_call(a, "replay", cmd_replay);
}

int mqtx_ctl_file_word(int argc, char **argv)
{
	int i = 0;

	while (i < argc && argv[i][0] == '-')
		i++; /* leading options, as the dispatcher takes them */
	/* As cmd_replay() reads its words: "replay FILE ...", not show, stop or help. */
	if (argc - i < 2 || !mqtx__ctl_matches(argv[i], "replay") || !strcmp(argv[i + 1], "show") ||
	    !strcmp(argv[i + 1], "stop") || !strcmp(argv[argc - 1], "help"))
		return -1;
	return i + 1;
}

int mqtx_ctl_exec_req(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		      const struct mqtx_ctl_req *req, struct mqtx_buf *out, struct mqtx_buf *err)
{
	int rc;

	if (req->fd >= 0 && mqtx_ctl_file_word(argc, argv) < 0) {
		mqtx_buf_printf(err, "A file came with a command that reads none (only \"replay "
				"FILE\" does)\n");
		rc = MQTX_CTL_EPARSE;
	} else {
		cur_req = req;
		rc = mqtx_ctl_exec(ctl, argc, argv, flags, out, err);
		cur_req = NULL;
	}
	if (req->fd >= 0)
		close(req->fd);
	return rc;
}

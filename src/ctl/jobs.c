// SPDX-License-Identifier: MIT
/* The job table of the gen and replay commands: generators and replays that outlive the
 * command that started them, the packet pool of each device they use, the owners' limits. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/pkt.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/jobs.h"

#define POOL_PKTS	8192
#define POOL_ROOM	2048
#define KEEP_FINISHED	32
#define JOB_LINE_MAX	2048 /* one job's show or stop line or JSON object, whatever it holds */
#define STARTED_MAX	128  /* "KIND ID started on NAME\n" */
#define FAILED_LINE_MAX 256  /* say_failed()'s line */

/* What counts against the caller's limits: what its owner made, not what it may change. */
static bool owned_by_caller(const struct mqtx_ctl_call *c, const struct ctl_owner *o)
{
	return c->req && o->client && o->id == c->req->owner;
}

/* Resolve "dev NAME" to an up device; a message and an exit code otherwise. */
int mqtx__jobs_dev(const struct mqtx_ctl_call *c, const char *name, struct mqtx_dev **dev)
{
	if (!name) {
		mqtx_buf_printf(c->err, "%s: \"dev NAME\" is required\n", c->argv[0]);
		return MQTX_TC_EXIT_PARSE;
	}
	*dev = mqtx_ctl_call_dev(c, name);
	if (!*dev)
		return MQTX_TC_EXIT_PARSE;
	/* A job sends on the device: another's device is not the caller's to load. */
	if (mqtx__ctl_may_change_dev(c, c->argv[0], *dev))
		return MQTX_TC_EXIT_REFUSED;
	if (!mqtx_dev_is_up(*dev)) {
		mqtx_buf_printf(c->err, "%s: device \"%s\" is down\n", c->argv[0], name);
		return MQTX_TC_EXIT_REFUSED;
	}
	return 0;
}

int mqtx_jobs_new(struct mqtx_jobs **out)
{
	struct mqtx_jobs *s = mqtx__zalloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->next_id = 1;
	*out = s;
	return 0;
}

static struct job_pool *find_pool(struct mqtx_jobs *s, struct mqtx_dev *dev)
{
	for (struct job_pool *tp = s->pools; tp; tp = tp->next)
		if (tp->dev == dev)
			return tp;
	return NULL;
}

/* A new pool for @dev's jobs, or a message and NULL past the caller's pool limit or out of
 * memory. */
static struct job_pool *pool_new(struct mqtx_jobs *s, const struct mqtx_ctl_call *c,
				 struct mqtx_dev *dev)
{
	struct mqtx_pool_cfg pc = { .count = POOL_PKTS, .data_room = POOL_ROOM };
	const struct mqtx_ctl_req *req = c->req;
	struct job_pool *tp;
	unsigned held = 0;

	for (tp = s->pools; tp; tp = tp->next)
		held += owned_by_caller(c, &tp->owner);
	if (req && req->max_pools && held >= req->max_pools) {
		mqtx_buf_printf(c->err,
				"%s: %s holds %u packet pools (one per device its jobs were "
				"the first to use), its limit; delete one of those devices first\n",
				c->argv[0], req->who, held);
		return NULL;
	}
	tp = mqtx__zalloc(sizeof(*tp));
	if (tp && mqtx_pool_create(&pc, &tp->pool)) {
		mqtx__free(tp);
		tp = NULL;
	}
	if (!tp) {
		mqtx_buf_printf(c->err, "%s: out of memory for the packet pool\n", c->argv[0]);
		return NULL;
	}
	tp->dev = dev;
	tp->owner = mqtx__ctl_caller(c);
	return tp;
}

/* A server's client may have max_jobs generators and replays running; 0 or an exit code. */
static int job_limit(struct mqtx_jobs *s, const struct mqtx_ctl_call *c)
{
	unsigned running = 0;

	if (!c->req || !c->req->max_jobs)
		return 0;
	for (struct job_entry *tj = s->jobs; tj; tj = tj->next) {
		struct mqtx_job_stats st;

		if (!owned_by_caller(c, &tj->owner))
			continue;
		mqtx__job_stats(tj->job, &st);
		running += !st.done;
	}
	if (running < c->req->max_jobs)
		return 0;
	mqtx_buf_printf(c->err,
			"%s: %s has %u generators and replays running, its limit; stop "
			"one first\n",
			c->argv[0], c->req->who, running);
	return MQTX_TC_EXIT_REFUSED;
}

static void job_unlink_free(struct mqtx_jobs *s, struct job_entry *tj)
{
	struct job_entry **pp;

	for (pp = &s->jobs; *pp && *pp != tj; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = tj->next;
	mqtx__job_free(tj->job);
	mqtx__free(tj);
}

/* Forget the oldest finished jobs beyond KEEP_FINISHED (nobody asked for their results). */
static void reap_finished(struct mqtx_jobs *s)
{
	struct job_entry *tj, *last = NULL;
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

void mqtx__jobs_abort(struct job_prep *p)
{
	mqtx__free(p->entry);
	if (p->new_pool) {
		mqtx_pool_destroy(p->pool->pool);
		mqtx__free(p->pool);
	}
}

int mqtx__jobs_prepare(struct mqtx_jobs *s, const struct mqtx_ctl_call *c, struct mqtx_dev *dev,
		       struct job_prep *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	rc = job_limit(s, c);
	if (rc)
		return rc;
	rc = MQTX_TC_EXIT_REFUSED;
	p->pool = find_pool(s, dev);
	if (!p->pool) {
		p->pool = pool_new(s, c, dev);
		if (!p->pool)
			return rc;
		p->new_pool = true;
	}
	p->entry = mqtx__zalloc(sizeof(*p->entry));
	if (!p->entry || mqtx__buf_reserve(c->out, STARTED_MAX)) {
		mqtx_buf_printf(c->err, "%s: out of memory\n", c->argv[0]);
		mqtx__jobs_abort(p);
		return rc;
	}
	return 0;
}

void mqtx__jobs_commit(struct mqtx_jobs *s, const struct mqtx_ctl_call *c, struct job_prep *p,
		       struct mqtx_dev *dev, struct mqtx_job *job)
{
	struct job_entry *tj = p->entry, **pp;

	if (p->new_pool) {
		p->pool->next = s->pools;
		s->pools = p->pool;
	}
	tj->id = s->next_id++;
	tj->kind = c->argv[0]; /* the registered name: a string that outlives the command */
	tj->dev = dev;
	tj->job = job;
	tj->owner = mqtx__ctl_caller(c);
	for (pp = &s->jobs; *pp; pp = &(*pp)->next)
		;
	*pp = tj; /* oldest first, for show */
	reap_finished(s);
	if (c->flags & MQTX_CTL_F_JSON)
		mqtx_buf_printf(c->out, "{\"kind\":\"%s\",\"id\":%u,\"dev\":\"%s\"}\n", tj->kind,
				tj->id, mqtx_dev_name(dev));
	else
		mqtx_buf_printf(c->out, "%s %u started on %s\n", tj->kind, tj->id,
				mqtx_dev_name(dev));
}

/* One job as a JSON object: the fields of its show line, numbers as numbers. */
static void job_json(const struct job_entry *tj, const struct mqtx_job_stats *st, const char *state,
		     const char *e, double secs, bool first, struct mqtx_buf *out)
{
	mqtx_buf_printf(out,
			"%s{\"kind\":\"%s\",\"id\":%u,\"dev\":\"%s\",\"state\":\"%s\","
			"\"sent\":%llu,\"bytes\":%llu,\"dropped\":%llu,\"skipped\":%llu,"
			"\"failed\":%llu,\"truncated\":%llu,"
			"\"nomem\":%llu,\"loops\":%llu,\"elapsed\":%.3f,\"rate_pps\":%.0f,"
			"\"rate_mbit\":%.3f",
			first ? "" : ",", tj->kind, tj->id, mqtx_dev_name(tj->dev), state,
			(unsigned long long)st->sent, (unsigned long long)st->bytes,
			(unsigned long long)st->dropped, (unsigned long long)st->skipped,
			(unsigned long long)st->failed, (unsigned long long)st->truncated,
			(unsigned long long)st->nomem, (unsigned long long)st->loops, secs,
			secs > 0 ? (double)st->sent / secs : 0.0,
			secs > 0 ? (double)st->bytes * 8 / secs / 1e6 : 0.0);
	if (*e) {
		mqtx_buf_printf(out, ",\"error\":");
		mqtx__buf_json_str(out, e);
	}
	mqtx_buf_printf(out, "}");
}

static void show_job(const struct job_entry *tj, bool json, bool first, struct mqtx_buf *out)
{
	struct mqtx_job_stats st;
	char line[JOB_LINE_MAX];
	const char *e;
	double secs;
	int n;

	mqtx__job_stats(tj->job, &st);
	e = st.done ? mqtx__job_error(tj->job) : "";
	secs = (double)(st.now_ns - st.start_ns) / 1e9;
	if (json) {
		job_json(tj, &st, *e ? "error" : st.done ? "done" : "running", e, secs, first, out);
		return;
	}
	/* Formatted here, then appended at most JOB_LINE_MAX - 1 bytes: what stop made room for. */
	n = snprintf(line, sizeof(line),
		     "%s %u dev %s %s sent %llu bytes %llu dropped %llu skipped %llu failed %llu "
		     "truncated %llu nomem %llu loops %llu elapsed %.3fs rate %.0fpps %.3fMbit",
		     tj->kind, tj->id, mqtx_dev_name(tj->dev),
		     *e	       ? "error"
		     : st.done ? "done"
			       : "running",
		     (unsigned long long)st.sent, (unsigned long long)st.bytes,
		     (unsigned long long)st.dropped, (unsigned long long)st.skipped,
		     (unsigned long long)st.failed, (unsigned long long)st.truncated,
		     (unsigned long long)st.nomem, (unsigned long long)st.loops, secs,
		     secs > 0 ? (double)st.sent / secs : 0.0,
		     secs > 0 ? (double)st.bytes * 8 / secs / 1e6 : 0.0);
	if (*e && n >= 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, " error: %s", e);
	mqtx_buf_printf(out, "%.*s\n", JOB_LINE_MAX - 2, line);
}

/* gen show and stop see generators only, replay show and stop replays only. */
static bool of_kind(const struct job_entry *tj, const struct mqtx_ctl_call *c)
{
	return !strcmp(tj->kind, c->argv[0]);
}

/* What "KIND stop all" stops, as kill(-1) signals every process the caller may: the jobs the
 * caller may stop (its own; an admin's: all). "KIND show all" shows every job. */
static bool in_all(const struct job_entry *tj, const struct mqtx_ctl_call *c, bool stop)
{
	return of_kind(tj, c) && (!stop || mqtx__ctl_owns(c, &tj->owner));
}

static struct job_entry *find_job(struct mqtx_jobs *s, const struct mqtx_ctl_call *c,
				  const char *word)
{
	uint64_t id;

	if (mqtx__parse_u64(word, &id) || !id) {
		mqtx_buf_printf(c->err, "%s: invalid job id \"%s\"\n", c->argv[0], word);
		return NULL;
	}
	for (struct job_entry *tj = s->jobs; tj; tj = tj->next) {
		if (tj->id != id)
			continue;
		if (of_kind(tj, c))
			return tj;
		mqtx_buf_printf(c->err, "%s: job %s is a %s; try \"mqtx %s %s %s\"\n", c->argv[0],
				word, tj->kind, tj->kind, c->argv[1], word);
		return NULL;
	}
	mqtx_buf_printf(c->err, "%s: no job %s\n", c->argv[0], word);
	return NULL;
}

/* Frames a replay could not send are not left to a counter alone: tcpreplay reports its
 * "Failed packets" at the end too. */
static void say_failed(const struct job_entry *tj, const struct mqtx_ctl_call *c)
{
	struct mqtx_job_stats st;

	mqtx__job_stats(tj->job, &st);
	if (st.failed) /* within FAILED_LINE_MAX: a name has fewer than MQTX_NAME_MAX bytes */
		mqtx_buf_printf(c->err,
				"%s %u: %llu frames longer than %s's MTU (%u) allows failed and "
				"were not sent; mtu-trunc sends them cut\n",
				tj->kind, tj->id, (unsigned long long)st.failed,
				mqtx_dev_name(tj->dev), mqtx_dev_mtu(tj->dev));
}

/* Print one job; with @stop, end it first (its final counters) and forget it. */
static void show_or_stop(struct mqtx_jobs *s, struct job_entry *tj, bool stop,
			 const struct mqtx_ctl_call *c, bool first)
{
	if (stop)
		mqtx__job_join(tj->job);
	show_job(tj, c->flags & MQTX_CTL_F_JSON, first, c->out);
	if (stop)
		say_failed(tj, c);
	if (stop)
		job_unlink_free(s, tj);
}

/* A job stopped cannot be started again: make room for the final counters of @n jobs (and
 * what say_failed() may add) first. */
static int stop_room(const struct mqtx_ctl_call *c, size_t n)
{
	if (!mqtx__buf_reserve(c->out, n * JOB_LINE_MAX + 4) && /* JSON: "[", "]\n" */
	    !mqtx__buf_reserve(c->err, n * FAILED_LINE_MAX))
		return 0;
	mqtx_buf_printf(c->err, "%s stop: out of memory\n", c->argv[0]);
	return -ENOMEM;
}

/* With -j, show and stop print one JSON array of jobs, whether one or all were asked for. */
static void list_open(const struct mqtx_ctl_call *c)
{
	if (c->flags & MQTX_CTL_F_JSON)
		mqtx_buf_printf(c->out, "[");
}

static void list_close(const struct mqtx_ctl_call *c)
{
	if (c->flags & MQTX_CTL_F_JSON)
		mqtx_buf_printf(c->out, "]\n");
}

int mqtx__jobs_admin(struct mqtx_jobs *s, const struct mqtx_ctl_call *c)
{
	bool stop = !strcmp(c->argv[1], "stop");
	struct job_entry *tj, *next;
	size_t n, count;

	if (c->argc > 3) {
		mqtx_buf_printf(c->err, "%s %s: what is \"%s\"?\n", c->argv[0], c->argv[1],
				c->argv[3]);
		return MQTX_TC_EXIT_PARSE;
	}
	if (stop && c->argc == 2) {
		mqtx_buf_printf(c->err, "%s stop: give a job id or \"all\"\n", c->argv[0]);
		return MQTX_TC_EXIT_PARSE;
	}
	if (c->argc == 3 && strcmp(c->argv[2], "all")) {
		tj = find_job(s, c, c->argv[2]);
		if (!tj)
			return MQTX_TC_EXIT_REFUSED;
		if (stop && !mqtx__ctl_owns(c, &tj->owner)) {
			char label[32], what[48];

			snprintf(label, sizeof(label), "%s stop", c->argv[0]);
			snprintf(what, sizeof(what), "%s %u", tj->kind, tj->id);
			return mqtx__ctl_eperm(c, label, what, &tj->owner);
		}
		if (stop && stop_room(c, 1))
			return MQTX_TC_EXIT_REFUSED;
		list_open(c);
		show_or_stop(s, tj, stop, c, true);
		list_close(c);
		return MQTX_TC_EXIT_OK;
	}
	n = 0;
	for (tj = s->jobs; tj; tj = tj->next)
		n += in_all(tj, c, stop);
	if (stop && stop_room(c, n))
		return MQTX_TC_EXIT_REFUSED;
	count = n;
	list_open(c);
	for (tj = s->jobs; tj; tj = next) {
		next = tj->next;
		if (in_all(tj, c, stop))
			show_or_stop(s, tj, stop, c, n-- == count);
	}
	list_close(c);
	return MQTX_TC_EXIT_OK;
}

static void release_pool(struct job_pool **pp)
{
	struct job_pool *tp = *pp;

	*pp = tp->next;
	/* A packet still out (held by a peer device) keeps the pool alive: leak it rather than
	 * let that packet come back to freed memory. */
	if (mqtx_pool_in_use(tp->pool) == 0)
		mqtx_pool_destroy(tp->pool);
	else
		mqtx_warn("mqtx: pool of %s still has %u packets out; kept", mqtx_dev_name(tp->dev),
			  mqtx_pool_in_use(tp->pool));
	mqtx__free(tp);
}

/* Stop the jobs on @dev (NULL: all), bring the devices of the pools down (which purges their
 * qdiscs and rings back into the pools) and release the pools. */
static void let_go(struct mqtx_jobs *s, struct mqtx_dev *dev)
{
	struct job_entry *tj, *next;
	struct job_pool **pp = &s->pools;

	for (tj = s->jobs; tj; tj = next) {
		next = tj->next;
		if (!dev || tj->dev == dev)
			job_unlink_free(s, tj);
	}
	while (*pp) {
		if (dev && (*pp)->dev != dev) {
			pp = &(*pp)->next;
			continue;
		}
		if (mqtx_dev_is_up((*pp)->dev))
			mqtx_dev_close((*pp)->dev);
		release_pool(pp);
	}
}

void mqtx__jobs_gone(struct mqtx_ctl *ctl, struct mqtx_dev *dev, void *arg)
{
	struct mqtx_jobs *s = arg;

	(void)ctl;
	let_go(s, dev);
	if (!dev)
		s->ctl = NULL; /* the context is being freed: the watch ends */
}

void mqtx_jobs_free(struct mqtx_jobs *s)
{
	if (!s)
		return;
	if (s->ctl) {
		mqtx_ctl_unregister(s->ctl, "gen");
		mqtx_ctl_unregister(s->ctl, "replay");
		mqtx_ctl_unwatch(s->ctl, mqtx__jobs_gone, s);
	}
	let_go(s, NULL);
	mqtx__free(s);
}

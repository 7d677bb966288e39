/* SPDX-License-Identifier: MIT */
/* The job table behind the gen and replay commands (struct mqtx_jobs of <mqtx/gen.h>): its
 * generators and replays, the packet pool of each device they use, and the owners' limits. */
#ifndef MQTX_CTL_JOBS_H
#define MQTX_CTL_JOBS_H

#include <mqtx/ctl.h>
#include <mqtx/gen.h>

#include "ctl/ctl_int.h"
#include "gen/gen.h"

struct job_entry {
	struct job_entry *next;
	unsigned id;
	const char *kind; /* "gen" or "replay" */
	struct mqtx_dev *dev;
	struct mqtx_job *job;
	struct ctl_owner owner; /* who started it: only they (or an admin) stop it */
};

struct job_pool {
	struct job_pool *next;
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	struct ctl_owner owner; /* whose limit it counts against */
};

struct mqtx_jobs {
	struct mqtx_ctl *ctl;	/* attached to, or NULL */
	struct job_entry *jobs; /* oldest first */
	struct job_pool *pools;
	unsigned next_id;
};

/*
 * What a new job needs, made before it starts so that a failure changes nothing: the device's
 * pool, the job's entry and room for its "started" line.
 */
struct job_prep {
	struct job_pool *pool; /* the device's; not yet listed if @new_pool */
	struct job_entry *entry;
	bool new_pool;
};

/** mqtx__jobs_dev() - "dev NAME" of a job: 0 and an up device the caller may change (send
 *  on), or a message and an exit code. */
int mqtx__jobs_dev(const struct mqtx_ctl_call *c, const char *name, struct mqtx_dev **dev);

/** mqtx__ctl_cmd_replay() - the replay command (cmd_replay.c), registered by mqtx_jobs_attach(). */
int mqtx__ctl_cmd_replay(const struct mqtx_ctl_call *c, void *arg);

/** mqtx__replay_help - the replay command's line in "mqtx help". */
extern const char mqtx__replay_help[];

/** mqtx__jobs_prepare() - 0, or an exit code with the message in c->err (limit, memory). */
int mqtx__jobs_prepare(struct mqtx_jobs *s, const struct mqtx_ctl_call *c, struct mqtx_dev *dev,
		       struct job_prep *p);

/** mqtx__jobs_abort() - free what mqtx__jobs_prepare() made. */
void mqtx__jobs_abort(struct job_prep *p);

/** mqtx__jobs_commit() - @job runs: list the pool and the job, say so. Cannot fail. */
void mqtx__jobs_commit(struct mqtx_jobs *s, const struct mqtx_ctl_call *c, struct job_prep *p,
		       struct mqtx_dev *dev, struct mqtx_job *job);

/** mqtx__jobs_admin() - "KIND show [ID]" and "KIND stop ID|all". Returns an exit code. */
int mqtx__jobs_admin(struct mqtx_jobs *s, const struct mqtx_ctl_call *c);

/** mqtx__jobs_gone() - the context's watch: @dev leaves (NULL: the context goes). */
void mqtx__jobs_gone(struct mqtx_ctl *ctl, struct mqtx_dev *dev, void *arg);

#endif

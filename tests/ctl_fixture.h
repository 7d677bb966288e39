/* SPDX-License-Identifier: MIT */
/* Test fixture for the control language: a context with a few null devices, and a runner. */
#ifndef MQTX_TEST_CTL_FIXTURE_H
#define MQTX_TEST_CTL_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqtx/ctl.h>
#include <mqtx/driver.h>
#include <mqtx/gen.h>
#include <mqtx/whatif.h>

/* The job table of the context fixture_ctl() made last (one context at a time). */
static struct mqtx_jobs *fixture_jobs;

/* A context with a job table (gen, replay) and null devices: eth0: 4 TX queues; lo1: 1; eth16: 16; half0: 4 allocated, 2 in use; all up but down0. */
static inline struct mqtx_ctl *fixture_ctl(void)
{
	static const struct {
		const char *name;
		uint32_t n, real;
		bool up;
	} devs[] = {
		{ "eth0", 4, 0, true },	 { "lo1", 1, 0, true },	   { "eth16", 16, 0, true },
		{ "half0", 4, 2, true }, { "down0", 2, 0, false },
	};
	struct mqtx_ctl *ctl;

	if (mqtx_ctl_new(&ctl) || mqtx_jobs_new(&fixture_jobs) ||
	    mqtx_jobs_attach(fixture_jobs, ctl) || mqtx_whatif_attach(ctl))
		abort();
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		struct mqtx_dev_cfg c = { .name = devs[i].name,
					  .ops = &mqtx_null_ops,
					  .num_txq = devs[i].n,
					  .real_num_txq = devs[i].real };
		struct mqtx_dev *d;

		if (mqtx_dev_create(&c, &d) || (devs[i].up && mqtx_dev_open(d)) ||
		    mqtx_ctl_add_dev(ctl, d))
			abort();
	}
	return ctl;
}

/* Free the context of fixture_ctl() and its job table. */
static inline void fixture_free(struct mqtx_ctl *ctl)
{
	mqtx_jobs_free(fixture_jobs);
	fixture_jobs = NULL;
	mqtx_ctl_free(ctl);
}

/* Run @line; return its exit code, its output in *@out (caller frees with free()). */
static inline int fixture_run(struct mqtx_ctl *ctl, const char *line, char **out, char **err)
{
	struct mqtx_buf o, e;
	int rc;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	rc = mqtx_ctl_exec_line(ctl, line, 0, &o, &e);
	if (out)
		*out = strdup(o.data ? o.data : "");
	if (err)
		*err = strdup(e.data ? e.data : "");
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	return rc;
}

#endif

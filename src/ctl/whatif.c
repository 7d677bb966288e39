// SPDX-License-Identifier: MIT
// The whatif command: each configuration file runs in a context of its own whose devices live
// on a virtual clock, the capture goes through the device it made (gen/whatif.c), and the runs
// are reported side by side. A front end registers it (mqtx_whatif_attach()): it runs contexts
// of its own, so the dispatcher, which they call, cannot name it.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/clock.h>
#include <mqtx/whatif.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/whatif.h"
#include "gen/gen.h"

#define CONFIG_LINE_MAX 65536

static const char usage[] =
	"Usage: whatif CAPTURE config FILE [ config FILE ... ] [ dev NAME ] [ flows N ] "
	"[ plot OUT.svg ]\n";

struct whatif_args {
	const char *capture, *dev, *plot;
	const char *configs[WHATIF_CONFIGS_MAX];
	unsigned nconfigs, flows;
};

/* A configuration more, up to WHATIF_CONFIGS_MAX (-ENOSPC). */
static int parse_config(const char *v, void *field, const struct tc_opt *o)
{
	struct whatif_args *a = field;

	(void)o;
	if (a->nconfigs == WHATIF_CONFIGS_MAX)
		return -ENOSPC;
	a->configs[a->nconfigs++] = v;
	return 0;
}

/* The number of flows, once (-EEXIST). */
static int parse_flows(const char *v, void *field, const struct tc_opt *o)
{
	if (*(uint32_t *)field)
		return -EEXIST;
	return mqtx__tc_opt_u32(v, field, o);
}

#define ARG(m) offsetof(struct whatif_args, m)

static const struct tc_opt whatif_opts[] = {
	{ "config", parse_config, 0 },
	{ "dev", mqtx__tc_opt_str_once, ARG(dev) },
	{ "flows", parse_flows, ARG(flows), .min = 1, .max = MQTX_WHATIF_FLOWS_MAX },
	{ "plot", mqtx__tc_opt_str_once, ARG(plot) },
};

/* The words after "whatif CAPTURE". Returns an exit code. */
static int parse_words(int argc, char **argv, struct whatif_args *a, struct mqtx_buf *err)
{
	for (int i = 0; i < argc; i += 2) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		const struct tc_opt *o = mqtx__tc_opt_find(whatif_opts, ARRAY_SIZE(whatif_opts), w);
		int rc;

		if (!o) {
			mqtx_buf_printf(err, "whatif: what is \"%s\"? Try \"mqtx whatif help\".\n",
					w);
			return MQTX_TC_EXIT_PARSE;
		}
		if (!v)
			return mqtx__ctl_incomplete(err);
		rc = mqtx__tc_opt_apply(o, v, a);
		if (rc == -EEXIST)
			return mqtx__ctl_duparg(err, w, v);
		if (rc == -ENOSPC) {
			mqtx_buf_printf(err, "whatif: config \"%s\": at most %u configs\n", v,
					WHATIF_CONFIGS_MAX);
			return MQTX_TC_EXIT_PARSE;
		}
		if (rc) {
			mqtx_buf_printf(err, "whatif: invalid %s \"%s\" (%llu..%llu)\n", w, v,
					(unsigned long long)o->min, (unsigned long long)o->max);
			return MQTX_TC_EXIT_PARSE;
		}
	}
	if (!a->nconfigs) {
		mqtx_buf_printf(err, "whatif: \"config FILE\" is required\n");
		return MQTX_TC_EXIT_PARSE;
	}
	if (!a->flows)
		a->flows = MQTX_WHATIF_FLOWS_DEFAULT;
	return MQTX_TC_EXIT_OK;
}

/* Run every line of the configuration @path in @ctl, as mqtxd -c would. */
static int run_config(struct mqtx_ctl *ctl, const char *path, char *line, struct mqtx_buf *err)
{
	FILE *f = fopen(path, "r");
	struct mqtx_buf out, e;
	int lineno = 0, rc = MQTX_TC_EXIT_OK;

	if (!f) {
		mqtx_buf_printf(err, "whatif: config \"%s\": %s\n", path, strerror(errno));
		return MQTX_TC_EXIT_PARSE;
	}
	mqtx_buf_init(&out);
	mqtx_buf_init(&e);
	while (!rc && fgets(line, CONFIG_LINE_MAX, f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			mqtx_buf_printf(err, "whatif: %s:%d: the line is longer than %d bytes\n",
					path, lineno, CONFIG_LINE_MAX - 2);
			rc = MQTX_TC_EXIT_PARSE;
			break;
		}
		rc = mqtx_ctl_exec_line(ctl, line, 0, &out, &e);
		if (rc)
			mqtx_buf_printf(err, "whatif: %s:%d: %s", path, lineno,
					e.data ? e.data : "failed\n");
	}
	if (!rc && ferror(f)) {
		mqtx_buf_printf(err, "whatif: config \"%s\": cannot read\n", path);
		rc = MQTX_TC_EXIT_PARSE;
	}
	fclose(f);
	mqtx_buf_free(&out);
	mqtx_buf_free(&e);
	return rc;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One configuration: its context on a virtual clock, its device, the run. */
static int run_one(const struct whatif_args *a, unsigned i, int fd,
		   const struct mqtx_whatif_capture *cap, struct whatif_run *run, char *line,
		   struct mqtx_buf *err)
{
	const char *path = a->configs[i];
	struct mqtx_clock *clk = NULL;
	struct mqtx_ctl *ctl = NULL;
	struct mqtx_dev *dev;
	char msg[256];
	double t0;
	int rc;

	if (mqtx_clock_new_virtual(0, &clk) || mqtx_ctl_new(&ctl)) {
		mqtx_clock_free(clk);
		mqtx_buf_printf(err, "whatif: out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	ctl->clock = clk;
	rc = run_config(ctl, path, line, err);
	if (rc)
		goto free_ctl;
	dev = a->dev ? mqtx_ctl_dev(ctl, a->dev) : mqtx_ctl_dev_next(ctl, NULL);
	if (!dev) {
		mqtx_buf_printf(err, "whatif: config \"%s\" makes no device%s%s%s\n", path,
				a->dev ? " \"" : "", a->dev ? a->dev : "", a->dev ? "\"" : "");
		rc = MQTX_TC_EXIT_PARSE;
		goto free_ctl;
	}
	run->config = path;
	t0 = wall_now();
	rc = mqtx__whatif_run(dev, fd, cap, a->plot != NULL, &run->r, msg, sizeof(msg));
	run->wall_s = wall_now() - t0;
	if (rc) {
		mqtx_buf_printf(err, "whatif: config \"%s\": %s\n", path, msg);
		rc = rc == -EINVAL ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_REFUSED;
	}
free_ctl:
	mqtx_ctl_free(ctl);
	mqtx_clock_free(clk);
	return rc;
}

static int write_plot(const struct whatif_args *a, const struct mqtx_whatif_capture *cap,
		      const struct whatif_run *runs, struct mqtx_buf *err)
{
	struct mqtx_whatif_result *rs[WHATIF_CONFIGS_MAX];
	FILE *f = fopen(a->plot, "w");
	int rc;

	if (!f) {
		mqtx_buf_printf(err, "whatif: plot \"%s\": %s\n", a->plot, strerror(errno));
		return MQTX_TC_EXIT_REFUSED;
	}
	for (unsigned i = 0; i < a->nconfigs; i++)
		rs[i] = runs[i].r;
	rc = mqtx__whatif_svg(f, cap, rs, a->configs, a->nconfigs);
	if (fclose(f) || rc) {
		mqtx_buf_printf(err, "whatif: plot \"%s\": cannot write\n", a->plot);
		unlink(a->plot);
		return MQTX_TC_EXIT_REFUSED;
	}
	return MQTX_TC_EXIT_OK;
}

/* The capture, checked as replay checks it, then its flows. */
static int open_capture(const char *path, unsigned flows, int *fd, struct mqtx_whatif_capture **cap,
			struct mqtx_buf *err)
{
	char msg[320];
	int rc;

	*fd = mqtx__replay_open(path, msg, sizeof(msg));
	if (*fd < 0) {
		mqtx_buf_printf(err, "whatif: %s: %s\n", path, msg);
		return MQTX_TC_EXIT_PARSE;
	}
	/* The scan reads every record, as the check of a replay does: one pass less. */
	rc = mqtx__replay_check_file(*fd, msg, sizeof(msg))
		     ?: mqtx__whatif_scan(*fd, flows, cap, msg, sizeof(msg));
	if (rc) {
		mqtx_buf_printf(err, "whatif: %s: %s\n", path, msg);
		close(*fd);
		*fd = -1;
		return rc == -ENOMEM ? MQTX_TC_EXIT_REFUSED : MQTX_TC_EXIT_PARSE;
	}
	return MQTX_TC_EXIT_OK;
}

static int whatif_runs(const struct mqtx_ctl_call *c, const struct whatif_args *a)
{
	struct whatif_run runs[WHATIF_CONFIGS_MAX] = { 0 };
	struct mqtx_whatif_capture *cap = NULL;
	char *line = mqtx__alloc(CONFIG_LINE_MAX);
	int fd = -1, rc;

	if (!line) {
		mqtx_buf_printf(c->err, "whatif: out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	rc = open_capture(a->capture, a->flows, &fd, &cap, c->err);
	for (unsigned i = 0; !rc && i < a->nconfigs; i++)
		rc = run_one(a, i, fd, cap, &runs[i], line, c->err);
	if (!rc && a->plot)
		rc = write_plot(a, cap, runs, c->err);
	if (!rc)
		mqtx__whatif_print(c->out, c->flags & MQTX_CTL_F_JSON, a->capture, cap, runs,
				   a->nconfigs);
	for (unsigned i = 0; i < a->nconfigs; i++)
		mqtx__whatif_result_free(runs[i].r);
	mqtx__whatif_capture_free(cap);
	if (fd >= 0)
		close(fd);
	mqtx__free(line);
	return rc;
}

static int cmd_whatif(const struct mqtx_ctl_call *c, void *arg)
{
	struct whatif_args a = { 0 };
	int rc;

	(void)arg;
	if (c->argc >= 2 && !strcmp(c->argv[c->argc - 1], "help")) {
		mqtx_buf_printf(c->out, "%s", usage);
		return MQTX_TC_EXIT_OK;
	}
	if (c->req) {
		/* It reads files by name: in the caller's process, with the caller's rights. */
		mqtx_buf_printf(c->err, "whatif: runs in the mqtx process, not in mqtxd\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	if (c->argc < 2) {
		mqtx_buf_printf(c->err, "whatif: a capture is required\n%s", usage);
		return MQTX_TC_EXIT_PARSE;
	}
	a.capture = c->argv[1];
	rc = parse_words(c->argc - 2, c->argv + 2, &a, c->err);
	if (rc)
		return rc;
	return whatif_runs(c, &a);
}

int mqtx_whatif_attach(struct mqtx_ctl *ctl)
{
	static const struct mqtx_ctl_cmd cmd = {
		"whatif", cmd_whatif, NULL,
		"whatif CAPTURE config FILE [ config FILE ... ] [ dev NAME ] [ flows N ] [ plot "
		"OUT.svg ]"
	};

	return mqtx_ctl_register(ctl, &cmd);
}

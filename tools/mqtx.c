// SPDX-License-Identifier: MIT
// mqtx: the tc-like tool; talks to mqtxd, or runs commands in-process with -batch.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/ctl.h>

#include "batch.h"
#include "client.h"
#include "json.h"
#include "sockpath.h"

/* Without SA_RESTART: a signal must end a blocking wait (for mqtxd, or a sleep), not resume it. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* A command the user gave up on ends as tc would end: killed by the signal (status 128 + N). */
static int die_by(int sig)
{
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
	return 128 + sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mqtx [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       mqtx [ OPTIONS ] { -batch | -b } FILE\n"
		"where  OBJECT := { dev | qdisc | class | filter | chain | actions | sta | ba | "
		"wme |\n"
		"                   gen | replay | hash | top | whatif }\n"
		"       OPTIONS := { -s[tatistics] | -j[son] | -p[retty] | -d[etails] | -br[ief] "
		"|\n"
		"                    -S PATH | -force | -timeout SECS | -V[ersion] }\n"
		"Commands go to mqtxd on its control socket (-S PATH, $MQTX_SOCKET or the default\n"
		"path); -batch FILE (\"-\": stdin) runs them in this process instead, as whatif\n"
		"always runs; -b FILE, or -batch FILE with -S, sends every line to mqtxd.\n"
		"Try \"mqtx OBJECT help\".\n");
}

/* -p: JSON indented as tc -j -p prints it (text is printed one way). */
static bool pretty;

static void print_result(const struct result *r)
{
	if (pretty && json_looks(r->out))
		json_pretty(stdout, r->out);
	else
		fputs(r->out, stdout);
	/* tc's output comes before its error text where both go to one file */
	fflush(stdout);
	fputs(r->err, stderr);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool opt_is(const char *a, const char *full, size_t min)
{
	size_t n = strlen(a);

	return n >= min && n <= strlen(full) && !strncmp(a, full, n);
}

/* A job's state from "KIND show ID -j" ("running", "done", "error"), into @state. */
static int job_state(struct backend *b, char **show, char *state, size_t len, struct result *r)
{
	struct json *j;

	backend_exec(b, 3, show, MQTX_CTL_F_JSON, r);
	if (r->signo || r->code)
		return -1;
	j = json_parse(r->out);
	snprintf(state, len, "%s",
		 j && j->type == JSON_ARR && j->n ? json_str(&j->kids[0], "state", "done")
						  : "done");
	json_free(j);
	return 0;
}

/*
 * After a job started: show progress until it ends (or ^C), then its final counters. The job's
 * state is asked for after 5 ms, then twice as long each time up to every 200 ms: a job that
 * ends at once (a count of a few frames) returns at once, a long one costs mqtxd 5 asks a
 * second.
 */
static int wait_job(struct backend *b, const char *kind, const struct json *started,
		    uint64_t every_ms)
{
	char id[24], state[16] = "running", *show[3] = { (char *)kind, "show", id };
	bool tty = isatty(2), failed = false;
	uint64_t progress = 0;
	unsigned nap = 5;
	struct result r;

	snprintf(id, sizeof(id), "%.0f", json_num(started, "id", 0));
	while (!interrupted) {
		if (job_state(b, show, state, sizeof(state), &r)) {
			if (r.signo) { /* ^C while asking: stop the job as after a ^C between asks */
				result_free(&r);
				break;
			}
			print_result(&r);
			result_free(&r);
			return r.code;
		}
		result_free(&r);
		failed = !strcmp(state, "error");
		if (strcmp(state, "running"))
			break;
		/* Progress for people: the show line as it is printed, every second (tcpreplay's
		 * --stats N: every N seconds; -q or --stats 0: none). */
		if (every_ms && now_ms() >= progress) {
			progress = now_ms() + every_ms;
			backend_exec(b, 3, show, 0, &r);
			if (!r.code && !r.signo) {
				r.out[strcspn(r.out, "\n")] = '\0';
				fprintf(stderr, tty ? "\r%s\033[K" : "%s\n", r.out);
			}
			result_free(&r);
		}
		sleep_ms(nap);
		nap = nap < 100 ? nap * 2 : 200;
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	/* The signal that ended the wait is acted on: only another one cuts the stop short. */
	b->handled = nsignals;
	show[1] = "stop";
	backend_exec(b, 3, show, b->flags, &r);
	print_result(&r);
	result_free(&r);
	if (r.signo)
		return -r.signo;
	return failed ? MQTX_TC_EXIT_PARSE : 0;
}

/* How often a replay's progress is printed: tcpreplay's --stats N (seconds; the last one
 * given), -q / --quiet none; else every second. The words were checked by the command. */
static uint64_t report_every_ms(int argc, char **argv)
{
	uint64_t ms = 1000;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			ms = 0;
		else if (!strncmp(argv[i], "--stats=", 8))
			ms = strtoull(argv[i] + 8, NULL, 10) * 1000;
		else if (!strcmp(argv[i], "--stats") && i + 1 < argc)
			ms = strtoull(argv[++i], NULL, 10) * 1000;
	}
	return ms;
}

/*
 * Start a job and wait for it. The start is asked for in JSON, whose id the waits use; without
 * -j the started line is printed. With -j only the final counters are: one JSON document.
 */
static int start_job(struct backend *b, int argc, char **argv, unsigned flags, int skip)
{
	const char *kind = argv[skip];
	struct json *started;
	struct result r;
	int code;

	/* A batch line's own leading options count as the command line's. */
	for (int i = 0; i < skip; i++) {
		const char *a = argv[i] + (argv[i][1] == '-'); /* --json as -json */

		if (opt_is(a, "-json", 2))
			flags |= MQTX_CTL_F_JSON;
		else if (opt_is(a, "-statistics", 2))
			flags |= MQTX_CTL_F_STATS;
	}

	backend_exec(b, argc, argv, flags | MQTX_CTL_F_JSON, &r);
	if (r.signo || r.code) {
		print_result(&r);
		code = r.signo ? -r.signo : r.code;
		result_free(&r);
		return code;
	}
	started = json_parse(r.out);
	if (!started && (flags & MQTX_CTL_F_JSON))
		fputs(r.out, stdout);
	else if (started && !(flags & MQTX_CTL_F_JSON))
		printf("%s %.0f started on %s\n", kind, json_num(started, "id", 0),
		       json_str(started, "dev", "?"));
	fputs(r.err, stderr);
	fflush(stdout);
	result_free(&r);
	b->flags = flags;
	/* With -j the output is for programs: the final document only, no progress for people. */
	code = started ? wait_job(b, kind, started,
				  flags & MQTX_CTL_F_JSON
					  ? 0
					  : report_every_ms(argc - skip, argv + skip))
		       : 0;
	json_free(started);
	return code;
}

static bool is_job_start(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[0], "gen") && strcmp(argv[0], "replay")))
		return false;
	if (!strcmp(argv[1], "show") || !strcmp(argv[1], "stop") || !strcmp(argv[1], "help"))
		return false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "detach"))
			return false;
	return true;
}

/* Leading per-line options ("-s qdisc show" in a batch file) are the library's to parse;
 * what the tool itself looks at (top, a job start) comes after them. */
static int skip_options(int argc, char **argv)
{
	int i = 0;

	while (i < argc && argv[i][0] == '-')
		i++;
	return i;
}

/* One command, as typed: its output printed, jobs waited for; returns the exit code, or minus
 * the signal that ended the wait for mqtxd. */
static int run_one(struct backend *b, int argc, char **argv, unsigned flags)
{
	int skip = skip_options(argc, argv);
	struct result r;
	int code;

	if (skip < argc && !strcmp(argv[skip], "top")) {
		if (b->ctl) {
			fprintf(stderr, "mqtx: top shows a running mqtxd; not with -batch\n");
			return MQTX_TC_EXIT_PARSE;
		}
		return top_main(b, argc - skip, argv + skip, flags);
	}
	if (is_job_start(argc - skip, argv + skip))
		return start_job(b, argc, argv, flags, skip);
	backend_exec(b, argc, argv, flags, &r);
	print_result(&r);
	code = r.signo ? -r.signo : r.code;
	result_free(&r);
	return code;
}

static int run_batch(struct backend *b, const char *file, unsigned flags, bool force)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	struct batch_line *lines = NULL;
	size_t n = 0;
	int bad, ret = 0;

	if (!f) {
		fprintf(stderr, "mqtx: cannot open \"%s\": %s\n", file, strerror(errno));
		return MQTX_TC_EXIT_PARSE;
	}
	bad = batch_read(f, "mqtx", file, &lines, &n);
	if (f != stdin)
		fclose(f);
	if (bad < 0)
		return MQTX_TC_EXIT_PARSE;
	if (bad && !force) {
		fprintf(stderr, "mqtx: %s: nothing was run\n", file);
		batch_free(lines, n);
		return MQTX_TC_EXIT_PARSE;
	}
	if (bad)
		ret = MQTX_TC_EXIT_PARSE; /* -force: the good lines run, the bad ones were reported */
	for (size_t i = 0; i < n && !interrupted; i++) {
		int rc;

		if (!lines[i].argv)
			continue;
		rc = run_one(b, lines[i].argc, lines[i].argv, flags);
		if (rc < 0) {
			ret = rc;
			break;
		}
		if (rc) {
			fprintf(stderr, "Command failed %s:%d\n", file, lines[i].lineno);
			ret = rc;
			if (!force)
				break;
		}
	}
	batch_free(lines, n);
	return ret;
}

/*
 * -b FILE, or -batch FILE with -S: every line to mqtxd, as tc sends each to the kernel: read,
 * run and reported one at a time; the first that fails ends the batch unless -force. Exit 1
 * when a line failed (tc's batch()), or the code of a wait a signal ended.
 */
static int run_batch_remote(struct backend *b, const char *file, unsigned flags, bool force)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	struct batch_stream *s;
	struct batch_line l;
	int rc, ret = 0;

	if (!f) {
		fprintf(stderr, "Cannot open file \"%s\" for reading: %s\n", file, strerror(errno));
		return MQTX_TC_EXIT_PARSE;
	}
	s = batch_open(f, "mqtx", file);
	while (s && !interrupted && (rc = batch_next(s, &l)) > 0) {
		rc = l.argv ? run_one(b, l.argc, l.argv, flags) : MQTX_TC_EXIT_PARSE;
		mqtx_ctl_split_free(l.argv);
		if (rc < 0) {
			ret = rc;
			break;
		}
		if (rc) {
			fprintf(stderr, "Command failed %s:%d\n", file, l.lineno);
			ret = 1;
			if (!force)
				break;
		}
	}
	if (!s || rc < 0)
		ret = ret < 0 ? ret : MQTX_TC_EXIT_PARSE;
	batch_close(s);
	if (f != stdin)
		fclose(f);
	return ret;
}

static bool names_dev(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "dev") || !strcmp(argv[i], "--dev"))
			return true;
	return false;
}

/* What needs no daemon: "help" as the last word, whatif (it runs its configurations in this
 * process, in virtual time), and hash asked about no device (help, or the algorithm and the
 * tuple alone). A filter's help on a device is the daemon's: tc finds the device before it
 * reads the classifier's words, so the usage needs a device that exists. */
static bool needs_no_daemon(int argc, char **argv)
{
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "whatif"))
		return true;
	if (!strcmp(argv[argc - 1], "help"))
		return strncmp(argv[0], "filter", strlen(argv[0])) || !names_dev(argc, argv);
	return !strcmp(argv[0], "hash") && !names_dev(argc, argv);
}

/* Ask an in-process context what needs no daemon. */
static int local_help(int argc, char **argv, unsigned flags)
{
	struct backend b = { .fd = -1 };
	int code;

	if (argc == 1 || !strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "top")) {
		printf("Usage: mqtx top [ dev NAME ] [ interval SECS ] [ count N ]\n"
		       "Live per-queue view of mqtxd's devices: rate, depth, drops, requeues,\n"
		       "XOFF/frozen state and a bar per queue, fitted to the terminal (q quits);\n"
		       "plain lines when not a terminal; with -j, one JSON object a refresh.\n"
		       "A Wi-Fi device (sim-wifi) adds a line per access category: frames/s,\n"
		       "Mbit/s, share of air time, frames waiting for the medium, mean and\n"
		       "largest delay, frames no AC admitted and frames ACM moved down.\n");
		return 0;
	}
	if (backend_local(&b))
		return MQTX_TC_EXIT_REFUSED;
	code = run_one(&b, argc, argv, flags);
	backend_local_free(&b);
	return code;
}

/* What option @a takes, for one given without it (the last word); NULL: none of these. */
static const char *value_of(const char *a)
{
	static const struct {
		const char *opt, *value;
	} with_value[] = { { "-S", "PATH" },
			   { "-socket", "PATH" },
			   { "-batch", "FILE" },
			   { "-b", "FILE" },
			   { "-timeout", "SECS" } };

	for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
		if (!strcmp(a, with_value[k].opt))
			return with_value[k].value;
	return NULL;
}

/* -timeout SECS: 0 waits forever. */
static int parse_timeout(const char *v, int *ms)
{
	char *end;
	double secs = strtod(v, &end);

	if (end == v || *end || !(secs >= 0 && secs <= 86400)) {
		fprintf(stderr,
			"mqtx: invalid timeout \"%s\" (seconds, 0..86400; 0 waits "
			"forever)\n",
			v);
		return -1;
	}
	*ms = secs > 0 ? (int)(secs * 1000 + 0.5) : -1;
	if (secs > 0 && *ms == 0)
		*ms = 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct backend b = { .fd = -1, .timeout_ms = CLIENT_TIMEOUT_S * 1000 };
	const char *batch = NULL, *sock = NULL;
	char path[SOCKPATH_MAX], dir[SOCKPATH_MAX] = "", why[SOCKPATH_MAX + 128];
	unsigned flags = 0;
	bool force = false, remote = false;
	int i, code;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i] + (argv[i][1] == '-'); /* --json as -json */

		if (opt_is(a, "-statistics", 2))
			flags |= MQTX_CTL_F_STATS;
		else if (opt_is(a, "-json", 2))
			flags |= MQTX_CTL_F_JSON;
		else if (opt_is(a, "-details", 2))
			flags |= MQTX_CTL_F_DETAILS;
		else if (opt_is(a, "-brief", 3))
			flags |= MQTX_CTL_F_BRIEF;
		else if (opt_is(a, "-pretty", 2))
			pretty = true;
		else if (!strcmp(a, "-force"))
			force = true;
		else if ((!strcmp(a, "-S") || !strcmp(a, "-socket")) && i + 1 < argc)
			sock = argv[++i];
		else if (!strcmp(a, "-batch") && i + 1 < argc)
			batch = argv[++i];
		else if (!strcmp(a, "-b") && i + 1 < argc) {
			batch = argv[++i];
			remote = true;
		} else if (!strcmp(a, "-timeout") && i + 1 < argc) {
			if (parse_timeout(argv[++i], &b.timeout_ms))
				return MQTX_TC_EXIT_PARSE;
		} else if (opt_is(a, "-Version", 2) || !strcmp(a, "-version")) {
			printf("mqtx utility, libmqtx %s\n", MQTX_VERSION);
			return 0;
		} else if (!strcmp(a, "-h") || opt_is(a, "-help", 2)) {
			usage(stdout);
			return 0;
		} else {
			const char *want = value_of(a);

			if (want)
				fprintf(stderr,
					"Option \"%s\" wants a value (%s), try \"mqtx -help\".\n",
					argv[i], want);
			else
				fprintf(stderr, "Option \"%s\" is unknown, try \"mqtx -help\".\n",
					argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
	}
	argc -= i;
	argv += i;
	if (!batch && argc == 0) {
		usage(stderr);
		return MQTX_TC_EXIT_PARSE;
	}
	if (!batch && needs_no_daemon(argc, argv))
		return local_help(argc, argv, flags);
	catch_signals();
	if (batch && !remote && !sock) {
		if (backend_local(&b)) {
			fprintf(stderr, "mqtx: out of memory\n");
			return MQTX_TC_EXIT_REFUSED;
		}
		code = run_batch(&b, batch, flags, force);
		backend_local_free(&b);
		return code < 0 ? die_by(-code) : code;
	}
	if (sock ? snprintf(path, sizeof(path), "%s", sock) >= (int)sizeof(path)
		 : sockpath_default(path, dir, sizeof(dir), false)) {
		fprintf(stderr, "mqtx: no usable socket path (too long)\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	if (*dir && sockpath_check_dir(dir, why, sizeof(why))) {
		fprintf(stderr, "mqtx: %s\n", why);
		return MQTX_TC_EXIT_REFUSED;
	}
	b.path = path;
	code = batch ? run_batch_remote(&b, batch, flags, force) : run_one(&b, argc, argv, flags);
	if (b.fd >= 0)
		close(b.fd);
	return code < 0 ? die_by(-code) : code;
}

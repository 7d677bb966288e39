// SPDX-License-Identifier: MIT
// Commands run for a server's clients (mqtx_ctl_exec_req): a replay's capture and a pcap device's
// file come open and must be regular files, used without the command lock; each owner's jobs and
// pools are capped, and an owner changes only what it made.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctl_fixture.h"

static char data_dir[4096];

/* Run @line for owner @owner (limits @jobs, @pools) with @fd; output and error text in @o, @e. */
static int run_req(struct mqtx_ctl *ctl, const char *line, int fd, unsigned owner, unsigned jobs,
		   unsigned pools, char **o, char **e)
{
	char who[32];
	struct mqtx_ctl_req req = {
		.fd = fd, .owner = owner, .who = who, .max_jobs = jobs, .max_pools = pools
	};
	struct mqtx_buf out, err;
	char **argv;
	int argc, rc;

	snprintf(who, sizeof(who), "uid %u", owner);
	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	assert_int_equal(mqtx_ctl_split(line, &argc, &argv, &err), 0);
	rc = mqtx_ctl_exec_req(ctl, argc, argv, 0, &req, &out, &err);
	mqtx_ctl_split_free(argv);
	*o = strdup(out.data ? out.data : "");
	*e = strdup(err.data ? err.data : "");
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
	return rc;
}

/* A device of owner @owner: what an owner's commands may send on. */
static void owner_dev(struct mqtx_ctl *ctl, const char *name, unsigned owner)
{
	char line[64], *o, *e;

	snprintf(line, sizeof(line), "dev add %s type null txqueues 2 up", name);
	assert_int_equal(run_req(ctl, line, -1, owner, 0, 0, &o, &e), 0);
	free(o), free(e);
}

static int open_data(const char *name)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Wait for job @id of @kind to end (30 s: a failure bound only); its final line. */
static char *wait_done(struct mqtx_ctl *ctl, const char *kind, int id)
{
	char line[64], *o = NULL;

	snprintf(line, sizeof(line), "%s show %d", kind, id);
	for (int i = 0; i < 3000; i++) {
		free(o);
		assert_int_equal(fixture_run(ctl, line, &o, NULL), MQTX_TC_EXIT_OK);
		if (!strstr(o, " running "))
			return o;
		usleep(10000);
	}
	fail_msg("%s %d still running: %s", kind, id, o);
	return o;
}

static void test_file_word(void **state)
{
	static const struct {
		const char *line;
		int word;
	} cases[] = {
		{ "replay x.pcap dev eth0", 1 },
		{ "-s replay x.pcap dev eth0", 2 },
		{ "rep x.pcap dev eth0 loop 2", 1 },
		{ "replay show", -1 },
		{ "replay stop all", -1 },
		{ "replay help", -1 },
		{ "replay x.pcap help", -1 },
		{ "replay", -1 },
		{ "gen dev eth0", -1 },
		{ "dev show", -1 },
		{ "dev add p0 type pcap file x.pcap", 6 },
		{ "-j dev add p0 file x.pcap overwrite type pcap", 5 },
		{ "d add p0 type pcap rate 1gbit file x.pcap format pcap", 8 },
		{ "dev add p0 type null type pcap file a file b", 8 },
		{ "dev add p0 type pcap type null file x.pcap", -1 },
		{ "dev add p0 type pcap", -1 },
		{ "dev add p0 type pcap file x.pcap help", -1 },
		{ "dev set p0 file x.pcap", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char **argv;
		int argc;

		assert_int_equal(mqtx_ctl_split(cases[i].line, &argc, &argv, NULL), 0);
		if (mqtx_ctl_file_word(argc, argv) != cases[i].word)
			fail_msg("%s: word %d, want %d", cases[i].line,
				 mqtx_ctl_file_word(argc, argv), cases[i].word);
		mqtx_ctl_split_free(argv);
	}
}

/* The client's descriptor is read, not the name (which here names nothing at all). */
static void test_replay_from_fd(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	int fd = open_data("good.pcap");
	char *o, *e;

	(void)state;
	owner_dev(ctl, "r7", 7);
	assert_int_equal(run_req(ctl, "replay no-such-name.pcap dev r7 topspeed loop 2", fd, 7, 0,
				 0, &o, &e),
			 MQTX_TC_EXIT_OK);
	assert_non_null(strstr(o, "replay 1 started on r7"));
	free(o), free(e);
	o = wait_done(ctl, "replay", 1);
	assert_non_null(strstr(o, " done sent 20 "));
	free(o);
	/* Closed, by the command and by the job's copy: checked once the job is over, because the
	 * job's own descriptor may take the number while it runs. */
	assert_false(fd_is_open(fd));
	fixture_free(ctl);
}

/* Without its file a replay is refused (the name is never opened); a file with a command that
 * reads none is refused too, and closed. */
static void test_replay_needs_fd(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char line[4200], *o, *e;
	int fd = open_data("good.pcap");

	(void)state;
	snprintf(line, sizeof(line), "replay %s/good.pcap dev eth0", data_dir);
	assert_int_equal(run_req(ctl, line, -1, 7, 0, 0, &o, &e), MQTX_TC_EXIT_PARSE);
	assert_non_null(strstr(e, "the file must come open with the command"));
	assert_string_equal(o, "");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "dev show eth0", fd, 7, 0, 0, &o, &e), MQTX_TC_EXIT_PARSE);
	assert_non_null(strstr(e, "A file came with \"dev\", a command that names none"));
	assert_string_equal(o, "");
	assert_false(fd_is_open(fd));
	free(o), free(e);
	assert_int_equal(run_req(ctl, "replay show", -1, 7, 0, 0, &o, &e), MQTX_TC_EXIT_OK);
	assert_string_equal(o, "");
	free(o), free(e);
	fixture_free(ctl);
}

/* A FIFO (opened so that a read would block forever), a directory and a device are refused
 * without a read, by descriptor and by name. */
static void test_not_a_file(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char dir[] = "/tmp/mqtx-req-XXXXXX", fifo[64], line[128], *o, *e;
	const char *want[] = { "a FIFO, not a capture file", "a directory, not a capture file",
			       "a character device, not a capture file" };
	int fds[3];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fds[0] = open(fifo, O_RDWR); /* a writer exists: a read waits for data that never comes */
	fds[1] = open(dir, O_RDONLY | O_DIRECTORY);
	fds[2] = open("/dev/zero", O_RDONLY);
	for (int i = 0; i < 3; i++) {
		assert_true(fds[i] >= 0);
		assert_int_equal(run_req(ctl, "replay it dev eth0", fds[i], 7, 0, 0, &o, &e),
				 MQTX_TC_EXIT_PARSE);
		if (!strstr(e, want[i]))
			fail_msg("descriptor %d: \"%s\", want \"%s\"", i, e, want[i]);
		free(o), free(e);
	}
	/* By name (mqtx -batch): the FIFO has no writer, so opening it to read would block. */
	snprintf(line, sizeof(line), "replay %s dev eth0", fifo);
	assert_int_equal(fixture_run(ctl, line, &o, &e), MQTX_TC_EXIT_PARSE);
	assert_non_null(strstr(e, "a FIFO, not a capture file"));
	free(o), free(e);
	unlink(fifo);
	rmdir(dir);
	fixture_free(ctl);
}

/* A pcap device's file for a client: the one it sent; by name only for root, and only an
 * absolute path (a relative one would be the server's). */
static void test_dev_file(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char dir[] = "/tmp/mqtx-req-XXXXXX", line[160], path[96], *o, *e;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/named.pcap", dir);
	snprintf(line, sizeof(line), "dev add p0 type pcap file %s", path);
	assert_int_equal(run_req(ctl, line, -1, 7, 0, 0, &o, &e), MQTX_TC_EXIT_PARSE);
	assert_non_null(strstr(e, "named.pcap: the file must come open with the command"));
	assert_int_equal(access(path, F_OK), -1);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "dev add p0 type pcap file rel.pcap", -1, 0, 0, 0, &o, &e),
			 MQTX_TC_EXIT_PARSE);
	assert_string_equal(e, "dev add: rel.pcap: a relative path must come open with the "
			       "command (the server's working directory is not the client's; mqtx "
			       "sends it)\n");
	assert_int_equal(access("rel.pcap", F_OK), -1);
	free(o), free(e);
	assert_int_equal(run_req(ctl, line, -1, 0, 0, 0, &o, &e), MQTX_TC_EXIT_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 24); /* the header */
	free(o), free(e);
	/* Sent open: the device writes to it, whatever the name says. */
	snprintf(path, sizeof(path), "%s/sent.pcap", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(
		run_req(ctl, "dev add p1 type pcap file elsewhere.pcap", fd, 7, 0, 0, &o, &e),
		MQTX_TC_EXIT_OK);
	assert_false(fd_is_open(fd)); /* the device has its own copy */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 24);
	assert_int_equal(access("elsewhere.pcap", F_OK), -1);
	free(o), free(e);
	assert_int_equal(fixture_run(ctl, "dev del p0", NULL, NULL), MQTX_TC_EXIT_OK);
	assert_int_equal(fixture_run(ctl, "dev del p1", NULL, NULL), MQTX_TC_EXIT_OK);
	fixture_free(ctl);
	unlink(path);
	snprintf(path, sizeof(path), "%s/named.pcap", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* While the capture is read, or a device's file set up, another thread's command runs: a log
 * line comes from inside the read or the set-up, and from there a command of another thread
 * must complete. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mqtx_ctl *ctl;
	const char *trigger; /* the log line's text */
	bool asked, answered;
	int during, rc;
} probe = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void *probe_thread(void *arg)
{
	int rc;

	(void)arg;
	pthread_mutex_lock(&probe.lock);
	while (!probe.asked)
		pthread_cond_wait(&probe.cond, &probe.lock);
	pthread_mutex_unlock(&probe.lock);
	rc = fixture_run(probe.ctl, "dev set eth16 down", NULL, NULL);
	pthread_mutex_lock(&probe.lock);
	probe.rc = rc;
	probe.answered = true;
	pthread_cond_broadcast(&probe.cond);
	pthread_mutex_unlock(&probe.lock);
	return NULL;
}

static void on_log(enum mqtx_log_level level, const char *msg, void *arg)
{
	struct timespec until;

	(void)level, (void)arg;
	if (!strstr(msg, probe.trigger))
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30; /* a failure bound only: the answer comes at once or never */
	pthread_mutex_lock(&probe.lock);
	probe.asked = true;
	pthread_cond_broadcast(&probe.cond);
	while (!probe.answered && pthread_cond_timedwait(&probe.cond, &probe.lock, &until) == 0)
		;
	probe.during = probe.answered ? 1 : -1;
	pthread_mutex_unlock(&probe.lock);
}

/* Run @line for owner 7 with @fd while the probe waits for @trigger; returns the exit code. */
static int with_probe(struct mqtx_ctl *ctl, const char *line, int fd, const char *trigger)
{
	pthread_t t;
	char *o, *e;
	int rc;

	probe.ctl = ctl;
	probe.trigger = trigger;
	probe.asked = probe.answered = false;
	probe.during = probe.rc = 0;
	assert_int_equal(pthread_create(&t, NULL, probe_thread, NULL), 0);
	mqtx_set_log(on_log, NULL, MQTX_LOG_DEBUG);
	rc = run_req(ctl, line, fd, 7, 0, 0, &o, &e);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	free(o), free(e);
	if (!probe.asked) { /* no log line: let the probe go before failing */
		pthread_mutex_lock(&probe.lock);
		probe.asked = true;
		pthread_cond_broadcast(&probe.cond);
		pthread_mutex_unlock(&probe.lock);
	}
	pthread_join(t, NULL);
	return rc;
}

static void test_read_without_lock(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();

	(void)state;
	owner_dev(ctl, "r7", 7);
	assert_int_equal(with_probe(ctl, "replay x dev r7 topspeed", open_data("good.pcap"),
				    "capture checked"),
			 MQTX_TC_EXIT_OK);
	assert_int_equal(probe.during, 1);
	assert_int_equal(probe.rc, MQTX_TC_EXIT_OK);
	fixture_free(ctl);
}

/* A device whose driver writes a file is set up without the command lock: a file system may
 * be slow, and every other client would wait. The refusal of a device node is logged from
 * inside the set-up. */
static void test_dev_file_without_lock(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	int fd = open("/dev/null", O_WRONLY);

	(void)state;
	assert_int_equal(with_probe(ctl, "dev add p0 type pcap file x.pcap", fd,
				    "a character device, not a regular file"),
			 MQTX_TC_EXIT_REFUSED);
	assert_int_equal(probe.during, 1);
	assert_int_equal(probe.rc, MQTX_TC_EXIT_OK);
	fixture_free(ctl);
}

/* An owner may run max_jobs jobs; others, and the context's own commands, are not counted. */
static void test_job_limit(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *o, *e;

	(void)state;
	owner_dev(ctl, "j7", 7);
	owner_dev(ctl, "j8", 8);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(run_req(ctl, "gen dev j7 rate 10pps", -1, 7, 2, 0, &o, &e), 0);
		free(o), free(e);
	}
	assert_int_equal(run_req(ctl, "gen dev j7 rate 10pps", -1, 7, 2, 0, &o, &e),
			 MQTX_TC_EXIT_REFUSED);
	assert_string_equal(e, "gen: uid 7 has 2 generators and replays running, its limit; stop "
			       "one first\n");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "replay x dev j7", open_data("good.pcap"), 7, 2, 0, &o, &e),
			 MQTX_TC_EXIT_REFUSED);
	assert_non_null(strstr(e, "replay: uid 7 has 2 generators"));
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev j8 rate 10pps", -1, 8, 2, 0, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(fixture_run(ctl, "gen dev j7 rate 10pps", &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen stop 1", -1, 7, 2, 0, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev j7 rate 10pps", -1, 7, 2, 0, &o, &e), 0);
	assert_string_equal(o, "gen 5 started on j7\n");
	free(o), free(e);
	fixture_free(ctl);
}

/* An owner may hold max_pools pools: a device whose pool exists costs nothing more, and a
 * deleted device gives its pool back. */
static void test_pool_limit(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *o, *e;

	(void)state;
	owner_dev(ctl, "a7", 7);
	owner_dev(ctl, "b7", 7);
	owner_dev(ctl, "c7", 7);
	owner_dev(ctl, "a8", 8);
	assert_int_equal(run_req(ctl, "gen dev a7 count 1", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev b7 count 1", -1, 7, 0, 1, &o, &e),
			 MQTX_TC_EXIT_REFUSED);
	assert_string_equal(e, "gen: uid 7 holds 1 packet pools (one per device its jobs were the "
			       "first to use), its limit; delete one of those devices first\n");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev a7 count 1", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev a8 count 1", -1, 8, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "dev del a7", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev c7 count 1", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	fixture_free(ctl);
}

/* ---- owners: a client changes what it made; root and the admin, anything ---- */

#define UID_A 1001u
#define UID_B 1002u

/* What the context shows, as a local caller sees it: every device, qdisc, class, filter and
 * station, with the counters of those nothing sends on (a generator runs on a1). */
static char *shown(struct mqtx_ctl *ctl)
{
	static const char *const shows[] = {
		"-j dev show",
		"-s -j dev show a0",
		"-s qdisc show dev a0",
		"qdisc show",
		"class show dev a0",
		"-s filter show dev a0 egress",
		"-s filter show dev b0 egress",
		"filter show block 5",
		"sta show",
		"ba show",
	};
	size_t len = 0;
	char *all = NULL;

	for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++) {
		char *o, *e;
		size_t n;

		/* A device that is not there is said so: that is part of the state too. */
		fixture_run(ctl, shows[i], &o, &e);
		n = strlen(o) + strlen(e);
		all = realloc(all, len + n + 1);
		assert_non_null(all);
		snprintf(all + len, n + 1, "%s%s", o, e);
		len += n;
		free(o), free(e);
	}
	return all;
}

/* @line of @owner is refused with exactly @msg and changes nothing. */
static void denied(struct mqtx_ctl *ctl, unsigned owner, const char *line, const char *msg)
{
	char *before = shown(ctl), *after, *o, *e;

	if (run_req(ctl, line, -1, owner, 0, 0, &o, &e) != MQTX_TC_EXIT_REFUSED)
		fail_msg("uid %u \"%s\": not refused: %s%s", owner, line, o, e);
	if (strcmp(e, msg))
		fail_msg("uid %u \"%s\": says \"%s\", not \"%s\"", owner, line, e, msg);
	assert_string_equal(o, "");
	after = shown(ctl);
	if (strcmp(before, after))
		fail_msg("uid %u \"%s\" was refused, yet the state changed", owner, line);
	free(before), free(after), free(o), free(e);
}

static void allowed(struct mqtx_ctl *ctl, unsigned owner, const char *line)
{
	char *o, *e;

	if (run_req(ctl, line, -1, owner, 0, 0, &o, &e) != MQTX_TC_EXIT_OK)
		fail_msg("uid %u \"%s\": %s", owner, line, e);
	free(o), free(e);
}

#define OF_A(what) "Operation not permitted (" what " belongs to uid 1001)\n"

/* Two clients, A (uid 1001) and B (uid 1002): B sees what A made, and every command that would
 * change or delete it, or use it (send on it, bind to its block, redirect to it), is refused
 * naming the object and its owner, and changes nothing; A does all of it. */
static void test_owners(void **state)
{
	static const char *const a_setup[] = {
		"dev add a0 type null txqueues 4 up",
		"dev add a1 type null up",
		"dev add w0 type sim-wifi up",
		"qdisc add dev a0 root handle 1: mq",
		"qdisc add dev a0 parent 1:2 handle 20: pfifo limit 5",
		"qdisc add dev a0 ingress_block 5 clsact",
		"filter add dev a0 egress prio 1 matchall action pass",
		"filter add block 5 prio 1 matchall action pass",
		"sta add dev w0 addr 02:00:00:00:00:01",
		"gen dev a1 rate 10pps",
	};
	static const struct {
		const char *line, *msg;
	} refusals[] = {
		{ "dev set a0 down", "dev set: " OF_A("device a0") },
		{ "dev set a0 txqueues 2 hash toeplitz", "dev set: " OF_A("device a0") },
		{ "dev set a0 xps 1 0", "dev set: " OF_A("device a0") },
		{ "dev set w0 acm vo", "dev set: " OF_A("device w0") },
		{ "dev del a0", "dev del: " OF_A("device a0") },
		{ "qdisc replace dev a0 root handle 2: pfifo",
		  "RTNETLINK answers: " OF_A("device a0") },
		{ "qdisc add dev a0 parent 1:3 pfifo", "RTNETLINK answers: " OF_A("device a0") },
		{ "qdisc change dev a0 handle 20: pfifo limit 9",
		  "RTNETLINK answers: " OF_A("device a0") },
		{ "qdisc del dev a0 parent 1:2", "RTNETLINK answers: " OF_A("device a0") },
		{ "qdisc del dev a0 root", "RTNETLINK answers: " OF_A("device a0") },
		{ "qdisc del dev a0 clsact", "RTNETLINK answers: " OF_A("device a0") },
		{ "class change dev a0 classid 1:1", "RTNETLINK answers: " OF_A("device a0") },
		{ "filter add dev a0 egress prio 2 matchall action drop",
		  "RTNETLINK answers: " OF_A("device a0") },
		{ "filter del dev a0 egress", "RTNETLINK answers: " OF_A("device a0") },
		{ "filter add block 5 prio 2 matchall action drop",
		  "RTNETLINK answers: " OF_A("block 5") },
		{ "filter del block 5 prio 1", "RTNETLINK answers: " OF_A("block 5") },
		{ "qdisc add dev b0 ingress_block 5 clsact",
		  "RTNETLINK answers: " OF_A("block 5") },
		{ "filter add dev b0 egress matchall action mirred egress redirect dev a0",
		  "Error: mirred: " OF_A("device a0") },
		{ "sta add dev w0 addr 02:00:00:00:00:02", "sta add: " OF_A("device w0") },
		{ "sta del dev w0 addr 02:00:00:00:00:01", "sta del: " OF_A("device w0") },
		{ "sta set dev w0 addr 02:00:00:00:00:01 reserved-tid 3",
		  "sta set: " OF_A("device w0") },
		{ "ba start dev w0 sta 02:00:00:00:00:01 tid 0", "ba start: " OF_A("device w0") },
		{ "gen dev a0 count 1", "gen: " OF_A("device a0") },
		{ "gen dev a1 count 1", "gen: " OF_A("device a1") },
		{ "gen stop 1", "gen stop: " OF_A("gen 1") },
		{ "dev del eth0", "dev del: Operation not permitted (device eth0 belongs to the "
				  "server)\n" },
	};
	static const struct {
		const char *verb, *line;
	} act_verbs[] = {
		{ "add", "actions add action gact drop index 5" },
		{ "change", "actions change action gact drop index 4" },
		{ "replace", "actions replace action gact drop index 4" },
		{ "delete", "actions delete action gact index 4" },
		{ "flush", "actions flush action gact" },
	};
	struct mqtx_ctl *ctl = fixture_ctl();
	char *o, *e;

	(void)state;
	for (size_t i = 0; i < sizeof(a_setup) / sizeof(a_setup[0]); i++)
		allowed(ctl, UID_A, a_setup[i]);
	allowed(ctl, UID_B, "dev add b0 type null up");
	allowed(ctl, UID_B, "qdisc add dev b0 clsact");
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		denied(ctl, UID_B, refusals[i].line, refusals[i].msg);
	/* B sees A's objects. */
	assert_int_equal(run_req(ctl, "-s qdisc show dev a0", -1, UID_B, 0, 0, &o, &e), 0);
	assert_non_null(strstr(o, "qdisc pfifo 20: parent 1:2 limit 5p"));
	free(o), free(e);
	assert_int_equal(run_req(ctl, "filter show block 5", -1, UID_B, 0, 0, &o, &e), 0);
	assert_non_null(strstr(o, "matchall"));
	free(o), free(e);
	/* "gen stop all" stops what the caller may stop: B's none, A's generator runs on. */
	assert_int_equal(run_req(ctl, "gen stop all", -1, UID_B, 0, 0, &o, &e), 0);
	assert_string_equal(o, "");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen show 1", -1, UID_B, 0, 0, &o, &e), 0);
	assert_non_null(strstr(o, "gen 1 dev a1 running"));
	free(o), free(e);
	/* B's own: a filter that redirects to its own device, its own block. */
	allowed(ctl, UID_B,
		"filter add dev b0 egress matchall action mirred egress redirect dev b0");
	allowed(ctl, UID_B, "dev add b1 type null up");
	allowed(ctl, UID_B, "qdisc add dev b1 ingress_block 7 clsact");
	allowed(ctl, UID_B, "filter add block 7 matchall action pass");
	denied(ctl, UID_A, "filter add block 7 prio 9 matchall action drop",
	       "RTNETLINK answers: Operation not permitted (block 7 belongs to uid 1002)\n");
	/* A block that went is made again by another: it is the other's now. */
	allowed(ctl, UID_B, "qdisc del dev b1 clsact");
	allowed(ctl, UID_B, "qdisc add dev b1 ingress_block 9 clsact");
	allowed(ctl, UID_B, "qdisc del dev b1 clsact");
	allowed(ctl, UID_A, "qdisc add dev a1 ingress_block 9 clsact");
	allowed(ctl, UID_A, "filter add block 9 matchall action pass");
	denied(ctl, UID_B, "filter add block 9 prio 3 matchall action drop",
	       "RTNETLINK answers: " OF_A("block 9"));
	/* The table of standalone actions is the server's: clients list it, only root changes
	 * it (a client's filters carry their own actions). */
	allowed(ctl, 0, "actions add action gact pass index 4");
	for (size_t i = 0; i < sizeof(act_verbs) / sizeof(act_verbs[0]); i++) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "actions %s: Operation not permitted (the table of standalone actions "
			 "belongs to the server)\n",
			 act_verbs[i].verb);
		denied(ctl, UID_A, act_verbs[i].line, msg);
	}
	assert_int_equal(run_req(ctl, "actions ls action gact", -1, UID_B, 0, 0, &o, &e), 0);
	assert_non_null(strstr(o, "index 4 ref 1 bind 0"));
	free(o), free(e);
	allowed(ctl, 0, "actions delete action gact index 4");
	/* A changes and deletes all of its own. */
	allowed(ctl, UID_A, "filter add block 5 prio 2 matchall action drop");
	allowed(ctl, UID_A, "gen stop all");
	allowed(ctl, UID_A, "sta del dev w0 addr 02:00:00:00:00:01");
	allowed(ctl, UID_A, "qdisc del dev a0 root");
	fixture_free(ctl);
}

/* Root (owner 0), the admin and a local caller may change what any client made. */
static void test_owners_root(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *o, *e;

	(void)state;
	allowed(ctl, UID_A, "dev add a0 type null txqueues 4 up");
	allowed(ctl, UID_A, "gen dev a0 rate 10pps");
	allowed(ctl, 0, "qdisc add dev a0 root handle 1: mq");
	allowed(ctl, 0, "gen stop 1");
	denied(ctl, 1003, "dev set a0 down", "dev set: " OF_A("device a0"));
	mqtx_ctl_set_admin(ctl, 1003);
	allowed(ctl, 1003, "dev set a0 down");
	assert_int_equal(fixture_run(ctl, "dev del a0", &o, &e), 0);
	free(o), free(e);
	/* A client's objects are still its own, root's and the admin's are theirs. */
	allowed(ctl, 0, "dev add r0 type null");
	denied(ctl, UID_A, "dev del r0",
	       "dev del: Operation not permitted (device r0 belongs to uid 0)\n");
	fixture_free(ctl);
}

/* A pcap device is its maker's like any other device, whether its file came open (a client's)
 * or was opened by name (root's): another owner may neither change, delete nor load it, nor take
 * its name with a file of its own, which the library leaves as it was (it removes only what its
 * own open made); the owner deletes it, and the capture stays. */
static void test_dev_file_owners(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char dir[] = "/tmp/mqtx-req-XXXXXX", a[96], b[96], r[96], line[160], *o, *e;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pcap", dir);
	snprintf(b, sizeof(b), "%s/b.pcap", dir);
	snprintf(r, sizeof(r), "%s/r.pcap", dir);
	fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(
		run_req(ctl, "dev add pa type pcap file a.pcap up", fd, UID_A, 0, 0, &o, &e),
		MQTX_TC_EXIT_OK);
	free(o), free(e);
	denied(ctl, UID_B, "dev del pa", "dev del: " OF_A("device pa"));
	denied(ctl, UID_B, "dev set pa down", "dev set: " OF_A("device pa"));
	denied(ctl, UID_B, "qdisc add dev pa root pfifo", "RTNETLINK answers: " OF_A("device pa"));
	denied(ctl, UID_B, "gen dev pa count 1", "gen: " OF_A("device pa"));
	/* B's file, sent with A's device's name: refused, closed, and left where it was. */
	fd = open(b, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(run_req(ctl, "dev add pa type pcap file b.pcap", fd, UID_B, 0, 0, &o, &e),
			 MQTX_TC_EXIT_REFUSED);
	assert_string_equal(e, "dev add: device \"pa\" already exists\n");
	assert_false(fd_is_open(fd));
	assert_int_equal(stat(b, &st), 0);
	assert_int_equal(st.st_size, 0);
	free(o), free(e);
	/* Root's, opened by name, is root's. */
	snprintf(line, sizeof(line), "dev add pr type pcap file %s", r);
	allowed(ctl, 0, line);
	denied(ctl, UID_A, "dev del pr",
	       "dev del: Operation not permitted (device pr belongs to uid 0)\n");
	allowed(ctl, UID_A, "dev del pa");
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_size, 24); /* the header */
	allowed(ctl, 0, "dev del pr");
	fixture_free(ctl);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(b), 0);
	assert_int_equal(unlink(r), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const char *src = getenv("MQTX_SRCDIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_word),
		cmocka_unit_test(test_replay_from_fd),
		cmocka_unit_test(test_replay_needs_fd),
		cmocka_unit_test(test_not_a_file),
		cmocka_unit_test(test_dev_file),
		cmocka_unit_test(test_dev_file_without_lock),
		cmocka_unit_test(test_read_without_lock),
		cmocka_unit_test(test_job_limit),
		cmocka_unit_test(test_pool_limit),
		cmocka_unit_test(test_owners),
		cmocka_unit_test(test_owners_root),
		cmocka_unit_test(test_dev_file_owners),
	};

	snprintf(data_dir, sizeof(data_dir), "%s/tests/data", src ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

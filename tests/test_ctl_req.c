// SPDX-License-Identifier: MIT
// Commands run for a server's clients (mqtx_ctl_exec_req): the replay file comes open and must be
// a regular file, it is read without the command lock, and each owner's jobs and pools are capped.
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
		assert_int_equal(fixture_run(ctl, line, &o, NULL), MQTX_CTL_OK);
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
	assert_int_equal(run_req(ctl, "replay no-such-name.pcap dev eth0 topspeed loop 2", fd, 7, 0,
				 0, &o, &e),
			 MQTX_CTL_OK);
	assert_non_null(strstr(o, "replay 1 started on eth0"));
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
	assert_int_equal(run_req(ctl, line, -1, 7, 0, 0, &o, &e), MQTX_CTL_EPARSE);
	assert_non_null(strstr(e, "the file must come open with the command"));
	assert_string_equal(o, "");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "dev show eth0", fd, 7, 0, 0, &o, &e), MQTX_CTL_EPARSE);
	assert_non_null(strstr(e, "A file came with \"dev\", a command that names none"));
	assert_string_equal(o, "");
	assert_false(fd_is_open(fd));
	free(o), free(e);
	assert_int_equal(run_req(ctl, "replay show", -1, 7, 0, 0, &o, &e), MQTX_CTL_OK);
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
				 MQTX_CTL_EPARSE);
		if (!strstr(e, want[i]))
			fail_msg("descriptor %d: \"%s\", want \"%s\"", i, e, want[i]);
		free(o), free(e);
	}
	/* By name (mqtx -batch): the FIFO has no writer, so opening it to read would block. */
	snprintf(line, sizeof(line), "replay %s dev eth0", fifo);
	assert_int_equal(fixture_run(ctl, line, &o, &e), MQTX_CTL_EPARSE);
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
	assert_int_equal(run_req(ctl, line, -1, 7, 0, 0, &o, &e), MQTX_CTL_EPARSE);
	assert_non_null(strstr(e, "named.pcap: the file must come open with the command"));
	assert_int_equal(access(path, F_OK), -1);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "dev add p0 type pcap file rel.pcap", -1, 0, 0, 0, &o, &e),
			 MQTX_CTL_EPARSE);
	assert_string_equal(e, "dev add: rel.pcap: a relative path must come open with the "
			       "command (the server's working directory is not the client's; mqtx "
			       "sends it)\n");
	assert_int_equal(access("rel.pcap", F_OK), -1);
	free(o), free(e);
	assert_int_equal(run_req(ctl, line, -1, 0, 0, 0, &o, &e), MQTX_CTL_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 24); /* the header */
	free(o), free(e);
	/* Sent open: the device writes to it, whatever the name says. */
	snprintf(path, sizeof(path), "%s/sent.pcap", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(
		run_req(ctl, "dev add p1 type pcap file elsewhere.pcap", fd, 7, 0, 0, &o, &e),
		MQTX_CTL_OK);
	assert_false(fd_is_open(fd)); /* the device has its own copy */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 24);
	assert_int_equal(access("elsewhere.pcap", F_OK), -1);
	free(o), free(e);
	assert_int_equal(fixture_run(ctl, "dev del p0", NULL, NULL), MQTX_CTL_OK);
	assert_int_equal(fixture_run(ctl, "dev del p1", NULL, NULL), MQTX_CTL_OK);
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
	assert_int_equal(with_probe(ctl, "replay x dev eth0 topspeed", open_data("good.pcap"),
				    "capture checked"),
			 MQTX_CTL_OK);
	assert_int_equal(probe.during, 1);
	assert_int_equal(probe.rc, MQTX_CTL_OK);
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
			 MQTX_CTL_EREFUSED);
	assert_int_equal(probe.during, 1);
	assert_int_equal(probe.rc, MQTX_CTL_OK);
	fixture_free(ctl);
}

/* An owner may run max_jobs jobs; others, and the context's own commands, are not counted. */
static void test_job_limit(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *o, *e;

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(run_req(ctl, "gen dev eth0 rate 10pps", -1, 7, 2, 0, &o, &e), 0);
		free(o), free(e);
	}
	assert_int_equal(run_req(ctl, "gen dev eth0 rate 10pps", -1, 7, 2, 0, &o, &e),
			 MQTX_CTL_EREFUSED);
	assert_string_equal(e, "gen: uid 7 has 2 generators and replays running, its limit; stop "
			       "one first\n");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "replay x dev eth0", open_data("good.pcap"), 7, 2, 0, &o, &e),
			 MQTX_CTL_EREFUSED);
	assert_non_null(strstr(e, "replay: uid 7 has 2 generators"));
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev eth0 rate 10pps", -1, 8, 2, 0, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(fixture_run(ctl, "gen dev eth0 rate 10pps", &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen stop 1", -1, 7, 2, 0, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev eth0 rate 10pps", -1, 7, 2, 0, &o, &e), 0);
	assert_string_equal(o, "gen 5 started on eth0\n");
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
	assert_int_equal(run_req(ctl, "gen dev eth0 count 1", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev eth16 count 1", -1, 7, 0, 1, &o, &e),
			 MQTX_CTL_EREFUSED);
	assert_string_equal(e, "gen: uid 7 holds 1 packet pools (one per device its jobs were the "
			       "first to use), its limit; delete one of those devices first\n");
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev eth0 count 1", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev eth16 count 1", -1, 8, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "dev del eth0", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	assert_int_equal(run_req(ctl, "gen dev lo1 count 1", -1, 7, 0, 1, &o, &e), 0);
	free(o), free(e);
	fixture_free(ctl);
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
	};

	snprintf(data_dir, sizeof(data_dir), "%s/tests/data", src ? src : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

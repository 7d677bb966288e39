// SPDX-License-Identifier: MIT
/*
 * bench/batch: how long "mqtx -b" takes to load tc-testing's flower batch into mqtxd: the lines
 * tdc_batch.py writes (one priority, "filter add dev D prio 1 protocol ip ingress handle N
 * flower skip_hw src_mac ... dst_mac ... action drop"), RULES of them (argv[1], 1000000 by
 * default, the number), fed to "mqtx -S SOCK -b -" through a pipe by this program,
 * against an mqtxd of the same build on a socket of its own. The feed stops at a time limit
 * (argv[2] seconds, 600 by default; MQTX_BENCH_QUICK=1: 10000 rules, 60 s), so a slow build
 * reports how far it got instead of running for hours: one line, "bench=batch kind=flower
 * rules=N loaded=L seconds=S rules_per_s=R complete=0|1".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MQTX_TOOLS_DIR
#error "MQTX_TOOLS_DIR: the build's tools directory"
#endif

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run @argv with @in as its standard input (-1: ours); @keep_out, our end of that pipe, is
 * closed in the child, or the child would never see the end of its input. @quiet: its standard
 * output goes to /dev/null. */
static pid_t spawn(char *const argv[], int in, int keep_out, bool quiet)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = quiet ? open("/dev/null", O_WRONLY) : -1;

		if (null >= 0)
			dup2(null, 1);
		if (keep_out >= 0)
			close(keep_out);
		if (in >= 0) {
			dup2(in, 0);
			close(in);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Run "mqtx -S SOCK WORDS..." and wait: its exit status. */
static int mqtx(const char *sock, const char *words)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s/mqtx -S %s %s >/dev/null", MQTX_TOOLS_DIR, sock, words);
	return system(cmd);
}

int main(int argc, char **argv)
{
	bool quick = getenv("MQTX_BENCH_QUICK") && atoi(getenv("MQTX_BENCH_QUICK"));
	unsigned long rules = argc > 1 ? strtoul(argv[1], NULL, 0) : quick ? 10000 : 1000000;
	double limit = argc > 2 ? atof(argv[2]) : quick ? 60 : 600, t0, t1;
	char dir[] = "/tmp/mqtx-bench-batch-XXXXXX", sock[96], mqtxd[256], mqtx_bin[256];
	unsigned long fed = 0;
	int fd[2], st = 0;
	pid_t d, c;
	FILE *w;

	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(sock, sizeof(sock), "%s/s", dir);
	snprintf(mqtxd, sizeof(mqtxd), "%s/mqtxd", MQTX_TOOLS_DIR);
	snprintf(mqtx_bin, sizeof(mqtx_bin), "%s/mqtx", MQTX_TOOLS_DIR);
	/* mqtxd's own lines (it serves, it stops) are not the bench's line */
	fflush(stdout);
	d = spawn((char *[]){ mqtxd, "-S", sock, NULL }, -1, -1, true);
	for (int i = 0; i < 400 && access(sock, F_OK); i++)
		usleep(10000);
	if (mqtx(sock, "dev add d0 type null up") || mqtx(sock, "qdisc add dev d0 clsact")) {
		fprintf(stderr, "batch: setup failed\n");
		kill(d, SIGTERM);
		return 1;
	}
	if (pipe(fd))
		return perror("pipe"), 1;
	t0 = now_s();
	c = spawn((char *[]){ mqtx_bin, "-S", sock, "-b", "-", NULL }, fd[0], fd[1], false);
	close(fd[0]);
	w = fdopen(fd[1], "w");
	for (; fed < rules; fed++) {
		unsigned i = (fed >> 16) & 0xff, j = (fed >> 8) & 0xff, k = fed & 0xff;

		if (!(fed & 1023) && now_s() - t0 > limit)
			break;
		if (fprintf(w,
			    "filter add dev d0 prio 1 protocol ip ingress handle %lu  flower "
			    "skip_hw "
			    "src_mac e4:11:00:%02x:%02x:%02x dst_mac e4:12:00:%02x:%02x:%02x "
			    "action "
			    "drop \n",
			    fed + 1, i, j, k, i, j, k) < 0)
			break;
	}
	fclose(w);
	waitpid(c, &st, 0);
	t1 = now_s();
	printf("bench=batch kind=flower rules=%lu loaded=%lu seconds=%.2f rules_per_s=%.0f "
	       "complete=%d\n",
	       rules, fed, t1 - t0, fed / (t1 - t0),
	       fed == rules && WIFEXITED(st) && !WEXITSTATUS(st));
	kill(d, SIGTERM);
	waitpid(d, NULL, 0);
	unlink(sock);
	rmdir(dir);
	return 0;
}

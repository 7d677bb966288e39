// SPDX-License-Identifier: MIT
/* bench/whatif: frames per wall-clock second of one what-if run (sim + fq_codel, one core), next
 * to a replay of the same capture as fast as possible into a null device, in the same run; and
 * 20 minutes of 1 kpps traffic: the wall time and how much the resident set grew. Captures are
 * written to $TMPDIR (/tmp) and removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mqtx/ctl.h>
#include <mqtx/gen.h>
#include <mqtx/whatif.h>

#include "bench_run.h"

#define FLOWS 16
#define REPS  3

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

/* @n frames of 64 bytes (16 UDP flows), one every @gap_ns, as a pcap with ns stamps. */
static void write_capture(const char *path, uint64_t n, uint64_t gap_ns)
{
	struct mqtx_gen_cfg g;
	uint8_t b[128];
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		exit(1);
	}
	mqtx_gen_cfg_default(&g);
	g.flows = FLOWS;
	g.sport_lo = 1000;
	g.sport_hi = 1000 + FLOWS - 1;
	static const uint32_t hdr[] = { 0xa1b23c4d, 2 | 4 << 16, 0, 0, 65535, 1 };

	for (size_t i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++)
		put32(f, hdr[i]);
	for (uint64_t i = 0; i < n; i++) {
		int len = mqtx_gen_build(&g, i, b, sizeof(b));
		uint64_t t = i * gap_ns;

		put32(f, (uint32_t)(t / 1000000000));
		put32(f, (uint32_t)(t % 1000000000));
		put32(f, (uint32_t)len);
		put32(f, (uint32_t)len);
		fwrite(b, (size_t)len, 1, f);
	}
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

static char *exec_or_die(struct mqtx_ctl *ctl, const char *line, unsigned flags)
{
	struct mqtx_buf o, e;
	char *s;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	if (mqtx_ctl_exec_line(ctl, line, flags, &o, &e) != MQTX_TC_EXIT_OK) {
		fprintf(stderr, "whatif: \"%s\": %s", line, e.data ? e.data : "failed\n");
		exit(1);
	}
	s = strdup(o.data ? o.data : "");
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	return s;
}

static double json_num(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtod(p + strlen(key), NULL) : -1;
}

/* One what-if run of @cap through @conf: its wall and virtual seconds. */
static void whatif(const char *cap, const char *conf, double *wall, double *virt)
{
	struct mqtx_ctl *ctl;
	char line[512], *out;

	if (mqtx_ctl_new(&ctl) || mqtx_whatif_attach(ctl))
		exit(1);
	snprintf(line, sizeof(line), "whatif %s config %s", cap, conf);
	out = exec_or_die(ctl, line, MQTX_CTL_F_JSON);
	*wall = json_num(out, "\"wall_s\":");
	*virt = json_num(out, "\"virtual_s\":");
	free(out);
	mqtx_ctl_free(ctl);
}

/* The baseline: replay @cap as fast as possible into a null device; its wall seconds. */
static double replay_null(const char *cap)
{
	struct mqtx_jobs *jobs;
	struct mqtx_ctl *ctl;
	char line[512], *out;
	double t0, t;

	if (mqtx_ctl_new(&ctl) || mqtx_jobs_new(&jobs) || mqtx_jobs_attach(jobs, ctl))
		exit(1);
	free(exec_or_die(ctl, "dev add n0 type null up", 0));
	snprintf(line, sizeof(line), "replay %s dev n0 topspeed", cap);
	t0 = bench_now();
	free(exec_or_die(ctl, line, 0));
	for (;;) {
		out = exec_or_die(ctl, "replay show", MQTX_CTL_F_JSON);
		if (strstr(out, "\"state\":\"done\"") || strstr(out, "\"state\":\"error\"")) {
			t = json_num(out, "\"elapsed\":");
			free(out);
			break;
		}
		free(out);
		bench_sleep(0.001);
	}
	if (t <= 0)
		t = bench_now() - t0;
	mqtx_jobs_free(jobs);
	mqtx_ctl_free(ctl);
	return t;
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void write_conf(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	bool quick = bench_quick();
	uint64_t n = quick ? 200000 : 2000000, minutes = quick ? 2 : 20;
	unsigned reps = quick ? 1 : REPS;
	double wi[REPS], rp[REPS], wall, virt, w, r;
	char cap[256], conf[256], longcap[256], slow[256];
	long rss0, rss1;

	snprintf(cap, sizeof(cap), "%s/mqtx-bench-whatif-%d.pcap", dir, (int)getpid());
	snprintf(longcap, sizeof(longcap), "%s/mqtx-bench-whatif-long-%d.pcap", dir, (int)getpid());
	snprintf(conf, sizeof(conf), "%s/mqtx-bench-whatif-%d.conf", dir, (int)getpid());
	snprintf(slow, sizeof(slow), "%s/mqtx-bench-whatif-slow-%d.conf", dir, (int)getpid());
	write_capture(longcap, minutes * 60 * 1000, 1000000);
	write_conf(slow, "dev add eth0 type sim rate 10mbit ring 64 bql\n"
			 "qdisc add dev eth0 root fq_codel\ndev set eth0 up\n");
	rss0 = max_rss_kb();
	whatif(longcap, slow, &wall, &virt);
	rss1 = max_rss_kb();
	printf("bench=whatif_long minutes=%llu pps=1000 wall_s=%.3f virtual_s=%.3f "
	       "rss_growth_kb=%ld\n",
	       (unsigned long long)minutes, wall, virt, rss1 - rss0);
	unlink(longcap);
	/* 64-byte frames every 600 ns (1.12 Gbit/s on the wire) into a 1 Gbit/s link. */
	write_capture(cap, n, 600);
	write_conf(conf, "dev add eth0 type sim rate 1gbit ring 256 bql\n"
			 "qdisc add dev eth0 root fq_codel\ndev set eth0 up\n");
	for (unsigned i = 0; i < reps; i++) {
		whatif(cap, conf, &wall, &virt);
		wi[i] = (double)n / wall / 1e6;
		rp[i] = (double)n / replay_null(cap) / 1e6;
	}
	w = bench_median(wi, reps);
	r = bench_median(rp, reps);
	printf("bench=whatif qdisc=fq_codel rate_mbit=1000 frames=%llu whatif_mfps=%.3f "
	       "replay_null_mfps=%.3f ratio=%.2f reps=%u\n",
	       (unsigned long long)n, w, r, w / r, reps);
	unlink(cap);

	unlink(conf);
	unlink(slow);
	return 0;
}

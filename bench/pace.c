// SPDX-License-Identifier: MIT
// The generator's pace as the wire sees it: the gaps between the stamps of a pcap device at 1k,
// 10k and 100k pps (p10, p50, p99 against the nominal gap), and the CPU it costs; without a
// wire (each frame stamped when the generator hands it over: the pacer alone) and on a 100
// Gbit/s wire (each frame stamped when its wire starts it, behind BQL and the wire's
// completions).
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mqtx/ctl.h>
#include <mqtx/gen.h>
#include <mqtx/mqtx.h>
#include <mqtx/pcap.h>

#include "bench_run.h"

/* A wire fast enough never to be the bottleneck itself. */
#define WIRE_BPS 100000000000ull

static void ctl_or_die(struct mqtx_ctl *ctl, const char *line)
{
	struct mqtx_buf o, e;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	if (mqtx_ctl_exec_line(ctl, line, 0, &o, &e) != MQTX_TC_EXIT_OK) {
		fprintf(stderr, "pace: \"%s\": %s", line, e.data ? e.data : "failed\n");
		exit(1);
	}
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
}

/* The run stopped short: the device's counters say where its frames went, then exit. */
static void stuck(struct mqtx_ctl *ctl)
{
	struct mqtx_buf o, e;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	mqtx_ctl_exec_line(ctl, "dev show pace0", MQTX_CTL_F_STATS, &o, &e);
	fprintf(stderr, "%s%s", o.data ? o.data : "", e.data ? e.data : "");
	exit(1);
}

static double cpu_secs(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The stamps (ns) of a nanosecond pcap file written by the pcap driver, into @ts (@max). */
static size_t read_stamps(const char *path, uint64_t *ts, size_t max)
{
	FILE *f = fopen(path, "rb");
	uint8_t h[24];
	size_t n = 0;

	if (!f || fread(h, 1, 24, f) != 24) {
		fprintf(stderr, "pace: cannot read %s\n", path);
		exit(1);
	}
	while (n < max && fread(h, 1, 16, f) == 16) {
		ts[n++] = (uint64_t)le32(h) * 1000000000ull + le32(h + 4);
		if (fseek(f, le32(h + 8), SEEK_CUR))
			break;
	}
	fclose(f);
	return n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* One run at @pps for about @secs on a wire of @wire bit/s (0: none): the line of its gaps and
 * CPU. */
static void run(struct mqtx_ctl *ctl, unsigned pps, double secs, uint64_t wire)
{
	char path[] = "/tmp/mqtx-bench-pace-XXXXXX", line[200];
	uint64_t count = (uint64_t)(pps * secs) + 1, *ts;
	struct mqtx_dev_cfg base = { .name = "pace0", .num_txq = 1 };
	struct mqtx_pcap_cfg pc = { .file = path, .rate_bps = wire, .overwrite = true };
	struct mqtx_ktxq_stats st;
	struct mqtx_dev *dev;
	double t0, c0, wall, cpu, nominal = 1e9 / pps;
	int64_t *gap;
	size_t n;
	int fd = mkstemp(path);

	if (fd < 0 || mqtx_pcap_dev_create(&base, &pc, &dev) || mqtx_dev_open(dev) ||
	    mqtx_ctl_add_dev(ctl, dev)) {
		fprintf(stderr, "pace: cannot make the pcap device\n");
		exit(1);
	}
	close(fd);
	snprintf(line, sizeof(line), "gen dev pace0 rate %upps count %llu detach", pps,
		 (unsigned long long)count);
	t0 = bench_now();
	c0 = cpu_secs();
	ctl_or_die(ctl, line);
	for (uint64_t seen = 0, idle = 0; seen < count; idle++) {
		bench_sleep(0.01);
		mqtx_pcap_txq_stats(dev, -1, &st);
		if (st.packets > seen)
			seen = st.packets, idle = 0;
		if (idle == 500) { /* 5 s without a frame: say where they are */
			fprintf(stderr, "pace: %llu of %llu frames written, none for 5 s\n",
				(unsigned long long)seen, (unsigned long long)count);
			stuck(ctl);
		}
	}
	wall = bench_now() - t0;
	cpu = cpu_secs() - c0;
	ctl_or_die(ctl, "dev del pace0");
	ts = malloc(count * sizeof(*ts));
	gap = malloc(count * sizeof(*gap));
	if (!ts || !gap)
		exit(1);
	n = read_stamps(path, ts, count);
	unlink(path);
	for (size_t i = 1; i < n; i++)
		gap[i - 1] = (int64_t)(ts[i] - ts[i - 1]);
	qsort(gap, n - 1, sizeof(*gap), cmp_i64);
	{
		double p10 = (double)gap[(n - 1) / 10], p50 = (double)gap[(n - 1) / 2];
		double p99 = (double)gap[(n - 1) * 99 / 100];
		double mean = (double)(ts[n - 1] - ts[0]) / (double)(n - 1);

		printf("bench=pace wire=%s pps=%u frames=%zu nominal_us=%.2f p10_us=%.2f "
		       "p50_us=%.2f "
		       "p99_us=%.2f mean_us=%.2f p10_of_nominal=%.3f p50_of_nominal=%.3f "
		       "cpu_share=%.3f cpu_ns_per_pkt=%.0f met=%s\n",
		       wire ? "100gbit" : "none", pps, n, nominal / 1e3, p10 / 1e3, p50 / 1e3,
		       p99 / 1e3, mean / 1e3, p10 / nominal, p50 / nominal, cpu / wall,
		       cpu * 1e9 / (double)n,
		       p50 / nominal >= 0.95 && p50 / nominal <= 1.05 && p10 / nominal >= 0.5
			       ? "yes"
			       : "no");
		fflush(stdout);
	}
	free(ts);
	free(gap);
}

int main(int argc, char **argv)
{
	static const unsigned rates[] = { 1000, 10000, 100000 };
	double secs = bench_quick() ? 0.3 : 2.0;
	struct mqtx_jobs *jobs;
	struct mqtx_ctl *ctl;

	/* bench/pace PPS [SECS [wire]]: one run (a check while developing). */
	if (mqtx_ctl_new(&ctl) || mqtx_jobs_new(&jobs) || mqtx_jobs_attach(jobs, ctl))
		return 1;
	if (argc > 1) {
		run(ctl, (unsigned)atoi(argv[1]), argc > 2 ? atof(argv[2]) : secs,
		    argc > 3 ? WIRE_BPS : 0);
	} else {
		for (unsigned w = 0; w < 2; w++)
			for (unsigned i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
				run(ctl, rates[i], secs, w ? WIRE_BPS : 0);
	}
	mqtx_jobs_free(jobs);
	mqtx_ctl_free(ctl);
	return 0;
}

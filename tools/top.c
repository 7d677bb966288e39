// SPDX-License-Identifier: MIT
// mqtx top: a live per-queue view of mqtxd's devices, from "dev stats -j" every interval; for a
// Wi-Fi device, a line per access category too.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/dev.h>

#include "client.h"
#include "json.h"

#define MAXQ   4096
#define MAXDEV 64
#define BAR_W  20

struct qsnap {
	unsigned long long packets, bytes, drops, requeues, qlen, backlog;
	unsigned state, bql_limit, bql_inflight;
};

/* One access category of a Wi-Fi device ("ac" of dev stats -j): the medium's and WME's. */
struct acsnap {
	unsigned long long frames, bytes, airtime_ns, queued, lat_sum_ns, lat_max_ns;
	unsigned long long noadmit, downgraded;
};

#define NUM_AC 4

struct devsnap {
	char name[32], kind[16];
	int up;
	unsigned nq, limit, nac;
	unsigned long long now;
	struct qsnap *q;
	struct acsnap ac[NUM_AC];
};

struct snap {
	struct devsnap dev[MAXDEV];
	unsigned ndev;
};

static void snap_free(struct snap *s)
{
	for (unsigned i = 0; i < s->ndev; i++)
		free(s->dev[i].q);
	s->ndev = 0;
}

/* A queue's state words of "dev stats -j" ("XOFF,STACK_XOFF", "frozen", "running") as bits. */
static unsigned state_bits(const char *w)
{
	return (strstr(w, "frozen") ? MQTX_TXQ_FROZEN : 0) |
	       (strstr(w, "STACK_XOFF") ? MQTX_TXQ_STACK_XOFF : 0) |
	       (!strncmp(w, "XOFF", 4) || strstr(w, ",XOFF") ? MQTX_TXQ_DRV_XOFF : 0);
}

static const char *const ac_names[NUM_AC] = { "VO", "VI", "BE", "BK" };

static void ac_parse(const struct json *acs, struct devsnap *d)
{
	if (!acs || acs->type != JSON_ARR || acs->n != NUM_AC)
		return;
	d->nac = NUM_AC;
	for (unsigned i = 0; i < NUM_AC; i++) {
		const struct json *a = &acs->kids[i];

		d->ac[i] = (struct acsnap){
			.frames = (unsigned long long)json_num(a, "frames", 0),
			.bytes = (unsigned long long)json_num(a, "bytes", 0),
			.airtime_ns = (unsigned long long)json_num(a, "airtime_ns", 0),
			.queued = (unsigned long long)json_num(a, "queued", 0),
			.lat_sum_ns = (unsigned long long)json_num(a, "lat_sum_ns", 0),
			.lat_max_ns = (unsigned long long)json_num(a, "lat_max_ns", 0),
			.noadmit = (unsigned long long)json_num(a, "noadmit", 0),
			.downgraded = (unsigned long long)json_num(a, "downgraded", 0),
		};
	}
}

static int dev_parse(const struct json *j, struct devsnap *d)
{
	const struct json *qs = json_get(j, "queues");

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", json_str(j, "name", "?"));
	snprintf(d->kind, sizeof(d->kind), "%s", json_str(j, "kind", "?"));
	d->up = json_num(j, "up", 0) != 0;
	d->limit = (unsigned)json_num(j, "txqueuelen", 0);
	d->now = (unsigned long long)json_num(j, "now", 0);
	ac_parse(json_get(j, "ac"), d);
	if (!qs || qs->type != JSON_ARR || qs->n > MAXQ)
		return -1;
	d->nq = (unsigned)qs->n;
	d->q = calloc(d->nq ? d->nq : 1, sizeof(*d->q));
	if (!d->q)
		return -1;
	for (unsigned i = 0; i < d->nq; i++) {
		const struct json *q = &qs->kids[i];

		d->q[i] = (struct qsnap){
			.packets = (unsigned long long)json_num(q, "packets", 0),
			.bytes = (unsigned long long)json_num(q, "bytes", 0),
			.drops = (unsigned long long)json_num(q, "drops", 0),
			.requeues = (unsigned long long)json_num(q, "requeues", 0),
			.qlen = (unsigned long long)json_num(q, "qlen", 0),
			.backlog = (unsigned long long)json_num(q, "backlog", 0),
			.state = state_bits(json_str(q, "state", "")),
			.bql_limit = (unsigned)json_num(q, "bql_limit", 0),
			.bql_inflight = (unsigned)json_num(q, "bql_inflight", 0),
		};
	}
	return 0;
}

/* The devices of "dev stats -j" (an array of devices, each with its queues) into @s. */
static int snap_parse(const char *text, struct snap *s)
{
	struct json *j = json_parse(text);
	int rc = j && j->type == JSON_ARR ? 0 : -1;

	s->ndev = 0;
	for (size_t i = 0; !rc && i < j->n && s->ndev < MAXDEV; i++) {
		rc = dev_parse(&j->kids[i], &s->dev[s->ndev]);
		if (!rc)
			s->ndev++;
	}
	json_free(j);
	return rc;
}

static const struct devsnap *find_prev(const struct snap *prev, const char *name)
{
	for (unsigned i = 0; i < prev->ndev; i++)
		if (!strcmp(prev->dev[i].name, name))
			return &prev->dev[i];
	return NULL;
}

static const char *state_str(unsigned st)
{
	if (st & MQTX_TXQ_FROZEN)
		return "frozen";
	if (st & MQTX_TXQ_DRV_XOFF)
		return "XOFF";
	if (st & MQTX_TXQ_STACK_XOFF)
		return "BQL-XOFF";
	return "run";
}

struct qrate {
	double pps, mbit, dps, rps;
};

static struct qrate rate_of(const struct qsnap *q, const struct qsnap *o, double secs)
{
	struct qrate r = { 0 };

	if (!o || secs <= 0)
		return r;
	r.pps = (double)(q->packets - o->packets) / secs;
	r.mbit = (double)(q->bytes - o->bytes) * 8 / secs / 1e6;
	r.dps = (double)(q->drops - o->drops) / secs;
	r.rps = (double)(q->requeues - o->requeues) / secs;
	return r;
}

/*
 * A Wi-Fi device's access categories over the interval: frames/s, Mbit/s, the share of the
 * medium's time (air %), the mean delay of the frames delivered in it, and the totals.
 */
static void render_ac(const struct devsnap *d, const struct devsnap *o, bool tty)
{
	double secs = o ? (double)(d->now - o->now) / 1e9 : 0;

	if (tty && d->nac)
		printf("  %4s %12s %10s %6s %7s %11s %11s %9s %10s\n", "AC", "FRAMES/S", "MBIT/S",
		       "AIR%", "QUEUED", "LAT_AVG_US", "LAT_MAX_US", "NOADMIT", "DOWNGRADED");
	for (unsigned i = 0; i < d->nac; i++) {
		const struct acsnap *a = &d->ac[i], *p = o && o->nac ? &o->ac[i] : NULL;
		double fps = 0, mbit = 0, air = 0, lat = 0;
		unsigned long long n = p ? a->frames - p->frames : 0;

		if (p && secs > 0) {
			fps = (double)n / secs;
			mbit = (double)(a->bytes - p->bytes) * 8 / secs / 1e6;
			air = (double)(a->airtime_ns - p->airtime_ns) / (secs * 1e9) * 100;
		}
		if (n)
			lat = (double)(a->lat_sum_ns - p->lat_sum_ns) / (double)n / 1e3;
		if (tty)
			printf("  %4s %12.0f %10.2f %6.1f %7llu %11.0f %11.0f %9llu %10llu\n",
			       ac_names[i], fps, mbit, air, a->queued, lat,
			       (double)a->lat_max_ns / 1e3, a->noadmit, a->downgraded);
		else
			printf("dev %s ac %s fps %.0f mbit %.2f air %.1f queued %llu lat_avg_us "
			       "%.0f "
			       "lat_max_us %.0f noadmit %llu downgraded %llu\n",
			       d->name, ac_names[i], fps, mbit, air, a->queued, lat,
			       (double)a->lat_max_ns / 1e3, a->noadmit, a->downgraded);
	}
}

static void render_dev(const struct devsnap *d, const struct devsnap *o, bool tty)
{
	double secs = o ? (double)(d->now - o->now) / 1e9 : 0, max = 0;
	char bar[BAR_W + 1];

	for (unsigned i = 0; i < d->nq; i++) {
		struct qrate r = rate_of(&d->q[i], o && i < o->nq ? &o->q[i] : NULL, secs);

		max = r.pps > max ? r.pps : max;
	}
	if (tty)
		printf("%s: %s kind %s txqueues %u\n", d->name, d->up ? "UP" : "DOWN", d->kind,
		       d->nq);
	for (unsigned i = 0; i < d->nq; i++) {
		const struct qsnap *q = &d->q[i];
		struct qrate r = rate_of(q, o && i < o->nq ? &o->q[i] : NULL, secs);
		unsigned n = max > 0 ? (unsigned)(r.pps / max * BAR_W + 0.5) : 0;

		memset(bar, '#', n);
		memset(bar + n, ' ', BAR_W - n);
		bar[BAR_W] = '\0';
		if (tty)
			printf("  %4u %-8s %12.0f %10.2f %7llu %9llu %9.0f %9.0f %10llu |%s|\n", i,
			       state_str(q->state), r.pps, r.mbit, q->qlen, q->backlog, r.dps,
			       r.rps, q->drops, bar);
		else
			printf("dev %s q %u state %s pps %.0f mbit %.2f qlen %llu backlog %llu "
			       "drops %llu requeues %llu drops/s %.0f requeues/s %.0f\n",
			       d->name, i, state_str(q->state), r.pps, r.mbit, q->qlen, q->backlog,
			       q->drops, q->requeues, r.dps, r.rps);
	}
	render_ac(d, o, tty);
}

static void render(const struct snap *cur, const struct snap *prev, bool tty, double ival)
{
	time_t t = time(NULL);
	char ts[32];

	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	if (tty) {
		printf("\033[H\033[2J");
		printf("mqtx top - %s, every %.1fs, %u device(s)   (^C quits)\n\n", ts, ival,
		       cur->ndev);
		printf("  %4s %-8s %12s %10s %7s %9s %9s %9s %10s  %-*s\n", "TXQ", "STATE", "PPS",
		       "MBIT/S", "QLEN", "BACKLOG", "DROPS/S", "REQ/S", "DROPS", BAR_W, "RATE");
	} else {
		printf("# %s\n", ts);
	}
	for (unsigned i = 0; i < cur->ndev; i++)
		render_dev(&cur->dev[i], find_prev(prev, cur->dev[i].name), tty);
	if (!cur->ndev)
		printf("(no devices)\n");
	fflush(stdout);
}

static int top_args(int argc, char **argv, char **dev, double *ival, long *count)
{
	for (int i = 1; i < argc; i += 2) {
		char *end;

		if (i + 1 >= argc) {
			fprintf(stderr, "top: \"%s\" needs a value\n", argv[i]);
			return -1;
		}
		if (!strcmp(argv[i], "dev")) {
			*dev = argv[i + 1];
		} else if (!strcmp(argv[i], "interval")) {
			*ival = strtod(argv[i + 1], &end);
			if (*end || !(*ival >= 0.1 && *ival <= 3600)) {
				fprintf(stderr, "top: invalid interval \"%s\"\n", argv[i + 1]);
				return -1;
			}
		} else if (!strcmp(argv[i], "count")) {
			*count = strtol(argv[i + 1], &end, 10);
			if (*end || *count < 1) {
				fprintf(stderr, "top: invalid count \"%s\"\n", argv[i + 1]);
				return -1;
			}
		} else {
			fprintf(stderr, "top: what is \"%s\"? Try \"mqtx top help\".\n", argv[i]);
			return -1;
		}
	}
	return 0;
}

int top_main(struct backend *b, int argc, char **argv)
{
	char *dev = NULL, *cmd[3] = { "dev", "stats", NULL };
	struct snap *cur = calloc(1, sizeof(*cur)), *prev = calloc(1, sizeof(*prev)), *tmp;
	bool tty = isatty(1);
	double ival = 1.0;
	long count = 0;
	int code = 0;

	if (!cur || !prev || top_args(argc, argv, &dev, &ival, &count)) {
		free(cur), free(prev);
		return 1;
	}
	cmd[2] = dev;
	if (tty)
		printf("\033[?25l"); /* hide the cursor while drawing */
	for (long n = 0; !interrupted && (!count || n < count); n++) {
		struct result r;
		struct timespec ts = { (time_t)ival, (long)((ival - (time_t)ival) * 1e9) };

		backend_exec(b, dev ? 3 : 2, cmd, MQTX_CTL_F_JSON, &r);
		if (r.signo) { /* ^C while asking quits, as ^C between two asks does */
			result_free(&r);
			break;
		}
		if (r.code || snap_parse(r.out, cur)) {
			fputs(r.err, stderr);
			code = r.code ? r.code : 1;
			result_free(&r);
			break;
		}
		result_free(&r);
		render(cur, prev, tty, ival);
		snap_free(prev);
		tmp = prev, prev = cur, cur = tmp;
		if (!count || n + 1 < count)
			nanosleep(&ts, NULL);
	}
	if (tty)
		printf("\033[?25h");
	snap_free(cur), snap_free(prev);
	free(cur), free(prev);
	return code;
}

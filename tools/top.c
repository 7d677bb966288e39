// SPDX-License-Identifier: MIT
// mqtx top: a live per-queue view of mqtxd's devices, from "dev stats -j" every interval; for a
// Wi-Fi device, a line per access category too. On a terminal the view fits its width (columns
// dropped or narrowed) and height (a "+N more" line), and q quits; with -j, JSON Lines.
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
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
 * Where the view goes: a terminal of @cols x @rows (lines beyond @rows - 1 are counted in
 * @hidden, for the "+N more" line), plain lines on a pipe, or JSON Lines (@json). @drop: how
 * many of the optional queue columns are dropped to fit the width; @bar: the bar's width.
 */
struct view {
	bool tty, json;
	int cols, rows, used, hidden;
	unsigned drop;
	int bar;
};

/* May one more line be printed? On a terminal, one line stays for "+N more". */
static bool line_ok(struct view *v)
{
	if (!v->tty || v->used < v->rows - 2) {
		v->used++;
		return true;
	}
	v->hidden++;
	return false;
}

/* The queue columns in their order, and when each goes: a terminal narrower than all of them
 * loses the rate bar, then REQ/S (@drop 1), BACKLOG (2), DROPS/S (3) and MBIT/S (4). */
enum {
	COL_TXQ,
	COL_STATE,
	COL_PPS,
	COL_MBIT,
	COL_QLEN,
	COL_BACKLOG,
	COL_DPS,
	COL_RPS,
	COL_DROPS,
	NCOL
};
#define COL_OPTIONAL 4

static const struct {
	const char *head;
	int w;
	unsigned drop; /* 0: always shown */
} cols[NCOL] = {
	[COL_TXQ] = { "TXQ", 4, 0 },	  [COL_STATE] = { "STATE", -8, 0 },
	[COL_PPS] = { "PPS", 10, 0 },	  [COL_MBIT] = { "MBIT/S", 9, 4 },
	[COL_QLEN] = { "QLEN", 7, 0 },	  [COL_BACKLOG] = { "BACKLOG", 9, 2 },
	[COL_DPS] = { "DROPS/S", 8, 3 },  [COL_RPS] = { "REQ/S", 8, 1 },
	[COL_DROPS] = { "DROPS", 10, 0 },
};

static bool col_shown(unsigned c, unsigned drop)
{
	return !cols[c].drop || cols[c].drop > drop;
}

static int cols_width(unsigned drop)
{
	int w = 1;

	for (unsigned c = 0; c < NCOL; c++)
		if (col_shown(c, drop))
			w += abs(cols[c].w) + 1;
	return w;
}

/* The widest layout that fits: a bar of up to BAR_W when at least 6 fit, else no bar and as
 * few columns dropped as the width needs. */
static void view_fit(struct view *v)
{
	v->drop = 0;
	v->bar = v->tty ? v->cols - cols_width(0) - 3 : BAR_W;
	if (v->bar > BAR_W)
		v->bar = BAR_W;
	if (v->bar >= 6)
		return;
	v->bar = 0;
	while (v->drop < COL_OPTIONAL && cols_width(v->drop) > v->cols)
		v->drop++;
}

static void print_cols(const struct view *v, const char *const val[NCOL], const char *bar)
{
	printf(" ");
	for (unsigned c = 0; c < NCOL; c++)
		if (col_shown(c, v->drop))
			printf(" %*s", cols[c].w, val[c]);
	if (v->bar)
		printf("  %s", bar);
	putchar('\n');
}

/*
 * A Wi-Fi device's access categories over the interval: frames/s, Mbit/s, the share of the
 * medium's time (air %), the mean delay of the frames delivered in it, and the totals. A
 * terminal narrower than the line loses the DOWNGRADED column.
 */
static void render_ac(const struct devsnap *d, const struct devsnap *o, struct view *v)
{
	double secs = o ? (double)(d->now - o->now) / 1e9 : 0;
	bool narrow = v->tty && v->cols < 92;

	if (v->tty && d->nac && line_ok(v))
		printf("  %4s %10s %9s %6s %7s %10s %10s %9s%s\n", "AC", "FRAMES/S", "MBIT/S",
		       "AIR%", "QUEUED", "LAT_AVG_US", "LAT_MAX_US", "NOADMIT",
		       narrow ? "" : " DOWNGRADED");
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
		if (v->json)
			printf("%s{\"ac\":\"%s\",\"fps\":%.0f,\"mbit\":%.3f,\"air\":%.1f,"
			       "\"queued\":%llu,\"lat_avg_us\":%.0f,\"lat_max_us\":%.0f,"
			       "\"noadmit\":%llu,\"downgraded\":%llu}",
			       i ? "," : "", ac_names[i], fps, mbit, air, a->queued, lat,
			       (double)a->lat_max_ns / 1e3, a->noadmit, a->downgraded);
		else if (!line_ok(v))
			continue;
		else if (v->tty && narrow)
			printf("  %4s %10.0f %9.2f %6.1f %7llu %10.0f %10.0f %9llu\n", ac_names[i],
			       fps, mbit, air, a->queued, lat, (double)a->lat_max_ns / 1e3,
			       a->noadmit);
		else if (v->tty)
			printf("  %4s %10.0f %9.2f %6.1f %7llu %10.0f %10.0f %9llu %10llu\n",
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

/* One queue's row on a terminal, in the columns that fit. */
static void render_row(const struct view *v, unsigned i, const struct qsnap *q,
		       const struct qrate *r, double max)
{
	char txt[NCOL][24], bar[BAR_W + 3];
	const char *val[NCOL];
	int n = max > 0 ? (int)(r->pps / max * v->bar + 0.5) : 0;

	snprintf(txt[COL_TXQ], 24, "%u", i);
	snprintf(txt[COL_STATE], 24, "%s", state_str(q->state));
	snprintf(txt[COL_PPS], 24, "%.0f", r->pps);
	snprintf(txt[COL_QLEN], 24, "%llu", q->qlen);
	snprintf(txt[COL_DROPS], 24, "%llu", q->drops);
	snprintf(txt[COL_MBIT], 24, "%.2f", r->mbit);
	snprintf(txt[COL_DPS], 24, "%.0f", r->dps);
	snprintf(txt[COL_BACKLOG], 24, "%llu", q->backlog);
	snprintf(txt[COL_RPS], 24, "%.0f", r->rps);
	for (unsigned c = 0; c < NCOL; c++)
		val[c] = txt[c];
	bar[0] = '|';
	memset(bar + 1, '#', (size_t)n);
	memset(bar + 1 + n, ' ', (size_t)(v->bar - n));
	bar[v->bar + 1] = '|';
	bar[v->bar + 2] = '\0';
	print_cols(v, val, bar);
}

static void render_dev(const struct devsnap *d, const struct devsnap *o, struct view *v)
{
	double secs = o ? (double)(d->now - o->now) / 1e9 : 0, max = 0;

	for (unsigned i = 0; i < d->nq; i++) {
		struct qrate r = rate_of(&d->q[i], o && i < o->nq ? &o->q[i] : NULL, secs);

		max = r.pps > max ? r.pps : max;
	}
	if (v->json)
		printf("{\"name\":\"%s\",\"kind\":\"%s\",\"up\":%s,\"queues\":[", d->name, d->kind,
		       d->up ? "true" : "false");
	else if (v->tty && line_ok(v))
		printf("%s: %s kind %s txqueues %u\n", d->name, d->up ? "UP" : "DOWN", d->kind,
		       d->nq);
	for (unsigned i = 0; i < d->nq; i++) {
		const struct qsnap *q = &d->q[i];
		struct qrate r = rate_of(q, o && i < o->nq ? &o->q[i] : NULL, secs);

		if (v->json)
			printf("%s{\"queue\":%u,\"state\":\"%s\",\"pps\":%.0f,\"mbit\":%.3f,"
			       "\"qlen\":%llu,\"backlog\":%llu,\"drops\":%llu,\"requeues\":%llu,"
			       "\"drops_per_s\":%.0f,\"requeues_per_s\":%.0f}",
			       i ? "," : "", i, state_str(q->state), r.pps, r.mbit, q->qlen,
			       q->backlog, q->drops, q->requeues, r.dps, r.rps);
		else if (!line_ok(v))
			continue;
		else if (v->tty)
			render_row(v, i, q, &r, max);
		else
			printf("dev %s q %u state %s pps %.0f mbit %.2f qlen %llu backlog %llu "
			       "drops %llu requeues %llu drops/s %.0f requeues/s %.0f\n",
			       d->name, i, state_str(q->state), r.pps, r.mbit, q->qlen, q->backlog,
			       q->drops, q->requeues, r.dps, r.rps);
	}
	if (v->json)
		printf("],\"ac\":[");
	render_ac(d, o, v);
	if (v->json)
		printf("]}");
}

/* The terminal's size now (it may have changed since the last refresh). */
static void view_size(struct view *v)
{
	struct winsize ws;

	v->cols = 80, v->rows = 24;
	if (v->tty && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row)
		v->cols = ws.ws_col, v->rows = ws.ws_row;
	view_fit(v);
}

static void render_head(struct view *v, const struct snap *cur, double ival, const char *ts)
{
	const char *val[NCOL];
	char bar[BAR_W + 3];

	printf("\033[H\033[2J");
	printf("mqtx top - %s, every %.1fs, %u device(s)   (q quits)\n\n", ts, ival, cur->ndev);
	for (unsigned c = 0; c < NCOL; c++)
		val[c] = cols[c].head;
	snprintf(bar, sizeof(bar), "%-*s", v->bar + 2, "RATE");
	print_cols(v, val, bar);
	v->used = 3;
}

static void render(const struct snap *cur, const struct snap *prev, struct view *v, double ival)
{
	time_t t = time(NULL);
	char ts[32];

	v->hidden = 0;
	if (v->json) {
		printf("{\"time\":%lld,\"interval\":%.3f,\"devices\":[", (long long)t, ival);
		for (unsigned i = 0; i < cur->ndev; i++) {
			printf("%s", i ? "," : "");
			render_dev(&cur->dev[i], find_prev(prev, cur->dev[i].name), v);
		}
		printf("]}\n");
		fflush(stdout);
		return;
	}
	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	if (v->tty) {
		view_size(v);
		render_head(v, cur, ival, ts);
	} else {
		printf("# %s\n", ts);
	}
	for (unsigned i = 0; i < cur->ndev; i++)
		render_dev(&cur->dev[i], find_prev(prev, cur->dev[i].name), v);
	if (!cur->ndev)
		printf("(no devices)\n");
	if (v->hidden)
		printf("+%d more (a taller terminal, or top dev NAME, shows them)", v->hidden);
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

/* Sample "dev stats -j" into @s: 0, an exit code, or -1 when ^C came while asking. */
static int sample(struct backend *b, char **cmd, struct snap *s)
{
	struct result r;
	int code = 0;

	backend_exec(b, cmd[2] ? 3 : 2, cmd, MQTX_CTL_F_JSON, &r);
	if (r.signo) /* ^C while asking quits, as ^C between two asks does */
		code = -1;
	else if (r.code || snap_parse(r.out, s))
		code = r.code ? r.code : 1, fputs(r.err, stderr);
	result_free(&r);
	return code;
}

/* Wait @secs; with @keys (a terminal in non-canonical mode on stdin), true when q was typed. */
static bool wait_or_quit(double secs, bool keys)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	struct pollfd pf = { .fd = 0, .events = POLLIN };
	char c;

	if (!keys) {
		nanosleep(&ts, NULL);
		return false;
	}
	if (poll(&pf, 1, (int)(secs * 1000 + 0.5)) == 1 && read(0, &c, 1) == 1)
		return c == 'q' || c == 'Q';
	return false;
}

/* The first rates are measured over this, not over a whole interval (nor shown as 0). */
#define FIRST_SECS 0.25

int top_main(struct backend *b, int argc, char **argv, unsigned flags)
{
	char *dev = NULL, *cmd[3] = { "dev", "stats", NULL };
	struct snap *cur = calloc(1, sizeof(*cur)), *prev = calloc(1, sizeof(*prev)), *tmp;
	struct view v = { .json = flags & MQTX_CTL_F_JSON };
	struct termios saved, raw;
	bool keys = false;
	double ival = 1.0;
	long count = 0;
	int code = 0;

	if (!cur || !prev || top_args(argc, argv, &dev, &ival, &count)) {
		free(cur), free(prev);
		return 1;
	}
	v.tty = !v.json && isatty(1);
	cmd[2] = dev;
	if (v.tty && isatty(0) && !tcgetattr(0, &saved)) {
		/* Keys without Enter, not echoed: q quits. */
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		keys = !tcsetattr(0, TCSANOW, &raw);
	}
	if (v.tty)
		printf("\033[?25l"); /* hide the cursor while drawing */
	code = sample(b, cmd, prev);
	if (!code && !wait_or_quit(ival < FIRST_SECS ? ival : FIRST_SECS, keys)) {
		for (long n = 0; !interrupted && (!count || n < count); n++) {
			code = sample(b, cmd, cur);
			if (code)
				break;
			render(cur, prev, &v, ival);
			snap_free(prev);
			tmp = prev, prev = cur, cur = tmp;
			if ((!count || n + 1 < count) && wait_or_quit(ival, keys))
				break;
		}
	}
	if (v.tty)
		printf("\n\033[?25h");
	if (keys)
		tcsetattr(0, TCSANOW, &saved);
	snap_free(cur), snap_free(prev);
	free(cur), free(prev);
	return code < 0 ? 0 : code;
}

// SPDX-License-Identifier: MIT
// The whatif report: per run totals, queues and flows, as a table with the runs side by side or
// as one JSON document.
#include <stdio.h>
#include <string.h>

#include "ctl/ctl_int.h"
#include "ctl/whatif.h"

static const double pcts[] = { 50, 90, 99, 99.9, 100 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p999", "max" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

/* ---- JSON ---- */

static void json_acc(struct mqtx_buf *out, const struct mqtx_whatif_acc *a)
{
	bool first = true;

	mqtx_buf_printf(out, "\"packets\":%llu,\"sent\":%llu,\"dropped\":%llu,\"drops\":{",
			(unsigned long long)a->packets, (unsigned long long)a->sent,
			(unsigned long long)a->dropped);
	for (unsigned r = 0; r < MQTX_DROP_REASON_MAX; r++) {
		if (!a->drops[r])
			continue;
		mqtx_buf_printf(out, "%s\"%s\":%llu", first ? "" : ",",
				mqtx_drop_reason_name((enum mqtx_drop_reason)r),
				(unsigned long long)a->drops[r]);
		first = false;
	}
	mqtx_buf_printf(out, "},\"bytes\":%llu,\"sent_bytes\":%llu,\"delay_us\":",
			(unsigned long long)a->bytes, (unsigned long long)a->sent_bytes);
	if (!a->delay.n) {
		mqtx_buf_printf(out, "null");
		return;
	}
	for (size_t i = 0; i < NPCT; i++)
		mqtx_buf_printf(out, "%s\"%s\":%.3f", i ? "," : "{", pct_names[i],
				(double)mqtx__whatif_pct(&a->delay, pcts[i]) / 1000);
	mqtx_buf_printf(out, "}");
}

static void json_flow(struct mqtx_buf *out, const struct mqtx_whatif_key *k,
		      const struct mqtx_whatif_acc *a)
{
	char b[64];

	if (!k) {
		mqtx_buf_printf(out, "{\"proto\":\"other\",\"src\":null,\"dst\":null,"
				     "\"sport\":null,\"dport\":null,");
	} else {
		mqtx_buf_printf(out, "{\"proto\":");
		mqtx__buf_json_str(out, mqtx__whatif_proto(k, b, sizeof(b)));
		mqtx_buf_printf(out, ",\"src\":");
		mqtx__buf_json_str(out, mqtx__whatif_addr(k, false, b, sizeof(b)));
		mqtx_buf_printf(out, ",\"dst\":");
		mqtx__buf_json_str(out, mqtx__whatif_addr(k, true, b, sizeof(b)));
		mqtx_buf_printf(out, ",\"sport\":%u,\"dport\":%u,", k->sport, k->dport);
	}
	json_acc(out, a);
	mqtx_buf_printf(out, "}");
}

static void json_run(struct mqtx_buf *out, const struct mqtx_whatif_capture *cap,
		     const struct whatif_run *run)
{
	const struct mqtx_whatif_result *r = run->r;
	bool first = true;

	mqtx_buf_printf(out, "{\"config\":");
	mqtx__buf_json_str(out, run->config);
	mqtx_buf_printf(out, ",\"wall_s\":%.6f,\"virtual_s\":%.9f,\"skipped\":%llu,\"total\":{",
			run->wall_s, (double)r->virtual_ns / 1e9, (unsigned long long)r->skipped);
	json_acc(out, &r->total);
	mqtx_buf_printf(out, "},\"queues\":[");
	for (uint32_t q = 0; q < r->nq; q++) {
		if (!r->queues[q].packets)
			continue;
		mqtx_buf_printf(out, "%s{\"txq\":%u,", first ? "" : ",", q);
		json_acc(out, &r->queues[q]);
		mqtx_buf_printf(out, "}");
		first = false;
	}
	mqtx_buf_printf(out, "],\"flows\":[");
	for (unsigned f = 0; f <= r->nflows; f++) {
		if (f == r->nflows && !r->flows[f].packets)
			break; /* no "other" when every frame is in a flow of the list */
		if (f)
			mqtx_buf_printf(out, ",");
		json_flow(out, f < r->nflows ? &cap->flows[f] : NULL, &r->flows[f]);
	}
	mqtx_buf_printf(out, "]}");
}

/* ---- the table ---- */

#define LABEL_W 22

struct table {
	struct mqtx_buf *out;
	const struct whatif_run *runs;
	unsigned n;
	int w; /* a column's width */
};

/* One row: @label, then per run the value @fn gives (NULL: "-"). */
static void row(struct table *t, const char *label,
		void (*fn)(char *b, size_t len, const struct mqtx_whatif_acc *a, unsigned i),
		const struct mqtx_whatif_acc *const *accs, unsigned i)
{
	char b[48];

	mqtx_buf_printf(t->out, "  %-*s", LABEL_W, label);
	for (unsigned r = 0; r < t->n; r++) {
		if (accs[r])
			fn(b, sizeof(b), accs[r], i);
		else
			snprintf(b, sizeof(b), "-");
		mqtx_buf_printf(t->out, " %*s", t->w, b);
	}
	mqtx_buf_printf(t->out, "\n");
}

static void v_count(char *b, size_t len, const struct mqtx_whatif_acc *a, unsigned i)
{
	const uint64_t v[] = { a->packets, a->sent, a->dropped, a->bytes };

	snprintf(b, len, "%llu", (unsigned long long)v[i]);
}

static void v_drop(char *b, size_t len, const struct mqtx_whatif_acc *a, unsigned i)
{
	snprintf(b, len, "%llu", (unsigned long long)a->drops[i]);
}

static void v_pct(char *b, size_t len, const struct mqtx_whatif_acc *a, unsigned i)
{
	if (!a->delay.n)
		snprintf(b, len, "-");
	else
		snprintf(b, len, "%.3f", (double)mqtx__whatif_pct(&a->delay, pcts[i]) / 1000);
}

/* The rows of one set of frames (a flow, a queue, all), under the line @title. */
static void table_acc(struct table *t, const char *title, const struct mqtx_whatif_acc *const *accs)
{
	static const char *const counts[] = { "packets", "sent", "dropped", "bytes" };
	char label[48];

	mqtx_buf_printf(t->out, "%s\n", title);
	for (unsigned i = 0; i < 3; i++)
		row(t, counts[i], v_count, accs, i);
	for (unsigned d = 0; d < MQTX_DROP_REASON_MAX; d++) {
		bool any = false;

		for (unsigned r = 0; r < t->n; r++)
			any |= accs[r] && accs[r]->drops[d];
		if (!any)
			continue;
		snprintf(label, sizeof(label), "  dropped %s",
			 mqtx_drop_reason_name((enum mqtx_drop_reason)d));
		row(t, label, v_drop, accs, d);
	}
	row(t, counts[3], v_count, accs, 3);
	for (unsigned i = 0; i < NPCT; i++) {
		snprintf(label, sizeof(label), "delay %s (us)", pct_names[i]);
		row(t, label, v_pct, accs, i);
	}
}

static void table(struct mqtx_buf *out, const struct mqtx_whatif_capture *cap,
		  const struct whatif_run *runs, unsigned n)
{
	struct table t = { out, runs, n, 12 };
	const struct mqtx_whatif_acc *accs[WHATIF_CONFIGS_MAX] = { 0 };
	uint32_t nq = 0;
	char b[160];

	for (unsigned r = 0; r < n; r++) {
		if ((int)strlen(runs[r].config) > t.w)
			t.w = (int)strlen(runs[r].config);
		nq = runs[r].r->nq > nq ? runs[r].r->nq : nq;
	}
	mqtx_buf_printf(out, "%-*s", LABEL_W + 2, "");
	for (unsigned r = 0; r < n; r++)
		mqtx_buf_printf(out, " %*s", t.w, runs[r].config);
	mqtx_buf_printf(out, "\n");
	for (unsigned r = 0; r < n; r++)
		accs[r] = &runs[r].r->total;
	table_acc(&t, "total", accs);
	mqtx_buf_printf(out, "  %-*s", LABEL_W, "virtual time (s)");
	for (unsigned r = 0; r < n; r++)
		mqtx_buf_printf(out, " %*.6f", t.w, (double)runs[r].r->virtual_ns / 1e9);
	mqtx_buf_printf(out, "\n  %-*s", LABEL_W, "wall time (s)");
	for (unsigned r = 0; r < n; r++)
		mqtx_buf_printf(out, " %*.3f", t.w, runs[r].wall_s);
	mqtx_buf_printf(out, "\n");
	for (uint32_t q = 0; q < nq; q++) {
		bool any = false;

		for (unsigned r = 0; r < n; r++) {
			const struct mqtx_whatif_result *res = runs[r].r;

			accs[r] = q < res->nq && res->queues[q].packets ? &res->queues[q] : NULL;
			any |= accs[r] != NULL;
		}
		snprintf(b, sizeof(b), "txq %u", q);
		if (any)
			table_acc(&t, b, accs);
	}
	for (unsigned f = 0; f <= cap->nflows; f++) {
		bool any = false;

		for (unsigned r = 0; r < n; r++) {
			accs[r] = &runs[r].r->flows[f];
			any |= accs[r]->packets != 0;
		}
		if (!any)
			continue;
		snprintf(b, sizeof(b), "flow ");
		mqtx__whatif_flow_name(f < cap->nflows ? &cap->flows[f] : NULL, b + 5,
				       sizeof(b) - 5);
		table_acc(&t, b, accs);
	}
}

void mqtx__whatif_print(struct mqtx_buf *out, bool json, const char *path,
			const struct mqtx_whatif_capture *cap, const struct whatif_run *runs,
			unsigned n)
{
	if (!json) {
		mqtx_buf_printf(out,
				"capture %s: %llu frames over %.6f s, %llu flows (the %u biggest "
				"shown)\n",
				path, (unsigned long long)cap->frames, (double)cap->span_ns / 1e9,
				(unsigned long long)cap->tuples, cap->nflows);
		table(out, cap, runs, n);
		return;
	}
	mqtx_buf_printf(out, "{\"capture\":");
	mqtx__buf_json_str(out, path);
	mqtx_buf_printf(out, ",\"runs\":[");
	for (unsigned r = 0; r < n; r++) {
		if (r)
			mqtx_buf_printf(out, ",");
		json_run(out, cap, &runs[r]);
	}
	mqtx_buf_printf(out, "]}\n");
}

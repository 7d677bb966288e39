// SPDX-License-Identifier: MIT
// What-if's picture, written as SVG text: per run the delay CDF of the biggest flows on a log
// axis and the backlog of each queue over time, with labelled axes and a legend.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen/whatif.h"

#define W	 1200
#define ROW_H	 330
#define TOP	 40
#define PANEL_W	 440
#define PANEL_H	 220
#define LEFT	 70 /* room for the y labels */
#define LEGEND_W 80
#define CURVES	 6 /* flows and queues drawn per panel */

static const char *const colours[CURVES] = { "#1f77b4", "#d62728", "#2ca02c",
					     "#ff7f0e", "#9467bd", "#8c564b" };

/* The panel's frame: its origin (top left of the plot area) and size. */
struct panel {
	double x, y, w, h;
	double x0, x1, y1; /* the axes' ranges (x log10 for the CDF) */
};

static double px(const struct panel *p, double v)
{
	return p->x + (v - p->x0) / (p->x1 - p->x0) * p->w;
}

static double py(const struct panel *p, double v)
{
	return p->y + p->h - v / p->y1 * p->h;
}

static void text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	for (; *s; s++) { /* the only characters XML needs escaped in text */
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
	fputs("</text>\n", f);
}

/* The frame, the y ticks (fractions of @p->y1) and the axis titles. */
static void frame(FILE *f, const struct panel *p, const char *xtitle, const char *ytitle,
		  const char *yfmt, double yscale)
{
	char b[64];

	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#444\"/>\n",
		p->x, p->y, p->w, p->h);
	for (int i = 0; i <= 4; i++) {
		double v = p->y1 * i / 4;

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			p->x, py(p, v), p->x + p->w, py(p, v));
		snprintf(b, sizeof(b), yfmt, v * yscale);
		text(f, p->x - 6, py(p, v) + 4, "end", b);
	}
	text(f, p->x + p->w / 2, p->y + p->h + 36, "middle", xtitle);
	fprintf(f, "<g transform=\"translate(%.1f %.1f) rotate(-90)\">", p->x - 52,
		p->y + p->h / 2);
	text(f, 0, 0, "middle", ytitle);
	fputs("</g>\n", f);
}

static void legend(FILE *f, const struct panel *p, int i, const char *label)
{
	double y = p->y + 12 + i * 16;

	fprintf(f,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"2\"/>\n",
		p->x + p->w + 8, y - 4, p->x + p->w + 24, y - 4, colours[i]);
	text(f, p->x + p->w + 28, y, "start", label);
}

/* The decades the delays of the flows drawn span, in µs (log10), over every run. */
static void delay_range(struct mqtx_whatif_result *const *runs, unsigned n, unsigned nflows,
			double *lo, double *hi)
{
	uint64_t mn = UINT64_MAX, mx = 1;

	for (unsigned r = 0; r < n; r++) {
		for (unsigned k = 0; k < nflows; k++) {
			const struct mqtx_whatif_hist *h = &runs[r]->flows[k].delay;

			for (unsigned i = 0; h->n && i < MQTX_WHATIF_HIST_BUCKETS; i++) {
				if (h->b[i]) {
					uint64_t e = mqtx__whatif_hist_edge(i);

					mn = e < mn ? e : mn;
					break;
				}
			}
			mx = h->max > mx ? h->max : mx;
		}
	}
	if (mn == UINT64_MAX || mn < 1)
		mn = 1;
	*lo = floor(log10((double)mn / 1000));
	*hi = ceil(log10((double)mx / 1000));
	if (*hi <= *lo)
		*hi = *lo + 1;
}

static void cdf_panel(FILE *f, struct panel *p, const struct mqtx_whatif_capture *cap,
		      const struct mqtx_whatif_result *r, unsigned nflows)
{
	char b[160];

	p->y1 = 1;
	frame(f, p, "delay (µs, log scale)", "fraction of the flow's frames", "%.2f", 1);
	for (double d = p->x0; d <= p->x1; d++) {
		snprintf(b, sizeof(b), d >= 0 ? "%.0f" : "%g", pow(10, d));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			px(p, d), p->y, px(p, d), p->y + p->h);
		text(f, px(p, d), p->y + p->h + 16, "middle", b);
	}
	for (unsigned k = 0; k < nflows; k++) {
		const struct mqtx_whatif_hist *h = &r->flows[k].delay;
		uint64_t seen = 0;
		double y = 0;

		legend(f, p, (int)k, mqtx__whatif_flow_name(&cap->flows[k], b, sizeof(b)));
		if (!h->n)
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			colours[k]);
		for (unsigned i = 0; i < MQTX_WHATIF_HIST_BUCKETS; i++) {
			uint64_t e = mqtx__whatif_hist_edge(i);
			double x;

			if (!h->b[i])
				continue;
			x = log10((double)(e ? e : 1) / 1000);
			x = x < p->x0 ? p->x0 : x;
			seen += h->b[i];
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", px(p, x), py(p, y), px(p, x),
				py(p, (double)seen / (double)h->n));
			y = (double)seen / (double)h->n;
		}
		fputs("\"/>\n", f);
	}
}

/* The queues drawn: the CURVES with the largest backlog, in queue order. */
static unsigned busiest(const struct mqtx_whatif_result *r, uint32_t *qs, uint64_t *top)
{
	unsigned n = 0;

	*top = 0;
	for (uint32_t q = 0; q < r->nq; q++) {
		uint64_t mx = 0;

		for (unsigned i = 0; i < r->nsamples; i++)
			if (r->backlog[(size_t)q * MQTX_WHATIF_SAMPLES + i] > mx)
				mx = r->backlog[(size_t)q * MQTX_WHATIF_SAMPLES + i];
		if (!mx && q)
			continue;
		if (n < CURVES)
			qs[n++] = q;
		*top = mx > *top ? mx : *top;
	}
	return n;
}

static void backlog_panel(FILE *f, struct panel *p, const struct mqtx_whatif_result *r)
{
	uint32_t qs[CURVES];
	uint64_t top;
	unsigned n = busiest(r, qs, &top);
	double span = (double)r->sample_ns * (r->nsamples ? r->nsamples : 1) / 1e9;
	char b[32];

	p->x0 = 0;
	p->x1 = span;
	p->y1 = top ? (double)top * 1.1 : 1;
	frame(f, p, "virtual time (s)", "qdisc backlog (KB)", "%.1f", 1e-3);
	for (int i = 0; i <= 4; i++) {
		snprintf(b, sizeof(b), "%.3g", span * i / 4);
		text(f, px(p, span * i / 4), p->y + p->h + 16, "middle", b);
	}
	for (unsigned k = 0; k < n; k++) {
		const uint64_t *s = r->backlog + (size_t)qs[k] * MQTX_WHATIF_SAMPLES;

		snprintf(b, sizeof(b), "txq %u", qs[k]);
		legend(f, p, (int)k, b);
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			colours[k]);
		for (unsigned i = 0; i < r->nsamples; i++)
			fprintf(f, "%.1f,%.1f ", px(p, (double)r->sample_ns * i / 1e9),
				py(p, (double)s[i]));
		fputs("\"/>\n", f);
	}
}

int mqtx__whatif_svg(FILE *f, const struct mqtx_whatif_capture *cap,
		     struct mqtx_whatif_result *const *runs, const char *const *names, unsigned n)
{
	unsigned nflows = cap->nflows < CURVES ? cap->nflows : CURVES;
	double lo, hi;
	char b[320];

	delay_range(runs, n, nflows, &lo, &hi);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, TOP + (int)n * ROW_H);
	for (unsigned r = 0; r < n; r++) {
		struct panel cdf = {
			LEFT, TOP + r * ROW_H + 30, PANEL_W - LEGEND_W, PANEL_H, lo, hi, 1
		};
		struct panel bl = { LEFT + 640, cdf.y, PANEL_W - LEGEND_W, PANEL_H, 0, 1, 1 };

		snprintf(b, sizeof(b), "%s: delay CDF of the biggest flows; backlog per queue",
			 names[r]);
		fputs("<g font-size=\"13\" font-weight=\"bold\">", f);
		text(f, LEFT, TOP + r * ROW_H + 14, "start", b);
		fputs("</g>\n", f);
		cdf_panel(f, &cdf, cap, runs[r], nflows);
		backlog_panel(f, &bl, runs[r]);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

// SPDX-License-Identifier: MIT
/* netem's option words as tc reads them (iproute2's q_netem.c): delay, loss models, duplicate,
 * corrupt, reorder, rate, slot, distributions, ecn, limit, and mqtx's seed. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qdisc/netem.h"

/* tc's psched clock: 15.625 ticks of 64 ns per microsecond (/proc/net/psched). */
#define TICKS_PER_US 15.625

/* Where tc's parser looks at the next word (its NEXT_ARG and NEXT_IS_NUMBER). */
struct cursor {
	int argc, i;
	char **argv;
	struct mqtx_extack *ack;
};

/* tc's matches(): @w is a non-empty prefix of @full. */
static bool word_is(const char *w, const char *full)
{
	return *w && !strncmp(w, full, strlen(w));
}

static bool next_is_number(const struct cursor *c, bool sign)
{
	const char *n = c->i + 1 < c->argc ? c->argv[c->i + 1] : NULL;

	return n && (isdigit((unsigned char)n[0]) || (sign && n[0] == '-'));
}

/* The next word, or NULL with tc's message for a command that ends there. */
static const char *next(struct cursor *c)
{
	return mqtx_tc_next_arg(c->argc, c->argv, &c->i, c->ack);
}

/* tc's "Illegal" refusal of option @what, naming the word it could not take. */
static int illegal_word(struct cursor *c, const char *what, const char *word)
{
	return mqtx_extack_set(c->ack, "Illegal \"%s\": \"%s\"", what, word);
}

/* The same for the word at the cursor. */
static int illegal(struct cursor *c, const char *what)
{
	return illegal_word(c, what, c->argv[c->i]);
}

/* parse_percent() then set_percent(): "N" or "N%" percent, 0..100, as a fraction of
 * UINT32_MAX rounded to the nearest. */
static int percent(const char *s, uint32_t *out)
{
	char *end;
	double v = strtod(s, &end) / 100.;

	if (end == s || (*end && strcmp(end, "%")) || !isfinite(v) || v < 0 || v > 1)
		return -EINVAL;
	*out = (uint32_t)rint(v * UINT32_MAX);
	return 0;
}

/* A time in psched ticks (get_ticks): tc's microseconds, then 15.625 ticks each in 32 bits. */
static int ticks(struct cursor *c, const char *s, uint32_t *out, const char *what)
{
	uint64_t ns, us;

	if (mqtx_tc_parse_time(s, &ns))
		return illegal_word(c, what, s);
	us = ns / 1000;
	if (us > UINT32_MAX || (double)us * TICKS_PER_US > UINT32_MAX)
		return mqtx_extack_set(
			c->ack, "Illegal %" PRIu64 " time (too large)\nIllegal \"%s\": \"%s\"", us,
			what, s);
	*out = (uint32_t)((double)us * TICKS_PER_US);
	return 0;
}

/* get_time64(): a number and a unit (s, ms, us, ns and their sec/msec/usec/nsec[s] forms),
 * in ns; a bare number is ns. */
static int time64(const char *s, int64_t *out)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "s", 1e9 },	{ "sec", 1e9 },	  { "secs", 1e9 }, { "ms", 1e6 },
		      { "msec", 1e6 },	{ "msecs", 1e6 }, { "us", 1e3 },   { "usec", 1e3 },
		      { "usecs", 1e3 }, { "ns", 1 },	  { "nsec", 1 },   { "nsecs", 1 } };
	char *end;
	double t = strtod(s, &end);
	size_t i;

	if (end == s || !isfinite(t))
		return -EINVAL;
	for (i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].unit))
			break;
	if (*end && i == sizeof(units) / sizeof(units[0]))
		return -EINVAL;
	t *= *end ? units[i].mult : 1;
	if (t >= 9.2e18 || t <= -9.2e18)
		return -EINVAL;
	*out = (int64_t)t;
	return 0;
}

/* The optional PERCENT words after a value: each is taken while the next word is a number. */
static int opt_percent(struct cursor *c, uint32_t *out, const char *what, bool *present)
{
	if (!next_is_number(c, false))
		return 0;
	c->i++;
	if (present)
		*present = true;
	return percent(c->argv[c->i], out) ? illegal(c, what) : 0;
}

/* A distribution's name: tc reads NAME.dist from its library; mqtx knows the tables tc ships.
 * "uniform" is the kernel's own default (no table), which tc itself has no file for. */
static int dist_name(struct cursor *c, const char *name, uint8_t *out)
{
	static const char *const names[] = { "uniform", "normal", "pareto", "paretonormal" };

	for (unsigned d = 0; d < sizeof(names) / sizeof(names[0]); d++)
		if (!strcmp(name, names[d])) {
			*out = (uint8_t)(NETEM_DIST_NONE + d + 1);
			return 0;
		}
	return mqtx_extack_set(c->ack, "No distribution data for %s", name);
}

static int parse_delay(struct cursor *c, struct netem_opt *o)
{
	const char *v = next(c);

	if (!v)
		return MQTX_TC_EFATAL;
	if (ticks(c, v, &o->latency, "latency"))
		return -EINVAL;
	if (!next_is_number(c, false))
		return 0;
	if (ticks(c, c->argv[++c->i], &o->jitter, "latency"))
		return -EINVAL;
	return opt_percent(c, &o->delay_corr, "latency", &o->has_corr);
}

/* loss [random] P [CORR] | loss state P13 [P31 [P32 [P23 P14]]] | loss gemodel P [R [1-H [1-K]]]
 * Later values of a model are optional: each has tc's default until given. */
static int parse_loss(struct cursor *c, struct netem_opt *o)
{
	static const char *const gi[] = { "loss p31", "loss p32", "loss p23", "loss p14" };
	static const char *const ge[] = { "loss gemodel r", "loss gemodel h", "loss gemodel k" };
	const char *v;
	uint32_t first;

	if (o->loss || o->loss_model != NETEM_LOSS_RANDOM)
		return illegal(c, "duplicate loss argument");
	if (!(v = next(c)))
		return MQTX_TC_EFATAL;
	if (!strcmp(v, "random") && !(v = next(c)))
		return MQTX_TC_EFATAL;
	if (isdigit((unsigned char)v[0]) || !strcmp(c->argv[c->i - 1], "random")) {
		if (percent(v, &o->loss))
			return illegal(c, "loss percent");
		return opt_percent(c, &o->loss_corr, "loss correlation", &o->has_corr);
	}
	if (strcmp(v, "state") && strcmp(v, "gemodel"))
		return mqtx_extack_set(c->ack, "Unknown loss parameter: %s", v);
	if (!strcmp(v, "state")) {
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		if (percent(v, &first))
			return illegal(c, "loss p13");
		o->loss_model = NETEM_LOSS_GI;
		o->clg[0] = first;
		o->clg[1] = UINT32_MAX - first; /* p31 = 1 - p13 */
		o->clg[2] = 0;
		o->clg[3] = UINT32_MAX; /* p23 */
		o->clg[4] = 0;
		for (unsigned k = 0; k < 4 && next_is_number(c, false); k++)
			if (percent(c->argv[++c->i], &o->clg[k + 1]))
				return illegal(c, gi[k]);
		return 0;
	}
	if (!(v = next(c)))
		return MQTX_TC_EFATAL;
	if (percent(v, &first))
		return illegal(c, "loss gemodel p");
	o->loss_model = NETEM_LOSS_GE;
	o->clg[0] = first;
	o->clg[1] = UINT32_MAX - first; /* r = 1 - p */
	o->clg[2] = 0;			/* h: tc's "1-H" is 100% */
	o->clg[3] = 0;
	for (unsigned k = 0; k < 3 && next_is_number(c, false); k++) {
		if (percent(c->argv[++c->i], &o->clg[k + 1]))
			return illegal(c, ge[k]);
		if (k == 1) /* the word is 1-h, the kernel keeps h */
			o->clg[2] = UINT32_MAX - o->clg[2];
	}
	return 0;
}

/* rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]] */
static int parse_rate(struct cursor *c, struct netem_opt *o)
{
	const char *v = next(c);
	uint32_t u;
	long long s;
	char *end;

	if (!v)
		return MQTX_TC_EFATAL;
	o->has_rate = true;
	if (strchr(v, '%') || mqtx_tc_parse_rate(v, &o->rate))
		return illegal(c, "rate");
	for (int k = 0; k < 3; k++) {
		if (!next_is_number(c, k != 1))
			break;
		v = c->argv[++c->i];
		if (k == 1) {
			if (mqtx_tc_parse_u32(v, &u))
				return illegal(c, "rate");
			o->cell_size = u;
			continue;
		}
		s = strtoll(v, &end, 0);
		if (end == v || *end || s < INT32_MIN || s > INT32_MAX)
			return illegal(c, "rate");
		*(k ? &o->cell_overhead : &o->packet_overhead) = (int32_t)s;
	}
	return 0;
}

/* slot MIN [MAX] | slot distribution NAME DELAY JITTER; then [packets N] [bytes SIZE] */
static int parse_slot(struct cursor *c, struct netem_opt *o)
{
	const char *v;
	uint64_t size;
	long long n;
	char *end;

	if (next_is_number(c, false)) {
		o->has_slot = true;
		if (time64(c->argv[++c->i], &o->slot_min))
			return illegal(c, "slot min_delay");
		o->slot_max = o->slot_min;
		if (next_is_number(c, false) &&
		    (time64(c->argv[++c->i], &o->slot_max) || o->slot_max < o->slot_min))
			return illegal(c, "slot max_delay");
	} else {
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		if (strcmp(v, "distribution"))
			return mqtx_extack_set(c->ack, "Unknown slot parameter: %s", v);
		o->has_slot = true;
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		if (dist_name(c, v, &o->slot_dist) || o->slot_dist == 1 + NETEM_DIST_NONE)
			return mqtx_extack_set(c->ack, "No distribution data for %s", v);
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		if (time64(v, &o->slot_dist_delay))
			return illegal(c, "slot delay");
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		if (time64(v, &o->slot_dist_jitter))
			return illegal(c, "slot jitter");
		if (o->slot_dist_jitter <= 0)
			return mqtx_extack_set(c->ack, "Non-positive jitter");
	}
	if (c->i + 1 < c->argc && word_is(c->argv[c->i + 1], "packets")) {
		c->i++;
		v = c->i + 1 < c->argc ? c->argv[c->i + 1] : "";
		n = strtoll(v, &end, 0);
		if (end == v || *end || n < INT32_MIN || n > INT32_MAX)
			return illegal_word(c, "slot packets", v);
		o->slot_packets = (int32_t)n;
		c->i++;
	}
	if (c->i + 1 < c->argc && word_is(c->argv[c->i + 1], "bytes")) {
		c->i++;
		v = c->i + 1 < c->argc ? c->argv[c->i + 1] : "";
		if (mqtx_tc_parse_size(v, &size))
			return illegal_word(c, "slot bytes", v);
		o->slot_bytes = (int32_t)(uint32_t)size;
		c->i++;
	}
	return 0;
}

/* A probability and its optional correlation: duplicate, reorder, corrupt. */
static int parse_prob(struct cursor *c, const char *what, uint32_t *p, uint32_t *corr,
		      bool *corr_present)
{
	const char *v = next(c);

	if (!v)
		return MQTX_TC_EFATAL;
	if (percent(v, p))
		return illegal(c, what);
	return opt_percent(c, corr, what, corr_present);
}

static int parse_seed(struct cursor *c, struct netem_opt *o)
{
	const char *v = next(c);
	char *end;

	if (!v)
		return MQTX_TC_EFATAL;
	errno = 0;
	o->seed = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)v[0]) || *end || errno)
		return illegal(c, "seed");
	o->has_seed = true;
	return 0;
}

/* One option word at c->i (tc's order of matches(): "l" is limit, "d" delay, "s" slot). */
static int parse_word(struct cursor *c, struct netem_opt *o)
{
	const char *w = c->argv[c->i], *v;
	uint64_t size;

	if (word_is(w, "limit")) {
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		if (mqtx_tc_parse_size(v, &size))
			return illegal(c, "limit");
		o->limit = (uint32_t)size;
		return 0;
	}
	if (word_is(w, "latency") || word_is(w, "delay"))
		return parse_delay(c, o);
	if (word_is(w, "loss") || word_is(w, "drop"))
		return parse_loss(c, o);
	if (word_is(w, "ecn")) {
		o->ecn = true;
		return 0;
	}
	if (word_is(w, "reorder")) {
		o->has_reorder = true;
		return parse_prob(c, "reorder", &o->reorder, &o->reorder_corr, &o->has_corr);
	}
	if (word_is(w, "corrupt")) {
		o->has_corrupt = true;
		return parse_prob(c, "corrupt", &o->corrupt, &o->corrupt_corr, &o->has_corr);
	}
	if (word_is(w, "gap")) {
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		return mqtx_tc_parse_u32(v, &o->gap) ? illegal(c, "gap") : 0;
	}
	if (word_is(w, "duplicate"))
		return parse_prob(c, "duplicate", &o->duplicate, &o->dup_corr, NULL);
	if (word_is(w, "distribution")) {
		if (!(v = next(c)))
			return MQTX_TC_EFATAL;
		return dist_name(c, v, &o->dist);
	}
	if (word_is(w, "rate"))
		return parse_rate(c, o);
	if (word_is(w, "slot"))
		return parse_slot(c, o);
	if (strlen(w) > 1 && word_is(w, "seed"))
		return parse_seed(c, o);
	return mqtx_tc_unknown("netem", w, c->ack);
}

/* What tc checks once every word is read; a refusal prints the usage after it. */
static int netem_check(struct netem_opt *o, struct mqtx_extack *ack)
{
	const char *why = NULL;

	if (o->reorder) {
		if (!o->latency)
			why = "reordering not possible without specifying some delay";
		else if (!o->gap)
			o->gap = 1;
	} else if (o->gap) {
		why = "gap specified without reorder probability";
	}
	if (!why && o->ecn && !o->loss && o->loss_model == NETEM_LOSS_RANDOM)
		why = "ecn requested without loss model";
	if (!why && o->dist != NETEM_DIST_KEEP && (!o->latency || !o->jitter))
		why = "distribution specified but no latency and jitter values";
	if (!why)
		return 0;
	mqtx_extack_set(ack, "%s", why);
	return MQTX_TC_EUSAGE;
}

int mqtx__netem_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	struct cursor c = { .argc = argc, .argv = argv, .ack = ack };
	struct netem_opt *o = opt;
	int err;

	o->limit = 1000;
	for (c.i = 0; c.i < argc; c.i++) {
		err = parse_word(&c, o);
		if (err)
			return err;
	}
	return netem_check(o, ack);
}

// SPDX-License-Identifier: MIT
/* taprio's options: tc 6.1's words in and out (q_taprio.c) and the checks of Linux 6.12's
 * taprio_change() that come before its schedule is built. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qdisc/mq.h"
#include "qdisc/sch_taprio.h"
#include <mqtx/tc.h>

/* Clock ids as <time.h> numbers them (tc sends them so). */
static const struct {
	const char *name;
	int32_t id;
} taprio_clocks[] = { { "REALTIME", 0 }, { "TAI", 11 }, { "BOOTTIME", 7 }, { "MONOTONIC", 1 } };

static int taprio_sched_usage(struct mqtx_extack *ack)
{
	mqtx_extack_set(ack, "Usage: ... taprio ... sched-entry <cmd> <gate mask> <interval>");
	return -EINVAL;
}

/* tc's get_u32(.., base) / get_s64(.., 10): the whole word. */
static bool taprio_num(const char *s, int base, int64_t min, int64_t max, int64_t *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, base);
	return !*end && !errno && *v >= min && *v <= max;
}

static int taprio_parse_entry(int argc, char **argv, int *i, struct taprio_opt *o,
			      struct mqtx_extack *ack)
{
	const char *cmd, *mask, *iv;
	int64_t m, t;

	cmd = mqtx_tc_next_arg(argc, argv, i, ack);
	if (!cmd)
		return MQTX_TC_EFATAL;
	if (strcmp(cmd, "S"))
		return taprio_sched_usage(ack);
	mask = mqtx_tc_next_arg(argc, argv, i, ack);
	if (!mask)
		return MQTX_TC_EFATAL;
	if (!taprio_num(mask, 16, 0, UINT32_MAX, &m))
		return taprio_sched_usage(ack);
	iv = mqtx_tc_next_arg(argc, argv, i, ack);
	if (!iv)
		return MQTX_TC_EFATAL;
	if (!taprio_num(iv, 0, 0, UINT32_MAX, &t))
		return taprio_sched_usage(ack);
	if (o->n == TAPRIO_MAX_ENTRIES)
		return mqtx_extack_set(ack, "taprio: more than %d schedule entries",
				       TAPRIO_MAX_ENTRIES);
	o->e[o->n++] = (struct taprio_opt_entry){ 1, (uint32_t)m, (uint32_t)t };
	return 0;
}

/* "map P0 P1 ...", "queues C@O ...", "max-sdu S0 S1 ...": numbers while they parse, at most 16. */
static void taprio_parse_list(int argc, char **argv, int *i, struct taprio_opt *o, char what)
{
	int64_t v;

	for (unsigned idx = 0; idx < MQTX_TC_MAX && *i + 1 < argc; idx++) {
		const char *w = argv[*i + 1];

		if (what == 'q') {
			char buf[32], *at;
			int64_t c;

			if (strlen(w) >= sizeof(buf))
				break;
			strcpy(buf, w);
			at = strchr(buf, '@');
			if (!at)
				break;
			*at = '\0';
			if (!taprio_num(buf, 10, 0, UINT16_MAX, &c) ||
			    !taprio_num(at + 1, 10, 0, UINT16_MAX, &v))
				break;
			o->count[idx] = (uint16_t)c;
			o->offset[idx] = (uint16_t)v;
		} else if (!taprio_num(w, 10, 0, what == 'm' ? 255 : UINT32_MAX, &v)) {
			break;
		} else if (what == 'm') {
			o->map[idx] = (uint8_t)v;
		} else {
			o->max_sdu[idx] = (uint32_t)v;
			o->n_max_sdu = idx + 1;
		}
		(*i)++;
	}
}

static int taprio_clockid(const char *v, int32_t *id, struct mqtx_extack *ack)
{
	const char *n = strncasecmp(v, "CLOCK_", 6) ? v : v + 6;

	for (size_t k = 0; k < sizeof(taprio_clocks) / sizeof(taprio_clocks[0]); k++)
		if (!strcasecmp(n, taprio_clocks[k].name)) {
			*id = taprio_clocks[k].id;
			return 0;
		}
	return mqtx_extack_set(ack,
			       "taprio: illegal value for \"clockid\": \"%s\".\n"
			       "It must be a valid SYS-V id (i.e. CLOCK_TAI)",
			       v);
}

/* One option that takes a value; 1: tc stops reading the words here (a bad base-time or
 * cycle-time: it sends what it has). */
static int taprio_parse_one(struct taprio_opt *o, const char *a, const char *v,
			    struct mqtx_extack *ack)
{
	int64_t x;

	if (!strcmp(a, "num_tc")) {
		if (!taprio_num(v, 10, 0, 255, &x))
			return mqtx_extack_set(ack, "taprio: illegal value for \"num_tc\": \"%s\"",
					       v);
		o->num_tc = (uint8_t)x;
	} else if (!strcmp(a, "base-time") || !strcmp(a, "cycle-time") ||
		   !strcmp(a, "cycle-time-extension")) {
		int64_t *dst = a[0] == 'b' ? &o->base_time : a[10] ? &o->cycle_ext : &o->cycle_time;

		if (*dst && a[0] != 'b')
			return mqtx_extack_set(ack, "taprio: duplicate \"%s\" specification", a);
		if (!taprio_num(v, 10, INT64_MIN, INT64_MAX, &x))
			return 1;
		*dst = x;
	} else if (!strcmp(a, "clockid")) {
		if (o->clockid != -1)
			return mqtx_extack_set(ack, "taprio: duplicate \"clockid\" specification");
		return taprio_clockid(v, &o->clockid, ack);
	} else if (!strcmp(a, "flags") || !strcmp(a, "txtime-delay")) {
		uint32_t *dst = a[0] == 'f' ? &o->flags : &o->txtime_delay;

		if (*dst)
			return mqtx_extack_set(ack, "taprio: duplicate \"%s\" specification", a);
		if (!taprio_num(v, 0, 0, UINT32_MAX, &x))
			return mqtx_extack_set(ack, "taprio: illegal value for \"%s\": \"%s\"", a,
					       v);
		*dst = (uint32_t)x;
	}
	return 0;
}

int mqtx__taprio_parse(int argc, char **argv, void *opt, struct mqtx_extack *ack)
{
	static const char *const valued[] = { "num_tc",	     "base-time",
					      "cycle-time",  "cycle-time-extension",
					      "clockid",     "flags",
					      "txtime-delay" };
	struct taprio_opt *o = opt;

	o->clockid = -1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		bool known = false;
		int err;

		if (!strcmp(a, "map") || !strcmp(a, "queues") || !strcmp(a, "max-sdu")) {
			taprio_parse_list(argc, argv, &i, o,
					  a[1] == 'a' && a[2] == 'p' ? 'm'
					  : a[0] == 'q'		     ? 'q'
								     : 's');
			continue;
		}
		if (!strcmp(a, "sched-entry")) {
			err = taprio_parse_entry(argc, argv, &i, o, ack);
			if (err)
				return err;
			continue;
		}
		if (!strcmp(a, "help"))
			return mqtx_tc_unknown("taprio", a, ack);
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
			known |= !strcmp(a, valued[k]);
		if (!known) /* tc: "Unknown argument", no usage */
			return mqtx_extack_set(ack, "taprio: unknown argument \"%s\"", a);
		v = mqtx_tc_next_arg(argc, argv, &i, ack);
		if (!v)
			return MQTX_TC_EFATAL;
		err = taprio_parse_one(o, a, v, ack);
		if (err < 0)
			return err;
		if (err > 0)
			break;
	}
	return 0;
}

/* What taprio_change() checks before it builds the schedule, in its order. */
int mqtx__taprio_check(struct mqtx_qdisc *q, const struct taprio_opt *o, struct mqtx_extack *ack)
{
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	int err;

	if ((o->flags & TAPRIO_FLAG_TXTIME) && (o->flags & TAPRIO_FLAG_FULL))
		return mqtx_extack_set(ack,
				       "TXTIME_ASSIST and FULL_OFFLOAD are mutually exclusive");
	if (o->flags & ~(TAPRIO_FLAG_TXTIME | TAPRIO_FLAG_FULL))
		return mqtx_extack_set(ack, "Unsupported flags. (flags %#x)", o->flags);
	if (p->configured && p->flags != o->flags)
		return mqtx_extack_set(ack, "sch_taprio: Changing 'flags' of a running schedule is "
					    "not supported");
	if (o->flags & TAPRIO_FLAG_FULL)
		return mqtx_extack_set(ack, "Device does not support taprio offload");
	if (o->flags & TAPRIO_FLAG_TXTIME) {
		/* Linux stamps each frame with its time for an etf child to hold; mqtx has no
		 * etf qdisc, so it runs taprio in software only. */
		mqtx_log(MQTX_LOG_ERR, "taprio: txtime-assist mode (flags 0x1) needs the etf "
				       "qdisc, which mqtx does not have");
		return -EOPNOTSUPP;
	}
	if (!o->num_tc && !p->configured)
		return mqtx_extack_set(ack, "'mqprio' configuration is necessary");
	if (o->num_tc > mqtx_dev_num_txq(q->dev))
		return mqtx_extack_set(ack, "Number of traffic classes is greater than number of "
					    "HW queues");
	if (o->num_tc) {
		err = mqtx__mqprio_validate(q->dev, o->num_tc, o->map, o->count, o->offset, true,
					    ack);
		if (err)
			return err;
	}
	for (uint32_t tc = 0; tc < o->n_max_sdu; tc++)
		if (o->max_sdu[tc] > TAPRIO_MAX_MTU)
			return mqtx_extack_set(ack,
					       "sch_taprio: TC max SDU exceeds device max MTU");
	if (p->configured && o->num_tc &&
	    (o->num_tc != p->num_tc || memcmp(o->map, p->map, sizeof(p->map)) ||
	     memcmp(o->count, p->count, sizeof(p->count)) ||
	     memcmp(o->offset, p->offset, sizeof(p->offset))))
		return mqtx_extack_set(ack, "Changing the traffic mapping of a running schedule "
					    "is not supported");
	return 0;
}

int mqtx__taprio_clock_check(const struct taprio_priv *p, const struct taprio_opt *o,
			     struct mqtx_extack *ack)
{
	if (o->clockid == -1)
		return mqtx_extack_set(ack, "Specifying a 'clockid' is mandatory");
	if (p->configured && p->clockid != o->clockid) {
		mqtx_extack_set(ack, "Changing the 'clockid' of a running schedule is not "
				     "supported");
		return -EOPNOTSUPP;
	}
	return 0;
}

static const char *taprio_clock_name(int32_t id)
{
	for (size_t k = 0; k < sizeof(taprio_clocks) / sizeof(taprio_clocks[0]); k++)
		if (taprio_clocks[k].id == id)
			return taprio_clocks[k].name;
	return "invalid";
}

/* print_schedule() of tc: the times, then (where the schedule has entries) a line per entry,
 * in JSON the array "schedule"; a tab, not a blank, before the times and each entry. */
static void taprio_dump_sched(struct mqtx_dump *d, const struct taprio_sched *s)
{
	char mask[16];

	mqtx_dump_int(d, "base_time", "\tbase-time %" PRId64, s ? s->base_time : 0);
	mqtx_dump_int(d, "cycle_time", "cycle-time %" PRId64, s ? s->cycle_time : 0);
	mqtx_dump_int(d, "cycle_time_extension", "cycle-time-extension %" PRId64,
		      s ? s->cycle_ext : 0);
	if (!s)
		return;
	mqtx_dump_array_begin(d, "schedule");
	mqtx_dump_nl(d);
	for (uint32_t i = 0; i < s->n; i++) {
		snprintf(mask, sizeof(mask), "%#" PRIx32, s->e[i].gate_mask);
		mqtx_dump_obj_begin(d, NULL);
		mqtx_dump_uint(d, "index", "\tindex %" PRIu64, i);
		mqtx_dump_str(d, "cmd", "cmd %s", s->e[i].cmd == 1 ? "S" : "Invalid");
		mqtx_dump_str(d, "gatemask", "gatemask %s", mask);
		mqtx_dump_uint(d, "interval", "interval %" PRIu64, s->e[i].interval);
		mqtx_dump_obj_end(d);
		mqtx_dump_nl(d);
	}
	mqtx_dump_array_end(d);
}

/*
 * taprio_print_opt() of tc 6.x on what Linux 6.12's taprio_dump() reports: the map, the
 * queues (an array of objects in JSON), the clock, the operational schedule, the admin one
 * (under "admin" in JSON: tc's own JSON has it as an object without a name, which is no JSON),
 * then, with an operational schedule, every class's max-sdu and its frame preemption ("fp":
 * express, as Linux reports it where it is not set).
 */
void mqtx__taprio_dump(struct mqtx_qdisc *q, struct mqtx_dump *d)
{
	static const char *const express[MQTX_TC_MAX] = {
		"E", "E", "E", "E", "E", "E", "E", "E", "E", "E", "E", "E", "E", "E", "E", "E",
	};
	struct taprio_priv *p = mqtx_qdisc_priv(q);
	uint32_t map[MQTX_TC_MAX];
	char flags[16];

	for (unsigned i = 0; i < MQTX_TC_MAX; i++)
		map[i] = p->map[i];
	mqtx_dump_uint(d, "tc", "tc %" PRIu64, p->num_tc);
	mqtx_dump_uint_array(d, "map", "map", map, MQTX_TC_MAX);
	mqtx_dump_nl(d);
	mqtx_dump_flag(d, NULL, "queues");
	mqtx_dump_array_begin(d, "queues");
	for (unsigned i = 0; i < p->num_tc; i++) {
		mqtx_dump_obj_begin(d, NULL);
		mqtx_dump_uint(d, "offset", "offset %" PRIu64, p->offset[i]);
		mqtx_dump_uint(d, "count", "count %" PRIu64, p->count[i]);
		mqtx_dump_obj_end(d);
	}
	mqtx_dump_array_end(d);
	mqtx_dump_nl(d);
	mqtx_dump_str(d, "clockid", "clockid %s", taprio_clock_name(p->clockid));
	if (p->flags) {
		snprintf(flags, sizeof(flags), "%#x", p->flags);
		mqtx_dump_str(d, "flags", "flags %s", flags);
	}
	taprio_dump_sched(d, p->oper);
	if (p->admin) {
		mqtx_dump_obj_begin(d, "admin");
		taprio_dump_sched(d, p->admin);
		mqtx_dump_obj_end(d);
	}
	if (p->oper) {
		mqtx_dump_uint_array(d, "max-sdu", "max-sdu", p->max_sdu, MQTX_TC_MAX);
		mqtx_dump_nl(d);
		mqtx_dump_str_array(d, "fp", "fp", express, MQTX_TC_MAX);
		mqtx_dump_nl(d);
	}
}

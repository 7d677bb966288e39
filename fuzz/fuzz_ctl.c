// SPDX-License-Identifier: MIT
// Fuzz the command language on a context of devices: a command that fails changes nothing
// (everything the show commands print is as before, even when its N-th allocation fails), and
// one that succeeds leaves a state whose JSON dumps read back as JSON.
//
// Input: command lines, one per line, run in order on a fresh context. A first line
// "#fail N L" fails the N-th library allocation of line L (counted from 1).
//
// What changes the state by itself is kept out or waited for: jobs (gen, replay) are not run,
// a sim-wifi peer answers a block-ack request only after the default delay (ba-delay,
// ba-timeout and silent peers are not run), and the state is compared only once no session
// waits for its answer.
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mqtx/ctl.h>
#include <mqtx/driver.h>

#include "fuzz.h"
#include "json.h"

#define MAX_LINES 16
#define MAX_LINE  1024

static unsigned long fail_at, allocs; /* fail allocation number fail_at (0: none) */

static void *fi_alloc(size_t size, size_t align, void *arg)
{
	if (fail_at && ++allocs == fail_at)
		return NULL;
	return mqtx_default_alloc(size, align, arg);
}

static const struct mqtx_allocator fi_allocator = { fi_alloc, mqtx_default_free, NULL };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mqtx_set_allocator(&fi_allocator);
	return 0;
}

/* The devices of the fixture of tests/ctl_fixture.h: eth0 (4 queues), lo1 (1), eth16 (16),
 * half0 (4, 2 in use), down0 (2, down). */
static struct mqtx_ctl *make_ctl(void)
{
	static const struct {
		const char *name;
		uint32_t n, real;
		bool up;
	} devs[] = {
		{ "eth0", 4, 0, true },	 { "lo1", 1, 0, true },	   { "eth16", 16, 0, true },
		{ "half0", 4, 2, true }, { "down0", 2, 0, false },
	};
	struct mqtx_ctl *ctl;

	if (mqtx_ctl_new(&ctl))
		abort();
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		struct mqtx_dev_cfg c = { .name = devs[i].name,
					  .ops = &mqtx_null_ops,
					  .num_txq = devs[i].n,
					  .real_num_txq = devs[i].real };
		struct mqtx_dev *d;

		if (mqtx_dev_create(&c, &d) || (devs[i].up && mqtx_dev_open(d)) ||
		    mqtx_ctl_add_dev(ctl, d))
			abort();
	}
	return ctl;
}

/* Run @line; its exit code, and its output appended to @all (when given). */
static int run(struct mqtx_ctl *ctl, const char *line, struct mqtx_buf *all)
{
	struct mqtx_buf out, err;
	int rc;

	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	rc = mqtx_ctl_exec_line(ctl, line, 0, &out, &err);
	if (all && mqtx_buf_printf(all, "$ %s -> %d\n%s", line, rc, out.data ? out.data : ""))
		abort();
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
	return rc;
}

/* Everything the context shows, as text. */
static void dump_once(struct mqtx_ctl *ctl, struct mqtx_buf *all)
{
	char line[128];

	mqtx_buf_init(all);
	run(ctl, "-s -d dev show", all);
	run(ctl, "-s qdisc show", all);
	run(ctl, "-d sta show", all);
	run(ctl, "ba show", all);
	for (struct mqtx_dev *d = mqtx_ctl_dev_next(ctl, NULL); d; d = mqtx_ctl_dev_next(ctl, d)) {
		snprintf(line, sizeof(line), "-s class show dev \"%s\"", mqtx_dev_name(d));
		run(ctl, line, all);
	}
}

/* The state once it is still: no block-ack session waits for the peer's answer (which comes
 * after 100 us), and, where a sim-wifi device is, two dumps in a row agree. */
static void dump(struct mqtx_ctl *ctl, struct mqtx_buf *all)
{
	struct timespec ms = { 0, 1000000 };
	struct mqtx_buf again;

	for (int i = 0;; i++) {
		dump_once(ctl, all);
		FUZZ_CHECK(i < 5000, "a block-ack session got no answer in 5 s:\n%s", all->data);
		if (!strstr(all->data, "kind sim-wifi"))
			return; /* nothing else moves by itself */
		if (!strstr(all->data, " starting")) {
			dump_once(ctl, &again);
			if (!strcmp(all->data, again.data)) {
				mqtx_buf_free(&again);
				return;
			}
			mqtx_buf_free(&again);
		}
		mqtx_buf_free(all);
		nanosleep(&ms, NULL);
	}
}

/* @argv's output as JSON reads back as one JSON value. */
static void check_json_of(struct mqtx_ctl *ctl, int argc, char **argv)
{
	struct mqtx_buf out, err;
	struct json *v;
	int rc;

	mqtx_buf_init(&out);
	mqtx_buf_init(&err);
	rc = mqtx_ctl_exec(ctl, argc, argv, MQTX_CTL_F_JSON | MQTX_CTL_F_STATS, &out, &err);
	FUZZ_CHECK(rc == 0, "%s %s: %d: %s", argv[0], argv[1], rc, err.data ? err.data : "");
	v = json_parse(out.data ? out.data : "");
	FUZZ_CHECK(v, "%s %s: not JSON: %s", argv[0], argv[1], out.data ? out.data : "");
	json_free(v);
	mqtx_buf_free(&out);
	mqtx_buf_free(&err);
}

/* Every JSON dump of the state reads back. */
static void check_json(struct mqtx_ctl *ctl)
{
	char *dev_show[] = { "dev", "show", NULL }, *qdisc_show[] = { "qdisc", "show", NULL };
	char *dev_stats[] = { "dev", "stats", NULL };
	char *sta_show[] = { "sta", "show", NULL }, *ba_show[] = { "ba", "show", NULL };
	char *class_show[] = { "class", "show", "dev", NULL, NULL };

	check_json_of(ctl, 2, dev_show);
	check_json_of(ctl, 2, qdisc_show);
	check_json_of(ctl, 2, dev_stats);
	check_json_of(ctl, 2, sta_show);
	check_json_of(ctl, 2, ba_show);
	for (struct mqtx_dev *d = mqtx_ctl_dev_next(ctl, NULL); d; d = mqtx_ctl_dev_next(ctl, d)) {
		class_show[3] = (char *)mqtx_dev_name(d);
		check_json_of(ctl, 4, class_show);
	}
}

/* Lines that would reach the kernel or the file system are not the language's concern here,
 * nor those that start what changes the state by itself later (see the head of the file). */
static bool allowed(const char *line)
{
	static const char *const words[] = { "tap",    "af_packet", "af_xdp",	  "pcap",  "gen",
					     "replay", "ba-delay",  "ba-timeout", "silent" };
	struct mqtx_buf err;
	char **argv;
	int argc;
	bool ok = true;

	mqtx_buf_init(&err);
	if (mqtx_ctl_split(line, &argc, &argv, &err)) {
		mqtx_buf_free(&err);
		return true; /* a line that does not split runs nothing */
	}
	for (int i = 0; i < argc && ok; i++)
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			ok &= strcmp(argv[i], words[k]) != 0;
	mqtx_ctl_split_free(argv);
	mqtx_buf_free(&err);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[MAX_LINES * MAX_LINE], *p, *nl;
	unsigned long n = 0, fail_line = 0;
	struct mqtx_buf before, after;
	struct mqtx_ctl *ctl;
	unsigned line = 0;

	if (size >= sizeof(text) || memchr(data, '\0', size))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	p = text;
	if (sscanf(p, "#fail %lu %lu", &n, &fail_line) == 2 && (nl = strchr(p, '\n')))
		p = nl + 1;
	ctl = make_ctl();
	dump(ctl, &before); /* what one command leaves is what the next one starts from */
	for (; p && *p && line < MAX_LINES; p = nl, line++) {
		int rc;

		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		if (strlen(p) >= MAX_LINE || !allowed(p))
			continue;
		allocs = 0;
		fail_at = line + 1 == fail_line ? n : 0;
		rc = run(ctl, p, NULL);
		fail_at = 0;
		dump(ctl, &after);
		FUZZ_CHECK(!before.nomem && !after.nomem, "out of memory");
		if (rc)
			FUZZ_CHECK(
				!strcmp(before.data, after.data),
				"\"%s\" failed (%d) but changed the state:\n%s\n--- became ---\n%s",
				p, rc, before.data, after.data);
		else
			check_json(ctl);
		mqtx_buf_free(&before);
		before = after;
	}
	mqtx_buf_free(&before);
	mqtx_ctl_free(ctl);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Snapshots of everything a control context shows and holds, to prove a command changed nothing. */
#ifndef MQTX_TEST_CTL_SNAP_H
#define MQTX_TEST_CTL_SNAP_H

#include <time.h>

#include "core/core.h"
#include "ctl/ctl_int.h"
#include "ctl_fixture.h"

#define SNAP_DEVS 16
#define SNAP_TXQ  16

/* What a device holds, read from the inside: the objects themselves, not their printouts. */
struct dev_snap {
	struct mqtx_dev *dev;
	bool up;
	uint32_t num_txq, real_num_txq;
	struct mqtx_qdisc *sleeping[SNAP_TXQ], *active[SNAP_TXQ];
	unsigned state[SNAP_TXQ];
	struct mqtx_qdisc *root, *ingress;
	const struct mqtx_qdisc_ops *dflt;
	uint32_t autohandle;
	bool has_tc;
	struct mqtx_tc_map tc;
	struct mqtx_hasher *hasher;
	struct mqtx_hook *hooks[MQTX_HOOK_MAX];
	struct mqtx_hash_cfg hash;
	struct mqtx_dev_stats st;
};

struct ctl_snap {
	unsigned ndevs;
	struct dev_snap d[SNAP_DEVS];
	char *text; /* every show command's output, concatenated */
};

/* The commands whose output is the observable state; per device: "class show dev NAME". */
static const char *const snap_cmds[] = {
	"-s dev show", "-s -j dev show", "-s qdisc show", "-s -j qdisc show",
	"gen show",    "replay show",	 "-d sta show",	  "ba show",
};

static void snap_append(char **text, const char *s)
{
	size_t a = *text ? strlen(*text) : 0, b = strlen(s);

	*text = realloc(*text, a + b + 1);
	assert_non_null(*text);
	memcpy(*text + a, s, b + 1);
}

static void snap_run(struct mqtx_ctl *ctl, const char *cmd, char **text)
{
	char *out;

	assert_int_equal(fixture_run(ctl, cmd, &out, NULL), 0);
	snap_append(text, "$ ");
	snap_append(text, cmd);
	snap_append(text, "\n");
	snap_append(text, out);
	free(out);
}

static void snap_dev(struct mqtx_dev *dev, struct dev_snap *d)
{
	struct mqtx_tc_map *tc = atomic_load(&dev->tc);

	assert_true(dev->num_txq <= SNAP_TXQ);
	d->dev = dev;
	d->up = mqtx_dev_is_up(dev);
	d->num_txq = dev->num_txq;
	d->real_num_txq = mqtx_dev_real_num_txq(dev);
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		d->sleeping[i] = dev->txq[i].qdisc_sleeping;
		d->active[i] = atomic_load(&dev->txq[i].qdisc);
		d->state[i] = mqtx_txq_state(&dev->txq[i]);
	}
	d->root = dev->qtree.root;
	d->ingress = dev->rxq.qdisc;
	d->dflt = dev->qtree.dflt;
	d->autohandle = dev->qtree.autohandle;
	d->has_tc = tc != NULL;
	if (tc)
		d->tc = *tc;
	d->hasher = atomic_load(&dev->hasher);
	for (unsigned p = 0; p < MQTX_HOOK_MAX; p++)
		d->hooks[p] = atomic_load(&dev->hooks[p]);
	mqtx_dev_hash_cfg(dev, &d->hash);
	mqtx_dev_get_stats(dev, &d->st);
}

static void snap_take(struct mqtx_ctl *ctl, struct ctl_snap *s)
{
	char cmd[64];

	memset(s, 0, sizeof(*s));
	assert_true(ctl->ndevs <= SNAP_DEVS);
	s->ndevs = ctl->ndevs;
	for (unsigned i = 0; i < ctl->ndevs; i++)
		snap_dev(ctl->devs[i], &s->d[i]);
	for (size_t i = 0; i < sizeof(snap_cmds) / sizeof(snap_cmds[0]); i++)
		snap_run(ctl, snap_cmds[i], &s->text);
	for (unsigned i = 0; i < ctl->ndevs; i++) {
		const char *name = mqtx_dev_name(ctl->devs[i]);

		snprintf(cmd, sizeof(cmd), "-s class show dev %s", name);
		snap_run(ctl, cmd, &s->text);
		/* the filters of the root, of the egress and ingress hooks */
		snprintf(cmd, sizeof(cmd), "-s filter show dev %s", name);
		snap_run(ctl, cmd, &s->text);
		snprintf(cmd, sizeof(cmd), "-s -j filter show dev %s egress", name);
		snap_run(ctl, cmd, &s->text);
		snprintf(cmd, sizeof(cmd), "-s filter show dev %s ingress", name);
		snap_run(ctl, cmd, &s->text);
	}
}

static void snap_free(struct ctl_snap *s)
{
	free(s->text);
	s->text = NULL;
}

/* The first line where @a and @b differ, for the failure message. */
static void text_diff(const char *a, const char *b, char *buf, size_t len)
{
	size_t line = 1, i = 0, start = 0;

	for (; a[i] && a[i] == b[i]; i++)
		if (a[i] == '\n')
			line++, start = i + 1;
	snprintf(buf, len, "line %zu: \"%.120s\" became \"%.120s\"", line, a + start, b + start);
}

static bool snap_same(const struct ctl_snap *a, const struct ctl_snap *b, char *why, size_t len)
{
	if (strcmp(a->text, b->text)) {
		text_diff(a->text, b->text, why, len);
		return false;
	}
	if (a->ndevs != b->ndevs) {
		snprintf(why, len, "the context's devices changed");
		return false;
	}
	for (unsigned i = 0; i < a->ndevs; i++) {
		if (memcmp(&a->d[i], &b->d[i], sizeof(a->d[i]))) {
			snprintf(why, len, "device %s changed inside", mqtx_dev_name(a->d[i].dev));
			return false;
		}
	}
	return true;
}

static bool jobs_running(struct mqtx_ctl *ctl)
{
	char *g, *r;
	bool running;

	assert_int_equal(fixture_run(ctl, "gen show", &g, NULL), 0);
	assert_int_equal(fixture_run(ctl, "replay show", &r, NULL), 0);
	running = strstr(g, " running ") || strstr(r, " running ");
	free(g);
	free(r);
	return running;
}

static bool drivers_busy(struct mqtx_ctl *ctl)
{
	for (unsigned i = 0; i < ctl->ndevs; i++) {
		struct mqtx_dev *dev = ctl->devs[i];

		for (uint32_t q = 0; q < dev->num_txq; q++) {
			struct mqtx_txq_stats st;

			mqtx_txq_get_stats(&dev->txq[q], &st);
			if (st.bql_inflight ||
			    (dev->ops->inflight && dev->ops->inflight(dev, &dev->txq[q])))
				return true;
		}
	}
	return false;
}

/* A block-ack session waits for the (simulated) peer's answer. */
static bool ba_starting(struct mqtx_ctl *ctl)
{
	char *b;
	bool starting;

	assert_int_equal(fixture_run(ctl, "ba show", &b, NULL), 0);
	starting = strstr(b, " starting ") != NULL;
	free(b);
	return starting;
}

/*
 * Wait until nothing of @ctl moves by itself: no generator or replay runs (their counters are
 * final), no driver holds a packet (a sim device completes its ring from its own thread) and
 * no block-ack session waits for its answer.
 */
static void settle(struct mqtx_ctl *ctl)
{
	const struct timespec tick = { 0, 2000000 };

	for (int n = 0; n < 5000; n++) {
		if (!jobs_running(ctl) && !drivers_busy(ctl) && !ba_starting(ctl)) {
			/* The completion that emptied a ring frees its packets after it. */
			nanosleep(&tick, NULL);
			return;
		}
		nanosleep(&tick, NULL);
	}
	fail_msg("jobs or drivers still busy after 10 s");
}

#endif

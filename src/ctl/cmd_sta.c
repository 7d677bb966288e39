// SPDX-License-Identifier: MIT
/* The sta and ba commands: the stations (peers) of a Wi-Fi device, and their block-ack
 * sessions, as iw's "station" and "tx-agg" commands handle them on a mac80211 device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqtx/tc.h>
#include <mqtx/wme.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"

/* The words of a sta or ba command. */
struct sta_args {
	const char *dev;
	uint8_t addr[6];
	bool has_addr, has_tid, has_reserved;
	bool qos; /* on unless given */
	uint32_t tid;
	int reserved; /* -1: none */
};

/* A reserved TID: a number up to INT8_MAX, or none (-1), into an int. */
static int parse_reserved(const char *v, void *field, const struct tc_opt *o)
{
	uint32_t x;

	if (!strcmp(v, "none")) {
		*(int *)field = -1;
		return 0;
	}
	if (mqtx__tc_opt_dec(v, &x, o))
		return -EINVAL;
	*(int *)field = (int)x;
	return 0;
}

#define ARG(m) offsetof(struct sta_args, m)

static const struct tc_opt sta_opts[] = {
	{ "dev", mqtx__tc_opt_str, ARG(dev) },
	{ "qos", mqtx__tc_opt_onoff, ARG(qos) },
	{ "tid", mqtx__tc_opt_dec, ARG(tid), .given = TC_OPT_GIVEN(struct sta_args, has_tid) },
	{ "reserved-tid", parse_reserved, ARG(reserved), .max = INT8_MAX,
	  .given = TC_OPT_GIVEN(struct sta_args, has_reserved) },
};

/* A word with a value; @what names the command in messages ("sta add"). 0 or -1. */
static int sta_word(struct sta_args *a, const char *what, const char *w, const char *v,
		    struct mqtx_buf *err)
{
	const struct tc_opt *o = mqtx__tc_opt_find(sta_opts, ARRAY_SIZE(sta_opts), w);
	struct mqtx_extack ack = { "" };

	if (!strcmp(w, "addr") || !strcmp(w, "sta")) {
		/* the library's parser: its message names the bad part */
		if (mqtx_wme_mac_parse(v, a->addr, &ack)) {
			mqtx_buf_printf(err, "%s: %s\n", what, ack.msg);
			return -1;
		}
		a->has_addr = true;
	} else if (!o) {
		mqtx_buf_printf(err, "%s: what is \"%s\"? Try \"mqtx %.3s help\".\n", what, w,
				what);
		return -1;
	} else if (mqtx__tc_opt_apply(o, v, a)) {
		mqtx_buf_printf(err, "%s: invalid %s \"%s\"\n", what, w, v);
		return -1;
	}
	return 0;
}

/* The first word of @need (" dev addr ") that @a lacks, as the usage spells it; NULL: none. */
static const char *missing_word(const struct sta_args *a, const char *need)
{
	if (strstr(need, " dev ") && !a->dev)
		return "dev NAME";
	if (strstr(need, " addr ") && !a->has_addr)
		return "addr MAC";
	if (strstr(need, " sta ") && !a->has_addr)
		return "sta MAC";
	if (strstr(need, " tid ") && !a->has_tid)
		return "tid TID";
	if (strstr(need, " reserved-tid ") && !a->has_reserved)
		return "reserved-tid TID";
	return NULL;
}

/*
 * Parse @argc words into @a; @need and @allow list the words the command must and may have
 * ("dev addr"). Returns 0, or MQTX_TC_EXIT_PARSE after a message.
 */
static int sta_parse(struct sta_args *a, const char *what, int argc, char **argv, const char *need,
		     const char *allow, struct mqtx_buf *err)
{
	const char *missing;
	char word[16];

	memset(a, 0, sizeof(*a));
	a->qos = true;
	a->reserved = -1;
	for (int i = 0; i < argc; i += 2) {
		snprintf(word, sizeof(word), " %s ", argv[i]);
		if (!strstr(allow, word) && !strstr(need, word)) {
			mqtx_buf_printf(err, "%s: what is \"%s\"? Try \"mqtx %.3s help\".\n", what,
					argv[i], what);
			return MQTX_TC_EXIT_PARSE;
		}
		if (i + 1 >= argc) {
			mqtx_buf_printf(err, "%s: \"%s\" needs a value\n", what, argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		if (sta_word(a, what, argv[i], argv[i + 1], err))
			return MQTX_TC_EXIT_PARSE;
	}
	missing = missing_word(a, need);
	if (missing) {
		mqtx_buf_printf(err, "%s: \"%s\" is required\n", what, missing);
		return MQTX_TC_EXIT_PARSE;
	}
	return 0;
}

/* The library's refusal, as "sta add: why". */
static int refused(const struct mqtx_ctl_call *c, const char *what, int err,
		   const struct mqtx_extack *ack)
{
	mqtx_buf_printf(c->err, "%s: %s\n", what, ack->msg[0] ? ack->msg : mqtx_strerror(err));
	return MQTX_TC_EXIT_REFUSED;
}

/* ---- sta show, ba show: the stations of a device, sorted by address ---- */

struct sta_list {
	struct mqtx_wme_sta_info *v;
	size_t n, cap;
	bool nomem;
};

static void collect(const struct mqtx_wme_sta_info *info, void *arg)
{
	struct sta_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct mqtx_wme_sta_info *v = l->nomem ? NULL : mqtx__alloc(cap * sizeof(*v));

		if (!v) {
			l->nomem = true;
			return;
		}
		if (l->n)
			memcpy(v, l->v, l->n * sizeof(*v));
		mqtx__free(l->v);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *info;
}

static int by_addr(const void *a, const void *b)
{
	return memcmp(((const struct mqtx_wme_sta_info *)a)->addr,
		      ((const struct mqtx_wme_sta_info *)b)->addr, 6);
}

/* A station: its line and its sessions' (with @all every TID's, else the active ones), or its
 * JSON object with every TID. */
static void sta_show_one(struct mqtx_dev *dev, const struct mqtx_wme_sta_info *s, bool all,
			 struct tc_out *p)
{
	char mac[18];

	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_JSON, "dev", NULL, mqtx_dev_name(dev));
	mqtx__out_str(p, OUT_ANY, "addr", "sta %s", mqtx_wme_mac_format(s->addr, mac));
	mqtx__out_str(p, OUT_FP, NULL, " dev %s", mqtx_dev_name(dev));
	mqtx__out_str(p, OUT_FP, NULL, " qos %s", s->qos ? "on" : "off");
	mqtx__out_bool(p, OUT_JSON, "qos", NULL, s->qos);
	if (s->reserved_tid < 0)
		mqtx__out_null(p, "reserved_tid", " reserved-tid none");
	else
		mqtx__out_int(p, OUT_ANY, "reserved_tid", " reserved-tid %lld", s->reserved_tid);
	mqtx__out_nl(p);
	mqtx__out_open_array(p, "tids");
	for (unsigned t = 0; t < MQTX_WME_NUM_TIDS; t++) {
		bool shown = all || s->ba_state[t] != MQTX_WME_BA_IDLE;
		unsigned to = shown ? OUT_ANY : OUT_JSON;

		mqtx__out_open(p, NULL);
		mqtx__out_uint(p, to, "tid", "    tid %llu", t);
		mqtx__out_str(p, to, "ba", " ba %s",
			      mqtx_wme_ba_state_name((enum mqtx_wme_ba_state)s->ba_state[t]));
		if (s->ba_queue[t] != MQTX_WME_QUEUE_NONE)
			mqtx__out_uint(p, to, "queue", " queue %llu", s->ba_queue[t]);
		else
			mqtx__out_null(p, "queue", NULL);
		mqtx__out_close(p);
		if (shown)
			mqtx__out_nl(p);
	}
	mqtx__out_close_array(p);
	mqtx__out_close(p);
}

/* "ba show": one line (object) per session that is not idle; with -s also each TID with ADDBA
 * requests since the last accepted one, and their count. */
static void ba_lines(struct mqtx_dev *dev, const struct mqtx_wme_sta_info *s, struct tc_out *p)
{
	char mac[18];

	mqtx_wme_mac_format(s->addr, mac);
	for (unsigned t = 0; t < MQTX_WME_NUM_TIDS; t++) {
		const char *name = mqtx_wme_ba_state_name((enum mqtx_wme_ba_state)s->ba_state[t]);
		unsigned req = t < MQTX_WME_NUM_UP ? s->addba_requests[t] : 0;
		bool idle = s->ba_state[t] == MQTX_WME_BA_IDLE;

		if (idle && !(p->stats && req))
			continue;
		mqtx__out_open(p, NULL);
		mqtx__out_str(p, OUT_ANY, "dev", "ba dev %s", mqtx_dev_name(dev));
		mqtx__out_str(p, OUT_ANY, "sta", " sta %s", mac);
		mqtx__out_uint(p, OUT_ANY, "tid", " tid %llu", t);
		mqtx__out_str(p, OUT_ANY, "state", " %s", name);
		if (idle)
			mqtx__out_null(p, "queue", NULL);
		else
			mqtx__out_uint(p, OUT_ANY, "queue", " queue %llu", s->ba_queue[t]);
		if (p->stats)
			mqtx__out_uint(p, OUT_ANY, "addba_requests", " addba-requests %llu", req);
		mqtx__out_close(p);
		mqtx__out_nl(p);
	}
}

/* Print the stations of @dev (only @a->addr when given); @n counts JSON objects printed. */
static int show_dev(const struct mqtx_ctl_call *c, struct mqtx_dev *dev, const struct sta_args *a,
		    bool ba, struct tc_out *p)
{
	struct sta_list l = { 0 };

	if (mqtx_wme_sta_walk(dev, collect, &l) < 0 || l.nomem) {
		mqtx__free(l.v);
		mqtx_buf_printf(c->err, "%s show: %s\n", c->argv[0], mqtx_strerror(-ENOMEM));
		return MQTX_TC_EXIT_REFUSED;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_addr);
	for (size_t i = 0; i < l.n; i++) {
		if (a->has_addr && memcmp(l.v[i].addr, a->addr, 6))
			continue;
		if (ba)
			ba_lines(dev, &l.v[i], p);
		else
			sta_show_one(dev, &l.v[i], p->details, p);
	}
	mqtx__free(l.v);
	return MQTX_TC_EXIT_OK;
}

/* "sta show [ dev NAME [ addr MAC ] ]", "ba show [ dev NAME ]": without dev, every Wi-Fi
 * device's. */
static int sta_show(const struct mqtx_ctl_call *c, const struct sta_args *a, bool ba)
{
	struct mqtx_wme_sta_info info;
	struct mqtx_dev *dev = NULL;
	int rc = MQTX_TC_EXIT_OK;
	struct tc_out p;

	if (a->has_addr && !a->dev) {
		mqtx_buf_printf(c->err, "%s show: addr needs \"dev NAME\"\n", c->argv[0]);
		return MQTX_TC_EXIT_PARSE;
	}
	if (a->dev && !(dev = mqtx_ctl_call_dev(c, a->dev)))
		return MQTX_TC_EXIT_PARSE;
	if (dev && !mqtx_wme_enabled(dev)) {
		mqtx_buf_printf(c->err, "%s show: device %s is not a Wi-Fi device (no WME)\n",
				c->argv[0], a->dev);
		return MQTX_TC_EXIT_REFUSED;
	}
	if (a->has_addr && mqtx_wme_sta_get(dev, a->addr, &info)) {
		char mac[18];

		mqtx_buf_printf(c->err, "%s show: unknown station %s on %s\n", c->argv[0],
				mqtx_wme_mac_format(a->addr, mac), a->dev);
		return MQTX_TC_EXIT_REFUSED;
	}
	mqtx__out_init(&p, c->out, c->flags & MQTX_CTL_F_JSON, c->flags & MQTX_CTL_F_STATS,
		       c->flags & MQTX_CTL_F_DETAILS);
	mqtx__out_open_array(&p, NULL);
	for (unsigned i = 0; i < c->ctl->ndevs && !rc; i++)
		if (dev ? c->ctl->devs[i] == dev : mqtx_wme_enabled(c->ctl->devs[i]))
			rc = show_dev(c, c->ctl->devs[i], a, ba, &p);
	mqtx__out_close_array(&p);
	mqtx__out_end(&p);
	return rc;
}

/* ---- the verbs that change a station: sta's and ba's ---- */

/* The library's calls that change a station. */
enum sta_op { OP_STA_ADD, OP_STA_DEL, OP_STA_SET, OP_BA_START, OP_BA_STOP };

/* A verb that changes a station: the words it must and may have (sta_parse()'s), and the
 * library's call that does it. */
struct sta_verb {
	const char *word, *alias; /* alias: another spelling, or NULL */
	const char *need, *allow;
	enum sta_op op;
};

static int sta_run(enum sta_op op, struct mqtx_dev *dev, const struct sta_args *a,
		   struct mqtx_extack *ack)
{
	switch (op) {
	case OP_STA_ADD:
		return mqtx_wme_sta_add(dev, a->addr, a->qos, ack);
	case OP_STA_DEL:
		return mqtx_wme_sta_del(dev, a->addr, ack);
	case OP_STA_SET:
		return mqtx_wme_sta_set_reserved_tid(dev, a->addr, a->reserved, ack);
	case OP_BA_START:
		return mqtx_wme_ba_start(dev, a->addr, a->tid, ack);
	case OP_BA_STOP:
		return mqtx_wme_ba_stop(dev, a->addr, a->tid, ack);
	}
	return -EINVAL; /* no other op */
}

/* sta or ba: its usage, the words its show may have, the verbs that change a station. */
struct sta_object {
	const char *name;
	void (*usage)(struct mqtx_buf *b);
	const char *show_allow;
	bool ba; /* show lists block-ack sessions */
	const struct sta_verb *verbs;
	size_t nverbs;
};

/* "OBJECT help" (or help last), "OBJECT show", or a verb of @o that changes a station. */
static int sta_command(const struct mqtx_ctl_call *c, const struct sta_object *o)
{
	const char *verb;
	const struct mqtx_ctl_call w = mqtx__ctl_after_verb(c, "show", &verb);
	const struct sta_verb *v = NULL;
	struct mqtx_extack ack = { "" };
	char what[16], show[16];
	struct mqtx_dev *dev;
	struct sta_args a;
	int rc, err;

	snprintf(what, sizeof(what), "%s %s", o->name, verb);
	if (mqtx__ctl_asks_help(verb, &w)) {
		o->usage(c->out);
		return MQTX_TC_EXIT_OK;
	}
	if (!strcmp(verb, "show") || !strcmp(verb, "list") || !strcmp(verb, "ls")) {
		snprintf(show, sizeof(show), "%s show", o->name);
		rc = sta_parse(&a, show, w.argc, w.argv, " ", o->show_allow, c->err);
		return rc ? rc : sta_show(c, &a, o->ba);
	}
	for (size_t i = 0; i < o->nverbs && !v; i++)
		if (!strcmp(verb, o->verbs[i].word) ||
		    (o->verbs[i].alias && !strcmp(verb, o->verbs[i].alias)))
			v = &o->verbs[i];
	if (!v)
		return mqtx__ctl_unknown_verb(c->err, o->name, verb, MQTX_TC_EXIT_PARSE);
	rc = sta_parse(&a, what, w.argc, w.argv, v->need, v->allow, c->err);
	if (rc)
		return rc;
	dev = mqtx_ctl_call_dev(c, a.dev);
	if (!dev)
		return MQTX_TC_EXIT_PARSE;
	if (mqtx__ctl_may_change_dev(c, what, dev))
		return MQTX_TC_EXIT_REFUSED;
	err = sta_run(v->op, dev, &a, &ack);
	return err ? refused(c, what, err, &ack) : MQTX_TC_EXIT_OK;
}

/* ---- sta and ba ---- */

static void sta_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(b, "Usage: mqtx sta add dev NAME addr MAC [ qos { on | off } ]\n"
			   "       mqtx sta del dev NAME addr MAC\n"
			   "       mqtx sta set dev NAME addr MAC reserved-tid { TID | none }\n"
			   "       mqtx [ -j ] [ -d ] sta show [ dev NAME [ addr MAC ] ]\n"
			   "MAC := xx:xx:xx:xx:xx:xx (a unicast address); TID := 0..7; qos on: the "
			   "peer has WMM.\n");
}

static void ba_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(b, "Usage: mqtx ba { start | stop } dev NAME sta MAC tid TID\n"
			   "       mqtx [ -j ] [ -s ] ba show [ dev NAME ]\n"
			   "TID := 0..7. A session starts when the peer accepts it (starting "
			   "until then).\n");
}

static const struct sta_verb sta_verbs[] = {
	{ "add", NULL, " dev addr ", " qos ", OP_STA_ADD },
	{ "del", "delete", " dev addr ", " ", OP_STA_DEL },
	{ "set", NULL, " dev addr reserved-tid ", " ", OP_STA_SET },
}, ba_verbs[] = {
	{ "start", NULL, " dev sta tid ", " ", OP_BA_START },
	{ "stop", NULL, " dev sta tid ", " ", OP_BA_STOP },
};

static const struct sta_object sta = { "sta", sta_usage, " dev addr ",
				       false, sta_verbs, ARRAY_SIZE(sta_verbs) };
static const struct sta_object ba = {
	"ba", ba_usage, " dev ", true, ba_verbs, ARRAY_SIZE(ba_verbs)
};

int mqtx__ctl_cmd_sta(const struct mqtx_ctl_call *c, void *arg)
{
	(void)arg;
	return sta_command(c, &sta);
}

int mqtx__ctl_cmd_ba(const struct mqtx_ctl_call *c, void *arg)
{
	(void)arg;
	return sta_command(c, &ba);
}

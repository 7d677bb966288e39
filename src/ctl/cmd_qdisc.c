// SPDX-License-Identifier: MIT
/* "qdisc add|replace|change|del|show" and "class show": tc's grammar, messages and output. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ctl/ctl_int.h"
#include "sched/qtree.h"
#include <mqtx/tc.h>

/* ---- printing ---- */

struct show {
	struct mqtx_ctl_call *a;
	struct mqtx_dev *dev;
	bool all_devs, json, stats, details;
	unsigned count; /* objects printed (JSON commas) */
};

/* The counters; without @basic (a class with queue counters only) no bytes and packets sent,
 * as tc's print_tcstats2_attr() without TCA_STATS_BASIC. */
static void print_counters(struct show *s, const struct mqtx_qdisc_stats *st, bool basic)
{
	char b[MQTX_TC_BUF];

	if (s->json) {
		if (basic)
			mqtx_buf_printf(s->a->out, ",\"bytes\":%" PRIu64 ",\"packets\":%" PRIu64,
					st->bytes, st->packets);
		mqtx_buf_printf(s->a->out,
				",\"drops\":%" PRIu64 ",\"overlimits\":%" PRIu64
				",\"requeues\":%" PRIu64 ",\"backlog\":%" PRIu64 ",\"qlen\":%u",
				st->drops, st->overlimits, st->requeues, st->backlog, st->qlen);
		return;
	}
	if (basic)
		mqtx_buf_printf(s->a->out, " Sent %" PRIu64 " bytes %" PRIu64 " pkt", st->bytes,
				st->packets);
	mqtx_tc_print_size(b, sizeof(b), st->backlog);
	mqtx_buf_printf(s->a->out,
			" (dropped %" PRIu64 ", overlimits %" PRIu64 " requeues %" PRIu64 ") \n"
			" backlog %s %up requeues %" PRIu64 "\n",
			st->drops, st->overlimits, st->requeues, b, st->qlen, st->requeues);
}

static void print_stats(struct show *s, const struct mqtx_qdisc_stats *st)
{
	print_counters(s, st, true);
}

/* The xstats of @q (@minor 0) or of its class @minor: tc prints them after the counters. */
static void print_xstats(struct show *s, struct mqtx_qdisc *q, uint32_t minor)
{
	char text[512], json[1024];
	int n = minor ? mqtx_class_dump_xstats(q, minor, text, sizeof(text), json, sizeof(json))
		      : mqtx_qdisc_dump_xstats(q, text, sizeof(text), json, sizeof(json));

	if (n > 0)
		mqtx_buf_printf(s->a->out, s->json ? ",%s" : "%s\n", s->json ? json : text);
}

/* The head of a qdisc or class line/object: kind, handle, dev, parent. */
static void print_head(struct show *s, const char *what, const char *kind, const char *handle,
		       uint32_t parent)
{
	struct mqtx_buf *o = s->a->out;
	char pb[16];

	if (s->json) {
		mqtx_buf_printf(o, "%s{\"%s\":\"%s\",\"handle\":\"%s\"", s->count++ ? "," : "",
				what, kind, handle);
		if (s->all_devs)
			mqtx_buf_printf(o, ",\"dev\":\"%s\"", mqtx_dev_name(s->dev));
		if (parent == MQTX_H_ROOT)
			mqtx_buf_printf(o, ",\"root\":true");
		else if (parent)
			mqtx_buf_printf(o, ",\"parent\":\"%s\"",
					mqtx__classid_fmt(parent, pb, sizeof(pb)));
		return;
	}
	mqtx_buf_printf(o, "%s %s %s", what, kind, handle);
	if (s->all_devs)
		mqtx_buf_printf(o, " dev %s", mqtx_dev_name(s->dev));
	if (parent == MQTX_H_ROOT)
		mqtx_buf_printf(o, " root");
	else if (parent)
		mqtx_buf_printf(o, " parent %s", mqtx__classid_fmt(parent, pb, sizeof(pb)));
}

static void print_qdisc(struct show *s, struct mqtx_qdisc *q)
{
	char handle[16], text[2048] = "", json[4096] = "";
	uint32_t refcnt = mqtx__qdisc_refcnt(s->dev, q);
	struct mqtx_qdisc_stats st;

	if (mqtx_qdisc_dump_options(q, s->details ? MQTX_DUMP_F_DETAILS : 0, text, sizeof(text),
				    json, sizeof(json)) < 0)
		text[0] = json[0] = 0;
	snprintf(handle, sizeof(handle), "%x:", q->handle >> 16);
	print_head(s, s->json ? "kind" : "qdisc", q->ops->id, handle, q->parent);
	if (s->json) {
		if (refcnt != 1)
			mqtx_buf_printf(s->a->out, ",\"refcnt\":%u", refcnt);
		if (q->ingress_block)
			mqtx_buf_printf(s->a->out, ",\"ingress_block\":%u", q->ingress_block);
		if (q->egress_block)
			mqtx_buf_printf(s->a->out, ",\"egress_block\":%u", q->egress_block);
		mqtx_buf_printf(s->a->out, ",\"options\":{%s}", json);
	} else {
		if (refcnt != 1)
			mqtx_buf_printf(s->a->out, " refcnt %u", refcnt);
		if (q->ingress_block)
			mqtx_buf_printf(s->a->out, " ingress_block %u", q->ingress_block);
		if (q->egress_block)
			mqtx_buf_printf(s->a->out, " egress_block %u", q->egress_block);
		mqtx_buf_printf(s->a->out, " %s\n", text);
	}
	if (s->stats) {
		mqtx_qdisc_tree_stats(q, &st);
		print_stats(s, &st);
		print_xstats(s, q, 0);
	}
	if (s->json)
		mqtx_buf_printf(s->a->out, "}");
}

/*
 * The order tc lists a device's qdiscs in: the root, then Linux's per-device qdisc hash (16
 * buckets by hash_32(handle), each bucket newest first; every qdisc below the root is in it),
 * then ingress. Classes follow the same order: the root's, then each hashed qdisc's.
 */
struct qorder {
	struct mqtx_qdisc **v;
	unsigned n;
};

static unsigned qhash_bucket(uint32_t handle)
{
	return (uint32_t)(handle * 0x61C88647u) >> 28; /* hash_32(handle, 4) */
}

static int qorder_cmp(const void *x, const void *y)
{
	const struct mqtx_qdisc *a = *(struct mqtx_qdisc *const *)x;
	const struct mqtx_qdisc *b = *(struct mqtx_qdisc *const *)y;
	unsigned ba = qhash_bucket(a->handle), bb = qhash_bucket(b->handle);

	if (ba != bb)
		return ba < bb ? -1 : 1;
	return a->seq < b->seq ? 1 : a->seq > b->seq ? -1 : 0;
}

/* The visible qdiscs below @q into @o (@o->v NULL: count them only). */
static void qorder_collect(struct mqtx_dev *dev, struct mqtx_qdisc *q, struct qorder *o)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;

	if (!cl)
		return;
	for (uint32_t m = 1, n = cl->count(q); m <= n; m++) {
		struct mqtx_qdisc *c = cl->leaf(q, m);

		if (!c)
			continue;
		if (mqtx__qdisc_visible(dev, c, q)) {
			if (o->v)
				o->v[o->n] = c;
			o->n++;
		}
		qorder_collect(dev, c, o);
	}
}

/* The root's hashed qdiscs in tc's order; o->v is NULL (and n 0) when there are none. */
static int qorder_build(struct mqtx_dev *dev, struct mqtx_qdisc *root, struct qorder *o)
{
	o->v = NULL;
	o->n = 0;
	qorder_collect(dev, root, o);
	if (!o->n)
		return 0;
	o->v = mqtx__alloc(o->n * sizeof(*o->v));
	if (!o->v)
		return -ENOMEM;
	o->n = 0;
	qorder_collect(dev, root, o);
	qsort(o->v, o->n, sizeof(*o->v), qorder_cmp);
	return 0;
}

/* Returns 0, or -ENOMEM when the list could not be ordered (nothing printed). */
static int show_dev_qdiscs(struct show *s)
{
	struct mqtx_qdisc *root;
	struct qorder o;
	int err = 0;

	mqtx_dev_config_lock(s->dev);
	root = mqtx__qtree_root(s->dev);
	if (root) {
		err = qorder_build(s->dev, root, &o);
		if (err)
			goto unlock;
		print_qdisc(s, root);
		for (unsigned i = 0; i < o.n; i++)
			print_qdisc(s, o.v[i]);
		mqtx__free(o.v);
	} else {
		/* Never brought up: the noop qdisc (dev->qdisc = &noop_qdisc in Linux). */
		print_head(s, s->json ? "kind" : "qdisc", "noop", "0:", MQTX_H_ROOT);
		mqtx_buf_printf(s->a->out,
				s->json ? ",\"refcnt\":2,\"options\":{}}" : " refcnt 2 \n");
	}
	if (s->dev->rxq.qdisc)
		print_qdisc(s, s->dev->rxq.qdisc);
unlock:
	mqtx_dev_config_unlock(s->dev);
	return err;
}

/* One class line: @leaf 0 prints no leaf; @parent as tc (0 is "none"). */
static void print_class_head(struct show *s, struct mqtx_qdisc *q, uint32_t m, uint32_t parent,
			     uint32_t leaf)
{
	char handle[16], pb[16];

	mqtx__classid_fmt(MQTX_H_MAKE(q->handle, m), handle, sizeof(handle));
	print_head(s, "class", q->ops->id, handle, parent);
	if (!parent) /* tc prints the unset parent too */
		mqtx_buf_printf(s->a->out, s->json ? ",\"parent\":\"%s\"" : " parent %s",
				mqtx__classid_fmt(0, pb, sizeof(pb)));
	if (leaf)
		mqtx_buf_printf(s->a->out, s->json ? ",\"leaf\":\"%x:\"" : " leaf %x:", leaf >> 16);
	mqtx_buf_printf(s->a->out, s->json ? ",\"options\":{}" : " \n");
}

static void print_class_end(struct show *s, struct mqtx_qdisc *q, const struct mqtx_class *c)
{
	if (s->stats && c->stats) {
		print_counters(s, c->stats, !c->queue_only);
		print_xstats(s, q, c->minor);
	}
	if (s->json)
		mqtx_buf_printf(s->a->out, "}");
}

/* One class of a walk; tc prints a class without counters with an empty stats line. */
static void print_class(struct mqtx_qdisc *q, const struct mqtx_class *c, void *arg)
{
	struct show *s = arg;

	print_class_head(s, q, c->minor, c->parent, c->leaf ? c->leaf->handle : 0);
	if (s->stats && !c->stats && !s->json)
		mqtx_buf_printf(s->a->out, "\n");
	print_class_end(s, q, c);
}

static void qdisc_classes(struct show *s, struct mqtx_qdisc *q)
{
	mqtx_qdisc_walk_classes(q, print_class, s);
}

/* Returns 0, or -ENOMEM when the list could not be ordered (nothing printed). */
static int show_dev_classes(struct show *s)
{
	struct mqtx_qdisc *root;
	struct qorder o;
	int err = 0;

	mqtx_dev_config_lock(s->dev);
	root = mqtx__qtree_root(s->dev);
	if (root && !(err = qorder_build(s->dev, root, &o))) {
		qdisc_classes(s, root);
		for (unsigned i = 0; i < o.n; i++)
			qdisc_classes(s, o.v[i]);
		mqtx__free(o.v);
	}
	mqtx_dev_config_unlock(s->dev);
	return err;
}

/* ---- command parsing ---- */

struct qcmd {
	const char *dev;
	uint32_t parent, handle;
	uint32_t blocks[2]; /* ingress_block, egress_block */
	bool have_parent, have_handle;
	const char *kind;
	int optc;
	char **optv;
};

static int dup_arg(struct mqtx_ctl_call *a, const char *key, const char *val)
{
	mqtx_buf_printf(a->err, "Error: duplicate \"%s\": \"%s\" is the second value.\n", key, val);
	return MQTX_CTL_EHANDLE; /* tc's duparg() exits with -1 */
}

static int set_parent(struct mqtx_ctl_call *a, struct qcmd *c, uint32_t v, const char *word)
{
	if (c->have_parent) {
		mqtx_buf_printf(a->err, "Error: \"%s\" is duplicate parent ID\n", word);
		return MQTX_CTL_EHANDLE;
	}
	c->have_parent = true;
	c->parent = v;
	return MQTX_CTL_OK;
}

/* tc_qdisc_modify()'s loop: keywords, then the kind, then the kind's options. */
static int parse_qcmd(struct mqtx_ctl_call *a, int argc, char **argv, struct qcmd *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		uint32_t v;

		if (!strcmp(w, "dev")) {
			if (++i >= argc)
				goto missing;
			if (c->dev)
				return dup_arg(a, "dev", argv[i]);
			c->dev = argv[i];
		} else if (!strcmp(w, "root")) {
			if (set_parent(a, c, MQTX_H_ROOT, "root"))
				return MQTX_CTL_EHANDLE;
		} else if (!strcmp(w, "ingress_block") || !strcmp(w, "egress_block")) {
			if (++i >= argc)
				goto missing;
			if (mqtx_tc_parse_u32(argv[i], &v) || !v) {
				mqtx_buf_printf(a->err,
						"Error: argument \"%s\" is wrong: invalid %s block "
						"index value\n",
						argv[i], w[0] == 'i' ? "ingress" : "egress");
				return MQTX_CTL_EHANDLE;
			}
			c->blocks[w[0] == 'e'] = v;
		} else if (!strcmp(w, "ingress") || !strcmp(w, "clsact")) {
			/* tc: parent ffff:fff1, handle ffff: and the kind in one word; what follows
			 * are the kind's options. */
			if (c->have_parent) {
				mqtx_buf_printf(a->err,
						"Error: \"ingress\" is a duplicate parent ID\n");
				return MQTX_CTL_EHANDLE;
			}
			c->have_parent = true;
			c->parent = MQTX_H_INGRESS;
			c->handle = 0xFFFF0000u;
			c->have_handle = true;
			c->kind = w;
			c->optc = argc - i - 1;
			c->optv = argv + i + 1;
			break;
		} else if (!strcmp(w, "parent")) {
			if (++i >= argc)
				goto missing;
			if (c->have_parent)
				return dup_arg(a, "parent", argv[i]);
			if (mqtx__classid_parse(argv[i], &v)) {
				mqtx_buf_printf(a->err,
						"Error: argument \"%s\" is wrong: invalid "
						"parent ID\n",
						argv[i]);
				return MQTX_CTL_EHANDLE;
			}
			set_parent(a, c, v, "parent");
		} else if (!strcmp(w, "handle")) {
			if (c->have_handle) /* tc checks before taking the value */
				return dup_arg(a, "handle", w);
			if (++i >= argc)
				goto missing;
			if (mqtx__handle_parse(argv[i], &c->handle)) {
				mqtx_buf_printf(a->err,
						"Error: argument \"%s\" is wrong: invalid "
						"qdisc ID\n",
						argv[i]);
				return MQTX_CTL_EHANDLE;
			}
			c->have_handle = true;
		} else {
			c->kind = w;
			c->optc = argc - i - 1;
			c->optv = argv + i + 1;
			break;
		}
	}
	return MQTX_CTL_OK;
missing:
	mqtx_buf_printf(a->err, "Command line is not complete. Try option \"help\"\n");
	return MQTX_CTL_EHANDLE; /* tc's incomplete_command() exits with -1 */
}

/* The kind's options into a fresh buffer (*@opt NULL for a kind that takes none). As tc, the
 * kind's parser runs even on no words: some send a whole configuration every time (prio's
 * defaults), some refuse to go without options (tbf). */
static int parse_opts(struct mqtx_ctl_call *a, const struct qcmd *c,
		      const struct mqtx_qdisc_ops *ops, void **opt)
{
	struct mqtx_extack ack = { "" };

	*opt = NULL;
	if (!c->optc && (!ops || !ops->parse || !ops->opt_size))
		return MQTX_CTL_OK;
	if (!ops || !ops->parse || !ops->opt_size) {
		mqtx_buf_printf(a->err, "Unknown qdisc \"%s\", hence option \"%s\" is unparsable\n",
				c->kind, c->optv[0]);
		return MQTX_CTL_EPARSE;
	}
	*opt = mqtx__zalloc(ops->opt_size);
	if (!*opt) {
		mqtx_buf_printf(a->err, "Out of memory\n");
		return MQTX_CTL_EREFUSED;
	}
	if (ops->parse(c->optc, c->optv, *opt, &ack)) {
		mqtx_buf_printf(a->err, "%s\n", ack.msg[0] ? ack.msg : "Illegal options");
		mqtx__free(*opt);
		*opt = NULL;
		return MQTX_CTL_EPARSE;
	}
	return MQTX_CTL_OK;
}

/* "help" among a kind's options prints the kind's usage, as tc's q_KIND.c do when they meet it;
 * returns true when it did. */
static bool kind_help(struct mqtx_ctl_call *a, const struct qcmd *c)
{
	const char *u;

	for (int i = 0; i < c->optc; i++) {
		if (strcmp(c->optv[i], "help"))
			continue;
		u = mqtx__qdisc_usage(c->kind);
		if (u)
			mqtx_buf_printf(a->err, "%s\n", u);
		else if (mqtx_qdisc_lookup(c->kind))
			mqtx_buf_printf(a->err, "qdisc \"%s\" has no usage to show\n", c->kind);
		else
			mqtx_buf_printf(a->err,
					"Unknown qdisc \"%s\", hence option \"help\" is "
					"unparsable\n",
					c->kind);
		return true;
	}
	return false;
}

static int refused(struct mqtx_ctl_call *a, int err, const struct mqtx_extack *ack)
{
	char buf[128];

	if (ack->msg[0])
		mqtx_buf_printf(a->err, "Error: %s\n", ack->msg);
	else
		mqtx_buf_printf(a->err, "RTNETLINK answers: %s\n",
				strerror_r(-err, buf, sizeof(buf)));
	return MQTX_CTL_EREFUSED;
}

static int qdisc_modify(struct mqtx_ctl_call *a, unsigned flags, bool del)
{
	struct mqtx_extack ack = { "" };
	const struct mqtx_qdisc_ops *ops = NULL;
	struct mqtx_qreq rq = { .flags = flags };
	struct mqtx_dev *dev;
	struct qcmd c;
	void *opt = NULL;
	int rc, err;

	rc = parse_qcmd(a, a->argc, a->argv, &c);
	if (rc)
		return rc;
	if (c.kind && kind_help(a, &c))
		return MQTX_CTL_EPARSE; /* tc's explain(): the usage, and parse_qopt() fails */
	if (!c.dev) {
		mqtx_buf_printf(a->err, "Error: Must specify device.\n");
		return MQTX_CTL_EPARSE;
	}
	if (c.kind) {
		ops = mqtx_qdisc_lookup(c.kind);
		rc = parse_opts(a, &c, ops, &opt);
		if (rc)
			return rc;
	}
	dev = mqtx_ctl_call_dev(a, c.dev);
	if (!dev) {
		mqtx__free(opt);
		return MQTX_CTL_EPARSE;
	}
	if (del) {
		err = mqtx__qdisc_delete(dev, c.parent, c.handle, &ack);
	} else if (c.kind && !ops) {
		err = mqtx_extack_set(&ack, "Specified qdisc kind is unknown.");
	} else {
		rq.parent = c.parent;
		rq.handle = c.handle;
		rq.ops = ops;
		rq.opt = opt;
		rq.blocks[0] = c.blocks[0];
		rq.blocks[1] = c.blocks[1];
		err = mqtx__qdisc_modify(dev, &rq, &ack);
	}
	mqtx__free(opt);
	return err ? refused(a, err, &ack) : MQTX_CTL_OK;
}

static int show(struct mqtx_ctl_call *a, bool classes)
{
	struct show s = { .a = a,
			  .json = a->flags & MQTX_CTL_F_JSON,
			  .stats = a->flags & MQTX_CTL_F_STATS,
			  .details = a->flags & MQTX_CTL_F_DETAILS };
	const char *devname = NULL;

	for (int i = 0; i < a->argc; i++) {
		if (!strcmp(a->argv[i], "dev") && i + 1 < a->argc) {
			devname = a->argv[++i];
		} else {
			mqtx_buf_printf(a->err, "What is \"%s\"? Try \"mqtx %s help\"\n",
					a->argv[i], classes ? "class" : "qdisc");
			return MQTX_CTL_EHANDLE; /* tc returns -1 */
		}
	}
	if (classes && !devname) {
		mqtx_buf_printf(a->err, "Cannot use class show without specifying device.\n");
		return MQTX_CTL_EPARSE;
	}
	if (devname && !mqtx_ctl_call_dev(a, devname))
		return MQTX_CTL_EPARSE;
	s.all_devs = !devname;
	if (s.json)
		mqtx_buf_printf(a->out, "[");
	for (unsigned i = 0; i < a->ctl->ndevs; i++) {
		s.dev = a->ctl->devs[i];
		if (devname && strcmp(mqtx_dev_name(s.dev), devname))
			continue;
		if (classes ? show_dev_classes(&s) : show_dev_qdiscs(&s)) {
			mqtx_buf_printf(a->err, "Out of memory\n");
			return MQTX_CTL_EREFUSED;
		}
	}
	if (s.json)
		mqtx_buf_printf(a->out, "]\n");
	return MQTX_CTL_OK;
}

/* The words after the object's name, as tc's do_qdisc() and do_class() see them. */
static struct mqtx_ctl_call after_name(const struct mqtx_ctl_call *c)
{
	struct mqtx_ctl_call a = *c;

	a.argc--;
	a.argv++;
	return a;
}

int mqtx__ctl_cmd_qdisc(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_ctl_call call = after_name(c), *a = &call;
	const char *verb = a->argc ? a->argv[0] : "show";

	(void)arg;
	if (a->argc) {
		a->argc--;
		a->argv++;
	}
	if (mqtx__ctl_matches(verb, "add"))
		return qdisc_modify(a, MQTX_QREQ_CREATE | MQTX_QREQ_EXCL, false);
	if (mqtx__ctl_matches(verb, "change"))
		return qdisc_modify(a, 0, false);
	if (mqtx__ctl_matches(verb, "replace"))
		return qdisc_modify(a, MQTX_QREQ_CREATE | MQTX_QREQ_REPLACE, false);
	if (mqtx__ctl_matches(verb, "delete"))
		return qdisc_modify(a, 0, true);
	if (mqtx__ctl_matches(verb, "show") || mqtx__ctl_matches(verb, "list") ||
	    !strcmp(verb, "ls") || !strcmp(verb, "lst"))
		return show(a, false);
	if (mqtx__ctl_matches(verb, "help")) {
		mqtx_buf_printf(a->out, "Usage: mqtx qdisc [ add | del | replace | change | show ] "
					"dev STRING\n       [ handle QHANDLE ] [ root | ingress | "
					"parent CLASSID ]\n       QDISC_KIND [ qdisc specific "
					"parameters ]\n");
		return MQTX_CTL_OK;
	}
	mqtx_buf_printf(a->err, "Command \"%s\" is unknown, try \"mqtx qdisc help\".\n", verb);
	return MQTX_CTL_EHANDLE; /* tc returns -1 */
}

int mqtx__ctl_cmd_class(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_ctl_call call = after_name(c), *a = &call;
	const char *verb = a->argc ? a->argv[0] : "show";

	(void)arg;
	if (a->argc) {
		a->argc--;
		a->argv++;
	}
	if (mqtx__ctl_matches(verb, "show") || mqtx__ctl_matches(verb, "list") ||
	    !strcmp(verb, "ls") || !strcmp(verb, "lst"))
		return show(a, true);
	if (mqtx__ctl_matches(verb, "help")) {
		mqtx_buf_printf(a->out,
				"Usage: mqtx class show dev STRING\n"
				"Classes are those of the device's classful qdiscs (mq, mqprio, "
				"prio, tbf):\nthey come with their qdisc, not added one by "
				"one.\n");
		return MQTX_CTL_OK;
	}
	mqtx_buf_printf(a->err, "Command \"%s\" is unknown, try \"mqtx class help\".\n", verb);
	return MQTX_CTL_EHANDLE; /* tc returns -1 */
}

// SPDX-License-Identifier: MIT
/* "qdisc add|replace|change|link|del|show" and "class show": tc's grammar, messages and output. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "cls/tcf.h"
#include "core/core.h"
#include "ctl/ctl_int.h"
#include "sched/qtree.h"
#include <mqtx/tc.h>

/* ---- printing ---- */

struct show {
	struct mqtx_ctl_call *a;
	struct mqtx_dev *dev;
	bool all_devs, json, stats, details;
	bool invisible;		 /* "invisible": the qdiscs Linux hashes hidden too */
	uint32_t parent, handle; /* "root", "ingress", "parent X:Y", "handle X:" (0: any) */
	uint32_t classid;	 /* class show's "classid X:Y"; its "qdisc X:" is @handle */
	struct tc_out p;	 /* on a->out */
};

/* The counters; without @basic (a class with queue counters only) no bytes and packets sent,
 * as tc's print_tcstats2_attr() without TCA_STATS_BASIC. */
static void print_counters(struct show *s, const struct mqtx_qdisc_stats *st, bool basic)
{
	struct tc_out *p = &s->p;
	char b[MQTX_TC_BUF];

	if (basic) {
		mqtx__out_uint(p, OUT_ANY, "bytes", " Sent %llu bytes", st->bytes);
		mqtx__out_uint(p, OUT_ANY, "packets", " %llu pkt", st->packets);
	}
	mqtx__out_uint(p, OUT_ANY, "drops", " (dropped %llu", st->drops);
	mqtx__out_uint(p, OUT_ANY, "overlimits", ", overlimits %llu", st->overlimits);
	mqtx__out_uint(p, OUT_ANY, "requeues", " requeues %llu", st->requeues);
	mqtx__out_text(p, ") \n");
	mqtx__out_str(p, OUT_FP, NULL, " backlog %s",
		      mqtx_tc_print_size(b, sizeof(b), st->backlog));
	mqtx__out_uint(p, OUT_JSON, "backlog", NULL, st->backlog);
	mqtx__out_uint(p, OUT_ANY, "qlen", " %llup", st->qlen);
	mqtx__out_uint(p, OUT_FP, NULL, " requeues %llu\n", st->requeues);
}

/* The xstats of @q (@minor 0) or of its class @minor: tc prints them after the counters. */
static void print_xstats(struct show *s, struct mqtx_qdisc *q, uint32_t minor)
{
	char text[512], json[1024];
	int n = minor ? mqtx_class_dump_xstats(q, minor, text, sizeof(text), json, sizeof(json))
		      : mqtx_qdisc_dump_xstats(q, text, sizeof(text), json, sizeof(json));

	if (n > 0) {
		mqtx__out_members(&s->p, json);
		mqtx__out_text(&s->p, "%s\n", text);
	}
}

/* The head of a qdisc or class line/object: kind, handle, dev, parent. @what: the first
 * word of the line; @key: the kind's key in JSON. */
static void print_head(struct show *s, const char *what, const char *key, const char *kind,
		       const char *handle, uint32_t parent)
{
	struct tc_out *p = &s->p;
	char pb[16];

	mqtx__out_open(p, NULL);
	mqtx__out_str(p, OUT_FP, NULL, "%s", what);
	mqtx__out_str(p, OUT_ANY, key, " %s", kind);
	mqtx__out_str(p, OUT_ANY, "handle", " %s", handle);
	if (s->all_devs)
		mqtx__out_str(p, OUT_ANY, "dev", " dev %s", mqtx_dev_name(s->dev));
	if (parent == MQTX_H_ROOT)
		mqtx__out_bool(p, OUT_ANY, "root", " root", true);
	else if (parent)
		mqtx__out_str(p, OUT_ANY, "parent", " parent %s",
			      mqtx__classid_fmt(parent, pb, sizeof(pb)));
}

static void print_qdisc(struct show *s, struct mqtx_qdisc *q)
{
	char handle[16], text[2048] = "", json[4096] = "";
	uint32_t refcnt = mqtx__qdisc_refcnt(s->dev, q);
	struct tc_out *p = &s->p;
	struct mqtx_qdisc_stats st;

	/* tc's print_qdisc() drops what the filters do not name, after the kernel's dump. */
	if ((s->handle && q->handle != s->handle) || (s->parent && q->parent != s->parent))
		return;
	if (mqtx_qdisc_dump_options(q, s->details ? MQTX_DUMP_F_DETAILS : 0, text, sizeof(text),
				    json, sizeof(json)) < 0)
		text[0] = json[0] = 0;
	snprintf(handle, sizeof(handle), "%x:", q->handle >> 16);
	print_head(s, "qdisc", "kind", q->ops->id, handle, q->parent);
	if (refcnt != 1)
		mqtx__out_uint(p, OUT_ANY, "refcnt", " refcnt %llu", refcnt);
	if (q->ingress_block)
		mqtx__out_uint(p, OUT_ANY, "ingress_block", " ingress_block %llu",
			       q->ingress_block);
	if (q->egress_block)
		mqtx__out_uint(p, OUT_ANY, "egress_block", " egress_block %llu", q->egress_block);
	mqtx__out_open(p, "options");
	mqtx__out_members(p, json);
	mqtx__out_close(p);
	mqtx__out_text(p, " %s\n", text);
	if (s->stats) {
		mqtx_qdisc_tree_stats(q, &st);
		print_counters(s, &st, true);
		print_xstats(s, q, 0);
	}
	mqtx__out_close(p);
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

/* The visible qdiscs below @q into @o (@o->v NULL: count them only); with @invisible, also
 * those Linux hashes hidden (a classful qdisc's default children: prio's bands). */
static void qorder_collect(struct mqtx_dev *dev, struct mqtx_qdisc *q, bool invisible,
			   struct qorder *o)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;

	if (!cl)
		return;
	for (uint32_t m = 1, n = cl->count(q); m <= n; m++) {
		struct mqtx_qdisc *c = cl->leaf(q, m);

		if (!c)
			continue;
		if (mqtx__qdisc_visible(dev, c, q) || (invisible && !(q->flags & MQTX_QF_MQROOT))) {
			if (o->v)
				o->v[o->n] = c;
			o->n++;
		}
		qorder_collect(dev, c, invisible, o);
	}
}

/* The root's hashed qdiscs in tc's order; o->v is NULL (and n 0) when there are none. */
static int qorder_build(struct mqtx_dev *dev, struct mqtx_qdisc *root, bool invisible,
			struct qorder *o)
{
	o->v = NULL;
	o->n = 0;
	qorder_collect(dev, root, invisible, o);
	if (!o->n)
		return 0;
	o->v = mqtx__alloc(o->n * sizeof(*o->v));
	if (!o->v)
		return -ENOMEM;
	o->n = 0;
	qorder_collect(dev, root, invisible, o);
	qsort(o->v, o->n, sizeof(*o->v), qorder_cmp);
	return 0;
}

/*
 * Call @fn on each qdisc of @s->dev's tree (@invisible: the invisible ones too) in the order a
 * dump lists them: the root, then those below it in Linux's hash order (struct qorder). The
 * caller holds the device's config lock. Returns 0, or -ENOMEM when the list could not be
 * ordered (@fn not called).
 */
static int walk_qdiscs(struct show *s, bool invisible,
		       void (*fn)(struct show *s, struct mqtx_qdisc *q))
{
	struct mqtx_qdisc *root = mqtx__qtree_root(s->dev);
	struct qorder o;
	int err;

	if (!root)
		return 0;
	err = qorder_build(s->dev, root, invisible, &o);
	if (err)
		return err;
	fn(s, root);
	for (unsigned i = 0; i < o.n; i++)
		fn(s, o.v[i]);
	mqtx__free(o.v);
	return 0;
}

/* Returns 0, or -ENOMEM when the list could not be ordered (nothing printed). */
static int show_dev_qdiscs(struct show *s)
{
	int err;

	mqtx_dev_config_lock(s->dev);
	err = walk_qdiscs(s, s->invisible, print_qdisc);
	/* Never brought up, or its root deleted while down: Linux's noop, which no dump lists. */
	if (!err && s->dev->rxq.qdisc)
		print_qdisc(s, s->dev->rxq.qdisc);
	mqtx_dev_config_unlock(s->dev);
	return err;
}

/* One class line: @leaf 0 prints no leaf; @parent as tc (0 is "none"). */
static void print_class_head(struct show *s, struct mqtx_qdisc *q, uint32_t m, uint32_t parent,
			     uint32_t leaf)
{
	char handle[16], pb[16], lb[16], text[512], json[1024];
	struct tc_out *p = &s->p;

	/* With "qdisc X:", tc's print_class() gives the minor alone (":3"). */
	mqtx__classid_fmt(s->handle ? m : MQTX_H_MAKE(q->handle, m), handle, sizeof(handle));
	print_head(s, "class", "class", q->ops->id, handle, parent);
	if (!parent) /* tc prints the unset parent too */
		mqtx__out_str(p, OUT_ANY, "parent", " parent %s",
			      mqtx__classid_fmt(0, pb, sizeof(pb)));
	if (leaf) {
		snprintf(lb, sizeof(lb), "%x:", leaf >> 16);
		mqtx__out_str(p, OUT_ANY, "leaf", " leaf %s", lb);
	}
	/* the kind's print_copt(): htb's rates, ets's quantum */
	if (mqtx__class_dump_options(q, m, s->details ? MQTX_DUMP_F_DETAILS : 0, text, sizeof(text),
				     json, sizeof(json)) < 0)
		text[0] = json[0] = 0;
	mqtx__out_open(p, "options");
	mqtx__out_members(p, json);
	mqtx__out_close(p);
	mqtx__out_text(p, " %s\n", text);
}

/* One class of a walk; tc prints a class without counters with an empty stats line. */
static void print_class(struct mqtx_qdisc *q, const struct mqtx_class *c, void *arg)
{
	struct show *s = arg;
	uint32_t id = MQTX_H_MAKE(q->handle, c->minor);

	/* tc's print_class() filters */
	if ((s->handle && MQTX_H_MAJ(id) != s->handle) || (s->classid && id != s->classid))
		return;
	print_class_head(s, q, c->minor, c->parent, c->leaf ? c->leaf->handle : 0);
	if (s->stats && !c->stats)
		mqtx__out_nl(&s->p);
	if (s->stats && c->stats) {
		print_counters(s, c->stats, !c->queue_only);
		print_xstats(s, q, c->minor);
	}
	mqtx__out_close(&s->p);
}

static void qdisc_classes(struct show *s, struct mqtx_qdisc *q)
{
	/* tc_dump_tclass_qdisc(): a parent names the qdisc whose classes are dumped ("root",
	 * ffff:ffff, names the ingress qdisc's, which has none here) */
	if (s->parent && MQTX_H_MAJ(s->parent) != q->handle)
		return;
	mqtx_qdisc_walk_classes(q, print_class, s);
}

/* Returns 0, or -ENOMEM when the list could not be ordered (nothing printed). */
static int show_dev_classes(struct show *s)
{
	int err;

	mqtx_dev_config_lock(s->dev);
	err = walk_qdiscs(s, false, qdisc_classes);
	mqtx_dev_config_unlock(s->dev);
	return err;
}

/* ---- command parsing ---- */

static const char qdisc_usage[] =
	"Usage: mqtx qdisc [ add | del | replace | change | link | show ] dev STRING\n"
	"       [ handle QHANDLE ] [ root | ingress | clsact | parent CLASSID ]\n"
	"       [ [ QDISC_KIND ] [ help | OPTIONS ] ]\n"
	"\n"
	"       mqtx qdisc { show | list } [ dev STRING ] [ QDISC_ID ] [ invisible ]\n"
	"Where:\n"
	"QDISC_KIND := { [p|b]fifo | pfifo_head_drop | pfifo_fast | prio | tbf | codel |\n"
	"                fq_codel | mq | mqprio | noqueue | ingress | wme }\n"
	"OPTIONS := ... try mqtx qdisc add <desired QDISC_KIND> help\n"
	"QDISC_ID := { root | ingress | handle QHANDLE | parent CLASSID }\n";

struct qcmd {
	const char *dev;
	uint32_t parent, handle;
	uint32_t blocks[2]; /* ingress_block, egress_block */
	bool have_parent, have_handle;
	const char *kind;
	int optc;
	char **optv;
};

#define QCMD(m) offsetof(struct qcmd, m)

/* The keywords of tc_qdisc_modify() that take a value (root, ingress and handle have rules
 * of their own). */
static const struct tc_opt qcmd_opts[] = {
	{ "dev", mqtx__tc_opt_str_once, QCMD(dev) },
	{ "ingress_block", mqtx__tc_opt_unsigned, QCMD(blocks[0]), .min = 1,
	  .hint = "invalid ingress block index value" },
	{ "egress_block", mqtx__tc_opt_unsigned, QCMD(blocks[1]), .min = 1,
	  .hint = "invalid egress block index value" },
	{ "parent", mqtx__tc_opt_classid, QCMD(parent),
	  .given = TC_OPT_GIVEN(struct qcmd, have_parent), .hint = "invalid parent ID" },
};

/* tc_qdisc_modify()'s loop: keywords, then the kind, then the kind's options. */
static int parse_qcmd(struct mqtx_ctl_call *a, int argc, char **argv, struct qcmd *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		const struct tc_opt *o = mqtx__tc_opt_find(qcmd_opts, ARRAY_SIZE(qcmd_opts), w);
		int rc;

		if (o) {
			rc = mqtx__ctl_opt_value(a->err, o, argc, argv, &i, c);
			if (rc)
				return rc;
		} else if (!strcmp(w, "root")) {
			if (c->have_parent) {
				mqtx_buf_printf(a->err, "Error: \"root\" is duplicate parent ID\n");
				return MQTX_TC_EXIT_ABORT;
			}
			c->have_parent = true;
			c->parent = MQTX_H_ROOT;
		} else if (!strcmp(w, "ingress") || !strcmp(w, "clsact")) {
			/* tc: parent ffff:fff1, handle ffff: and the kind in one word; what follows
			 * are the kind's options. */
			if (c->have_parent) {
				mqtx_buf_printf(a->err,
						"Error: \"ingress\" is a duplicate parent ID\n");
				return MQTX_TC_EXIT_ABORT;
			}
			c->have_parent = true;
			c->parent = MQTX_H_INGRESS;
			c->handle = 0xFFFF0000u;
			c->have_handle = true;
			c->kind = w;
			c->optc = argc - i - 1;
			c->optv = argv + i + 1;
			break;
		} else if (!strcmp(w, "handle")) {
			/* tc checks before taking the value, a handle other than 0 given, and
			 * its duparg() names the word "handle" as the second value: the value
			 * follows in parentheses */
			if (c->handle && i + 1 < argc) {
				mqtx_buf_printf(a->err,
						"Error: duplicate \"handle\": \"handle\" is the "
						"second value. (%s)\n",
						argv[i + 1]);
				return MQTX_TC_EXIT_ABORT;
			}
			if (c->handle)
				return mqtx__ctl_duparg(a->err, "handle", w);
			if (++i >= argc)
				return mqtx__ctl_incomplete(a->err);
			if (mqtx__handle_parse(argv[i], &c->handle))
				return mqtx__ctl_invarg(a->err, argv[i], "invalid qdisc ID");
			c->have_handle = true;
		} else if (mqtx__tc_matches(w, "help")) {
			/* tc prints its usage and goes on with the words that follow */
			mqtx_buf_printf(a->err, "%s", qdisc_usage);
		} else {
			c->kind = w;
			c->optc = argc - i - 1;
			c->optv = argv + i + 1;
			break;
		}
	}
	return MQTX_TC_EXIT_OK;
}

/* The usage a kind carries in its ops, after a refusal that calls for it (and for "help"). */
static void kind_usage(struct mqtx_ctl_call *a, const struct mqtx_qdisc_ops *ops)
{
	if (ops && ops->usage)
		mqtx_buf_printf(a->err, "%s\n", ops->usage);
}

/* tc 6.1 prints pfifo_fast (q_prio.c) but has no parser for it: options are refused with exit
 * -1; a kind it does not know at all refuses them with exit 1. */
static bool tc_unparsable(const char *kind)
{
	return !strcmp(kind, "pfifo_fast");
}

/* A kind without an option parser given words: tc's answers (tc_qdisc_modify()), with its
 * exit codes; "help" gets the usage instead of tc's refusal. */
static int no_parser(struct mqtx_ctl_call *a, const struct qcmd *c,
		     const struct mqtx_qdisc_ops *ops)
{
	bool help = !strcmp(c->optv[0], "help") && ops && ops->usage;

	if (help)
		kind_usage(a, ops);
	if (tc_unparsable(c->kind)) {
		if (!help)
			mqtx_buf_printf(a->err, "qdisc '%s' does not support option parsing\n",
					c->kind);
		return MQTX_TC_EXIT_ABORT;
	}
	if (!help)
		mqtx_buf_printf(a->err, "Unknown qdisc \"%s\", hence option \"%s\" is unparsable\n",
				c->kind, c->optv[0]);
	return MQTX_TC_EXIT_PARSE;
}

/* The kind's options into a fresh buffer (*@opt NULL for a kind that takes none). As tc, the
 * kind's parser runs even on no words: some send a whole configuration every time (prio's
 * defaults), some refuse to go without options (tbf). */
static int parse_opts(struct mqtx_ctl_call *a, const struct qcmd *c,
		      const struct mqtx_qdisc_ops *ops, void **opt)
{
	struct mqtx_extack ack = { "" };
	int err;

	*opt = NULL;
	if (!ops || !ops->parse || !ops->opt_size)
		return c->optc ? no_parser(a, c, ops) : MQTX_TC_EXIT_OK;
	*opt = mqtx__zalloc(ops->opt_size);
	if (!*opt) {
		mqtx_buf_printf(a->err, "Out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	err = ops->parse(c->optc, c->optv, *opt, &ack);
	if (!err)
		return MQTX_TC_EXIT_OK;
	mqtx__free(*opt);
	*opt = NULL;
	if (ack.msg[0])
		mqtx_buf_printf(a->err, "%s\n", ack.msg);
	else if (err != MQTX_TC_EUSAGE)
		mqtx_buf_printf(a->err, "Illegal options for qdisc \"%s\"\n", c->kind);
	if (err == MQTX_TC_EUSAGE)
		kind_usage(a, ops);
	return err == MQTX_TC_EFATAL ? MQTX_TC_EXIT_ABORT : MQTX_TC_EXIT_PARSE;
}

/*
 * A refusal as tc prints the kernel's: its extack message (the kernel's sentence, then what it
 * is about in parentheses), or without one the errno and the request it was. Where Linux
 * refuses without a message (prio's bands, tbf's peak rate), it often says why in its log; so
 * does mqtx, and that line (@why) follows.
 */
static int refused(struct mqtx_ctl_call *a, int err, const struct mqtx_extack *ack,
		   const struct qcmd *c, const char *why)
{
	char buf[128], where[32];

	size_t n = strlen(ack->msg);

	if (n) {
		/* tc's nl_dump_ext_ack() ends a sentence without one with a full stop */
		mqtx_buf_printf(a->err, "Error: %s%s\n", ack->msg,
				ack->msg[n - 1] == '.' || ack->msg[n - 1] == ')' ? "" : ".");
		return MQTX_TC_EXIT_REFUSED;
	}
	if (!c->have_parent)
		snprintf(where, sizeof(where), "handle %x:", c->handle >> 16);
	else if (c->parent == MQTX_H_ROOT || c->parent == MQTX_H_INGRESS)
		snprintf(where, sizeof(where), c->parent == MQTX_H_ROOT ? "root" : "ingress");
	else
		snprintf(where, sizeof(where), "parent %x:%x", c->parent >> 16, c->parent & 0xffff);
	mqtx_buf_printf(a->err, "RTNETLINK answers: %s (%s%s%s of %s)\n",
			strerror_r(-err, buf, sizeof(buf)), c->kind ? c->kind : "",
			c->kind ? " at " : "", where, c->dev);
	if (why[0])
		mqtx_buf_printf(a->err, "%s\n", why);
	return MQTX_TC_EXIT_REFUSED;
}

static int qdisc_modify(struct mqtx_ctl_call *a, unsigned flags, bool del)
{
	struct mqtx_extack ack = { "" };
	const struct mqtx_qdisc_ops *ops = NULL;
	struct mqtx_qreq rq = { .flags = flags };
	struct mqtx_dev *dev;
	bool existed[2] = { false, false };
	struct ctl_block_owner *room = NULL;
	char why[256];
	struct qcmd c;
	void *opt = NULL;
	int rc, err;

	rc = parse_qcmd(a, a->argc, a->argv, &c);
	if (rc)
		return rc;
	if (c.kind) {
		ops = mqtx_qdisc_lookup(c.kind);
		rc = parse_opts(a, &c, ops, &opt);
		if (rc)
			return rc;
	}
	if (!c.dev) {
		/* tc sends the request for interface 0, which the kernel does not know. */
		mqtx__free(opt);
		mqtx_buf_printf(a->err, "RTNETLINK answers: No such device (no \"dev\" given)\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	dev = mqtx_ctl_call_dev(a, c.dev);
	if (!dev) {
		mqtx__free(opt);
		return MQTX_TC_EXIT_PARSE;
	}
	/* The qdiscs of a device are its owner's; a shared block another made is not the
	 * caller's to bind to (its filters would act on the caller's traffic, and the block
	 * would outlive its maker's qdiscs). */
	rc = mqtx__ctl_may_change_dev(a, "RTNETLINK answers", dev);
	for (int i = 0; i < 2 && !rc && !del; i++)
		rc = mqtx__ctl_may_use_block(a, "RTNETLINK answers", c.blocks[i]);
	if (!rc && !del && (c.blocks[0] || c.blocks[1]) &&
	    !(room = mqtx__ctl_blocks_prepare(a->ctl, 2))) {
		mqtx_buf_printf(a->err, "Out of memory\n");
		rc = MQTX_TC_EXIT_REFUSED;
	}
	if (rc) {
		mqtx__free(opt);
		return rc;
	}
	for (int i = 0; i < 2; i++)
		existed[i] = c.blocks[i] && mqtx__tcf_block_exists(c.blocks[i]);
	mqtx__log_capture(why, sizeof(why));
	if (del) {
		err = mqtx__qdisc_delete(dev, c.parent, c.handle, c.kind, &ack);
	} else {
		rq.parent = c.parent;
		rq.handle = c.handle;
		rq.kind = c.kind;
		rq.ops = ops;
		rq.opt = opt;
		rq.blocks[0] = c.blocks[0];
		rq.blocks[1] = c.blocks[1];
		err = mqtx__qdisc_modify(dev, &rq, &ack);
	}
	mqtx__log_capture(NULL, 0);
	mqtx__free(opt);
	if (err) {
		mqtx__free(room);
		return refused(a, err, &ack, &c, why);
	}
	if (room)
		mqtx__ctl_blocks_made(a, room, c.blocks, existed, 2);
	return MQTX_TC_EXIT_OK;
}

/* A qdisc handle (mqtx__handle_parse()) into a uint32_t. */
static int parse_handle(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	return mqtx__handle_parse(v, field);
}

/* class show's "qdisc X:", once (-EEXIST before the value is read). */
static int parse_handle_once(const char *v, void *field, const struct tc_opt *o)
{
	if (*(uint32_t *)field)
		return -EEXIST;
	return parse_handle(v, field, o);
}

/* class show's "classid X:Y": a malformed one is refused before a second one is. */
static int parse_classid_then_once(const char *v, void *field, const struct tc_opt *o)
{
	uint32_t x;

	(void)o;
	if (mqtx__classid_parse(v, &x))
		return -EINVAL;
	if (*(uint32_t *)field)
		return -EEXIST;
	*(uint32_t *)field = x;
	return 0;
}

#define SHOW(m) offsetof(struct show, m)

/* The words of qdisc show that name one qdisc, by tc's matches(); root, ingress and clsact
 * take no value. */
static const struct tc_opt qshow_opts[] = {
	{ "parent", mqtx__tc_opt_classid, SHOW(parent), .prefix = true,
	  .hint = "invalid parent ID" },
	{ "handle", parse_handle, SHOW(handle), .prefix = true, .hint = "invalid handle ID" },
};

/*
 * The words of "qdisc show" as tc_qdisc_list() reads them: dev, one of root, ingress (or
 * clsact), parent and handle, invisible, help (the usage, and the listing goes on).
 */
static int show_words(struct mqtx_ctl_call *a, struct show *s, const char **devname)
{
	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];
		const struct tc_opt *o = mqtx__tc_opt_find(qshow_opts, ARRAY_SIZE(qshow_opts), w);
		bool ingress = !strcmp(w, "ingress") || !strcmp(w, "clsact");
		int rc;

		if (!strcmp(w, "dev")) {
			if (++i >= a->argc)
				return mqtx__ctl_incomplete(a->err);
			*devname = a->argv[i];
			continue;
		}
		if (!strcmp(w, "invisible")) {
			s->invisible = true;
			continue;
		}
		if (!o && !ingress && strcmp(w, "root")) {
			if (!mqtx__tc_matches(w, "help")) {
				mqtx_buf_printf(a->err,
						"What is \"%s\"? Try \"mqtx qdisc help\".\n", w);
				return MQTX_TC_EXIT_ABORT; /* tc returns -1 */
			}
			mqtx_buf_printf(a->err, "%s", qdisc_usage);
			continue;
		}
		if (s->parent)
			return mqtx__ctl_invarg(a->err, w, "parent is already specified");
		if (s->handle)
			return mqtx__ctl_invarg(a->err, w, "handle is already specified");
		if (o) {
			rc = mqtx__ctl_opt_value(a->err, o, a->argc, a->argv, &i, s);
			if (rc)
				return rc;
		} else {
			s->parent = ingress ? MQTX_H_INGRESS : MQTX_H_ROOT;
		}
	}
	return MQTX_TC_EXIT_OK;
}

/* The words of class show that take a value (dev is the caller's). */
static const struct tc_opt cshow_opts[] = {
	{ "qdisc", parse_handle_once, SHOW(handle), .hint = "invalid qdisc ID" },
	{ "classid", parse_classid_then_once, SHOW(classid), .hint = "invalid class ID" },
	{ "parent", mqtx__tc_opt_classid, SHOW(parent), .hint = "invalid parent ID" },
};

/* The words of "class show" as tc_class_list() reads them. */
static int class_words(struct mqtx_ctl_call *a, struct show *s, const char **devname)
{
	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];
		const struct tc_opt *o = mqtx__tc_opt_find(cshow_opts, ARRAY_SIZE(cshow_opts), w);
		int rc;

		if (mqtx__tc_matches(w, "help") && strcmp(w, "dev")) {
			mqtx_buf_printf(a->err, "%s", mqtx__class_usage);
			continue;
		}
		if (!strcmp(w, "root")) {
			if (s->parent) {
				mqtx_buf_printf(a->err, "Error: \"root\" is duplicate parent ID\n");
				return MQTX_TC_EXIT_ABORT;
			}
			s->parent = MQTX_H_ROOT;
			continue;
		}
		if (!strcmp(w, "dev")) {
			if (++i >= a->argc)
				return mqtx__ctl_incomplete(a->err);
			if (*devname)
				return mqtx__ctl_duparg(a->err, w, a->argv[i]);
			*devname = a->argv[i];
			continue;
		}
		if (!o) {
			mqtx_buf_printf(a->err, "What is \"%s\"? Try \"mqtx class help\".\n", w);
			return MQTX_TC_EXIT_ABORT; /* tc returns -1 */
		}
		/* tc refuses a second parent before it looks for the value */
		if (!strcmp(w, "parent") && s->parent)
			return mqtx__ctl_duparg(a->err, w, w);
		rc = mqtx__ctl_opt_value(a->err, o, a->argc, a->argv, &i, s);
		if (rc)
			return rc;
	}
	return MQTX_TC_EXIT_OK;
}

int mqtx__ctl_show(struct mqtx_ctl_call *a, bool classes)
{
	struct show s = { .a = a,
			  .json = a->flags & MQTX_CTL_F_JSON,
			  .stats = a->flags & MQTX_CTL_F_STATS,
			  .details = a->flags & MQTX_CTL_F_DETAILS };
	const char *devname = NULL;
	int rc = classes ? class_words(a, &s, &devname) : show_words(a, &s, &devname);

	if (rc)
		return rc;
	if (classes && !devname)
		return MQTX_TC_EXIT_OK; /* Linux dumps the classes of the interface given, or none */
	if (devname && !mqtx_ctl_call_dev(a, devname))
		return MQTX_TC_EXIT_PARSE;
	s.all_devs = !devname;
	mqtx__out_init(&s.p, a->out, s.json, s.stats, s.details);
	mqtx__out_open_array(&s.p, NULL);
	for (unsigned i = 0; i < a->ctl->ndevs; i++) {
		s.dev = a->ctl->devs[i];
		if (devname && strcmp(mqtx_dev_name(s.dev), devname))
			continue;
		if (classes ? show_dev_classes(&s) : show_dev_qdiscs(&s)) {
			mqtx_buf_printf(a->err, "Out of memory\n");
			return MQTX_TC_EXIT_REFUSED;
		}
	}
	mqtx__out_close_array(&s.p);
	mqtx__out_end(&s.p);
	return MQTX_TC_EXIT_OK;
}

int mqtx__ctl_cmd_qdisc(const struct mqtx_ctl_call *c, void *arg)
{
	const char *verb;
	struct mqtx_ctl_call call = mqtx__ctl_after_verb(c, "show", &verb), *a = &call;

	(void)arg;
	if (mqtx__tc_matches(verb, "add"))
		return qdisc_modify(a, MQTX_QREQ_CREATE | MQTX_QREQ_EXCL, false);
	if (mqtx__tc_matches(verb, "change"))
		return qdisc_modify(a, 0, false);
	if (mqtx__tc_matches(verb, "replace"))
		return qdisc_modify(a, MQTX_QREQ_CREATE | MQTX_QREQ_REPLACE, false);
	/* tc's do_qdisc() order: "l" is link, "ls" lst */
	if (mqtx__tc_matches(verb, "link"))
		return qdisc_modify(a, MQTX_QREQ_REPLACE, false);
	if (mqtx__tc_matches(verb, "delete"))
		return qdisc_modify(a, 0, true);
	if (mqtx__tc_matches(verb, "list") || mqtx__tc_matches(verb, "show") ||
	    mqtx__tc_matches(verb, "lst"))
		return mqtx__ctl_show(a, false);
	return mqtx__ctl_verb_other(a, "qdisc", verb, qdisc_usage);
}

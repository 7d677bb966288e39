// SPDX-License-Identifier: MIT
/* "class add|change|replace|del|show": tc's grammar and exit codes (tc_class.c). */
#include <string.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "sched/qtree.h"

struct ccmd {
	const char *dev, *kind;
	uint32_t parent, classid;
	int optc; /* the words after the kind: its class options */
	char **optv;
};

#define CCMD(m) offsetof(struct ccmd, m)

/* The keywords of tc_class_modify() that take a value, each once. */
static const struct tc_opt ccmd_opts[] = {
	{ "dev", mqtx__tc_opt_str_once, CCMD(dev) },
	{ "classid", mqtx__tc_opt_classid_once, CCMD(classid), .hint = "invalid class ID" },
	{ "parent", mqtx__tc_opt_classid_once, CCMD(parent), .hint = "invalid parent ID" },
};

/* tc_class_modify()'s loop: keywords, then a kind, whose class options tc alone parses. */
static int parse_ccmd(struct mqtx_ctl_call *a, struct ccmd *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];
		const struct tc_opt *o = mqtx__tc_opt_find(ccmd_opts, ARRAY_SIZE(ccmd_opts), w);
		int rc;

		if (o) {
			rc = mqtx__ctl_opt_value(a->err, o, a->argc, a->argv, &i, c);
			if (rc)
				return rc;
		} else if (!strcmp(w, "handle")) {
			mqtx_buf_printf(a->err, "Error: try \"classid\" instead of \"handle\"\n");
			return MQTX_TC_EXIT_ABORT;
		} else if (!strcmp(w, "root")) {
			if (c->parent) {
				mqtx_buf_printf(a->err,
						"Error: \"root\" is duplicate parent ID.\n");
				return MQTX_TC_EXIT_ABORT;
			}
			c->parent = MQTX_H_ROOT;
		} else if (mqtx__tc_matches(w, "help")) {
			mqtx_buf_printf(a->err, "%s", mqtx__class_usage); /* and tc goes on */
		} else {
			c->kind = w;
			c->optc = a->argc - i - 1;
			c->optv = a->argv + i + 1;
			break;
		}
	}
	return MQTX_TC_EXIT_OK;
}

/* What a rate's "N%" is a share of: the link speed of the device named (tc reads it from sysfs
 * while it parses, before it looks the device up). */
static void class_link(struct mqtx_ctl_call *a, const struct ccmd *c)
{
	struct mqtx_dev *dev = c->dev ? mqtx__ctl_find_dev(a->ctl, c->dev) : NULL;
	uint64_t bps = 0;

	if (dev) {
		mqtx_dev_config_lock(dev);
		bps = mqtx_dev_link_rate(dev);
		mqtx_dev_config_unlock(dev);
	}
	mqtx__tc_set_link(c->dev, dev != NULL, bps);
}

/* The kind's class options into a fresh buffer, as tc's parse_copt() reads them: only a kind
 * with class options (htb, ets) takes any, even none ("class change ... ets"). */
static int parse_class_opts(struct mqtx_ctl_call *a, const struct ccmd *c,
			    const struct mqtx_qdisc_ops **kind, void **opt)
{
	const struct mqtx_qdisc_ops *ops = mqtx_qdisc_lookup(c->kind);
	const struct mqtx_class_ops *cl = ops ? ops->cl_ops : NULL;
	struct mqtx_extack ack = { "" };
	const char *u;
	int err;

	if (!cl || !cl->parse || !cl->opt_size) {
		mqtx_buf_printf(a->err, "Error: Qdisc \"%s\" is classless.\n", c->kind);
		return MQTX_TC_EXIT_PARSE;
	}
	*opt = mqtx__zalloc(cl->opt_size);
	if (!*opt) {
		mqtx_buf_printf(a->err, "Out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	class_link(a, c);
	err = cl->parse(c->optc, c->optv, *opt, &ack);
	mqtx__tc_set_link(NULL, false, 0);
	if (!err) {
		*kind = ops;
		return MQTX_TC_EXIT_OK;
	}
	mqtx__free(*opt);
	*opt = NULL;
	if (ack.msg[0])
		mqtx_buf_printf(a->err, "%s\n", ack.msg);
	u = ops->usage;
	if (err == MQTX_TC_EUSAGE && u)
		mqtx_buf_printf(a->err, "%s\n", u);
	return err == MQTX_TC_EFATAL ? MQTX_TC_EXIT_ABORT : MQTX_TC_EXIT_PARSE;
}

/* The device the command names, or the answer tc gives without one. */
static int class_dev(struct mqtx_ctl_call *a, const struct ccmd *c, struct mqtx_dev **dev)
{
	if (!c->dev) {
		mqtx_buf_printf(a->err, "RTNETLINK answers: No such device (no \"dev\" given)\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	*dev = mqtx_ctl_call_dev(a, c->dev);
	if (!*dev)
		return MQTX_TC_EXIT_PARSE;
	return mqtx__ctl_may_change_dev(a, "RTNETLINK answers", *dev);
}

static int class_modify(struct mqtx_ctl_call *a, unsigned flags, bool del)
{
	const struct mqtx_qdisc_ops *kind = NULL;
	struct mqtx_extack ack = { "" };
	struct mqtx_dev *dev = NULL;
	char why[256], buf[64], id[16];
	void *opt = NULL;
	struct ccmd c;
	size_t n;
	int rc, err;

	rc = parse_ccmd(a, &c);
	if (!rc && c.kind)
		rc = parse_class_opts(a, &c, &kind, &opt);
	if (!rc)
		rc = class_dev(a, &c, &dev);
	if (rc) {
		mqtx__free(opt);
		return rc;
	}
	mqtx__log_capture(why, sizeof(why));
	err = mqtx__class_modify(dev, del, flags, c.parent, c.classid, kind, opt, &ack);
	mqtx__log_capture(NULL, 0);
	mqtx__free(opt);
	n = strlen(ack.msg);
	if (n) {
		/* tc's nl_dump_ext_ack(): a warning on success, the error otherwise, each ended
		 * with a full stop */
		mqtx_buf_printf(a->err, "%s: %s%s\n", err ? "Error" : "Warning", ack.msg,
				ack.msg[n - 1] == '.' ? "" : ".");
		if (err)
			return MQTX_TC_EXIT_REFUSED;
	}
	if (!err)
		return MQTX_TC_EXIT_OK;
	/* tc's line, then the request it was, as for a qdisc, then why */
	if (c.classid || c.parent)
		mqtx__classid_fmt(c.classid ? c.classid : c.parent, id, sizeof(id));
	mqtx_buf_printf(a->err, "RTNETLINK answers: %s (%s%s of %s)\n",
			strerror_r(-err, buf, sizeof(buf)),
			c.classid  ? "class "
			: c.parent ? "parent "
				   : "no classid",
			c.classid || c.parent ? id : "", c.dev);
	if (why[0])
		mqtx_buf_printf(a->err, "%s\n", why);
	return MQTX_TC_EXIT_REFUSED;
}

int mqtx__ctl_cmd_class(const struct mqtx_ctl_call *c, void *arg)
{
	const char *verb;
	struct mqtx_ctl_call call = mqtx__ctl_after_verb(c, "show", &verb), *a = &call;

	(void)arg;
	/* tc's do_class() order */
	if (mqtx__tc_matches(verb, "add"))
		return class_modify(a, MQTX_QREQ_CREATE | MQTX_QREQ_EXCL, false);
	if (mqtx__tc_matches(verb, "change"))
		return class_modify(a, 0, false);
	if (mqtx__tc_matches(verb, "replace"))
		return class_modify(a, MQTX_QREQ_CREATE | MQTX_QREQ_REPLACE, false);
	if (mqtx__tc_matches(verb, "delete"))
		return class_modify(a, 0, true);
	if (mqtx__tc_matches(verb, "list") || mqtx__tc_matches(verb, "show") ||
	    mqtx__tc_matches(verb, "lst"))
		return mqtx__ctl_show(a, true);
	return mqtx__ctl_verb_other(a, "class", verb, mqtx__class_usage);
}

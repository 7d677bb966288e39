// SPDX-License-Identifier: MIT
/* "filter add|replace|change|del|show": tc's grammar, messages, output and exit codes; the
 * filters live in blocks, which clsact, ingress and classful qdiscs hold, or shared by index. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"
#include "core/core.h"
#include "ctl/ctl_int.h"
#include "sched/qtree.h"

#define FILTER_USAGE                                                                            \
	"Usage: mqtx filter [ add | del | change | replace | show ] { dev STRING | block "      \
	"BLOCK_INDEX }\n"                                                                       \
	"       [ pref PRIO ] protocol PROTO [ chain CHAIN_INDEX ]\n"                           \
	"       [ root | ingress | egress | parent CLASSID ]\n"                                 \
	"       [ handle FILTERID ] [ [ FILTER_TYPE ] [ help | OPTIONS ] ]\n"                   \
	"\n"                                                                                    \
	"       mqtx filter show [ dev STRING ] [ root | ingress | egress | parent CLASSID ]\n" \
	"       mqtx filter show [ block BLOCK_INDEX ]\n"                                       \
	"       mqtx filter get { dev STRING | block BLOCK_INDEX } { root | ingress | egress |" \
	" parent CLASSID }\n"                                                                   \
	"       protocol PROTO pref PRIO [ chain CHAIN_INDEX ] handle FILTERID FILTER_TYPE\n"   \
	"       mqtx filter test dev STRING [ egress | ingress ] --src A[:P] --dst A[:P] ...\n" \
	"Where:\n"                                                                              \
	"FILTER_TYPE := { matchall | flower | u32 | basic }\n"                                  \
	"FILTERID := ... format depends on classifier, see there\n"                             \
	"OPTIONS := ... try mqtx filter add <desired FILTER_KIND> help\n"

/* ---- messages ---- */

/* What tc prints when the kernel refuses (iproute2 ends an extack message with a period). */
static int refused(const struct mqtx_ctl_call *a, int err, const struct mqtx_extack *ack)
{
	size_t n = strlen(ack->msg);
	char buf[128];

	if (n)
		mqtx_buf_printf(a->err, "Error: %s%s\n", ack->msg,
				ack->msg[n - 1] == '.' || ack->msg[n - 1] == ')' ? "" : ".");
	else
		mqtx_buf_printf(a->err, "RTNETLINK answers: %s\n",
				strerror_r(-err, buf, sizeof(buf)));
	mqtx_buf_printf(a->err, "We have an error talking to the kernel\n");
	return MQTX_TC_EXIT_REFUSED;
}

/* A parse that failed: tc's lines, tc's exit code. */
static int parse_failed(const struct mqtx_ctl_call *a, const struct tcf_parse *ps, int err)
{
	if (err == -ENOMEM) {
		mqtx_buf_printf(a->err, "Out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	mqtx_buf_printf(a->err, "%s", ps->err);
	return ps->exit ? ps->exit : MQTX_TC_EXIT_PARSE;
}

/* mirred's device names: the devices of the command's context that the caller may send to,
 * those it may change (a redirect feeds the device, and keeps it from being deleted). */
struct mqtx_dev *mqtx__ctl_mirred_dev(void *arg, const char *name, char *why, size_t whylen)
{
	const struct mqtx_ctl_call *c = arg;
	struct mqtx_dev *dev = mqtx__ctl_find_dev(c->ctl, name);
	struct mqtx_buf b;

	if (!dev)
		return NULL;
	mqtx_buf_init(&b);
	if (!mqtx__ctl_may_change_dev(
		    &(struct mqtx_ctl_call){ .ctl = c->ctl, .req = c->req, .err = &b },
		    "Error: mirred", dev)) {
		mqtx_buf_free(&b);
		return dev;
	}
	snprintf(why, whylen, "%.*s", b.len ? (int)b.len - 1 : 0, b.data ? b.data : "");
	if (!why[0])
		snprintf(why, whylen, "Error: mirred: Operation not permitted (device %s)", name);
	mqtx_buf_free(&b);
	return NULL;
}

/* mirred's blocks: a shared block that exists is the caller's to send to when it may use it
 * (a block made later is found when a packet comes, as Linux finds it). */
bool mqtx__ctl_mirred_block(void *arg, uint32_t index, char *why, size_t whylen)
{
	const struct mqtx_ctl_call *c = arg;
	struct mqtx_buf b;
	bool ok;

	mqtx_buf_init(&b);
	ok = !mqtx__ctl_may_use_block(
		&(struct mqtx_ctl_call){ .ctl = c->ctl, .req = c->req, .err = &b }, "Error: mirred",
		index);
	if (!ok)
		snprintf(why, whylen, "%.*s", b.len ? (int)b.len - 1 : 0, b.data ? b.data : "");
	if (!ok && !why[0])
		snprintf(why, whylen, "Error: mirred: Operation not permitted (block %u)", index);
	mqtx_buf_free(&b);
	return ok;
}

/* ---- add, replace, change, delete ---- */

static int apply(const struct mqtx_ctl_call *a, struct mqtx_dev *dev, const struct tcf_cmd *c,
		 struct tcf_prep *pp, struct mqtx_extack *ack)
{
	struct mqtx_tcf_block *b;
	int err;

	if (!dev) {
		err = mqtx__tcf_block_find(c->block, &b);
		if (err) {
			mqtx_extack_set(ack, "Block of given index was not found");
			return -EINVAL;
		}
		err = mqtx__tcf_apply(b, &c->rq, pp, ack);
		mqtx_tcf_block_put(b);
		return err;
	}
	(void)a;
	mqtx_dev_config_lock(dev);
	err = mqtx__ctl_filter_block(dev, c->parent, false, &b, ack);
	if (!err)
		err = mqtx__tcf_apply(b, &c->rq, pp, ack);
	mqtx_dev_config_unlock(dev);
	return err;
}

static int modify(const struct mqtx_ctl_call *a, int verb)
{
	struct mqtx_extack ack = { "" };
	struct tcf_prep pp = { 0 };
	struct mqtx_dev *dev = NULL;
	struct tcf_parse ps;
	struct tcf_cmd c;
	int err;

	err = mqtx__tcf_parse_head(a->argc, a->argv, verb, &c, &ps);
	if (err)
		return parse_failed(a, &ps, err);
	if (c.dev && !(dev = mqtx_ctl_call_dev(a, c.dev)))
		return MQTX_TC_EXIT_PARSE;
	/* The filters of a device are its owner's; a shared block's, its maker's. */
	err = dev ? mqtx__ctl_may_change_dev(a, "RTNETLINK answers", dev)
		  : mqtx__ctl_may_use_block(a, "RTNETLINK answers", c.block);
	if (err)
		return err;
	c.rq.find_dev = mqtx__ctl_mirred_dev;
	c.rq.may_block = mqtx__ctl_mirred_block;
	c.rq.find_arg = (void *)a;
	c.rq.acts = &a->ctl->acts;
	err = mqtx__tcf_prepare(&c.rq, &ps, &pp);
	if (err)
		return parse_failed(a, &ps, err);
	if (!dev && !c.block) {
		mqtx__tcf_prep_free(&pp);
		return refused(a, -ENODEV, &ack);
	}
	err = apply(a, dev, &c, &pp, &ack);
	mqtx__tcf_prep_free(&pp);
	return err ? refused(a, err, &ack) : MQTX_TC_EXIT_OK;
}

/* ---- show ---- */

struct show_args {
	const char *dev;
	uint32_t block, parent;
	struct tcf_show s;
};

static int parse_protocol(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	return mqtx__tcf_proto_parse(v, field);
}

#define SHOW(m) offsetof(struct show_args, m)

/* What filter show takes after a word, in the order tc_filter_list() tries them. */
static const struct tc_opt show_opts[] = {
	{ "dev", mqtx__tc_opt_str, SHOW(dev) },
	{ "block", mqtx__tc_opt_tc_u32, SHOW(block), .min = 1, .prefix = true },
	{ "parent", mqtx__tc_opt_classid, SHOW(parent) },
	{ "handle", mqtx__tc_opt_ignore }, /* tc takes it and lists every filter anyway */
	{ "preference", mqtx__tc_opt_tc_u32, SHOW(s.prio), .min = 1, .max = 0xFFFF,
	  .prefix = true },
	{ "priority", mqtx__tc_opt_tc_u32, SHOW(s.prio), .min = 1, .max = 0xFFFF, .prefix = true },
	{ "protocol", parse_protocol, SHOW(s.protocol), .prefix = true },
	{ "chain", mqtx__tc_opt_tc_u32, SHOW(s.chain),
	  .given = TC_OPT_GIVEN(struct show_args, s.has_chain), .prefix = true },
};

static int show_word(const struct mqtx_ctl_call *a, struct show_args *sa, int *i)
{
	const char *w = a->argv[*i], *v = *i + 1 < a->argc ? a->argv[*i + 1] : NULL;
	const struct tc_opt *o;

	if (!strcmp(w, "root") || !strcmp(w, "ingress") || !strcmp(w, "egress")) {
		if (sa->parent) {
			mqtx_buf_printf(a->err, "Error: \"%s\" is duplicate parent ID\n", w);
			return MQTX_TC_EXIT_ABORT;
		}
		sa->parent = w[0] == 'r'   ? MQTX_H_ROOT
			     : w[0] == 'i' ? TCF_PARENT_INGRESS
					   : TCF_PARENT_EGRESS;
		return 0;
	}
	o = mqtx__tc_opt_find(show_opts, ARRAY_SIZE(show_opts), w);
	if (!o) {
		mqtx_buf_printf(a->err, " What is \"%s\"? Try \"mqtx filter help\"\n", w);
		return MQTX_TC_EXIT_ABORT;
	}
	if (!v)
		return mqtx__ctl_incomplete(a->err);
	(*i)++;
	if (mqtx__tc_opt_apply(o, v, sa)) {
		mqtx_buf_printf(a->err, "Error: argument \"%s\" is wrong: invalid %s value\n", v,
				w);
		return MQTX_TC_EXIT_ABORT;
	}
	return 0;
}

/* "chain show": the kernel names the block by its qdisc's handle (or its index), which tc
 * leaves out when it is the parent the command named. */
static void show_chains(struct mqtx_dev *dev, struct mqtx_tcf_block *b, struct show_args *sa,
			struct tc_out *p)
{
	struct tcf_show s = sa->s;
	uint32_t q = 0;

	if (dev && !mqtx_tcf_block_index(b)) {
		struct mqtx_qdisc *root = mqtx__qtree_root(dev);

		q = !sa->parent || sa->parent == MQTX_H_ROOT ? (root ? root->handle : 0)
							     : MQTX_H_MAJ(sa->parent);
	}
	s.parent = q != sa->parent ? q : 0;
	s.block = q || sa->block ? 0 : mqtx_tcf_block_index(b);
	mqtx__tcf_chains(b, &s, NULL, p, &(struct mqtx_extack){ "" });
}

static int show(const struct mqtx_ctl_call *a, bool chains)
{
	struct show_args sa = { 0 };
	struct mqtx_tcf_block *b = NULL;
	int terse = 0;
	struct mqtx_dev *dev = NULL;
	struct mqtx_buf pb;
	struct tc_out p;
	int rc;

	for (int i = 0; i < a->argc; i++) {
		if (mqtx__tc_matches(a->argv[i], "help")) {
			mqtx_buf_printf(a->err, "%s", FILTER_USAGE);
			continue;
		}
		rc = show_word(a, &sa, &i);
		if (rc)
			return rc;
	}
	if (sa.dev && !(dev = mqtx_ctl_call_dev(a, sa.dev)))
		return MQTX_TC_EXIT_PARSE;
	if (!dev && sa.block && mqtx__tcf_block_find(sa.block, &b)) {
		mqtx_buf_printf(a->err, "Cannot find block \"%u\"\n", sa.block);
		return MQTX_TC_EXIT_PARSE;
	}
	sa.s.brief = !chains && (a->flags & MQTX_CTL_F_BRIEF);
	mqtx_buf_init(&pb);
	mqtx__out_init(&p, &pb, a->flags & MQTX_CTL_F_JSON, a->flags & MQTX_CTL_F_STATS,
		       a->flags & MQTX_CTL_F_DETAILS);
	mqtx__out_open_array(&p, NULL);
	if (dev) {
		struct mqtx_extack ack;

		/* An empty dump where nothing takes filters: no message, as tc. */
		mqtx_dev_config_lock(dev);
		if (!mqtx__ctl_filter_block(dev, sa.parent, true, &b, &ack)) {
			struct mqtx_qdisc *root = mqtx__qtree_root(dev);

			/* Without a parent the kernel names the root's handle on each line. */
			if (!sa.parent && root)
				sa.s.parent = root->handle;
			if (chains)
				show_chains(dev, b, &sa, &p);
			else
				terse = mqtx__tcf_show(b, &sa.s, &p);
		}
		mqtx_dev_config_unlock(dev);
	} else if (b) {
		if (chains)
			show_chains(NULL, b, &sa, &p);
		else
			terse = mqtx__tcf_show(b, &sa.s, &p);
		mqtx_tcf_block_put(b);
	}
	mqtx__out_close_array(&p);
	if (p.json && !pb.nomem)
		mqtx_buf_printf(a->out, "%s\n", pb.data);
	else if (pb.data && !pb.nomem)
		mqtx_buf_printf(a->out, "%s", pb.data);
	rc = pb.nomem ? MQTX_TC_EXIT_REFUSED : MQTX_TC_EXIT_OK;
	if (pb.nomem)
		mqtx_buf_printf(a->err, "Out of memory\n");
	if (!pb.nomem && terse) {
		/* What tc prints when the kernel's terse dump fails: EMSGSIZE, no more rules. */
		mqtx_buf_printf(a->err, "Error: Buffer too small for object.\nDump terminated\n");
		rc = MQTX_TC_EXIT_PARSE;
	}
	mqtx_buf_free(&pb);
	return rc;
}

/* ---- get ---- */

/* tc_filter_get()'s checks of the head, in its order; 0 or the exit code. */
static int get_head(const struct mqtx_ctl_call *a, const struct tcf_cmd *c, bool chain)
{
	const char *why = NULL;

	if (!chain && !c->has_protocol)
		why = "Must specify filter protocol";
	else if (!chain && !c->rq.prio)
		why = "Must specify filter priority";
	else if (!c->parent)
		why = "Must specify filter parent";
	else if (!chain && !c->rq.kind)
		why = "Must specify filter type";
	else if (!c->dev && !c->block)
		why = "Must specify netdevice \"dev\" or block index \"block\"";
	if (why) {
		mqtx_buf_printf(a->err, "%s\n", why);
		return MQTX_TC_EXIT_ABORT;
	}
	return 0;
}

/* The root qdisc's handle (what "root" names), 0 without one. Config lock held. */
static uint32_t root_handle(struct mqtx_dev *dev)
{
	struct mqtx_qdisc *q = mqtx__qtree_root(dev);

	return q ? q->handle : 0;
}

/* Print the rule or chain a get names in @b into @pb. */
static int get_print(const struct mqtx_ctl_call *a, struct mqtx_dev *dev, struct mqtx_tcf_block *b,
		     const struct tcf_cmd *c, uint32_t handle, bool chain, struct mqtx_buf *pb,
		     struct mqtx_extack *ack)
{
	struct tcf_show s = { .parent = c->parent };
	struct tc_out p;
	int err;

	mqtx__out_init(&p, pb, a->flags & MQTX_CTL_F_JSON, a->flags & MQTX_CTL_F_STATS,
		       a->flags & MQTX_CTL_F_DETAILS);
	mqtx__out_open_array(&p, NULL);
	if (chain) {
		/* tc_chain_fill_node(): the block named by its qdisc's handle, or its index */
		s.parent = !dev || mqtx_tcf_block_index(b) ? 0
			   : c->parent == MQTX_H_ROOT	   ? root_handle(dev)
							   : MQTX_H_MAJ(c->parent);
		s.block = s.parent ? 0 : mqtx_tcf_block_index(b);
		err = mqtx__tcf_chains(b, &s, &c->rq.chain, &p, ack);
	} else {
		struct tcf_get g = { .chain = c->rq.chain,
				     .prio = c->rq.prio,
				     .protocol = c->rq.protocol,
				     .kind = c->rq.kind,
				     .handle = handle };

		err = mqtx__tcf_get(b, &g, &s, &p, ack);
	}
	mqtx__out_close_array(&p);
	return err;
}

/* The block a get reads (a device's by its parent, a shared one by index) and its print. */
static int get_run(const struct mqtx_ctl_call *a, struct mqtx_dev *dev, const struct tcf_cmd *c,
		   uint32_t handle, bool chain, struct mqtx_buf *pb, struct mqtx_extack *ack)
{
	struct mqtx_tcf_block *b;
	int err;

	if (!dev) {
		if (mqtx__tcf_block_find(c->block, &b)) {
			mqtx_extack_set(ack, "Block of given index was not found");
			return -EINVAL;
		}
		err = get_print(a, NULL, b, c, handle, chain, pb, ack);
		mqtx_tcf_block_put(b);
		return err;
	}
	mqtx_dev_config_lock(dev);
	err = mqtx__ctl_filter_block(dev, c->parent, true, &b, ack);
	if (!err)
		err = get_print(a, dev, b, c, handle, chain, pb, ack);
	mqtx_dev_config_unlock(dev);
	return err;
}

/*
 * "filter get" (@chain false) and "chain get": the head as tc_filter_get() reads it; a filter's
 * handle is read by its classifier, whose options are parsed and must then be none; the rule
 * printed as "filter show" prints it, with what the command named left out but the parent.
 */
int mqtx__ctl_filter_get(const struct mqtx_ctl_call *a, bool chain)
{
	struct mqtx_extack ack = { "" };
	struct tcf_prep pp = { 0 };
	struct mqtx_dev *dev = NULL;
	struct tcf_parse ps;
	struct mqtx_buf pb;
	struct tcf_cmd c;
	int err, rc;

	err = mqtx__tcf_parse_head(a->argc, a->argv, 0, &c, &ps);
	if (err)
		return parse_failed(a, &ps, err);
	if (c.rq.kind && mqtx__tc_matches(c.rq.kind, "help")) {
		mqtx_buf_printf(a->err, "%s", FILTER_USAGE);
		return MQTX_TC_EXIT_OK;
	}
	rc = get_head(a, &c, chain);
	if (rc)
		return rc;
	if (c.dev && !(dev = mqtx_ctl_call_dev(a, c.dev)))
		return MQTX_TC_EXIT_PARSE;
	if (!chain) {
		err = mqtx__tcf_prepare(&c.rq, &ps, &pp);
		if (err)
			return parse_failed(a, &ps, err);
		mqtx__tcf_prep_free(&pp);
		if (!c.rq.handle) {
			mqtx_buf_printf(a->err, "Must specify filter \"handle\"\n");
			return MQTX_TC_EXIT_ABORT;
		}
	}
	if (c.rq.argc) {
		if (mqtx__tc_matches(c.rq.argv[0], "help"))
			mqtx_buf_printf(a->err, "%s", FILTER_USAGE);
		mqtx_buf_printf(a->err,
				"Garbage instead of arguments \"%s ...\". Try \"mqtx %s help\".\n",
				c.rq.argv[0], chain ? "chain" : "filter");
		return MQTX_TC_EXIT_ABORT;
	}
	mqtx_buf_init(&pb);
	err = get_run(a, dev, &c, pp.handle, chain, &pb, &ack);
	if (err) {
		mqtx_buf_free(&pb);
		return refused(a, err, &ack);
	}
	if (pb.nomem) {
		mqtx_buf_free(&pb);
		mqtx_buf_printf(a->err, "Out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	mqtx_buf_printf(a->out, "%s%s", pb.data ? pb.data : "",
			a->flags & MQTX_CTL_F_JSON ? "\n" : "");
	mqtx_buf_free(&pb);
	return MQTX_TC_EXIT_OK;
}

/* ---- the command ---- */

int mqtx__ctl_cmd_filter(const struct mqtx_ctl_call *c, void *arg)
{
	const char *verb;
	struct mqtx_ctl_call call = mqtx__ctl_after_verb(c, "show", &verb), *a = &call;

	(void)arg;
	if (mqtx__tc_matches(verb, "add"))
		return modify(a, MQTX_TCF_ADD);
	if (mqtx__tc_matches(verb, "change"))
		return modify(a, MQTX_TCF_CHANGE);
	if (mqtx__tc_matches(verb, "replace"))
		return modify(a, MQTX_TCF_REPLACE);
	if (mqtx__tc_matches(verb, "delete"))
		return modify(a, MQTX_TCF_DELETE);
	if (mqtx__tc_matches(verb, "show") || mqtx__tc_matches(verb, "list") ||
	    mqtx__tc_matches(verb, "lst"))
		return show(a, false);
	if (mqtx__tc_matches(verb, "get"))
		return mqtx__ctl_filter_get(a, false);
	if (!strcmp(verb, "test"))
		return mqtx__ctl_filter_test(a);
	return mqtx__ctl_verb_other(a, "filter", verb, FILTER_USAGE);
}

#define CHAIN_USAGE                                                                               \
	"Usage: mqtx chain [ list | show ] { dev STRING | block BLOCK_INDEX } [ root | ingress |" \
	" egress | parent CLASSID ] [ chain CHAIN_INDEX ]\n"                                      \
	"       mqtx chain get { dev STRING | block BLOCK_INDEX } { root | ingress | egress |"    \
	" parent CLASSID } chain CHAIN_INDEX\n"                                                   \
	"A chain exists while it holds filters: filter add ... chain N makes it.\n"

int mqtx__ctl_cmd_chain(const struct mqtx_ctl_call *c, void *arg)
{
	const char *verb;
	struct mqtx_ctl_call call = mqtx__ctl_after_verb(c, "show", &verb), *a = &call;

	(void)arg;
	if (mqtx__tc_matches(verb, "get"))
		return mqtx__ctl_filter_get(a, true);
	if (mqtx__tc_matches(verb, "list") || mqtx__tc_matches(verb, "show") ||
	    mqtx__tc_matches(verb, "lst"))
		return show(a, true);
	return mqtx__ctl_verb_other(a, "chain", verb, CHAIN_USAGE);
}

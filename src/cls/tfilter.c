// SPDX-License-Identifier: MIT
/*
 * Changing a block's rules as tc's filter commands do: the words parsed as tc parses them,
 * then Linux's decisions (tc_new_tfilter(), tc_del_tfilter()) on the block's rules, as one
 * transaction: the new rule set is made whole (every filter, action and lookup table), then
 * published with one store for every qdisc that shares the block; a failure changes nothing.
 */
#include <errno.h>

#include <mqtx/qdisc.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"

#define PRIO_AUTO_FIRST 0xC000u /* the first priority tc's filters get: 49152 */
#define PRIO_AUTO_LIMIT 0x8000u /* auto priorities stay above it */

/* ---- the words (tc's tc_filter_modify() and the kind's parse_fopt()) ---- */

static int parse_handle(const struct tcf_proto_ops *ops, const char *s, uint32_t *h,
			struct tcf_parse *ps)
{
	if (ops->parse_handle)
		return ops->parse_handle(s, h, ps);
	if (mqtx__tc_get_u32(s, h, 0))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"handle\"");
	return 0;
}

static int parse_words(const struct tcf_req *rq, struct tcf_parse *ps,
		       const struct tcf_proto_ops **ops, uint32_t *handle, struct tcf_filter **f)
{
	uint32_t h;
	int err;

	*ops = NULL;
	*handle = 0;
	*f = NULL;
	if (!rq->kind) {
		if (rq->handle)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
					      "Must specify filter type when using \"handle\"");
		if (rq->argc)
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_ABORT,
				"Garbage instead of arguments \"%s ...\". Try \"tc filter "
				"help\".",
				rq->argv[0]);
		return 0;
	}
	*ops = mqtx__tcf_proto_kind(rq->kind);
	if (!*ops) {
		/* tc's stand-in for a kind it does not know; the kernel refuses it then. */
		if (rq->argc)
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_PARSE,
				"Unknown filter \"%s\", hence option \"%s\" is unparsable",
				rq->kind, rq->argv[0]);
		if (rq->handle && mqtx__tc_get_u32(rq->handle, &h, 16))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Unparsable filter ID \"%s\"",
					      rq->handle);
		return 0;
	}
	if (rq->handle && (err = parse_handle(*ops, rq->handle, handle, ps)))
		return err;
	return (*ops)->parse(ps, *handle, f);
}

/* ---- add, replace, change (tc_new_tfilter()) ---- */

/*
 * tcf_chain_tp_find(): the priority @prio of @c, or NULL with *@before the first priority
 * above it (where a new one goes). An automatic priority (@prio 0) is found among those above
 * 0x8000, and goes just below the lowest of them.
 */
static int find_tp(const struct tcf_chain *c, uint32_t prio, uint16_t protocol,
		   const struct tcf_proto **tp, const struct tcf_proto **before,
		   struct mqtx_extack *ack)
{
	uint32_t want = prio ? prio : PRIO_AUTO_LIMIT;

	*tp = *before = NULL;
	for (unsigned i = 0; c && i < c->n; i++) {
		const struct tcf_proto *t = c->tps[i];

		if (t->prio < want)
			continue;
		if (t->prio == want && (!prio || (protocol && t->protocol != protocol))) {
			mqtx_extack_set(ack, "Filter with specified priority/protocol not found");
			return -EINVAL;
		}
		if (t->prio == want)
			*tp = t;
		else
			*before = t;
		break;
	}
	return 0;
}

/* Publish @rs in place of the block's rules: commit, which cannot fail. */
static int publish(struct mqtx_tcf_block *b, const struct tcf_ruleset *old, uint32_t chain,
		   const struct tcf_proto *gone, struct tcf_proto *new, bool flush)
{
	struct tcf_ruleset *rs;
	int err = mqtx__tcf_rs_edit(old, chain, gone, new, flush, &rs);

	if (err)
		return err;
	mqtx__tcf_block_commit(b, rs);
	return 0;
}

static int new_filter(struct mqtx_tcf_block *b, const struct tcf_req *rq,
		      const struct tcf_proto_ops *ops, struct tcf_filter **fp,
		      struct mqtx_extack *ack)
{
	bool create = rq->verb != MQTX_TCF_CHANGE, excl = rq->verb == MQTX_TCF_ADD;
	uint16_t protocol = rq->protocol ? rq->protocol : create ? MQTX_ETH_P_ALL : 0;
	const struct tcf_ruleset *rs = tcf_block_rules(b);
	const struct tcf_proto *tp, *before;
	struct tcf_filter *f = *fp, *old = NULL, **arr;
	struct tcf_proto *ntp;
	uint32_t prio = rq->prio;
	unsigned n;
	int err;

	if (!prio && !create) {
		mqtx_extack_set(ack, "Invalid filter command with priority of zero");
		return -ENOENT;
	}
	err = find_tp(mqtx__tcf_chain_find(rs, rq->chain), prio, protocol, &tp, &before, ack);
	if (err)
		return err;
	if (!tp) {
		if (!rq->kind || !protocol) {
			mqtx_extack_set(ack, "Filter kind and protocol must be specified");
			return -EINVAL;
		}
		if (!create) {
			mqtx_extack_set(ack, "Need both RTM_NEWTFILTER and NLM_F_CREATE to create "
					     "a new filter");
			return -ENOENT;
		}
		if (!ops) {
			mqtx_extack_set(ack, "TC classifier not found.");
			return -ENOENT;
		}
		if (!prio)
			prio = before ? before->prio - 1 : PRIO_AUTO_FIRST;
	} else if (rq->kind && (!ops || ops != tp->ops)) {
		mqtx_extack_set(ack, "Specified filter kind does not match existing one");
		return -EINVAL;
	} else {
		ops = tp->ops;
		protocol = tp->protocol;
	}
	if (ops->modify && f) {
		struct tcf_mod m = { .ops = ops,
				     .b = b,
				     .rs = rs,
				     .tp = tp,
				     .chain = rq->chain,
				     .prio = prio,
				     .protocol = protocol,
				     .excl = excl,
				     .create = create };

		return ops->modify(&m, fp, ack);
	}
	if (tp && f && f->handle)
		old = mqtx__tcf_proto_get(tp, f->handle);
	if (!old && !create) {
		mqtx_extack_set(ack, "Need both RTM_NEWTFILTER and NLM_F_CREATE to create a new "
				     "filter");
		return -ENOENT;
	}
	if (old && excl) {
		mqtx_extack_set(ack, "Filter already exists");
		return -EEXIST;
	}
	if (!f)
		return -EINVAL; /* no options to change it with (the kernel's answer) */
	if (!f->handle) {
		f->handle = ops->auto_handle ? ops->auto_handle(tp ? tp->root : NULL)
			    : tp	     ? mqtx__tcf_proto_free_handle(tp)
					     : 1;
		if (!f->handle)
			return -ENOSPC;
	}
	/* Prepare: the priority's new rules, its lookup built; then publish. A new highest
	 * handle (a batch's adds) is appended, without a copy of the others. */
	err = tp && !old ? mqtx__tcf_proto_append(tp, f, ack, &ntp) : -EAGAIN;
	if (err == -EAGAIN) {
		err = mqtx__tcf_proto_filters(tp, f, NULL, &arr, &n);
		if (err)
			return err;
		err = mqtx__tcf_proto_new(ops, prio, protocol, rq->chain, arr, n, ack, &ntp);
		mqtx__free(arr);
	}
	if (err)
		return err;
	err = publish(b, rs, rq->chain, tp, ntp, false);
	if (err) {
		mqtx__tcf_proto_free(ntp, false);
		return err;
	}
	*fp = NULL; /* published */
	return 0;
}

/* ---- delete (tc_del_tfilter()) ---- */

static int del_filter(struct mqtx_tcf_block *b, const struct tcf_req *rq,
		      const struct tcf_proto_ops *ops, uint32_t handle, struct mqtx_extack *ack)
{
	const struct tcf_ruleset *rs = tcf_block_rules(b);
	const struct tcf_chain *c = mqtx__tcf_chain_find(rs, rq->chain);
	const struct tcf_proto *tp = NULL;
	struct tcf_filter *f, **arr;
	struct tcf_proto *ntp;
	unsigned n;
	int err;

	if (!rq->prio && (rq->protocol || handle || rq->kind)) {
		mqtx_extack_set(ack, "Cannot flush filters with protocol, handle or kind set");
		return -ENOENT;
	}
	if (!c && !rq->prio)
		return 0; /* a flush of a chain that does not exist: nothing to do */
	if (!c) {
		mqtx_extack_set(ack, "Cannot find specified filter chain");
		return -ENOENT;
	}
	if (!rq->prio)
		return publish(b, rs, rq->chain, NULL, NULL, true);
	for (unsigned i = 0; i < c->n && !tp; i++)
		if (c->tps[i]->prio == rq->prio)
			tp = c->tps[i];
	if (!tp || (rq->protocol && tp->protocol != rq->protocol)) {
		mqtx_extack_set(ack, "Filter with specified priority/protocol not found");
		return tp ? -EINVAL : -ENOENT;
	}
	if (rq->kind && ops != tp->ops) {
		mqtx_extack_set(ack, "Specified filter kind does not match existing one");
		return -EINVAL;
	}
	if (tp->ops->remove) {
		struct tcf_mod m = { .ops = tp->ops,
				     .b = b,
				     .rs = rs,
				     .tp = tp,
				     .chain = rq->chain,
				     .prio = tp->prio,
				     .protocol = tp->protocol };

		return tp->ops->remove(&m, handle, ack);
	}
	if (!handle)
		return publish(b, rs, rq->chain, tp, NULL, false);
	f = mqtx__tcf_proto_get(tp, handle);
	if (!f) {
		mqtx_extack_set(ack, "Specified filter handle not found");
		return -ENOENT;
	}
	if (tp->root->n == 1)
		return publish(b, rs, rq->chain, tp, NULL, false); /* the last: the priority goes */
	err = mqtx__tcf_proto_filters(tp, NULL, f, &arr, &n);
	if (err)
		return err;
	err = mqtx__tcf_proto_new(tp->ops, tp->prio, tp->protocol, tp->chain, arr, n, ack, &ntp);
	mqtx__free(arr);
	if (err)
		return err;
	err = publish(b, rs, rq->chain, tp, ntp, false);
	if (err)
		mqtx__tcf_proto_free(ntp, false);
	return err;
}

/* ---- the command's head (tc_filter_modify()'s loop) ---- */

static int dup_word(struct tcf_parse *ps, const char *key, const char *v)
{
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
			      "Error: duplicate \"%s\": \"%s\" is the second value.", key, v);
}

static int bad_word(struct tcf_parse *ps, const char *v, const char *msg)
{
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT, "Error: argument \"%s\" is wrong: %s", v,
			      msg);
}

static int set_parent(struct tcf_cmd *c, struct tcf_parse *ps, const char *w, uint32_t parent)
{
	if (c->parent)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
				      "Error: \"%s\" is duplicate parent ID", w);
	c->parent = parent;
	return 0;
}

/* The keywords of the head that take a value, each with what it does with the value. */

static int head_dev(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	if (c->dev)
		return dup_word(ps, "dev", v);
	c->dev = v;
	return 0;
}

static int head_block(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	if (c->block)
		return dup_word(ps, "block", v);
	if (mqtx__tc_get_u32(v, &c->block, 0) || !c->block)
		return bad_word(ps, v, "invalid block index value");
	return 0;
}

static int head_parent(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	uint32_t x;

	if (c->parent)
		return dup_word(ps, "parent", v);
	if (mqtx__classid_parse(v, &x))
		return bad_word(ps, v, "Invalid parent ID");
	c->parent = x;
	return 0;
}

static int head_handle(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	if (c->rq.handle)
		return dup_word(ps, "handle", v);
	c->rq.handle = v;
	return 0;
}

static int head_prio(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	uint32_t x;

	if (c->rq.prio)
		return dup_word(ps, "priority", v);
	if (mqtx__tc_get_u32(v, &x, 0) || x > 0xFFFF)
		return bad_word(ps, v, "invalid priority value");
	c->rq.prio = x;
	return 0;
}

static int head_protocol(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	if (c->has_protocol)
		return dup_word(ps, "protocol", v);
	if (mqtx__tcf_proto_parse(v, &c->rq.protocol))
		return bad_word(ps, v, "invalid protocol");
	c->has_protocol = true;
	return 0;
}

static int head_chain(struct tcf_cmd *c, struct tcf_parse *ps, const char *v)
{
	if (c->has_chain)
		return dup_word(ps, "chain", v);
	if (mqtx__tc_get_u32(v, &c->rq.chain, 0))
		return bad_word(ps, v, "invalid chain index value");
	c->has_chain = true;
	return 0;
}

/* In the order tc_filter_modify() tries them; @prefix: tc's matches(), else the whole word. */
static const struct {
	const char *word;
	bool prefix;
	int (*fn)(struct tcf_cmd *c, struct tcf_parse *ps, const char *v);
} head_opts[] = {
	{ "dev", false, head_dev },	     { "block", true, head_block },
	{ "parent", false, head_parent },    { "handle", false, head_handle },
	{ "preference", true, head_prio },   { "priority", true, head_prio },
	{ "protocol", true, head_protocol }, { "chain", true, head_chain },
};

/* One keyword of the head at the current word; 1 when it is none (the kind). */
static int head_word(struct tcf_cmd *c, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);

	if (!strcmp(w, "root"))
		return set_parent(c, ps, w, MQTX_H_ROOT);
	if (!strcmp(w, "ingress"))
		return set_parent(c, ps, w, TCF_PARENT_INGRESS);
	if (!strcmp(w, "egress"))
		return set_parent(c, ps, w, TCF_PARENT_EGRESS);
	for (size_t i = 0; i < ARRAY_SIZE(head_opts); i++) {
		if (head_opts[i].prefix ? !mqtx__tc_matches(w, head_opts[i].word)
					: strcmp(w, head_opts[i].word))
			continue;
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		return head_opts[i].fn(c, ps, tcf_word(ps));
	}
	return 1;
}

int mqtx__tcf_parse_head(int argc, char **argv, int verb, struct tcf_cmd *c, struct tcf_parse *ps)
{
	int rc;

	memset(c, 0, sizeof(*c));
	mqtx__tcf_parse_init(ps, argc, argv);
	c->rq.verb = verb;
	while (tcf_word(ps)) {
		rc = head_word(c, ps);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			c->rq.kind = tcf_word(ps);
			ps->i++;
			break;
		}
		ps->i++;
	}
	/* tc sends "all" with add and replace when no protocol is given. */
	if (!c->has_protocol && (verb == MQTX_TCF_ADD || verb == MQTX_TCF_REPLACE))
		c->rq.protocol = MQTX_ETH_P_ALL;
	c->rq.argc = ps->argc - ps->i;
	c->rq.argv = ps->argv + ps->i;
	c->rq.parent = c->parent;
	return 0;
}

/* ---- prepare, apply ---- */

int mqtx__tcf_prepare(const struct tcf_req *rq, struct tcf_parse *ps, struct tcf_prep *pp)
{
	int err;

	mqtx__tcf_parse_init(ps, rq->argc, rq->argv);
	ps->protocol = rq->protocol ? rq->protocol : MQTX_ETH_P_ALL;
	ps->find_dev = rq->find_dev;
	ps->may_block = rq->may_block;
	ps->find_arg = rq->find_arg;
	ps->acts = rq->acts;
	ps->parent = rq->parent;
	err = parse_words(rq, ps, &pp->ops, &pp->handle, &pp->f);
	if (!err)
		err = mqtx__tcf_late(ps);
	if (err)
		mqtx__tcf_prep_free(pp);
	return err;
}

void mqtx__tcf_prep_free(struct tcf_prep *pp)
{
	if (pp->f)
		mqtx__tcf_filter_free(pp->ops, pp->f);
	pp->f = NULL;
}

int mqtx__tcf_apply(struct mqtx_tcf_block *b, const struct tcf_req *rq, struct tcf_prep *pp,
		    struct mqtx_extack *ack)
{
	int err;

	pthread_mutex_lock(&b->lock);
	if (rq->verb == MQTX_TCF_DELETE)
		err = del_filter(b, rq, pp->ops, pp->handle, ack);
	else
		err = new_filter(b, rq, pp->ops, &pp->f, ack);
	pthread_mutex_unlock(&b->lock);
	return err;
}

int mqtx_tcf_change(struct mqtx_tcf_block *b, int verb, int argc, char **argv,
		    struct mqtx_extack *ack)
{
	struct tcf_prep pp = { 0 };
	struct tcf_parse ps;
	struct tcf_cmd c;
	int err;

	if (!b || verb < MQTX_TCF_ADD || verb > MQTX_TCF_DELETE || argc < 0 || (argc && !argv))
		return -EINVAL;
	err = mqtx__tcf_parse_head(argc, argv, verb, &c, &ps);
	if (!err && (c.dev || c.block || c.parent))
		err = mqtx__tcf_perr(
			&ps, MQTX_TC_EXIT_PARSE,
			"the block is given: \"dev\", \"block\" and a parent do not apply");
	if (!err)
		err = mqtx__tcf_prepare(&c.rq, &ps, &pp);
	if (err) {
		/* tc's first message names the word it refused. */
		if (ps.errlen)
			mqtx_extack_set(ack, "%.*s", (int)strcspn(ps.err, "\n"), ps.err);
		return err;
	}
	err = mqtx__tcf_apply(b, &c.rq, &pp, ack);
	mqtx__tcf_prep_free(&pp);
	return err;
}

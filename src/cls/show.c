// SPDX-License-Identifier: MIT
/* "filter show" and "filter get": a block's chains, priorities and filters, each as tc's
 * print_filter() prints what the kernel dumps (one line per priority, then one entry per
 * filter), or the one filter tc_get_tfilter() finds; "chain get" and "chain show". */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/qdisc.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"

/* The start of an entry: "filter [dev X ][parent P ]protocol P pref N KIND chain C ". */
static void head(const struct tcf_show *s, const struct tcf_proto *tp, struct tc_out *p)
{
	char b[24];

	mqtx__out_open(p, NULL);
	mqtx__out_text(p, "filter ");
	if (s->dev)
		mqtx__out_str(p, OUT_ANY, "dev", "dev %s ", s->dev);
	if (s->block)
		mqtx__out_uint(p, OUT_ANY, "block", "block %llu ", s->block);
	if (s->parent == MQTX_H_ROOT)
		mqtx__out_bool(p, OUT_ANY, "root", "root ", true);
	else if (s->parent == TCF_PARENT_INGRESS)
		mqtx__out_bool(p, OUT_ANY, "ingress", "ingress ", true);
	else if (s->parent == TCF_PARENT_EGRESS)
		mqtx__out_bool(p, OUT_ANY, "egress", "egress ", true);
	else if (s->parent)
		mqtx__out_str(p, OUT_ANY, "parent", "parent %s ",
			      mqtx__classid_fmt(s->parent, b, sizeof(b)));
	if (!s->protocol)
		mqtx__out_str(p, OUT_ANY, "protocol", "protocol %s ",
			      mqtx__tcf_proto_name(tp->protocol, b, sizeof(b)));
	if (!s->prio)
		mqtx__out_uint(p, OUT_ANY, "pref", "pref %llu ", tp->prio);
	mqtx__out_str(p, OUT_ANY, "kind", "%s ", tp->ops->kind);
	if (!s->has_chain)
		mqtx__out_uint(p, OUT_ANY, "chain", "chain %llu ", tp->chain);
}

/* One filter's entry: the head, its options, the end of the line. */
static void show_filter(const struct tcf_show *s, const struct tcf_proto *tp,
			const struct tcf_filter *f, struct tc_out *p)
{
	head(s, tp, p);
	mqtx__out_open(p, "options");
	if (f && s->brief)
		tp->ops->terse_dump(tp, f, p);
	else if (f)
		tp->ops->dump(tp, f, p);
	else
		tp->ops->dump_head(tp, p);
	mqtx__out_close(p);
	mqtx__out_nl(p);
	mqtx__out_close(p);
}

static int show_tp(const struct tcf_show *s, const struct tcf_proto *tp, struct tc_out *p)
{
	/* The kernel dumps the priority itself first, without options. */
	head(s, tp, p);
	mqtx__out_nl(p);
	mqtx__out_close(p);
	/* A terse dump of a kind without one fails at its first filter (tcf_fill_node()). */
	if (s->brief && !tp->ops->terse_dump && (tp->ops->dump_head || tp->root->n))
		return -EMSGSIZE;
	/* what a classifier dumps of itself besides its filters (u32's hash table) */
	if (tp->ops->dump_head)
		show_filter(s, tp, NULL, p);
	for (unsigned i = 0;; i++) {
		const struct tcf_filter *f = tp->ops->walk     ? tp->ops->walk(tp, i)
					     : i < tp->root->n ? tp->root->filters[i]
							       : NULL;

		if (!f)
			break;
		show_filter(s, tp, f, p);
	}
	return 0;
}

int mqtx__tcf_show(struct mqtx_tcf_block *b, const struct tcf_show *s, struct tc_out *p)
{
	const struct tcf_ruleset *rs;
	int err = 0;

	pthread_mutex_lock(&b->lock);
	rs = tcf_block_rules(b);
	for (unsigned c = 0; rs && c < rs->nchains && !err; c++) {
		const struct tcf_chain *ch = &rs->chains[c];

		if (s->has_chain && ch->index != s->chain)
			continue;
		for (unsigned t = 0; t < ch->n && !err; t++) {
			const struct tcf_proto *tp = ch->tps[t];

			if ((s->prio && tp->prio != s->prio) ||
			    (s->protocol && tp->protocol != s->protocol))
				continue;
			err = show_tp(s, tp, p);
		}
	}
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* The filter of @handle as the kind's get() finds it (u32's, in any u32 priority of the block),
 * else among what the kind walks where it has a walk, else among @tp's filters. */
static const struct tcf_filter *get_filter(const struct tcf_ruleset *rs, const struct tcf_proto *tp,
					   uint32_t handle)
{
	const struct tcf_filter *f;

	if (tp->ops->find)
		return tp->ops->find(rs, tp, handle);
	if (!tp->ops->walk)
		return mqtx__tcf_proto_get(tp, handle);
	for (unsigned i = 0; (f = tp->ops->walk(tp, i)); i++)
		if (f->handle == handle)
			return f;
	return NULL;
}

int mqtx__tcf_get(struct mqtx_tcf_block *b, const struct tcf_get *g, const struct tcf_show *s,
		  struct tc_out *p, struct mqtx_extack *ack)
{
	const struct tcf_chain *ch;
	const struct tcf_proto *tp = NULL;
	const struct tcf_filter *f;
	int err = 0;

	/* tc_get_tfilter(), its checks in its order */
	if (!g->prio) {
		mqtx_extack_set(ack, "Invalid filter command with priority of zero");
		return -ENOENT;
	}
	if (g->chain > TCF_CHAIN_MAX) {
		mqtx_extack_set(ack, "Specified chain index exceeds upper limit");
		return -EINVAL;
	}
	pthread_mutex_lock(&b->lock);
	ch = mqtx__tcf_chain_find(tcf_block_rules(b), g->chain);
	if (!ch) {
		mqtx_extack_set(ack, "Cannot find specified filter chain");
		err = -EINVAL;
		goto out_unlock;
	}
	for (unsigned i = 0; i < ch->n && !tp; i++)
		if (ch->tps[i]->prio == g->prio)
			tp = ch->tps[i];
	if (!tp || (g->protocol && tp->protocol != g->protocol)) {
		mqtx_extack_set(ack, "Filter with specified priority/protocol not found");
		err = tp ? -EINVAL : -ENOENT;
		goto out_unlock;
	}
	if (g->kind && strcmp(g->kind, tp->ops->kind)) {
		mqtx_extack_set(ack, "Specified filter kind does not match existing one");
		err = -EINVAL;
		goto out_unlock;
	}
	f = get_filter(tcf_block_rules(b), tp, g->handle);
	if (f) {
		show_filter(s, tp, f, p);
	} else {
		mqtx_extack_set(ack, "Specified filter handle not found");
		err = -ENOENT;
	}
out_unlock:
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* "chain [ dev X ][ parent P | block N ]chain C": tc's print_filter() of RTM_NEWCHAIN. */
static void show_chain(const struct tcf_show *s, uint32_t index, struct tc_out *p)
{
	char b[24];

	mqtx__out_open(p, NULL);
	mqtx__out_text(p, "chain ");
	if (s->dev)
		mqtx__out_str(p, OUT_ANY, "dev", "dev %s ", s->dev);
	if (s->block)
		mqtx__out_uint(p, OUT_ANY, "block", "block %llu ", s->block);
	else if (s->parent)
		mqtx__out_str(p, OUT_ANY, "parent", "parent %s ",
			      mqtx__classid_fmt(s->parent, b, sizeof(b)));
	if (!s->has_chain)
		mqtx__out_uint(p, OUT_ANY, "chain", "chain %llu ", index);
	mqtx__out_nl(p);
	mqtx__out_close(p);
}

int mqtx__tcf_chains(struct mqtx_tcf_block *b, const struct tcf_show *s, const uint32_t *get,
		     struct tc_out *p, struct mqtx_extack *ack)
{
	const struct tcf_ruleset *rs;
	int err = 0;

	if (get && *get > TCF_CHAIN_MAX) {
		mqtx_extack_set(ack, "Specified chain index exceeds upper limit");
		return -EINVAL;
	}
	pthread_mutex_lock(&b->lock);
	rs = tcf_block_rules(b);
	if (get && !mqtx__tcf_chain_find(rs, *get)) {
		/* tc_ctl_chain(): a chain exists while it holds filters */
		mqtx_extack_set(ack, "Cannot find specified filter chain");
		err = -EINVAL;
	} else if (get) {
		show_chain(s, *get, p);
	}
	for (unsigned c = 0; !get && rs && c < rs->nchains; c++)
		if (!s->has_chain || rs->chains[c].index == s->chain)
			show_chain(s, rs->chains[c].index, p);
	pthread_mutex_unlock(&b->lock);
	return err;
}

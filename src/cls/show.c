// SPDX-License-Identifier: MIT
/* "filter show": a block's chains, priorities and filters, each as tc's print_filter() prints
 * what the kernel dumps (one line per priority, then one entry per filter). */
#include <stdio.h>

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

static void show_tp(const struct tcf_show *s, const struct tcf_proto *tp, struct tc_out *p)
{
	/* The kernel dumps the priority itself first, without options. */
	head(s, tp, p);
	mqtx__out_nl(p);
	mqtx__out_close(p);
	/* what a classifier dumps of itself besides its filters (u32's hash table) */
	if (tp->ops->dump_head) {
		head(s, tp, p);
		mqtx__out_open(p, "options");
		tp->ops->dump_head(tp, p);
		mqtx__out_close(p);
		mqtx__out_nl(p);
		mqtx__out_close(p);
	}
	for (unsigned i = 0;; i++) {
		const struct tcf_filter *f = tp->ops->walk     ? tp->ops->walk(tp, i)
					     : i < tp->root->n ? tp->root->filters[i]
							       : NULL;

		if (!f)
			break;
		head(s, tp, p);
		mqtx__out_open(p, "options");
		tp->ops->dump(tp, f, p);
		mqtx__out_close(p);
		mqtx__out_nl(p);
		mqtx__out_close(p);
	}
}

void mqtx__tcf_show(struct mqtx_tcf_block *b, const struct tcf_show *s, struct tc_out *p)
{
	const struct tcf_ruleset *rs;

	pthread_mutex_lock(&b->lock);
	rs = tcf_block_rules(b);
	for (unsigned c = 0; rs && c < rs->nchains; c++) {
		const struct tcf_chain *ch = &rs->chains[c];

		if (s->has_chain && ch->index != s->chain)
			continue;
		for (unsigned t = 0; t < ch->n; t++) {
			const struct tcf_proto *tp = ch->tps[t];

			if ((s->prio && tp->prio != s->prio) ||
			    (s->protocol && tp->protocol != s->protocol))
				continue;
			show_tp(s, tp, p);
		}
	}
	pthread_mutex_unlock(&b->lock);
}

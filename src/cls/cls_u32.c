// SPDX-License-Identifier: MIT
/*
 * u32 (Linux's cls_u32.c): hash tables of key nodes. Every priority starts with one table, 800:,
 * of one bucket; "divisor N" adds a table of N buckets, a node is placed in a table's bucket
 * ("ht 1:2:", or the bucket tc computes from "sample"), and a node that links to a table sends
 * the search into the bucket its hash key picks, with the offset it computes ("offset ... eat").
 * The data path is u32_classify()'s walk: nodes in the order of their handles, a stack of
 * links at most TC_U32_MAXDEPTH deep. The filters of a priority are its tables and nodes in
 * handle order; build() makes the index the walk reads: each table's buckets as runs of nodes,
 * each node's link resolved to its table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/dev.h>

#include "cls/kinds.h"
#include "cls/u32.h"

#define U32_MAXDEPTH 8 /* TC_U32_MAXDEPTH */

struct u32_ht;

/* A node in its bucket, its link resolved (NULL with n->link: a table of another priority). */
struct u32_ent {
	const struct u32_filter *n;
	const struct u32_ht *down;
};

/* A table: bucket b holds ents[start[b]] up to ents[start[b + 1]]. */
struct u32_ht {
	uint32_t handle;
	uint32_t mask; /* divisor - 1 */
	const struct u32_filter *tbl;
	const unsigned *start;
	const struct u32_ent *ents; /* its index's */
};

struct u32_index {
	unsigned nht, nwalk;
	struct u32_ht *ht;	   /* by handle */
	const struct u32_ht *root; /* the priority's own root table */
	struct u32_ent *ents;
	const struct tcf_filter **walk; /* the dump's order */
};

/* ---- data path ---- */

/* skb_header_pointer_careful(): @n bytes at @off of the frame, or false past either end. */
static inline bool peek(const struct mqtx_pkt *pkt, int off, void *to, unsigned n)
{
	if (off < 0 || (uint32_t)off + n > pkt->len)
		return false;
	memcpy(to, pkt->data + off, n);
	return true;
}

static inline void count(const atomic_ullong *c, const struct tcf_pkt *pk)
{
	if (!pk->dry)
		atomic_fetch_add_explicit((atomic_ullong *)c, 1, memory_order_relaxed);
}

static bool indev_ok(const struct u32_filter *n, const struct tcf_pkt *pk)
{
	/* tcf_match_indev(): the device the packet is on stands for the one it came in by */
	return !n->indev[0] || (pk->dev && !strcmp(mqtx_dev_name(pk->dev), n->indev));
}

/* The bucket of @ht that @n's hash key picks (u32_hash_fold()); false past the frame. */
static bool bucket(const struct u32_filter *n, const struct u32_ht *ht, const struct tcf_pkt *pk,
		   int off, unsigned *sel)
{
	uint32_t w, m = ntohl(n->sel.hmask);

	*sel = 0;
	if (!ht->mask)
		return true;
	if (!peek(pk->pkt, off + n->sel.hoff, &w, 4))
		return false;
	*sel = ht->mask & (m ? (ntohl(w & n->sel.hmask) >> __builtin_ctz(m)) : 0);
	return true;
}

/* The offset a link computes (TC_U32_OFFSET/VAROFFSET) into *@off2; false past the frame. */
static bool link_offset(const struct u32_filter *n, const struct tcf_pkt *pk, int off, int *off2)
{
	uint16_t h;

	if (!(n->sel.flags & (U32_OFFSET | U32_VAROFFSET)))
		return true;
	*off2 = n->sel.off + 3;
	if (n->sel.flags & U32_VAROFFSET) {
		if (!peek(pk->pkt, off + n->sel.offoff, &h, 2))
			return false;
		*off2 += ntohs(n->sel.offmask & h) >> n->sel.offshift;
	}
	*off2 &= ~3;
	return true;
}

static const struct u32_ht *ht_of(const struct u32_index *x, uint32_t handle)
{
	unsigned lo = 0, hi = x->nht;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (x->ht[mid].handle < U32_HTID(handle))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nht && x->ht[lo].handle == U32_HTID(handle) ? &x->ht[lo] : NULL;
}

/* The table @htid of another u32 priority of the rules the packet runs through (the block's
 * tables are shared); NULL when none has it (a chain flushed under the link). */
static const struct u32_ht *foreign(const struct tcf_ruleset *rs, uint32_t htid)
{
	const struct u32_ht *ht;

	for (unsigned c = 0; rs && c < rs->nchains; c++)
		for (unsigned t = 0; t < rs->chains[c].n; t++) {
			const struct tcf_proto *tp = rs->chains[c].tps[t];

			if (tp->ops == &mqtx__tcf_u32_ops && (ht = ht_of(tp->root->index, htid)))
				return ht;
		}
	return NULL;
}

/* u32_classify(): the walk from the root table's bucket through the tables nodes link to. */
static int u32_classify(const struct tcf_proto *tp, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct u32_index *x = tp->root->index;
	struct {
		const struct u32_ent *e, *end;
		int off;
	} stack[U32_MAXDEPTH];
	const struct u32_ent *e, *end;
	const struct u32_filter *n;
	const struct u32_ht *ht;
	int off, off2 = 0, depth = 0, v;
	unsigned sel = 0;
	uint32_t w;

	if (!pk->located)
		mqtx__tcf_locate(pk);
	off = pk->l3;
	ht = x->root;
	if (!ht)
		return MQTX_ACT_UNSPEC;
next_ht:
	e = &ht->ents[ht->start[sel]];
	end = &ht->ents[ht->start[sel + 1]];
	for (; e < end; e++) {
		n = e->n;
		count(&n->f.tries, pk);
		if (n->has_mark) {
			if ((pk->pkt->mark & n->mark_mask) != n->mark)
				continue;
			count(&n->mark_hits, pk);
		}
		for (unsigned i = 0; i < n->sel.nkeys; i++) {
			const struct u32_key *k = &n->keys[i];

			if (!peek(pk->pkt, off + k->off + (off2 & (int)k->offmask), &w, 4))
				return MQTX_ACT_UNSPEC;
			if ((w ^ k->val) & k->mask)
				goto next_node;
			count(&k->hits, pk);
		}
		if (!n->link) {
		check_terminal:
			if (n->sel.flags & U32_TERMINAL && indev_ok(n, pk)) {
				v = tcf_filter_hit(tp, (struct tcf_filter *)&n->f, pk, res);
				if (v >= 0)
					return v;
			}
			continue;
		}
		if (depth >= U32_MAXDEPTH)
			return MQTX_ACT_UNSPEC; /* Linux's "cls_u32: dead loop" */
		stack[depth].e = e;
		stack[depth].end = end;
		stack[depth++].off = off;
		ht = e->down ? e->down : foreign(pk->rs, n->link);
		if (!ht)
			return MQTX_ACT_UNSPEC;
		if (!bucket(n, ht, pk, off, &sel) || !link_offset(n, pk, off, &off2))
			return MQTX_ACT_UNSPEC;
		if (n->sel.flags & U32_EAT) {
			off += off2;
			off2 = 0;
		}
		if (off < (int)pk->pkt->len)
			goto next_ht;
		break;
	next_node:;
	}
	if (depth--) { /* back to the node that linked, which may itself be terminal */
		e = stack[depth].e;
		end = stack[depth].end;
		off = stack[depth].off;
		n = e->n;
		goto check_terminal;
	}
	return MQTX_ACT_UNSPEC;
}

/* ---- the index ---- */

/* Drop the nodes of a table that is gone (a table's deletion takes its nodes). The filters are
 * in handle order, and a table's handle (its htid, with no bucket or node) comes right before
 * its nodes': a node stays if the last table passed is its own. */
static void compact(struct tcf_root *r)
{
	uint32_t table = 0; /* no table has handle 0 */
	unsigned k = 0;

	for (unsigned i = 0; i < r->n; i++) {
		const struct u32_filter *u = u32_of(r->filters[i]);

		if (u->table)
			table = u->f.handle;
		if (u->table || U32_HTID(u->f.handle) == table)
			r->filters[k++] = r->filters[i];
	}
	r->n = k;
}

/* The runs of nodes of each table's buckets (@nodes: the nodes in handle order). */
static void fill_buckets(struct u32_index *x, unsigned *starts, unsigned nnodes)
{
	unsigned pos = 0;

	for (unsigned t = 0; t < x->nht; t++) {
		struct u32_ht *h = &x->ht[t];

		h->start = starts;
		h->ents = x->ents;
		for (uint32_t b = 0; b <= h->mask; b++) {
			starts[b] = pos;
			while (pos < nnodes && U32_HTID(x->ents[pos].n->f.handle) == h->handle &&
			       U32_HASH(x->ents[pos].n->f.handle) == b)
				pos++;
		}
		starts[h->mask + 1] = pos;
		starts += h->mask + 2;
		while (pos < nnodes && U32_HTID(x->ents[pos].n->f.handle) == h->handle)
			pos++;
	}
}

/* The dump's order: the priority's tables newest first (its root among them, made with it),
 * each followed by its nodes. */
static void fill_walk(struct u32_index *x)
{
	unsigned k = 0;
	uint64_t below = UINT64_MAX;

	for (;;) {
		const struct u32_ht *h = NULL;

		for (unsigned t = 0; t < x->nht; t++) {
			uint64_t born = x->ht[t].tbl->born;

			if (born < below && (!h || born > h->tbl->born))
				h = &x->ht[t];
		}
		if (!h)
			break;
		below = h->tbl->born;
		x->walk[k++] = &h->tbl->f;
		for (unsigned i = h->start[0]; i < h->start[h->mask + 1]; i++)
			x->walk[k++] = &x->ents[i].n->f;
	}
	x->nwalk = k;
}

static int u32_build(struct tcf_root *r, struct mqtx_extack *ack)
{
	unsigned nht = 0, nnodes = 0, nstarts = 0, t = 0, k = 0;
	struct u32_index *x;
	unsigned *starts;
	size_t size;

	(void)ack;
	compact(r);
	for (unsigned i = 0; i < r->n; i++) {
		const struct u32_filter *u = u32_of(r->filters[i]);

		nht += u->table;
		nnodes += !u->table;
		nstarts += u->table ? u->divisor + 1 : 0;
	}
	size = sizeof(*x) + nht * sizeof(*x->ht) + nnodes * sizeof(*x->ents) +
	       (nht + nnodes) * sizeof(*x->walk) + nstarts * sizeof(unsigned);
	x = mqtx__zalloc(size);
	if (!x)
		return -ENOMEM;
	x->ht = (struct u32_ht *)(x + 1);
	x->ents = (struct u32_ent *)(x->ht + nht);
	x->walk = (const struct tcf_filter **)(x->ents + nnodes);
	starts = (unsigned *)(x->walk + nht + nnodes);
	x->nht = nht;
	/* the tables in handle order, the root's among them; the nodes in handle order */
	for (unsigned i = 0; i < r->n; i++) {
		const struct u32_filter *u = u32_of(r->filters[i]);

		if (u->table)
			x->ht[t++] = (struct u32_ht){ .handle = u->f.handle,
						      .mask = u->divisor - 1,
						      .tbl = u };
		else
			x->ents[k++].n = u;
		if (u->root)
			x->root = &x->ht[t - 1];
	}
	/* a link to a table of another priority is found at its use (foreign()) */
	for (unsigned i = 0; i < nnodes; i++)
		if (x->ents[i].n->link)
			x->ents[i].down = ht_of(x, x->ents[i].n->link);
	fill_buckets(x, starts, nnodes);
	fill_walk(x);
	r->index = x;
	return 0;
}

static void u32_free_index(void *index)
{
	mqtx__free(index);
}

static const struct tcf_filter *u32_walk(const struct tcf_proto *tp, unsigned i)
{
	const struct u32_index *x = tp->root->index;

	return i < x->nwalk ? x->walk[i] : NULL;
}

/* ---- printing (u32_print_opt()) ---- */

static void dump_sel(const struct u32_filter *u, struct tc_out *p)
{
	const struct u32_sel *s = &u->sel;
	char b[16];

	for (unsigned i = 0; i < s->nkeys; i++) {
		const struct u32_key *k = &u->keys[i];

		mqtx__out_open(p, "match");
		mqtx__out_nl(p);
		snprintf(b, sizeof(b), "%08x", ntohl(k->val));
		mqtx__out_str(p, OUT_ANY, "value", "  match %s", b);
		snprintf(b, sizeof(b), "%08x", ntohl(k->mask));
		mqtx__out_str(p, OUT_ANY, "mask", "/%s ", b);
		mqtx__out_str(p, OUT_ANY, "offmask", "at %s", k->offmask ? "nexthdr+" : "");
		mqtx__out_int(p, OUT_ANY, "off", "%lld", k->off);
		mqtx__out_close(p);
		if (p->stats)
			mqtx__out_uint(p, OUT_ANY, "success", " (success %llu ) ",
				       atomic_load(&k->hits));
	}
	if (s->flags & (U32_OFFSET | U32_VAROFFSET)) {
		mqtx__out_nl(p);
		mqtx__out_text(p, "    offset ");
		if (s->flags & U32_VAROFFSET) {
			snprintf(b, sizeof(b), "%04x", ntohs(s->offmask));
			mqtx__out_str(p, OUT_ANY, "offset_mask", "%s", b);
			mqtx__out_int(p, OUT_ANY, "offset_shift", ">>%lld ", s->offshift);
			mqtx__out_int(p, OUT_ANY, "offset_off", "at %lld ", s->offoff);
		}
		if (s->off)
			mqtx__out_int(p, OUT_ANY, "plus", "plus %lld ", s->off);
	}
	/* tc prints " eat " as a JSON value without a key; mqtx keeps the JSON valid */
	if (s->flags & U32_EAT)
		mqtx__out_bool(p, OUT_ANY, "eat", " eat ", true);
	if (s->hmask) {
		mqtx__out_nl(p);
		snprintf(b, sizeof(b), "%08x", ntohl(s->hmask));
		mqtx__out_str(p, OUT_ANY, "hash_mask", "    hash mask %s ", b);
		mqtx__out_int(p, OUT_ANY, "hash_off", "at %lld ", s->hoff);
	}
}

static void u32_dump(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p)
{
	const struct u32_filter *u = u32_of(f);
	char b[32];

	(void)tp;
	mqtx__out_str(p, OUT_ANY, "fh", "fh %s ", mqtx__u32_handle_fmt(f->handle, b, sizeof(b)));
	if (u->table) {
		mqtx__out_int(p, OUT_ANY, "ht_divisor", "ht divisor %lld ", u->divisor);
		return;
	}
	mqtx__out_int(p, OUT_ANY, "order", "order %lld ", U32_NODE(f->handle));
	snprintf(b, sizeof(b), "%x", U32_HTID(f->handle) >> 20);
	mqtx__out_str(p, OUT_ANY, "key_ht", "key ht %s ", b);
	snprintf(b, sizeof(b), "%x", U32_HASH(f->handle));
	mqtx__out_str(p, OUT_ANY, "bkt", "bkt %s ", b);
	if (f->classid) {
		if (!(u->sel.flags & U32_TERMINAL))
			mqtx__out_text(p, "*");
		mqtx__out_str(p, OUT_ANY, "flowid", "flowid %s ",
			      mqtx__classid_fmt(f->classid, b, sizeof(b)));
	} else if (u->sel.flags & U32_TERMINAL) {
		mqtx__out_text(p, "terminal flowid ");
	}
	if (u->link)
		mqtx__out_str(p, OUT_ANY, "link", "link %s ",
			      mqtx__u32_handle_fmt(u->link, b, sizeof(b)));
	if (u->skip_hw)
		mqtx__out_bool(p, OUT_ANY, "skip_hw", "skip_hw ", true);
	mqtx__out_bool(p, OUT_ANY, "not_in_hw", "not_in_hw ", true);
	if (p->stats) {
		mqtx__out_uint(p, OUT_ANY, "rule_hit", "(rule hit %llu ", atomic_load(&f->tries));
		mqtx__out_uint(p, OUT_ANY, "success", "success %llu)", atomic_load(&f->hits));
	}
	if (u->has_mark) {
		mqtx__out_nl(p);
		snprintf(b, sizeof(b), "0x%04x", u->mark);
		mqtx__out_str(p, OUT_ANY, "fwmark_value", "  mark %s ", b);
		snprintf(b, sizeof(b), "0x%04x", u->mark_mask);
		mqtx__out_str(p, OUT_ANY, "fwmark_mask", "%s ", b);
		mqtx__out_uint(p, OUT_ANY, "fwmark_success", "(success %llu)",
			       atomic_load(&u->mark_hits));
	}
	dump_sel(u, p);
	if (u->indev[0]) {
		mqtx__out_nl(p);
		mqtx__out_str(p, OUT_ANY, "input_dev", "  input dev %s", u->indev);
		mqtx__out_nl(p);
	}
	mqtx__tcf_exts_dump(&f->exts, p);
}

const struct tcf_proto_ops mqtx__tcf_u32_ops = {
	.kind = "u32",
	.usage = mqtx__u32_usage,
	.parse_handle = mqtx__u32_parse_handle,
	.parse = mqtx__u32_parse,
	.modify = mqtx__u32_modify,
	.build = u32_build,
	.free_index = u32_free_index,
	.classify = u32_classify,
	.dump = u32_dump,
	.walk = u32_walk,
	.remove = mqtx__u32_remove,
	.find = mqtx__u32_find,
};

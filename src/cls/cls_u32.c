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
#include <mqtx/flow.h>

#include "cls/kinds.h"
#include "cls/u32.h"

#define U32_MAXDEPTH 8 /* TC_U32_MAXDEPTH */

struct u32_ht;

/* A node in its bucket, its link resolved. */
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
};

struct u32_index {
	unsigned nht, nwalk;
	struct u32_ht *ht; /* by handle */
	const struct u32_ht *root;
	struct u32_ent *ents;
	const struct tcf_filter **walk; /* the dump's order */
};

/* What the dump shows of every priority's root table. */
static struct u32_filter root_table = { .f.handle = U32_ROOT, .table = true, .divisor = 1 };

/* Tables are dumped newest first, as Linux adds each at the head of its list. */
static atomic_ullong tables_born;

/* ---- data path ---- */

static void locate(struct tcf_pkt *pk)
{
	struct mqtx_flow_keys fk;

	mqtx_flow_dissect(pk->pkt->data, pk->pkt->len, &fk);
	pk->l3 = fk.l3_off ? fk.l3_off : 14;
	pk->l4 = fk.l4_off;
	pk->located = true;
}

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
		locate(pk);
	off = pk->l3;
	ht = x->root;
next_ht:
	e = &x->ents[ht->start[sel]];
	end = &x->ents[ht->start[sel + 1]];
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
		if (!e->down) {
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
		ht = e->down;
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

/* ---- control path: the kernel's decisions (u32_change(), u32_delete()) ---- */

static const struct u32_filter *find(const struct tcf_root *r, uint32_t handle, unsigned *at)
{
	unsigned lo = 0, hi = r ? r->n : 0;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (r->filters[mid]->handle < handle)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return r && lo < r->n && r->filters[lo]->handle == handle ? u32_of(r->filters[lo]) : NULL;
}

/* The table of @htid (its TABLE part), the root's included. */
static const struct u32_filter *table(const struct tcf_root *r, uint32_t htid)
{
	const struct u32_filter *t;

	if (U32_HTID(htid) == U32_ROOT)
		return &root_table;
	t = find(r, U32_HTID(htid), NULL);
	return t && t->table ? t : NULL;
}

/* gen_new_htid(): after the highest automatic table (801: to fff:), else the lowest free. */
static uint32_t new_htid(const struct tcf_root *r)
{
	uint32_t top = 0;

	for (unsigned i = 0; r && i < r->n; i++)
		if (u32_of(r->filters[i])->table && r->filters[i]->handle & U32_ROOT)
			top = (r->filters[i]->handle >> 20) & 0x7FF;
	for (uint32_t id = top + 1, tries = 0; tries < 0x7FF; id = id % 0x7FF + 1, tries++)
		if (!table(r, (id | 0x800) << 20))
			return (id | 0x800) << 20;
	return 0;
}

/* gen_new_kid(): the lowest free node from 0x800 in the bucket of @htid, else from 1. */
static uint32_t new_kid(const struct tcf_root *r, uint32_t htid)
{
	uint32_t from[2] = { htid | 0x800, htid | 1 };

	for (int k = 0; k < 2; k++) {
		uint32_t h = from[k];
		unsigned at;

		find(r, h, &at);
		for (; r && at < r->n && r->filters[at]->handle == h && U32_NODE(h) < 0xFFF; at++)
			h++;
		if (!find(r, h, NULL))
			return h;
	}
	return 0;
}

static int fail(struct mqtx_extack *ack, int err, const char *msg)
{
	mqtx_extack_set(ack, "%s", msg);
	return err;
}

/* The kernel's message, and the handle it is about. */
static int failh(struct mqtx_extack *ack, int err, const char *msg, uint32_t h)
{
	char b[24];

	mqtx_extack_set(ack, "%s. (%s)", msg, mqtx__u32_handle_fmt(h, b, sizeof(b)));
	return err;
}

static int check_link(const struct tcf_root *r, const struct u32_filter *u, struct mqtx_extack *ack)
{
	if (!u->link)
		return 0;
	if (U32_KEY(u->link))
		return failh(ack, -EINVAL, "cls_u32: u32 Link handle must be a hash table",
			     u->link);
	if (U32_HTID(u->link) == U32_ROOT)
		return failh(ack, -EINVAL, "cls_u32: Not linking to root node", u->link);
	if (!table(r, u->link))
		return failh(ack, -EINVAL, "cls_u32: Link hash table not found", u->link);
	return 0;
}

/* A new table: its handle given (a table's, not taken) or the next automatic one. */
static int place_table(const struct tcf_root *r, struct u32_filter *u, struct mqtx_extack *ack)
{
	if (U32_KEY(u->f.handle))
		return failh(ack, -EINVAL, "cls_u32: Divisor can only be used on a hash table",
			     u->f.handle);
	if (!u->f.handle)
		u->f.handle = new_htid(r);
	if (!u->f.handle)
		return -ENOMEM;
	u->born = atomic_fetch_add(&tables_born, 1) + 1;
	return 0;
}

/* A new node: its table and bucket, then its handle (u32_change()'s comment explains). */
static int place_node(const struct tcf_root *r, struct u32_filter *u, struct mqtx_extack *ack)
{
	uint32_t htid = u->htid, handle = u->f.handle;
	const struct u32_filter *t = &root_table;

	if (!htid || U32_HTID(htid) == 0xFFF00000u) {
		htid = U32_ROOT;
	} else if (!(t = table(r, htid))) {
		return failh(ack, -EINVAL, "cls_u32: Specified hash table not found", htid);
	}
	if (U32_HASH(htid) >= t->divisor)
		return failh(ack, -EINVAL,
			     "cls_u32: Specified hash table buckets exceed configured value", htid);
	if (handle && U32_HTID(handle) && U32_HTID(handle ^ htid))
		return failh(ack, -EINVAL, "cls_u32: Handle specified hash table address mismatch",
			     handle);
	if (handle && U32_NODE(handle)) {
		handle = htid | U32_NODE(handle);
		if (find(r, handle, NULL))
			return -ENOSPC;
	} else if (!(handle = new_kid(r, htid))) {
		return failh(ack, -ENOSPC, "cls_u32: Hash table node ID pool exhausted", htid);
	}
	if (!u->sel_ok)
		return fail(ack, -EINVAL, "cls_u32: Selector not specified");
	if (u->sel.offshift >= 16) {
		mqtx_extack_set(ack, "cls_u32: offshift must be less than 16. (shift %u)",
				u->sel.offshift);
		return -EINVAL;
	}
	u->f.handle = handle;
	u->htid = U32_HTID(handle) | (handle & 0xFF000);
	return check_link(r, u, ack);
}

/*
 * A change of node @old (u32_init_knode() and u32_set_parms()): the node keeps its selector,
 * mark, table and flags, and its counters go on; it takes the command's actions and class,
 * and its link and input device when the command gives them. The new filter replaces *@fp.
 */
static int change_node(const struct tcf_root *r, struct tcf_filter **fp,
		       const struct u32_filter *old, struct mqtx_extack *ack)
{
	struct u32_filter *u = u32_of(*fp), *n;
	size_t keys = old->sel.nkeys * sizeof(struct u32_key);
	int err;

	if (u->skip_hw != old->skip_hw)
		return fail(ack, -EINVAL, "cls_u32: Key node flags do not match passed flags");
	n = (struct u32_filter *)mqtx__tcf_filter_alloc(sizeof(*n) + keys, old->f.handle);
	if (!n)
		return -ENOMEM;
	n->htid = old->htid;
	n->link = u->link ? u->link : old->link;
	n->skip_hw = old->skip_hw;
	n->has_mark = old->has_mark;
	n->mark = old->mark;
	n->mark_mask = old->mark_mask;
	memcpy(n->indev, u->indev[0] ? u->indev : old->indev, sizeof(n->indev));
	n->sel = old->sel;
	memcpy(n->keys, old->keys, keys);
	for (unsigned i = 0; i < old->sel.nkeys; i++)
		atomic_init(&n->keys[i].hits, atomic_load(&old->keys[i].hits));
	atomic_init(&n->mark_hits, atomic_load(&old->mark_hits));
	atomic_init(&n->f.tries, atomic_load(&old->f.tries));
	atomic_init(&n->f.hits, atomic_load(&old->f.hits));
	err = check_link(r, n, ack);
	if (err) {
		mqtx__tcf_filter_free(NULL, &n->f);
		return err;
	}
	n->f.classid = u->f.classid;
	n->f.exts = u->f.exts;
	u->f.exts = (struct tcf_exts){ 0 };
	mqtx__tcf_filter_free(NULL, &u->f);
	*fp = &n->f;
	return 0;
}

static int u32_prepare(const struct tcf_root *r, struct tcf_filter **fp,
		       const struct tcf_filter *old, bool excl, struct mqtx_extack *ack)
{
	struct u32_filter *u = u32_of(*fp);

	if (!old && u->f.handle == U32_ROOT) { /* u32_get() finds the root table */
		if (excl)
			return fail(ack, -EEXIST, "Filter already exists");
		old = &root_table.f;
	}
	if (!old)
		return u->table ? place_table(r, u, ack) : place_node(r, u, ack);
	if (!U32_KEY(old->handle))
		return failh(ack, -EINVAL, "cls_u32: Key node id cannot be zero", old->handle);
	return change_node(r, fp, u32_of(old), ack);
}

static int u32_may_delete(const struct tcf_proto *tp, uint32_t handle, struct mqtx_extack *ack)
{
	const struct tcf_root *r = tp->root;

	if (U32_KEY(handle))
		return 0;
	if (U32_HTID(handle) == U32_ROOT)
		return failh(ack, -EINVAL, "cls_u32: Not allowed to delete root node", handle);
	for (unsigned i = 0; i < r->n; i++)
		if (u32_of(r->filters[i])->link == handle)
			return failh(ack, -EBUSY, "cls_u32: Can not delete in-use filter", handle);
	return 0;
}

/* ---- the index ---- */

static const struct u32_ht *ht_of(const struct u32_index *x, uint32_t handle)
{
	for (unsigned i = 0; i < x->nht; i++)
		if (x->ht[i].handle == U32_HTID(handle))
			return &x->ht[i];
	return NULL;
}

/* Drop the nodes of a table that is gone (a table's deletion takes its nodes). */
static void compact(struct tcf_root *r)
{
	unsigned k = 0;

	for (unsigned i = 0; i < r->n; i++) {
		const struct u32_filter *u = u32_of(r->filters[i]);

		if (u->table || table(r, u->f.handle))
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

/* The dump's order: tables newest first, the root last, each followed by its nodes. */
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
		if (h == x->root)
			break;
	}
	x->nwalk = k;
}

static int u32_build(struct tcf_root *r, struct mqtx_extack *ack)
{
	unsigned nht = 1, nnodes = 0, nstarts = 2, t = 0, k = 0;
	struct u32_index *x;
	unsigned *starts;
	size_t size;
	bool root_placed = false;

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
	/* the tables in handle order, the root's among them */
	for (unsigned i = 0; i <= r->n; i++) {
		const struct u32_filter *u = i < r->n ? u32_of(r->filters[i]) : NULL;

		if (!root_placed && (!u || u->f.handle > U32_ROOT)) {
			x->ht[t++] = (struct u32_ht){ .handle = U32_ROOT, .tbl = &root_table };
			root_placed = true;
		}
		if (u && u->table)
			x->ht[t++] = (struct u32_ht){ .handle = u->f.handle,
						      .mask = u->divisor - 1,
						      .tbl = u };
		else if (u)
			x->ents[k++].n = u;
	}
	x->root = ht_of(x, U32_ROOT);
	for (unsigned i = 0; i < nnodes; i++) {
		if (x->ents[i].n->link && !(x->ents[i].down = ht_of(x, x->ents[i].n->link))) {
			mqtx__free(x);
			mqtx_extack_set(ack, "cls_u32: Link hash table not found");
			return -EINVAL;
		}
	}
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
	.prepare = u32_prepare,
	.build = u32_build,
	.free_index = u32_free_index,
	.classify = u32_classify,
	.dump = u32_dump,
	.walk = u32_walk,
	.may_delete = u32_may_delete,
};

// SPDX-License-Identifier: MIT
/*
 * u32's control path (Linux's u32_change(), u32_delete() and tc_u_common): the hash tables of
 * a block are shared by every u32 priority in it, whatever its chain. Each priority starts with
 * a root table of its own (800: for the block's first, then the next free handle: 801:, ...);
 * "ht" and "link" may name any table of the block. A table is held, and dumped, by the
 * priority that made it, and a node by the priority whose table it is in, so that a command of
 * one priority may change the rules of another: both are made anew and published together.
 */
#include <errno.h>

#include "cls/tcf.h"
#include "cls/u32.h"

/* Tables are dumped newest first, as Linux adds each at the head of its list. */
static atomic_ullong tables_born;

/* The block's rules as a command sees them: @rs, and the root table of a priority it makes. */
struct u32_ctx {
	const struct tcf_proto_ops *ops;
	const struct tcf_ruleset *rs;
	const struct tcf_proto *tp; /* the priority named, NULL: @newroot's, to be made */
	struct u32_filter *newroot;
	uint32_t self; /* the named priority's root table */
};

/* Where a filter is: the priority that holds it. */
struct u32_at {
	const struct tcf_proto *tp; /* NULL: the priority to be made */
	const struct u32_filter *f;
};

/* The priorities of @ops (u32) in @rs, every chain's: the one after *@c, *@t (start both at 0). */
static const struct tcf_proto *next_tp(const struct tcf_ruleset *rs,
				       const struct tcf_proto_ops *ops, unsigned *c, unsigned *t)
{
	for (; rs && *c < rs->nchains; (*c)++, *t = 0)
		while (*t < rs->chains[*c].n) {
			const struct tcf_proto *tp = rs->chains[*c].tps[(*t)++];

			if (tp->ops == ops)
				return tp;
		}
	return NULL;
}

/* u32_lookup_ht(): the table of @htid (its TABLE part) anywhere in the block. */
static bool table_at(const struct u32_ctx *x, uint32_t htid, struct u32_at *at)
{
	const struct tcf_proto *tp;
	const struct tcf_filter *f;

	htid = U32_HTID(htid);
	if (x->newroot && x->newroot->f.handle == htid) {
		*at = (struct u32_at){ NULL, x->newroot };
		return true;
	}
	for (unsigned c = 0, t = 0; (tp = next_tp(x->rs, x->ops, &c, &t));) {
		f = mqtx__tcf_proto_get(tp, htid);
		if (f && u32_of(f)->table) {
			*at = (struct u32_at){ tp, u32_of(f) };
			return true;
		}
	}
	return false;
}

/* u32_get(): the table or node @handle names; "fff:" is the named priority's root. */
static bool get(const struct u32_ctx *x, uint32_t handle, struct u32_at *at)
{
	const struct tcf_filter *f;

	if (!table_at(x, U32_HTID(handle) == U32_SELF ? x->self : handle, at))
		return false;
	if (!U32_KEY(handle))
		return true;
	f = at->tp ? mqtx__tcf_proto_get(at->tp, at->f->f.handle | U32_KEY(handle)) : NULL;
	at->f = f ? u32_of(f) : NULL;
	return f != NULL;
}

/* gen_new_htid(): after the highest automatic table (801: to fff:), else the lowest free. */
static uint32_t new_htid(const struct u32_ctx *x)
{
	const struct tcf_proto *tp;
	uint32_t top = 0;
	struct u32_at at;

	if (x->newroot && x->newroot->f.handle & U32_ROOT)
		top = (x->newroot->f.handle >> 20) & 0x7FF;
	for (unsigned c = 0, t = 0; (tp = next_tp(x->rs, x->ops, &c, &t));) {
		for (unsigned i = 0; i < tp->root->n; i++) {
			const struct tcf_filter *f = tp->root->filters[i];
			uint32_t id = (f->handle >> 20) & 0x7FF;

			if (u32_of(f)->table && f->handle & U32_ROOT && id > top)
				top = id;
		}
	}
	for (uint32_t id = top + 1, tries = 0; tries < 0x7FF; id = id % 0x7FF + 1, tries++)
		if (!table_at(x, (id | 0x800) << 20, &at))
			return (id | 0x800) << 20;
	return 0;
}

/* gen_new_kid(): the lowest free node from 0x800 in the bucket of @htid, else from 1; @tp
 * holds the table (NULL: the root table of the priority to be made, empty). */
static uint32_t new_kid(const struct tcf_proto *tp, uint32_t htid)
{
	uint32_t from[2] = { htid | 0x800, htid | 1 };

	for (int k = 0; k < 2; k++) {
		uint32_t h = from[k];

		while (tp && U32_NODE(h) < 0xFFF && mqtx__tcf_proto_get(tp, h))
			h++;
		if (!tp || !mqtx__tcf_proto_get(tp, h))
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

static int check_link(const struct u32_ctx *x, const struct u32_filter *u, struct mqtx_extack *ack)
{
	struct u32_at at;

	if (!u->link)
		return 0;
	if (U32_KEY(u->link))
		return failh(ack, -EINVAL, "cls_u32: u32 Link handle must be a hash table",
			     u->link);
	if (!table_at(x, u->link, &at))
		return failh(ack, -EINVAL, "cls_u32: Link hash table not found", u->link);
	if (at.f->root)
		return failh(ack, -EINVAL, "cls_u32: Not linking to root node", u->link);
	return 0;
}

/* A new table: its handle given or the next automatic one; the named priority holds it. */
static int place_table(const struct u32_ctx *x, struct u32_filter *u, struct mqtx_extack *ack)
{
	if (U32_KEY(u->f.handle))
		return failh(ack, -EINVAL, "cls_u32: Divisor can only be used on a hash table",
			     u->f.handle);
	if (!u->f.handle)
		u->f.handle = new_htid(x);
	if (!u->f.handle)
		return -ENOMEM;
	u->born = atomic_fetch_add(&tables_born, 1) + 1;
	return 0;
}

/* A new node: its table and bucket, then its handle (u32_change()'s comment explains); *@owner
 * is the priority whose table takes it. */
static int place_node(const struct u32_ctx *x, struct u32_filter *u, const struct tcf_proto **owner,
		      struct mqtx_extack *ack)
{
	uint32_t htid = u->htid, handle = u->f.handle;
	struct u32_at t;

	if (!htid || U32_HTID(htid) == U32_SELF)
		htid = x->self;
	if (!table_at(x, htid, &t))
		return failh(ack, -EINVAL, "cls_u32: Specified hash table not found", htid);
	if (U32_HASH(htid) >= t.f->divisor)
		return failh(ack, -EINVAL,
			     "cls_u32: Specified hash table buckets exceed configured value", htid);
	if (handle && U32_HTID(handle) && U32_HTID(handle ^ htid))
		return failh(ack, -EINVAL, "cls_u32: Handle specified hash table address mismatch",
			     handle);
	if (handle && U32_NODE(handle)) {
		handle = htid | U32_NODE(handle);
		if (t.tp && mqtx__tcf_proto_get(t.tp, handle))
			return -ENOSPC;
	} else if (!(handle = new_kid(t.tp, htid))) {
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
	*owner = t.tp;
	return check_link(x, u, ack);
}

/*
 * A change of node @old (u32_init_knode() and u32_set_parms()): the node keeps its selector,
 * mark, table and flags, and its counters go on; it takes the command's actions and class,
 * and its link and input device when the command gives them. The new filter replaces *@fp.
 */
static int change_node(const struct u32_ctx *x, struct tcf_filter **fp,
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
	err = check_link(x, n, ack);
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

/* ---- publishing: one or two priorities made anew ---- */

/* @tp's filters with @f put in (or in the place of its handle's), @gone taken out, as a new
 * priority (@tp NULL: the one to be made, of @m, holding @root and @f). */
static int remake(const struct tcf_mod *m, const struct tcf_proto *tp, struct tcf_filter *root,
		  struct tcf_filter *f, const struct tcf_filter *gone, struct mqtx_extack *ack,
		  struct tcf_proto **out)
{
	struct tcf_filter **arr, *two[2] = { root, f };
	unsigned n;
	int err;

	if (!tp) {
		if (f && f->handle < root->handle) {
			two[0] = f;
			two[1] = root;
		}
		return mqtx__tcf_proto_new(m->ops, m->prio, m->protocol, m->chain, two, f ? 2 : 1,
					   ack, out);
	}
	err = mqtx__tcf_proto_filters(tp, f, gone, &arr, &n);
	if (err)
		return err;
	err = mqtx__tcf_proto_new(tp->ops, tp->prio, tp->protocol, tp->chain, arr, n, ack, out);
	mqtx__free(arr);
	return err;
}

/* Publish @rs with @a in place of @ga and @b2 in place of @gb (either NULL: none); @a and @b2
 * are the caller's to free on failure. */
static int publish(const struct tcf_mod *m, const struct tcf_proto *ga, struct tcf_proto *a,
		   const struct tcf_proto *gb, struct tcf_proto *b2)
{
	struct tcf_ruleset *r1, *r2;
	int err;

	err = mqtx__tcf_rs_edit(m->rs, ga ? ga->chain : m->chain, ga, a, false, &r1);
	if (err || (!gb && !b2)) {
		if (!err)
			mqtx__tcf_block_commit(m->b, r1);
		return err;
	}
	err = mqtx__tcf_rs_edit(r1, gb->chain, gb, b2, false, &r2);
	mqtx__free(r1);
	if (err)
		return err;
	mqtx__tcf_block_commit(m->b, r2);
	return 0;
}

/* ---- add, replace, change ---- */

static int make_root(struct u32_ctx *x)
{
	unsigned c = 0, t = 0;
	bool any = next_tp(x->rs, x->ops, &c, &t) != NULL;

	x->newroot = (struct u32_filter *)mqtx__tcf_filter_alloc(sizeof(*x->newroot), 0);
	if (!x->newroot)
		return -ENOMEM;
	/* u32_init(): the block's first root is 800:, the next ones get automatic handles */
	x->newroot->f.handle = any ? new_htid(x) : U32_ROOT;
	if (!x->newroot->f.handle) {
		mqtx__tcf_filter_free(NULL, &x->newroot->f);
		x->newroot = NULL;
		return -ENOMEM;
	}
	x->newroot->table = x->newroot->root = true;
	x->newroot->divisor = 1;
	x->newroot->born = atomic_fetch_add(&tables_born, 1) + 1;
	return 0;
}

static const struct u32_filter *own_root(const struct tcf_proto *tp)
{
	for (unsigned i = 0; i < tp->root->n; i++)
		if (u32_of(tp->root->filters[i])->root)
			return u32_of(tp->root->filters[i]);
	return NULL;
}

/* Where the filter goes: *@owner (NULL: the priority to be made); a change of a node makes it
 * anew in *@fp, in the place of the old. */
static int place(struct u32_ctx *x, const struct tcf_mod *m, struct tcf_filter **fp,
		 const struct tcf_proto **owner, struct mqtx_extack *ack)
{
	struct u32_filter *u = u32_of(*fp);
	struct u32_at at;
	bool found = u->f.handle && get(x, u->f.handle, &at);

	*owner = m->tp;
	if (!found && !m->create)
		return fail(ack, -ENOENT,
			    "Need both RTM_NEWTFILTER and NLM_F_CREATE to create a "
			    "new filter");
	if (found && m->excl)
		return fail(ack, -EEXIST, "Filter already exists");
	if (!found)
		return u->table ? place_table(x, u, ack) : place_node(x, u, owner, ack);
	if (!U32_KEY(at.f->f.handle))
		return failh(ack, -EINVAL, "cls_u32: Key node id cannot be zero", at.f->f.handle);
	*owner = at.tp;
	return change_node(x, fp, at.f, ack);
}

int mqtx__u32_modify(const struct tcf_mod *m, struct tcf_filter **fp, struct mqtx_extack *ack)
{
	struct u32_ctx x = { .ops = m->ops, .rs = m->rs, .tp = m->tp };
	struct tcf_proto *np = NULL, *nq = NULL;
	const struct tcf_proto *owner;
	int err;

	if (!m->tp && (err = make_root(&x)))
		return err;
	x.self = m->tp ? own_root(m->tp)->f.handle : x.newroot->f.handle;
	err = place(&x, m, fp, &owner, ack);
	if (err)
		goto free_root;
	/* the priority named, new or with the filter; and the one whose table takes it */
	if (!m->tp || owner == m->tp)
		err = remake(m, m->tp, x.newroot ? &x.newroot->f : NULL,
			     owner == m->tp ? *fp : NULL, NULL, ack, &np);
	if (!err && owner && owner != m->tp)
		err = remake(m, owner, NULL, *fp, NULL, ack, &nq);
	if (!err)
		err = publish(m, np ? m->tp : NULL, np, nq ? owner : NULL, nq);
	if (err) {
		mqtx__tcf_proto_free(np, false);
		mqtx__tcf_proto_free(nq, false);
		goto free_root;
	}
	*fp = NULL; /* published */
	return 0;
free_root:
	if (x.newroot)
		mqtx__tcf_filter_free(NULL, &x.newroot->f);
	return err;
}

/* ---- get ---- */

/*
 * u32_get() for "filter get" of @tp: a table or node of any u32 priority of the block, found
 * through the shared tables (tc prints it as @tp's); "fff:" is @tp's root table, and a node
 * under "fff:" is none (u32_lookup_key() compares the whole handle).
 */
const struct tcf_filter *mqtx__u32_find(const struct tcf_ruleset *rs, const struct tcf_proto *tp,
					uint32_t handle)
{
	struct u32_ctx x = { .ops = tp->ops, .rs = rs, .tp = tp };
	const struct u32_filter *root = own_root(tp);
	struct u32_at at;

	if (!root || (U32_HTID(handle) == U32_SELF && U32_KEY(handle)))
		return NULL;
	x.self = root->f.handle;
	return get(&x, handle, &at) ? &at.f->f : NULL;
}

/* ---- delete ---- */

/* Whether a node of the block other than in @skip links to the table @htid (@skip NULL: any). */
static bool linked(const struct tcf_mod *m, uint32_t htid, const struct tcf_proto *skip)
{
	const struct tcf_proto *tp;

	for (unsigned c = 0, t = 0; (tp = next_tp(m->rs, m->ops, &c, &t));) {
		if (tp == skip)
			continue;
		for (unsigned i = 0; i < tp->root->n; i++)
			if (u32_of(tp->root->filters[i])->link == htid)
				return true;
	}
	return false;
}

/* Linux's *last of u32_delete(): the block's only u32 priority, and no node left in it. */
static bool last(const struct tcf_mod *m, const struct tcf_filter *gone)
{
	const struct tcf_proto *tp;

	for (unsigned c = 0, t = 0; (tp = next_tp(m->rs, m->ops, &c, &t));) {
		if (tp != m->tp)
			return false;
		for (unsigned i = 0; i < tp->root->n; i++) {
			const struct u32_filter *u = u32_of(tp->root->filters[i]);

			/* a node stays unless it is the one that goes or is in the table that goes */
			if (!u->table && &u->f != gone && U32_HTID(u->f.handle) != gone->handle)
				return false;
		}
	}
	return true;
}

int mqtx__u32_remove(const struct tcf_mod *m, uint32_t handle, struct mqtx_extack *ack)
{
	struct u32_ctx x = {
		.ops = m->ops, .rs = m->rs, .tp = m->tp, .self = own_root(m->tp)->f.handle
	};
	struct tcf_proto *nq;
	struct u32_at at;
	int err;

	if (!handle) {
		/* The priority goes whole, its tables with it: not one another's node links to. */
		for (unsigned i = 0; i < m->tp->root->n; i++) {
			const struct u32_filter *u = u32_of(m->tp->root->filters[i]);

			if (u->table && linked(m, u->f.handle, m->tp))
				return failh(ack, -EBUSY, "cls_u32: Can not delete in-use filter",
					     u->f.handle);
		}
		return publish(m, m->tp, NULL, NULL, NULL);
	}
	if (!get(&x, handle, &at))
		return fail(ack, -ENOENT, "Specified filter handle not found");
	if (at.f->root)
		return failh(ack, -EINVAL, "cls_u32: Not allowed to delete root node", handle);
	if (at.f->table && linked(m, at.f->f.handle, NULL))
		return failh(ack, -EBUSY, "cls_u32: Can not delete in-use filter", handle);
	if (last(m, &at.f->f))
		return publish(m, m->tp, NULL, NULL, NULL); /* the priority goes with it */
	err = remake(m, at.tp, NULL, NULL, &at.f->f, ack, &nq);
	if (err)
		return err;
	err = publish(m, at.tp, nq, NULL, NULL);
	if (err)
		mqtx__tcf_proto_free(nq, false);
	return err;
}

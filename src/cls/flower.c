// SPDX-License-Identifier: MIT
/*
 * flower: filters on the fields of a frame, each with its mask (Linux's cls_flower.c). The
 * filters of one priority are grouped by mask; each mask has a hash table of its filters'
 * masked keys, so a lookup costs one probe per distinct mask, not one compare per filter.
 * Masks with a port range keep a list instead (Linux's range lookup walks its filters too).
 */
#include <arpa/inet.h>
#include <errno.h>

#include <mqtx/flow.h>

#include "cls/flower.h"

/*
 * A mask's arrays, shared by the indexes an append made from one another (fl_append()): the
 * new filter goes in the slot after the last an older index reads, its key in a table slot
 * that was empty, which older readers skip (an index above their count). @used is the count
 * of the longest index on them; only that one may append.
 */
struct fl_share {
	atomic_uint refs;
	unsigned used, cap;
};

/* One mask: its filters (in handle order) and, without ranges, the hash table of their keys. */
struct fl_mask {
	struct fl_key mask;
	uint32_t ranges;	/* FLK_SRC_RANGE | FLK_DST_RANGE of its filters */
	unsigned first, nwords; /* the words of the key the mask covers */
	unsigned n;
	struct fl_filter **filters;
	uint32_t tmask;		 /* table size - 1 (a power of two minus one); 0: no table */
	_Atomic uint32_t *table; /* index + 1 into filters; 0: empty */
	struct fl_share *share;
};

struct fl_index {
	unsigned nmasks;
	struct fl_mask masks[];
};

/* ---- the key of a frame ---- */

void mqtx__fl_key_extract(const struct mqtx_pkt *pkt, struct fl_key *k)
{
	const uint8_t *d = pkt->data;
	struct mqtx_flow_keys fk;
	uint16_t outer;

	memset(k, 0, sizeof(*k));
	if (pkt->len < 14)
		return;
	memcpy(k->dst_mac, d, 6);
	memcpy(k->src_mac, d + 6, 6);
	outer = (uint16_t)(d[12] << 8 | d[13]);
	if ((outer == 0x8100 || outer == 0x88A8) && pkt->len >= 18) {
		k->vlan_id = (uint16_t)((d[14] << 8 | d[15]) & 0xFFF);
		k->vlan_prio = (uint8_t)(d[14] >> 5);
	}
	mqtx_flow_dissect(d, pkt->len, &fk);
	k->n_proto = htons(fk.n_proto ? fk.n_proto : outer);
	k->ip_proto = fk.ip_proto;
	if (fk.flags & MQTX_FLOW_F_IPV4) {
		k->ipv4_src = fk.addrs.v4.src;
		k->ipv4_dst = fk.addrs.v4.dst;
		k->tos = d[fk.l3_off + 1];
		k->ttl = d[fk.l3_off + 8];
	} else if (fk.flags & MQTX_FLOW_F_IPV6) {
		memcpy(k->ipv6_src, fk.addrs.v6.src, 16);
		memcpy(k->ipv6_dst, fk.addrs.v6.dst, 16);
		k->tos = (uint8_t)((d[fk.l3_off] & 0xF) << 4 | d[fk.l3_off + 1] >> 4);
		k->ttl = d[fk.l3_off + 7];
	}
	if (fk.flags & MQTX_FLOW_F_PORTS) {
		k->sport = fk.sport;
		k->dport = fk.dport;
	}
	/* The dissector has no ports for a fragment, as Linux's without PARSE_1ST_FRAG. */
	if (fk.flags & MQTX_FLOW_F_FRAG)
		k->ip_flags = FL_FLAG_FRAG | (fk.l4_off ? FL_FLAG_FIRSTFRAG : 0);
	if (fk.ip_proto == 6 && fk.l4_off && fk.l4_off + 14u <= pkt->len)
		k->tcp_flags =
			htons((uint16_t)((d[fk.l4_off + 12] << 8 | d[fk.l4_off + 13]) & 0xFFF));
}

/* ---- masked keys ---- */

static inline const uint64_t *words(const struct fl_key *k)
{
	return (const uint64_t *)(const void *)k;
}

/* A hash of @k's words under @m (multiply and rotate: keys differ in a few bits). */
static uint32_t masked_hash(const struct fl_mask *m, const struct fl_key *k)
{
	const uint64_t *kw = words(k), *mw = words(&m->mask);
	uint64_t h = 0x9E3779B97F4A7C15ull;

	for (unsigned i = m->first; i < m->first + m->nwords; i++) {
		h ^= kw[i] & mw[i];
		h *= 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	return (uint32_t)h;
}

/* @k under @m is @f's key (already masked). */
static bool masked_eq(const struct fl_mask *m, const struct fl_key *k, const struct fl_filter *f)
{
	const uint64_t *kw = words(k), *mw = words(&m->mask), *fw = words(&f->key);

	for (unsigned i = m->first; i < m->first + m->nwords; i++)
		if ((kw[i] & mw[i]) != fw[i])
			return false;
	return true;
}

static bool in_ranges(const struct fl_filter *f, const struct fl_key *k)
{
	uint16_t sp = ntohs(k->sport), dp = ntohs(k->dport);

	if ((f->present & FLK_SRC_RANGE) && (sp < f->sport_min || sp > f->sport_max))
		return false;
	if ((f->present & FLK_DST_RANGE) && (dp < f->dport_min || dp > f->dport_max))
		return false;
	return true;
}

/* ---- data path ---- */

static struct fl_filter *lookup(const struct fl_mask *m, const struct fl_key *k)
{
	uint32_t i, slot;

	if (m->ranges) {
		for (i = 0; i < m->n; i++)
			if (masked_eq(m, k, m->filters[i]) && in_ranges(m->filters[i], k))
				return m->filters[i];
		return NULL;
	}
	for (i = masked_hash(m, k) & m->tmask;
	     (slot = atomic_load_explicit(&m->table[i], memory_order_relaxed));
	     i = (i + 1) & m->tmask)
		if (slot <= m->n && masked_eq(m, k, m->filters[slot - 1]))
			return m->filters[slot - 1];
	return NULL;
}

/* Linux's fl_classify(): the first mask with a filter for the frame decides. */
static int fl_classify(const struct tcf_proto *tp, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct fl_index *ix = tp->root->index;

	if (!pk->keyed) {
		mqtx__fl_key_extract(pk->pkt, &pk->key);
		pk->keyed = true;
	}
	for (unsigned i = 0; i < ix->nmasks; i++) {
		struct fl_filter *f = lookup(&ix->masks[i], &pk->key);

		if (f)
			return tcf_filter_hit(tp, &f->f, pk, res);
	}
	return MQTX_ACT_UNSPEC;
}

/* ---- control path: the index of a priority's filters ---- */

static bool same_mask(const struct fl_mask *m, const struct fl_filter *f)
{
	return !memcmp(&m->mask, &f->mask, sizeof(f->mask)) &&
	       m->ranges == (f->present & (FLK_SRC_RANGE | FLK_DST_RANGE));
}

/* The words @m covers: from its first non-zero word to its last (Linux's mask range). */
static void mask_span(struct fl_mask *m)
{
	const uint64_t *w = words(&m->mask);
	unsigned first = FL_KEY_WORDS, last = 0;

	for (unsigned i = 0; i < FL_KEY_WORDS; i++) {
		if (!w[i])
			continue;
		if (first == FL_KEY_WORDS)
			first = i;
		last = i;
	}
	m->first = first == FL_KEY_WORDS ? 0 : first;
	m->nwords = first == FL_KEY_WORDS ? 0 : last - first + 1;
}

/* Put filter @k of @m in @m's table: the first empty slot of its probe, or -EEXIST when a
 * filter @m counts has its key (fl_ht_insert_unique()). */
static int table_insert(struct fl_mask *m, unsigned k, struct mqtx_extack *ack)
{
	const struct fl_filter *f = m->filters[k];
	uint32_t i = masked_hash(m, &f->key) & m->tmask, slot;

	for (; (slot = atomic_load_explicit(&m->table[i], memory_order_relaxed));
	     i = (i + 1) & m->tmask) {
		const struct fl_filter *o = m->filters[slot - 1];

		if (slot > m->n || !masked_eq(m, &f->key, o))
			continue;
		mqtx_extack_set(ack,
				"Filters 0x%x and 0x%x of this priority have the same key and mask",
				o->f.handle, f->f.handle);
		return -EEXIST;
	}
	atomic_store_explicit(&m->table[i], k + 1, memory_order_relaxed);
	return 0;
}

/* Fill @m's table (sized for @cap filters); -EEXIST when two filters have one key. */
static int fill_table(struct fl_mask *m, unsigned cap, struct mqtx_extack *ack)
{
	uint32_t size = 4;
	unsigned n = m->n;
	int err = 0;

	if (m->ranges)
		return 0;
	while (size < 2 * cap)
		size *= 2;
	m->table = mqtx__zalloc(size * sizeof(*m->table));
	if (!m->table)
		return -ENOMEM;
	m->tmask = size - 1;
	for (unsigned k = 0; k < n && !err; k++) {
		m->n = k; /* the filters before it are the ones it may clash with */
		err = table_insert(m, k, ack);
	}
	m->n = n;
	return err;
}

static void mask_put(struct fl_mask *m)
{
	if (m->share && atomic_fetch_sub_explicit(&m->share->refs, 1, memory_order_acq_rel) != 1)
		return;
	mqtx__free(m->filters);
	mqtx__free((void *)m->table);
	mqtx__free(m->share);
}

/* New arrays for @m with room for @cap filters: its filters, hashed. */
static int mask_arrays(struct fl_mask *m, struct fl_filter *const *filters, unsigned cap,
		       struct mqtx_extack *ack)
{
	int err;

	m->table = NULL;
	m->tmask = 0;
	m->share = mqtx__zalloc(sizeof(*m->share));
	m->filters = mqtx__alloc(cap * sizeof(*m->filters));
	if (!m->share || !m->filters) {
		mqtx__free(m->share);
		mqtx__free(m->filters);
		m->share = NULL;
		m->filters = NULL;
		return -ENOMEM;
	}
	if (m->n)
		memcpy(m->filters, filters, m->n * sizeof(*filters));
	atomic_init(&m->share->refs, 1);
	m->share->used = m->n;
	m->share->cap = cap;
	err = fill_table(m, cap, ack);
	if (err) {
		mqtx__free((void *)m->table);
		mqtx__free(m->filters);
		mqtx__free(m->share);
		m->share = NULL;
		m->filters = NULL;
		m->table = NULL;
	}
	return err;
}

static void fl_free_index(void *index)
{
	struct fl_index *ix = index;

	for (unsigned i = 0; ix && i < ix->nmasks; i++)
		mask_put(&ix->masks[i]);
	mqtx__free(ix);
}

/* Group the filters by mask, in the order each mask first appears (by handle), and hash
 * each group: all of it allocated here, before anything is published. */
static int fl_build(struct tcf_root *root, struct mqtx_extack *ack)
{
	struct fl_index *ix = mqtx__zalloc(sizeof(*ix) + root->n * sizeof(ix->masks[0]));
	int err = 0;

	if (!ix)
		return -ENOMEM;
	for (unsigned i = 0; i < root->n && !err; i++) {
		struct fl_filter *f = fl_of(root->filters[i]);
		struct fl_mask *m = NULL;

		for (unsigned j = 0; j < ix->nmasks && !m; j++)
			if (same_mask(&ix->masks[j], f))
				m = &ix->masks[j];
		if (!m) {
			m = &ix->masks[ix->nmasks++];
			m->mask = f->mask;
			m->ranges = f->present & (FLK_SRC_RANGE | FLK_DST_RANGE);
			mask_span(m);
			m->filters = mqtx__alloc(root->n * sizeof(*m->filters));
			if (!m->filters)
				err = -ENOMEM;
		}
		if (!err)
			m->filters[m->n++] = f;
	}
	for (unsigned j = 0; j < ix->nmasks && !err; j++) {
		struct fl_mask *m = &ix->masks[j];

		m->share = mqtx__zalloc(sizeof(*m->share));
		if (!m->share) {
			err = -ENOMEM;
			break;
		}
		atomic_init(&m->share->refs, 1);
		m->share->used = m->n;
		m->share->cap = root->n;
		err = fill_table(m, root->n, ack);
	}
	if (err) {
		fl_free_index(ix);
		return err;
	}
	root->index = ix;
	return 0;
}

/*
 * @old's index and the last filter of @root: the masks' arrays shared, the filter put in its
 * mask's where there is room (older readers never look past their own count), else that
 * mask's arrays made anew twice as large; a new mask gets arrays of its own. O(1) but for
 * the regrowths, which doubling makes O(1) a filter over a batch.
 */
static int fl_append(const struct tcf_root *old, struct tcf_root *root, struct mqtx_extack *ack)
{
	const struct fl_index *oi = old->index;
	struct fl_filter *f = fl_of(root->filters[root->n - 1]);
	unsigned nm = oi ? oi->nmasks : 0, j;
	struct fl_index *ix;
	struct fl_mask *m = NULL;
	int err;

	if (!oi)
		return -EAGAIN;
	ix = mqtx__alloc(sizeof(*ix) + (nm + 1) * sizeof(ix->masks[0]));
	if (!ix)
		return -ENOMEM;
	memcpy(ix->masks, oi->masks, nm * sizeof(ix->masks[0]));
	ix->nmasks = nm;
	for (j = 0; j < nm && !m; j++)
		if (same_mask(&ix->masks[j], f))
			m = &ix->masks[j];
	if (!m) {
		m = &ix->masks[ix->nmasks++];
		memset(m, 0, sizeof(*m));
		m->mask = f->mask;
		m->ranges = f->present & (FLK_SRC_RANGE | FLK_DST_RANGE);
		mask_span(m);
	}
	if (m->share && m->share->used == m->n && m->n < m->share->cap &&
	    (m->ranges || 2 * (m->n + 1) <= m->tmask + 1)) {
		/* Room: the slot after the last any index reads. */
		m->filters[m->n] = f;
		err = m->ranges ? 0 : table_insert(m, m->n, ack);
		if (err) {
			mqtx__free(ix);
			return err;
		}
		m->n++;
		m->share->used = m->n;
		atomic_fetch_add_explicit(&m->share->refs, 1, memory_order_relaxed);
	} else {
		struct fl_filter *const *had = m->filters;
		unsigned n = m->n;

		m->n = 0;
		err = mask_arrays(m, had, 2 * (n + 1) < 8 ? 8 : 2 * (n + 1), ack);
		if (!err) {
			m->n = n;
			if (n)
				memcpy(m->filters, had, n * sizeof(*had));
			m->filters[n] = f;
			for (unsigned k = 0; k < n && !err; k++)
				err = table_insert(m, k, ack) ? -EEXIST : 0;
			if (!err && !m->ranges)
				err = table_insert(m, n, ack);
			m->n = n + 1;
			m->share->used = m->n;
			if (err)
				mask_put(m);
		}
		if (err) {
			mqtx__free(ix);
			return err;
		}
	}
	/* Every other mask's arrays are now read by this index too. */
	for (j = 0; j < ix->nmasks; j++)
		if (&ix->masks[j] != m)
			atomic_fetch_add_explicit(&ix->masks[j].share->refs, 1,
						  memory_order_relaxed);
	root->index = ix;
	return 0;
}

const struct tcf_proto_ops mqtx__tcf_flower_ops = {
	.kind = "flower",
	.usage = mqtx__fl_usage,
	.parse = mqtx__fl_parse,
	.build = fl_build,
	.append = fl_append,
	.free_index = fl_free_index,
	.classify = fl_classify,
	.dump = mqtx__fl_dump,
	.terse_dump = mqtx__fl_terse_dump,
};

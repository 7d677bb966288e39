/* SPDX-License-Identifier: MIT */
/* u32, internals shared by its data and control path (cls_u32.c) and its parser of tc's words
 * (cls_u32_parse.c): a node's selector as Linux's struct tc_u32_sel holds it. */
#ifndef MQTX_CLS_U32_H
#define MQTX_CLS_U32_H

#include "cls/cls_int.h"

#define U32_KEYS_MAX 128
#define U32_ROOT     0x80000000u /* 800:, the root table of a block's first u32 priority */
#define U32_SELF     0xFFF00000u /* TC_U32_ROOT: "ht fff:", the priority's own root table */
#define U32_HTID(h)  ((h)&0xFFF00000u)
#define U32_HASH(h)  (((h) >> 12) & 0xFFu)
#define U32_NODE(h)  ((h)&0xFFFu)
#define U32_KEY(h)   ((h)&0xFFFFFu)

/* sel flags (TC_U32_*) */
#define U32_TERMINAL  1
#define U32_OFFSET    2
#define U32_VAROFFSET 4
#define U32_EAT	      8

/* One key: (the word at off + key offset [+ the offset a link computed]) & mask == val, both
 * in network order. @offmask is all ones for "nexthdr+" (tc's offmask). */
struct u32_key {
	uint32_t val, mask;
	int32_t off;
	uint32_t offmask;
	atomic_ullong hits;
};

/* A node's selector (struct tc_u32_sel): what follows a link (offset, eat, hashkey) and its keys. */
struct u32_sel {
	uint8_t flags;
	uint8_t offshift;
	uint16_t offmask; /* network order */
	int16_t off, offoff, hoff;
	uint32_t hmask; /* network order */
	unsigned nkeys;
};

/*
 * A filter of u32: a hash table (@table, "divisor N") or a node (a key node, "match ..."). Its
 * handle is TABLE:BUCKET:NODE (12, 8 and 12 bits); a table's has bucket and node 0.
 */
struct u32_filter {
	struct tcf_filter f;
	bool table;
	bool root;	  /* a priority's root table (u32_init()): made with it, never deleted */
	unsigned divisor; /* a table's buckets, 1..256 */
	uint64_t born;	  /* a table's creation, for the order of the dump (newest first) */
	uint32_t htid;	  /* a node's table and bucket (ht, sample), 0: the root's bucket 0 */
	uint32_t link;	  /* the table a node links to, 0: none */
	bool skip_hw, sel_ok;
	bool has_mark;
	uint32_t mark, mark_mask;
	atomic_ullong mark_hits;
	char indev[16];
	struct u32_sel sel;
	struct u32_key keys[]; /* sel.nkeys */
};

static inline struct u32_filter *u32_of(const struct tcf_filter *f)
{
	return (struct u32_filter *)f;
}

/* cls_u32_parse.c: tc's explain() */
extern const char mqtx__u32_usage[];
/* cls_u32_parse.c: a filter from tc's words (u32_parse_opt()), the handle (get_u32_handle()). */
int mqtx__u32_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out);
int mqtx__u32_parse_handle(const char *word, uint32_t *h, struct tcf_parse *ps);
/* cls_u32_ctl.c: the kernel's decisions (u32_change(), u32_delete()) over the tables that every
 * u32 priority of a block shares (Linux's tc_u_common) */
int mqtx__u32_modify(const struct tcf_mod *m, struct tcf_filter **fp, struct mqtx_extack *ack);
int mqtx__u32_remove(const struct tcf_mod *m, uint32_t handle, struct mqtx_extack *ack);
const struct tcf_filter *mqtx__u32_find(const struct tcf_ruleset *rs, const struct tcf_proto *tp,
					uint32_t handle);
/* sprint_u32_handle(): "800:", "800::801", "2:5:800" */
const char *mqtx__u32_handle_fmt(uint32_t h, char *buf, size_t len);

#endif

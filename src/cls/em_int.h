/* SPDX-License-Identifier: MIT */
/* Extended matches, internals shared by the tree (ematch.c: tokens, and/or/not, parentheses)
 * and the kinds of match (em_kinds.c: cmp, u32, nbyte, meta, text). */
#ifndef MQTX_CLS_EM_INT_H
#define MQTX_CLS_EM_INT_H

#include "cls/cls_int.h"

#define EM_NEEDLE_MAX 128 /* the longest nbyte needle or text pattern */

enum em_kind { EM_GROUP, EM_CMP, EM_U32, EM_NBYTE, EM_META, EM_TEXT };
enum em_op { EM_OP_EQ, EM_OP_GT, EM_OP_LT }; /* TCF_EM_OPND_* */

/* One side of a meta comparison: a meta id (with shift and mask) or a value. */
struct em_meta_obj {
	uint8_t id; /* EM_META_VALUE: a value */
	bool var;   /* a string (a device's name) rather than a number */
	uint8_t shift;
	uint8_t len;   /* of @str */
	uint32_t mask; /* an id's mask (0: none), or a number's value */
	char str[32];  /* a string value */
};

struct em_term {
	uint8_t kind, rel;
	bool invert;
	unsigned first, count; /* EM_GROUP: its terms */
	union {
		struct {
			uint8_t align, layer, op;
			bool trans;
			uint16_t off;
			uint32_t mask, val;
		} cmp;
		struct {
			uint32_t val, mask; /* network order */
			int32_t off;
			bool nexthdr;
		} u32;
		struct {
			uint8_t layer, op;
			bool kmp;
			uint8_t from_layer, to_layer;
			uint16_t off, from, to, len;
			uint8_t needle[EM_NEEDLE_MAX];
		} bytes; /* nbyte (layer, off) and text (kmp, from, to) */
		struct {
			uint8_t op;
			struct em_meta_obj l, r;
		} meta;
	};
};

/* The tokens of the expression: words, "(", ")", and quoted strings (@quoted). */
struct em_lexer {
	char *tok[128];
	bool quoted[128];
	unsigned n, at;
	char buf[2048];
	struct tcf_parse *ps;
};

static inline const char *em_peek(const struct em_lexer *lx)
{
	return lx->at < lx->n ? lx->tok[lx->at] : NULL;
}

static inline const char *em_take(struct em_lexer *lx)
{
	return lx->at < lx->n ? lx->tok[lx->at++] : NULL;
}

/* A term's arguments: the tokens up to its ")" (tc's bstr list of the kind). */
struct em_args {
	const char *w[24];
	bool quoted[24];
	unsigned n;
	struct tcf_parse *ps;
};

/* em_kinds.c: KIND( ARGS ) into *@e; 0 or -EINVAL with tc's message in @a->ps (-ENOENT: a kind
 * tc does not know). */
int mqtx__em_kind_parse(const char *kind, const struct em_args *a, struct em_term *e);
bool mqtx__em_kind_match(const struct em_term *e, struct tcf_pkt *pk);
/* "kind(args)" of @e into @buf (snprintf's return) */
size_t mqtx__em_kind_print(const struct em_term *e, char *buf, size_t len);

#endif

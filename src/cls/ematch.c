// SPDX-License-Identifier: MIT
/*
 * Extended matches (Linux's net/sched/ematch.c with em_meta.c): a sequence of terms joined by
 * and/or, each maybe negated, a term being meta(FIELD [shift N] [mask M] eq|lt|gt VALUE) or a
 * parenthesized sequence. Evaluated left to right, stopping early as tcf_em_tree_match() does:
 * after a false term joined by "and", after a true one joined by "or".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "cls/ematch.h"

#define EM_TOKENS    128
#define EM_SEQ_MAX   32
#define EM_DEPTH_MAX 8

enum { EM_META, EM_GROUP };
enum { REL_END, REL_AND, REL_OR };
enum { OP_EQ, OP_LT, OP_GT };
enum { META_PRIORITY, META_NFMARK, META_PKTLEN, META_PROTOCOL, META_VLAN };

static const char *const meta_names[] = { "priority", "nf_mark", "pktlen", "protocol", "vlan" };
static const char *const op_names[] = { "eq", "lt", "gt" };

struct em_term {
	uint8_t kind, rel, id, op, shift;
	bool invert;
	uint32_t mask;
	uint64_t value;
	unsigned first, count; /* EM_GROUP: its terms */
};

struct em_tree {
	unsigned n;
	unsigned first, top; /* the outermost sequence: terms first..first+top-1 */
	struct em_term t[];
};

/* ---- data path ---- */

static uint64_t meta_value(const struct em_term *e, const struct mqtx_pkt *pkt)
{
	uint64_t v = 0;

	switch (e->id) {
	case META_PRIORITY:
		v = pkt->priority;
		break;
	case META_NFMARK:
		v = pkt->mark;
		break;
	case META_PKTLEN:
		v = pkt->len;
		break;
	case META_PROTOCOL:
		v = pkt->len >= 14 ? (uint64_t)(pkt->data[12] << 8 | pkt->data[13]) : 0;
		break;
	case META_VLAN: /* the tag's id; no tag: no match (em_meta's get failure) */
		if (pkt->len < 18 || !(pkt->data[12] == 0x81 && pkt->data[13] == 0x00))
			return UINT64_MAX;
		v = (uint64_t)((pkt->data[14] << 8 | pkt->data[15]) & 0xFFF);
		break;
	}
	v >>= e->shift;
	return e->mask ? v & e->mask : v;
}

static bool seq_match(const struct em_tree *tr, unsigned first, unsigned count,
		      const struct mqtx_pkt *pkt);

static bool term_match(const struct em_tree *tr, const struct em_term *e,
		       const struct mqtx_pkt *pkt)
{
	bool r;

	if (e->kind == EM_GROUP) {
		r = seq_match(tr, e->first, e->count, pkt);
	} else {
		uint64_t v = meta_value(e, pkt);

		r = v != UINT64_MAX && (e->op == OP_EQ	 ? v == e->value
					: e->op == OP_LT ? v < e->value
							 : v > e->value);
	}
	return r != e->invert;
}

static bool seq_match(const struct em_tree *tr, unsigned first, unsigned count,
		      const struct mqtx_pkt *pkt)
{
	bool r = false;

	for (unsigned i = first; i < first + count; i++) {
		r = term_match(tr, &tr->t[i], pkt);
		if ((tr->t[i].rel == REL_AND && !r) || (tr->t[i].rel == REL_OR && r))
			break;
	}
	return r;
}

bool mqtx__em_match(const struct em_tree *tr, const struct mqtx_pkt *pkt)
{
	return !tr || seq_match(tr, tr->first, tr->top, pkt);
}

/* ---- control path: words into terms ---- */

struct lexer {
	char *tok[EM_TOKENS];
	unsigned n, at;
	char buf[1024];
	struct tcf_parse *ps;
};

/* Split the words into tokens: parentheses apart, the rest at blanks. */
static int lex(struct lexer *lx, struct tcf_parse *ps)
{
	size_t used = 0;
	const char *w;

	lx->n = lx->at = 0;
	lx->ps = ps;
	while ((w = tcf_word(ps)) && strcmp(w, "action") && strcmp(w, "classid") &&
	       strcmp(w, "flowid") && strcmp(w, "police") && strcmp(w, "help")) {
		for (const char *c = w; *c;) {
			size_t len = *c == '(' || *c == ')' ? 1 : strcspn(c, "() \t");

			if (!len) {
				c++;
				continue;
			}
			if (lx->n == EM_TOKENS || used + len + 1 > sizeof(lx->buf))
				return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
						      "ematch: the expression is too long");
			memcpy(lx->buf + used, c, len);
			lx->buf[used + len] = 0;
			lx->tok[lx->n++] = lx->buf + used;
			used += len + 1;
			c += len;
		}
		ps->i++;
	}
	return 0;
}

static const char *peek(const struct lexer *lx)
{
	return lx->at < lx->n ? lx->tok[lx->at] : NULL;
}

static const char *take(struct lexer *lx)
{
	return lx->at < lx->n ? lx->tok[lx->at++] : NULL;
}

static int bad(struct lexer *lx, const char *what, const char *tok)
{
	return mqtx__tcf_perr(lx->ps, MQTX_TC_EXIT_PARSE, "ematch: %s \"%s\"", what,
			      tok ? tok : "(end)");
}

static int name_of(const char *const *names, unsigned n, const char *w)
{
	for (unsigned i = 0; w && i < n; i++)
		if (!strcasecmp(names[i], w))
			return (int)i;
	return -1;
}

/* meta( LVALUE [shift N] [mask M] OP VALUE ) after "meta(" */
static int parse_meta(struct lexer *lx, struct em_term *e)
{
	const char *w = take(lx);
	int id = name_of(meta_names, ARRAY_SIZE(meta_names), w), op;
	uint32_t v;

	if (id < 0 && w && !strcasecmp(w, "fwmark"))
		id = META_NFMARK;
	if (id < 0)
		return bad(lx, "unknown meta identifier", w);
	e->kind = EM_META;
	e->id = (uint8_t)id;
	while ((w = peek(lx)) && (!strcmp(w, "shift") || !strcmp(w, "mask"))) {
		take(lx);
		if (mqtx__tc_get_u32(take(lx), &v, 0) || (w[0] == 's' && v > 63))
			return bad(lx, w[0] == 's' ? "bad shift after" : "bad mask after", w);
		if (w[0] == 's')
			e->shift = (uint8_t)v;
		else
			e->mask = v;
	}
	w = take(lx);
	op = name_of(op_names, ARRAY_SIZE(op_names), w);
	if (op < 0)
		return bad(lx, "expected eq, lt or gt, not", w);
	e->op = (uint8_t)op;
	w = take(lx);
	if (mqtx__tc_get_u32(w, &v, 0))
		return bad(lx, "bad value", w);
	e->value = v;
	w = take(lx);
	if (!w || strcmp(w, ")"))
		return bad(lx, "expected \")\", not", w);
	return 0;
}

static int parse_seq(struct lexer *lx, struct em_term *all, unsigned *n, unsigned *first,
		     unsigned *count, unsigned depth);

/* [not] ( SEQ ) | [not] meta( ARGS ) into *@e; a group's terms go into @all first. */
static int parse_term(struct lexer *lx, struct em_term *all, unsigned *n, struct em_term *e,
		      unsigned depth)
{
	const char *w = take(lx);
	bool invert = false;
	int err;

	memset(e, 0, sizeof(*e));
	while (w && (!strcasecmp(w, "not") || !strcmp(w, "!"))) {
		invert = !invert;
		w = take(lx);
	}
	if (w && !strcmp(w, "(")) {
		e->kind = EM_GROUP;
		err = parse_seq(lx, all, n, &e->first, &e->count, depth + 1);
		if (!err && (!(w = take(lx)) || strcmp(w, ")")))
			err = bad(lx, "expected \")\", not", w);
	} else if (w && !strcasecmp(w, "meta")) {
		if (!peek(lx) || strcmp(take(lx), "("))
			return bad(lx, "expected \"(\" after", "meta");
		err = parse_meta(lx, e);
	} else if (w && peek(lx) && !strcmp(peek(lx), "(")) {
		return bad(lx, "unknown ematch kind", w);
	} else {
		return bad(lx, "expected a match, not", w);
	}
	e->invert = invert;
	return err;
}

/* TERM { and|or TERM }: appended to @all once whole, so that its terms are consecutive (a
 * group's inner sequence is appended before it). */
static int parse_seq(struct lexer *lx, struct em_term *all, unsigned *n, unsigned *first,
		     unsigned *count, unsigned depth)
{
	struct em_term seq[EM_SEQ_MAX];
	unsigned k = 0;
	const char *w;
	int err;

	if (depth > EM_DEPTH_MAX)
		return bad(lx, "too deeply nested at", peek(lx));
	do {
		if (k == EM_SEQ_MAX)
			return bad(lx, "too many terms at", peek(lx));
		err = parse_term(lx, all, n, &seq[k], depth);
		if (err)
			return err;
		w = peek(lx);
		if (w && (!strcasecmp(w, "and") || !strcmp(w, "&&")))
			seq[k].rel = REL_AND;
		else if (w && (!strcasecmp(w, "or") || !strcmp(w, "||")))
			seq[k].rel = REL_OR;
		else
			seq[k].rel = REL_END;
		if (seq[k].rel != REL_END)
			take(lx);
	} while (seq[k++].rel != REL_END);
	if (*n + k > EM_TOKENS)
		return bad(lx, "too many terms at", peek(lx));
	memcpy(all + *n, seq, k * sizeof(seq[0]));
	*first = *n;
	*count = k;
	*n += k;
	return 0;
}

int mqtx__em_parse(struct tcf_parse *ps, struct em_tree **out)
{
	struct em_term all[EM_TOKENS];
	unsigned n = 0, first, count;
	struct em_tree *tr;
	struct lexer lx;
	int err;

	err = lex(&lx, ps);
	if (!err && !lx.n)
		err = mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "ematch: an empty expression");
	if (!err)
		err = parse_seq(&lx, all, &n, &first, &count, 0);
	if (!err && peek(&lx))
		err = bad(&lx, "unexpected", peek(&lx));
	if (err)
		return err;
	tr = mqtx__alloc(sizeof(*tr) + n * sizeof(all[0]));
	if (!tr)
		return -ENOMEM;
	memcpy(tr->t, all, n * sizeof(all[0]));
	tr->n = n;
	tr->first = first;
	tr->top = count;
	*out = tr;
	return 0;
}

void mqtx__em_free(struct em_tree *tr)
{
	mqtx__free(tr);
}

/* ---- printing (print_ematch_seq()) ---- */

static size_t print_seq(const struct em_tree *tr, unsigned first, unsigned count, char *buf,
			size_t len);

static size_t print_term(const struct em_tree *tr, const struct em_term *e, char *buf, size_t len)
{
	size_t n = 0;

#define OUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (e->invert)
		OUT("NOT ");
	if (e->kind == EM_GROUP) {
		OUT("(");
		n += print_seq(tr, e->first, e->count, buf + (n < len ? n : len),
			       n < len ? len - n : 0);
		OUT(")");
		return n;
	}
	OUT("meta(%s", meta_names[e->id]);
	if (e->shift)
		OUT(" shift %u", e->shift);
	if (e->mask)
		OUT(" mask 0x%x", e->mask);
	OUT(" %s %llu)", op_names[e->op], (unsigned long long)e->value);
#undef OUT
	return n;
}

static size_t print_seq(const struct em_tree *tr, unsigned first, unsigned count, char *buf,
			size_t len)
{
	size_t n = 0;

	for (unsigned i = first; i < first + count; i++) {
		n += print_term(tr, &tr->t[i], buf + (n < len ? n : len), n < len ? len - n : 0);
		if (tr->t[i].rel != REL_END)
			n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
					      "%s", tr->t[i].rel == REL_AND ? " AND " : " OR ");
	}
	return n;
}

void mqtx__em_dump(const struct em_tree *tr, struct tc_out *p)
{
	char buf[1024];

	print_seq(tr, tr->first, tr->top, buf, sizeof(buf));
	mqtx__out_str(p, OUT_ANY, "ematch", "\n  %s", buf);
}

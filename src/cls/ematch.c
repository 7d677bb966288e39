// SPDX-License-Identifier: MIT
/*
 * Extended matches (Linux's net/sched/ematch.c): a sequence of terms joined by and/or, each
 * maybe negated, a term being KIND( ARGS ) (em_kinds.c: cmp, u32, nbyte, meta, text) or a
 * parenthesized sequence. Evaluated left to right, stopping early as tcf_em_tree_match() does:
 * after a false term joined by "and", after a true one joined by "or".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "cls/em_int.h"
#include "cls/ematch.h"

#define EM_TOKENS    128
#define EM_SEQ_MAX   32
#define EM_DEPTH_MAX 8

enum { REL_END, REL_AND, REL_OR };

struct em_tree {
	unsigned n;
	unsigned first, top; /* the outermost sequence: terms first..first+top-1 */
	struct em_term t[];
};

/* ---- data path ---- */

static bool seq_match(const struct em_tree *tr, unsigned first, unsigned count, struct tcf_pkt *pk);

static bool term_match(const struct em_tree *tr, const struct em_term *e, struct tcf_pkt *pk)
{
	bool r = e->kind == EM_GROUP ? seq_match(tr, e->first, e->count, pk)
				     : mqtx__em_kind_match(e, pk);

	return r != e->invert;
}

static bool seq_match(const struct em_tree *tr, unsigned first, unsigned count, struct tcf_pkt *pk)
{
	bool r = false;

	for (unsigned i = first; i < first + count; i++) {
		r = term_match(tr, &tr->t[i], pk);
		if ((tr->t[i].rel == REL_AND && !r) || (tr->t[i].rel == REL_OR && r))
			break;
	}
	return r;
}

bool mqtx__em_match(const struct em_tree *tr, struct tcf_pkt *pk)
{
	return !tr || seq_match(tr, tr->first, tr->top, pk);
}

/* ---- control path: words into terms ---- */

/* Split the words into tokens: parentheses apart, quoted strings whole, the rest at blanks. */
static int lex(struct em_lexer *lx, struct tcf_parse *ps)
{
	size_t used = 0;
	const char *w;

	lx->n = lx->at = 0;
	lx->ps = ps;
	while ((w = tcf_word(ps)) && strcmp(w, "action") && strcmp(w, "classid") &&
	       strcmp(w, "flowid") && strcmp(w, "police") && strcmp(w, "help")) {
		for (const char *c = w; *c;) {
			bool q = *c == '"';
			size_t len = q			      ? strcspn(c + 1, "\"")
				     : *c == '(' || *c == ')' ? 1
							      : strcspn(c, "() \t\"");

			if (!q && !len) {
				c++;
				continue;
			}
			if (q && !c[1 + len])
				return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
						      "ematch: an unclosed quote");
			if (lx->n == EM_TOKENS || used + len + 1 > sizeof(lx->buf))
				return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
						      "ematch: the expression is too long");
			memcpy(lx->buf + used, c + q, len);
			lx->buf[used + len] = 0;
			lx->quoted[lx->n] = q;
			lx->tok[lx->n++] = lx->buf + used;
			used += len + 1;
			c += len + 2 * q;
		}
		ps->i++;
	}
	return 0;
}

static int bad(struct em_lexer *lx, const char *what, const char *tok)
{
	return mqtx__tcf_perr(lx->ps, MQTX_TC_EXIT_PARSE, "ematch: %s \"%s\"", what,
			      tok ? tok : "(end)");
}

/* KIND( ARGS ) after KIND: the arguments up to the ")" */
static int parse_kind(struct em_lexer *lx, const char *kind, struct em_term *e)
{
	struct em_args a = { .ps = lx->ps };
	const char *w;
	int err;

	em_take(lx); /* "(" */
	while ((w = em_peek(lx)) && (lx->quoted[lx->at] || strcmp(w, ")"))) {
		if (!strcmp(w, "(") && !lx->quoted[lx->at])
			return bad(lx, "unexpected", w);
		if (a.n == ARRAY_SIZE(a.w))
			return bad(lx, "too many arguments at", w);
		a.quoted[a.n] = lx->quoted[lx->at];
		a.w[a.n++] = em_take(lx);
	}
	if (!em_take(lx))
		return bad(lx, "expected \")\", not", NULL);
	err = mqtx__em_kind_parse(kind, &a, e);
	if (err != -EINVAL)
		return err ? -EINVAL : 0;
	/* em_parse_error(): where, as tc shows it ("... >>cmp(u8 at 0 layer 4 eq 1)<< ...") */
	{
		char ctx[256];
		size_t n = (size_t)snprintf(ctx, sizeof(ctx), "%s(", kind);

		for (unsigned i = 0; i < a.n && n < sizeof(ctx); i++)
			n += (size_t)snprintf(ctx + n, sizeof(ctx) - n,
					      a.quoted[i] ? "%s\"%s\"" : "%s%s", i ? " " : "",
					      a.w[i]);
		return mqtx__tcf_perr(lx->ps, MQTX_TC_EXIT_PARSE, "... >>%.*s)<< ...",
				      (int)(n < sizeof(ctx) ? n : sizeof(ctx) - 1), ctx);
	}
}

static int parse_seq(struct em_lexer *lx, struct em_term *all, unsigned *n, unsigned *first,
		     unsigned *count, unsigned depth);

/* [not] ( SEQ ) | [not] KIND( ARGS ) into *@e; a group's terms go into @all first. */
static int parse_term(struct em_lexer *lx, struct em_term *all, unsigned *n, struct em_term *e,
		      unsigned depth)
{
	const char *w = em_take(lx);
	bool invert = false;
	int err;

	memset(e, 0, sizeof(*e));
	while (w && (!strcasecmp(w, "not") || !strcmp(w, "!"))) {
		invert = !invert;
		w = em_take(lx);
	}
	if (w && !strcmp(w, "(")) {
		e->kind = EM_GROUP;
		err = parse_seq(lx, all, n, &e->first, &e->count, depth + 1);
		if (!err && (!(w = em_take(lx)) || strcmp(w, ")")))
			err = bad(lx, "expected \")\", not", w);
	} else if (w && !lx->quoted[lx->at - 1] && em_peek(lx) && !strcmp(em_peek(lx), "(")) {
		err = parse_kind(lx, w, e);
	} else {
		return bad(lx, "expected a match, not", w);
	}
	e->invert = invert;
	return err;
}

/* TERM { and|or TERM }: appended to @all once whole, so that its terms are consecutive (a
 * group's inner sequence is appended before it). */
static int parse_seq(struct em_lexer *lx, struct em_term *all, unsigned *n, unsigned *first,
		     unsigned *count, unsigned depth)
{
	struct em_term seq[EM_SEQ_MAX];
	unsigned k = 0;
	const char *w;
	int err;

	if (depth > EM_DEPTH_MAX)
		return bad(lx, "too deeply nested at", em_peek(lx));
	do {
		if (k == EM_SEQ_MAX)
			return bad(lx, "too many terms at", em_peek(lx));
		err = parse_term(lx, all, n, &seq[k], depth);
		if (err)
			return err;
		w = em_peek(lx);
		if (w && (!strcasecmp(w, "and") || !strcmp(w, "&&")))
			seq[k].rel = REL_AND;
		else if (w && (!strcasecmp(w, "or") || !strcmp(w, "||")))
			seq[k].rel = REL_OR;
		else
			seq[k].rel = REL_END;
		if (seq[k].rel != REL_END)
			em_take(lx);
	} while (seq[k++].rel != REL_END);
	if (*n + k > EM_TOKENS)
		return bad(lx, "too many terms at", em_peek(lx));
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
	struct em_lexer lx;
	int err;

	err = lex(&lx, ps);
	if (!err && !lx.n)
		err = mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "ematch: an empty expression");
	if (!err)
		err = parse_seq(&lx, all, &n, &first, &count, 0);
	if (!err && em_peek(&lx))
		err = bad(&lx, "unexpected", em_peek(&lx));
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
	n += mqtx__em_kind_print(e, buf + (n < len ? n : len), n < len ? len - n : 0);
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
	char buf[4096];

	print_seq(tr, tr->first, tr->top, buf, sizeof(buf));
	mqtx__out_str(p, OUT_ANY, "ematch", "\n  %s", buf);
}

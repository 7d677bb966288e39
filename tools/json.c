// SPDX-License-Identifier: MIT
// A small recursive-descent JSON reader (RFC 8259) for the tools' own use of the library's -j.
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define DEPTH_MAX 32 /* the library's output nests 3 deep; more is not ours */

struct reader {
	const char *p;
};

static void skip_blanks(struct reader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* A string at r->p (its opening quote): the unescaped text, malloc'd; NULL if malformed. */
static char *read_string(struct reader *r)
{
	const char *s = ++r->p;
	char *out = malloc(strlen(s) + 1), *w = out;
	unsigned u;

	while (out && *s != '"') {
		if (!*s || (unsigned char)*s < 0x20)
			goto bad;
		if (*s != '\\') {
			*w++ = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case '"':
		case '\\':
		case '/':
			*w++ = *s;
			break;
		case 'b':
			*w++ = '\b';
			break;
		case 'f':
			*w++ = '\f';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 'r':
			*w++ = '\r';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'u':
			/* The library escapes control characters only: one byte each. */
			if (hex4(s + 1, &u) || u > 0xff)
				goto bad;
			*w++ = (char)u;
			s += 4;
			break;
		default:
			goto bad;
		}
		s++;
	}
	if (!out)
		return NULL;
	*w = '\0';
	r->p = s + 1;
	return out;
bad:
	free(out);
	return NULL;
}

static int read_value(struct reader *r, struct json *v, int depth);

/* The members of an array or object, after its opening bracket. */
static int read_members(struct reader *r, struct json *v, char close, int depth)
{
	size_t cap = 0;

	r->p++;
	skip_blanks(r);
	if (*r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		struct json *m;

		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			m = realloc(v->kids, cap * sizeof(*m));
			if (!m)
				return -1;
			v->kids = m;
		}
		m = &v->kids[v->n];
		memset(m, 0, sizeof(*m));
		v->n++;
		skip_blanks(r);
		if (close == '}') {
			if (*r->p != '"' || !(m->key = read_string(r)))
				return -1;
			skip_blanks(r);
			if (*r->p++ != ':')
				return -1;
		}
		if (read_value(r, m, depth + 1))
			return -1;
		skip_blanks(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p++ != close)
			return -1;
		return 0;
	}
}

static int read_value(struct reader *r, struct json *v, int depth)
{
	char *end;

	if (depth > DEPTH_MAX)
		return -1;
	skip_blanks(r);
	switch (*r->p) {
	case '{':
		v->type = JSON_OBJ;
		return read_members(r, v, '}', depth);
	case '[':
		v->type = JSON_ARR;
		return read_members(r, v, ']', depth);
	case '"':
		v->type = JSON_STR;
		v->str = read_string(r);
		return v->str ? 0 : -1;
	}
	if (!strncmp(r->p, "true", 4) || !strncmp(r->p, "false", 5)) {
		v->type = JSON_BOOL;
		v->num = r->p[0] == 't';
		r->p += v->num ? 4 : 5;
		return 0;
	}
	if (!strncmp(r->p, "null", 4)) {
		v->type = JSON_NULL;
		r->p += 4;
		return 0;
	}
	v->type = JSON_NUM;
	v->num = strtod(r->p, &end);
	if (end == r->p)
		return -1;
	r->p = end;
	return 0;
}

static void free_members(struct json *v)
{
	for (size_t i = 0; i < v->n; i++)
		free_members(&v->kids[i]);
	free(v->kids);
	free(v->key);
	free(v->str);
}

void json_free(struct json *v)
{
	if (!v)
		return;
	free_members(v);
	free(v);
}

struct json *json_parse(const char *text)
{
	struct reader r = { text };
	struct json *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (read_value(&r, v, 0)) {
		json_free(v);
		return NULL;
	}
	skip_blanks(&r);
	if (*r.p) {
		json_free(v);
		return NULL;
	}
	return v;
}

const struct json *json_get(const struct json *v, const char *key)
{
	if (!v || v->type != JSON_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->kids[i].key, key))
			return &v->kids[i];
	return NULL;
}

double json_num(const struct json *v, const char *key, double dflt)
{
	const struct json *m = json_get(v, key);

	return m && (m->type == JSON_NUM || m->type == JSON_BOOL) ? m->num : dflt;
}

const char *json_str(const struct json *v, const char *key, const char *dflt)
{
	const struct json *m = json_get(v, key);

	return m && m->type == JSON_STR ? m->str : dflt;
}

bool json_looks(const char *text)
{
	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	return *text == '{' || *text == '[';
}

static void json_indent(FILE *f, int depth)
{
	fputc('\n', f);
	for (int i = 0; i < depth; i++)
		fputs("    ", f);
}

/* The first character after @p that is not a blank. */
static char json_next(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return *p;
}

void json_pretty(FILE *f, const char *text)
{
	int depth = 0;

	for (const char *p = text; *p; p++) {
		switch (*p) {
		case '"':
			fputc(*p++, f);
			for (; *p && *p != '"'; p++) {
				fputc(*p, f);
				if (*p == '\\' && p[1])
					fputc(*++p, f);
			}
			if (*p)
				fputc('"', f);
			else
				p--;
			break;
		case '{':
		case '[':
			fputc(*p, f);
			if (json_next(p + 1) == (*p == '{' ? '}' : ']'))
				fputc(*(p = strchr(p + 1, *p == '{' ? '}' : ']')), f);
			else
				json_indent(f, ++depth);
			break;
		case '}':
		case ']':
			json_indent(f, --depth);
			fputc(*p, f);
			if (!depth)
				fputc('\n', f);
			break;
		case ',':
			fputc(',', f);
			json_indent(f, depth);
			break;
		case ':':
			fputs(": ", f);
			break;
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			break;
		default:
			fputc(*p, f);
		}
	}
}

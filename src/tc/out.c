// SPDX-License-Identifier: MIT
/* tc's output: the one growable text buffer (struct mqtx_buf), and the printer that gives tc's
 * text or its JSON from one sequence of calls, as iproute2's print_*(PRINT_ANY, key, fmt,
 * value) do (tc/tc_util.c, lib/json_print.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/internal.h"
#include "tc/tc.h"

/* ---- the growable buffer ---- */

void mqtx_buf_init(struct mqtx_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->nomem = false;
}

void mqtx_buf_free(struct mqtx_buf *b)
{
	mqtx__free(b->data);
	mqtx_buf_init(b);
}

int mqtx__buf_reserve(struct mqtx_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->nomem)
		return -ENOMEM; /* an earlier append is missing: nothing may follow it */
	if (b->len + need + 1 <= b->cap)
		return 0;
	while (cap < b->len + need + 1)
		cap *= 2;
	p = mqtx__alloc(cap);
	if (!p) {
		b->nomem = true;
		return -ENOMEM;
	}
	if (b->data)
		memcpy(p, b->data, b->len + 1);
	else
		p[0] = 0;
	mqtx__free(b->data);
	b->data = p;
	b->cap = cap;
	return 0;
}

int mqtx__buf_vprintf(struct mqtx_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || mqtx__buf_reserve(b, (size_t)n))
		return -ENOMEM;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int mqtx_buf_printf(struct mqtx_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = mqtx__buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int mqtx__buf_json_str(struct mqtx_buf *b, const char *s)
{
	int rc = mqtx_buf_printf(b, "\"");

	for (; *s && !rc; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			rc = mqtx_buf_printf(b, "\\%c", ch);
		else if (ch < 0x20)
			rc = mqtx_buf_printf(b, "\\u%04x", ch);
		else
			rc = mqtx_buf_printf(b, "%c", ch);
	}
	return rc ? rc : mqtx_buf_printf(b, "\"");
}

/* ---- the printer ---- */

void mqtx__out_init(struct tc_out *p, struct mqtx_buf *buf, bool json, bool stats, bool details)
{
	memset(p, 0, sizeof(*p));
	p->buf = buf;
	p->json = json;
	p->stats = stats;
	p->details = details;
}

void mqtx__out_init_fixed(struct tc_out *p, char *mem, size_t cap, bool json)
{
	memset(p, 0, sizeof(*p));
	p->mem = mem;
	p->memcap = cap;
	p->json = json;
	if (cap)
		mem[0] = '\0';
	else
		p->overflow = true;
}

bool mqtx__out_failed(const struct tc_out *p)
{
	return p->buf ? p->buf->nomem : p->overflow;
}

/* Into the caller's array: what does not fit is an overflow, and nothing follows it. */
static void vput_fixed(struct tc_out *p, const char *fmt, va_list ap)
{
	int n;

	if (p->overflow)
		return;
	n = vsnprintf(p->mem + p->memlen, p->memcap - p->memlen, fmt, ap);
	if (n < 0 || (size_t)n >= p->memcap - p->memlen) {
		p->overflow = true;
		return;
	}
	p->memlen += (size_t)n;
}

static void vput(struct tc_out *p, const char *fmt, va_list ap)
{
	if (p->buf)
		mqtx__buf_vprintf(p->buf, fmt, ap);
	else
		vput_fixed(p, fmt, ap);
}

static void put(struct tc_out *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct tc_out *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(p, fmt, ap);
	va_end(ap);
}

/* A member of the current JSON container: the comma, then the key of an object's member. */
static void member(struct tc_out *p, const char *key)
{
	if (p->used[p->depth])
		put(p, ",");
	p->used[p->depth] = true;
	if (key)
		put(p, "\"%s\":", key);
}

static void json_str(struct tc_out *p, const char *s)
{
	put(p, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(p, "\\%c", c);
		else if (c < 0x20)
			put(p, "\\u%04x", c);
		else
			put(p, "%c", c);
	}
	put(p, "\"");
}

/* The text forms take the caller's format with one conversion, as iproute2's do. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void mqtx__out_str(struct tc_out *p, unsigned t, const char *key, const char *fmt, const char *v)
{
	if (p->json) {
		if (t & OUT_JSON) {
			member(p, key);
			json_str(p, v);
		}
	} else if (t & OUT_FP) {
		put(p, fmt, v);
	}
}

void mqtx__out_uint(struct tc_out *p, unsigned t, const char *key, const char *fmt, uint64_t v)
{
	if (p->json) {
		if (t & OUT_JSON) {
			member(p, key);
			put(p, "%llu", (unsigned long long)v);
		}
	} else if (t & OUT_FP) {
		put(p, fmt, (unsigned long long)v);
	}
}

/* A real value; JSON prints it with %g, as iproute2's JSON writer does. */
void mqtx__out_float(struct tc_out *p, unsigned t, const char *key, const char *fmt, double v)
{
	if (p->json) {
		if (t & OUT_JSON) {
			member(p, key);
			put(p, "%g", v);
		}
	} else if (t & OUT_FP) {
		put(p, fmt, v);
	}
}

void mqtx__out_int(struct tc_out *p, unsigned t, const char *key, const char *fmt, int64_t v)
{
	if (p->json) {
		if (t & OUT_JSON) {
			member(p, key);
			put(p, "%lld", (long long)v);
		}
	} else if (t & OUT_FP) {
		put(p, fmt, (long long)v);
	}
}
#pragma GCC diagnostic pop

void mqtx__out_bool(struct tc_out *p, unsigned t, const char *key, const char *fmt, bool v)
{
	if (p->json) {
		if (t & OUT_JSON) {
			member(p, key);
			put(p, "%s", v ? "true" : "false");
		}
	} else if ((t & OUT_FP) && v && fmt) {
		put(p, "%s", fmt);
	}
}

void mqtx__out_counter(struct tc_out *p, const char *name, uint64_t v)
{
	if (p->json) {
		member(p, name);
		put(p, "%llu", (unsigned long long)v);
	} else {
		put(p, " %s %llu", name, (unsigned long long)v);
	}
}

void mqtx__out_members(struct tc_out *p, const char *json)
{
	if (!p->json)
		return;
	if (p->used[p->depth])
		put(p, ",");
	put(p, "%s", json);
	p->used[p->depth] = p->used[p->depth] || *json;
}

void mqtx__out_null(struct tc_out *p, const char *key, const char *text)
{
	if (p->json) {
		member(p, key);
		put(p, "null");
	} else if (text) {
		put(p, "%s", text);
	}
}

void mqtx__out_text(struct tc_out *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json)
		return;
	va_start(ap, fmt);
	vput(p, fmt, ap);
	va_end(ap);
}

void mqtx__out_end(struct tc_out *p)
{
	if (p->json)
		put(p, "\n");
}

void mqtx__out_nl(struct tc_out *p)
{
	if (!p->json)
		put(p, "\n");
}

static void open_container(struct tc_out *p, const char *key, char c)
{
	if (!p->json)
		return;
	member(p, key);
	put(p, "%c", c);
	if (p->depth + 1 < OUT_DEPTH)
		p->depth++;
	p->used[p->depth] = false;
}

static void close_container(struct tc_out *p, char c)
{
	if (!p->json)
		return;
	put(p, "%c", c);
	if (p->depth)
		p->depth--;
}

void mqtx__out_open(struct tc_out *p, const char *key)
{
	open_container(p, key, '{');
}

void mqtx__out_close(struct tc_out *p)
{
	close_container(p, '}');
}

void mqtx__out_open_array(struct tc_out *p, const char *key)
{
	open_container(p, key, '[');
}

void mqtx__out_close_array(struct tc_out *p)
{
	close_container(p, ']');
}

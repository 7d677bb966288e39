// SPDX-License-Identifier: MIT
/* The printer of filters and actions: one sequence of calls gives tc's text or its JSON, as
 * iproute2's print_*(PRINT_ANY, key, fmt, value) do (tc/tc_util.c, lib/json_print.c). */
#include <stdarg.h>
#include <stdio.h>

#include "cls/cls_int.h"

void tp_init(struct tcf_print *p, bool json, bool stats, bool details)
{
	memset(p, 0, sizeof(*p));
	p->json = json;
	p->stats = stats;
	p->details = details;
}

void tp_free(struct tcf_print *p)
{
	mqtx__free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

static bool reserve(struct tcf_print *p, size_t n)
{
	size_t cap = p->cap ? p->cap : 1024;
	char *nb;

	if (p->nomem)
		return false;
	if (p->len + n + 1 <= p->cap)
		return true;
	while (cap < p->len + n + 1)
		cap *= 2;
	nb = mqtx__alloc(cap);
	if (!nb) {
		p->nomem = true;
		return false;
	}
	if (p->buf)
		memcpy(nb, p->buf, p->len + 1);
	else
		nb[0] = 0;
	mqtx__free(p->buf);
	p->buf = nb;
	p->cap = cap;
	return true;
}

static void vput(struct tcf_print *p, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !reserve(p, (size_t)n))
		return;
	vsnprintf(p->buf + p->len, (size_t)n + 1, fmt, ap);
	p->len += (size_t)n;
}

static void put(struct tcf_print *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct tcf_print *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(p, fmt, ap);
	va_end(ap);
}

/* A member of the current JSON container: the comma, then the key of an object's member. */
static void member(struct tcf_print *p, const char *key)
{
	if (p->used[p->depth])
		put(p, ",");
	p->used[p->depth] = true;
	if (key)
		put(p, "\"%s\":", key);
}

static void json_str(struct tcf_print *p, const char *s)
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
void tp_string(struct tcf_print *p, unsigned t, const char *key, const char *fmt, const char *v)
{
	if (p->json) {
		if (t & TP_JSON) {
			member(p, key);
			json_str(p, v);
		}
	} else if (t & TP_FP) {
		put(p, fmt, v);
	}
}

void tp_uint(struct tcf_print *p, unsigned t, const char *key, const char *fmt, uint64_t v)
{
	if (p->json) {
		if (t & TP_JSON) {
			member(p, key);
			put(p, "%llu", (unsigned long long)v);
		}
	} else if (t & TP_FP) {
		put(p, fmt, (unsigned long long)v);
	}
}

void tp_int(struct tcf_print *p, unsigned t, const char *key, const char *fmt, int64_t v)
{
	if (p->json) {
		if (t & TP_JSON) {
			member(p, key);
			put(p, "%lld", (long long)v);
		}
	} else if (t & TP_FP) {
		put(p, fmt, (long long)v);
	}
}
#pragma GCC diagnostic pop

void tp_bool(struct tcf_print *p, unsigned t, const char *key, const char *fmt, bool v)
{
	if (p->json) {
		if (t & TP_JSON) {
			member(p, key);
			put(p, "%s", v ? "true" : "false");
		}
	} else if ((t & TP_FP) && v && fmt) {
		put(p, "%s", fmt);
	}
}

void tp_text(struct tcf_print *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json)
		return;
	va_start(ap, fmt);
	vput(p, fmt, ap);
	va_end(ap);
}

void tp_nl(struct tcf_print *p)
{
	if (!p->json)
		put(p, "\n");
}

static void open_container(struct tcf_print *p, const char *key, char c)
{
	if (!p->json)
		return;
	member(p, key);
	put(p, "%c", c);
	if (p->depth + 1 < TP_DEPTH)
		p->depth++;
	p->used[p->depth] = false;
}

static void close_container(struct tcf_print *p, char c)
{
	if (!p->json)
		return;
	put(p, "%c", c);
	if (p->depth)
		p->depth--;
}

void tp_open(struct tcf_print *p, const char *key)
{
	open_container(p, key, '{');
}

void tp_close(struct tcf_print *p)
{
	close_container(p, '}');
}

void tp_open_array(struct tcf_print *p, const char *key)
{
	open_container(p, key, '[');
}

void tp_close_array(struct tcf_print *p)
{
	close_container(p, ']');
}

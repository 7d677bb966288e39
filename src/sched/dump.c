// SPDX-License-Identifier: MIT
/* The dump emitter: a qdisc describes its options once; they come out as tc text and JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/core.h"
#include <mqtx/tc.h>

struct mqtx_dump {
	char *text, *json;
	size_t tlen, tcap, jlen, jcap;
	bool overflow;
	unsigned flags;	    /* MQTX_DUMP_F_* */
	const char *indent; /* what starts a text line: "" (options), "  " (xstats) */
	bool midline;	    /* text written on the current line */
	bool jopen;	    /* a JSON object was just opened: no comma before its first member */
};

static void put(struct mqtx_dump *d, bool json, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(struct mqtx_dump *d, bool json, const char *fmt, ...)
{
	char *buf = json ? d->json : d->text;
	size_t *len = json ? &d->jlen : &d->tlen;
	size_t cap = json ? d->jcap : d->tcap;
	va_list ap;
	int n;

	if (d->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap - *len) {
		d->overflow = true;
		return;
	}
	*len += (size_t)n;
}

/* Before an item's text: a blank between items, the indent at the start of a line. */
static void text_sep(struct mqtx_dump *d)
{
	put(d, false, "%s", d->midline ? " " : d->indent);
	d->midline = true;
}

/* A JSON member's key, after a comma unless it comes first in its object. */
static void json_key(struct mqtx_dump *d, const char *key)
{
	put(d, true, "%s\"%s\":", d->jlen && !d->jopen ? "," : "", key);
	d->jopen = false;
}

static void sep(struct mqtx_dump *d, const char *key)
{
	text_sep(d);
	if (key)
		json_key(d, key);
}

/* The text form: @text is the caller's printf format with one conversion for @v. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void text_uint(struct mqtx_dump *d, const char *text, uint64_t v)
{
	put(d, false, text, v);
}

static void text_int(struct mqtx_dump *d, const char *text, int64_t v)
{
	put(d, false, text, v);
}

static void text_str(struct mqtx_dump *d, const char *text, const char *v)
{
	put(d, false, text, v);
}

static void text_float(struct mqtx_dump *d, const char *text, double v)
{
	put(d, false, text, v);
}
#pragma GCC diagnostic pop

/* Text and JSON apart: @text NULL is JSON only, @key NULL text only. */
static void item(struct mqtx_dump *d, const char *key, const char *text)
{
	if (text)
		text_sep(d);
	if (key)
		json_key(d, key);
}

void mqtx_dump_uint(struct mqtx_dump *d, const char *key, const char *text, uint64_t v)
{
	item(d, key, text);
	if (text)
		text_uint(d, text, v);
	if (key)
		put(d, true, "%" PRIu64, v);
}

void mqtx_dump_int(struct mqtx_dump *d, const char *key, const char *text, int64_t v)
{
	item(d, key, text);
	if (text)
		text_int(d, text, v);
	if (key)
		put(d, true, "%" PRId64, v);
}

void mqtx_dump_float(struct mqtx_dump *d, const char *key, const char *text, double v)
{
	item(d, key, text);
	if (text)
		text_float(d, text, v);
	if (key) /* iproute2's JSON writer prints a double with %g */
		put(d, true, "%g", v);
}

void mqtx_dump_obj_begin(struct mqtx_dump *d, const char *key)
{
	json_key(d, key);
	put(d, true, "{");
	d->jopen = true;
}

void mqtx_dump_obj_end(struct mqtx_dump *d)
{
	put(d, true, "}");
	d->jopen = false;
}

void mqtx_dump_str(struct mqtx_dump *d, const char *key, const char *text, const char *v)
{
	item(d, key, text);
	if (text)
		text_str(d, text, v);
	if (!key)
		return;
	put(d, true, "\"");
	for (const char *c = v; *c; c++) {
		if (*c == '"' || *c == '\\')
			put(d, true, "\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			put(d, true, "\\u%04x", (unsigned char)*c);
		else
			put(d, true, "%c", *c);
	}
	put(d, true, "\"");
}

/* A value tc prints in words but iproute2's JSON carries as the number @json; without @key it
 * is text only, without @text JSON only (tc prints some values differently in each). */
static void dump_unit(struct mqtx_dump *d, const char *key, const char *text, const char *words,
		      uint64_t json)
{
	if (text) {
		text_sep(d);
		text_str(d, text, words);
	}
	if (key) {
		json_key(d, key);
		put(d, true, "%" PRIu64, json);
	}
}

void mqtx_dump_time(struct mqtx_dump *d, const char *key, const char *text, uint64_t ns)
{
	char b[MQTX_TC_BUF];

	/* tc's time unit is the microsecond: the netlink value print_uint() emits. */
	dump_unit(d, key, text, mqtx_tc_print_time(b, sizeof(b), ns), ns / 1000);
}

void mqtx_dump_time_signed(struct mqtx_dump *d, const char *key, const char *text, int64_t ns)
{
	char b[MQTX_TC_BUF + 1];

	/* tc prints a negative time as "-" and the words of its magnitude (codel's drop_next);
	 * its JSON has the signed microseconds. */
	b[0] = '-';
	mqtx_tc_print_time(b + 1, sizeof(b) - 1, ns < 0 ? -(uint64_t)ns : (uint64_t)ns);
	sep(d, key);
	text_str(d, text, ns < 0 ? b : b + 1);
	put(d, true, "%" PRId64, ns / 1000);
}

void mqtx_dump_size(struct mqtx_dump *d, const char *key, const char *text, uint64_t bytes)
{
	char b[MQTX_TC_BUF];

	dump_unit(d, key, text, mqtx_tc_print_size(b, sizeof(b), bytes), bytes);
}

void mqtx_dump_rate(struct mqtx_dump *d, const char *key, const char *text, uint64_t bps)
{
	char b[MQTX_TC_BUF];

	/* print_rate(): bits with a prefix in text, bytes per second in JSON. */
	dump_unit(d, key, text, mqtx_tc_print_rate(b, sizeof(b), bps), bps);
}

void mqtx_dump_flag(struct mqtx_dump *d, const char *key, const char *text)
{
	sep(d, key);
	put(d, false, "%s", text);
	if (key)
		put(d, true, "true");
}

void mqtx_dump_bool(struct mqtx_dump *d, const char *key, const char *text, bool v)
{
	if (v && text) {
		text_sep(d);
		put(d, false, "%s", text);
	}
	if (key) {
		json_key(d, key);
		put(d, true, "%s", v ? "true" : "false");
	}
}

void mqtx_dump_nl(struct mqtx_dump *d)
{
	put(d, false, "\n");
	d->midline = false;
}

void mqtx_dump_uint_array(struct mqtx_dump *d, const char *key, const char *label,
			  const uint32_t *v, unsigned n)
{
	sep(d, key);
	put(d, false, "%s", label);
	put(d, true, "[");
	for (unsigned i = 0; i < n; i++) {
		put(d, false, " %" PRIu32, v[i]);
		put(d, true, "%s%" PRIu32, i ? "," : "", v[i]);
	}
	put(d, true, "]");
}

bool mqtx_dump_details(const struct mqtx_dump *d)
{
	return d->flags & MQTX_DUMP_F_DETAILS;
}

/* A dump into the caller's buffers: @indent starts each text line. */
static bool dump_begin(struct mqtx_dump *d, unsigned flags, const char *indent, char *text,
		       size_t text_len, char *json, size_t json_len)
{
	*d = (struct mqtx_dump){ .text = text,
				 .json = json,
				 .tcap = text_len,
				 .jcap = json_len,
				 .flags = flags,
				 .indent = indent };
	if (!text_len || !json_len)
		return false;
	text[0] = json[0] = '\0';
	return true;
}

int mqtx_qdisc_dump_options(struct mqtx_qdisc *q, unsigned flags, char *text, size_t text_len,
			    char *json, size_t json_len)
{
	struct mqtx_dump d;

	if (!dump_begin(&d, flags, "", text, text_len, json, json_len))
		return -ENOSPC;
	if (q->ops->dump && !(q->flags & MQTX_QF_BUILTIN)) {
		mqtx_spin_lock(mqtx__qdisc_lock(q));
		q->ops->dump(q, &d);
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
	}
	return d.overflow ? -ENOSPC : (int)d.tlen;
}

int mqtx_qdisc_dump_opts(struct mqtx_qdisc *q, char *text, size_t text_len, char *json,
			 size_t json_len)
{
	return mqtx_qdisc_dump_options(q, 0, text, text_len, json, json_len);
}

/* tc prints xstats on lines of their own, each indented by two blanks (print_xstats). */
int mqtx_qdisc_dump_xstats(struct mqtx_qdisc *q, char *text, size_t text_len, char *json,
			   size_t json_len)
{
	struct mqtx_dump d;

	if (!dump_begin(&d, 0, "  ", text, text_len, json, json_len))
		return -ENOSPC;
	if (q->ops->dump_stats && !(q->flags & MQTX_QF_BUILTIN)) {
		mqtx_spin_lock(mqtx__qdisc_lock(q));
		q->ops->dump_stats(q, &d);
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
	}
	return d.overflow ? -ENOSPC : (int)d.tlen;
}

int mqtx_class_dump_xstats(struct mqtx_qdisc *q, uint32_t minor, char *text, size_t text_len,
			   char *json, size_t json_len)
{
	const struct mqtx_class_ops *cl = q->ops->cl_ops;
	struct mqtx_dump d;

	if (!dump_begin(&d, 0, "  ", text, text_len, json, json_len))
		return -ENOSPC;
	if (cl && cl->dump_stats) {
		mqtx_spin_lock(mqtx__qdisc_lock(q));
		cl->dump_stats(q, minor, &d);
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
	}
	return d.overflow ? -ENOSPC : (int)d.tlen;
}

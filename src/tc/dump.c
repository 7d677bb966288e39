// SPDX-License-Identifier: MIT
/* The dump emitter: a qdisc describes its options once, with the mqtx_dump_*() calls, and they
 * come out as tc's text and as JSON members, through two printers (struct tc_out) at once. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tc/tc.h"
#include <mqtx/qdisc.h>

/* Before an item's text (@first: its first character): a blank between items, the indent at
 * the start of a line; a text that starts with a tab needs no blank (tc's "\tbase-time"). */
static void text_sep(struct mqtx_dump *d, char first)
{
	if (!d->midline || first != '\t')
		mqtx__out_text(&d->text, "%s", d->midline ? " " : d->indent);
	d->midline = true;
}

/* The text form: @text is the caller's printf format with one conversion for @v. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void text_uint(struct mqtx_dump *d, const char *text, uint64_t v)
{
	text_sep(d, text[0]);
	mqtx__out_text(&d->text, text, v);
}

static void text_int(struct mqtx_dump *d, const char *text, int64_t v)
{
	text_sep(d, text[0]);
	mqtx__out_text(&d->text, text, v);
}

static void text_str(struct mqtx_dump *d, const char *text, const char *v)
{
	text_sep(d, strcmp(text, "%s") ? text[0] : v[0]);
	mqtx__out_text(&d->text, text, v);
}
#pragma GCC diagnostic pop

/* Without @key a value is text only (what tc prints but leaves out of its JSON); without @text,
 * JSON only. */
void mqtx_dump_uint(struct mqtx_dump *d, const char *key, const char *text, uint64_t v)
{
	if (text)
		text_uint(d, text, v);
	if (key)
		mqtx__out_uint(&d->json, OUT_JSON, key, NULL, v);
}

void mqtx_dump_int(struct mqtx_dump *d, const char *key, const char *text, int64_t v)
{
	if (text)
		text_int(d, text, v);
	if (key)
		mqtx__out_int(&d->json, OUT_JSON, key, NULL, v);
}

void mqtx_dump_float(struct mqtx_dump *d, const char *key, const char *text, double v)
{
	if (text) {
		text_sep(d, text[0]);
		mqtx__out_float(&d->text, OUT_FP, NULL, text, v);
	}
	if (key)
		mqtx__out_float(&d->json, OUT_JSON, key, NULL, v);
}

void mqtx_dump_null(struct mqtx_dump *d, const char *key, const char *text)
{
	if (text)
		text_str(d, "%s", text);
	if (key)
		mqtx__out_null(&d->json, key, NULL);
}

void mqtx_dump_obj_begin(struct mqtx_dump *d, const char *key)
{
	mqtx__out_open(&d->json, key);
}

void mqtx_dump_obj_end(struct mqtx_dump *d)
{
	mqtx__out_close(&d->json);
}

void mqtx_dump_array_begin(struct mqtx_dump *d, const char *key)
{
	mqtx__out_open_array(&d->json, key);
}

void mqtx_dump_array_end(struct mqtx_dump *d)
{
	mqtx__out_close_array(&d->json);
}

void mqtx_dump_str(struct mqtx_dump *d, const char *key, const char *text, const char *v)
{
	if (text)
		text_str(d, text, v);
	if (key)
		mqtx__out_str(&d->json, OUT_JSON, key, NULL, v);
}

/* A value tc prints in words but iproute2's JSON carries as the number @json; without @key it
 * is text only, without @text JSON only (tc prints some values differently in each). */
static void dump_unit(struct mqtx_dump *d, const char *key, const char *text, const char *words,
		      uint64_t json)
{
	if (text)
		text_str(d, text, words);
	if (key)
		mqtx__out_uint(&d->json, OUT_JSON, key, NULL, json);
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
	text_str(d, text, ns < 0 ? b : b + 1);
	if (key)
		mqtx__out_int(&d->json, OUT_JSON, key, NULL, ns / 1000);
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
	mqtx_dump_bool(d, key, text, true);
}

void mqtx_dump_bool(struct mqtx_dump *d, const char *key, const char *text, bool v)
{
	if (v && text)
		text_str(d, "%s", text);
	if (key)
		mqtx__out_bool(&d->json, OUT_JSON, key, NULL, v);
}

void mqtx_dump_nl(struct mqtx_dump *d)
{
	mqtx__out_nl(&d->text);
	d->midline = false;
}

void mqtx_dump_uint_array(struct mqtx_dump *d, const char *key, const char *label,
			  const uint32_t *v, unsigned n)
{
	text_str(d, "%s", label);
	if (key)
		mqtx__out_open_array(&d->json, key);
	for (unsigned i = 0; i < n; i++) {
		mqtx__out_text(&d->text, " %" PRIu32, v[i]);
		if (key)
			mqtx__out_uint(&d->json, OUT_JSON, NULL, NULL, v[i]);
	}
	if (key)
		mqtx__out_close_array(&d->json);
}

void mqtx_dump_str_array(struct mqtx_dump *d, const char *key, const char *label,
			 const char *const *v, unsigned n)
{
	text_str(d, "%s", label);
	if (key)
		mqtx__out_open_array(&d->json, key);
	for (unsigned i = 0; i < n; i++) {
		mqtx__out_text(&d->text, " %s", v[i]);
		if (key)
			mqtx__out_str(&d->json, OUT_JSON, NULL, NULL, v[i]);
	}
	if (key)
		mqtx__out_close_array(&d->json);
}

bool mqtx_dump_details(const struct mqtx_dump *d)
{
	return d->flags & MQTX_DUMP_F_DETAILS;
}

void mqtx_dump_indent(struct mqtx_dump *d, const char *indent)
{
	d->indent = indent;
}

void mqtx__dump_begin(struct mqtx_dump *d, unsigned flags, const char *indent, char *text,
		      size_t text_len, char *json, size_t json_len)
{
	mqtx__out_init_fixed(&d->text, text, text_len, false);
	mqtx__out_init_fixed(&d->json, json, json_len, true);
	d->flags = flags;
	d->indent = indent;
	d->midline = false;
}

int mqtx__dump_end(const struct mqtx_dump *d)
{
	if (mqtx__out_failed(&d->text) || mqtx__out_failed(&d->json))
		return -ENOSPC;
	return (int)d->text.memlen;
}

/* SPDX-License-Identifier: MIT */
/* The tc language, internals: how a word is matched and how each kind of value is read and
 * spelled, as iproute2's tc (lib/utils.c, tc/tc_util.c, lib/ll_addr.c) does it. Every layer
 * above reads and writes tc's words through this folder; its public half is <mqtx/tc.h>. */
#ifndef MQTX_TC_TC_H
#define MQTX_TC_TC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mqtx/ctl.h>
#include <mqtx/tc.h>

/* ---- words (values.c) ---- */

/**
 * mqtx__tc_set_link() - the device the words of a command are for, until set again (NULL: none):
 * its name, whether it exists, and its link speed in bits/s (0: unknown), for
 * mqtx_tc_parse_rate_percent(). On the calling thread.
 */
void mqtx__tc_set_link(const char *dev, bool found, uint64_t bps);

/** mqtx__tc_matches() - tc's matches(): @word is a non-empty prefix of @full ("ad" is add). */
bool mqtx__tc_matches(const char *word, const char *full);

/**
 * mqtx__tc_get_u32() / _u16() / _u8() - tc's get_u32() and friends: strtoul in @base (0: "0x"
 * hex, leading "0" octal), the whole word, no '-', within the type.
 * Return: 0, or -EINVAL.
 */
int mqtx__tc_get_u32(const char *s, uint32_t *v, int base);
int mqtx__tc_get_u16(const char *s, uint16_t *v, int base);
int mqtx__tc_get_u8(const char *s, uint8_t *v, int base);
/** mqtx__tc_get_u64() - tc's get_u64(): strtoull in @base, the whole word; a '-' wraps as
 *  strtoull() wraps it ("-1" is 2^64 - 1). Return: 0, or -EINVAL. */
int mqtx__tc_get_u64(const char *s, uint64_t *v, int base);
/** mqtx__tc_get_integer() - tc's get_integer(): strtol in @base, the whole word, an int. */
int mqtx__tc_get_integer(const char *s, int *v, int base);

/**
 * mqtx__tc_split() - a word of two parts, "VALUE/MASK", "SIZE/CELL", "ADDR/LEN": @s copied into
 * @buf (@size bytes), which then holds the part before the first '/'; *@rest the part after
 * it, inside @buf, or NULL when there is no '/'.
 * Return: 0, or -EINVAL when @s does not fit in @buf.
 */
int mqtx__tc_split(const char *s, char *buf, size_t size, char **rest);

/** mqtx__parse_u64() - a decimal or 0x number (no sign). Return 0 or -EINVAL. */
int mqtx__parse_u64(const char *s, uint64_t *v);

/**
 * mqtx__parse_rate() - a tc rate (mqtx_tc_parse_rate_bits(): "10mbit", "125kbps", a bare
 * number of bits) into *@bps, or a packet rate ("1000pps", "2kpps", "1mpps") into *@pps; the
 * other is 0. Return: 0, or -EINVAL (malformed, zero, above 1 Pbit/s or 1e15 pps).
 */
int mqtx__parse_rate(const char *s, uint64_t *bps, uint64_t *pps);

/** mqtx__parse_ipv4_range() - "A" or "A-B" (host order, A <= B). */
int mqtx__parse_ipv4_range(const char *s, uint32_t *lo, uint32_t *hi);

/**
 * mqtx__parse_ipv6_range() - "A" or "A-B" (IPv6, A <= B): @base gets A, *@lo and *@hi the last
 * 32 bits of A and B. Return: 0, -EINVAL, or -ERANGE (A and B differ in the first 96 bits).
 */
int mqtx__parse_ipv6_range(const char *s, uint8_t base[16], uint32_t *lo, uint32_t *hi);

/** mqtx__parse_port_range() - "P" or "P-Q" (P <= Q). */
int mqtx__parse_port_range(const char *s, uint16_t *lo, uint16_t *hi);

/**
 * mqtx__parse_mac() - a link-layer address as tc's ll_addr_a2n() reads one: six hex numbers
 * (each at most ff, "0x" allowed) separated by ':' ("02:00:00:00:00:01", "2:0:0:0:0:1").
 * Return: 0, or -EINVAL.
 */
int mqtx__parse_mac(const char *s, uint8_t mac[6]);

/** mqtx__mac_fmt() - tc's spelling of a MAC (ll_addr_n2a(): "02:00:5e:00:00:01"); returns
 *  @buf, which holds 18 bytes. */
const char *mqtx__mac_fmt(const uint8_t mac[6], char *buf, size_t len);

/* ---- table-driven option parsing (opts.c): keyword -> parser -> field ---- */

struct tc_opt;

/* A parser of a table row: @v into @field (the row's place in the caller's struct), within
 * the row's bounds. Return: 0, or -EINVAL. */
typedef int tc_opt_fn(const char *v, void *field, const struct tc_opt *o);

/*
 * struct tc_opt - one option "WORD VALUE" of a command or kind.
 * @word: the keyword, matched whole, or with @prefix by tc's matches() (the first row whose
 *        keyword the word begins wins, as tc's chain of matches() does).
 * @parse: reads the value into the field at @off of the caller's struct.
 * @min, @max: the bounds of a number (0, 0: any the field holds).
 * @given: TC_OPT_GIVEN(): a bool of the caller's struct set when the option is given; 0: none.
 * @flags, @flag: TC_OPT_GIVEN() of an unsigned of the caller's struct that gets @flag when the
 *                option is given (a mask of what a command changes); 0: none.
 * @hint: what the value should be, for the caller's message about a bad one ("1..64");
 *        NULL: the caller says it from the bounds, or not at all.
 * @words: mqtx__tc_opt_word(): the words the value may be, NULL-terminated.
 */
struct tc_opt {
	const char *word;
	tc_opt_fn *parse;
	size_t off;
	uint64_t min, max;
	size_t given;
	bool prefix;
	size_t flags;
	unsigned flag;
	const char *hint;
	const char *const *words;
};

#define TC_OPT_GIVEN(type, member) (offsetof(type, member) + 1)

/** mqtx__tc_opt_find() - the row of @t[0..n) for @word, or NULL. */
const struct tc_opt *mqtx__tc_opt_find(const struct tc_opt *t, size_t n, const char *word);

/**
 * mqtx__tc_opt_apply() - @v into @base as row @o says, and the row's @given and @flag set.
 * Return: 0, or the parser's -errno (-EINVAL, or a parser's own, which the caller may name).
 */
int mqtx__tc_opt_apply(const struct tc_opt *o, const char *v, void *base);

/** mqtx__tc_opt_given() - whether row @o's @given bool of @base is set (an option given). */
bool mqtx__tc_opt_given(const struct tc_opt *o, const void *base);

/* The value parsers of the tables: the word itself (const char *); numbers (mqtx__parse_u64())
 * within [min, max] into an int, a uint8_t, a uint32_t or a uint64_t; numbers of
 * mqtx_tc_parse_u32_dec() (decimal), of mqtx_tc_parse_u32() (base 0) and of tc's get_u32()
 * (base 0) within [min, max] into a uint32_t; a class id (mqtx__classid_parse()) into a
 * uint32_t; any word, read and ignored (what tc takes and does nothing with); a time
 * (mqtx_tc_parse_time()) and a bit rate (mqtx_tc_parse_rate_bits()) into a uint64_t, at least
 * min; a MAC (mqtx__parse_mac()) into a uint8_t[6]; "on" or "off" into a bool; one of the
 * row's @words, its index into an int (or an enum). */
tc_opt_fn mqtx__tc_opt_str, mqtx__tc_opt_int, mqtx__tc_opt_u8, mqtx__tc_opt_u32, mqtx__tc_opt_u64,
	mqtx__tc_opt_dec, mqtx__tc_opt_unsigned, mqtx__tc_opt_tc_u32, mqtx__tc_opt_classid,
	mqtx__tc_opt_ignore, mqtx__tc_opt_time, mqtx__tc_opt_rate_bits, mqtx__tc_opt_mac,
	mqtx__tc_opt_onoff, mqtx__tc_opt_word;

/* A value a command takes once, as tc's duparg() checks: the word (into a const char *) or a
 * class id (into a uint32_t), -EEXIST when the field holds one already (not NULL, not 0). */
tc_opt_fn mqtx__tc_opt_str_once, mqtx__tc_opt_classid_once;

/* An address with a port maybe, as "hash" and "filter test" take them. */
struct tc_endpoint {
	int family;
	uint8_t addr[16];
	uint16_t port;
	bool has_port;
};

/** mqtx__parse_endpoint() - "A", "A:P", "[A6]", "[A6]:P" or a bare IPv6 address.
 *  Return: 0 or -EINVAL. */
int mqtx__parse_endpoint(const char *s, struct tc_endpoint *e);

/* mqtx__parse_endpoint() as the value parser of an option table's row. */
tc_opt_fn mqtx__tc_opt_endpoint;

/* ---- handles and class ids (handle.c) ---- */

/**
 * mqtx__handle_parse() - a qdisc handle as tc(8) reads it: a hex major as strtoul() takes it
 * ("1:", "8001", "0x10:", "ffff:"), what follows a ':' ignored ("1:2" is 1:); "none" is 0.
 * Return: 0, or -EINVAL (no digits, anything but ':' after them, major above ffff).
 */
int mqtx__handle_parse(const char *s, uint32_t *h);

/**
 * mqtx__classid_parse() - a class id: "root", "none", "X:Y", "X:", ":Y" or "X", each number
 * hex as strtoul() takes it ("0x1:0x3"). Return: 0, or -EINVAL.
 */
int mqtx__classid_parse(const char *s, uint32_t *h);

/** mqtx__classid_fmt() - tc's spelling of @h ("root", "1:", ":4", "1:a"); returns @buf. */
const char *mqtx__classid_fmt(uint32_t h, char *buf, size_t len);

/* ---- output (out.c): the growable buffer, and tc's text or JSON from one sequence of calls ---- */

/**
 * mqtx__buf_reserve() - make room for @need more bytes in @b, so that appending up to that
 * much cannot fail: a command that changes something does this before its commit.
 * Return: 0, or -ENOMEM (and @b->nomem is set).
 */
int mqtx__buf_reserve(struct mqtx_buf *b, size_t need);

/** mqtx__buf_vprintf() - mqtx_buf_printf() with a va_list. */
int mqtx__buf_vprintf(struct mqtx_buf *b, const char *fmt, va_list ap);

/** mqtx__buf_json_str() - append @s as a JSON string (quoted, escaped). Return: as printf. */
int mqtx__buf_json_str(struct mqtx_buf *b, const char *s);

#define OUT_FP	 0x1u /* text only (iproute2's PRINT_FP) */
#define OUT_JSON 0x2u /* JSON only (PRINT_JSON) */
#define OUT_ANY	 0x3u /* both (PRINT_ANY) */

#define OUT_DEPTH 16

/*
 * struct tc_out - where a printer writes: tc's text, or (@json) its JSON, never both. The same
 * calls make either: a value with a key (its JSON member) and a format (its text, one
 * conversion). It writes into @buf, which grows, or into a caller's array @mem that does not
 * (a dump under a qdisc's lock): what does not fit sets @overflow and nothing follows it.
 * @stats, @details: tc's -s and -d, for the printers to ask.
 */
struct tc_out {
	bool json, stats, details;
	struct mqtx_buf *buf;
	char *mem;
	size_t memlen, memcap;
	bool overflow;
	unsigned depth;
	bool used[OUT_DEPTH]; /* the JSON container at each depth has a member already */
};

void mqtx__out_init(struct tc_out *p, struct mqtx_buf *buf, bool json, bool stats, bool details);
/* Into @mem[0..@cap) (made an empty string); @cap 0 is an overflow at once. */
void mqtx__out_init_fixed(struct tc_out *p, char *mem, size_t cap, bool json);
/* Whether something written was lost (out of memory, or out of room in @mem). */
bool mqtx__out_failed(const struct tc_out *p);
/* @fmt is a printf format with one conversion of the value (%s, %llu, %llx, %lld). */
void mqtx__out_str(struct tc_out *p, unsigned t, const char *key, const char *fmt, const char *v);
void mqtx__out_uint(struct tc_out *p, unsigned t, const char *key, const char *fmt, uint64_t v);
void mqtx__out_int(struct tc_out *p, unsigned t, const char *key, const char *fmt, int64_t v);
/* @fmt has one double conversion ("%g"); JSON: %g. */
void mqtx__out_float(struct tc_out *p, unsigned t, const char *key, const char *fmt, double v);
/* Text: @fmt (no conversion) when @v; JSON: "key": v. */
void mqtx__out_bool(struct tc_out *p, unsigned t, const char *key, const char *fmt, bool v);
/* A counter whose name is its key: " NAME V" in text, "NAME": V in JSON. */
void mqtx__out_counter(struct tc_out *p, const char *name, uint64_t v);
/* JSON only: @json, members made by another printer (a dump), as they are, after a comma when
 * the current container has members already. */
void mqtx__out_members(struct tc_out *p, const char *json);
/* JSON: "key": null; text: @text (no conversion; NULL: nothing). */
void mqtx__out_null(struct tc_out *p, const char *key, const char *text);
/* Text only (no JSON): a printf of its own. */
void mqtx__out_text(struct tc_out *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mqtx__out_nl(struct tc_out *p);
/* The end of a document: JSON ends its line (text has ended its own). */
void mqtx__out_end(struct tc_out *p);
void mqtx__out_open(struct tc_out *p, const char *key); /* a JSON object (key NULL: a value) */
void mqtx__out_close(struct tc_out *p);
void mqtx__out_open_array(struct tc_out *p, const char *key); /* a JSON array */
void mqtx__out_close_array(struct tc_out *p);

/* ---- the dump emitter of qdiscs and classes (dump.c): the mqtx_dump_*() calls ---- */

/*
 * struct mqtx_dump - a qdisc's options (or statistics) as tc's text and as JSON members
 * (without braces) at once, into the caller's arrays.
 * @indent: what starts a text line: "" (options), "  " (xstats, tc's print_xstats).
 * @midline: text was written on the current line (the next item is set off by a blank).
 */
struct mqtx_dump {
	struct tc_out text, json;
	unsigned flags; /* MQTX_DUMP_F_* */
	const char *indent;
	bool midline;
};

void mqtx__dump_begin(struct mqtx_dump *d, unsigned flags, const char *indent, char *text,
		      size_t text_len, char *json, size_t json_len);
/* The text's length, or -ENOSPC when either array was too small. */
int mqtx__dump_end(const struct mqtx_dump *d);

#endif

/* SPDX-License-Identifier: MIT */
/* A small JSON reader for what the tools ask of the library with -j (mqtx top, mqtx's waits):
 * machines read machines' output, never the prose meant for people. */
#ifndef MQTX_TOOLS_JSON_H
#define MQTX_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

/** One value; an array's or object's members are @kids (an object's have a @key each). */
struct json {
	enum json_type type;
	char *key;	   /* the member's name in its object, or NULL */
	char *str;	   /* JSON_STR: the text, unescaped */
	double num;	   /* JSON_NUM; JSON_BOOL: 0 or 1 */
	struct json *kids; /* JSON_ARR, JSON_OBJ: @n members */
	size_t n;
};

/** json_parse() - the value of @text (one value, blanks around it). NULL: malformed or no memory.
 */
struct json *json_parse(const char *text);

/** json_free() - free a value of json_parse(); NULL allowed. */
void json_free(struct json *v);

/** json_get() - member @key of object @v, or NULL (also when @v is not an object). */
const struct json *json_get(const struct json *v, const char *key);

/** json_num() - member @key of object @v as a number, or @dflt when missing or not a number. */
double json_num(const struct json *v, const char *key, double dflt);

/** json_str() - member @key of object @v as a string, or @dflt when missing or not a string. */
const char *json_str(const struct json *v, const char *key, const char *dflt);

/** json_looks() - whether @text starts (after blanks) as a JSON object or array. */
bool json_looks(const char *text);

/**
 * json_pretty() - print the JSON text @text (one or more documents) to @f indented as tc -j -p
 * prints it: a member or element a line, four spaces a level. Strings are copied as they are.
 */
void json_pretty(FILE *f, const char *text);

#endif

/* SPDX-License-Identifier: MIT */
/* Command files (mqtx -batch, mqtxd -c): every line split with mqtx_ctl_split(), so that both
 * front ends read exactly the language the library reads. */
#ifndef MQTX_TOOLS_BATCH_H
#define MQTX_TOOLS_BATCH_H

#include <stddef.h>
#include <stdio.h>

#include <mqtx/ctl.h>

#define BATCH_LINE_MAX 65536u	   /* bytes in a line, its newline included */
#define BATCH_FILE_MAX (16u << 20) /* bytes in a command file */

/** One non-empty line of a command file. */
struct batch_line {
	int lineno, argc;
	char **argv; /* from mqtx_ctl_split(); NULL: the line could not be split */
};

/**
 * batch_read() - read all of @f and split each line. Empty and comment lines are left out; a
 * line that cannot be split is kept with argv NULL and reported on stderr as
 * "PROG: FILE:LINE: why". *@out (free with batch_free()) and *@n are set unless -1 is returned.
 * Return: the number of lines that could not be split, or -1 when the file cannot be used at
 * all: a read error, a line longer than BATCH_LINE_MAX, a file larger than BATCH_FILE_MAX (an
 * endless input such as /dev/zero is one of these), out of memory; reported as
 * "PROG: FILE:LINE: why". Input that cannot be read is never taken for an empty file.
 */
int batch_read(FILE *f, const char *prog, const char *file, struct batch_line **out, size_t *n);

/** batch_free() - free what batch_read() returned. */
void batch_free(struct batch_line *lines, size_t n);

/**
 * batch_open() - read a command file line by line (mqtx -b to mqtxd, as tc reads its batch:
 * each line runs before the next is read, and the file is never held whole, so its size has
 * no limit). NULL when out of memory (reported). batch_close() - free it (not @f).
 */
struct batch_stream;
struct batch_stream *batch_open(FILE *f, const char *prog, const char *file);
void batch_close(struct batch_stream *s);

/**
 * batch_next() - the next non-empty line into @l (free l->argv with mqtx_ctl_split_free()):
 * 1; a line that cannot be split is 1 with argv NULL, reported as batch_read() reports it.
 * 0 at the end; -1 when the rest cannot be read (reported: a read error, a line longer than
 * BATCH_LINE_MAX).
 */
int batch_next(struct batch_stream *s, struct batch_line *l);

#endif

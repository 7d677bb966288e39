// SPDX-License-Identifier: MIT
// Command files of mqtx -batch and mqtxd -c: read whole, split by the library's one splitter;
// or, for mqtx -b to mqtxd, line by line as tc reads its batch.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

void batch_free(struct batch_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mqtx_ctl_split_free(lines[i].argv);
	free(lines);
}

enum line_status { LINE_OK, LINE_END, LINE_LONG, LINE_ERR };

/* One line, its newline included, into @buf (BATCH_LINE_MAX + 1 bytes). getline() would grow
 * without bound on an endless input (/dev/zero) and reports running out of memory as the end of
 * the file; a fixed buffer makes both a clear error. */
static enum line_status read_line(FILE *f, char *buf, size_t *len)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF) {
		if (n == BATCH_LINE_MAX)
			return LINE_LONG;
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	*len = n;
	if (c == EOF && ferror(f))
		return LINE_ERR;
	return n ? LINE_OK : LINE_END;
}

/* Split one line into @l; a line that cannot be split is reported and kept with argv NULL. */
static int split_line(const char *line, size_t len, struct batch_line *l, const char *prog,
		      const char *file)
{
	struct mqtx_buf err;
	int bad = 0;

	mqtx_buf_init(&err);
	if (strlen(line) != len) {
		fprintf(stderr, "%s: %s:%d: a NUL byte in the line\n", prog, file, l->lineno);
		bad = 1;
	} else if (mqtx_ctl_split(line, &l->argc, &l->argv, &err)) {
		fprintf(stderr, "%s: %s:%d: %s", prog, file, l->lineno, err.data ? err.data : "\n");
		l->argv = NULL;
		bad = 1;
	}
	mqtx_buf_free(&err);
	return bad;
}

/* Why reading stopped before the end, as "PROG: FILE:LINE: why". */
static void report(enum line_status st, int err, const char *prog, const char *file, int lineno)
{
	if (st == LINE_LONG)
		fprintf(stderr, "%s: %s:%d: the line is longer than %u bytes\n", prog, file, lineno,
			BATCH_LINE_MAX);
	else if (st == LINE_ERR)
		fprintf(stderr, "%s: %s:%d: cannot read: %s\n", prog, file, lineno, strerror(err));
	else
		fprintf(stderr,
			"%s: %s:%d: the file is larger than %u MiB, the most a command "
			"file may hold\n",
			prog, file, lineno, BATCH_FILE_MAX >> 20);
}

/* Every line is read and split before any runs, so that a malformed line stops a batch
 * before it changed anything. */
int batch_read(FILE *f, const char *prog, const char *file, struct batch_line **out, size_t *nout)
{
	struct batch_line *lines = NULL, *l;
	size_t n = 0, cap = 0, len, total = 0;
	char *line = malloc(BATCH_LINE_MAX + 1);
	enum line_status st = LINE_OK;
	int lineno = 0, bad = 0;

	if (!line)
		goto nomem;
	for (;;) {
		errno = 0;
		st = read_line(f, line, &len);
		lineno++;
		if (st != LINE_OK)
			break;
		total += len;
		if (total > BATCH_FILE_MAX)
			break;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			l = realloc(lines, cap * sizeof(*l));
			if (!l)
				goto nomem;
			lines = l;
		}
		l = &lines[n];
		*l = (struct batch_line){ .lineno = lineno };
		bad += split_line(line, len, l, prog, file);
		if (!l->argv || l->argc)
			n++;
		else
			mqtx_ctl_split_free(l->argv);
	}
	if (st != LINE_END) {
		report(st, errno, prog, file, lineno);
		free(line);
		batch_free(lines, n);
		return -1;
	}
	free(line);
	*out = lines;
	*nout = n;
	return bad;
nomem:
	fprintf(stderr, "%s: out of memory\n", prog);
	free(line);
	batch_free(lines, n);
	return -1;
}

struct batch_stream {
	FILE *f;
	const char *prog, *file;
	int lineno;
	char line[BATCH_LINE_MAX + 1];
};

struct batch_stream *batch_open(FILE *f, const char *prog, const char *file)
{
	struct batch_stream *s = malloc(sizeof(*s));

	if (!s) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return NULL;
	}
	s->f = f;
	s->prog = prog;
	s->file = file;
	s->lineno = 0;
	return s;
}

void batch_close(struct batch_stream *s)
{
	free(s);
}

/* The next non-empty line; no limit on the file's size: it is never held whole. */
int batch_next(struct batch_stream *s, struct batch_line *l)
{
	enum line_status st;
	size_t len;

	for (;;) {
		errno = 0;
		st = read_line(s->f, s->line, &len);
		s->lineno++;
		if (st == LINE_END)
			return 0;
		if (st != LINE_OK) {
			report(st, errno, s->prog, s->file, s->lineno);
			return -1;
		}
		*l = (struct batch_line){ .lineno = s->lineno };
		if (split_line(s->line, len, l, s->prog, s->file) || l->argc)
			return 1;
		mqtx_ctl_split_free(l->argv);
	}
}

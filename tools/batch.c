// SPDX-License-Identifier: MIT
// Command files of mqtx -batch and mqtxd -c: read whole, split by the library's one splitter.
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

/* Every line is read and split before any runs, so that a malformed line stops a batch
 * before it changed anything. */
int batch_read(FILE *f, const char *prog, const char *file, struct batch_line **out, size_t *nout)
{
	struct batch_line *lines = NULL, *l;
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;
	int lineno = 0, bad = 0;
	ssize_t len;

	while ((len = getline(&line, &linecap, f)) >= 0) {
		struct mqtx_buf err;

		lineno++;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			l = realloc(lines, cap * sizeof(*l));
			if (!l)
				goto nomem;
			lines = l;
		}
		l = &lines[n];
		*l = (struct batch_line){ .lineno = lineno };
		mqtx_buf_init(&err);
		if (strlen(line) != (size_t)len) {
			fprintf(stderr, "%s: %s:%d: a NUL byte in the line\n", prog, file, lineno);
			bad++;
		} else if (mqtx_ctl_split(line, &l->argc, &l->argv, &err)) {
			fprintf(stderr, "%s: %s:%d: %s", prog, file, lineno, err.data ? err.data : "\n");
			l->argv = NULL;
			bad++;
		}
		mqtx_buf_free(&err);
		if (!l->argv || l->argc)
			n++;
		else
			mqtx_ctl_split_free(l->argv);
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
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

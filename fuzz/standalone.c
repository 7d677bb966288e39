// SPDX-License-Identifier: MIT
// A fuzz target without libFuzzer: run every file of the given folders through it once, so that
// the plain and sanitizer builds replay the corpus and the crash regressions in `make check`.
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	/* An exact-size heap copy, as libFuzzer hands it over: AddressSanitizer sees overreads. */
	*data = malloc(n ? (size_t)n : 1);
	if (!*data || fread(*data, 1, (size_t)n, f) != (size_t)n) {
		free(*data);
		fclose(f);
		return -1;
	}
	fclose(f);
	*size = (size_t)n;
	return 0;
}

/* Every regular file of @dir, in name order; the count run, or -1. */
static long run_dir(const char *dir)
{
	struct dirent **ents;
	long count = 0;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		uint8_t *data;
		size_t size;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
			if (read_file(path, &data, &size)) {
				fprintf(stderr, "%s: cannot read\n", path);
				count = -1;
			} else {
				LLVMFuzzerTestOneInput(data, size);
				free(data);
				if (count >= 0)
					count++;
			}
		}
		free(ents[i]);
	}
	free(ents);
	return count;
}

/* argv: the corpus folder (it must hold inputs), then optional folders (crash regressions). */
int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR [MORE_DIR...]\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (i > 1 && stat(argv[i], &st) && errno == ENOENT)
			continue; /* no regression of this target yet */
		n = run_dir(argv[i]);
		if (n < 0 || (i == 1 && n == 0)) {
			fprintf(stderr, "%s: %s\n", argv[i], n < 0 ? "unreadable" : "no input");
			return 1;
		}
		printf("%s: %ld inputs from %s, every invariant held\n", argv[0], n, argv[i]);
	}
	return 0;
}

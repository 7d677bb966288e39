/* SPDX-License-Identifier: MIT */
/* What every fuzz target shares: the libFuzzer entry points and a check that stops the run. */
#ifndef MQTX_FUZZ_H
#define MQTX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry points; fuzz/standalone.c calls the same ones for the corpus tests. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant broke: say which and abort, so that libFuzzer keeps the input as a crash. */
#define FUZZ_CHECK(cond, ...)                                                              \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: broken: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			abort();                                                           \
		}                                                                          \
	} while (0)

#endif

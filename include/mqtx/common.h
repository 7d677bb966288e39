/* SPDX-License-Identifier: MIT */
/* mqtx: definitions shared by every public header (export macro, logging, allocator hook). */
#ifndef MQTX_COMMON_H
#define MQTX_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MQTX_API
#define MQTX_API __attribute__((visibility("default")))
#endif

#define MQTX_CACHE_LINE 64

/** Severity of a library log message; a callback receives messages up to its chosen level. */
enum mqtx_log_level {
	MQTX_LOG_ERR = 0,
	MQTX_LOG_WARN,
	MQTX_LOG_INFO,
	MQTX_LOG_DEBUG,
};

/** Receives one formatted log line (no trailing newline). Must be thread-safe. */
typedef void (*mqtx_log_fn)(enum mqtx_log_level level, const char *msg, void *arg);

/**
 * mqtx_set_log() - route library messages to @fn.
 * @fn: callback, or NULL to discard every message (the default: the library never prints).
 * @arg: passed back to @fn.
 * @max: the most verbose level delivered.
 */
MQTX_API void mqtx_set_log(mqtx_log_fn fn, void *arg, enum mqtx_log_level max);

/**
 * struct mqtx_allocator - the memory hook every library allocation goes through.
 * @alloc: required; returns @size bytes aligned to @align (a power of two, at least
 *         sizeof(void *)), or NULL.  Returning NULL makes the calling API fail with -ENOMEM
 *         and leave everything as it was, which is how tests walk every error path.
 * @free: required; releases a block from @alloc. Never called with NULL.
 * @arg: passed to both.
 */
struct mqtx_allocator {
	void *(*alloc)(size_t size, size_t align, void *arg);
	void (*free)(void *ptr, void *arg);
	void *arg;
};

/**
 * mqtx_set_allocator() - install @a as the allocator for all later allocations.
 * @a: the hook (copied), or NULL to restore the default (posix_memalign/free).
 *
 * Install it before creating any object: a block is always freed through the hook that was
 * current when it is released, so switching hooks with live objects requires that both hooks
 * share one heap (a counting wrapper around the default does).
 */
MQTX_API void mqtx_set_allocator(const struct mqtx_allocator *a);

/** mqtx_default_alloc() / mqtx_default_free() - the default hook, for wrappers to call. */
MQTX_API void *mqtx_default_alloc(size_t size, size_t align, void *arg);
MQTX_API void mqtx_default_free(void *ptr, void *arg);

/**
 * mqtx_log() - send one message through the callback of mqtx_set_log() (nothing when none is
 * set or @level is above its maximum). For drivers and other code built on the library, which
 * must not print either. Lines longer than 511 bytes are cut.
 */
MQTX_API void mqtx_log(enum mqtx_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * mqtx_alloc() - @size bytes aligned to @align (a power of two; 0 means 16) through the hook of
 * mqtx_set_allocator(), for drivers outside the core. Return: the block, or NULL.
 */
MQTX_API void *mqtx_alloc(size_t size, size_t align);

/** mqtx_free() - release a block from mqtx_alloc(); NULL is allowed. */
MQTX_API void mqtx_free(void *ptr);

/** mqtx_strerror() - a message for a negative errno returned by any mqtx call. */
MQTX_API const char *mqtx_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif

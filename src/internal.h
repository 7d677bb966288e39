/* SPDX-License-Identifier: MIT */
/* Library-internal helpers: allocation through the hook, logging, small utilities. */
#ifndef MQTX_INTERNAL_H
#define MQTX_INTERNAL_H

#include <mqtx/common.h>
#include <stdatomic.h>
#include <string.h>

void *mqtx__alloc_aligned(size_t size, size_t align);
void mqtx__free(void *ptr);

static inline void *mqtx__alloc(size_t size)
{
	return mqtx__alloc_aligned(size, sizeof(void *) * 2);
}

static inline void *mqtx__zalloc(size_t size)
{
	void *p = mqtx__alloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void mqtx__log(enum mqtx_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define mqtx_err(...)  mqtx__log(MQTX_LOG_ERR, __VA_ARGS__)
#define mqtx_warn(...) mqtx__log(MQTX_LOG_WARN, __VA_ARGS__)
#define mqtx_info(...) mqtx__log(MQTX_LOG_INFO, __VA_ARGS__)
#define mqtx_dbg(...)  mqtx__log(MQTX_LOG_DEBUG, __VA_ARGS__)

/* Thread-locals of the fast path: initial-exec avoids a __tls_get_addr call per access, even
 * in the shared library (a few bytes of static TLS). */
#define MQTX_TLS __thread __attribute__((tls_model("initial-exec")))

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((size_t)(a) - 1))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#endif

// SPDX-License-Identifier: MIT
/* Allocator hook, log callback and error strings. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"

static struct mqtx_allocator allocator = {
	.alloc = mqtx_default_alloc,
	.free = mqtx_default_free,
};

static struct {
	mqtx_log_fn fn;
	void *arg;
	enum mqtx_log_level max;
} logger;

void *mqtx_default_alloc(size_t size, size_t align, void *arg)
{
	void *p;

	(void)arg;
	if (align < sizeof(void *))
		align = sizeof(void *);
	if (posix_memalign(&p, align, size ? size : 1))
		return NULL;
	return p;
}

void mqtx_default_free(void *ptr, void *arg)
{
	(void)arg;
	free(ptr);
}

void mqtx_set_allocator(const struct mqtx_allocator *a)
{
	if (a && a->alloc && a->free)
		allocator = *a;
	else
		allocator = (struct mqtx_allocator){ mqtx_default_alloc, mqtx_default_free, NULL };
}

/* Allocations this thread was refused: a command that failed for want of memory is told from
 * one that failed for its input (mqtx__alloc_failures()). */
static MQTX_TLS unsigned long alloc_failures;

void *mqtx__alloc_aligned(size_t size, size_t align)
{
	void *p = allocator.alloc(size, align, allocator.arg);

	if (unlikely(!p))
		alloc_failures++;
	return p;
}

unsigned long mqtx__alloc_failures(void)
{
	return alloc_failures;
}

void mqtx__free(void *ptr)
{
	if (ptr)
		allocator.free(ptr, allocator.arg);
}

void mqtx_set_log(mqtx_log_fn fn, void *arg, enum mqtx_log_level max)
{
	logger.fn = fn;
	logger.arg = arg;
	logger.max = max;
}

/* This thread's capture of error messages (mqtx__log_capture()), or none. */
static MQTX_TLS struct {
	char *buf;
	size_t len;
} capture;

void mqtx__log_capture(char *buf, size_t len)
{
	capture.buf = len ? buf : NULL;
	capture.len = len;
	if (capture.buf)
		buf[0] = 0;
}

static void vlog(enum mqtx_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0), nonnull(2)));

static void vlog(enum mqtx_log_level level, const char *fmt, va_list ap)
{
	bool take = capture.buf && level == MQTX_LOG_ERR;
	char buf[512];
	size_t n;

	if ((!logger.fn || level > logger.max) && !take)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (take) {
		n = strlen(capture.buf);
		snprintf(capture.buf + n, capture.len - n, "%s%s", n ? "; " : "", buf);
	}
	if (logger.fn && level <= logger.max)
		logger.fn(level, buf, logger.arg);
}

void mqtx_log(enum mqtx_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

/* The library's own name for the same function: one body, and a hidden symbol the library's
 * calls bind to inside it. */
void mqtx__log(enum mqtx_log_level level, const char *fmt, ...) __attribute__((alias("mqtx_log")));

void *mqtx_alloc(size_t size, size_t align)
{
	return mqtx__alloc_aligned(size, align ? align : sizeof(void *) * 2);
}

void mqtx_free(void *ptr)
{
	mqtx__free(ptr);
}

const char *mqtx_strerror(int err)
{
	static __thread char buf[64];

	if (err < 0)
		err = -err;
	/* strerror_r (GNU) may return a static string instead of filling buf. */
	return strerror_r(err, buf, sizeof(buf));
}

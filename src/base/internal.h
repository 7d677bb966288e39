/* SPDX-License-Identifier: MIT */
/* Library-internal helpers: allocation through the hook, logging, small utilities. */
#ifndef MQTX_INTERNAL_H
#define MQTX_INTERNAL_H

#include <mqtx/common.h>
#include <stdatomic.h>
#include <string.h>

void *mqtx__alloc_aligned(size_t size, size_t align);
void mqtx__free(void *ptr);
/** mqtx__alloc_failures() - how many allocations this thread has been refused so far. */
unsigned long mqtx__alloc_failures(void);

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

#define likely(x)			__builtin_expect(!!(x), 1)
#define unlikely(x)			__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)			(((x) + (a)-1) & ~((size_t)(a)-1))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/*
 * Bottom-half sections (softirq.c). Work raised inside a section runs when the thread's
 * outermost section ends, on that thread, with no lock of the caller's held: transmit calls,
 * timer callbacks and driver completion rounds are sections. One kind of work exists (TX
 * scheduling), so the pending work is its handler.
 */
typedef void (*mqtx__softirq_fn)(void);
extern MQTX_TLS unsigned mqtx__bh_count;
extern MQTX_TLS mqtx__softirq_fn mqtx__softirq_pending;
void mqtx__do_softirq(void);

static inline void mqtx__bh_disable(void)
{
	mqtx__bh_count++;
}

static inline void mqtx__bh_enable(void)
{
	if (mqtx__bh_count == 1 && unlikely(mqtx__softirq_pending != NULL))
		mqtx__do_softirq();
	mqtx__bh_count--;
}

static inline bool mqtx__in_bh(void)
{
	return mqtx__bh_count != 0;
}

/* Inside a section: have @fn run when it ends. */
static inline void mqtx__raise_softirq(mqtx__softirq_fn fn)
{
	mqtx__softirq_pending = fn;
}

/**
 * mqtx__log_capture() - also copy the error messages this thread logs from now on into @buf
 * (@len bytes, emptied first; several are joined with "; ", the excess cut), so that a command
 * can print why a constructor failed; @len 0 stops. The log callback still gets them.
 */
void mqtx__log_capture(char *buf, size_t len);

struct mqtx_pkt;
struct mqtx_pkt_pool;

/** A pool's release hook: told of each packet of the pool as it is freed, before it is reused. */
typedef void (*mqtx__pool_release_fn)(void *arg, struct mqtx_pkt *pkt);

/**
 * mqtx__pool_set_release() - call @fn(@arg, pkt) for every packet of @pool that is freed, in the
 * freeing thread, before the packet goes back (NULL: none). Set it before any packet of the pool
 * is in use: the what-if engine learns of each drop this way, whatever path dropped it.
 */
void mqtx__pool_set_release(struct mqtx_pkt_pool *pool, mqtx__pool_release_fn fn, void *arg);

#endif

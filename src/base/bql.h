/* SPDX-License-Identifier: MIT */
/* Byte queue limits: a per-queue byte budget adapted from completions (Linux's DQL). */
#ifndef MQTX_BQL_H
#define MQTX_BQL_H

#include <stdatomic.h>
#include <stdint.h>

#define MQTX_DQL_MAX_OBJECT (UINT32_MAX / 16)
#define MQTX_DQL_MAX_LIMIT  ((UINT32_MAX / 2) - MQTX_DQL_MAX_OBJECT)

/*
 * Enqueue side (sent) and completion side (completed) may run concurrently with each other
 * but each is serialised by its caller, as in Linux: sent under the xmit lock, completed by
 * the driver's completion context.
 */
struct mqtx_dql {
	atomic_uint num_queued;
	atomic_uint adj_limit;
	atomic_uint last_obj_cnt;

	atomic_uint limit __attribute__((aligned(64)));
	atomic_uint num_completed;
	uint32_t prev_ovlimit, prev_num_queued, prev_last_obj_cnt;
	uint32_t lowest_slack;
	uint64_t slack_start_time;
	uint32_t max_limit, min_limit;
	uint64_t slack_hold_time;
};

void mqtx__dql_init(struct mqtx_dql *d, uint64_t hold_ns, uint64_t now);
void mqtx__dql_reset(struct mqtx_dql *d, uint64_t now);
void mqtx__dql_completed(struct mqtx_dql *d, uint32_t count, uint64_t now);

static inline void mqtx__dql_queued(struct mqtx_dql *d, uint32_t count)
{
	if (count > MQTX_DQL_MAX_OBJECT)
		count = MQTX_DQL_MAX_OBJECT;
	atomic_store_explicit(&d->last_obj_cnt, count, memory_order_relaxed);
	atomic_fetch_add_explicit(&d->num_queued, count, memory_order_release);
}

static inline int32_t mqtx__dql_avail(const struct mqtx_dql *d)
{
	return (int32_t)(atomic_load_explicit(&d->adj_limit, memory_order_acquire) -
			 atomic_load_explicit(&d->num_queued, memory_order_acquire));
}

#endif

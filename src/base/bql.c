// SPDX-License-Identifier: MIT
/* Byte queue limits, following the algorithm of Linux's lib/dynamic_queue_limits.c: grow when
 * the queue starved while over its limit, shrink by the smallest slack seen over a hold time. */
#include "base/bql.h"

static inline uint32_t posdiff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0 ? a - b : 0;
}

static inline int after_eq(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

void mqtx__dql_reset(struct mqtx_dql *d, uint64_t now)
{
	atomic_store(&d->limit, d->min_limit);
	atomic_store(&d->num_queued, 0);
	atomic_store(&d->num_completed, 0);
	atomic_store(&d->last_obj_cnt, 0);
	d->prev_num_queued = 0;
	d->prev_last_obj_cnt = 0;
	d->prev_ovlimit = 0;
	d->lowest_slack = UINT32_MAX;
	d->slack_start_time = now;
	atomic_store(&d->adj_limit, d->min_limit);
}

void mqtx__dql_init(struct mqtx_dql *d, uint64_t hold_ns, uint64_t now)
{
	d->max_limit = MQTX_DQL_MAX_LIMIT;
	d->min_limit = 0;
	d->slack_hold_time = hold_ns;
	mqtx__dql_reset(d, now);
}

void mqtx__dql_completed(struct mqtx_dql *d, uint32_t count, uint64_t now)
{
	uint32_t num_queued = atomic_load_explicit(&d->num_queued, memory_order_acquire);
	uint32_t num_completed = atomic_load_explicit(&d->num_completed, memory_order_relaxed);
	uint32_t limit = atomic_load_explicit(&d->limit, memory_order_relaxed);
	uint32_t completed, ovlimit, inprogress, prev_inprogress, slack, slack_last;
	int all_prev_completed;

	/* Completing more than was queued is a driver bug; clamp rather than corrupt. */
	if (count > num_queued - num_completed)
		count = num_queued - num_completed;
	completed = num_completed + count;
	ovlimit = posdiff(num_queued - num_completed, limit);
	inprogress = num_queued - completed;
	prev_inprogress = d->prev_num_queued - num_completed;
	all_prev_completed = after_eq(completed, d->prev_num_queued);

	if ((ovlimit && !inprogress) || (d->prev_ovlimit && all_prev_completed)) {
		/* Starved while over the limit: the limit was too small. */
		limit += posdiff(completed, d->prev_num_queued) + d->prev_ovlimit;
		d->slack_start_time = now;
		d->lowest_slack = UINT32_MAX;
	} else if (inprogress && prev_inprogress && !all_prev_completed) {
		/* Busy the whole interval: twice what completed bounds what is needed. */
		slack = posdiff(limit + d->prev_ovlimit, 2 * (completed - num_completed));
		slack_last = d->prev_ovlimit ? posdiff(d->prev_last_obj_cnt, d->prev_ovlimit) : 0;
		if (slack_last > slack)
			slack = slack_last;
		if (slack < d->lowest_slack)
			d->lowest_slack = slack;
		if (now > d->slack_start_time + d->slack_hold_time) {
			limit = posdiff(limit, d->lowest_slack);
			d->slack_start_time = now;
			d->lowest_slack = UINT32_MAX;
		}
	}
	if (limit > d->max_limit)
		limit = d->max_limit;
	if (limit < d->min_limit)
		limit = d->min_limit;
	if (limit != atomic_load_explicit(&d->limit, memory_order_relaxed)) {
		atomic_store_explicit(&d->limit, limit, memory_order_relaxed);
		ovlimit = 0;
	}
	atomic_store_explicit(&d->adj_limit, limit + completed, memory_order_release);
	d->prev_ovlimit = ovlimit;
	d->prev_last_obj_cnt = atomic_load_explicit(&d->last_obj_cnt, memory_order_relaxed);
	atomic_store_explicit(&d->num_completed, completed, memory_order_release);
	d->prev_num_queued = num_queued;
}

/* SPDX-License-Identifier: MIT */
/* How tc turns a bucket into its words and back: the kernel keeps a depth in ns, reports it in
 * 64 ns ticks (PSCHED_NS2TICKS), and tc converts ticks and microseconds through unsigned ints,
 * truncating at each step (tc_core.c). tbf, htb and police show their buckets so. */
#ifndef MQTX_BASE_TC_TICKS_H
#define MQTX_BASE_TC_TICKS_H

#include <stdint.h>

#define TC_TICKS_PER_US 15.625 /* tc's tick_in_usec with psched's 1000/64 */

/* tc_core_tick2time() on what the kernel reports for @ns: whole microseconds. */
static inline uint32_t tc_ticks_us(int64_t ns)
{
	return (uint32_t)((double)((uint64_t)ns >> 6) / TC_TICKS_PER_US);
}

/* tc_calc_xmitsize(): the bytes those microseconds carry at @rate bytes/s, in tc's u32. */
static inline uint64_t tc_bucket_size(uint64_t rate, int64_t ns)
{
	return (uint32_t)((double)rate * tc_ticks_us(ns) / 1e6);
}

/* tc_calc_xmittime(): the ticks tc sends for @size bytes at @rate, through whole
 * microseconds ("burst 1600" at 100gbit is 0 ticks). */
static inline uint32_t tc_xmit_ticks(uint64_t rate, uint64_t size)
{
	double us = 1e6 * ((double)size / (double)rate);

	if (us >= 4294967295.0)
		us = 4294967295.0;
	return (uint32_t)((double)(uint32_t)us * TC_TICKS_PER_US);
}

#endif

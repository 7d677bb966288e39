/* SPDX-License-Identifier: MIT */
/* Token buckets in time units (ns), as Linux's tbf and act_police keep them: the qdiscs and the
 * police action share them. Internal to mqtx. */
#ifndef MQTX_BASE_TBUCKET_H
#define MQTX_BASE_TBUCKET_H

#include <mqtx/clock.h>
#include <stdbool.h>
#include <stdint.h>

/* psched_l2t_ns(): the time @len bytes take at @rate bytes/s, in ns (exact, rounded down). */
static inline int64_t mqtx__l2t_ns(uint64_t rate, uint64_t len)
{
	if (!rate)
		return 0;
	return (int64_t)((unsigned __int128)len * MQTX_NSEC_PER_SEC / rate);
}

/* psched_ns_t2l(): how many bytes @ns of tokens buy at @rate (rounded down). */
static inline uint64_t mqtx__t2l(uint64_t rate, int64_t ns)
{
	if (ns <= 0)
		return 0;
	return (uint64_t)((unsigned __int128)ns * rate / MQTX_NSEC_PER_SEC);
}

/*
 * A rate as Linux's psched_ratecfg: what a packet of a given length is charged. @overhead is
 * added to every packet, a packet is charged at least @mpu bytes, and with @atm the bytes go
 * in 53-byte ATM cells of 48 payload bytes each.
 */
struct mqtx_ratecfg {
	uint64_t rate; /* bytes per second */
	uint16_t overhead, mpu;
	bool atm;
};

/* psched_l2t_ns() on a rate configuration: overhead, then mpu, then ATM cells. */
static inline int64_t mqtx__ratecfg_l2t_ns(const struct mqtx_ratecfg *r, uint64_t len)
{
	len += r->overhead;
	if (len < r->mpu)
		len = r->mpu;
	if (r->atm)
		len = (len + 47) / 48 * 53;
	return mqtx__l2t_ns(r->rate, len);
}

/*
 * One bucket: @buffer is its depth and @tokens its content, both in ns of transmission at
 * @rate; @t_c the time of the last conforming packet.
 */
struct mqtx_tbucket {
	uint64_t rate;
	int64_t buffer;
	int64_t tokens;
	int64_t t_c;
};

/* The tokens left if a @len-byte packet went at @now (negative: it does not conform yet). */
static inline int64_t mqtx__tb_probe(const struct mqtx_tbucket *b, int64_t now, uint64_t len)
{
	int64_t toks = now - b->t_c;

	if (toks > b->buffer)
		toks = b->buffer;
	toks += b->tokens;
	if (toks > b->buffer)
		toks = b->buffer;
	return toks - mqtx__l2t_ns(b->rate, len);
}

#endif

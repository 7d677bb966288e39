// SPDX-License-Identifier: MIT
/* CoDel (RFC 8289) with Linux's fixed-point arithmetic, and ECN CE marking of IP packets. */
#include <errno.h>

#include "qdisc/codel.h"
#include <mqtx/tc.h>

#include <mqtx/flow.h>

#define REC_INV_SQRT_SHIFT 16 /* Q0.16 -> Q0.32 */

void mqtx__codel_params_init(struct mqtx_codel_params *p, uint32_t mtu)
{
	/* codel_params_init(): 5 ms target, 100 ms interval, CE threshold off. */
	p->target = mqtx_codel_ns2time(5000000);
	p->interval = mqtx_codel_ns2time(100000000);
	p->ce_threshold = 0;
	p->ce_threshold_on = false;
	p->mtu = mtu;
	p->ecn = false;
}

void mqtx__codel_dump_times(const struct mqtx_codel_params *p, struct mqtx_dump *d)
{
	mqtx_dump_time(d, "target", "target %s", mqtx_codel_time2ns(p->target));
	if (p->ce_threshold_on)
		mqtx_dump_time(d, "ce_threshold", "ce_threshold %s",
			       mqtx_codel_time2ns(p->ce_threshold));
	mqtx_dump_time(d, "interval", "interval %s", mqtx_codel_time2ns(p->interval));
}

int mqtx__codel_arg_time(int argc, char **argv, int *i, uint64_t *ns, struct mqtx_extack *ack)
{
	int err = mqtx_tc_arg_time(argc, argv, i, ns, ack);

	if (err)
		return err;
	if (*ns > UINT32_MAX * 1000ull) /* tc carries times as u32 microseconds */
		return mqtx_extack_set(ack, "\"%s\" value \"%s\" is too large", argv[*i - 1],
				       argv[*i]);
	*ns -= *ns % 1000; /* whole microseconds, as tc sends them */
	return 0;
}

struct mqtx_pkt *mqtx__codel_peeked_dequeue(struct mqtx_qdisc *q, struct mqtx_pkt **peeked,
					    struct mqtx_pkt *(*deq)(struct mqtx_qdisc *q))
{
	struct mqtx_pkt *pkt = *peeked;

	if (!pkt)
		return deq(q);
	*peeked = NULL;
	q->qlen--;
	q->backlog -= pkt->len;
	return pkt;
}

struct mqtx_pkt *mqtx__codel_peeked_peek(struct mqtx_qdisc *q, struct mqtx_pkt **peeked,
					 struct mqtx_pkt *(*deq)(struct mqtx_qdisc *q))
{
	if (!*peeked) {
		*peeked = deq(q);
		if (*peeked) {
			q->qlen++;
			q->backlog += (*peeked)->len;
		}
	}
	return *peeked;
}

void mqtx__codel_vars_init(struct mqtx_codel_vars *v)
{
	memset(v, 0, sizeof(*v));
}

int32_t mqtx__codel_drop_next_us(const struct mqtx_codel_vars *v, uint32_t now)
{
	int32_t delta = (int32_t)(v->drop_next - now);

	if (!v->dropping)
		return 0;
	return delta >= 0 ? (int32_t)mqtx_codel_time2us((uint32_t)delta)
			  : -(int32_t)mqtx_codel_time2us((uint32_t)-delta);
}

void mqtx__codel_newton_step(struct mqtx_codel_vars *v)
{
	uint32_t invsqrt = (uint32_t)v->rec_inv_sqrt << REC_INV_SQRT_SHIFT;
	uint32_t invsqrt2 = (uint32_t)(((uint64_t)invsqrt * invsqrt) >> 32);
	uint64_t val = (3ull << 32) - (uint64_t)v->count * invsqrt2;

	/* x' = x/2 * (3 - count * x^2) in Q0.32, pre-shifted by 2 so the product fits. */
	val >>= 2;
	val = (val * invsqrt) >> (32 - 2 + 1);
	v->rec_inv_sqrt = (uint16_t)(val >> REC_INV_SQRT_SHIFT);
}

uint32_t mqtx__codel_control_law(uint32_t t, uint32_t interval, uint16_t rec_inv_sqrt)
{
	return t + mqtx_reciprocal_scale(interval, (uint32_t)rec_inv_sqrt << REC_INV_SQRT_SHIFT);
}

/* Has the sojourn time stayed above target for an interval? Tracks first_above_time. */
static bool codel_should_drop(const struct mqtx_pkt *pkt, const uint64_t *backlog,
			      const struct mqtx_codel_params *params, struct mqtx_codel_vars *vars,
			      struct mqtx_codel_stats *stats, uint32_t now)
{
	if (!pkt) {
		vars->first_above_time = 0;
		return false;
	}
	vars->ldelay = now - mqtx_codel_stamp_of(pkt);
	if (pkt->len > stats->maxpacket)
		stats->maxpacket = pkt->len;
	if ((int32_t)(vars->ldelay - params->target) < 0 || *backlog <= params->mtu) {
		vars->first_above_time = 0;
		return false;
	}
	if (vars->first_above_time == 0) {
		vars->first_above_time = now + params->interval;
		return false;
	}
	return mqtx_codel_after(now, vars->first_above_time);
}

static void codel_drop(struct mqtx_pkt *pkt, void *ctx, struct mqtx_codel_stats *stats,
		       mqtx_codel_drop_fn drop)
{
	stats->drop_len += pkt->len;
	stats->drop_count++;
	drop(pkt, ctx);
}

/* In the dropping state and past drop_next: drop (or mark) at the control-law rate. */
static struct mqtx_pkt *codel_drop_more(void *ctx, const uint64_t *backlog,
					const struct mqtx_codel_params *params,
					struct mqtx_codel_vars *vars,
					struct mqtx_codel_stats *stats, mqtx_codel_dequeue_fn deq,
					mqtx_codel_drop_fn drop, struct mqtx_pkt *pkt, uint32_t now)
{
	while (vars->dropping && (int32_t)(now - vars->drop_next) >= 0) {
		vars->count++;
		mqtx__codel_newton_step(vars);
		if (params->ecn && mqtx__ecn_set_ce(pkt)) {
			stats->ecn_mark++;
			vars->drop_next = mqtx__codel_control_law(vars->drop_next, params->interval,
								  vars->rec_inv_sqrt);
			return pkt;
		}
		codel_drop(pkt, ctx, stats, drop);
		pkt = deq(vars, ctx);
		if (!codel_should_drop(pkt, backlog, params, vars, stats, now))
			vars->dropping = false;
		else
			vars->drop_next = mqtx__codel_control_law(vars->drop_next, params->interval,
								  vars->rec_inv_sqrt);
	}
	return pkt;
}

/* Entering the dropping state: drop (or mark) this packet, pick the starting count. */
static struct mqtx_pkt *codel_enter(void *ctx, const uint64_t *backlog,
				    const struct mqtx_codel_params *params,
				    struct mqtx_codel_vars *vars, struct mqtx_codel_stats *stats,
				    mqtx_codel_dequeue_fn deq, mqtx_codel_drop_fn drop,
				    struct mqtx_pkt *pkt, uint32_t now)
{
	uint32_t delta;

	if (params->ecn && mqtx__ecn_set_ce(pkt)) {
		stats->ecn_mark++;
	} else {
		codel_drop(pkt, ctx, stats, drop);
		pkt = deq(vars, ctx);
		/* Linux re-evaluates here only for its side effects (first_above_time). */
		codel_should_drop(pkt, backlog, params, vars, stats, now);
	}
	vars->dropping = true;
	/* Came back soon after the last episode: resume near its drop rate. */
	delta = vars->count - vars->lastcount;
	if (delta > 1 && (int32_t)(now - vars->drop_next - 16 * params->interval) < 0) {
		vars->count = delta;
		mqtx__codel_newton_step(vars);
	} else {
		vars->count = 1;
		vars->rec_inv_sqrt = (uint16_t)(~0u >> REC_INV_SQRT_SHIFT);
	}
	vars->lastcount = vars->count;
	vars->drop_next = mqtx__codel_control_law(now, params->interval, vars->rec_inv_sqrt);
	return pkt;
}

struct mqtx_pkt *mqtx__codel_dequeue(void *ctx, const uint64_t *backlog,
				     const struct mqtx_codel_params *params,
				     struct mqtx_codel_vars *vars, struct mqtx_codel_stats *stats,
				     mqtx_codel_dequeue_fn deq, mqtx_codel_drop_fn drop,
				     uint32_t now)
{
	struct mqtx_pkt *pkt = deq(vars, ctx);
	bool over;

	if (!pkt) {
		vars->dropping = false;
		return NULL;
	}
	over = codel_should_drop(pkt, backlog, params, vars, stats, now);
	if (vars->dropping) {
		if (!over)
			vars->dropping = false;
		else
			pkt = codel_drop_more(ctx, backlog, params, vars, stats, deq, drop, pkt,
					      now);
	} else if (over) {
		pkt = codel_enter(ctx, backlog, params, vars, stats, deq, drop, pkt, now);
	}
	if (pkt && params->ce_threshold_on &&
	    mqtx_codel_after(vars->ldelay, params->ce_threshold) && mqtx__ecn_set_ce(pkt))
		stats->ce_mark++;
	return pkt;
}

/* ---- ECN ---- */

/* RFC 1624 incremental checksum update for one 16-bit word changing from @old to @new. */
static uint16_t csum_replace(uint16_t check, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~check + (uint32_t)(uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

bool mqtx__ecn_set_ce(struct mqtx_pkt *pkt)
{
	struct mqtx_flow_keys k;
	uint8_t *h;

	if (mqtx_flow_dissect(pkt->data, pkt->len, &k) != 0)
		return false;
	h = pkt->data + k.l3_off;
	if (k.n_proto == 0x0800 && k.l3_off + 20u <= pkt->len) {
		uint16_t old = (uint16_t)(h[0] << 8 | h[1]), check = (uint16_t)(h[10] << 8 | h[11]);

		if ((h[1] & 3) == 0)
			return false;
		if ((h[1] & 3) == 3)
			return true;
		h[1] |= 3;
		check = csum_replace(check, old, (uint16_t)(h[0] << 8 | h[1]));
		h[10] = (uint8_t)(check >> 8);
		h[11] = (uint8_t)check;
		return true;
	}
	if (k.n_proto == 0x86dd && k.l3_off + 40u <= pkt->len) {
		/* Traffic class = low nibble of byte 0, high nibble of byte 1; ECN = its low bits. */
		if ((h[1] & 0x30) == 0)
			return false;
		h[1] |= 0x30;
		return true;
	}
	return false;
}

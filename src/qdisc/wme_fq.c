// SPDX-License-Identifier: MIT
/* The wme qdisc's flow queues: hashed flows served by DRR with a byte quantum, CoDel on each
 * (mac80211's fq, include/net/fq_impl.h, with the parameters of net/mac80211/tx.c). */
#include <errno.h>
#include <string.h>

#include "qdisc/fq.h"
#include "qdisc/wme_fq.h"
#include <mqtx/flow.h>

struct wme_flow {
	struct mqtx_pkt_list q;
	struct fq_drr_flow drr;
	uint64_t backlog;
	struct mqtx_codel_vars cvars;
};

struct wme_fq {
	uint32_t nflows;
	struct mqtx_codel_params cparams;
	struct mqtx_codel_stats cstats;
	struct fq_drr drr;
	const struct wme_fq_hooks *hooks; /* during a dequeue, and its time */
	uint32_t now;
	struct wme_flow flows[];
};

int wme_fq_new(uint32_t flows, uint32_t quantum, const struct mqtx_codel_params *cp,
	       struct wme_fq **out)
{
	size_t size = sizeof(struct wme_fq) + (size_t)flows * sizeof(struct wme_flow);
	struct wme_fq *fq;

	if (!flows || flows > WME_FQ_FLOWS_MAX || !quantum)
		return -EINVAL;
	fq = mqtx_alloc(size, 0);
	if (!fq)
		return -ENOMEM;
	memset(fq, 0, size);
	fq->nflows = flows;
	fq->drr.quantum = quantum;
	fq->cparams = *cp;
	*out = fq;
	return 0;
}

void wme_fq_free(struct wme_fq *fq)
{
	mqtx_free(fq);
}

void wme_fq_set(struct wme_fq *fq, uint32_t quantum, const struct mqtx_codel_params *cp)
{
	fq->drr.quantum = quantum;
	fq->cparams = *cp;
}

uint32_t wme_fq_flows(const struct wme_fq *fq)
{
	return fq->nflows;
}

uint32_t wme_fq_quantum(const struct wme_fq *fq)
{
	return fq->drr.quantum;
}

const struct mqtx_codel_params *wme_fq_params(const struct wme_fq *fq)
{
	return &fq->cparams;
}

uint64_t wme_fq_ecn_marks(const struct wme_fq *fq)
{
	return fq->cstats.ecn_mark;
}

/* The flow of @pkt: its receiver (the station) and its 5-tuple, as mac80211 hashes a frame's
 * flow within the station's TID. */
static struct wme_flow *flow_of(struct wme_fq *fq, const struct mqtx_pkt *pkt)
{
	struct {
		struct fq_tuple t;
		uint8_t ra[6], pad;
	} key;

	memset(&key, 0, sizeof(key));
	if (pkt->len >= 6)
		memcpy(key.ra, pkt->data, 6);
	fq_tuple_set(&key.t, pkt);
	return &fq->flows[mqtx_reciprocal_scale(mqtx_jhash(&key, sizeof(key), 0), fq->nflows)];
}

void wme_fq_add(struct wme_fq *fq, struct mqtx_pkt *pkt)
{
	struct wme_flow *f = flow_of(fq, pkt);

	mqtx_pkt_list_add_tail(&f->q, pkt);
	f->backlog += pkt->len;
	fq_drr_activate(&fq->drr, &f->drr);
}

struct mqtx_pkt *wme_fq_drop_fattest(struct wme_fq *fq, const struct mqtx_pkt *pkt, bool *own)
{
	struct wme_flow *fat = NULL;
	struct mqtx_pkt *victim;

	/* A linear scan, as fq_codel_drop() and fq_find_fattest_flow() do. */
	for (uint32_t i = 0; i < fq->nflows; i++)
		if (fq->flows[i].q.len && (!fat || fq->flows[i].backlog > fat->backlog))
			fat = &fq->flows[i];
	if (!fat)
		return NULL;
	*own = fat == flow_of(fq, pkt);
	victim = mqtx_pkt_list_pop(&fat->q);
	fat->backlog -= victim->len;
	return victim;
}

/* CoDel's dequeue callback: the flow's head, after the owner's look at it. */
static struct mqtx_pkt *flow_deq(struct mqtx_codel_vars *vars, void *ctx)
{
	struct wme_fq *fq = ctx;
	struct wme_flow *f = (struct wme_flow *)((char *)vars - offsetof(struct wme_flow, cvars));
	struct mqtx_pkt *pkt;

	while ((pkt = mqtx_pkt_list_pop(&f->q))) {
		f->backlog -= pkt->len;
		if (!fq->hooks->taken(pkt, fq->hooks->ctx))
			break;
	}
	return pkt;
}

static void flow_drop(struct mqtx_pkt *pkt, void *ctx)
{
	struct wme_fq *fq = ctx;

	fq->hooks->aqm_drop(pkt, fq->hooks->ctx);
}

/* CoDel on the flow whose turn it is, against the flow's own backlog, as mac80211 has it. */
static struct mqtx_pkt *flow_serve(struct fq_drr_flow *df, void *arg)
{
	struct wme_flow *f = (struct wme_flow *)((char *)df - offsetof(struct wme_flow, drr));
	struct wme_fq *fq = arg;

	return mqtx_codel_dequeue(fq, &f->backlog, &fq->cparams, &f->cvars, &fq->cstats, flow_deq,
				  flow_drop, fq->now);
}

struct mqtx_pkt *wme_fq_dequeue(struct wme_fq *fq, const struct wme_fq_hooks *h, uint32_t now)
{
	struct mqtx_pkt *pkt;

	fq->hooks = h;
	fq->now = now;
	pkt = fq_drr_dequeue(&fq->drr, flow_serve, fq);
	fq->cstats.drop_count = 0;
	fq->hooks = NULL;
	return pkt;
}

/* Merge two lists sorted by arrival into one. */
static struct mqtx_pkt *merge(struct mqtx_pkt *a, struct mqtx_pkt *b)
{
	struct mqtx_pkt head, *t = &head;

	while (a && b) {
		struct mqtx_pkt **m = wme_seq(a) <= wme_seq(b) ? &a : &b;

		t->next = *m;
		t = *m;
		*m = (*m)->next;
	}
	t->next = a ? a : b;
	return head.next;
}

unsigned wme_fq_extract(struct wme_fq *fq, mqtx_pkt_match_fn match, void *arg,
			struct mqtx_pkt_list *out)
{
	struct mqtx_pkt *all = NULL, *pkt;
	unsigned n = 0;

	/* Each flow is in arrival order already: what it gives up is merged by arrival. */
	for (uint32_t i = 0; i < fq->nflows; i++) {
		struct wme_flow *f = &fq->flows[i];
		struct mqtx_pkt_list keep, took;

		if (!f->q.len)
			continue;
		mqtx_pkt_list_init(&keep);
		mqtx_pkt_list_init(&took);
		while ((pkt = mqtx_pkt_list_pop(&f->q))) {
			if (match(pkt, arg)) {
				f->backlog -= pkt->len;
				mqtx_pkt_list_add_tail(&took, pkt);
			} else {
				mqtx_pkt_list_add_tail(&keep, pkt);
			}
		}
		f->q = keep;
		n += took.len;
		all = merge(all, took.head);
	}
	while ((pkt = all)) {
		all = pkt->next;
		mqtx_pkt_list_add_tail(out, pkt);
	}
	return n;
}

// SPDX-License-Identifier: MIT
/* The wme qdisc's flow queues: hashed flows served by DRR with a byte quantum, CoDel on each
 * (mac80211's fq, include/net/fq_impl.h, with the parameters of net/mac80211/tx.c). */
#include <errno.h>
#include <string.h>

#include "qdisc/wme_fq.h"
#include <mqtx/flow.h>

struct wme_flow {
	struct mqtx_pkt_list q;
	struct wme_flow *next; /* on new_flows or old_flows */
	bool listed;
	int32_t deficit;
	uint64_t backlog;
	struct mqtx_codel_vars cvars;
};

struct wme_flist {
	struct wme_flow *head, *tail;
};

struct wme_fq {
	uint32_t nflows, quantum;
	struct mqtx_codel_params cparams;
	struct mqtx_codel_stats cstats;
	struct wme_flist new_flows, old_flows;
	const struct wme_fq_hooks *hooks; /* during a dequeue */
	struct wme_flow flows[];
};

static void fl_add_tail(struct wme_flist *l, struct wme_flow *f)
{
	f->next = NULL;
	f->listed = true;
	if (l->tail)
		l->tail->next = f;
	else
		l->head = f;
	l->tail = f;
}

static struct wme_flow *fl_pop(struct wme_flist *l)
{
	struct wme_flow *f = l->head;

	l->head = f->next;
	if (!l->head)
		l->tail = NULL;
	f->next = NULL;
	f->listed = false;
	return f;
}

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
	fq->quantum = quantum;
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
	fq->quantum = quantum;
	fq->cparams = *cp;
}

uint32_t wme_fq_flows(const struct wme_fq *fq)
{
	return fq->nflows;
}

uint32_t wme_fq_quantum(const struct wme_fq *fq)
{
	return fq->quantum;
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
		uint8_t src[16], dst[16];
		uint16_t sport, dport, n_proto;
		uint8_t ip_proto, ra[6], pad;
	} key;
	struct mqtx_flow_keys k;

	memset(&key, 0, sizeof(key));
	if (pkt->len >= 6)
		memcpy(key.ra, pkt->data, 6);
	mqtx_flow_dissect(pkt->data, pkt->len, &k);
	if (k.flags & MQTX_FLOW_F_IPV4) {
		memcpy(key.src, &k.addrs.v4.src, 4);
		memcpy(key.dst, &k.addrs.v4.dst, 4);
	} else if (k.flags & MQTX_FLOW_F_IPV6) {
		memcpy(key.src, k.addrs.v6.src, 16);
		memcpy(key.dst, k.addrs.v6.dst, 16);
	}
	if (k.flags & MQTX_FLOW_F_PORTS) {
		key.sport = k.sport;
		key.dport = k.dport;
	}
	key.n_proto = k.n_proto;
	key.ip_proto = k.ip_proto;
	return &fq->flows[mqtx_reciprocal_scale(mqtx_jhash(&key, sizeof(key), 0), fq->nflows)];
}

void wme_fq_add(struct wme_fq *fq, struct mqtx_pkt *pkt)
{
	struct wme_flow *f = flow_of(fq, pkt);

	mqtx_pkt_list_add_tail(&f->q, pkt);
	f->backlog += pkt->len;
	if (!f->listed) {
		f->deficit = (int32_t)fq->quantum;
		fl_add_tail(&fq->new_flows, f);
	}
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

struct mqtx_pkt *wme_fq_dequeue(struct wme_fq *fq, const struct wme_fq_hooks *h, uint32_t now)
{
	struct mqtx_pkt *pkt = NULL;

	fq->hooks = h;
	for (;;) {
		struct wme_flist *head = fq->new_flows.head ? &fq->new_flows : &fq->old_flows;
		struct wme_flow *f = head->head;

		if (!f)
			break;
		if (f->deficit <= 0) {
			f->deficit += (int32_t)fq->quantum;
			fl_add_tail(&fq->old_flows, fl_pop(head));
			continue;
		}
		pkt = mqtx_codel_dequeue(fq, &f->backlog, &fq->cparams, &f->cvars, &fq->cstats,
					 flow_deq, flow_drop, now);
		if (pkt) {
			f->deficit -= (int32_t)pkt->len;
			break;
		}
		/* An emptied new flow takes one pass through old_flows, against starvation. */
		fl_pop(head);
		if (head == &fq->new_flows && fq->old_flows.head)
			fl_add_tail(&fq->old_flows, f);
	}
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

// SPDX-License-Identifier: MIT
/* The wme qdisc's flow queues: hashed flows served by DRR with a byte quantum, CoDel on each
 * (mac80211's fq, include/net/fq_impl.h, with the parameters of net/mac80211/tx.c); a table of
 * its own per queue, or one table per radio that the queues of a device share. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "qdisc/fq.h"
#include "qdisc/wme_fq.h"
#include <mqtx/flow.h>

struct wme_fq;

/* A flow of a radio's table is used by one queue at a time, its owner, from its first packet
 * until it leaves the owner's round robin empty (fq_flow_classify() and fq_tin_dequeue() set and
 * clear flow->tin); only the owner, under its qdisc lock, touches the rest. */
struct wme_flow {
	struct mqtx_pkt_list q;
	struct fq_drr_flow drr;
	uint64_t backlog;
	struct mqtx_codel_vars cvars;
	struct wme_fq *_Atomic owner; /* radio tables only */
	struct wme_flow *rel_next;    /* the owner's: served empty in this dequeue */
	bool on_rel;
};

/* One table per device, as mac80211 has one struct fq per radio (local->fq): 4096 flows, and
 * limits on the packets and bytes of all its queues together (ieee80211_txq_setup_flows()). */
struct wme_radio {
	struct wme_radio *next; /* the registry */
	const void *key;	/* the device */
	uint32_t refs;		/* the registry lock */
	_Atomic uint64_t packets, bytes;
	struct wme_flow flows[WME_RADIO_FLOWS];
};

struct wme_fq {
	uint32_t nflows;
	struct mqtx_codel_params cparams;
	struct mqtx_codel_stats cstats;
	struct fq_drr drr;
	const struct wme_fq_hooks *hooks; /* during a dequeue, and its time */
	uint32_t now;
	struct wme_radio *radio; /* NULL: the flows below are this queue's own */
	struct wme_flow *flows;
	struct wme_flow dflt; /* a radio's flow taken by another queue: this one instead */
	struct wme_flow *rel;
	struct wme_flow own[];
};

static pthread_mutex_t radios_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wme_radio *radios;

int mqtx__wme_fq_new(uint32_t flows, uint32_t quantum, const struct mqtx_codel_params *cp,
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
	fq->flows = fq->own;
	fq->drr.quantum = quantum;
	fq->cparams = *cp;
	*out = fq;
	return 0;
}

/* The radio of @key, made on first use; the registry lock held. */
static struct wme_radio *radio_get(const void *key)
{
	struct wme_radio *r;

	for (r = radios; r && r->key != key; r = r->next)
		;
	if (!r) {
		r = mqtx_alloc(sizeof(*r), 0);
		if (!r)
			return NULL;
		memset(r, 0, sizeof(*r));
		r->key = key;
		r->next = radios;
		radios = r;
	}
	r->refs++;
	return r;
}

static void radio_put(struct wme_radio *r)
{
	struct wme_radio **pp;

	pthread_mutex_lock(&radios_lock);
	if (--r->refs) {
		pthread_mutex_unlock(&radios_lock);
		return;
	}
	for (pp = &radios; *pp != r; pp = &(*pp)->next)
		;
	*pp = r->next;
	pthread_mutex_unlock(&radios_lock);
	mqtx_free(r);
}

int mqtx__wme_fq_new_radio(const void *key, uint32_t quantum, const struct mqtx_codel_params *cp,
			   struct wme_fq **out)
{
	struct wme_fq *fq;
	int err = mqtx__wme_fq_new(1, quantum, cp, &fq);

	if (err)
		return err;
	pthread_mutex_lock(&radios_lock);
	fq->radio = radio_get(key);
	pthread_mutex_unlock(&radios_lock);
	if (!fq->radio) {
		mqtx_free(fq);
		return -ENOMEM;
	}
	fq->nflows = WME_RADIO_FLOWS;
	fq->flows = fq->radio->flows;
	*out = fq;
	return 0;
}

static bool mine(const struct wme_fq *fq, struct wme_flow *f)
{
	return !fq->radio || f == &fq->dflt ||
	       atomic_load_explicit(&f->owner, memory_order_acquire) == fq;
}

/* The flows of @fq's table that are its own: all of them, or in a radio's table those it owns
 * and its default flow (index nflows). */
static struct wme_flow *own_flow(struct wme_fq *fq, uint32_t i)
{
	if (i == fq->nflows)
		return fq->radio ? &fq->dflt : NULL;
	return mine(fq, &fq->flows[i]) ? &fq->flows[i] : NULL;
}

/* The flow, empty and out of the round robin, goes back to the radio. */
static void release(struct wme_flow *f)
{
	f->drr = (struct fq_drr_flow){ 0 };
	atomic_store_explicit(&f->owner, NULL, memory_order_release);
}

void mqtx__wme_fq_free(struct wme_fq *fq)
{
	if (fq && fq->radio) {
		/* Empty by now (the owner took every packet out): what it still owns goes back. */
		for (uint32_t i = 0; i < fq->nflows; i++)
			if (atomic_load(&fq->flows[i].owner) == fq)
				release(&fq->flows[i]);
		radio_put(fq->radio);
	}
	mqtx_free(fq);
}

bool mqtx__wme_fq_radio(const struct wme_fq *fq)
{
	return fq->radio != NULL;
}

bool mqtx__wme_fq_over(const struct wme_fq *fq)
{
	const struct wme_radio *r = fq->radio;

	return r && (atomic_load_explicit(&r->packets, memory_order_relaxed) > WME_RADIO_LIMIT ||
		     atomic_load_explicit(&r->bytes, memory_order_relaxed) > WME_RADIO_MEMORY);
}

/* @n packets of @bytes joined (+) or left (-) the radio's table. */
static void radio_count(struct wme_fq *fq, int64_t n, int64_t bytes)
{
	if (!fq->radio)
		return;
	atomic_fetch_add_explicit(&fq->radio->packets, (uint64_t)n, memory_order_relaxed);
	atomic_fetch_add_explicit(&fq->radio->bytes, (uint64_t)bytes, memory_order_relaxed);
}

void mqtx__wme_fq_set(struct wme_fq *fq, uint32_t quantum, const struct mqtx_codel_params *cp)
{
	fq->drr.quantum = quantum;
	fq->cparams = *cp;
}

uint32_t mqtx__wme_fq_flows(const struct wme_fq *fq)
{
	return fq->nflows;
}

uint32_t mqtx__wme_fq_quantum(const struct wme_fq *fq)
{
	return fq->drr.quantum;
}

const struct mqtx_codel_params *mqtx__wme_fq_params(const struct wme_fq *fq)
{
	return &fq->cparams;
}

uint64_t mqtx__wme_fq_ecn_marks(const struct wme_fq *fq)
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
	struct wme_flow *f;
	struct wme_fq *none = NULL;

	fq_tuple_set(&key.t, pkt);
	f = &fq->flows[mqtx_reciprocal_scale(mqtx_jhash(&key, sizeof(key), 0), fq->nflows)];
	if (!fq->radio || mine(fq, f))
		return f;
	/* Another queue's: the default flow (fq_flow_classify() gives the tin's default_flow
	 * when the flow belongs to another tin). Free: it becomes this queue's, unless frames wait
	 * in the default flow, which may be of this very flow (a TID's frames pass between an AC
	 * queue and an aggregation queue): they must not be overtaken, so the default flow takes
	 * this one too until it is empty. */
	if (!fq->dflt.q.len &&
	    atomic_compare_exchange_strong_explicit(&f->owner, &none, fq, memory_order_acq_rel,
						    memory_order_acquire))
		return f;
	return &fq->dflt;
}

void mqtx__wme_fq_add(struct wme_fq *fq, struct mqtx_pkt *pkt)
{
	struct wme_flow *f = flow_of(fq, pkt);

	mqtx_pkt_list_add_tail(&f->q, pkt);
	f->backlog += pkt->len;
	radio_count(fq, 1, pkt->len);
	fq_drr_activate(&fq->drr, &f->drr);
}

struct mqtx_pkt *mqtx__wme_fq_drop_fattest(struct wme_fq *fq, const struct mqtx_pkt *pkt, bool *own)
{
	struct wme_flow *fat = NULL;
	struct mqtx_pkt *victim;

	/* A linear scan, as fq_codel_drop() and fq_find_fattest_flow() do; in a radio's table,
	 * over this queue's flows only (mac80211 scans every tin's: a queue's lock here reaches
	 * its own frames alone). */
	for (uint32_t i = 0; i <= fq->nflows; i++) {
		struct wme_flow *f = own_flow(fq, i);

		if (f && f->q.len && (!fat || f->backlog > fat->backlog))
			fat = f;
	}
	if (!fat)
		return NULL;
	*own = fat == flow_of(fq, pkt);
	victim = mqtx_pkt_list_pop(&fat->q);
	fat->backlog -= victim->len;
	radio_count(fq, -1, -(int64_t)victim->len);
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
		radio_count(fq, -1, -(int64_t)pkt->len);
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
	struct mqtx_pkt *pkt;

	pkt = mqtx__codel_dequeue(fq, &f->backlog, &fq->cparams, &f->cvars, &fq->cstats, flow_deq,
				  flow_drop, fq->now);
	/* Served empty: the round robin may let it go now, and a radio's flow then goes back. */
	if (!pkt && fq->radio && f != &fq->dflt && !f->on_rel) {
		f->on_rel = true;
		f->rel_next = fq->rel;
		fq->rel = f;
	}
	return pkt;
}

struct mqtx_pkt *mqtx__wme_fq_dequeue(struct wme_fq *fq, const struct wme_fq_hooks *h, uint32_t now)
{
	struct mqtx_pkt *pkt;

	fq->hooks = h;
	fq->now = now;
	pkt = fq_drr_dequeue(&fq->drr, flow_serve, fq);
	fq->cstats.drop_count = 0;
	fq->hooks = NULL;
	while (fq->rel) {
		struct wme_flow *f = fq->rel;

		fq->rel = f->rel_next;
		f->on_rel = false;
		if (!f->drr.listed && !f->q.len)
			release(f);
	}
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

unsigned mqtx__wme_fq_extract(struct wme_fq *fq, mqtx_pkt_match_fn match, void *arg,
			      struct mqtx_pkt_list *out)
{
	struct mqtx_pkt *all = NULL, *pkt;
	unsigned n = 0;

	/* Each flow is in arrival order already: what it gives up is merged by arrival. */
	for (uint32_t i = 0; i <= fq->nflows; i++) {
		struct wme_flow *f = own_flow(fq, i);
		struct mqtx_pkt_list keep, took;

		if (!f || !f->q.len)
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
		for (pkt = took.head; pkt; pkt = pkt->next)
			radio_count(fq, -1, -(int64_t)pkt->len);
		all = merge(all, took.head);
	}
	while ((pkt = all)) {
		all = pkt->next;
		mqtx_pkt_list_add_tail(out, pkt);
	}
	return n;
}

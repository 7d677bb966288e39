/* SPDX-License-Identifier: MIT */
/* What the flow-queueing qdiscs (fq_codel, and the wme qdisc's flow queues) share: the 5-tuple
 * they hash a frame by, and deficit round robin over their flows, new flows first (Linux's
 * fq_codel_dequeue() in net/sched/sch_fq_codel.c, fq_tin_dequeue() in include/net/fq_impl.h).
 * Internal to qdisc/; inline, as it is the fast path of both. */
#ifndef MQTX_QDISC_FQ_H
#define MQTX_QDISC_FQ_H

#include <string.h>

#include <mqtx/flow.h>
#include <mqtx/qdisc.h>

/* ---- the flow key ---- */

/* The 5-tuple of a frame as a hash key reads it, byte for byte: packed, so that the fields a
 * key adds after it follow without a hole. */
struct fq_tuple {
	uint8_t src[16], dst[16];
	uint16_t sport, dport, n_proto;
	uint8_t ip_proto;
} __attribute__((packed));

/* Fill @t from @pkt's headers; the caller has zeroed it (what a frame lacks stays 0). */
static inline void fq_tuple_set(struct fq_tuple *t, const struct mqtx_pkt *pkt)
{
	struct mqtx_flow_keys k;

	mqtx_flow_dissect(pkt->data, pkt->len, &k);
	if (k.flags & MQTX_FLOW_F_IPV4) {
		memcpy(t->src, &k.addrs.v4.src, 4);
		memcpy(t->dst, &k.addrs.v4.dst, 4);
	} else if (k.flags & MQTX_FLOW_F_IPV6) {
		memcpy(t->src, k.addrs.v6.src, 16);
		memcpy(t->dst, k.addrs.v6.dst, 16);
	}
	if (k.flags & MQTX_FLOW_F_PORTS) {
		t->sport = k.sport;
		t->dport = k.dport;
	}
	t->n_proto = k.n_proto;
	t->ip_proto = k.ip_proto;
}

/* ---- deficit round robin ---- */

/* The round-robin state of a flow, embedded as member "drr" of the qdisc's own flow. */
struct fq_drr_flow {
	struct fq_drr_flow *next; /* on new_flows or old_flows */
	bool listed;
	int32_t deficit;
};

/* A list of flows: only ever popped at the head or appended at the tail. */
struct fq_drr_list {
	struct fq_drr_flow *head, *tail;
	uint32_t len;
};

/* The flows with packets, those that just became active first, and the bytes a flow may send
 * in its turn. */
struct fq_drr {
	struct fq_drr_list new_flows, old_flows;
	uint32_t quantum;
};

static inline void fq_drr_add_tail(struct fq_drr_list *l, struct fq_drr_flow *f)
{
	f->next = NULL;
	f->listed = true;
	if (l->tail)
		l->tail->next = f;
	else
		l->head = f;
	l->tail = f;
	l->len++;
}

static inline struct fq_drr_flow *fq_drr_pop(struct fq_drr_list *l)
{
	struct fq_drr_flow *f = l->head;

	l->head = f->next;
	if (!l->head)
		l->tail = NULL;
	l->len--;
	f->next = NULL;
	f->listed = false;
	return f;
}

/* A packet joined @f: an idle flow becomes a new flow with a full quantum. True when it did. */
static inline bool fq_drr_activate(struct fq_drr *d, struct fq_drr_flow *f)
{
	if (f->listed)
		return false;
	f->deficit = (int32_t)d->quantum;
	fq_drr_add_tail(&d->new_flows, f);
	return true;
}

/* Flow @f's turn: what it sends (through CoDel), NULL when it has nothing left to send. */
typedef struct mqtx_pkt *(*fq_drr_serve_fn)(struct fq_drr_flow *f, void *arg);

/* The next packet: the head flow of new_flows, else of old_flows, is served while its deficit
 * lasts, then gets another quantum and goes to the tail of old_flows. NULL when every flow is
 * empty. */
static inline struct mqtx_pkt *fq_drr_dequeue(struct fq_drr *d, fq_drr_serve_fn serve, void *arg)
{
	for (;;) {
		struct fq_drr_list *head = d->new_flows.head ? &d->new_flows : &d->old_flows;
		struct fq_drr_flow *f = head->head;
		struct mqtx_pkt *pkt;

		if (!f)
			return NULL;
		if (f->deficit <= 0) {
			f->deficit += (int32_t)d->quantum;
			fq_drr_add_tail(&d->old_flows, fq_drr_pop(head));
			continue;
		}
		pkt = serve(f, arg);
		if (pkt) {
			f->deficit -= (int32_t)pkt->len;
			return pkt;
		}
		/* An emptied new flow takes one pass through old_flows, against starvation. */
		fq_drr_pop(head);
		if (head == &d->new_flows && d->old_flows.head)
			fq_drr_add_tail(&d->old_flows, f);
	}
}

#endif

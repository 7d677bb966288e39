/* SPDX-License-Identifier: MIT */
/* The flow queues of the wme qdisc's fq_codel mode: DRR over hashed flows, CoDel per flow, as
 * mac80211 runs them per TID (include/net/fq.h, include/net/fq_impl.h). Internal to qdisc/. */
#ifndef MQTX_QDISC_WME_FQ_H
#define MQTX_QDISC_WME_FQ_H

#include "qdisc/codel.h"

/* mac80211's CoDel parameters and DRR quantum (net/mac80211/tx.c ieee80211_txq_setup_flows,
 * include/net/fq_impl.h fq_init). */
#define WME_FQ_TARGET_NS   20000000ull
#define WME_FQ_INTERVAL_NS 100000000ull
#define WME_FQ_QUANTUM	   300u
#define WME_FQ_FLOWS	   1024u
#define WME_FQ_FLOWS_MAX   65536u

/* A radio's table, shared by the device's queues (mac80211's local->fq: fq_init(..., 4096);
 * fq->limit 8192 packets, fq->memory_limit 16 MiB, here of frame bytes). */
#define WME_RADIO_FLOWS	 4096u
#define WME_RADIO_LIMIT	 8192u
#define WME_RADIO_MEMORY (16u << 20)

/* Arrival order of a queued packet, in its control block after CoDel's stamp (cb[0..3]). */
#define WME_SEQ_OFF 8

static inline void wme_set_seq(struct mqtx_pkt *pkt, uint64_t seq)
{
	memcpy(pkt->cb + WME_SEQ_OFF, &seq, sizeof(seq));
}

static inline uint64_t wme_seq(const struct mqtx_pkt *pkt)
{
	uint64_t s;

	memcpy(&s, pkt->cb + WME_SEQ_OFF, sizeof(s));
	return s;
}

struct wme_fq;

/**
 * struct wme_fq_hooks - what the owner does with packets the flows give up in a dequeue.
 * @taken: a packet left its flow; return true to drop it (the owner has dropped it: a late
 *        frame), false to let CoDel judge it. Accounting of the owner happens here.
 * @aqm_drop: CoDel dropped this packet (already @taken).
 */
struct wme_fq_hooks {
	bool (*taken)(struct mqtx_pkt *pkt, void *ctx);
	void (*aqm_drop)(struct mqtx_pkt *pkt, void *ctx);
	void *ctx;
};

int mqtx__wme_fq_new(uint32_t flows, uint32_t quantum, const struct mqtx_codel_params *cp,
		     struct wme_fq **out);
/* A queue's view of the table of radio @key (its device), made by the first queue that asks and
 * freed with the last. */
int mqtx__wme_fq_new_radio(const void *key, uint32_t quantum, const struct mqtx_codel_params *cp,
			   struct wme_fq **out);
void mqtx__wme_fq_free(struct wme_fq *fq);
bool mqtx__wme_fq_radio(const struct wme_fq *fq);
/* The radio's table holds more than its limits allow (false for a queue's own table). */
bool mqtx__wme_fq_over(const struct wme_fq *fq);
void mqtx__wme_fq_set(struct wme_fq *fq, uint32_t quantum, const struct mqtx_codel_params *cp);
uint32_t mqtx__wme_fq_flows(const struct wme_fq *fq);
uint32_t mqtx__wme_fq_quantum(const struct wme_fq *fq);
const struct mqtx_codel_params *mqtx__wme_fq_params(const struct wme_fq *fq);

/* Queue @pkt (stamped by the caller) on its flow. */
void mqtx__wme_fq_add(struct wme_fq *fq, struct mqtx_pkt *pkt);

/* Take the head packet of the flow with the largest backlog (an overlimit drop); *@own says
 * whether that flow is @pkt's. NULL when empty. */
struct mqtx_pkt *mqtx__wme_fq_drop_fattest(struct wme_fq *fq, const struct mqtx_pkt *pkt,
					   bool *own);

/* The next packet by DRR and CoDel at CoDel time @now. */
struct mqtx_pkt *mqtx__wme_fq_dequeue(struct wme_fq *fq, const struct wme_fq_hooks *h,
				      uint32_t now);

/* Every packet @match accepts, onto @out in arrival order; returns how many. */
unsigned mqtx__wme_fq_extract(struct wme_fq *fq, mqtx_pkt_match_fn match, void *arg,
			      struct mqtx_pkt_list *out);

/* CE marks and drops CoDel made so far. */
uint64_t mqtx__wme_fq_ecn_marks(const struct wme_fq *fq);

#endif

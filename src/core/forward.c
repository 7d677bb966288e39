// SPDX-License-Identifier: MIT
/*
 * Packets a filter sends to another device (mirred), held back until the thread's outermost
 * transmit or receive call ends (a receive's before its handler runs): sent then, inside
 * that call's read section, in the order they were given, with none of the
 * locks of the path that classified them held (a classful qdisc's filters run under its
 * lock), and a chain of redirects (A to B to A ...) runs as a loop here, not as a recursion.
 * Each redirect counts on the packet; past MQTX_XMIT_RECURSION_MAX the filter drops it.
 * The same list holds transmits that a driver made while its caller held a queue lock and
 * that could not be made then without waiting (core/xmit.c).
 */
#include "core/core.h"

/* The deferred packets of this thread, in pkt->next order; where each goes is in its cb. */
struct fwd_cb {
	struct mqtx_dev *to;
	mqtx__send_fn send;
};

MQTX_TLS struct mqtx_pkt *mqtx__fwd_head;
static MQTX_TLS struct mqtx_pkt *fwd_tail;
MQTX_TLS unsigned mqtx__fwd_depth;

void mqtx__forward(struct mqtx_dev *to, struct mqtx_pkt *pkt, mqtx__send_fn send)
{
	if (unlikely(!mqtx__fwd_depth)) {
		/* Not inside a transmit or receive call: there is no end to send it at. */
		mqtx_warn("redirect to %s outside a transmit or receive: dropped", to->name);
		mqtx_pkt_free(pkt);
		return;
	}
	/* The other device picks its own queue and hashes with its own hasher. */
	pkt->flags &=
		(uint16_t) ~(MQTX_PKT_F_QMAP_SET | MQTX_PKT_F_HASH_VALID | MQTX_PKT_F_NO_HASH);
	pkt->redirects++;
	mqtx__defer(to, pkt, send);
}

void mqtx__defer(struct mqtx_dev *to, struct mqtx_pkt *pkt, mqtx__send_fn send)
{
	struct fwd_cb *cb = (struct fwd_cb *)pkt->cb;

	_Static_assert(sizeof(struct fwd_cb) <= MQTX_PKT_CB_SIZE, "cb too small");
	cb->to = to;
	cb->send = send;
	pkt->next = NULL;
	if (mqtx__fwd_head)
		fwd_tail->next = pkt;
	else
		mqtx__fwd_head = pkt;
	fwd_tail = pkt;
}

/* At the end of the outermost call (mqtx__fwd_depth 1): what the calls it made send in turn
 * joins the list's tail. */
void mqtx__forward_flush(void)
{
	struct mqtx_pkt *pkt;

	mqtx__fwd_depth++;
	while ((pkt = mqtx__fwd_head)) {
		struct fwd_cb cb = *(struct fwd_cb *)pkt->cb;

		mqtx__fwd_head = pkt->next;
		pkt->next = NULL;
		cb.send(cb.to, pkt);
	}
	fwd_tail = NULL;
	mqtx__fwd_depth--;
}

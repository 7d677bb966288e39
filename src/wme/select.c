// SPDX-License-Identifier: MIT
/* WME queue selection: peer, EAPOL, 802.1d classification, admission control with TSPECs and
 * the drop the 2008 rewrite lost, reserved TIDs, aggregation queues (net/mac80211/wme.c
 * ieee80211_select_queue() and ieee80211_downgrade_queue()); and what-if queries. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "wme/wme_int.h"

static unsigned rd16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The protocol of the frame, after its VLAN tags (skb->protocol with the tag offloaded). */
static unsigned ethertype(const uint8_t *f, size_t len)
{
	size_t off = 12;
	unsigned p;

	if (len < 14)
		return 0;
	p = rd16(f + off);
	while ((p == 0x8100 || p == 0x88A8) && len >= off + 6) {
		off += 4;
		p = rd16(f + off);
	}
	return p;
}

/* One AC down (wme_downgrade_ac()): VO -> VI -> BE -> BK; -1 below BK. */
static int downgrade(unsigned up)
{
	switch (up) {
	case 6:
	case 7:
		return 5;
	case 4:
	case 5:
		return 3;
	case 0:
	case 3:
		return 2;
	default:
		return -1;
	}
}

/* The other UP of the same AC (ieee80211_fix_reserved_tid()). */
static unsigned fix_reserved_tid(unsigned tid)
{
	static const uint8_t other[8] = { 3, 2, 1, 0, 5, 4, 7, 6 };

	return other[tid & 7];
}

/* Admission control: returns the UP to send with and whether it keeps its AC by a TSPEC, or
 * -1 to drop. */
static int admit(struct mqtx_wme *w, unsigned up, struct wme_decision *d, bool *tspec)
{
	uint32_t acm = w ? atomic_load_explicit(&w->acm_up, memory_order_relaxed) : 0;

	/* mac80211 fills wmm_acm from the AP's WMM Parameter element, on a client only
	 * (ieee80211_sta_wmm_params() in net/mac80211/mlme.c): an AP downgrades nothing. */
	if (w && atomic_load_explicit(&w->role, memory_order_relaxed) == MQTX_WME_ROLE_AP)
		acm = 0;

	*tspec = false;
	while (acm & (1u << up)) {
		unsigned ac = mqtx_wme_up_to_ac(up);
		uint32_t ts = atomic_load_explicit(&w->tspec[ac], memory_order_relaxed);
		int next;

		if ((ts & WME_TSPEC_ADMITTED) && (ts & 7) == up) {
			*tspec = true;
			return (int)up;
		}
		next = downgrade(up);
		if (next < 0) {
			/* Every lower AC requires admission too. Current mac80211 sends it on BK
			 * (ieee80211_downgrade_queue(), calling the AP's setting unreasonable), the
			 * default; the 2008 code dropped it, the other choice. */
			if (atomic_load_explicit(&w->noadmit, memory_order_relaxed) ==
			    MQTX_WME_NOADMIT_DROP)
				return -1;
			break;
		}
		up = (unsigned)next;
		d->v.downgraded = true;
	}
	return (int)up;
}

/*
 * The receiving station, as ieee80211_lookup_ra_sta() (net/mac80211/tx.c) finds it: an AP
 * (and the default role) by the frame's destination, none for a group address; a non-AP
 * station sends everything, group frames included, to its AP (the BSSID).
 */
static struct wme_sta *lookup_peer(struct mqtx_wme *w, const struct wme_frame *f)
{
	uint8_t ap[6];

	if (!w || f->len < 6)
		return NULL;
	if (atomic_load_explicit(&w->role, memory_order_relaxed) == MQTX_WME_ROLE_STA) {
		mqtx__wme_bssid(w, ap);
		return mqtx__wme_sta_find(w, ap);
	}
	return (f->data[0] & 1) ? NULL : mqtx__wme_sta_find(w, f->data);
}

void mqtx__wme_decide(struct mqtx_wme *w, const struct wme_frame *f, enum wme_peer peer,
		      struct wme_decision *d)
{
	struct wme_sta *sta = NULL;
	unsigned proto, up;
	bool qos, tspec;
	int adm;

	memset(d, 0, sizeof(*d));
	if (f->flags & MQTX_PKT_F_MGMT) {
		/* Management frames go on VO, sent without a QoS control field. */
		d->kind = WME_KIND_MGMT;
		d->v.up = 7;
		d->v.ac = d->first_ac = MQTX_WME_AC_VO;
		d->v.queue = MQTX_WME_AC_VO;
		return;
	}
	if (peer == WME_PEER_LOOKUP) {
		sta = lookup_peer(w, f);
		qos = sta && sta->qos;
	} else {
		qos = peer == WME_PEER_QOS;
	}
	if (!qos) {
		/* Priority 0 is "required for correct WPA/11i MIC" (mac80211). */
		d->kind = WME_KIND_NONQOS;
		d->v.ac = d->first_ac = MQTX_WME_AC_BE;
		d->v.queue = MQTX_WME_AC_BE;
		return;
	}
	proto = ethertype(f->data, f->len);
	/* Only the control port protocol (EAPOL) gets UP 7 (ieee80211_select_queue() compares
	 * skb->protocol with sdata->control_port_protocol); 802.11i pre-authentication (0x88C7)
	 * travels as data through the bridge and is classified like any other Ethertype. */
	if (proto == MQTX_WME_ETH_P_EAPOL) {
		d->kind = WME_KIND_EAPOL;
		up = 7;
	} else {
		up = mqtx_wme_classify8021d(
			f->data, f->len, f->priority,
			w ? atomic_load_explicit(&w->qos_map, memory_order_acquire) : NULL,
			w && atomic_load_explicit(&w->legacy, memory_order_relaxed));
	}
	d->first_ac = mqtx_wme_up_to_ac(up);
	adm = admit(w, up, d, &tspec);
	if (adm < 0) {
		d->v.drop = true;
		d->v.up = (uint8_t)up;
		d->v.ac = d->first_ac;
		d->v.queue = d->first_ac;
		return;
	}
	up = (unsigned)adm;
	/* An admitted stream keeps its UP as it is; a reserved TID gives way otherwise. */
	if (!tspec && sta &&
	    atomic_load_explicit(&sta->reserved_tid, memory_order_relaxed) == (int8_t)up)
		up = fix_reserved_tid(up);
	d->v.up = (uint8_t)up;
	d->v.ac = mqtx_wme_up_to_ac(up);
	d->v.queue = d->v.ac;
	if (sta) {
		uint16_t q = atomic_load_explicit(&sta->tid_queue[up], memory_order_acquire);

		if (q != MQTX_WME_QUEUE_NONE) {
			d->v.queue = q;
			d->v.ampdu = true;
		}
	}
}

static void count(struct mqtx_wme *w, const struct wme_decision *d)
{
	switch (d->kind) {
	case WME_KIND_MGMT:
		WME_PCPU_INC(w, mgmt);
		break;
	case WME_KIND_NONQOS:
		WME_PCPU_INC(w, nonqos);
		break;
	case WME_KIND_EAPOL:
		WME_PCPU_INC(w, eapol);
		break;
	}
	if (d->v.drop) {
		WME_PCPU_INC(w, noadmit[d->first_ac]);
		return;
	}
	WME_PCPU_INC(w, selected[d->v.ac]);
	if (d->v.downgraded)
		WME_PCPU_INC(w, downgraded[d->first_ac]);
	if (d->v.ampdu)
		WME_PCPU_INC(w, ampdu[d->v.ac]);
}

uint16_t mqtx_wme_select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt)
{
	struct mqtx_wme *w = mqtx__wme(dev);
	struct wme_frame f = { pkt->data, pkt->len, pkt->priority, pkt->flags };
	struct wme_decision d;

	if (unlikely(!w))
		return mqtx_dev_pick_tx(dev, pkt);
	mqtx__wme_decide(w, &f, WME_PEER_LOOKUP, &d);
	count(w, &d);
	/* The sojourn deadlines and the driver's latency count from here. */
	pkt->tstamp = mqtx_clock_now(mqtx_dev_clock(dev));
	if (unlikely(d.v.drop)) {
		pkt->drop_reason = MQTX_DROP_NO_ADMIT;
		pkt->queue_mapping = d.v.queue;
		return MQTX_TXQ_DROP;
	}
	pkt->priority = d.v.up;
	if (d.v.ampdu)
		pkt->flags |= MQTX_PKT_F_AMPDU;
	else
		pkt->flags &= (uint16_t)~MQTX_PKT_F_AMPDU;
	return d.v.queue;
}

/* ---- what-if queries ---- */

#define PEER_FLAGS                                                                       \
	(MQTX_WME_Q_EAPOL | MQTX_WME_Q_MGMT | MQTX_WME_Q_MULTICAST | MQTX_WME_Q_NONQOS | \
	 MQTX_WME_Q_STA)

static int check_query(struct mqtx_dev *dev, const struct mqtx_wme_query *q,
		       struct mqtx_extack *ack)
{
	if (q->flags & ~(PEER_FLAGS | MQTX_WME_Q_PRIORITY | MQTX_WME_Q_VLAN | MQTX_WME_Q_DSCP |
			 MQTX_WME_Q_IPV6))
		return mqtx_extack_set(ack, "unknown query flags 0x%x", q->flags);
	if (__builtin_popcount(q->flags & PEER_FLAGS) > 1)
		return mqtx_extack_set(ack, "eapol, mgmt, multicast, nonqos and sta exclude each "
					    "other");
	if ((q->flags & MQTX_WME_Q_VLAN) && q->vlan_pcp > 7)
		return mqtx_extack_set(ack, "vlan-pcp %u outside 0-7", q->vlan_pcp);
	if ((q->flags & MQTX_WME_Q_DSCP) && q->dscp > 63)
		return mqtx_extack_set(ack, "dscp %u outside 0-63", q->dscp);
	if ((q->flags & MQTX_WME_Q_IPV6) && !(q->flags & MQTX_WME_Q_DSCP))
		return mqtx_extack_set(ack, "ipv6 needs a dscp");
	if ((q->flags & MQTX_WME_Q_DSCP) && (q->flags & MQTX_WME_Q_EAPOL))
		return mqtx_extack_set(ack, "an EAPOL frame has no dscp");
	if ((q->flags & MQTX_WME_Q_STA) && !dev)
		return mqtx_extack_set(ack, "sta needs a device");
	if (dev && !mqtx_wme_enabled(dev)) {
		mqtx_extack_set(ack, "device %s is not a Wi-Fi device (no WME)",
				mqtx_dev_name(dev));
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The frame @q describes: Ethernet, an optional VLAN tag, then EAPOL, IPv6 or IPv4. */
static size_t build(const struct mqtx_wme_query *q, uint8_t *f)
{
	static const uint8_t group[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	static const uint8_t peer[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	unsigned dscp = (q->flags & MQTX_WME_Q_DSCP) ? q->dscp : 0;
	size_t off = 12;

	memset(f, 0, 96);
	memcpy(f,
	       (q->flags & MQTX_WME_Q_STA)	   ? q->sta
	       : (q->flags & MQTX_WME_Q_MULTICAST) ? group
						   : peer,
	       6);
	f[6] = 0x02;
	f[11] = 0x02;
	if (q->flags & MQTX_WME_Q_VLAN) {
		f[12] = 0x81;
		f[14] = (uint8_t)(q->vlan_pcp << 5);
		f[15] = 1;
		off += 4;
	}
	if (q->flags & MQTX_WME_Q_EAPOL) {
		f[off] = 0x88;
		f[off + 1] = 0x8E;
		return off + 2 + 4;
	}
	if (q->flags & MQTX_WME_Q_IPV6) {
		f[off] = 0x86;
		f[off + 1] = 0xDD;
		f[off + 2] = (uint8_t)(0x60 | dscp >> 2);
		f[off + 3] = (uint8_t)((dscp & 3) << 6);
		return off + 2 + 40;
	}
	f[off] = 0x08;
	f[off + 2] = 0x45;
	f[off + 3] = (uint8_t)(dscp << 2);
	return off + 2 + 20;
}

int mqtx_wme_classify(struct mqtx_dev *dev, const struct mqtx_wme_query *q,
		      struct mqtx_wme_verdict *v, struct mqtx_extack *ack)
{
	struct mqtx_wme *w = mqtx__wme(dev);
	enum wme_peer peer = WME_PEER_QOS;
	struct wme_decision d;
	struct wme_frame f;
	uint8_t buf[96];
	int err;

	err = check_query(dev, q, ack);
	if (err)
		return err;
	f.data = buf;
	f.len = build(q, buf);
	f.priority = (q->flags & MQTX_WME_Q_PRIORITY) ? q->priority : 0;
	f.flags = (q->flags & MQTX_WME_Q_MGMT) ? MQTX_PKT_F_MGMT : 0;
	if (q->flags & (MQTX_WME_Q_STA | MQTX_WME_Q_MULTICAST))
		peer = WME_PEER_LOOKUP;
	else if (q->flags & MQTX_WME_Q_NONQOS)
		peer = WME_PEER_NONQOS;
	mqtx__rcu_read_lock();
	if ((q->flags & MQTX_WME_Q_STA) && !mqtx__wme_sta_find(w, q->sta)) {
		char mac[18];

		mqtx__rcu_read_unlock();
		mqtx_extack_set(ack, "unknown station %s on %s", mqtx__wme_mac(q->sta, mac),
				mqtx_dev_name(dev));
		return -ENOENT;
	}
	mqtx__wme_decide(w, &f, peer, &d);
	mqtx__rcu_read_unlock();
	*v = d.v;
	return 0;
}

int mqtx_wme_verdict_format(const struct mqtx_wme_verdict *v, char *buf, size_t len)
{
	if (v->drop)
		return snprintf(buf, len, "drop no-admissible-ac");
	return snprintf(buf, len, "up %u ac %s queue %u%s", v->up, mqtx_wme_ac_name(v->ac),
			v->queue, v->ampdu ? " ampdu" : "");
}

// SPDX-License-Identifier: MIT
/* The sim-wifi medium: EDCA contention between the ACs of one transmitter (IEEE 802.11-2016
 * 10.22.2), TXOPs, A-MPDUs, and OFDM air time. All under the medium lock. */
#include <errno.h>
#include <string.h>

#include "drivers/sim_wifi_int.h"

/* dot11EDCATable defaults for a non-AP station on an OFDM PHY (IEEE 802.11-2016 Table 9-155):
 * AIFSN, CWmin, CWmax (aCWmin 15, aCWmax 1023), TXOP limit. */
static const struct mqtx_sim_wifi_edca edca_sta[MQTX_WME_NUM_AC] = {
	[MQTX_WME_AC_VO] = { 2, 3, 7, 1504000 },
	[MQTX_WME_AC_VI] = { 2, 7, 15, 3008000 },
	[MQTX_WME_AC_BE] = { 3, 15, 1023, 0 },
	[MQTX_WME_AC_BK] = { 7, 15, 1023, 0 },
};

/* An AP's own EDCA parameter set: hostapd's defaults (tx_queue_data0..3 in hostapd.conf, the
 * dot11QAPEDCATable of IEEE 802.11-2016 Table 9-155 with its TXOPs rounded to 0.1 ms). */
static const struct mqtx_sim_wifi_edca edca_ap[MQTX_WME_NUM_AC] = {
	[MQTX_WME_AC_VO] = { 1, 3, 7, 1500000 },
	[MQTX_WME_AC_VI] = { 1, 7, 15, 3000000 },
	[MQTX_WME_AC_BE] = { 3, 15, 63, 0 },
	[MQTX_WME_AC_BK] = { 7, 15, 1023, 0 },
};

int mqtx_sim_wifi_edca_default(enum mqtx_wme_role role, enum mqtx_wme_ac ac,
			       struct mqtx_sim_wifi_edca *e)
{
	if ((unsigned)ac >= MQTX_WME_NUM_AC || (unsigned)role > MQTX_WME_ROLE_AP)
		return -EINVAL;
	*e = role == MQTX_WME_ROLE_AP ? edca_ap[ac] : edca_sta[ac];
	return 0;
}

void mqtx__swf_edca_defaults(struct mqtx_sim_wifi_cfg *c, enum mqtx_wme_role role)
{
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		const struct mqtx_sim_wifi_edca *e = &c->edca[ac];

		if (!e->aifsn && !e->cwmin && !e->cwmax && !e->txop_ns)
			mqtx_sim_wifi_edca_default(role, (enum mqtx_wme_ac)ac, &c->edca[ac]);
	}
}

uint64_t mqtx_sim_wifi_ppdu_ns(uint64_t rate_bps, uint64_t bytes)
{
	/* Bits per 4 us OFDM symbol (216 at 54 Mbit/s); 16 service and 6 tail bits. */
	uint64_t per_sym = rate_bps * MQTX_SIM_WIFI_SYMBOL_NS / 1000000000ull;
	uint64_t bits = 16 + 6 + 8 * bytes;

	if (!per_sym)
		per_sym = 1;
	return MQTX_SIM_WIFI_PREAMBLE_NS + (bits + per_sym - 1) / per_sym * MQTX_SIM_WIFI_SYMBOL_NS;
}

void mqtx__swf_air_reset(struct swf_priv *s)
{
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		struct swf_ac *a = &s->ac[ac];

		mqtx_pkt_list_init(&a->fifo);
		a->backoff = -1;
		a->cw = s->run.edca[ac].cwmin;
		a->ready = 0;
		a->st.queued = 0;
	}
	mqtx_pkt_list_init(&s->air);
	s->busy = false;
	s->idle_since = 0;
}

/* xorshift64*: the same seed, the same backoffs. */
static uint32_t draw(struct swf_priv *s, uint32_t cw)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return (uint32_t)((s->rng * 0x2545F4914F6CDD1Dull) >> 32) % (cw + 1);
}

static uint64_t aifs(const struct swf_priv *s, unsigned ac)
{
	return MQTX_SIM_WIFI_SIFS_NS + (uint64_t)s->run.edca[ac].aifsn * MQTX_SIM_WIFI_SLOT_NS;
}

/* When AC @ac would start a TXOP if nothing else happened; UINT64_MAX with no frame. */
static uint64_t access_at(struct swf_priv *s, unsigned ac)
{
	struct swf_ac *a = &s->ac[ac];
	uint64_t start;

	if (!a->fifo.head)
		return UINT64_MAX;
	if (a->backoff < 0)
		a->backoff = (int32_t)draw(s, a->cw);
	start = s->idle_since > a->ready ? s->idle_since : a->ready;
	/* A head that came after a TXOP left it behind (a late round on the real clock took the
	 * frames before it) contends from its arrival. */
	if (mqtx__swf_arrival(a->fifo.head) > start)
		start = mqtx__swf_arrival(a->fifo.head);
	return start + aifs(s, ac) + (uint64_t)a->backoff * MQTX_SIM_WIFI_SLOT_NS;
}

uint64_t mqtx__swf_air_next(struct swf_priv *s)
{
	uint64_t t = UINT64_MAX;

	if (s->busy) {
		t = s->txop_end;
	} else {
		for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
			uint64_t a = access_at(s, ac);

			if (a < t)
				t = a;
		}
	}
	for (uint32_t q = 0; q < s->nq; q++)
		if (s->ba[q].pending && s->ba[q].due < t)
			t = s->ba[q].due;
	return t;
}

/* The other ACs at the moment @w starts at @t: the same slot is an internal collision (the
 * lower priority doubles its CW), otherwise the idle slots since its AIFS count down. */
static void contend(struct swf_priv *s, unsigned w, uint64_t t)
{
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		struct swf_ac *a = &s->ac[ac];
		uint64_t at = access_at(s, ac), base;

		if (ac == w || at == UINT64_MAX)
			continue;
		if (at == t) {
			a->st.collisions++;
			a->cw = 2 * a->cw + 1 > s->run.edca[ac].cwmax ? s->run.edca[ac].cwmax
								      : 2 * a->cw + 1;
			a->backoff = -1;
			continue;
		}
		base = at - (uint64_t)a->backoff * MQTX_SIM_WIFI_SLOT_NS;
		if (t > base)
			a->backoff -= (int32_t)((t - base) / MQTX_SIM_WIFI_SLOT_NS);
	}
	s->ac[w].backoff = -1;
	s->ac[w].cw = s->run.edca[w].cwmin;
}

static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~3ull;
}

/* Past its expiry at @t: the frame would start its transmission too late. */
static bool expired(const struct mqtx_pkt *p, uint64_t t)
{
	return p->expires && t > p->expires;
}

/* A frame leaves the ring, delivered or not: its descriptor is free, its queue may wake.
 * Woken under the medium lock, so that a concurrent xmit_burst cannot stop the queue in between
 * and be overridden by a stale wake. */
static void release(struct swf_priv *s, struct mqtx_dev *dev, struct swf_ac *a,
		    const struct mqtx_pkt *p)
{
	uint16_t q = p->queue_mapping;

	s->count[q]--;
	s->comp_pkts[q]++;
	s->comp_bytes[q] += p->len;
	a->st.queued--;
	if (s->stopped[q] && s->run.ring - s->count[q] >= s->run.wake_thresh &&
	    atomic_load(&s->up)) {
		s->stopped[q] = false;
		mqtx_wme_wake_queue(dev, q, MQTX_WME_STOP_DRIVER);
	}
}

/* The frames at the head of @a that are past their expiry at @t leave for @out: a frame never
 * starts its transmission later than its deadline (as 802.11's per-AC MSDU lifetime,
 * dot11EDCATableMSDULifetime, discards an MSDU that waited too long before it is sent). */
static void purge_expired(struct swf_priv *s, struct mqtx_dev *dev, struct swf_ac *a, uint64_t t,
			  struct mqtx_pkt_list *out)
{
	while (a->fifo.head && mqtx__swf_arrival(a->fifo.head) <= t && expired(a->fifo.head, t)) {
		struct mqtx_pkt *p = mqtx_pkt_list_pop(&a->fifo);

		release(s, dev, a, p);
		a->st.expired++;
		mqtx_pkt_list_add_tail(out, p);
	}
	if (!a->fifo.head)
		a->backoff = -1;
}

/* The next PPDU of @a in the TXOP that began at @t, starting at @start: one frame, or an A-MPDU
 * of the frames of one aggregation queue at the head that were there at @t and are not expired
 * at @start. Returns its frame count and its bytes in *@bytes. */
static uint32_t next_ppdu(const struct swf_priv *s, const struct swf_ac *a, uint64_t t,
			  uint64_t start, uint64_t *bytes, bool *agg)
{
	const struct mqtx_pkt *h = a->fifo.head, *p;
	uint32_t n = 0;

	*agg = (h->flags & MQTX_PKT_F_AMPDU) && h->queue_mapping >= MQTX_WME_NUM_AC;
	if (!*agg) {
		*bytes = (uint64_t)h->len + MQTX_SIM_WIFI_MAC_OVERHEAD;
		return 1;
	}
	*bytes = 0;
	for (p = h;
	     p && n < s->run.ampdu_max && p->queue_mapping == h->queue_mapping &&
	     (p->flags & MQTX_PKT_F_AMPDU) && mqtx__swf_arrival(p) <= t && !expired(p, start);
	     p = p->next, n++)
		*bytes += 4 + pad4((uint64_t)p->len + MQTX_SIM_WIFI_MAC_OVERHEAD);
	return n;
}

/* AC @w won the medium at @t: its TXOP takes PPDUs while they fit in its limit. */
static void start_txop(struct swf_priv *s, struct mqtx_dev *dev, unsigned w, uint64_t t,
		       struct mqtx_pkt_list *gone)
{
	struct swf_ac *a = &s->ac[w];
	uint64_t limit = s->run.edca[w].txop_ns, dur = 0;
	bool first = true;

	contend(s, w, t);
	mqtx_pkt_list_init(&s->air);
	/* On the real clock a round runs late (coalescing, scheduling): frames that came after
	 * @t are not in this TXOP, or they would leave before they arrived. */
	while (a->fifo.head && mqtx__swf_arrival(a->fifo.head) <= t) {
		uint64_t bytes, d;
		uint32_t n;
		bool agg;

		/* Each PPDU of the TXOP starts a SIFS after the last: what expired by then stays. */
		if (!first) {
			purge_expired(s, dev, a, t + dur + MQTX_SIM_WIFI_SIFS_NS, gone);
			if (!a->fifo.head || mqtx__swf_arrival(a->fifo.head) > t)
				break;
		}
		n = next_ppdu(s, a, t, t + (first ? 0 : dur + MQTX_SIM_WIFI_SIFS_NS), &bytes, &agg);
		d = mqtx_sim_wifi_ppdu_ns(s->run.rate_bps, bytes) + MQTX_SIM_WIFI_SIFS_NS +
		    (agg ? MQTX_SIM_WIFI_BA_NS : MQTX_SIM_WIFI_ACK_NS);
		if (!first && (!limit || dur + MQTX_SIM_WIFI_SIFS_NS + d > limit))
			break;
		dur += (first ? 0 : MQTX_SIM_WIFI_SIFS_NS) + d;
		first = false;
		if (agg) {
			a->st.ampdus++;
			a->st.ampdu_frames += n;
		}
		while (n--)
			mqtx_pkt_list_add_tail(&s->air, mqtx_pkt_list_pop(&a->fifo));
		if (!limit)
			break;
	}
	s->busy = true;
	s->air_ac = (uint8_t)w;
	s->txop_end = t + dur;
	a->st.txops++;
	a->st.airtime_ns += dur;
	s->st.busy_ns += dur;
}

/* The TXOP ended: its frames are delivered, their descriptors free. */
static void deliver(struct swf_priv *s, struct mqtx_dev *dev, struct mqtx_pkt_list *done)
{
	struct swf_ac *a = &s->ac[s->air_ac];
	struct mqtx_pkt *p;

	while ((p = mqtx_pkt_list_pop(&s->air))) {
		uint64_t lat = s->txop_end - p->tstamp;

		release(s, dev, a, p);
		a->st.frames++;
		a->st.bytes += p->len;
		a->st.lat_sum_ns += lat;
		if (lat > a->st.lat_max_ns)
			a->st.lat_max_ns = lat;
		/* The driver owns the control block: when and by which AC the frame went, for the
		 * report after the lock is released. */
		memcpy(p->cb, &s->txop_end, sizeof(s->txop_end));
		p->cb[sizeof(s->txop_end)] = s->air_ac;
		mqtx_pkt_list_add_tail(done, p);
	}
	s->busy = false;
	s->idle_since = s->txop_end;
}

uint64_t mqtx__swf_air_run(struct swf_priv *s, struct mqtx_dev *dev, uint64_t now,
			   struct mqtx_pkt_list *done, struct mqtx_pkt_list *expired_out)
{
	for (;;) {
		uint64_t t = UINT64_MAX;
		int w = -1;

		if (s->busy) {
			if (s->txop_end > now)
				break;
			deliver(s, dev, done);
			continue;
		}
		/* The earliest access wins; in the same slot, the higher priority (lower AC). */
		for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
			uint64_t at = access_at(s, ac);

			if (at < t) {
				t = at;
				w = (int)ac;
			}
		}
		if (w < 0 || t > now)
			break;
		/* A winner whose head expired sends nothing of it: the next frame, if any, goes
		 * on contending from where the backoff stands. */
		if (s->ac[w].fifo.head && expired(s->ac[w].fifo.head, t)) {
			purge_expired(s, dev, &s->ac[w], t, expired_out);
			continue;
		}
		start_txop(s, dev, (unsigned)w, t, expired_out);
	}
	return mqtx__swf_air_next(s);
}

/* SPDX-License-Identifier: MIT */
/* WME internals: the per-device state, stations, and what the parts of src/wme/ share. */
#ifndef MQTX_WME_INT_H
#define MQTX_WME_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include <mqtx/wme.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/rcu.h"
#include "base/tslot.h"

#define WME_MAGIC	   0x574d4531u /* "WME1": ml_priv is ours */
#define WME_BUCKETS	   256
#define WME_DEFAULT_STAS   1024
#define WME_TSPEC_ADMITTED 0x100u /* in wme.tspec[ac]: admitted, UP in the low bits */

/* One station. The fast path reads @addr, @qos, @reserved_tid and @tid_queue under RCU; the
 * rest belongs to the WME lock. */
struct wme_sta {
	struct wme_sta *_Atomic next; /* hash chain */
	uint8_t addr[6];
	bool qos;
	_Atomic int8_t reserved_tid;
	_Atomic uint16_t tid_queue[MQTX_WME_NUM_TIDS]; /* aggregation queue, or QUEUE_NONE */
	uint8_t ba_state[MQTX_WME_NUM_TIDS];
	uint16_t ba_queue[MQTX_WME_NUM_TIDS];
	uint32_t ba_id[MQTX_WME_NUM_TIDS]; /* the session's mqtx_wme_ba_session.id */
	/* ADDBA requests sent since the last accepted one, and when the last went
	 * (sta->ampdu_mlme.addba_req_num and last_addba_req_time in net/mac80211/sta_info.h). */
	uint8_t addba_req_num[MQTX_WME_NUM_UP];
	uint64_t addba_req_time[MQTX_WME_NUM_UP];
};

/* ieee80211_start_tx_ba_session() (net/mac80211/agg-tx.c) with the constants of
 * net/mac80211/sta_info.h: after more than HT_AGG_BURST_RETRIES requests a new one waits
 * HT_AGG_RETRIES_PERIOD after the last; after more than HT_AGG_MAX_RETRIES the TID is given up
 * until a session is accepted or the station comes again. */
#define WME_ADDBA_BURST	    3
#define WME_ADDBA_MAX	    15
#define WME_ADDBA_PERIOD_NS 15000000000ull

/* Fast-path counters, one set per thread slot (summed on read). */
struct wme_pcpu {
	atomic_ullong selected[MQTX_WME_NUM_AC], downgraded[MQTX_WME_NUM_AC];
	atomic_ullong noadmit[MQTX_WME_NUM_AC], ampdu[MQTX_WME_NUM_AC];
	atomic_ullong mgmt, nonqos, eapol;
} __attribute__((aligned(MQTX_CACHE_LINE)));

struct mqtx_wme {
	uint32_t magic;
	struct mqtx_dev *dev;
	const struct mqtx_wme_ops *ops;
	uint32_t num_agg, max_sta;

	/* settings the fast path reads */
	_Atomic uint32_t acm_up;  /* wmm_acm: a bit per UP */
	_Atomic uint32_t noadmit; /* enum mqtx_wme_noadmit */
	atomic_bool legacy;
	_Atomic uint32_t role;	/* enum mqtx_wme_role */
	_Atomic uint64_t bssid; /* role sta: the AP's address, 6 bytes in the low bits */
	_Atomic uint32_t tspec[MQTX_WME_NUM_AC];      /* WME_TSPEC_ADMITTED | up */
	uint32_t tspec_time[MQTX_WME_NUM_AC];	      /* WME lock */
	struct mqtx_wme_qos_map *_Atomic qos_map;     /* RCU */
	struct wme_sta *_Atomic buckets[WME_BUCKETS]; /* RCU */

	pthread_mutex_t lock; /* stations, sessions, the pool; after the config lock */
	uint32_t nsta;
	uint64_t pool;	 /* bit i: aggregation queue 4 + i is in a session */
	uint32_t ba_seq; /* the last session id given */

	struct mqtx_spinlock reason_lock; /* leaf */
	uint8_t *reasons;		  /* per TX queue: (1 << enum mqtx_wme_stop_reason) */

	/* control-path counters (WME lock) */
	uint64_t ba_requested, ba_accepted, ba_refused, ba_timeouts, ba_stopped, ba_pool_full;
	uint64_t ba_busy;
	uint64_t moved_to_agg, moved_to_ac;

	struct wme_pcpu pcpu[MQTX_MAX_TSLOTS + 1]; /* last: threads without a slot */
};

#define WME_PCPU_INC(w, field)                                                     \
	do {                                                                       \
		int s_ = mqtx__tslot();                                            \
		if (likely(s_ >= 0))                                               \
			MQTX_CNT_ADD((w)->pcpu[s_].field, 1u);                     \
		else                                                               \
			MQTX_CNT_INC_SHARED((w)->pcpu[MQTX_MAX_TSLOTS].field, 1u); \
	} while (0)

/* wme.c */
struct mqtx_wme *mqtx__wme(const struct mqtx_dev *dev);
/* The WME of @dev with the config lock and the WME lock taken, or NULL (-EOPNOTSUPP) with a
 * message. */
struct mqtx_wme *mqtx__wme_lock(struct mqtx_dev *dev, struct mqtx_extack *ack);
void mqtx__wme_unlock(struct mqtx_wme *w);
/* Role sta: the AP's address. */
void mqtx__wme_bssid(struct mqtx_wme *w, uint8_t addr[6]);

/* sta.c (WME lock held for changes; lookups under RCU) */
struct wme_sta *mqtx__wme_sta_find(struct mqtx_wme *w, const uint8_t addr[6]);
/* Take @sta out of the table (free it after a grace period). */
void mqtx__wme_sta_unlink(struct mqtx_wme *w, struct wme_sta *sta);
void mqtx__wme_sta_free_all(struct mqtx_wme *w);
const char *mqtx__wme_mac(const uint8_t addr[6], char buf[18]);

/* agg.c: end the session of @sta's @tid (config and WME locks held); moves its frames back. */
void mqtx__wme_ba_teardown(struct mqtx_wme *w, struct wme_sta *sta, unsigned tid);
/* The same, counted as stopped, and the driver told (TX_STOP). */
void mqtx__wme_ba_end(struct mqtx_wme *w, struct wme_sta *sta, unsigned tid);

/* The driver's view of @sta's session for @tid (WME lock held). */
static inline struct mqtx_wme_ba_session mqtx__wme_session(const struct wme_sta *sta, unsigned tid)
{
	struct mqtx_wme_ba_session s = { .tid = (uint8_t)tid,
					 .ac = (uint8_t)mqtx_wme_up_to_ac(tid),
					 .queue = sta->ba_queue[tid],
					 .id = sta->ba_id[tid] };

	memcpy(s.addr, sta->addr, sizeof(s.addr));
	return s;
}
void mqtx__wme_ba_reset_all(struct mqtx_wme *w);

/* select.c: the selection of a frame seen as bytes, for the fast path and what-if queries. */
struct wme_frame {
	const uint8_t *data;
	size_t len;
	uint32_t priority;
	uint16_t flags;
};

/* How the peer is found: looked up by the frame's receiver, or given. */
enum wme_peer { WME_PEER_LOOKUP, WME_PEER_QOS, WME_PEER_NONQOS, WME_PEER_GROUP };

/* What kind of frame it was, for the counters. */
enum wme_kind { WME_KIND_DATA, WME_KIND_MGMT, WME_KIND_NONQOS, WME_KIND_EAPOL };

struct wme_decision {
	struct mqtx_wme_verdict v;
	uint8_t first_ac; /* the AC of the UP before admission control */
	uint8_t kind;	  /* enum wme_kind */
};

/* Under RCU. @w NULL: the defaults (no ACM, no QoS Map, no stations). */
void mqtx__wme_decide(struct mqtx_wme *w, const struct wme_frame *f, enum wme_peer peer,
		      struct wme_decision *d);

#endif

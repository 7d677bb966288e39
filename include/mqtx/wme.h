/* SPDX-License-Identifier: MIT */
/* 802.11 WME (WMM) on a Wi-Fi device: 802.1d classification, access-category queue selection
 * with admission control, stations, block-ack aggregation queues, per-AC counters. */
#ifndef MQTX_WME_H
#define MQTX_WME_H

#include <mqtx/driver.h>
#include <mqtx/tc.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A Wi-Fi device has one TX queue per access category (AC), in the order of mac80211
 * (net/mac80211/wme.c): queue 0 VO (voice), 1 VI (video), 2 BE (best effort), 3 BK
 * (background), then a pool of aggregation queues, one per block-ack session of a station and
 * TID (the 2008 design: ampdu_queues beyond hw.queues). Its driver selects queues with
 * mqtx_wme_select_queue(), which follows current Linux (cfg80211_classify8021d() in
 * net/wireless/util.c, ieee80211_select_queue() and ieee80211_downgrade_queue() in
 * net/mac80211/wme.c) and keeps, as options, what the 2008 rewrite dropped: a frame that no AC
 * admits can be dropped and counted (MQTX_DROP_NO_ADMIT; current Linux sends it on BK, the
 * default), and starting or stopping a block-ack session moves a
 * station's waiting frames between the AC queue and its aggregation queue in order.
 *
 * Locking: configuration calls take the device's config lock, then the WME lock (between the
 * config lock and the TX-global lock in the lock order); the fast path reads stations,
 * settings and the QoS map under RCU and takes no lock.
 */

/** enum mqtx_wme_ac - access categories, as mac80211 numbers them (queue index = AC). */
enum mqtx_wme_ac {
	MQTX_WME_AC_VO = 0,
	MQTX_WME_AC_VI = 1,
	MQTX_WME_AC_BE = 2,
	MQTX_WME_AC_BK = 3,
	MQTX_WME_NUM_AC = 4,
};

#define MQTX_WME_NUM_UP		8  /* 802.1d user priorities 0..7 */
#define MQTX_WME_NUM_TIDS	16 /* block-ack TIDs 0..15 (IEEE80211_NUM_TIDS) */
#define MQTX_WME_MAX_AGG_QUEUES 64
#define MQTX_WME_MAX_STATIONS	65536
#define MQTX_WME_QUEUE_NONE	0xFFFFu
#define MQTX_WME_ETH_P_EAPOL	0x888E /* 802.1X */
#define MQTX_WME_ETH_P_PREAUTH	0x88C7 /* 802.11i pre-authentication */
#define MQTX_WME_ETH_P_80221	0x8917 /* 802.21 media independent handover */

/** mqtx_wme_up_to_ac() - the AC of 802.1d user priority @up (ieee802_1d_to_ac). */
static inline enum mqtx_wme_ac mqtx_wme_up_to_ac(unsigned up)
{
	static const uint8_t map[8] = { 2, 3, 3, 2, 1, 1, 0, 0 };

	return (enum mqtx_wme_ac)map[up & 7];
}

/** mqtx_wme_ac_name() - "VO", "VI", "BE", "BK"; "?" out of range. */
MQTX_API const char *mqtx_wme_ac_name(enum mqtx_wme_ac ac);

/** mqtx_wme_ac_parse() - "vo", "VI", "ac_be" (any case) to an AC. Return: the AC, or -EINVAL. */
MQTX_API int mqtx_wme_ac_parse(const char *s);

/**
 * mqtx_wme_acm_parse() - a comma-separated list of ACs ("vo,vi"), or "none", into a mask of
 * (1 << AC) bits. Return: 0; -EINVAL with a message naming the unknown AC.
 */
MQTX_API int mqtx_wme_acm_parse(const char *list, uint8_t *ac_mask, struct mqtx_extack *ack);

/**
 * mqtx_wme_mac_parse() - "02:00:00:00:00:01" (six hex pairs, ':' or '-') into @addr.
 * Return: 0; -EINVAL with a message naming @s.
 */
MQTX_API int mqtx_wme_mac_parse(const char *s, uint8_t addr[6], struct mqtx_extack *ack);

/** mqtx_wme_mac_format() - @addr as "xx:xx:xx:xx:xx:xx" into @buf (18 bytes); returns @buf. */
MQTX_API const char *mqtx_wme_mac_format(const uint8_t addr[6], char buf[18]);

/* ---- the QoS Map (IEEE 802.11u-2011; IEEE 802.11-2016 9.4.2.95, the QoS Map element) ---- */

#define MQTX_WME_QOS_MAP_MAX_EXCEPT 21
#define MQTX_WME_DSCP_UNUSED	    255 /* low = high = 255: the UP has no DSCP range */

/**
 * struct mqtx_wme_qos_map - what an AP tells its stations about DSCP: @num_except exceptions
 * (@except[i].dscp 0..63 goes to @except[i].up 0..7), then for each UP u a range
 * @range[u].low..@range[u].high of DSCPs (both 0..63, low <= high) or both 255 (unused).
 * Ranges may not overlap; an exception's DSCP appears once.
 */
struct mqtx_wme_qos_map {
	uint8_t num_except;
	struct {
		uint8_t dscp, up;
	} except[MQTX_WME_QOS_MAP_MAX_EXCEPT];
	struct {
		uint8_t low, high;
	} range[MQTX_WME_NUM_UP];
};

/**
 * mqtx_wme_qos_map_check() - apply the 802.11u rules to @m.
 * Return: 0; -EINVAL with a message naming the offending entry: too many exceptions, a DSCP
 * above 63, a UP above 7, a repeated exception, a range with low > high ("out of order"), half
 * unused (one bound 255), or two ranges that overlap.
 */
MQTX_API int mqtx_wme_qos_map_check(const struct mqtx_wme_qos_map *m, struct mqtx_extack *ack);

/**
 * mqtx_wme_qos_map_parse() - the text form hostapd's qos_map_set uses: comma-separated
 * numbers, DSCP,UP exception pairs (0 to 21 of them) followed by exactly 8 low,high ranges for
 * UP 0..7, e.g. "53,2,22,6,8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,63". Then checked as
 * mqtx_wme_qos_map_check(). Return: 0 and *@m; -EINVAL with a message naming the bad token or
 * rule.
 */
MQTX_API int mqtx_wme_qos_map_parse(const char *s, struct mqtx_wme_qos_map *m,
				    struct mqtx_extack *ack);

/** mqtx_wme_qos_map_format() - the text form of @m into @buf. Returns the length snprintf gave. */
MQTX_API int mqtx_wme_qos_map_format(const struct mqtx_wme_qos_map *m, char *buf, size_t len);

/* ---- classification (no device needed) ---- */

/**
 * mqtx_wme_classify8021d() - the 802.1d user priority of an Ethernet frame, as
 * cfg80211_classify8021d() computes it: @priority 256..263 gives priority - 256; a VLAN tag
 * (802.1Q or 802.1ad, the first one) with a non-zero PCP gives the PCP; after the tags, IPv4 and
 * IPv6 give their DSCP through @map (exceptions, then ranges; NULL: none) or else DSCP >> 3
 * with the RFC 8325 exceptions (AF1x and CS2 0, AF2x 3, CS3 and AF3x 4, VA and EF 6, CS6 7);
 * MPLS gives the TC bits of its first label; 802.21 gives 7; anything else 0, and so does a frame
 * too short for the header it announces.
 * @legacy: instead, the classifier of the 2008 net/mac80211/wme.c (classify_1d): the magic
 *        priorities, then for an IPv4 frame (Ethertype 0x0800 right after the addresses, a
 *        whole 20-byte header) UP = DSCP >> 3 when the DSCP is a class selector, else 0; no
 *        VLAN, IPv6, MPLS or QoS Map.
 * Return: the UP, 0..7.
 */
MQTX_API unsigned mqtx_wme_classify8021d(const void *frame, size_t len, uint32_t priority,
					 const struct mqtx_wme_qos_map *map, bool legacy);

/* ---- WME on a device (the driver attaches it) ---- */

/** What to do with a frame when admission control allows it on no AC. */
enum mqtx_wme_noadmit {
	MQTX_WME_NOADMIT_BK = 0,   /* send it on BK anyway (current mac80211; the default) */
	MQTX_WME_NOADMIT_DROP = 1, /* drop and count it (the 2008 mac80211) */
};

/**
 * enum mqtx_wme_role - whose side of the link the device plays, as a mac80211 interface type.
 * @MQTX_WME_ROLE_DEFAULT: mqtx's own mix: the peer is looked up by the frame's receiver and a
 *        group frame goes to BE with UP 0 (as an AP does), while ACM and TSPECs apply and the
 *        EDCA defaults are a non-AP station's (as a client does).
 * @MQTX_WME_ROLE_STA: a non-AP station (NL80211_IFTYPE_STATION): every frame, group frames
 *        included, goes to the AP's station (the BSSID), classified and downgraded by ACM;
 *        non-AP EDCA defaults, AIFSN at least 2.
 * @MQTX_WME_ROLE_AP: an AP (NL80211_IFTYPE_AP): peer lookup by receiver, group frames to BE;
 *        no ACM downgrade of its own (mac80211 keeps wmm_acm for a client only); the AP's
 *        EDCA parameter set (hostapd's defaults), AIFSN 1 allowed.
 */
enum mqtx_wme_role {
	MQTX_WME_ROLE_DEFAULT = 0,
	MQTX_WME_ROLE_STA = 1,
	MQTX_WME_ROLE_AP = 2,
};

/**
 * struct mqtx_wme_cfg - WME of one device.
 * @num_agg_queues: aggregation queues, 0..MQTX_WME_MAX_AGG_QUEUES; the device must have
 *        4 + @num_agg_queues TX queues, all in use.
 * @acm: ACs whose admission control is mandatory, as (1 << AC) bits (see mqtx_wme_set_acm()).
 * @noadmit: enum mqtx_wme_noadmit.
 * @legacy: classify with the 2008 classifier (see mqtx_wme_classify8021d()).
 * @max_stations: 1..MQTX_WME_MAX_STATIONS (0: 1024).
 * @role: enum mqtx_wme_role; @bssid: the AP's address, for MQTX_WME_ROLE_STA (unicast).
 */
struct mqtx_wme_cfg {
	uint32_t num_agg_queues;
	uint8_t acm;
	enum mqtx_wme_noadmit noadmit;
	bool legacy;
	uint32_t max_stations;
	enum mqtx_wme_role role;
	uint8_t bssid[6];
};

/** enum mqtx_wme_ampdu_action - what mqtx_wme_ops.ampdu_action is asked to do. */
enum mqtx_wme_ampdu_action {
	MQTX_WME_AMPDU_TX_START = 0, /* send an ADDBA request; answer with mqtx_wme_ba_done() */
	MQTX_WME_AMPDU_TX_STOP = 1,  /* the session is over (DELBA): forget it, answer nothing */
};

/**
 * struct mqtx_wme_ba_session - one block-ack session, as WME hands it to the driver.
 * @addr: the station. @tid: the TID (0-15). @ac: the access category whose EDCA parameters
 *        the session's frames use. @queue: its aggregation queue.
 * @id: unique among the device's sessions: a session stopped and started again for the same
 *        station and TID has a new one, so that an answer the driver collected for the old
 *        session and reports late (mqtx_wme_ba_done()) cannot start the new one.
 */
struct mqtx_wme_ba_session {
	uint8_t addr[6];
	uint8_t tid;
	uint8_t ac;
	uint16_t queue;
	uint32_t id;
};

/**
 * struct mqtx_wme_ops - what WME asks of the driver (mac80211's ieee80211_ops.ampdu_action).
 * @ampdu_action: required for block-ack sessions (absent: mqtx_wme_ba_start() fails with
 *        -EOPNOTSUPP). For @action TX_START, start setting up session @s, and report the
 *        outcome later with mqtx_wme_ba_done(), passing @s back (copy it: it is not kept) —
 *        never from inside this call. For TX_STOP, drop any state of the session, a pending
 *        answer included. Called with the device's config lock and the WME lock held: take
 *        only the driver's own locks. Return 0, or -errno to refuse (a TX_START refused here
 *        ends the session at once, its frames back on the AC queue).
 */
struct mqtx_wme_ops {
	int (*ampdu_action)(struct mqtx_dev *dev, enum mqtx_wme_ampdu_action action,
			    const struct mqtx_wme_ba_session *s);
};

/**
 * mqtx_wme_attach() - give @dev WME (from the driver's init, before the device is used): the
 * device's default qdisc becomes "wme" (one per TX queue under mq), and mqtx_dev_ml_priv() is
 * WME's. @ops is kept, not copied.
 * Return: 0; -EINVAL (bad @cfg: queue count, agg queues, stations; message in @ack); -EBUSY
 * (the device already has a mid-layer); -ENOMEM.
 */
MQTX_API int mqtx_wme_attach(struct mqtx_dev *dev, const struct mqtx_wme_cfg *cfg,
			     const struct mqtx_wme_ops *ops, struct mqtx_extack *ack);

/** mqtx_wme_detach() - free WME of @dev (from the driver's uninit). No-op without WME. */
MQTX_API void mqtx_wme_detach(struct mqtx_dev *dev);

/** mqtx_wme_enabled() - true when @dev has WME. */
MQTX_API bool mqtx_wme_enabled(const struct mqtx_dev *dev);

/**
 * mqtx_wme_select_queue() - the select_queue of a Wi-Fi driver (mqtx_dev_ops.select_queue).
 * Management frames (MQTX_PKT_F_MGMT) go to VO with UP 7. The peer is the station of the
 * frame's receiver (role default and ap; a group address has none), or the AP's station
 * (role sta, group frames included); a frame with no peer, or a peer that is not QoS-capable,
 * goes to BE with UP 0. EAPOL frames (the control port protocol) get UP 7; others,
 * pre-authentication (0x88C7) included, mqtx_wme_classify8021d() with the device's QoS map and
 * classifier. Except in role ap: while the UP's AC requires admission (ACM), an admitted TSPEC
 * for that AC and UP keeps it; else it steps down VO -> VI -> BE -> BK (UP 6,7 -> 5; 4,5 -> 3;
 * 0,3 -> 2); below BK the frame is sent on BK or dropped (MQTX_DROP_NO_ADMIT, counted on the
 * queue of its first AC), as the device's policy says. A station's reserved TID swaps within
 * its AC (0<->3, 1<->2, 4<->5, 6<->7). The queue is the AC's, or the aggregation queue of the
 * station's session for the TID (MQTX_PKT_F_AMPDU set). Sets pkt->priority to the UP and
 * pkt->tstamp to now. Returns the queue or MQTX_TXQ_DROP. Fast path: no lock; inside the transmit path's RCU section.
 */
MQTX_API uint16_t mqtx_wme_select_queue(struct mqtx_dev *dev, struct mqtx_pkt *pkt);

/**
 * mqtx_wme_dev_down() - the driver's device went down (from its ops->stop, config lock held,
 * queues already purged): every block-ack session ends and every aggregation queue returns to
 * the pool. No-op without WME.
 */
MQTX_API void mqtx_wme_dev_down(struct mqtx_dev *dev);

/** Why a queue is stopped (mac80211's queue stop reasons): it runs when none is left. */
enum mqtx_wme_stop_reason {
	MQTX_WME_STOP_DRIVER = 0, /* the driver's ring is full */
	MQTX_WME_STOP_AGG = 1,	  /* an aggregation queue not (yet) in an operational session */
	MQTX_WME_STOP_MOVE = 2,	  /* an AC queue holds a TID's newer frames while its older ones
				   * come back from an aggregation queue */
};

/**
 * mqtx_wme_stop_queue() / mqtx_wme_wake_queue() - set or clear @reason on @queue of @dev and
 * stop the TX queue, or wake it when no reason is left (ieee80211_stop_queue_by_reason).
 * A Wi-Fi driver uses these instead of mqtx_txq_stop()/mqtx_txq_wake(), so that its ring
 * completions never wake an aggregation queue WME holds stopped. Any thread, with driver locks
 * held (the reason lock is a leaf). Out of range or without WME: no-op.
 */
MQTX_API void mqtx_wme_stop_queue(struct mqtx_dev *dev, uint16_t queue,
				  enum mqtx_wme_stop_reason reason);
MQTX_API void mqtx_wme_wake_queue(struct mqtx_dev *dev, uint16_t queue,
				  enum mqtx_wme_stop_reason reason);

/* ---- settings (dev add/set) ---- */

/*
 * Every setter: config lock, validate, publish; the fast path sees the old or the new value.
 * Errors common to all: -EOPNOTSUPP when @dev has no WME ("device X is not a Wi-Fi device").
 */

/**
 * mqtx_wme_set_acm() - the ACs whose admission control is mandatory, as (1 << AC) bits; kept
 * as mac80211 keeps wmm_acm, a bit per UP (VO: UP 6,7; VI: 4,5; BE: 0,3; BK: 1,2).
 * Return: 0; -EOPNOTSUPP; -EINVAL (bits beyond the 4 ACs).
 */
MQTX_API int mqtx_wme_set_acm(struct mqtx_dev *dev, uint8_t ac_mask, struct mqtx_extack *ack);

/** mqtx_wme_set_noadmit() - the policy for frames no AC admits. Return: 0; -EOPNOTSUPP;
 *  -EINVAL (not an enum mqtx_wme_noadmit). */
MQTX_API int mqtx_wme_set_noadmit(struct mqtx_dev *dev, enum mqtx_wme_noadmit policy,
				  struct mqtx_extack *ack);

/**
 * mqtx_wme_set_role() - the role of @dev (enum mqtx_wme_role) and, for MQTX_WME_ROLE_STA, the
 * address of its AP (@bssid; ignored otherwise, may be NULL). The EDCA defaults of a driver
 * that follows the role (sim-wifi) change at its next open.
 * Return: 0; -EOPNOTSUPP; -EINVAL (unknown role, or role sta without a unicast @bssid).
 */
MQTX_API int mqtx_wme_set_role(struct mqtx_dev *dev, enum mqtx_wme_role role,
			       const uint8_t bssid[6], struct mqtx_extack *ack);

/**
 * mqtx_wme_get_role() - the role of @dev, for drivers (no lock: any context).
 * Return: the role; MQTX_WME_ROLE_DEFAULT without WME.
 */
MQTX_API enum mqtx_wme_role mqtx_wme_get_role(const struct mqtx_dev *dev);

/** mqtx_wme_role_name() - "default", "sta", "ap"; "?" out of range. */
MQTX_API const char *mqtx_wme_role_name(enum mqtx_wme_role role);

/** mqtx_wme_set_legacy() - classify with the 2008 classifier (true) or current Linux's.
 *  Return: 0; -EOPNOTSUPP. */
MQTX_API int mqtx_wme_set_legacy(struct mqtx_dev *dev, bool legacy, struct mqtx_extack *ack);

/**
 * mqtx_wme_set_qos_map() - the QoS Map the AP gave (@map copied; NULL: none). Freed after a
 * grace period when replaced. Return: 0; -EOPNOTSUPP; -EINVAL (mqtx_wme_qos_map_check());
 * -ENOMEM.
 */
MQTX_API int mqtx_wme_set_qos_map(struct mqtx_dev *dev, const struct mqtx_wme_qos_map *map,
				  struct mqtx_extack *ack);

/**
 * mqtx_wme_set_tspec() - an admitted traffic stream for @ac with user priority @up and
 * @admitted_time (in 32 us units, as the ADDTS response carries it; 0 removes it): frames of
 * that AC and UP keep their AC although it requires admission (ifmgd->tx_tspec).
 * Return: 0; -EOPNOTSUPP; -EINVAL (@ac or @up out of range, or @up not of @ac).
 */
MQTX_API int mqtx_wme_set_tspec(struct mqtx_dev *dev, enum mqtx_wme_ac ac, unsigned up,
				uint32_t admitted_time, struct mqtx_extack *ack);

/**
 * struct mqtx_wme_info - a device's WME settings.
 * @acm: (1 << AC) bits; @acm_up: the same as mac80211's per-UP bits; @noadmit, @legacy;
 * @has_qos_map and @qos_map; @tspec_up, @tspec_time: per AC, the admitted stream (time 0:
 * none); @num_agg_queues, @agg_in_use: the pool; @stations: how many; @role and @bssid.
 */
struct mqtx_wme_info {
	uint8_t acm, acm_up;
	enum mqtx_wme_noadmit noadmit;
	bool legacy, has_qos_map;
	struct mqtx_wme_qos_map qos_map;
	uint8_t tspec_up[MQTX_WME_NUM_AC];
	uint32_t tspec_time[MQTX_WME_NUM_AC];
	uint32_t num_agg_queues, agg_in_use, stations;
	enum mqtx_wme_role role;
	uint8_t bssid[6];
};

/** mqtx_wme_get_info() - the settings of @dev. Return: 0; -EOPNOTSUPP. */
MQTX_API int mqtx_wme_get_info(struct mqtx_dev *dev, struct mqtx_wme_info *info);

/* ---- stations ---- */

/**
 * mqtx_wme_sta_add() - a station (peer) with MAC @addr, QoS-capable (WMM) or not.
 * Return: 0; -EOPNOTSUPP; -EINVAL (a group address, or all zeroes); -EEXIST; -ENOSPC (the
 * device's max_stations); -ENOMEM. Each with a message naming the address.
 */
MQTX_API int mqtx_wme_sta_add(struct mqtx_dev *dev, const uint8_t addr[6], bool qos,
			      struct mqtx_extack *ack);

/**
 * mqtx_wme_sta_del() - remove a station: its block-ack sessions end first (their frames back
 * on the AC queues, in order), then it is freed after a grace period.
 * Return: 0; -EOPNOTSUPP; -ENOENT (unknown station).
 */
MQTX_API int mqtx_wme_sta_del(struct mqtx_dev *dev, const uint8_t addr[6], struct mqtx_extack *ack);

/**
 * mqtx_wme_sta_set_reserved_tid() - the station's reserved TID (0..7; -1: none): frames of
 * that UP use the other UP of its AC (mac80211's ieee80211_reserve_tid()). A block-ack
 * session of that TID ends first (its frames back on the AC queue, in order); setting the TID
 * already reserved does nothing.
 * Return: 0; -EOPNOTSUPP; -ENOENT; -EINVAL (@tid outside -1..7); -EALREADY (another TID is
 * reserved: set none first).
 */
MQTX_API int mqtx_wme_sta_set_reserved_tid(struct mqtx_dev *dev, const uint8_t addr[6], int tid,
					   struct mqtx_extack *ack);

/** enum mqtx_wme_ba_state - a TID's block-ack session. */
enum mqtx_wme_ba_state {
	MQTX_WME_BA_IDLE = 0,	  /* none: frames use the AC queue */
	MQTX_WME_BA_STARTING = 1, /* ADDBA sent: frames wait, stopped, on the aggregation queue */
	MQTX_WME_BA_OPERATIONAL = 2, /* frames go out of the aggregation queue in A-MPDUs */
};

/** mqtx_wme_ba_state_name() - "idle", "starting", "operational"; "?" out of range. */
MQTX_API const char *mqtx_wme_ba_state_name(enum mqtx_wme_ba_state s);

/**
 * struct mqtx_wme_sta_info - one station. @addr, @qos, @reserved_tid (-1: none); per TID
 * @ba_state and @ba_queue (MQTX_WME_QUEUE_NONE when idle); per TID 0..7 @addba_requests,
 * the ADDBA requests sent since the last one accepted.
 */
struct mqtx_wme_sta_info {
	uint8_t addr[6];
	bool qos;
	int8_t reserved_tid;
	uint8_t ba_state[MQTX_WME_NUM_TIDS];
	uint16_t ba_queue[MQTX_WME_NUM_TIDS];
	uint8_t addba_requests[MQTX_WME_NUM_UP];
};

/** mqtx_wme_sta_get() - station @addr. Return: 0; -EOPNOTSUPP; -ENOENT. */
MQTX_API int mqtx_wme_sta_get(struct mqtx_dev *dev, const uint8_t addr[6],
			      struct mqtx_wme_sta_info *info);

/** Receives one station of a walk. */
typedef void (*mqtx_wme_sta_fn)(const struct mqtx_wme_sta_info *info, void *arg);

/** mqtx_wme_sta_walk() - every station, in no particular order, under the WME lock (@fn must
 *  not call WME). Return: how many; -EOPNOTSUPP. */
MQTX_API int mqtx_wme_sta_walk(struct mqtx_dev *dev, mqtx_wme_sta_fn fn, void *arg);

/* ---- block-ack sessions and aggregation queues ---- */

/**
 * mqtx_wme_ba_start() - start a block-ack session with station @addr for @tid (0..7). An
 * aggregation queue is taken from the pool and stopped; then, with every TX queue held still
 * (mqtx_dev_lock_all_queues(), after a grace period so that no frame selected before is still
 * on its way), the frames of the station and TID that wait on the AC queue move to it, in
 * order, ahead of later ones; from then on the TID's frames go there (MQTX_PKT_F_AMPDU). The
 * driver is asked to send the ADDBA request; the queue starts when it reports the session
 * accepted (mqtx_wme_ba_done()), and a refusal or timeout ends it as mqtx_wme_ba_stop() does.
 * As ieee80211_start_tx_ba_session() (net/mac80211/agg-tx.c): TIDs 8..15 (TSPEC streams) and
 * the station's reserved TID are refused; after more than 3 ADDBA requests for the TID since
 * the last accepted one, a new one must wait until 15 s after the last, and after more than
 * 15 the TID is refused until a session is accepted or the station is added again (-EBUSY).
 * Return: 0; -EOPNOTSUPP (no WME, no ampdu_action, or a qdisc of the AC or aggregation queue
 * without the extract hook); -EINVAL (@tid outside 0..7, the reserved TID, station not
 * QoS-capable); -ENOENT (unknown station); -EALREADY (a session for that TID is starting or
 * running); -EBUSY (too many ADDBA requests); -ENETDOWN (device down); -ENOSPC (every aggregation queue is in use: nothing changes, the TID keeps
 * the AC queue); the driver's error. Each with a message in @ack naming the input.
 */
MQTX_API int mqtx_wme_ba_start(struct mqtx_dev *dev, const uint8_t addr[6], unsigned tid,
			       struct mqtx_extack *ack);

/**
 * mqtx_wme_ba_stop() - end the session of @addr and @tid: the TID's frames go to the AC queue
 * again, the frames waiting on the aggregation queue move there in order, ahead of the TID's
 * newer frames, the driver is told (TX_STOP) and the queue returns to the pool, stopped.
 * Return: 0; -EOPNOTSUPP; -EINVAL (@tid out of range); -ENOENT (unknown station, or no
 * session for that TID).
 */
MQTX_API int mqtx_wme_ba_stop(struct mqtx_dev *dev, const uint8_t addr[6], unsigned tid,
			      struct mqtx_extack *ack);

/** enum mqtx_wme_ba_status - the answer to an ADDBA request. */
enum mqtx_wme_ba_status {
	MQTX_WME_BA_ACCEPTED = 0,
	MQTX_WME_BA_REFUSED = 1, /* the peer declined */
	MQTX_WME_BA_TIMEOUT = 2, /* no answer in time (mac80211: ADDBA_RESP_INTERVAL, 1 s) */
};

/**
 * mqtx_wme_ba_done() - the driver reports the outcome of a TX_START: accepted, the aggregation
 * queue starts; otherwise the session ends as by mqtx_wme_ba_stop() (without a TX_STOP call).
 * Takes the config lock (trying, and giving up once the device is going down, so that a close
 * waiting for the caller's thread or timer cannot deadlock), then holds every queue as
 * mqtx_wme_ba_start() does: call it with no driver or queue lock held, not from xmit_burst or
 * a qdisc op (a timer callback or the driver's own thread is right). @s is the session as
 * TX_START gave it. Return: 0; -EOPNOTSUPP; -ENOENT (session @s is no longer starting: it was
 * stopped, or stopped and started again under a new id; a stale answer, ignored); -ENETDOWN
 * (the device went down).
 */
MQTX_API int mqtx_wme_ba_done(struct mqtx_dev *dev, const struct mqtx_wme_ba_session *s,
			      enum mqtx_wme_ba_status status);

/* ---- what-if classification (`mqtx wme classify`) ---- */

/* struct mqtx_wme_query.flags */
#define MQTX_WME_Q_PRIORITY  0x001u /* @priority is set */
#define MQTX_WME_Q_VLAN	     0x002u /* a VLAN tag with PCP @vlan_pcp */
#define MQTX_WME_Q_DSCP	     0x004u /* an IP packet with DSCP @dscp (IPv4 unless Q_IPV6) */
#define MQTX_WME_Q_IPV6	     0x008u
#define MQTX_WME_Q_EAPOL     0x010u /* an EAPOL frame */
#define MQTX_WME_Q_MGMT	     0x020u /* a management frame */
#define MQTX_WME_Q_MULTICAST 0x040u /* to a group address: no station */
#define MQTX_WME_Q_NONQOS    0x080u /* to a peer that is not QoS-capable */
#define MQTX_WME_Q_STA	     0x100u /* to station @sta of the device (its state counts) */

/**
 * struct mqtx_wme_query - a frame to classify, described. @flags: MQTX_WME_Q_*; at most one of
 * EAPOL, MGMT, MULTICAST, NONQOS, STA. Without any of them the peer is a QoS-capable station
 * with no session and no reserved TID. @priority: the packet's priority; @vlan_pcp 0..7;
 * @dscp 0..63; @sta: the station's MAC.
 */
struct mqtx_wme_query {
	uint32_t flags;
	uint32_t priority;
	uint8_t vlan_pcp, dscp;
	uint8_t sta[6];
};

/**
 * struct mqtx_wme_verdict - where the frame goes. @drop: no AC admits it (then @ac and
 * @queue are those of its first AC); else @up (0..7), @ac, @queue (the AC's or an aggregation
 * queue), @ampdu (aggregation queue), @downgraded (ACM moved it to a lower AC).
 */
struct mqtx_wme_verdict {
	bool drop, ampdu, downgraded;
	uint8_t up;
	enum mqtx_wme_ac ac;
	uint16_t queue;
};

/**
 * mqtx_wme_classify() - build the frame @q describes and run the selection of
 * mqtx_wme_select_queue() on it, with the settings and stations of @dev (NULL: defaults: no
 * ACM, no QoS Map, current classifier, 4 AC queues). Changes nothing, counts nothing.
 * Return: 0 and *@v; -EINVAL (a value out of range, two peer kinds, Q_STA without @dev);
 * -EOPNOTSUPP (@dev has no WME); -ENOENT (unknown station). Messages name the input.
 */
MQTX_API int mqtx_wme_classify(struct mqtx_dev *dev, const struct mqtx_wme_query *q,
			       struct mqtx_wme_verdict *v, struct mqtx_extack *ack);

/**
 * mqtx_wme_verdict_format() - the one line `mqtx wme classify` prints: "up U ac AC queue Q"
 * (" ampdu" appended for an aggregation queue), or "drop no-admissible-ac".
 * Returns the length snprintf gave.
 */
MQTX_API int mqtx_wme_verdict_format(const struct mqtx_wme_verdict *v, char *buf, size_t len);

/* ---- counters ---- */

/**
 * struct mqtx_wme_stats - what WME counted on a device (frames are counted where selected).
 * @selected: per AC, frames selected to it (aggregation queues included);
 * @downgraded: per AC, frames ACM moved away from that AC (counted at the AC they left);
 * @noadmit: per AC, frames dropped because no AC admitted them (at their first AC);
 * @ampdu: per AC, frames selected to an aggregation queue;
 * @mgmt, @nonqos, @eapol: frames of those kinds;
 * @ba_requested, @ba_accepted, @ba_refused, @ba_timeouts, @ba_stopped: sessions;
 * @ba_pool_full: sessions refused because no aggregation queue was free;
 * @moved_to_agg, @moved_to_ac: frames moved when sessions started and ended;
 * @ba_busy: starts refused for too many ADDBA requests (-EBUSY).
 */
struct mqtx_wme_stats {
	uint64_t selected[MQTX_WME_NUM_AC], downgraded[MQTX_WME_NUM_AC];
	uint64_t noadmit[MQTX_WME_NUM_AC], ampdu[MQTX_WME_NUM_AC];
	uint64_t mgmt, nonqos, eapol;
	uint64_t ba_requested, ba_accepted, ba_refused, ba_timeouts, ba_stopped, ba_pool_full;
	uint64_t moved_to_agg, moved_to_ac;
	uint64_t ba_busy;
};

/** mqtx_wme_get_stats() - a snapshot of the counters of @dev. Return: 0; -EOPNOTSUPP. */
MQTX_API int mqtx_wme_get_stats(struct mqtx_dev *dev, struct mqtx_wme_stats *st);

#ifdef __cplusplus
}
#endif
#endif

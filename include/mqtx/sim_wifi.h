/* SPDX-License-Identifier: MIT */
/* The sim-wifi driver: a Wi-Fi NIC model with one hardware queue per access category plus
 * aggregation queues, sharing one medium by EDCA contention. */
#ifndef MQTX_SIM_WIFI_H
#define MQTX_SIM_WIFI_H

#include <mqtx/wme.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The model. Every TX queue is a hardware queue with a ring of descriptors (flow control:
 * stopped below stop_thresh free descriptors, woken at wake_thresh, through
 * mqtx_wme_stop_queue()/mqtx_wme_wake_queue() so that WME's own stop reasons hold). Frames the
 * driver takes wait for the medium in one FIFO per AC (an aggregation queue belongs to the AC
 * of its session), so a TID's frames leave in the order the driver took them.
 *
 * The medium is EDCA (IEEE 802.11-2016 10.22.2) for one transmitter: an AC with frames waits
 * for the medium to be idle for AIFS = SIFS + AIFSN x slot, then for its backoff (a draw in
 * 0..CW, frozen while another AC holds the medium); the earliest wins a TXOP; ACs that would
 * start in the same slot collide internally: the higher priority wins, the others double CW
 * (at most CWmax) and draw again. A TXOP sends one PPDU, or with a TXOP limit as many as fit,
 * each followed by SIFS and an ACK (a BlockAck after an A-MPDU). A frame past its expiry
 * (pkt->expires, which the wme qdisc sets from its AC's deadline) when its PPDU would start is
 * not sent: the deadline bounds the time from enqueue to the start of transmission. Frames of an aggregation queue
 * (MQTX_PKT_F_AMPDU) travel as A-MPDUs of up to ampdu_max frames. Frames are delivered when
 * their TXOP ends. PHY: OFDM (802.11a/g), 20 us preamble and header, 4 us symbols of
 * rate x 4 us bits (16 service + 6 tail bits per PPDU); an MPDU is the Ethernet frame + 24
 * bytes (QoS data header, LLC/SNAP and FCS in place of the Ethernet header), an A-MPDU
 * subframe adds a 4-byte delimiter and pads to 4 bytes; ACK 28 us and BlockAck 32 us (24
 * Mbit/s control rate). Times are whole ns of the device's clock: on a virtual clock the
 * medium runs exactly inside mqtx_clock_advance(); on the real clock a thread per device runs
 * it, at most every coalesce_ns.
 */

#define MQTX_SIM_WIFI_SLOT_NS		 9000
#define MQTX_SIM_WIFI_SIFS_NS		 16000
#define MQTX_SIM_WIFI_PREAMBLE_NS	 20000
#define MQTX_SIM_WIFI_SYMBOL_NS		 4000
#define MQTX_SIM_WIFI_ACK_NS		 28000
#define MQTX_SIM_WIFI_BA_NS		 32000
#define MQTX_SIM_WIFI_MAC_OVERHEAD	 24
#define MQTX_SIM_WIFI_RATE_DEFAULT	 54000000ull
#define MQTX_SIM_WIFI_RING_DEFAULT	 256
#define MQTX_SIM_WIFI_RING_MAX		 65536
#define MQTX_SIM_WIFI_AMPDU_DEFAULT	 32
#define MQTX_SIM_WIFI_AMPDU_MAX		 64
#define MQTX_SIM_WIFI_AGG_DEFAULT	 4
#define MQTX_SIM_WIFI_BA_DELAY_DEFAULT	 100000ull     /* ADDBA request to response */
#define MQTX_SIM_WIFI_BA_TIMEOUT_DEFAULT 1000000000ull /* mac80211 ADDBA_RESP_INTERVAL */

/**
 * struct mqtx_sim_wifi_edca - one AC's EDCA parameters. @aifsn 1..15 (a non-AP station, any
 * role but ap, uses 2 for 1, as mac80211 does, and logs a warning at open), @cwmin <= @cwmax
 * (each 2^n - 1, n 0..15), @txop_ns the TXOP limit (0: one PPDU per TXOP). All zero: the
 * default of the AC for the device's WME role (mqtx_sim_wifi_edca_default()).
 */
struct mqtx_sim_wifi_edca {
	uint32_t aifsn, cwmin, cwmax;
	uint64_t txop_ns;
};

/**
 * mqtx_sim_wifi_edca_default() - the EDCA parameters of @ac by default for @role into *@e: a
 * non-AP station's (roles default and sta; dot11EDCATable, OFDM PHY: VO 2/3/7/1504 us, VI
 * 2/7/15/3008 us, BE 3/15/1023/0, BK 7/15/1023/0) or an AP's own (role ap; hostapd's defaults:
 * VO 1/3/7/1500 us, VI 1/7/15/3000 us, BE 3/15/63/0, BK 7/15/1023/0), as aifsn/cwmin/cwmax/txop.
 * Return: 0; -EINVAL (@ac or @role out of range).
 */
MQTX_API int mqtx_sim_wifi_edca_default(enum mqtx_wme_role role, enum mqtx_wme_ac ac,
					struct mqtx_sim_wifi_edca *e);

/** How the simulated peer answers an ADDBA request. */
enum mqtx_sim_wifi_ba_mode {
	MQTX_SIM_WIFI_BA_ACCEPT = 0, /* accepted after ba_delay_ns */
	MQTX_SIM_WIFI_BA_REFUSE = 1, /* declined after ba_delay_ns */
	MQTX_SIM_WIFI_BA_SILENT = 2, /* no answer: times out after ba_timeout_ns */
};

/**
 * Called for every frame the medium delivered, in delivery order, before it is freed; @ac is
 * the AC that sent it, @done_ns the end of its TXOP. Runs in the medium's thread or timer, in
 * a completion section; must not transmit on the same device.
 */
typedef void (*mqtx_sim_wifi_done_fn)(struct mqtx_dev *dev, const struct mqtx_pkt *pkt,
				      enum mqtx_wme_ac ac, uint64_t done_ns, void *arg);

/**
 * struct mqtx_sim_wifi_cfg - the model of one sim-wifi device (0 everywhere: defaults).
 * @rate_bps: PHY data rate, 1 Mbit/s..10 Gbit/s (0: 54 Mbit/s).
 * @ring: descriptors per hardware queue, 1..MQTX_SIM_WIFI_RING_MAX (0: 256).
 * @stop_thresh, @wake_thresh: as struct mqtx_sim_cfg (0: min(64, ring / 4); ring / 4).
 * @edca: per AC (see struct mqtx_sim_wifi_edca).
 * @ampdu_max: frames per A-MPDU, 1..64 (0: 32).
 * @ba_mode, @ba_delay_ns (0: 100 us), @ba_timeout_ns (0: 1 s): the peer's answers.
 * @seed: of the backoff draws (0: 1); the same seed gives the same run in virtual time.
 * @coalesce_ns: on the real clock, the least time between two medium rounds (0: 20 us).
 * @done, @done_arg: optional per-frame delivery callback.
 */
struct mqtx_sim_wifi_cfg {
	uint64_t rate_bps;
	uint32_t ring, stop_thresh, wake_thresh;
	struct mqtx_sim_wifi_edca edca[MQTX_WME_NUM_AC];
	uint32_t ampdu_max;
	enum mqtx_sim_wifi_ba_mode ba_mode;
	uint64_t ba_delay_ns, ba_timeout_ns;
	uint64_t seed;
	uint64_t coalesce_ns;
	mqtx_sim_wifi_done_fn done;
	void *done_arg;
};

/** The sim-wifi driver (create devices with mqtx_sim_wifi_dev_create()). */
MQTX_API extern const struct mqtx_dev_ops mqtx_sim_wifi_ops;

/**
 * mqtx_sim_wifi_dev_create() - a sim-wifi device with WME: @base as for mqtx_dev_create()
 * (its ops, priv_size, num_txq and real_num_txq are ignored: the device gets 4 +
 * @wme->num_agg_queues queues), the model @sw (NULL: defaults), WME settings @wme (NULL:
 * defaults with MQTX_SIM_WIFI_AGG_DEFAULT aggregation queues; a zero num_agg_queues means
 * none). It starts down, with the wme qdisc as its default under mq.
 * Return: 0 and *@out; -EINVAL (a value out of range, message in @ack); the errors of
 * mqtx_dev_create() and mqtx_wme_attach().
 */
MQTX_API int mqtx_sim_wifi_dev_create(const struct mqtx_dev_cfg *base,
				      const struct mqtx_sim_wifi_cfg *sw,
				      const struct mqtx_wme_cfg *wme, struct mqtx_dev **out,
				      struct mqtx_extack *ack);

/**
 * mqtx_sim_wifi_configure() - a new model; it applies from the next open. Validated first.
 * Return: 0; -EINVAL (not a sim-wifi device, a value out of range; message in @ack); -EBUSY
 * while the device is up.
 */
MQTX_API int mqtx_sim_wifi_configure(struct mqtx_dev *dev, const struct mqtx_sim_wifi_cfg *sw,
				     struct mqtx_extack *ack);

/**
 * mqtx_sim_wifi_get_cfg() - the model with every default filled in.
 * Return: 0; -EINVAL (not a sim-wifi device).
 */
MQTX_API int mqtx_sim_wifi_get_cfg(struct mqtx_dev *dev, struct mqtx_sim_wifi_cfg *sw);

/**
 * mqtx_sim_wifi_set_ba() - how the peer answers ADDBA requests from now on (any time).
 * Return: 0; -EINVAL (not a sim-wifi device, unknown mode).
 */
MQTX_API int mqtx_sim_wifi_set_ba(struct mqtx_dev *dev, enum mqtx_sim_wifi_ba_mode mode,
				  uint64_t delay_ns);

/**
 * struct mqtx_sim_wifi_ac_stats - one AC of the medium (kept across close/open).
 * @frames, @bytes: delivered. @txops: TXOPs won; @airtime_ns: their medium time, responses
 * and SIFS included; @ampdus, @ampdu_frames: A-MPDUs sent and the frames in them.
 * @lat_sum_ns, @lat_max_ns: delay of delivered frames from their selection (pkt->tstamp; the
 * driver's arrival when unset) to the end of their TXOP. @collisions: internal collisions
 * lost. @queued: frames taken and waiting for the medium now. @expired: frames taken that
 * were past their expiry (pkt->expires, the wme qdisc's deadline) when their turn for the air
 * came, and so never sent (the stack counted them as sent: delivered + expired + queued = what
 * the driver took). @expired_requeued: frames that came to the driver already past it (after a
 * requeue), refused before the ring and counted as drops of their queue (MQTX_DROP_EXPIRED).
 */
struct mqtx_sim_wifi_ac_stats {
	uint64_t frames, bytes, txops, airtime_ns, ampdus, ampdu_frames;
	uint64_t lat_sum_ns, lat_max_ns, collisions, queued;
	uint64_t expired, expired_requeued;
};

/** mqtx_sim_wifi_ac_stats() - the counters of @ac. Return: 0; -EINVAL. */
MQTX_API int mqtx_sim_wifi_ac_stats(struct mqtx_dev *dev, enum mqtx_wme_ac ac,
				    struct mqtx_sim_wifi_ac_stats *st);

/**
 * struct mqtx_sim_wifi_stats - the device. @busy_ns: medium time of all TXOPs; @flushed:
 * frames dropped from the rings when the device went down; @refused: frames refused for want
 * of descriptors (requeued by the stack); @ba_requests and @ba_accepted, @ba_refused,
 * @ba_timeouts: ADDBA requests and how they ended.
 */
struct mqtx_sim_wifi_stats {
	uint64_t busy_ns, flushed, refused;
	uint64_t ba_requests, ba_accepted, ba_refused, ba_timeouts;
};

/** mqtx_sim_wifi_stats() - the device counters. Return: 0; -EINVAL. */
MQTX_API int mqtx_sim_wifi_stats(struct mqtx_dev *dev, struct mqtx_sim_wifi_stats *st);

/**
 * mqtx_sim_wifi_ppdu_ns() - the air time of a PPDU of @bytes bytes at @rate_bps
 * (preamble + symbols), the model's arithmetic for tests and tools.
 */
MQTX_API uint64_t mqtx_sim_wifi_ppdu_ns(uint64_t rate_bps, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/* sim-wifi internals shared by the driver (sim_wifi.c) and its medium (sim_wifi_air.c). */
#ifndef MQTX_DRIVERS_SIM_WIFI_INT_H
#define MQTX_DRIVERS_SIM_WIFI_INT_H

#include <pthread.h>
#include <string.h>
#include <stdatomic.h>

#include <mqtx/sim_wifi.h>

#include "drivers/wire_clock.h"

#define SWF_MAX_Q (MQTX_WME_NUM_AC + MQTX_WME_MAX_AGG_QUEUES)

/* One AC of the medium: its frames in the order the driver took them, and its EDCA state. */
struct swf_ac {
	struct mqtx_pkt_list fifo;
	int32_t backoff; /* slots still to count down; -1: none drawn */
	uint32_t cw;
	uint64_t ready; /* when its oldest frame arrived */
	struct mqtx_sim_wifi_ac_stats st;
};

/* An ADDBA request waiting for its answer (one per aggregation queue). */
struct swf_ba {
	bool pending;
	struct mqtx_wme_ba_session s;
	uint64_t due;
	enum mqtx_wme_ba_status status;
};

struct swf_priv {
	struct mqtx_sim_wifi_cfg cfg; /* as configured; resolved into run at open */
	struct mqtx_sim_wifi_cfg run;
	struct mqtx_clock *clock;
	atomic_bool up;
	uint32_t nq;

	/* The medium lock: rings, ACs, the TXOP in the air, answers due (driver lock). */
	pthread_mutex_t lock;
	uint32_t count[SWF_MAX_Q]; /* descriptors in use per hardware queue */
	bool stopped[SWF_MAX_Q];   /* this driver stopped it (ring full) */
	uint8_t q_ac[SWF_MAX_Q];   /* the AC of each hardware queue */
	struct swf_ac ac[MQTX_WME_NUM_AC];
	uint64_t idle_since;
	bool busy;
	uint64_t txop_end;
	uint8_t air_ac;
	struct mqtx_pkt_list air;
	uint32_t comp_pkts[SWF_MAX_Q]; /* delivered since the last BQL report */
	uint32_t comp_bytes[SWF_MAX_Q];
	struct swf_ba ba[SWF_MAX_Q];
	enum mqtx_sim_wifi_ba_mode ba_mode;
	uint64_t ba_delay;
	uint64_t rng;
	struct mqtx_sim_wifi_stats st;
	struct wire_clock wire; /* when the medium runs next */
};

/* sim_wifi_air.c, medium lock held. */
/* Resolve the EDCA defaults of @c in place, those of @role. */
void mqtx__swf_edca_defaults(struct mqtx_sim_wifi_cfg *c, enum mqtx_wme_role role);
/* Reset the medium (open). */
void mqtx__swf_air_reset(struct swf_priv *s);
/* Run the medium up to @now: TXOPs that end by then deliver their frames onto @done, and
 * frames past their expiry when their turn for the air came go onto @expired (both with their
 * descriptors freed, queues woken). Returns when the medium needs to run next. */
uint64_t mqtx__swf_air_run(struct swf_priv *s, struct mqtx_dev *dev, uint64_t now,
			   struct mqtx_pkt_list *done, struct mqtx_pkt_list *expired);
/* When the medium needs to run next, without running it. */
uint64_t mqtx__swf_air_next(struct swf_priv *s);

/* When the driver took @p (kept in its control block, which the driver owns until delivery):
 * a TXOP takes only frames that were there when it started. */
static inline void mqtx__swf_set_arrival(struct mqtx_pkt *p, uint64_t now)
{
	memcpy(p->cb, &now, sizeof(now));
}

static inline uint64_t mqtx__swf_arrival(const struct mqtx_pkt *p)
{
	uint64_t at;

	memcpy(&at, p->cb, sizeof(at));
	return at;
}

#endif

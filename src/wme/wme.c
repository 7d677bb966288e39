// SPDX-License-Identifier: MIT
/* WME of a device: attach and detach, settings (ACM, policy, QoS Map, TSPEC), queue stop
 * reasons, counters. */
#include <errno.h>
#include <string.h>

#include "wme/wme_int.h"
#include <mqtx/qdisc.h>

/* wmm_acm as mac80211 builds it from the WMM Parameter element: the UPs of each AC. */
static const uint8_t ac_up_bits[MQTX_WME_NUM_AC] = {
	[MQTX_WME_AC_VO] = 0xC0, /* UP 6, 7 */
	[MQTX_WME_AC_VI] = 0x30, /* UP 4, 5 */
	[MQTX_WME_AC_BE] = 0x09, /* UP 0, 3 */
	[MQTX_WME_AC_BK] = 0x06, /* UP 1, 2 */
};

struct mqtx_wme *mqtx__wme(const struct mqtx_dev *dev)
{
	struct mqtx_wme *w = dev ? mqtx_dev_ml_priv(dev) : NULL;

	return w && w->magic == WME_MAGIC ? w : NULL;
}

bool mqtx_wme_enabled(const struct mqtx_dev *dev)
{
	return mqtx__wme(dev) != NULL;
}

struct mqtx_wme *mqtx__wme_lock(struct mqtx_dev *dev, struct mqtx_extack *ack)
{
	struct mqtx_wme *w = mqtx__wme(dev);

	if (!w) {
		mqtx_extack_set(ack, "device %s is not a Wi-Fi device (no WME)",
				dev ? mqtx_dev_name(dev) : "(none)");
		return NULL;
	}
	mqtx_dev_config_lock(dev);
	pthread_mutex_lock(&w->lock);
	return w;
}

void mqtx__wme_unlock(struct mqtx_wme *w)
{
	pthread_mutex_unlock(&w->lock);
	mqtx_dev_config_unlock(w->dev);
}

static uint64_t mac_to_u64(const uint8_t a[6])
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 6; i++)
		v = v << 8 | a[i];
	return v;
}

static void u64_to_mac(uint64_t v, uint8_t a[6])
{
	for (int i = 5; i >= 0; i--, v >>= 8)
		a[i] = (uint8_t)v;
}

static int check_role(enum mqtx_wme_role role, const uint8_t *bssid, struct mqtx_extack *ack)
{
	static const uint8_t zero[6];
	char mac[18];

	if ((unsigned)role > MQTX_WME_ROLE_AP)
		return mqtx_extack_set(ack, "unknown role %d (default, sta or ap)", (int)role);
	if (role != MQTX_WME_ROLE_STA)
		return 0;
	if (!bssid || !memcmp(bssid, zero, 6))
		return mqtx_extack_set(ack, "role sta needs the AP's unicast address (bssid)");
	if (bssid[0] & 1)
		return mqtx_extack_set(ack,
				       "role sta needs the AP's unicast address (bssid), not %s",
				       mqtx_wme_mac_format(bssid, mac));
	return 0;
}

static int check_cfg(struct mqtx_dev *dev, const struct mqtx_wme_cfg *c, struct mqtx_extack *ack)
{
	uint32_t nq = mqtx_dev_num_txq(dev);

	if (c->num_agg_queues > MQTX_WME_MAX_AGG_QUEUES)
		return mqtx_extack_set(ack, "%u aggregation queues: at most %u", c->num_agg_queues,
				       MQTX_WME_MAX_AGG_QUEUES);
	if (nq != MQTX_WME_NUM_AC + c->num_agg_queues || mqtx_dev_real_num_txq(dev) != nq)
		return mqtx_extack_set(ack,
				       "%s has %u TX queues (%u in use); WME with %u "
				       "aggregation queues needs %u",
				       mqtx_dev_name(dev), nq, mqtx_dev_real_num_txq(dev),
				       c->num_agg_queues, MQTX_WME_NUM_AC + c->num_agg_queues);
	if (c->max_stations > MQTX_WME_MAX_STATIONS)
		return mqtx_extack_set(ack, "%u stations: at most %u", c->max_stations,
				       MQTX_WME_MAX_STATIONS);
	if (c->acm & ~0xfu)
		return mqtx_extack_set(ack, "ACM bits 0x%x beyond the 4 ACs", c->acm);
	if ((unsigned)c->noadmit > MQTX_WME_NOADMIT_DROP)
		return mqtx_extack_set(ack, "unknown noadmit policy %d", (int)c->noadmit);
	return check_role(c->role, c->bssid, ack);
}

static uint32_t acm_to_up(uint8_t ac_mask)
{
	uint32_t up = 0;

	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		if (ac_mask & (1u << ac))
			up |= ac_up_bits[ac];
	return up;
}

int mqtx_wme_attach(struct mqtx_dev *dev, const struct mqtx_wme_cfg *cfg,
		    const struct mqtx_wme_ops *ops, struct mqtx_extack *ack)
{
	uint32_t nq = mqtx_dev_num_txq(dev);
	struct mqtx_wme *w;
	int err;

	err = check_cfg(dev, cfg, ack);
	if (err)
		return err;
	if (mqtx_dev_ml_priv(dev)) {
		mqtx_extack_set(ack, "%s already has a mid-layer", mqtx_dev_name(dev));
		return -EBUSY;
	}
	w = mqtx__alloc_aligned(sizeof(*w), MQTX_CACHE_LINE);
	if (!w)
		goto nomem;
	memset(w, 0, sizeof(*w));
	w->reasons = mqtx__alloc(nq);
	if (!w->reasons)
		goto nomem;
	memset(w->reasons, 0, nq);
	for (uint32_t q = MQTX_WME_NUM_AC; q < nq; q++)
		w->reasons[q] = 1u << MQTX_WME_STOP_AGG;
	w->magic = WME_MAGIC;
	w->dev = dev;
	w->ops = ops;
	w->num_agg = cfg->num_agg_queues;
	w->max_sta = cfg->max_stations ? cfg->max_stations : WME_DEFAULT_STAS;
	atomic_init(&w->acm_up, acm_to_up(cfg->acm));
	atomic_init(&w->noadmit, cfg->noadmit);
	atomic_init(&w->legacy, cfg->legacy);
	atomic_init(&w->role, cfg->role);
	atomic_init(&w->bssid, cfg->role == MQTX_WME_ROLE_STA ? mac_to_u64(cfg->bssid) : 0);
	pthread_mutex_init(&w->lock, NULL);
	mqtx_spin_init(&w->reason_lock);
	/* One wme qdisc per queue (under mq): per-AC limits and deadlines, and the extract hook
	 * aggregation sessions need. */
	mqtx_dev_set_default_qdisc(dev, "wme");
	mqtx_dev_set_ml_priv(dev, w);
	return 0;
nomem:
	if (w)
		mqtx__free(w->reasons);
	mqtx__free(w);
	mqtx_extack_set(ack, "no memory for WME of %s", mqtx_dev_name(dev));
	return -ENOMEM;
}

/* ---- queue stop reasons ---- */

void mqtx_wme_stop_queue(struct mqtx_dev *dev, uint16_t queue, enum mqtx_wme_stop_reason reason)
{
	struct mqtx_wme *w = mqtx__wme(dev);

	if (!w || queue >= mqtx_dev_num_txq(dev))
		return;
	mqtx_spin_lock(&w->reason_lock);
	w->reasons[queue] |= (uint8_t)(1u << reason);
	mqtx_txq_stop(mqtx_dev_txq(dev, queue));
	mqtx_spin_unlock(&w->reason_lock);
}

void mqtx_wme_wake_queue(struct mqtx_dev *dev, uint16_t queue, enum mqtx_wme_stop_reason reason)
{
	struct mqtx_wme *w = mqtx__wme(dev);

	if (!w || queue >= mqtx_dev_num_txq(dev))
		return;
	mqtx_spin_lock(&w->reason_lock);
	w->reasons[queue] &= (uint8_t) ~(1u << reason);
	if (!w->reasons[queue])
		mqtx_txq_wake(mqtx_dev_txq(dev, queue));
	mqtx_spin_unlock(&w->reason_lock);
}

/* ---- settings ---- */

int mqtx_wme_set_acm(struct mqtx_dev *dev, uint8_t ac_mask, struct mqtx_extack *ack)
{
	struct mqtx_wme *w;

	if (ac_mask & ~0xfu)
		return mqtx_extack_set(ack, "ACM bits 0x%x beyond the 4 ACs", ac_mask);
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	atomic_store(&w->acm_up, acm_to_up(ac_mask));
	mqtx__wme_unlock(w);
	return 0;
}

int mqtx_wme_set_noadmit(struct mqtx_dev *dev, enum mqtx_wme_noadmit policy,
			 struct mqtx_extack *ack)
{
	struct mqtx_wme *w;

	if ((unsigned)policy > MQTX_WME_NOADMIT_DROP)
		return mqtx_extack_set(ack, "unknown noadmit policy %d (drop or bk)", (int)policy);
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	atomic_store(&w->noadmit, policy);
	mqtx__wme_unlock(w);
	return 0;
}

int mqtx_wme_set_role(struct mqtx_dev *dev, enum mqtx_wme_role role, const uint8_t bssid[6],
		      struct mqtx_extack *ack)
{
	struct mqtx_wme *w;

	if (check_role(role, bssid, ack))
		return -EINVAL;
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	atomic_store(&w->bssid, role == MQTX_WME_ROLE_STA ? mac_to_u64(bssid) : 0);
	atomic_store(&w->role, role);
	mqtx__wme_unlock(w);
	return 0;
}

enum mqtx_wme_role mqtx_wme_get_role(const struct mqtx_dev *dev)
{
	struct mqtx_wme *w = mqtx__wme(dev);

	return w ? (enum mqtx_wme_role)atomic_load(&w->role) : MQTX_WME_ROLE_DEFAULT;
}

const char *mqtx_wme_role_name(enum mqtx_wme_role role)
{
	static const char *const names[] = { "default", "sta", "ap" };

	return (unsigned)role <= MQTX_WME_ROLE_AP ? names[role] : "?";
}

void mqtx__wme_bssid(struct mqtx_wme *w, uint8_t addr[6])
{
	u64_to_mac(atomic_load_explicit(&w->bssid, memory_order_relaxed), addr);
}

int mqtx_wme_set_legacy(struct mqtx_dev *dev, bool legacy, struct mqtx_extack *ack)
{
	struct mqtx_wme *w = mqtx__wme_lock(dev, ack);

	if (!w)
		return -EOPNOTSUPP;
	atomic_store(&w->legacy, legacy);
	mqtx__wme_unlock(w);
	return 0;
}

int mqtx_wme_set_qos_map(struct mqtx_dev *dev, const struct mqtx_wme_qos_map *map,
			 struct mqtx_extack *ack)
{
	struct mqtx_wme_qos_map *m = NULL, *old;
	struct mqtx_wme *w;

	if (map) {
		if (mqtx_wme_qos_map_check(map, ack))
			return -EINVAL;
		m = mqtx__alloc(sizeof(*m));
		if (!m) {
			mqtx_extack_set(ack, "no memory for the QoS map");
			return -ENOMEM;
		}
		*m = *map;
	}
	w = mqtx__wme_lock(dev, ack);
	if (!w) {
		mqtx__free(m);
		return -EOPNOTSUPP;
	}
	old = atomic_exchange(&w->qos_map, m);
	mqtx__wme_unlock(w);
	mqtx__rcu_retire(old);
	return 0;
}

int mqtx_wme_set_tspec(struct mqtx_dev *dev, enum mqtx_wme_ac ac, unsigned up,
		       uint32_t admitted_time, struct mqtx_extack *ack)
{
	struct mqtx_wme *w;

	if ((unsigned)ac >= MQTX_WME_NUM_AC || up > 7 || mqtx_wme_up_to_ac(up) != ac)
		return mqtx_extack_set(ack, "TSPEC: UP %u is not of AC %s", up,
				       mqtx_wme_ac_name(ac));
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	w->tspec_time[ac] = admitted_time;
	atomic_store(&w->tspec[ac], admitted_time ? WME_TSPEC_ADMITTED | up : 0);
	mqtx__wme_unlock(w);
	return 0;
}

int mqtx_wme_get_info(struct mqtx_dev *dev, struct mqtx_wme_info *info)
{
	struct mqtx_wme *w = mqtx__wme_lock(dev, NULL);
	struct mqtx_wme_qos_map *m;

	if (!w)
		return -EOPNOTSUPP;
	memset(info, 0, sizeof(*info));
	info->acm_up = (uint8_t)atomic_load(&w->acm_up);
	for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
		uint32_t ts = atomic_load(&w->tspec[ac]);

		if ((info->acm_up & ac_up_bits[ac]) == ac_up_bits[ac])
			info->acm |= (uint8_t)(1u << ac);
		info->tspec_up[ac] = (uint8_t)(ts & 7);
		info->tspec_time[ac] = ts ? w->tspec_time[ac] : 0;
	}
	info->noadmit = (enum mqtx_wme_noadmit)atomic_load(&w->noadmit);
	info->legacy = atomic_load(&w->legacy);
	m = atomic_load(&w->qos_map);
	info->has_qos_map = m != NULL;
	if (m)
		info->qos_map = *m;
	info->num_agg_queues = w->num_agg;
	info->agg_in_use = (uint32_t)__builtin_popcountll(w->pool);
	info->stations = w->nsta;
	info->role = (enum mqtx_wme_role)atomic_load(&w->role);
	mqtx__wme_bssid(w, info->bssid);
	mqtx__wme_unlock(w);
	return 0;
}

int mqtx_wme_get_stats(struct mqtx_dev *dev, struct mqtx_wme_stats *st)
{
	struct mqtx_wme *w = mqtx__wme_lock(dev, NULL);

	if (!w)
		return -EOPNOTSUPP;
	memset(st, 0, sizeof(*st));
	for (int s = 0; s <= MQTX_MAX_TSLOTS; s++) {
		const struct wme_pcpu *c = &w->pcpu[s];

		for (unsigned ac = 0; ac < MQTX_WME_NUM_AC; ac++) {
			st->selected[ac] += MQTX_CNT_READ(c->selected[ac]);
			st->downgraded[ac] += MQTX_CNT_READ(c->downgraded[ac]);
			st->noadmit[ac] += MQTX_CNT_READ(c->noadmit[ac]);
			st->ampdu[ac] += MQTX_CNT_READ(c->ampdu[ac]);
		}
		st->mgmt += MQTX_CNT_READ(c->mgmt);
		st->nonqos += MQTX_CNT_READ(c->nonqos);
		st->eapol += MQTX_CNT_READ(c->eapol);
	}
	st->ba_requested = w->ba_requested;
	st->ba_accepted = w->ba_accepted;
	st->ba_refused = w->ba_refused;
	st->ba_timeouts = w->ba_timeouts;
	st->ba_stopped = w->ba_stopped;
	st->ba_pool_full = w->ba_pool_full;
	st->moved_to_agg = w->moved_to_agg;
	st->moved_to_ac = w->moved_to_ac;
	st->ba_busy = w->ba_busy;
	mqtx__wme_unlock(w);
	return 0;
}

// SPDX-License-Identifier: MIT
/* How WME things end: a station removed, the device down, WME detached. */
#include <errno.h>
#include <string.h>

#include "wme/wme_int.h"

int mqtx_wme_sta_del(struct mqtx_dev *dev, const uint8_t addr[6], struct mqtx_extack *ack)
{
	struct mqtx_wme *w = mqtx__wme_lock(dev, ack);
	struct wme_sta *s;
	char mac[18];

	if (!w)
		return -EOPNOTSUPP;
	s = mqtx__wme_sta_find(w, addr);
	if (!s) {
		mqtx__wme_unlock(w);
		mqtx_extack_set(ack, "unknown station %s on %s", mqtx__wme_mac(addr, mac),
				mqtx_dev_name(dev));
		return -ENOENT;
	}
	/* Its sessions end first, so that their frames are back on the AC queues. */
	for (unsigned t = 0; t < MQTX_WME_NUM_TIDS; t++) {
		if (s->ba_state[t] != MQTX_WME_BA_IDLE)
			mqtx__wme_ba_end(w, s, t);
	}
	mqtx__wme_sta_unlink(w, s);
	mqtx__wme_unlock(w);
	/* A selection may still be looking at it. */
	mqtx__rcu_synchronize();
	mqtx__free(s);
	return 0;
}

void mqtx_wme_detach(struct mqtx_dev *dev)
{
	struct mqtx_wme *w = mqtx__wme(dev);

	if (!w)
		return;
	mqtx_dev_set_ml_priv(dev, NULL);
	mqtx__wme_sta_free_all(w);
	mqtx__free(atomic_load(&w->qos_map));
	pthread_mutex_destroy(&w->lock);
	mqtx__free(w->reasons);
	w->magic = 0;
	mqtx__free(w);
}

void mqtx_wme_dev_down(struct mqtx_dev *dev)
{
	struct mqtx_wme *w = mqtx__wme(dev);

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	mqtx__wme_ba_reset_all(w);
	mqtx_spin_lock(&w->reason_lock);
	for (uint32_t q = 0; q < mqtx_dev_num_txq(dev); q++)
		w->reasons[q] = q < MQTX_WME_NUM_AC ? 0 : 1u << MQTX_WME_STOP_AGG;
	mqtx_spin_unlock(&w->reason_lock);
	pthread_mutex_unlock(&w->lock);
}

// SPDX-License-Identifier: MIT
/* The station table: a hash of RCU-protected chains, read by every selection without a lock
 * while stations are added and removed (mac80211's sta_info hash, net/mac80211/sta_info.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "wme/wme_int.h"
#include <mqtx/flow.h>

static unsigned bucket_of(const uint8_t addr[6])
{
	return mqtx_jhash(addr, 6, 0) & (WME_BUCKETS - 1);
}

const char *mqtx__wme_mac(const uint8_t a[6], char buf[18])
{
	return mqtx_wme_mac_format(a, buf);
}

/* Under RCU (or the WME lock). */
struct wme_sta *mqtx__wme_sta_find(struct mqtx_wme *w, const uint8_t addr[6])
{
	struct wme_sta *s =
		atomic_load_explicit(&w->buckets[bucket_of(addr)], memory_order_acquire);

	for (; s; s = atomic_load_explicit(&s->next, memory_order_acquire))
		if (!memcmp(s->addr, addr, 6))
			return s;
	return NULL;
}

int mqtx_wme_sta_add(struct mqtx_dev *dev, const uint8_t addr[6], bool qos, struct mqtx_extack *ack)
{
	static const uint8_t zero[6];
	struct mqtx_wme *w;
	struct wme_sta *s;
	char mac[18];
	unsigned b;
	int err = 0;

	if ((addr[0] & 1) || !memcmp(addr, zero, 6))
		return mqtx_extack_set(ack, "station %s: not a unicast address",
				       mqtx__wme_mac(addr, mac));
	w = mqtx__wme_lock(dev, ack);
	if (!w)
		return -EOPNOTSUPP;
	if (mqtx__wme_sta_find(w, addr)) {
		err = -EEXIST;
		mqtx_extack_set(ack, "station %s already exists on %s", mqtx__wme_mac(addr, mac),
				mqtx_dev_name(dev));
		goto out;
	}
	if (w->nsta >= w->max_sta) {
		err = -ENOSPC;
		mqtx_extack_set(ack, "%s has %u stations, its maximum", mqtx_dev_name(dev),
				w->nsta);
		goto out;
	}
	s = mqtx__alloc(sizeof(*s));
	if (!s) {
		err = -ENOMEM;
		mqtx_extack_set(ack, "no memory for station %s", mqtx__wme_mac(addr, mac));
		goto out;
	}
	memset(s, 0, sizeof(*s));
	memcpy(s->addr, addr, 6);
	s->qos = qos;
	atomic_init(&s->reserved_tid, -1);
	for (unsigned t = 0; t < MQTX_WME_NUM_TIDS; t++) {
		atomic_init(&s->tid_queue[t], MQTX_WME_QUEUE_NONE);
		s->ba_queue[t] = MQTX_WME_QUEUE_NONE;
	}
	b = bucket_of(addr);
	atomic_init(&s->next, atomic_load(&w->buckets[b]));
	/* Published whole: a reader finds it complete or not at all. */
	atomic_store_explicit(&w->buckets[b], s, memory_order_release);
	w->nsta++;
out:
	mqtx__wme_unlock(w);
	return err;
}

void mqtx__wme_sta_unlink(struct mqtx_wme *w, struct wme_sta *sta)
{
	struct wme_sta *_Atomic *pp = &w->buckets[bucket_of(sta->addr)];
	struct wme_sta *s;

	while ((s = atomic_load(pp)) && s != sta)
		pp = &s->next;
	if (!s)
		return;
	/* Readers already past it go on along its next pointer, which stays valid. */
	atomic_store_explicit(pp, atomic_load(&s->next), memory_order_release);
	w->nsta--;
}

static void fill_info(const struct wme_sta *s, struct mqtx_wme_sta_info *info)
{
	memcpy(info->addr, s->addr, 6);
	info->qos = s->qos;
	info->reserved_tid = atomic_load(&((struct wme_sta *)s)->reserved_tid);
	memcpy(info->ba_state, s->ba_state, sizeof(info->ba_state));
	memcpy(info->ba_queue, s->ba_queue, sizeof(info->ba_queue));
	memcpy(info->addba_requests, s->addba_req_num, sizeof(info->addba_requests));
}

int mqtx_wme_sta_get(struct mqtx_dev *dev, const uint8_t addr[6], struct mqtx_wme_sta_info *info)
{
	struct mqtx_wme *w = mqtx__wme_lock(dev, NULL);
	struct wme_sta *s;

	if (!w)
		return -EOPNOTSUPP;
	s = mqtx__wme_sta_find(w, addr);
	if (s)
		fill_info(s, info);
	mqtx__wme_unlock(w);
	return s ? 0 : -ENOENT;
}

int mqtx_wme_sta_walk(struct mqtx_dev *dev, mqtx_wme_sta_fn fn, void *arg)
{
	struct mqtx_wme *w = mqtx__wme_lock(dev, NULL);
	struct mqtx_wme_sta_info info;
	int n = 0;

	if (!w)
		return -EOPNOTSUPP;
	for (unsigned b = 0; b < WME_BUCKETS; b++) {
		for (struct wme_sta *s = atomic_load(&w->buckets[b]); s;
		     s = atomic_load(&s->next)) {
			fill_info(s, &info);
			fn(&info, arg);
			n++;
		}
	}
	mqtx__wme_unlock(w);
	return n;
}

/* No reader is left (the device is being destroyed). */
void mqtx__wme_sta_free_all(struct mqtx_wme *w)
{
	for (unsigned b = 0; b < WME_BUCKETS; b++) {
		struct wme_sta *s = atomic_load(&w->buckets[b]), *next;

		for (; s; s = next) {
			next = atomic_load(&s->next);
			mqtx__free(s);
		}
		atomic_store(&w->buckets[b], NULL);
	}
	w->nsta = 0;
}

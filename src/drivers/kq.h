/* SPDX-License-Identifier: MIT */
/* What the drivers over kernel interfaces share: per-queue counters, errno accounting, the
 * poller that wakes stopped queues, and interface helpers (private to src/drivers/). */
#ifndef MQTX_DRIVERS_KQ_H
#define MQTX_DRIVERS_KQ_H

#include <pthread.h>
#include <stdatomic.h>

#include <mqtx/ktxq.h>

/* One TX queue over a kernel file descriptor. Counters: written by the queue's sender and by
 * the poller, read by anyone. */
struct kq {
	int fd;
	atomic_bool stopped; /* the driver stopped the queue and waits for the fd */
	atomic_uint logged;  /* errno counters already reported once */
	atomic_ullong packets, bytes, completed, calls, busy, stops, wakes, errors, flushed;
	atomic_ullong err[MQTX_KERR_MAX];
	atomic_int last_errno;
} __attribute__((aligned(MQTX_CACHE_LINE)));

/* Called by the poller after each wait, with the queues it found writable done: reap
 * completions, for instance. Inside a section (mqtx_bh_disable()). */
typedef void (*kq_tick_fn)(struct mqtx_dev *dev, void *arg);

struct kq_poller {
	struct mqtx_dev *dev;
	struct kq *q;
	uint32_t nq;
	int epfd, evfd;
	int tick_ms; /* wait at most this long between ticks (-1: no ticks) */
	kq_tick_fn tick;
	void *tick_arg;
	pthread_t thread;
	bool running;
};

/* Set up @nq queues with no fd. */
void mqtx__kq_init(struct kq *q, uint32_t nq);

/* Start the poller over the fds of @q (they must be open). 0 or -errno. */
int mqtx__kq_poller_start(struct kq_poller *p, struct mqtx_dev *dev, struct kq *q, uint32_t nq,
			  int tick_ms, kq_tick_fn tick, void *arg);
void mqtx__kq_poller_stop(struct kq_poller *p);

/* The kernel said EAGAIN on queue @txq: stop it and have the poller wake it when its fd is
 * writable again. From xmit_burst. */
void mqtx__kq_stop_wait(struct kq_poller *p, struct mqtx_txq *txq);

/* Wake @txq if the driver stopped it (the poller, or a completion). */
void mqtx__kq_wake(struct kq *q, struct mqtx_txq *txq);

/*
 * The kernel refused @pkt on @txq with errno @err (positive): count and free it, log the
 * errno's first occurrence on this queue, and fail the device if interface @ifindex is gone.
 */
void mqtx__kq_refused(struct mqtx_dev *dev, struct mqtx_txq *txq, struct kq *q,
		      struct mqtx_pkt *pkt, int err, int ifindex);

/* A burst's @pkts frames of @bytes that the kernel took and that were freed at once (a write
 * or sendmmsg copies them): counted as sent and completed. */
void mqtx__kq_sent(struct kq *q, uint64_t pkts, uint64_t bytes);

/* Check that interface @ifindex still exists; if not, fail the device. true when gone. */
bool mqtx__kq_check_gone(struct mqtx_dev *dev, int ifindex, int err);

void mqtx__kq_snapshot(const struct kq *q, struct mqtx_ktxq_stats *st);
void mqtx__kq_emit(const struct mqtx_ktxq_stats *st, mqtx_xstat_fn emit, void *arg);
/* The kernel's own counters of interface @ifname (sysfs), for get_xstats on the device. */
void mqtx__kq_emit_if(const char *ifname, mqtx_xstat_fn emit, void *arg);

/* Interface helpers; each writes "IF: cause" into @msg on an error. */
int mqtx__kq_ifindex(const char *ifname, char *msg, size_t msglen);
/* Whether interface @ifindex, which a device attached to, is gone (deleted: an index is not
 * given again to another interface while this one may still be in use). */
bool mqtx__kq_if_gone(int ifindex);
/*
 * Where a device attached to @ifname as @ifindex must attach now (open): 0 while that interface
 * exists (renamed or not), the index of an interface named @ifname made since it was deleted,
 * or -ENODEV when there is none.
 */
int mqtx__kq_if_moved(const char *ifname, int ifindex);
/* The interface of a tap, af_packet or af_xdp device (NULL: not one of its kind) and the index
 * it is attached to; for mqtx_kdev_ifname() (kdev.c). */
const char *mqtx__kq_tap_if(struct mqtx_dev *dev, int *ifindex);
const char *mqtx__kq_afp_if(struct mqtx_dev *dev, int *ifindex);
const char *mqtx__kq_xdp_if(struct mqtx_dev *dev, int *ifindex);
int mqtx__kq_if_set_up(const char *ifname, bool up, bool *was_up, char *msg, size_t msglen);
/* 1 if @ifname is up, 0 if down, -errno. */
int mqtx__kq_if_is_up(const char *ifname);
int mqtx__kq_if_set_mtu(const char *ifname, uint32_t mtu, char *msg, size_t msglen);
int mqtx__kq_if_mtu(const char *ifname);
/* "not permitted (needs CAP_NET_ADMIN)" and the like for a set-up errno. */
const char *mqtx__kq_cause(int err, const char *cap);

#endif

// SPDX-License-Identifier: MIT
/* Shared by the drivers over kernel interfaces: counters, errno accounting, the poller. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kq.h"

#define CNT_ADD(c, n) atomic_fetch_add_explicit(&(c), (n), memory_order_relaxed)
#define CNT(c)	      atomic_load_explicit(&(c), memory_order_relaxed)

const char *mqtx_kerr_name(enum mqtx_kerr e)
{
	static const char *const names[MQTX_KERR_MAX] = {
		"ENOBUFS", "ENXIO", "EMSGSIZE", "ENETDOWN", "ENODEV",
		"EINVAL",  "EIO",   "EBADFD",	"EBUSY",    "other",
	};

	return (unsigned)e < MQTX_KERR_MAX ? names[e] : "?";
}

enum mqtx_kerr mqtx_kerr_of(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOBUFS:
		return MQTX_KERR_ENOBUFS;
	case ENXIO:
		return MQTX_KERR_ENXIO;
	case EMSGSIZE:
		return MQTX_KERR_EMSGSIZE;
	case ENETDOWN:
		return MQTX_KERR_ENETDOWN;
	case ENODEV:
		return MQTX_KERR_ENODEV;
	case EINVAL:
		return MQTX_KERR_EINVAL;
	case EIO:
		return MQTX_KERR_EIO;
	case EBADFD:
		return MQTX_KERR_EBADFD;
	case EBUSY:
		return MQTX_KERR_EBUSY;
	default:
		return MQTX_KERR_OTHER;
	}
}

void mqtx__kq_init(struct kq *q, uint32_t nq)
{
	memset(q, 0, sizeof(*q) * nq);
	for (uint32_t i = 0; i < nq; i++)
		q[i].fd = -1;
}

/* ---- stop and wake ---- */

void mqtx__kq_stop_wait(struct kq_poller *p, struct mqtx_txq *txq)
{
	uint32_t i = mqtx_txq_index(txq);
	struct kq *q = &p->q[i];
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLONESHOT, .data.u32 = i };

	CNT_ADD(q->busy, 1);
	/* Stopped before the fd is armed: a wake can then never come before the stop. */
	mqtx_txq_stop(txq);
	if (!atomic_exchange(&q->stopped, true))
		CNT_ADD(q->stops, 1);
	if (epoll_ctl(p->epfd, EPOLL_CTL_MOD, q->fd, &ev))
		mqtx__kq_wake(q, txq); /* cannot wait for it: let the stack retry */
}

void mqtx__kq_wake(struct kq *q, struct mqtx_txq *txq)
{
	if (!atomic_exchange(&q->stopped, false))
		return;
	CNT_ADD(q->wakes, 1);
	mqtx_txq_wake(txq);
}

static void *kq_poller_fn(void *arg)
{
	struct kq_poller *p = arg;
	struct epoll_event ev[64];

	for (;;) {
		int n = epoll_wait(p->epfd, ev, 64, p->tick_ms);
		bool quit = false;

		if (n < 0 && errno != EINTR)
			break;
		/* One round is one "interrupt": the queues it wakes run at its end, here. */
		mqtx_bh_disable();
		for (int k = 0; k < n; k++) {
			uint32_t i = ev[k].data.u32;

			if (i == UINT32_MAX) {
				quit = true;
				continue;
			}
			/* EPOLLERR too: the next send reports the error with its errno. */
			mqtx__kq_wake(&p->q[i], mqtx_dev_txq(p->dev, i));
		}
		if (p->tick && !quit)
			p->tick(p->dev, p->tick_arg);
		mqtx_bh_enable();
		if (quit)
			break;
	}
	return NULL;
}

int mqtx__kq_poller_start(struct kq_poller *p, struct mqtx_dev *dev, struct kq *q, uint32_t nq,
			  int tick_ms, kq_tick_fn tick, void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
	int err;

	*p = (struct kq_poller){ .dev = dev,
				 .q = q,
				 .nq = nq,
				 .tick_ms = tick_ms,
				 .tick = tick,
				 .tick_arg = arg,
				 .epfd = -1,
				 .evfd = -1 };
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	p->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->epfd < 0 || p->evfd < 0 || epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->evfd, &ev))
		goto fail;
	for (uint32_t i = 0; i < nq; i++) {
		/* Registered disarmed (no events): mqtx__kq_stop_wait() arms one at a time. */
		struct epoll_event qe = { .events = 0, .data.u32 = i };

		if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, q[i].fd, &qe))
			goto fail;
	}
	err = pthread_create(&p->thread, NULL, kq_poller_fn, p);
	if (err) {
		errno = err;
		goto fail;
	}
	p->running = true;
	return 0;
fail:
	err = -errno;
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->evfd >= 0)
		close(p->evfd);
	p->epfd = p->evfd = -1;
	return err;
}

void mqtx__kq_poller_stop(struct kq_poller *p)
{
	uint64_t one = 1;

	if (!p->running)
		return;
	if (write(p->evfd, &one, sizeof(one)) != sizeof(one))
		mqtx_log(MQTX_LOG_ERR, "%s: cannot stop the poller", mqtx_dev_name(p->dev));
	pthread_join(p->thread, NULL);
	close(p->epfd);
	close(p->evfd);
	p->epfd = p->evfd = -1;
	p->running = false;
	for (uint32_t i = 0; i < p->nq; i++)
		atomic_store(&p->q[i].stopped, false);
}

/* ---- errors ---- */

bool mqtx__kq_check_gone(struct mqtx_dev *dev, int ifindex, int err)
{
	char name[IF_NAMESIZE];

	if (ifindex <= 0 || if_indextoname((unsigned)ifindex, name))
		return false;
	mqtx_dev_fail(dev, err < 0 ? err : -err);
	return true;
}

void mqtx__kq_refused(struct mqtx_dev *dev, struct mqtx_txq *txq, struct kq *q,
		      struct mqtx_pkt *pkt, int err, int ifindex)
{
	enum mqtx_kerr e = mqtx_kerr_of(err);

	CNT_ADD(q->errors, 1);
	CNT_ADD(q->err[e], 1);
	atomic_store_explicit(&q->last_errno, err, memory_order_relaxed);
	mqtx_txq_drop_taken(txq, pkt, MQTX_DROP_KERNEL);
	if (!(atomic_fetch_or(&q->logged, 1u << e) & (1u << e)))
		mqtx_log(MQTX_LOG_WARN, "%s: txq %u: the kernel refused a frame: %s (%s)",
			 mqtx_dev_name(dev), mqtx_txq_index(txq), mqtx_kerr_name(e), strerror(err));
	if (err == ENXIO || err == ENODEV || err == EBADFD || err == ENETDOWN)
		mqtx__kq_check_gone(dev, ifindex, err);
}

/* ---- statistics ---- */

void mqtx__kq_sent(struct kq *q, uint64_t pkts, uint64_t bytes)
{
	CNT_ADD(q->packets, pkts);
	CNT_ADD(q->completed, pkts);
	CNT_ADD(q->bytes, bytes);
}

void mqtx__kq_snapshot(const struct kq *q, struct mqtx_ktxq_stats *st)
{
	st->packets = CNT(q->packets);
	st->bytes = CNT(q->bytes);
	st->completed = CNT(q->completed);
	st->calls = CNT(q->calls);
	st->busy = CNT(q->busy);
	st->stops = CNT(q->stops);
	st->wakes = CNT(q->wakes);
	st->errors = CNT(q->errors);
	st->flushed = CNT(q->flushed);
	for (int e = 0; e < MQTX_KERR_MAX; e++)
		st->err[e] = CNT(q->err[e]);
	st->last_errno = atomic_load_explicit(&q->last_errno, memory_order_relaxed);
}

void mqtx__kq_emit(const struct mqtx_ktxq_stats *st, mqtx_xstat_fn emit, void *arg)
{
	emit("kernel_packets", st->packets, arg);
	emit("kernel_bytes", st->bytes, arg);
	emit("completed", st->completed, arg);
	emit("calls", st->calls, arg);
	emit("busy", st->busy, arg);
	emit("stops", st->stops, arg);
	emit("wakes", st->wakes, arg);
	emit("errors", st->errors, arg);
	for (int e = 0; e < MQTX_KERR_MAX; e++)
		if (st->err[e])
			emit(mqtx_kerr_name(e), st->err[e], arg);
	emit("flushed", st->flushed, arg);
}

void mqtx__kq_emit_if(const char *ifname, mqtx_xstat_fn emit, void *arg)
{
	/* /proc/net/dev is the reader's namespace (sysfs is the one it was mounted in). */
	FILE *f = fopen("/proc/self/net/dev", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[16];
		char *colon = strchr(line, ':'), *name = line;

		if (!colon)
			continue;
		*colon = 0;
		while (*name == ' ')
			name++;
		if (strcmp(name, ifname))
			continue;
		if (sscanf(colon + 1,
			   "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
			   "%llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
			   &v[10], &v[11], &v[12], &v[13], &v[14], &v[15]) == 16) {
			emit("if_rx_packets", v[1], arg);
			emit("if_rx_dropped", v[3], arg);
			emit("if_tx_packets", v[9], arg);
			emit("if_tx_errors", v[10], arg);
			emit("if_tx_dropped", v[11], arg);
		}
		break;
	}
	fclose(f);
}

/* ---- interfaces ---- */

const char *mqtx__kq_cause(int err, const char *cap)
{
	static __thread char buf[96];

	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES) {
		snprintf(buf, sizeof(buf), "not permitted (needs %s)", cap);
		return buf;
	}
	if (err == ENODEV || err == ENXIO)
		return "no such interface";
	return strerror(err);
}

int mqtx__kq_ifindex(const char *ifname, char *msg, size_t msglen)
{
	unsigned idx;

	if (!ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE) {
		snprintf(msg, msglen, "%s: not a valid interface name", ifname ? ifname : "");
		return -EINVAL;
	}
	idx = if_nametoindex(ifname);
	if (!idx) {
		snprintf(msg, msglen, "%s: no such interface", ifname);
		return -ENODEV;
	}
	return (int)idx;
}

bool mqtx__kq_if_gone(int ifindex)
{
	char name[IF_NAMESIZE];

	return ifindex <= 0 || !if_indextoname((unsigned)ifindex, name);
}

int mqtx__kq_if_moved(const char *ifname, int ifindex)
{
	unsigned idx;

	if (!mqtx__kq_if_gone(ifindex))
		return 0;
	idx = if_nametoindex(ifname);
	return idx ? (int)idx : -ENODEV;
}

static int if_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, ifr))
		err = -errno;
	close(fd);
	return err;
}

int mqtx__kq_if_set_up(const char *ifname, bool up, bool *was_up, char *msg, size_t msglen)
{
	struct ifreq ifr = { 0 };
	int err;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = if_ioctl(SIOCGIFFLAGS, &ifr);
	if (!err) {
		if (was_up)
			*was_up = ifr.ifr_flags & IFF_UP;
		if (!!(ifr.ifr_flags & IFF_UP) == up)
			return 0;
		ifr.ifr_flags = up ? ifr.ifr_flags | IFF_UP : ifr.ifr_flags & ~IFF_UP;
		err = if_ioctl(SIOCSIFFLAGS, &ifr);
	}
	if (err)
		snprintf(msg, msglen, "%s: cannot bring it %s: %s", ifname, up ? "up" : "down",
			 mqtx__kq_cause(err, "CAP_NET_ADMIN"));
	return err;
}

int mqtx__kq_if_is_up(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int err;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = if_ioctl(SIOCGIFFLAGS, &ifr);
	return err ? err : !!(ifr.ifr_flags & IFF_UP);
}

int mqtx__kq_if_set_mtu(const char *ifname, uint32_t mtu, char *msg, size_t msglen)
{
	struct ifreq ifr = { .ifr_mtu = (int)mtu };
	int err;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = if_ioctl(SIOCSIFMTU, &ifr);
	if (err)
		snprintf(msg, msglen, "%s: cannot set mtu %u: %s", ifname, mtu,
			 mqtx__kq_cause(err, "CAP_NET_ADMIN"));
	return err;
}

int mqtx__kq_if_mtu(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int err;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = if_ioctl(SIOCGIFMTU, &ifr);
	return err ? err : ifr.ifr_mtu;
}

int mqtx_if_tx_queues(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = { .ifr_data = (void *)&ch };
	int err;

	if (!if_nametoindex(ifname))
		return -ENODEV;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = if_ioctl(SIOCETHTOOL, &ifr);
	if (err)
		return err == -EOPNOTSUPP ? 1 : err; /* no channels: a single-queue device */
	return (int)(ch.tx_count + ch.combined_count) ?: 1;
}

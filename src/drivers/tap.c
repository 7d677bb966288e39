// SPDX-License-Identifier: MIT
/* The tap driver: TX queue i writes into queue i of a multi-queue TAP (IFF_MULTI_QUEUE). */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <mqtx/tap.h>

#include "kq.h"

#define TAP_QUEUES_MAX 256 /* MAX_TAP_QUEUES of drivers/net/tun.c */

struct tap_priv {
	char ifname[IF_NAMESIZE];
	int ifindex;
	bool vnet_hdr;
	uint32_t sndbuf;
	bool created; /* mqtx created the TAP: it goes away with the last fd */
	bool was_up;  /* the TAP was up before open: leave it up at close */
	uint32_t nq;
	struct kq *q;
	struct kq_poller poller;
};

static struct tap_priv *tap_priv(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static bool is_tap(struct mqtx_dev *dev)
{
	return dev && mqtx_dev_ops(dev) == &mqtx_tap_ops;
}

/* ---- data path ---- */

static unsigned tap_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	static const struct virtio_net_hdr vh; /* no offload asked: VIRTIO_NET_HDR_GSO_NONE */
	struct tap_priv *t = tap_priv(dev);
	struct kq *q = &t->q[mqtx_txq_index(txq)];
	uint64_t bytes = 0;
	unsigned i, sent = 0;

	(void)more; /* one write per frame: a TAP has no doorbell to defer */
	for (i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = pkts[i];
		struct iovec iov[2] = {
			{ .iov_base = (void *)&vh, .iov_len = sizeof(vh) },
			{ .iov_base = pkt->data, .iov_len = pkt->len },
		};
		ssize_t r;

		atomic_fetch_add_explicit(&q->calls, 1, memory_order_relaxed);
		if (t->vnet_hdr)
			r = writev(q->fd, iov, 2);
		else
			r = write(q->fd, pkt->data, pkt->len);
		if (r >= 0) {
			bytes += pkt->len;
			sent++;
			mqtx_pkt_free(pkt);
			continue;
		}
		if (errno == EINTR) {
			i--;
			continue;
		}
		if (errno == EAGAIN) {
			/* Frames not yet consumed by the kernel's receive path fill sndbuf
			 * (tun_alloc_skb -> sock_alloc_send_pskb): wait for the fd. */
			mqtx__kq_stop_wait(&t->poller, txq);
			break;
		}
		mqtx__kq_refused(dev, txq, q, pkt, errno, t->ifindex);
		if (mqtx_dev_failed(dev)) {
			i++;
			break;
		}
	}
	mqtx__kq_sent(q, sent, bytes);
	return i;
}

/* ---- control path ---- */

static int tap_attach(const struct tap_priv *t, uint32_t i, int *out, char *msg, size_t msglen);

/*
 * The TAP was deleted and a TAP of the same name made since (index @ifindex): every queue's fd
 * attached to it first, then the old ones closed, so that a failure leaves the device as it
 * was. The new TAP is not mqtx's: it stays when the device goes. Device down.
 */
static int tap_reattach(struct mqtx_dev *dev, struct tap_priv *t, int ifindex)
{
	int *fd = mqtx_alloc(sizeof(*fd) * t->nq, 0), err = 0;
	char msg[192];

	if (!fd)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nq; i++)
		fd[i] = -1;
	for (uint32_t i = 0; i < t->nq && !err; i++)
		err = tap_attach(t, i, &fd[i], msg, sizeof(msg));
	if (err)
		mqtx_log(MQTX_LOG_ERR, "%s: %s", mqtx_dev_name(dev), msg);
	for (uint32_t i = 0; i < t->nq; i++) {
		int *drop = err ? &fd[i] : &t->q[i].fd; /* the new, or the old */

		if (*drop >= 0)
			close(*drop);
		if (!err)
			t->q[i].fd = fd[i];
	}
	mqtx_free(fd);
	if (err)
		return err;
	t->ifindex = ifindex;
	t->created = false;
	return 0;
}

static int tap_open(struct mqtx_dev *dev)
{
	struct tap_priv *t = tap_priv(dev);
	int err, moved = mqtx__kq_if_moved(t->ifname, t->ifindex);
	char msg[160];

	if (moved < 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is gone", mqtx_dev_name(dev),
			 t->ifname);
		return -ENODEV;
	}
	if (moved > 0 && (err = tap_reattach(dev, t, moved)))
		return err;
	err = mqtx__kq_if_set_up(t->ifname, true, &t->was_up, msg, sizeof(msg));
	if (!err)
		err = mqtx__kq_poller_start(&t->poller, dev, t->q, t->nq, -1, NULL, NULL);
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s", mqtx_dev_name(dev), msg);
		if (!t->was_up)
			mqtx__kq_if_set_up(t->ifname, false, NULL, msg, sizeof(msg));
	}
	return err;
}

static void tap_stop(struct mqtx_dev *dev)
{
	struct tap_priv *t = tap_priv(dev);
	char msg[160];

	mqtx__kq_poller_stop(&t->poller);
	/* Nothing is in flight: a TAP write copies the frame before it returns. */
	if (!t->was_up && if_indextoname((unsigned)t->ifindex, msg))
		mqtx__kq_if_set_up(t->ifname, false, NULL, msg, sizeof(msg));
}

static void tap_uninit(struct mqtx_dev *dev)
{
	struct tap_priv *t = tap_priv(dev);

	if (!t->q)
		return;
	/* A TAP mqtx created is not persistent: closing its last fd deletes it. */
	for (uint32_t i = 0; i < t->nq; i++)
		if (t->q[i].fd >= 0)
			close(t->q[i].fd);
	mqtx_free(t->q);
	t->q = NULL;
}

static void tap_ktxq_stats(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_ktxq_stats *st)
{
	mqtx__kq_snapshot(&tap_priv(dev)->q[mqtx_txq_index(txq)], st);
}

static void tap_get_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit,
			   void *arg)
{
	struct tap_priv *t = tap_priv(dev);
	struct mqtx_ktxq_stats st;

	if (txq) {
		mqtx__kq_snapshot(&t->q[mqtx_txq_index(txq)], &st);
	} else {
		mqtx_dev_ktxq_stats(dev, -1, &st);
		/* The TAP receives what mqtx writes: its rx counters are the far side's view. */
		mqtx__kq_emit_if(t->ifname, emit, arg);
	}
	mqtx__kq_emit(&st, emit, arg);
}

static int tap_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		      size_t msglen)
{
	struct tap_priv *t = tap_priv(dev);

	if (set->mask & (MQTX_DEV_SET_RING | MQTX_DEV_SET_COALESCE | MQTX_DEV_SET_RATE)) {
		snprintf(msg, msglen, "%s: a TAP has no ring, coalescing or rate to set (%s)",
			 mqtx_dev_name(dev), t->ifname);
		return -EOPNOTSUPP;
	}
	if (set->mask & MQTX_DEV_SET_MTU)
		return mqtx__kq_if_set_mtu(t->ifname, set->mtu, msg, msglen);
	return 0;
}

const struct mqtx_dev_ops mqtx_tap_ops = {
	.kind = "tap",
	.priv_size = sizeof(struct tap_priv),
	.uninit = tap_uninit,
	.open = tap_open,
	.stop = tap_stop,
	.xmit_burst = tap_xmit_burst,
	.get_xstats = tap_get_xstats,
	.change = tap_change,
	.ktxq_stats = tap_ktxq_stats,
};

/* Attach queue @i's fd, into *@out (closed by the caller, also on a failure), to the TAP
 * (creating it on the first). 0, or -errno with @msg set. */
static int tap_attach(const struct tap_priv *t, uint32_t i, int *out, char *msg, size_t msglen)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC), sndbuf = (int)t->sndbuf;

	if (fd < 0) {
		snprintf(msg, msglen, "%s: cannot open /dev/net/tun: %s", t->ifname,
			 errno == ENOENT ? "no TUN/TAP support"
					 : mqtx__kq_cause(errno, "CAP_NET_ADMIN"));
		return -errno;
	}
	*out = fd;
	if (t->vnet_hdr)
		ifr.ifr_flags |= IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->ifname);
	/* drivers/net/tun.c tun_set_iff(): an existing device must be a TAP with the same
	 * IFF_MULTI_QUEUE, else EINVAL; E2BIG at MAX_TAP_QUEUES. */
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		int err = errno;

		if (err == EINVAL)
			snprintf(msg, msglen, "%s: exists and is not a multi-queue TAP%s",
				 t->ifname, t->vnet_hdr ? " (or refuses vnet_hdr)" : "");
		else if (err == E2BIG)
			snprintf(msg, msglen, "%s: the TAP has no room for queue %u", t->ifname, i);
		else
			snprintf(msg, msglen, "%s: cannot attach queue %u: %s", t->ifname, i,
				 mqtx__kq_cause(err, "CAP_NET_ADMIN"));
		return -err;
	}
	if (sndbuf && ioctl(fd, TUNSETSNDBUF, &sndbuf)) {
		snprintf(msg, msglen, "%s: cannot set sndbuf %u: %s", t->ifname, t->sndbuf,
			 strerror(errno));
		return -errno;
	}
	return 0;
}

int mqtx_tap_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_tap_cfg *tap,
			struct mqtx_dev **out)
{
	struct mqtx_tap_cfg tc = tap ? *tap : (struct mqtx_tap_cfg){ 0 };
	struct mqtx_dev_cfg c = *base;
	const char *name = tc.ifname && *tc.ifname ? tc.ifname : base->name;
	struct mqtx_dev *dev;
	struct tap_priv *t;
	char msg[192];
	int err;

	if (!name || !*name || strlen(name) >= IF_NAMESIZE) {
		mqtx_log(MQTX_LOG_ERR, "tap: %s: not a valid interface name", name ? name : "");
		return -EINVAL;
	}
	if (base->num_txq > TAP_QUEUES_MAX) {
		mqtx_log(MQTX_LOG_ERR, "tap: %s: %u queues, a TAP has at most %u", name,
			 base->num_txq, TAP_QUEUES_MAX);
		return -EINVAL;
	}
	c.ops = &mqtx_tap_ops;
	c.priv_size = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	t = tap_priv(dev);
	snprintf(t->ifname, sizeof(t->ifname), "%s", name);
	t->vnet_hdr = tc.vnet_hdr;
	t->sndbuf = tc.sndbuf;
	t->nq = mqtx_dev_num_txq(dev);
	t->created = if_nametoindex(name) == 0;
	t->q = mqtx_alloc(sizeof(*t->q) * t->nq, MQTX_CACHE_LINE);
	if (!t->q) {
		mqtx_dev_destroy(dev);
		return -ENOMEM;
	}
	mqtx__kq_init(t->q, t->nq);
	for (uint32_t i = 0; i < t->nq && !err; i++)
		err = tap_attach(t, i, &t->q[i].fd, msg, sizeof(msg));
	if (!err) {
		t->ifindex = mqtx__kq_ifindex(t->ifname, msg, sizeof(msg));
		err = t->ifindex < 0 ? t->ifindex : 0;
	}
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "tap: %s", msg);
		mqtx_dev_destroy(dev); /* closes the fds: a TAP mqtx created goes away */
		return err;
	}
	*out = dev;
	return 0;
}

/* Kept for callers of the first releases: mqtx_dev_ktxq_stats() serves every driver. */
int mqtx_tap_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	return is_tap(dev) ? mqtx_dev_ktxq_stats(dev, i, st) : -EINVAL;
}

const char *mqtx__kq_tap_if(struct mqtx_dev *dev, int *ifindex)
{
	if (!is_tap(dev))
		return NULL;
	*ifindex = tap_priv(dev)->ifindex;
	return tap_priv(dev)->ifname;
}

const char *mqtx_tap_ifname(struct mqtx_dev *dev)
{
	return is_tap(dev) ? tap_priv(dev)->ifname : NULL;
}

// SPDX-License-Identifier: MIT
/* The af_packet driver: one AF_PACKET socket per TX queue, batched with sendmmsg(). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_packet.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mqtx/af_packet.h>

#include "kq.h"

#define AFP_BATCH 64 /* the stack's largest burst */

struct afp_priv {
	char ifname[IF_NAMESIZE];
	int ifindex;
	bool bypass, steer; /* steer: the program goes on the interface (bypass off) */
	uint32_t sndbuf;
	uint32_t nq;
	struct kq *q;
	struct kq_poller poller;
	/* the steering program on the interface's tc egress hook, if attached */
	int prog_fd;
	bool hook_created;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts tc_opts;
};

static struct afp_priv *afp_priv(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static bool is_afp(struct mqtx_dev *dev)
{
	return dev && mqtx_dev_ops(dev) == &mqtx_af_packet_ops;
}

/* ---- data path ---- */

static unsigned afp_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	struct afp_priv *a = afp_priv(dev);
	struct kq *q = &a->q[mqtx_txq_index(txq)];
	struct mmsghdr mm[AFP_BATCH];
	struct iovec iov[AFP_BATCH];
	uint64_t bytes = 0, sent = 0;
	unsigned i = 0;

	(void)more; /* each sendmmsg() is its own doorbell */
	if (n > AFP_BATCH)
		n = AFP_BATCH;
	for (unsigned k = 0; k < n; k++) {
		iov[k] = (struct iovec){ .iov_base = pkts[k]->data, .iov_len = pkts[k]->len };
		mm[k] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[k], .msg_iovlen = 1 } };
	}
	while (i < n) {
		int r = sendmmsg(q->fd, mm + i, n - i, MSG_DONTWAIT);

		atomic_fetch_add_explicit(&q->calls, 1, memory_order_relaxed);
		if (r > 0) {
			for (int k = 0; k < r; k++)
				bytes += pkts[i + k]->len;
			mqtx_pkt_free_bulk(pkts + i, (unsigned)r);
			sent += (unsigned)r;
			i += (unsigned)r;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			/* The socket's sndbuf is full of frames the kernel has not freed yet. */
			mqtx__kq_stop_wait(&a->poller, txq);
			break;
		}
		/* sendmmsg() reports an error only for the first message it could not send: that
		 * one is refused; the rest are tried again. */
		mqtx__kq_refused(dev, txq, q, pkts[i], errno, a->ifindex);
		i++;
		if (mqtx_dev_failed(dev))
			break;
	}
	mqtx__kq_sent(q, sent, bytes);
	return i;
}

/* ---- the steering program ---- */

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/*
 * tc egress: a frame whose mark carries MQTX_AFP_MARK_TAG | i gets queue_mapping = i + 1 and
 * its mark cleared. net/core/dev.c: netdev_pick_tx() -> skb_tx_hash() treats a non-zero
 * queue_mapping as a recorded receive queue + 1 and sends on that queue (modulo the count).
 * libbpf has no instruction macros: the eleven instructions are spelled out.
 */
static int afp_steer_attach(struct afp_priv *a, char *msg, size_t msglen)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, offsetof(struct __sk_buff, mark), 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 2, 0, 0),
		INSN(BPF_ALU64 | BPF_AND | BPF_K, 3, 0, 0, (int32_t)MQTX_AFP_MARK_MASK),
		INSN(BPF_JMP | BPF_JNE | BPF_K, 3, 0, 5, (int32_t)MQTX_AFP_MARK_TAG),
		INSN(BPF_ALU64 | BPF_AND | BPF_K, 2, 0, 0, 0xffff),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, 1),
		INSN(BPF_STX | BPF_MEM | BPF_W, 1, 2, offsetof(struct __sk_buff, queue_mapping), 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0),
		INSN(BPF_STX | BPF_MEM | BPF_W, 1, 3, offsetof(struct __sk_buff, mark), 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, TC_ACT_OK),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int err;

	a->prog_fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "mqtx_steer", "GPL", insns,
				   sizeof(insns) / sizeof(insns[0]), NULL);
	if (a->prog_fd < 0) {
		err = a->prog_fd;
		snprintf(msg, msglen, "%s: cannot load the steering program: %s", a->ifname,
			 mqtx__kq_cause(err, "CAP_BPF and CAP_NET_ADMIN"));
		return err;
	}
	a->hook = (struct bpf_tc_hook){ .sz = sizeof(a->hook),
					.ifindex = a->ifindex,
					.attach_point = BPF_TC_EGRESS };
	err = bpf_tc_hook_create(&a->hook);
	if (err && err != -EEXIST)
		goto fail;
	a->hook_created = !err;
	a->tc_opts = (struct bpf_tc_opts){ .sz = sizeof(a->tc_opts), .prog_fd = a->prog_fd };
	err = bpf_tc_attach(&a->hook, &a->tc_opts);
	if (!err)
		return 0;
	if (a->hook_created) {
		a->hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&a->hook);
	}
fail:
	snprintf(msg, msglen, "%s: cannot attach the steering program to tc egress: %s", a->ifname,
		 mqtx__kq_cause(err, "CAP_NET_ADMIN"));
	close(a->prog_fd);
	a->prog_fd = -1;
	return err;
}

static void afp_steer_detach(struct afp_priv *a)
{
	if (a->prog_fd < 0)
		return;
	if (a->hook_created) {
		/* libbpf deletes the clsact qdisc itself only when asked for both hooks. */
		a->hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&a->hook);
	} else {
		struct bpf_tc_opts o = { .sz = sizeof(o),
					 .handle = a->tc_opts.handle,
					 .priority = a->tc_opts.priority };

		bpf_tc_detach(&a->hook, &o);
	}
	close(a->prog_fd);
	a->prog_fd = -1;
}

/* ---- control path ---- */

static int afp_socket(const struct afp_priv *a, uint32_t i, int *out, char *msg, size_t msglen);

/*
 * The interface was deleted and one of the same name made since (index @ifindex): new sockets
 * bound to it, and the steering program on its tc egress hook, all made before the old ones go,
 * so that a failure leaves the device as it was. Device down.
 */
static int afp_reattach(struct mqtx_dev *dev, struct afp_priv *a, int ifindex)
{
	struct afp_priv n = *a;
	int *fd = mqtx_alloc(sizeof(*fd) * a->nq, 0), err = 0;
	char msg[192];

	if (!fd)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->nq; i++)
		fd[i] = -1;
	n.ifindex = ifindex;
	n.prog_fd = -1;
	if (n.steer)
		err = afp_steer_attach(&n, msg, sizeof(msg));
	for (uint32_t i = 0; i < a->nq && !err; i++)
		err = afp_socket(&n, i, &fd[i], msg, sizeof(msg));
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s", mqtx_dev_name(dev), msg);
		afp_steer_detach(&n);
	}
	for (uint32_t i = 0; i < a->nq; i++) {
		int *keep = err ? &fd[i] : &a->q[i].fd; /* what is closed: the new, or the old */

		if (*keep >= 0)
			close(*keep);
		if (!err)
			a->q[i].fd = fd[i];
	}
	mqtx_free(fd);
	if (err)
		return err;
	/* The old hook went with the old interface: only the program is left to close. */
	if (a->prog_fd >= 0)
		close(a->prog_fd);
	a->ifindex = ifindex;
	a->prog_fd = n.prog_fd;
	a->hook_created = n.hook_created;
	a->hook = n.hook;
	a->tc_opts = n.tc_opts;
	return 0;
}

static int afp_open(struct mqtx_dev *dev)
{
	struct afp_priv *a = afp_priv(dev);
	int err, moved = mqtx__kq_if_moved(a->ifname, a->ifindex);

	if (moved < 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is gone", mqtx_dev_name(dev),
			 a->ifname);
		return -ENODEV;
	}
	/* Left as it is: the interface is not mqtx's to bring up. */
	if (mqtx__kq_if_is_up(a->ifname) == 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is down", mqtx_dev_name(dev),
			 a->ifname);
		return -ENETDOWN;
	}
	if (moved > 0 && (err = afp_reattach(dev, a, moved)))
		return err;
	err = mqtx__kq_poller_start(&a->poller, dev, a->q, a->nq, -1, NULL, NULL);
	if (err)
		mqtx_log(MQTX_LOG_ERR, "%s: cannot start the poller: %s", mqtx_dev_name(dev),
			 strerror(-err));
	return err;
}

static void afp_stop(struct mqtx_dev *dev)
{
	/* Nothing is in flight: a send copies the frame before it returns. */
	mqtx__kq_poller_stop(&afp_priv(dev)->poller);
}

static void afp_uninit(struct mqtx_dev *dev)
{
	struct afp_priv *a = afp_priv(dev);

	afp_steer_detach(a);
	if (!a->q)
		return;
	for (uint32_t i = 0; i < a->nq; i++)
		if (a->q[i].fd >= 0)
			close(a->q[i].fd);
	mqtx_free(a->q);
	a->q = NULL;
}

static void afp_ktxq_stats(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_ktxq_stats *st)
{
	mqtx__kq_snapshot(&afp_priv(dev)->q[mqtx_txq_index(txq)], st);
}

static void afp_get_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit,
			   void *arg)
{
	struct afp_priv *a = afp_priv(dev);
	struct mqtx_ktxq_stats st;

	if (txq) {
		mqtx__kq_snapshot(&a->q[mqtx_txq_index(txq)], &st);
	} else {
		mqtx_dev_ktxq_stats(dev, -1, &st);
		mqtx__kq_emit_if(a->ifname, emit, arg);
	}
	mqtx__kq_emit(&st, emit, arg);
}

static int afp_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		      size_t msglen)
{
	struct afp_priv *a = afp_priv(dev);

	if (set->mask & (MQTX_DEV_SET_RING | MQTX_DEV_SET_COALESCE | MQTX_DEV_SET_RATE)) {
		snprintf(msg, msglen,
			 "%s: an AF_PACKET socket has no ring, coalescing or rate "
			 "to set (use ethtool on %s)",
			 mqtx_dev_name(dev), a->ifname);
		return -EOPNOTSUPP;
	}
	if (set->mask & MQTX_DEV_SET_MTU)
		return mqtx__kq_if_set_mtu(a->ifname, set->mtu, msg, msglen);
	return 0;
}

const struct mqtx_dev_ops mqtx_af_packet_ops = {
	.kind = "af_packet",
	.priv_size = sizeof(struct afp_priv),
	.uninit = afp_uninit,
	.open = afp_open,
	.stop = afp_stop,
	.xmit_burst = afp_xmit_burst,
	.get_xstats = afp_get_xstats,
	.change = afp_change,
	.ktxq_stats = afp_ktxq_stats,
};

/* Open and bind the socket of queue @i into *@out (closed by the caller, also on a failure).
 * 0, or -errno with @msg set. */
static int afp_socket(const struct afp_priv *a, uint32_t i, int *out, char *msg, size_t msglen)
{
	/* Protocol 0: the socket receives nothing, it only sends. */
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = a->ifindex };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0), one = 1;
	int mark = (int)(MQTX_AFP_MARK_TAG | i), sndbuf = (int)a->sndbuf;
	const char *what = "socket";

	if (fd < 0)
		goto fail;
	*out = fd;
	what = "PACKET_QDISC_BYPASS";
	if (a->bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		goto fail;
	what = "SO_MARK";
	if (a->prog_fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
		goto fail;
	what = "SO_SNDBUF";
	if (sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		goto fail;
	what = "bind";
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		goto fail;
	return 0;
fail:
	snprintf(msg, msglen, "%s: queue %u: %s: %s", a->ifname, i, what,
		 mqtx__kq_cause(errno, "CAP_NET_RAW"));
	return -errno;
}

int mqtx_af_packet_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_af_packet_cfg *afp,
			      struct mqtx_dev **out)
{
	struct mqtx_dev_cfg c = *base;
	struct mqtx_dev *dev;
	struct afp_priv *a;
	char msg[192];
	int err, idx;

	if (!afp || !afp->ifname || !*afp->ifname) {
		mqtx_log(MQTX_LOG_ERR, "af_packet: %s: needs an interface (ifname)",
			 base->name ? base->name : "");
		return -EINVAL;
	}
	idx = mqtx__kq_ifindex(afp->ifname, msg, sizeof(msg));
	if (idx < 0) {
		mqtx_log(MQTX_LOG_ERR, "af_packet: %s", msg);
		return idx;
	}
	if (!c.num_txq) {
		int nq = mqtx_if_tx_queues(afp->ifname);

		c.num_txq = nq > 0 ? (uint32_t)nq : 1;
	}
	c.ops = &mqtx_af_packet_ops;
	c.priv_size = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	a = afp_priv(dev);
	snprintf(a->ifname, sizeof(a->ifname), "%s", afp->ifname);
	a->ifindex = idx;
	a->bypass = !afp->no_bypass;
	a->steer = !a->bypass && !afp->no_steer;
	a->sndbuf = afp->sndbuf;
	a->prog_fd = -1;
	a->nq = mqtx_dev_num_txq(dev);
	a->q = mqtx_alloc(sizeof(*a->q) * a->nq, MQTX_CACHE_LINE);
	if (!a->q) {
		mqtx_dev_destroy(dev);
		return -ENOMEM;
	}
	mqtx__kq_init(a->q, a->nq);
	if (a->steer)
		err = afp_steer_attach(a, msg, sizeof(msg));
	for (uint32_t i = 0; i < a->nq && !err; i++)
		err = afp_socket(a, i, &a->q[i].fd, msg, sizeof(msg));
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "af_packet: %s", msg);
		mqtx_dev_destroy(dev); /* closes the sockets, detaches the program */
		return err;
	}
	*out = dev;
	return 0;
}

const char *mqtx__kq_afp_if(struct mqtx_dev *dev, int *ifindex)
{
	if (!is_afp(dev))
		return NULL;
	*ifindex = afp_priv(dev)->ifindex;
	return afp_priv(dev)->ifname;
}

int mqtx_af_packet_bypass(struct mqtx_dev *dev)
{
	return is_afp(dev) ? afp_priv(dev)->bypass : -EINVAL;
}

/* Kept for callers of the first releases: mqtx_dev_ktxq_stats() serves every driver. */
int mqtx_af_packet_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	return is_afp(dev) ? mqtx_dev_ktxq_stats(dev, i, st) : -EINVAL;
}

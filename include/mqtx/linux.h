/* SPDX-License-Identifier: MIT */
/* Kernel names for driver code ported from Linux (<linux/netdevice.h>) mapped onto mqtx. */
#ifndef MQTX_LINUX_H
#define MQTX_LINUX_H

/*
 * A driver written against <linux/netdevice.h> compiles against this header with few changes:
 *
 *   - struct sk_buff, struct net_device and struct netdev_queue are mqtx_pkt, mqtx_dev and
 *     mqtx_txq (macros). skb->data, skb->len, skb->queue_mapping, skb->priority, skb->mark and
 *     skb->hash exist under the same names; other fields do not.
 *   - struct net_device has no public fields: use the accessors (netdev_priv(),
 *     netdev_num_tx_queues(), netdev_real_num_tx_queues(), netdev_name()).
 *   - The driver is an mqtx_dev_ops table. A per-packet ndo_start_xmit(skb, dev) returning
 *     NETDEV_TX_OK / NETDEV_TX_BUSY becomes its xmit_burst with MQTX_LINUX_XMIT_BURST(), which
 *     also makes netdev_xmit_more() work.
 *   - alloc_etherdev_mq(sizeof_priv, count) needs the ops: alloc_etherdev_mq_ops(ops, ...).
 *   - A completion round (NAPI poll) runs between local_bh_disable() and local_bh_enable():
 *     the queues it wakes run at local_bh_enable(), as the NET_TX softirq does, and the sim
 *     driver does. Woken outside such a section, they run on the library's TX thread (the
 *     ksoftirqd of mqtx).
 *
 * Kernel names are macros or static inline functions here, so this header is for driver
 * source files only; it is not included by <mqtx/mqtx.h>. Define MQTX_LINUX_NO_TYPES to leave
 * out u8/u16/u32/u64.
 */

#include <pthread.h>
#include <stdio.h>

#include <mqtx/driver.h>
#include <mqtx/qdisc.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MQTX_LINUX_NO_TYPES
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#endif

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define sk_buff	     mqtx_pkt
#define net_device   mqtx_dev
#define netdev_queue mqtx_txq

/* ---- return codes (include/linux/netdevice.h) ---- */

#define NET_XMIT_SUCCESS MQTX_XMIT_SUCCESS
#define NET_XMIT_DROP	 MQTX_XMIT_DROP
#define NET_XMIT_CN	 MQTX_XMIT_CN
#define NET_XMIT_MASK	 0x0f
#define NETDEV_TX_OK	 0x00 /* the driver took the packet */
#define NETDEV_TX_BUSY	 0x10 /* not taken: the stack requeues it at the head */
#define netdev_tx_t	 int

/* ---- devices ---- */

/**
 * alloc_etherdev_mqs_clock() - create a device named "eth<N>" (N counts up per program) with
 * driver @ops, @sizeof_priv private bytes, @txqs TX queues (all in use) and time base @clock
 * (NULL: real). Kernel style: NULL on failure.
 */
static inline struct net_device *alloc_etherdev_mq_clock(const struct mqtx_dev_ops *ops,
							 int sizeof_priv, unsigned int txqs,
							 struct mqtx_clock *clock)
{
	static unsigned int seq;
	struct mqtx_dev_cfg cfg = { 0 };
	struct mqtx_dev *dev;
	char name[MQTX_NAME_MAX];

	if (sizeof_priv < 0)
		return NULL;
	snprintf(name, sizeof(name), "eth%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	cfg.name = name;
	cfg.ops = ops;
	cfg.num_txq = txqs;
	cfg.priv_size = (size_t)sizeof_priv;
	cfg.clock = clock;
	return mqtx_dev_create(&cfg, &dev) ? NULL : dev;
}

/** alloc_etherdev_mq_ops() - alloc_etherdev_mq() with the driver's ops, on the real clock. */
static inline struct net_device *alloc_etherdev_mq_ops(const struct mqtx_dev_ops *ops,
						       int sizeof_priv, unsigned int txqs)
{
	return alloc_etherdev_mq_clock(ops, sizeof_priv, txqs, NULL);
}

#define alloc_etherdev_ops(ops, sizeof_priv) alloc_etherdev_mq_ops(ops, sizeof_priv, 1)
#define free_netdev(dev)		     mqtx_dev_destroy(dev)
#define register_netdev(dev)		     ((void)(dev), 0)
#define unregister_netdev(dev)		     ((void)(dev))
#define dev_open(dev)			     mqtx_dev_open(dev)
#define dev_close(dev)			     mqtx_dev_close(dev)
#define netif_running(dev)		     mqtx_dev_is_up(dev)
#define netdev_name(dev)		     mqtx_dev_name(dev)

static inline void *netdev_priv(const struct net_device *dev)
{
	return mqtx_dev_priv(dev);
}

static inline unsigned int netdev_num_tx_queues(const struct net_device *dev)
{
	return mqtx_dev_num_txq(dev);
}

static inline unsigned int netdev_real_num_tx_queues(const struct net_device *dev)
{
	return mqtx_dev_real_num_txq(dev);
}

/** netif_set_real_num_tx_queues() - 0 (up or down), -EINVAL out of range. */
static inline int netif_set_real_num_tx_queues(struct net_device *dev, unsigned int txq)
{
	return mqtx_dev_set_real_num_txq(dev, txq);
}

static inline struct netdev_queue *netdev_get_tx_queue(const struct net_device *dev,
						       unsigned int index)
{
	return mqtx_dev_txq(dev, index);
}

/* ---- packets ---- */

static inline u16 skb_get_queue_mapping(const struct sk_buff *skb)
{
	return skb->queue_mapping;
}

/* Sets the field only, as Linux; mqtx_dev_xmit() selects again unless MQTX_PKT_F_QMAP_SET. */
static inline void skb_set_queue_mapping(struct sk_buff *skb, u16 queue_mapping)
{
	skb->queue_mapping = queue_mapping;
}

#define dev_kfree_skb(skb)	 mqtx_pkt_free(skb)
#define dev_kfree_skb_any(skb)	 mqtx_pkt_free(skb)
#define dev_kfree_skb_irq(skb)	 mqtx_pkt_free(skb)
#define dev_consume_skb_any(skb) mqtx_pkt_free(skb)
#define kfree_skb(skb)		 mqtx_pkt_free(skb)
#define consume_skb(skb)	 mqtx_pkt_free(skb)
#define skb_put(skb, n)		 mqtx_pkt_put(skb, n)
#define skb_push(skb, n)	 mqtx_pkt_push(skb, n)
#define skb_pull(skb, n)	 mqtx_pkt_pull(skb, n)
#define skb_headroom(skb)	 mqtx_pkt_headroom(skb)
#define skb_tailroom(skb)	 mqtx_pkt_tailroom(skb)
/** netif_rx_dev() - netif_rx() needs the device in mqtx (there is no skb->dev). */
#define netif_rx_dev(dev, skb) mqtx_dev_receive(dev, skb)

/* ---- TX queue flow control (driver side: DRV_XOFF only) ---- */

static inline void netif_tx_start_queue(struct netdev_queue *txq)
{
	mqtx_txq_start(txq);
}

static inline void netif_tx_stop_queue(struct netdev_queue *txq)
{
	mqtx_txq_stop(txq);
}

static inline void netif_tx_wake_queue(struct netdev_queue *txq)
{
	mqtx_txq_wake(txq);
}

/* Tests DRV_XOFF only: what drivers should use. */
static inline bool netif_tx_queue_stopped(const struct netdev_queue *txq)
{
	return mqtx_txq_stopped(txq);
}

/* The stack's predicates: BQL's STACK_XOFF too, and FROZEN. */
static inline bool netif_xmit_stopped(const struct netdev_queue *txq)
{
	return mqtx_txq_state(txq) & MQTX_TXQ_ANY_XOFF;
}

static inline bool netif_xmit_frozen_or_stopped(const struct netdev_queue *txq)
{
	return mqtx_txq_state(txq) & (MQTX_TXQ_ANY_XOFF | MQTX_TXQ_FROZEN);
}

/* Every allocated queue (num_tx_queues, as Linux). */
#define netif_tx_start_all_queues(dev) mqtx_dev_start_all_queues(dev)
#define netif_tx_stop_all_queues(dev)  mqtx_dev_stop_all_queues(dev)
#define netif_tx_wake_all_queues(dev)  mqtx_dev_wake_all_queues(dev)
#define netif_tx_disable(dev)	       mqtx_dev_stop_all_queues(dev)

/* Single-queue wrappers act on queue 0. */
#define netif_start_queue(dev)	 netif_tx_start_queue(mqtx_dev_txq(dev, 0))
#define netif_stop_queue(dev)	 netif_tx_stop_queue(mqtx_dev_txq(dev, 0))
#define netif_wake_queue(dev)	 netif_tx_wake_queue(mqtx_dev_txq(dev, 0))
#define netif_queue_stopped(dev) netif_tx_queue_stopped(mqtx_dev_txq(dev, 0))

#define netif_start_subqueue(dev, i)	 netif_tx_start_queue(mqtx_dev_txq(dev, i))
#define netif_stop_subqueue(dev, i)	 netif_tx_stop_queue(mqtx_dev_txq(dev, i))
#define netif_wake_subqueue(dev, i)	 netif_tx_wake_queue(mqtx_dev_txq(dev, i))
#define __netif_subqueue_stopped(dev, i) netif_tx_queue_stopped(mqtx_dev_txq(dev, i))
#define netif_subqueue_stopped(dev, skb) __netif_subqueue_stopped(dev, skb_get_queue_mapping(skb))

#define netif_schedule_queue(txq) mqtx_txq_schedule(txq)
#define local_bh_disable()	  mqtx_bh_disable()
#define local_bh_enable()	  mqtx_bh_enable()

/* Device-wide freeze (netif_tx_lock): every queue's xmit lock in order, FROZEN set. */
#define netif_tx_lock(dev)	mqtx_dev_lock_all(dev)
#define netif_tx_unlock(dev)	mqtx_dev_unlock_all(dev)
#define netif_tx_lock_bh(dev)	mqtx_dev_lock_all(dev)
#define netif_tx_unlock_bh(dev) mqtx_dev_unlock_all(dev)

/* Exact: every qdisc, requeue list and driver ring (Linux's qdisc_all_tx_empty(), completed). */
#define qdisc_all_tx_empty(dev) mqtx_dev_all_tx_empty(dev)

/* ---- BQL (netdev_tx_*_queue) ---- */

static inline void netdev_tx_sent_queue(struct netdev_queue *txq, unsigned int bytes)
{
	mqtx_txq_sent(txq, bytes, false);
}

/* Returns true when the driver should ring its doorbell now. */
static inline bool __netdev_tx_sent_queue(struct netdev_queue *txq, unsigned int bytes,
					  bool xmit_more)
{
	return mqtx_txq_sent(txq, bytes, xmit_more);
}

/* At most once per completion round. */
static inline void netdev_tx_completed_queue(struct netdev_queue *txq, unsigned int pkts,
					     unsigned int bytes)
{
	mqtx_txq_completed(txq, pkts, bytes);
}

static inline void netdev_tx_reset_queue(struct netdev_queue *txq)
{
	mqtx_txq_bql_reset(txq);
}

#define netdev_sent_queue(dev, bytes) netdev_tx_sent_queue(mqtx_dev_txq(dev, 0), bytes)
#define netdev_completed_queue(dev, pkts, bytes) \
	netdev_tx_completed_queue(mqtx_dev_txq(dev, 0), pkts, bytes)

/* ---- ndo_start_xmit adapter ---- */

/* The xmit_more of the packet being passed to the adapted ndo_start_xmit (per thread). */
static __thread bool mqtx_linux_xmit_more_ __attribute__((unused));

static inline bool netdev_xmit_more(void)
{
	return mqtx_linux_xmit_more_;
}

/** dev_xmit_complete() - whether ndo_start_xmit consumed the packet: sent, or dropped by the
 *  driver (a return below NET_XMIT_MASK); NETDEV_TX_BUSY leaves it with the stack. */
static inline bool dev_xmit_complete(int rc)
{
	return rc < NET_XMIT_MASK;
}

/**
 * MQTX_LINUX_XMIT_BURST(name, start_xmit) - define `static unsigned name(...)`, an
 * mqtx_dev_ops.xmit_burst that feeds the packets one by one to the kernel-style
 * `netdev_tx_t start_xmit(struct sk_buff *skb, struct net_device *dev)`, with
 * netdev_xmit_more() telling whether another packet of this burst follows (as Linux: another
 * skb in the bulk list, so BQL checks its limit at the end of each burst). As Linux's
 * dev_hard_start_xmit(), the burst ends at the first packet not consumed (NETDEV_TX_BUSY:
 * not taken), or after a packet that left the queue stopped (netif_tx_queue_stopped()) when
 * more follow: the driver never sees a packet once it has stopped its queue. What is not
 * taken goes back to the head of the qdisc, counted as requeues as dev_requeue_skb() counts
 * them.
 */
#define MQTX_LINUX_XMIT_BURST(name, start_xmit)                                \
	static unsigned name(struct mqtx_dev *dev_, struct mqtx_txq *txq_,     \
			     struct mqtx_pkt **pkts_, unsigned n_, bool more_) \
	{                                                                      \
		unsigned i_ = 0;                                               \
		(void)more_;                                                   \
		while (i_ < n_) {                                              \
			mqtx_linux_xmit_more_ = i_ + 1 < n_;                   \
			if (!dev_xmit_complete(start_xmit(pkts_[i_], dev_)))   \
				break;                                         \
			if (++i_ < n_ && netif_tx_queue_stopped(txq_))         \
				break;                                         \
		}                                                              \
		mqtx_linux_xmit_more_ = false;                                 \
		return i_;                                                     \
	}

/* ---- locks a driver typically uses between xmit and completion ---- */

#define spinlock_t		     pthread_mutex_t
#define spin_lock_init(l)	     pthread_mutex_init(l, NULL)
#define spin_lock(l)		     pthread_mutex_lock(l)
#define spin_unlock(l)		     pthread_mutex_unlock(l)
#define spin_lock_bh(l)		     pthread_mutex_lock(l)
#define spin_unlock_bh(l)	     pthread_mutex_unlock(l)
#define spin_lock_irqsave(l, f)	     ((void)(f), pthread_mutex_lock(l))
#define spin_unlock_irqrestore(l, f) ((void)(f), pthread_mutex_unlock(l))

#ifdef __cplusplus
}
#endif
#endif

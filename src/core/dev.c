// SPDX-License-Identifier: MIT
/* Device lifecycle: create, open (up), close (down), destroy, and device-wide settings. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>

#include <mqtx/ktxq.h>

#include "core/core.h"

#define BQL_HOLD_NS MQTX_NSEC_PER_SEC /* Linux initialises every queue's DQL with HZ */

static void txq_init(struct mqtx_dev *dev, struct mqtx_txq *txq, uint32_t i)
{
	memset(txq, 0, sizeof(*txq));
	txq->dev = dev;
	txq->index = i;
	mqtx_spin_init_polite(&txq->lock);
	mqtx_raw_init(&txq->xmit_lock);
	mqtx_spin_init(&txq->busylock);
	atomic_init(&txq->qdisc, &mqtx__noop_qdisc);
	/* Stopped until the device comes up. */
	atomic_init(&txq->state, MQTX_TXQ_DRV_XOFF);
	mqtx__dql_init(&txq->dql, BQL_HOLD_NS, mqtx_clock_now(dev->clock));
}

/* Wait for the thread of an earlier mqtx_dev_fail(), if any. Not under the config lock. */
static void fail_join(struct mqtx_dev *dev)
{
	pthread_t t;
	bool live;

	pthread_mutex_lock(&dev->fail_lock);
	live = dev->fail_thread_live;
	t = dev->fail_thread;
	dev->fail_thread_live = false;
	pthread_mutex_unlock(&dev->fail_lock);
	if (live)
		pthread_join(t, NULL);
}

static void *fail_thread_fn(void *arg)
{
	mqtx_dev_close(arg);
	return NULL;
}

void mqtx_dev_fail(struct mqtx_dev *dev, int err)
{
	int none = 0;

	if (!err)
		err = -EIO;
	if (!atomic_compare_exchange_strong(&dev->fail_err, &none, err))
		return;
	mqtx_dev_stop_all_queues(dev);
	mqtx_err("%s: the device failed (%s): going down", dev->name, mqtx_strerror(err));
	pthread_mutex_lock(&dev->fail_lock);
	/* A thread of an earlier failure has finished its close (the device was opened since,
	 * which joined it), so at most one is live. Destroy closes by itself. */
	if (!dev->dying && !dev->fail_thread_live &&
	    !pthread_create(&dev->fail_thread, NULL, fail_thread_fn, dev))
		dev->fail_thread_live = true;
	pthread_mutex_unlock(&dev->fail_lock);
}

int mqtx_dev_failed(const struct mqtx_dev *dev)
{
	return atomic_load(&((struct mqtx_dev *)dev)->fail_err);
}

int mqtx_dev_xstats(struct mqtx_dev *dev, int txq, mqtx_xstat_fn fn, void *arg)
{
	if (!dev->ops->get_xstats)
		return -EOPNOTSUPP;
	if (txq >= (int)dev->num_txq)
		return -EINVAL;
	dev->ops->get_xstats(dev, txq < 0 ? NULL : &dev->txq[txq], fn, arg);
	return 0;
}

/* Add @s into the sum @st (@last_errno: the latest queue's that has one). */
static void ktxq_add(struct mqtx_ktxq_stats *st, const struct mqtx_ktxq_stats *s)
{
	st->packets += s->packets;
	st->bytes += s->bytes;
	st->completed += s->completed;
	st->calls += s->calls;
	st->busy += s->busy;
	st->stops += s->stops;
	st->wakes += s->wakes;
	st->errors += s->errors;
	st->flushed += s->flushed;
	for (int e = 0; e < MQTX_KERR_MAX; e++)
		st->err[e] += s->err[e];
	if (s->last_errno)
		st->last_errno = s->last_errno;
}

int mqtx_dev_ktxq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	struct mqtx_ktxq_stats q;

	if (!dev->ops->ktxq_stats)
		return -EOPNOTSUPP;
	if (i >= (int)dev->num_txq)
		return -EINVAL;
	if (i >= 0) {
		dev->ops->ktxq_stats(dev, &dev->txq[i], st);
		return 0;
	}
	memset(st, 0, sizeof(*st));
	for (uint32_t n = 0; n < dev->num_txq; n++) {
		dev->ops->ktxq_stats(dev, &dev->txq[n], &q);
		ktxq_add(st, &q);
	}
	return 0;
}

int mqtx_dev_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		    size_t msglen)
{
	char dummy[8];
	int err = 0;

	if (!msg || !msglen) {
		msg = dummy;
		msglen = sizeof(dummy);
	}
	msg[0] = 0;
	if (set->mask & ~MQTX_DEV_SET_ALL) {
		snprintf(msg, msglen, "%s: unknown settings 0x%x", dev->name, set->mask);
		return -EINVAL;
	}
	if ((set->mask & MQTX_DEV_SET_MTU) && (set->mtu < 68 || set->mtu > 65535)) {
		snprintf(msg, msglen, "%s: mtu %u out of range 68..65535", dev->name, set->mtu);
		return -EINVAL;
	}
	if ((set->mask & MQTX_DEV_SET_TXQUEUELEN) && !set->tx_queue_len) {
		snprintf(msg, msglen, "%s: txqueuelen must be at least 1", dev->name);
		return -EINVAL;
	}
	mqtx__config_lock(dev);
	if (dev->ops->change) {
		err = dev->ops->change(dev, set, msg, msglen);
	} else if (set->mask & (MQTX_DEV_SET_RING | MQTX_DEV_SET_COALESCE | MQTX_DEV_SET_RATE)) {
		snprintf(msg, msglen, "%s: the %s driver has no ring, coalesce or rate setting",
			 dev->name, dev->ops->kind);
		err = -EOPNOTSUPP;
	}
	if (!err && (set->mask & MQTX_DEV_SET_MTU))
		dev->mtu = set->mtu;
	if (!err && (set->mask & MQTX_DEV_SET_TXQUEUELEN))
		dev->tx_queue_len = set->tx_queue_len;
	mqtx__config_unlock(dev);
	return err;
}

static int cfg_check(const struct mqtx_dev_cfg *cfg)
{
	size_t n;

	if (!cfg || !cfg->name || !cfg->ops || !cfg->ops->xmit_burst)
		return -EINVAL;
	n = strlen(cfg->name);
	if (!n || n >= MQTX_NAME_MAX)
		return -EINVAL;
	if (!cfg->num_txq || cfg->num_txq > MQTX_MAX_TXQ || cfg->real_num_txq > cfg->num_txq)
		return -EINVAL;
	if (cfg->priv_size > (1u << 30) || cfg->ops->priv_size > (1u << 30))
		return -EINVAL;
	return 0;
}

int mqtx_dev_create(const struct mqtx_dev_cfg *cfg, struct mqtx_dev **out)
{
	size_t size, priv;
	struct mqtx_dev *dev;
	int err = cfg_check(cfg);

	if (err)
		return err;
	priv = cfg->priv_size > cfg->ops->priv_size ? cfg->priv_size : cfg->ops->priv_size;
	/* The private area sits right after the device, cache-line aligned (netdev_priv()). */
	size = mqtx__dev_priv_offset() + ALIGN_UP(priv, MQTX_CACHE_LINE);
	dev = mqtx__alloc_aligned(size, MQTX_CACHE_LINE);
	if (!dev)
		return -ENOMEM;
	memset(dev, 0, size);
	dev->txq = mqtx__alloc_aligned(sizeof(*dev->txq) * cfg->num_txq, MQTX_CACHE_LINE);
	if (!dev->txq) {
		mqtx__free(dev);
		return -ENOMEM;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", cfg->name);
	dev->ops = cfg->ops;
	dev->clock = cfg->clock ? cfg->clock : mqtx_clock_real();
	dev->num_txq = cfg->num_txq;
	atomic_init(&dev->real_num_txq, cfg->real_num_txq ? cfg->real_num_txq : cfg->num_txq);
	dev->tx_queue_len = cfg->tx_queue_len ? cfg->tx_queue_len : MQTX_DEFAULT_TXQLEN;
	dev->mtu = cfg->mtu ? cfg->mtu : MQTX_DEFAULT_MTU;
	dev->quota = cfg->quota ? cfg->quota : MQTX_DEFAULT_QUOTA;
	dev->flags = cfg->flags;
	dev->priv_size = priv;
	dev->run_qdisc = mqtx__qdisc_run;
	pthread_mutex_init(&dev->config_lock, NULL);
	pthread_mutex_init(&dev->tx_global_lock, NULL);
	pthread_mutex_init(&dev->fail_lock, NULL);
	mqtx_spin_init(&dev->rxq.lock);
	for (uint32_t i = 0; i < dev->num_txq; i++)
		txq_init(dev, &dev->txq[i], i);

	err = mqtx_dev_set_hash(dev,
				&(struct mqtx_hash_cfg){ .algo = MQTX_HASH_JHASH, .l4 = true });
	if (!err && dev->ops->init)
		err = dev->ops->init(dev);
	if (err) {
		mqtx_hasher_free(atomic_load(&dev->hasher));
		mqtx__free(dev->txq);
		mqtx__free(dev);
		return err;
	}
	*out = dev;
	return 0;
}

void mqtx_dev_destroy(struct mqtx_dev *dev)
{
	if (!dev)
		return;
	pthread_mutex_lock(&dev->fail_lock);
	dev->dying = true;
	pthread_mutex_unlock(&dev->fail_lock);
	fail_join(dev);
	mqtx_dev_close(dev);
	mqtx_dev_stop_workers(dev);
	mqtx__sched_forget_dev(dev);
	mqtx__rcu_synchronize();
	if (dev->ops->uninit)
		dev->ops->uninit(dev);
	mqtx__qtree_clear(dev);
	mqtx_qdisc_destroy(dev->rxq.qdisc);
	mqtx_hasher_free(atomic_load(&dev->hasher));
	mqtx__free(atomic_load(&dev->select_hook));
	mqtx__xps_release(dev);
	pthread_mutex_destroy(&dev->config_lock);
	pthread_mutex_destroy(&dev->tx_global_lock);
	pthread_mutex_destroy(&dev->fail_lock);
	mqtx__free(dev->txq);
	mqtx__free(dev);
}

/* Config lock held. Put the configured qdiscs in service and start every queue. */
static void activate(struct mqtx_dev *dev)
{
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_txq *txq = &dev->txq[i];
		struct mqtx_qdisc *q = txq->qdisc_sleeping;

		mqtx_spin_lock(mqtx__qdisc_lock(q));
		q->flags &= ~MQTX_QF_DEACTIVATED;
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
		mqtx__dql_reset(&txq->dql, mqtx_clock_now(dev->clock));
		atomic_fetch_and(&txq->state, ~MQTX_TXQ_STACK_XOFF);
		atomic_store_explicit(&txq->qdisc, q, memory_order_release);
	}
	atomic_store(&dev->fail_err, 0);
	atomic_store(&dev->up, true);
	mqtx_dev_start_all_queues(dev);
}

int mqtx_dev_open(struct mqtx_dev *dev)
{
	struct mqtx_qplan dflt;
	bool attach;
	int err = 0;

	/* A failure's closing thread takes the config lock: wait for it before taking it. */
	fail_join(dev);
	mqtx__config_lock(dev);
	if (atomic_load(&dev->up)) {
		err = -EALREADY;
		goto unlock;
	}
	/* What can fail comes first, so that a failure leaves the device as it was: the default
	 * qdiscs are made (queues are configured all together: all have a qdisc or none has)... */
	attach = !dev->txq[0].qdisc_sleeping;
	if (attach) {
		err = mqtx__qtree_prepare_defaults(dev, &dflt);
		if (err)
			goto unlock;
	}
	/* ...and the driver opened (Linux too opens it before it attaches the defaults). */
	if (dev->ops->open) {
		err = dev->ops->open(dev);
		if (err)
			goto abort_defaults;
	}
	if (attach)
		mqtx__qtree_commit(dev, &dflt);
	activate(dev);
	goto unlock;
abort_defaults:
	if (attach)
		mqtx__qtree_abort(dev, &dflt);
unlock:
	mqtx__config_unlock(dev);
	return err;
}

/* Wait until no runner holds @q (a runner may be inside the driver with the lock dropped). */
void mqtx__qdisc_wait_idle(struct mqtx_qdisc *q)
{
	for (;;) {
		bool running;

		mqtx_spin_lock(mqtx__qdisc_lock(q));
		running = q->running;
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
		if (!running)
			return;
		sched_yield();
	}
}

int mqtx_dev_close(struct mqtx_dev *dev)
{
	struct mqtx_pkt *to_free = NULL;

	mqtx__config_lock(dev);
	if (!atomic_load(&dev->up)) {
		mqtx__config_unlock(dev);
		return -EALREADY;
	}
	atomic_store(&dev->up, false);
	mqtx_dev_stop_all_queues(dev);
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_txq *txq = &dev->txq[i];
		struct mqtx_qdisc *q = txq->qdisc_sleeping;

		mqtx_spin_lock(mqtx__qdisc_lock(q));
		q->flags |= MQTX_QF_DEACTIVATED;
		atomic_store_explicit(&txq->qdisc, &mqtx__noop_qdisc, memory_order_release);
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
	}
	/* No transmit can still be on its way into an old qdisc after this... */
	mqtx__rcu_synchronize();
	/* ...and none is still sending out of one after this. */
	for (uint32_t i = 0; i < dev->num_txq; i++) {
		struct mqtx_qdisc *q = dev->txq[i].qdisc_sleeping;

		mqtx__qdisc_wait_idle(q);
		mqtx_spin_lock(mqtx__qdisc_lock(q));
		mqtx_qdisc_reset(q, MQTX_DROP_DOWN, &to_free);
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
		/* Wait for a noqueue transmit that is still inside the driver. */
		mqtx_raw_lock(&dev->txq[i].xmit_lock);
		mqtx_raw_unlock(&dev->txq[i].xmit_lock);
	}
	mqtx__drops_free(dev, to_free, MQTX_DROP_KEEP);
	if (dev->ops->stop)
		dev->ops->stop(dev);
	mqtx__config_unlock(dev);
	return 0;
}

bool mqtx_dev_is_up(const struct mqtx_dev *dev)
{
	return atomic_load(&((struct mqtx_dev *)dev)->up);
}

const char *mqtx_dev_name(const struct mqtx_dev *dev)
{
	return dev->name;
}

const struct mqtx_dev_ops *mqtx_dev_ops(const struct mqtx_dev *dev)
{
	return dev->ops;
}

struct mqtx_clock *mqtx_dev_clock(const struct mqtx_dev *dev)
{
	return dev->clock;
}

uint32_t mqtx_dev_mtu(const struct mqtx_dev *dev)
{
	return dev->mtu;
}

uint64_t mqtx_dev_link_rate(struct mqtx_dev *dev)
{
	return dev->ops->link_rate ? dev->ops->link_rate(dev) : 0;
}

uint32_t mqtx_dev_tx_queue_len(const struct mqtx_dev *dev)
{
	return dev->tx_queue_len;
}

void *mqtx_dev_priv(const struct mqtx_dev *dev)
{
	return (char *)dev + mqtx__dev_priv_offset();
}

struct mqtx_dev *mqtx_dev_from_priv(void *priv)
{
	return (struct mqtx_dev *)((char *)priv - mqtx__dev_priv_offset());
}

void *mqtx_dev_ml_priv(const struct mqtx_dev *dev)
{
	return dev->ml_priv;
}

void mqtx_dev_set_ml_priv(struct mqtx_dev *dev, void *ml_priv)
{
	dev->ml_priv = ml_priv;
}

uint32_t mqtx_dev_num_txq(const struct mqtx_dev *dev)
{
	return dev->num_txq;
}

uint32_t mqtx_dev_real_num_txq(const struct mqtx_dev *dev)
{
	return atomic_load_explicit(&((struct mqtx_dev *)dev)->real_num_txq, memory_order_relaxed);
}

/* Config lock held, device up. Purge the qdiscs that only queues @from..@to - 1 use: those
 * queues went out of use (qdisc_reset_all_tx_gt()). A qdisc that queues still in use share
 * keeps its packets. */
static void purge_tail_queues(struct mqtx_dev *dev, uint32_t from, uint32_t to)
{
	struct mqtx_pkt *to_free = NULL;

	for (uint32_t i = from; i < to; i++) {
		struct mqtx_qdisc *q = dev->txq[i].qdisc_sleeping;

		if (!(q->flags & MQTX_QF_ONETXQUEUE) || q->dev_queue != &dev->txq[i])
			continue;
		mqtx_spin_lock(mqtx__qdisc_lock(q));
		mqtx_qdisc_reset(q, MQTX_DROP_RESET, &to_free);
		mqtx_spin_unlock(mqtx__qdisc_lock(q));
	}
	mqtx__drops_free(dev, to_free, MQTX_DROP_KEEP);
}

int mqtx_dev_set_real_num_txq(struct mqtx_dev *dev, uint32_t n)
{
	uint32_t old;

	if (!n || n > dev->num_txq)
		return -EINVAL;
	mqtx__config_lock(dev);
	old = atomic_load(&dev->real_num_txq);
	mqtx__dev_setup_tc(dev, n); /* netif_setup_tc(): the classes fit before the count shrinks */
	atomic_store(&dev->real_num_txq, n);
	if (n < old && atomic_load(&dev->up)) {
		/* No transmit still selects with the old count after this... */
		mqtx__rcu_synchronize();
		/* ...so nothing enters the queues that went out of use any more. */
		purge_tail_queues(dev, n, old);
	}
	mqtx__config_unlock(dev);
	return 0;
}

struct mqtx_txq *mqtx_dev_txq(const struct mqtx_dev *dev, uint32_t i)
{
	return i < dev->num_txq ? &dev->txq[i] : NULL;
}

uint32_t mqtx_txq_index(const struct mqtx_txq *txq)
{
	return txq->index;
}

struct mqtx_dev *mqtx_txq_dev(const struct mqtx_txq *txq)
{
	return txq->dev;
}

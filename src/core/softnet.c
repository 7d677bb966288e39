// SPDX-License-Identifier: MIT
/* TX scheduling: queues that must run later are linked through next_sched onto an output list,
 * once (SCHED bit): a TX worker's list if the device has workers; else, inside a section
 * (transmit, timer callback, completion round), the calling thread's list, run when the
 * section ends; else the TX thread's list. Every scheduled queue runs. */
#include <errno.h>
#include <sched.h>

#include "core/core.h"

#define TX_ROUNDS 4 /* rounds one section runs before the rest goes to the TX thread */

/* One output list. Lists are registered so that a device going away can unlink its queues
 * from lists that will never run them. */
struct softnet {
	struct mqtx_spinlock lock;
	struct mqtx_txq *head;
	struct mqtx_txq **tailp;
	struct softnet *next_reg, *prev_reg;
	bool registered;
};

/* A thread that runs the queues put on its list: a device's TX worker, or the TX thread. */
struct worker {
	struct softnet sn;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, kicked;
};

struct mqtx_workers {
	unsigned n;
	struct worker w[];
};

static MQTX_TLS struct softnet tls_sn;
static MQTX_TLS bool tls_in_action;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct softnet reg_head = { .next_reg = &reg_head, .prev_reg = &reg_head };
static pthread_key_t sn_key;
static pthread_once_t sn_once = PTHREAD_ONCE_INIT;

/*
 * The TX thread (Linux's ksoftirqd): it runs queues scheduled where no section will run them
 * (a timer or completion thread of the application's, a driver's own thread), and what a
 * section left after TX_ROUNDS rounds. Started on first use; lives as long as the process.
 */
static struct worker txd;
static pthread_once_t txd_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t txd_start_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool txd_running;

static void sn_init(struct softnet *sn)
{
	mqtx_spin_init(&sn->lock);
	sn->head = NULL;
	sn->tailp = &sn->head;
}

static void sn_register(struct softnet *sn)
{
	pthread_mutex_lock(&reg_lock);
	sn->next_reg = reg_head.next_reg;
	sn->prev_reg = &reg_head;
	reg_head.next_reg->prev_reg = sn;
	reg_head.next_reg = sn;
	sn->registered = true;
	pthread_mutex_unlock(&reg_lock);
}

static void sn_unregister(struct softnet *sn)
{
	pthread_mutex_lock(&reg_lock);
	sn->prev_reg->next_reg = sn->next_reg;
	sn->next_reg->prev_reg = sn->prev_reg;
	sn->registered = false;
	pthread_mutex_unlock(&reg_lock);
}

/* A thread that exits runs what it still has scheduled, then leaves the registry. */
static void tls_sn_exit(void *arg)
{
	(void)arg;
	mqtx_tx_action();
	sn_unregister(&tls_sn);
}

static void sn_key_init(void)
{
	pthread_key_create(&sn_key, tls_sn_exit);
}

static struct softnet *my_softnet(void)
{
	if (unlikely(!tls_sn.registered)) {
		pthread_once(&sn_once, sn_key_init);
		sn_init(&tls_sn);
		sn_register(&tls_sn);
		pthread_setspecific(sn_key, &tls_sn);
	}
	return &tls_sn;
}

/*
 * A list's head is read without the lock to see that the list is empty (the common case of a
 * section's end, and of every mqtx_tx_action() call): whoever writes it, under the lock, stores
 * it atomically. A queue appended meanwhile by another thread is for that thread's kick.
 */
static bool sn_none(struct softnet *sn)
{
	return !__atomic_load_n(&sn->head, __ATOMIC_ACQUIRE);
}

static void sn_append(struct softnet *sn, struct mqtx_txq *txq)
{
	mqtx_spin_lock(&sn->lock);
	txq->next_sched = NULL;
	__atomic_store_n(sn->tailp, txq, __ATOMIC_RELEASE);
	sn->tailp = &txq->next_sched;
	mqtx_spin_unlock(&sn->lock);
}

/* Take the whole list. */
static struct mqtx_txq *sn_take(struct softnet *sn)
{
	struct mqtx_txq *txq;

	if (sn_none(sn))
		return NULL;
	mqtx_spin_lock(&sn->lock);
	txq = sn->head;
	__atomic_store_n(&sn->head, NULL, __ATOMIC_RELAXED);
	sn->tailp = &sn->head;
	mqtx_spin_unlock(&sn->lock);
	return txq;
}

static bool sn_empty(struct softnet *sn)
{
	bool empty;

	if (sn_none(sn))
		return true;
	mqtx_spin_lock(&sn->lock);
	empty = !sn->head;
	mqtx_spin_unlock(&sn->lock);
	return empty;
}

static unsigned sn_run(struct softnet *sn)
{
	struct mqtx_txq *txq, *next;
	unsigned n = 0;

	/* Detached queues are only reachable from here: the read section keeps a device being
	 * destroyed (mqtx__sched_forget_dev, then a grace period) alive while they run. */
	mqtx__rcu_read_lock();
	for (txq = sn_take(sn); txq; txq = next, n++) {
		next = txq->next_sched;
		/* Clear SCHED first: a wake during the run must be able to schedule again. */
		atomic_fetch_and(&txq->state, ~MQTX_TXQ_SCHED);
		txq->dev->run_qdisc(atomic_load_explicit(&txq->qdisc, memory_order_acquire));
	}
	mqtx__rcu_read_unlock();
	return n;
}

static void worker_kick(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->kicked = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		if (!w->kicked) {
			pthread_cond_wait(&w->cond, &w->lock);
			continue;
		}
		w->kicked = false;
		pthread_mutex_unlock(&w->lock);
		mqtx__bh_disable();
		sn_run(&w->sn);
		mqtx__bh_enable();
		/* Still work: a driver refused without stopping. Let others run before retrying. */
		if (!sn_empty(&w->sn))
			sched_yield();
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void worker_init(struct worker *w)
{
	sn_init(&w->sn);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->stop = w->kicked = false;
}

/* A forked child has no TX thread, whatever the parent had: start one when needed. */
static void txd_after_fork(void)
{
	worker_init(&txd);
	atomic_store(&txd_running, false);
}

static void txd_init(void)
{
	worker_init(&txd);
	sn_register(&txd.sn);
	pthread_atfork(NULL, NULL, txd_after_fork);
}

/* The TX thread, started if it is not running yet. False if it cannot be started. */
static bool txd_get(void)
{
	pthread_attr_t attr;
	bool ok;

	if (likely(atomic_load_explicit(&txd_running, memory_order_acquire)))
		return true;
	pthread_once(&txd_once, txd_init);
	pthread_mutex_lock(&txd_start_lock);
	ok = atomic_load(&txd_running);
	if (!ok && !pthread_attr_init(&attr)) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ok = !pthread_create(&txd.thread, &attr, worker_main, &txd);
		pthread_attr_destroy(&attr);
		atomic_store_explicit(&txd_running, ok, memory_order_release);
	}
	pthread_mutex_unlock(&txd_start_lock);
	return ok;
}

static void net_tx_action(void);

/* Queue @txq (SCHED set) where it will run: at the end of this thread's section, else on the
 * TX thread. Without a TX thread (it could not be started) this thread's next section runs
 * it. */
static void sched_defer(struct mqtx_txq *txq)
{
	if (!mqtx__in_bh() && txd_get()) {
		sn_append(&txd.sn, txq);
		worker_kick(&txd);
		return;
	}
	if (!mqtx__in_bh())
		mqtx_warn("no TX thread: queue %u of %s runs at this thread's next transmit",
			  txq->index, txq->dev->name);
	sn_append(my_softnet(), txq);
	mqtx__raise_softirq(net_tx_action);
}

void mqtx_txq_schedule(struct mqtx_txq *txq)
{
	struct mqtx_workers *ws;

	if (atomic_fetch_or(&txq->state, MQTX_TXQ_SCHED) & MQTX_TXQ_SCHED)
		return;
	/* The read section keeps the workers alive until the queue is on a list that
	 * mqtx_dev_stop_workers() will move. */
	mqtx__rcu_read_lock();
	ws = atomic_load_explicit(&txq->dev->workers, memory_order_acquire);
	if (ws) {
		struct worker *w = &ws->w[txq->index % ws->n];

		sn_append(&w->sn, txq);
		worker_kick(w);
	} else {
		sched_defer(txq);
	}
	mqtx__rcu_read_unlock();
}

/* Section held: run this thread's list for at most TX_ROUNDS rounds (a driver may refuse
 * without stopping, forever). Returns the queue runs. */
static unsigned tx_rounds(void)
{
	unsigned n = 0, round;

	if (!tls_sn.registered || tls_in_action)
		return 0;
	tls_in_action = true;
	for (int i = 0; i < TX_ROUNDS && (round = sn_run(&tls_sn)); i++)
		n += round;
	tls_in_action = false;
	return n;
}

/* The handler the outermost section runs at its end: the rounds, then what is still scheduled
 * goes to the TX thread (without one, it stays for this thread's next section). */
static void net_tx_action(void)
{
	struct mqtx_txq *txq, *next;

	tx_rounds();
	if (tls_in_action)
		return;
	if (!txd_get()) {
		if (!sn_empty(&tls_sn))
			mqtx__raise_softirq(net_tx_action);
		return;
	}
	for (txq = sn_take(&tls_sn); txq; txq = next) {
		next = txq->next_sched;
		sn_append(&txd.sn, txq);
		worker_kick(&txd);
	}
	mqtx__softirq_pending = NULL;
}

unsigned mqtx_tx_action(void)
{
	unsigned n;

	mqtx__bh_disable();
	n = tx_rounds();
	mqtx__bh_enable();
	return n;
}

int mqtx_dev_start_workers(struct mqtx_dev *dev, unsigned n)
{
	struct mqtx_workers *ws;
	unsigned started;
	int err = 0;

	if (!n || n > 64)
		return -EINVAL;
	mqtx__config_lock(dev);
	if (atomic_load(&dev->workers)) {
		err = -EBUSY;
		goto out;
	}
	ws = mqtx__zalloc(sizeof(*ws) + n * sizeof(ws->w[0]));
	if (!ws) {
		err = -ENOMEM;
		goto out;
	}
	ws->n = n;
	for (started = 0; started < n; started++) {
		struct worker *w = &ws->w[started];

		worker_init(w);
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			err = -EAGAIN;
			break;
		}
	}
	if (err) {
		atomic_store(&dev->workers, ws);
		mqtx__config_unlock(dev);
		ws->n = started;
		mqtx_dev_stop_workers(dev);
		return err;
	}
	atomic_store_explicit(&dev->workers, ws, memory_order_release);
out:
	mqtx__config_unlock(dev);
	return err;
}

void mqtx_dev_stop_workers(struct mqtx_dev *dev)
{
	struct mqtx_workers *ws;
	struct mqtx_txq *txq, *next;

	mqtx__config_lock(dev);
	ws = atomic_exchange(&dev->workers, NULL);
	mqtx__config_unlock(dev);
	if (!ws)
		return;
	/* After this no scheduler can still be appending to a worker's list. */
	mqtx__rcu_synchronize();
	for (unsigned i = 0; i < ws->n; i++) {
		struct worker *w = &ws->w[i];

		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		/* What they still had runs where the caller's scheduling would run it. */
		for (txq = sn_take(&w->sn); txq; txq = next) {
			next = txq->next_sched;
			sched_defer(txq);
		}
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
	}
	mqtx__free(ws);
}

/* Unlink every queue of @dev from every thread's list (the device is being destroyed). */
void mqtx__sched_forget_dev(struct mqtx_dev *dev)
{
	struct softnet *sn;

	pthread_mutex_lock(&reg_lock);
	for (sn = reg_head.next_reg; sn != &reg_head; sn = sn->next_reg) {
		struct mqtx_txq **pp;

		mqtx_spin_lock(&sn->lock);
		for (pp = &sn->head; *pp;) {
			if ((*pp)->dev == dev)
				__atomic_store_n(pp, (*pp)->next_sched, __ATOMIC_RELAXED);
			else
				pp = &(*pp)->next_sched;
		}
		sn->tailp = pp;
		mqtx_spin_unlock(&sn->lock);
	}
	pthread_mutex_unlock(&reg_lock);
}

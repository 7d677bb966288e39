/* SPDX-License-Identifier: MIT */
/* mqtx for qdisc authors: the qdisc object and ops table, packet-list helpers, registry,
 * creation, grafting onto TX queues, and the dump emitter. */
#ifndef MQTX_QDISC_H
#define MQTX_QDISC_H

#include <mqtx/dev.h>
#include <mqtx/tc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Qdisc flags (struct mqtx_qdisc.flags), as Linux's TCQ_F_*. */
#define MQTX_QF_BUILTIN	    0x001u /* static (noop, noqueue): never freed */
#define MQTX_QF_INGRESS	    0x002u
#define MQTX_QF_CAN_BYPASS  0x004u /* work-conserving: an empty one may be bypassed */
#define MQTX_QF_MQROOT	    0x008u /* mq/mqprio root: no enqueue of its own */
#define MQTX_QF_ONETXQUEUE  0x010u /* every packet is for dev_queue: may bulk-dequeue */
#define MQTX_QF_DEACTIVATED 0x100u /* the device is going down: enqueue drops */
/* The kind takes a shared filter block by index (tc's ingress_block / egress_block before the
 * kind): it reads struct mqtx_qdisc.ingress_block / .egress_block in its init. */
#define MQTX_QF_INGRESS_BLOCK 0x1000u
#define MQTX_QF_EGRESS_BLOCK  0x2000u
/* The kind is only ever a device's root (taprio): a class refuses it, as Linux's init does. */
#define MQTX_QF_ROOTONLY 0x4000u

/* Handles and class ids as Linux's TC_H_*: major in the high 16 bits, minor in the low 16. */
#define MQTX_H_ROOT	      0xFFFFFFFFu
#define MQTX_H_INGRESS	      0xFFFFFFF1u
#define MQTX_H_UNSPEC	      0u
#define MQTX_H_MAJ(h)	      ((h)&0xFFFF0000u)
#define MQTX_H_MIN(h)	      ((h)&0x0000FFFFu)
#define MQTX_H_MAKE(maj, min) (MQTX_H_MAJ(maj) | MQTX_H_MIN(min))

struct mqtx_qdisc;
struct mqtx_dump;
struct mqtx_qdisc_stats;
struct mqtx_tcf_block; /* <mqtx/cls.h> */

/**
 * struct mqtx_class - one class of a classful qdisc, as `class show` reports it.
 * @minor: the class is major:@minor of its qdisc.
 * @parent: the parent tc shows for it: MQTX_H_ROOT, a class id, or 0 for none.
 * @leaf: its child qdisc, or NULL when it has none (an mqprio traffic class, tbf's class).
 * @stats: its counters, or NULL when tc shows none for it.
 * @queue_only: @stats holds queue counters only (drops, overlimits, requeues, backlog, qlen),
 *        no bytes or packets sent: tc shows no "Sent" part (Linux's class has no basic
 *        counters, as fq_codel's flows).
 */
struct mqtx_class {
	uint32_t minor, parent;
	struct mqtx_qdisc *leaf;
	const struct mqtx_qdisc_stats *stats;
	bool queue_only;
};

/** A packet predicate (mqtx_qdisc_extract()): true for the packets to take. Must not change
 *  or free @pkt, nor take any lock. */
typedef bool (*mqtx_pkt_match_fn)(const struct mqtx_pkt *pkt, void *arg);

/** Receives one class of a walk (mqtx_class_ops.walk, mqtx_qdisc_walk_classes()). */
typedef void (*mqtx_class_fn)(struct mqtx_qdisc *q, const struct mqtx_class *cl, void *arg);

/**
 * struct mqtx_class_ops - the classes of a classful qdisc (prio bands, mq/mqprio TX queues,
 * tbf's one class). Class X:m of qdisc X: is minor m, numbered 1..@count. A class that can take
 * a child always has one (a default one with handle 0 until the user grafts another). All
 * calls are made by the configuration code with the device's config lock held.
 *
 * @count: required. The number of classes that can be addressed (1..count).
 * @leaf: required. The child qdisc of class @minor (1..count), or NULL for a class that has
 *        none (then @graft must be absent).
 * @select_queue: optional. The TX queue a new child of class @minor must be rooted at (mq:
 *        queue minor-1). Absent: the parent's dev_queue.
 * @graft: optional (absent: the classes take no qdisc, grafting is refused). Make @new the
 *        child of class @minor and return the previous child in
 *        *@old. Only swaps the pointer and sets @new->parent; must not fail, sleep or
 *        allocate. For a parent without MQTX_QF_MQROOT it is called with the parent's lock
 *        held; the caller then moves the old child's backlog into @new (refusals counted as
 *        MQTX_DROP_REPLACE and taken off the parent's qlen/backlog) and destroys @old. For an
 *        MQROOT parent the caller has already switched the TX queue with mqtx_dev_graft_all()
 *        (without the lock); graft only records the new child.
 * @dump: optional. Emit the class's options (tc's words) with the mqtx_dump_*() calls.
 * @stats: optional. The class's counters into *@st; absent: the child's counters.
 * @dump_stats: optional. Emit class @minor's own statistics (tc's xstats of a class, Linux's
 *        Qdisc_class_ops.dump_stats) as @q's ops->dump_stats does. @q's lock held.
 * @tcf_block: optional (absent: the qdisc takes no filters). The filter block that "filter ...
 *        parent major:@minor" changes (Linux's Qdisc_class_ops.tcf_block): @minor 0 is the
 *        qdisc's own block, another minor a class's (htb keeps one per class), or NULL with a
 *        message in @ack when that class takes none. The qdisc owns the block (from
 *        mqtx_tcf_block_get() in its init) and classifies with it (mqtx_tcf_classify()).
 *        Config lock held.
 * @walk: optional. Report every class to @fn, in the order tc lists them, with its parent,
 *        leaf and counters (classes that are not in 1..count, such as mqprio's traffic
 *        classes, included). Absent: classes 1..count, each with its leaf, the qdisc as
 *        parent (root for an MQROOT qdisc), and @stats or else its child's counters.
 * @find: optional. Whether class @minor exists (Linux's Qdisc_class_ops.find), for a qdisc
 *        whose classes are not all of 1..count (htb's: @count is then the highest minor in
 *        use, and @leaf of a minor that does not exist is NULL). Absent: 1..count exist.
 * @opt_size: size of the class options @parse fills ("class add ... KIND OPTIONS").
 * @parse: optional (absent: tc's "Qdisc \"KIND\" is classless."). Turn the words after the
 *        kind of a class command into *@opt (zeroed, @opt_size bytes), as ops->parse does for
 *        the qdisc's own (same return values: -EINVAL, MQTX_TC_EUSAGE, MQTX_TC_EFATAL).
 * @change: optional (absent: the classes come with the qdisc, "class add|change" is refused).
 *        Create class @minor with parent @parent (MQTX_H_ROOT, or a class id of @q) when
 *        @create, else change it (@parent 0: not given); @opt NULL when the command gave no
 *        options (Linux's tca[TCA_OPTIONS] absent). Linux's Qdisc_class_ops.change: config
 *        lock held, @q's lock not: validate and allocate first, then take mqtx_qdisc_lock(q)
 *        around what the data path reads. Return 0 (a warning may be left in @ack, as
 *        Linux's extack on success), or -errno having changed nothing.
 * @delete: optional (absent: -EOPNOTSUPP). Delete class @minor and its child qdisc (Linux's
 *        Qdisc_class_ops.delete), its backlog dropped as MQTX_DROP_RESET. Same locking and
 *        return rules as @change (-EBUSY for a class that is still a parent).
 * @takes_child: optional. Whether class @minor, whose @leaf is NULL, takes a child all the
 *        same (netem's class, empty until a qdisc is grafted there; @graft is then given NULL
 *        when that child is deleted, and the class stays empty); every class id of the
 *        qdisc then names class 1 (Linux's netem_find()). Absent: a class without a leaf
 *        takes none (htb's inner classes).
 */
struct mqtx_class_ops {
	uint32_t (*count)(struct mqtx_qdisc *q);
	struct mqtx_qdisc *(*leaf)(struct mqtx_qdisc *q, uint32_t minor);
	struct mqtx_txq *(*select_queue)(struct mqtx_qdisc *q, uint32_t minor);
	void (*graft)(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc *new,
		      struct mqtx_qdisc **old);
	void (*dump)(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_dump *d);
	void (*stats)(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_qdisc_stats *st);
	void (*walk)(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg);
	void (*dump_stats)(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_dump *d);
	struct mqtx_tcf_block *(*tcf_block)(struct mqtx_qdisc *q, uint32_t minor,
					    struct mqtx_extack *ack);
	bool (*find)(struct mqtx_qdisc *q, uint32_t minor);
	size_t opt_size;
	int (*parse)(int argc, char **argv, void *opt, struct mqtx_extack *ack);
	int (*change)(struct mqtx_qdisc *q, uint32_t minor, uint32_t parent, bool create,
		      const void *opt, struct mqtx_extack *ack);
	int (*delete)(struct mqtx_qdisc *q, uint32_t minor, struct mqtx_extack *ack);
	bool (*takes_child)(struct mqtx_qdisc *q, uint32_t minor);
};

/**
 * struct mqtx_qdisc_ops - a queueing discipline. One static const table per qdisc.
 *
 * @id: required. Kind name as tc spells it ("pfifo_fast").
 * @priv_size: bytes of private state, reached with mqtx_qdisc_priv().
 * @opt_size: size of the parsed-options struct @parse fills (0: the qdisc takes no options).
 * @static_flags: MQTX_QF_* set on every instance.
 * @enqueue: required, except for noqueue (NULL means "no queue": packets go straight to the
 *        driver). Called with the qdisc lock held. Queue @pkt, or drop it (or another packet)
 *        with mqtx_qdisc_drop(), which links it onto *@to_free for freeing after the lock is
 *        released. Return MQTX_XMIT_SUCCESS, MQTX_XMIT_DROP (@pkt dropped) or MQTX_XMIT_CN
 *        (@pkt queued, another dropped).
 * @dequeue: required. Next packet to send, or NULL. Lock held. A NULL while packets stay
 *        queued (a shaper out of tokens) promises that the qdisc has arranged to be run again
 *        (a timer that schedules its queue, as Linux's qdisc watchdog).
 * @peek: required. The packet @dequeue would return, left in place. Lock held.
 * @parse: optional. Turn tc-style option tokens into *@opt (zeroed, @opt_size bytes), with
 *        presence flags so that @change touches only what was given. Reject unknown tokens
 *        and malformed values with a message naming the token; return 0 or -EINVAL.
 * @init: optional. Set defaults (from the device: tx_queue_len, mtu), then apply @opt (NULL:
 *        defaults only). Return 0 or -errno; @destroy is then still called.
 * @change: optional (absent: -EOPNOTSUPP). Apply @opt, called with the device's config lock
 *        held and @q's lock NOT held: validate everything and allocate what the new
 *        configuration needs first; then take mqtx_qdisc_lock(q) around what the data path
 *        reads (packets it drops go on *@to_free: a qdisc that trims to a lowered limit, as
 *        Linux's codel does; a fifo drops nothing, its backlog drains); release it, then
 *        mqtx_qdisc_destroy() any child taken out. Return 0, or -errno having changed
 *        nothing.
 * @reset: optional. Drop every queued packet onto *@to_free (the core counts them).
 *        Absent: the core dequeues until empty.
 * @destroy: optional. Release private allocations (the queue is already empty).
 * @dump: optional. Emit the options (tc's order and words) with the mqtx_dump_*() calls.
 * @attach: required with MQTX_QF_MQROOT, unused otherwise (Linux's Qdisc_ops.attach). The
 *        commit pass is making @q the root of its device: write into @qs[i], for every TX
 *        queue i < num_txq, the child qdisc to graft on that queue; from then on the queues
 *        own the children (@destroy must not free them), and @q applies what it sets on the
 *        device (mqprio: its traffic classes). Config lock held; must not fail or allocate.
 * @detach: optional. @q stops being the device's root (replaced, deleted, or the device is
 *        destroyed), before it is destroyed: undo what @attach set on the device. Config lock
 *        held; must not fail.
 * @cl_ops: optional. Present for a classful qdisc: its classes and children (see above).
 * @extract: optional. Lock held. Take every queued packet for which @match(pkt, @arg) is true
 *        out of the queue, in the order the qdisc received them, and append them to @out;
 *        adjust qlen and backlog; the packets left keep their order and state. Must not drop,
 *        allocate or fail; returns how many it took. What moves packets between queues (WME
 *        starting or stopping an aggregation session) needs it: mqtx_qdisc_extract() refuses
 *        a non-empty qdisc that has none.
 * @dump_stats: optional. Emit the qdisc's own statistics beyond the common counters (tc's
 *        xstats, Linux's Qdisc_ops.dump_stats) in tc's order and words with the mqtx_dump_*()
 *        calls; tc shows them with -s on lines of their own (mqtx_dump_nl() starts the next).
 *        Lock held.
 * @usage: optional. The kind's options as tc's explain() of its q_KIND.c prints them, without
 *        the last newline: what "qdisc add ... KIND help" prints, and what follows the message
 *        when @parse returns MQTX_TC_EUSAGE. NULL: the kind has no help.
 */
struct mqtx_qdisc_ops {
	const char *id;
	size_t priv_size;
	size_t opt_size;
	uint32_t static_flags;
	int (*enqueue)(struct mqtx_qdisc *q, struct mqtx_pkt *pkt, struct mqtx_pkt **to_free);
	struct mqtx_pkt *(*dequeue)(struct mqtx_qdisc *q);
	struct mqtx_pkt *(*peek)(struct mqtx_qdisc *q);
	int (*parse)(int argc, char **argv, void *opt, struct mqtx_extack *ack);
	int (*init)(struct mqtx_qdisc *q, const void *opt, struct mqtx_extack *ack);
	int (*change)(struct mqtx_qdisc *q, const void *opt, struct mqtx_pkt **to_free,
		      struct mqtx_extack *ack);
	void (*reset)(struct mqtx_qdisc *q, struct mqtx_pkt **to_free);
	void (*destroy)(struct mqtx_qdisc *q);
	void (*dump)(struct mqtx_qdisc *q, struct mqtx_dump *d);
	void (*attach)(struct mqtx_qdisc *q, struct mqtx_qdisc **qs);
	void (*detach)(struct mqtx_qdisc *q);
	const struct mqtx_class_ops *cl_ops;
	unsigned (*extract)(struct mqtx_qdisc *q, mqtx_pkt_match_fn match, void *arg,
			    struct mqtx_pkt_list *out);
	void (*dump_stats)(struct mqtx_qdisc *q, struct mqtx_dump *d);
	const char *usage;
};

/**
 * struct mqtx_qdisc - one qdisc instance. Fields below "lock held" are protected by the lock
 * of @dev_queue (mqtx_qdisc_lock()), which is the TX queue the qdisc is rooted at: each queue's
 * own qdisc uses that queue's lock; one qdisc shared by all queues uses queue 0's (the
 * single-lock design the multiqueue series replaced, kept as a baseline).
 */
struct mqtx_qdisc {
	const struct mqtx_qdisc_ops *ops;
	struct mqtx_dev *dev;
	struct mqtx_txq *dev_queue;
	uint32_t handle;
	uint32_t parent;
	uint32_t flags;
	/* The shared filter blocks asked for at creation (tc's ingress_block/egress_block), set
	 * before ops->init for a kind with MQTX_QF_*_BLOCK; 0: a block of its own. */
	uint32_t ingress_block, egress_block;
	uint64_t seq; /* creation order (set by mqtx_qdisc_create): tc's dump order uses it */
	/* lock held */
	uint32_t qlen;
	uint64_t backlog;
	struct mqtx_pkt_list requeue;
	bool running;
	uint64_t bytes, packets; /* counted by the core as the driver takes packets */
	uint64_t drops, requeues, overlimits;
	/* private state follows at mqtx_qdisc_priv() */
};

/** mqtx_qdisc_priv() - the qdisc's private area. */
static inline void *mqtx_qdisc_priv(struct mqtx_qdisc *q)
{
	return (char *)q + ((sizeof(*q) + MQTX_CACHE_LINE - 1) & ~(size_t)(MQTX_CACHE_LINE - 1));
}

/**
 * mqtx_qdisc_prio_class() - the minor of the class of @q that @pkt's priority names, or 0:
 * a priority whose major is @q's handle names class major:minor directly, before any filter
 * runs (Linux's prio_classify(), htb_classify(), ets_classify()). A qdisc without a handle
 * (made through the C API only) has no major to match.
 */
static inline uint32_t mqtx_qdisc_prio_class(const struct mqtx_qdisc *q, const struct mqtx_pkt *pkt)
{
	if (!q->handle || MQTX_H_MAJ(pkt->priority) != MQTX_H_MAJ(q->handle))
		return 0;
	return MQTX_H_MIN(pkt->priority);
}

/* ---- helpers for implementations (lock held) ---- */

/**
 * mqtx_qdisc_drop() - drop @pkt from @q for @reason: counted in the qdisc's drops now, marked
 * with @reason (pkt->drop_reason) and linked onto *@to_free. The device counts it by reason, on
 * the packet's TX queue (for an ingress qdisc, on the receive side), when the list is freed
 * with mqtx_qdisc_free_dropped() (the core frees the lists it hands to ops). Returns
 * MQTX_XMIT_DROP.
 */
MQTX_API int mqtx_qdisc_drop(struct mqtx_qdisc *q, struct mqtx_pkt *pkt,
			     enum mqtx_drop_reason reason, struct mqtx_pkt **to_free);

/**
 * mqtx_qdisc_stolen() - a filter of @q took @pkt elsewhere (MQTX_ACT_STOLEN: redirected to
 * another device): count it on the packet's TX queue (for an ingress qdisc, on the receive
 * side) as MQTX_DROP_REDIRECT, which is not a drop of @q, and return MQTX_XMIT_SUCCESS for
 * the enqueue to return. Call it right after the classification, before the caller's section
 * ends (the redirect is carried out then).
 */
MQTX_API int mqtx_qdisc_stolen(struct mqtx_qdisc *q, struct mqtx_pkt *pkt);

/**
 * mqtx_qdisc_free_dropped() - free a list of packets dropped with mqtx_qdisc_drop() on @dev,
 * counting each under its reason. For a qdisc that drops outside an enqueue (CoDel at
 * dequeue) and for callers of ops directly. Returns how many were freed.
 */
MQTX_API unsigned mqtx_qdisc_free_dropped(struct mqtx_dev *dev, struct mqtx_pkt *to_free);

/** mqtx_qdisc_enqueue_tail() - append to @l and account qlen/backlog. */
static inline int mqtx_qdisc_enqueue_tail(struct mqtx_qdisc *q, struct mqtx_pkt_list *l,
					  struct mqtx_pkt *pkt)
{
	mqtx_pkt_list_add_tail(l, pkt);
	q->qlen++;
	q->backlog += pkt->len;
	return MQTX_XMIT_SUCCESS;
}

/** mqtx_qdisc_dequeue_head() - pop from @l and account qlen/backlog. */
static inline struct mqtx_pkt *mqtx_qdisc_dequeue_head(struct mqtx_qdisc *q,
						       struct mqtx_pkt_list *l)
{
	struct mqtx_pkt *pkt = mqtx_pkt_list_pop(l);

	if (pkt) {
		q->qlen--;
		q->backlog -= pkt->len;
	}
	return pkt;
}

/**
 * mqtx_qdisc_reset() - lock held: drop everything @q holds, its requeue list and its queue
 * (through ops->reset when it has one), for @reason onto *@to_free; qlen and backlog become 0
 * (Linux's qdisc_reset()). For a classful qdisc emptying a child it takes out.
 */
MQTX_API void mqtx_qdisc_reset(struct mqtx_qdisc *q, enum mqtx_drop_reason reason,
			       struct mqtx_pkt **to_free);

/**
 * mqtx_qdisc_extract() - lock held: take out of @q every packet for which @match(pkt, @arg)
 * is true, in the order @q would have sent them: its requeue list first, then its queue
 * (ops->extract). They are appended to @out, in that order, and are the caller's. Nothing is
 * dropped or counted. Return: how many were taken; -EOPNOTSUPP (nothing taken) when @q holds
 * packets in its queue and has no ops->extract.
 */
MQTX_API int mqtx_qdisc_extract(struct mqtx_qdisc *q, mqtx_pkt_match_fn match, void *arg,
				struct mqtx_pkt_list *out);

/**
 * mqtx_qdisc_can_extract() - true when mqtx_qdisc_extract() never refuses @q: it has
 * ops->extract, or no queue of its own (noop, noqueue).
 */
MQTX_API bool mqtx_qdisc_can_extract(const struct mqtx_qdisc *q);

/**
 * mqtx_qdisc_requeue_list() - lock held: move every packet of @l into @q's requeue list,
 * keeping their order, before what the list holds (@head) or after it: they are sent before
 * anything in @q's queue, never overtaken, outside the qdisc's limits (Linux's requeue, as the
 * 2008 mac80211 requeued frames between its queues). Each packet's queue_mapping must be the
 * TX queue @q serves. @l is empty afterwards. Not counted: the caller counts its moves.
 */
MQTX_API void mqtx_qdisc_requeue_list(struct mqtx_qdisc *q, struct mqtx_pkt_list *l, bool head);

/** mqtx_qdisc_now() - the device clock's time in ns. */
MQTX_API uint64_t mqtx_qdisc_now(const struct mqtx_qdisc *q);

/* ---- registry ---- */

/**
 * mqtx_qdisc_register() - add a kind (@ops is kept, not copied).
 * Return: 0; -EINVAL (no id, dequeue or peek); -EEXIST (the id is taken); -ENOSPC (64 kinds
 * are registered already).
 */
MQTX_API int mqtx_qdisc_register(const struct mqtx_qdisc_ops *ops);

/** mqtx_qdisc_lookup() - the ops of kind @id, or NULL. Built-in kinds are always present. */
MQTX_API const struct mqtx_qdisc_ops *mqtx_qdisc_lookup(const char *id);

/* ---- default qdisc (net.core.default_qdisc) ---- */

/**
 * mqtx_set_default_qdisc() - the kind attached to each TX queue by default (on a multiqueue
 * device: under mq). Applies to qdiscs created afterwards. @kind NULL restores pfifo_fast.
 * Return: 0; -ENOENT (unknown kind); -EINVAL (mq, mqprio or ingress cannot be a default).
 */
MQTX_API int mqtx_set_default_qdisc(const char *kind);

/**
 * mqtx_dev_set_default_qdisc() - a per-device override of mqtx_set_default_qdisc() (NULL:
 * follow the global setting). Return: as mqtx_set_default_qdisc().
 */
MQTX_API int mqtx_dev_set_default_qdisc(struct mqtx_dev *dev, const char *kind);

/** mqtx_default_qdisc() - the default kind's name for @dev (NULL: the global setting). */
MQTX_API const char *mqtx_default_qdisc(struct mqtx_dev *dev);

/**
 * mqtx_qdisc_default_ops() - the kind TX queue @i of @dev gets by default: the device's or
 * the global default for a queue in use, pfifo_fast for a queue beyond real_num_txq (Linux's
 * get_default_qdisc_ops()). What mq gives each of its classes.
 */
MQTX_API const struct mqtx_qdisc_ops *mqtx_qdisc_default_ops(struct mqtx_dev *dev, uint32_t i);

/* ---- creation and grafting ---- */

/**
 * mqtx_qdisc_create() - allocate and initialise a qdisc rooted at @dev_queue.
 * @opt: parsed options (see ops->parse) or NULL for defaults.
 * Return: 0 and *@out; -ENOMEM; -EINVAL or the error of ops->init (message in @ack).
 */
MQTX_API int mqtx_qdisc_create(struct mqtx_dev *dev, struct mqtx_txq *dev_queue,
			       const struct mqtx_qdisc_ops *ops, uint32_t handle, const void *opt,
			       struct mqtx_extack *ack, struct mqtx_qdisc **out);

/**
 * mqtx_qdisc_destroy() - purge (counted as MQTX_DROP_RESET), destroy and free. NULL allowed;
 * built-in qdiscs are ignored. Nothing on the data path may reach @q any more: never attached,
 * taken out of its parent under the parent's lock (then unlocked), or its device down, or
 * grafted out by mqtx_dev_graft_all(). Takes no lock.
 */
MQTX_API void mqtx_qdisc_destroy(struct mqtx_qdisc *q);

/**
 * mqtx_dev_graft_all() - make @qs[i] the qdisc of TX queue i for every i < num_txq, in one step
 * that cannot fail (the commit pass of a transactional change; qs[i] may repeat, e.g. one
 * shared qdisc rooted at queue 0). On an up device traffic keeps flowing: each old qdisc is
 * taken out of service, its backlog (requeue list first, then its queue in order) re-enqueued
 * into the new one (refusals counted as MQTX_DROP_REPLACE), and it is returned in @old[i]
 * (NULL where unchanged, each distinct old qdisc once) for the caller to destroy.
 * Call with the device's config lock held (mqtx_dev_config_lock()).
 */
MQTX_API void mqtx_dev_graft_all(struct mqtx_dev *dev, struct mqtx_qdisc *const *qs,
				 struct mqtx_qdisc **old);

/**
 * mqtx_dev_graft_ingress() - attach @q (NULL: none) to the device's rx_queue; its enqueue runs
 * under the rx_queue lock for every received packet and may drop it. Returns the old one.
 */
MQTX_API struct mqtx_qdisc *mqtx_dev_graft_ingress(struct mqtx_dev *dev, struct mqtx_qdisc *q);
MQTX_API struct mqtx_qdisc *mqtx_dev_ingress_qdisc(struct mqtx_dev *dev);

/* ---- hooks on the transmit path (clsact's egress filters, mqprio's) ---- */

/* Where a hook runs: both before the packet's TX queue is chosen, egress first. */
#define MQTX_HOOK_EGRESS 0 /* Linux's sch_handle_egress(): clsact's egress filters */
#define MQTX_HOOK_SELECT 1 /* may choose the queue: set queue_mapping and MQTX_PKT_F_QMAP_SET */
#define MQTX_HOOK_MAX	 2

/* What a hook says of a packet. */
#define MQTX_HOOK_PASS	 0 /* go on */
#define MQTX_HOOK_DROP	 1 /* drop it: pkt->drop_reason set, the core frees and counts it */
#define MQTX_HOOK_STOLEN 2 /* taken (redirected): the core counts MQTX_DROP_REDIRECT */

/** A transmit hook: runs lock-free inside the transmit path's read section; returns
 *  MQTX_HOOK_*. A drop or a steal is counted on the packet's queue_mapping when it is a
 *  queue in use, else on queue 0. */
typedef int (*mqtx_hook_fn)(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg);

/**
 * struct mqtx_hook - a transmit hook, in memory of its owner's (a qdisc's private area) that
 * must stay until mqtx_dev_clear_hook() has returned: setting one allocates nothing, so a
 * qdisc can set it in a commit that must not fail (its attach).
 * @fn: what runs.
 * @arg: its third argument.
 */
struct mqtx_hook {
	mqtx_hook_fn fn;
	void *arg;
};

/**
 * mqtx_dev_set_hook() - run @h->fn(dev, pkt, @h->arg) for every packet transmitted on @dev,
 * at @point (MQTX_HOOK_*), before its queue is chosen. Config lock held.
 * Return: 0; -EINVAL (a point out of range, no function); -EBUSY (a hook is set there: one
 * clsact, one mqprio per device).
 */
MQTX_API int mqtx_dev_set_hook(struct mqtx_dev *dev, unsigned point, struct mqtx_hook *h);

/**
 * mqtx_dev_clear_hook() - remove the hook at @point if it is @h, and wait until no transmit
 * can still be running it. Config lock held; never inside a read section.
 */
MQTX_API void mqtx_dev_clear_hook(struct mqtx_dev *dev, unsigned point, struct mqtx_hook *h);

/** mqtx_txq_qdisc() - the configured qdisc of @txq (under the device's config lock). */
MQTX_API struct mqtx_qdisc *mqtx_txq_qdisc(struct mqtx_txq *txq);

/**
 * struct mqtx_qdisc_stats - a qdisc's counters: @bytes, @packets taken by the driver; @drops;
 * @requeues; @overlimits; @qlen, @backlog queued now, the requeue list included.
 */
struct mqtx_qdisc_stats {
	uint64_t bytes, packets, drops, requeues, overlimits, backlog;
	uint32_t qlen;
};

/**
 * mqtx_qdisc_lock() - take the lock that protects @q's queue and the fields marked "lock held"
 * (the lock of the TX queue @q is rooted at; for an ingress qdisc, the receive queue's): what
 * ops->change takes around the part the data path reads (Linux's sch_tree_lock).
 * mqtx_qdisc_unlock() - release it.
 */
MQTX_API void mqtx_qdisc_lock(struct mqtx_qdisc *q);
MQTX_API void mqtx_qdisc_unlock(struct mqtx_qdisc *q);

/** mqtx_qdisc_get_stats() - a consistent snapshot of @q's counters (takes its lock). */
MQTX_API void mqtx_qdisc_get_stats(struct mqtx_qdisc *q, struct mqtx_qdisc_stats *st);

/**
 * mqtx_qdisc_tree_stats() - @q's counters as tc shows them: an MQROOT qdisc's are the sum of
 * its children's (mq_dump()), any other's its own. Config lock held.
 */
MQTX_API void mqtx_qdisc_tree_stats(struct mqtx_qdisc *q, struct mqtx_qdisc_stats *st);

/** mqtx_qdisc_stats_add() - add @b's counters to @a (summing classes or queues). */
static inline void mqtx_qdisc_stats_add(struct mqtx_qdisc_stats *a,
					const struct mqtx_qdisc_stats *b)
{
	a->bytes += b->bytes;
	a->packets += b->packets;
	a->drops += b->drops;
	a->requeues += b->requeues;
	a->overlimits += b->overlimits;
	a->backlog += b->backlog;
	a->qlen += b->qlen;
}

/**
 * mqtx_qdisc_walk_classes() - every class of @q, in tc's order, to @fn (nothing for a
 * classless qdisc): ops->cl_ops->walk, or the default walk it describes. Config lock held.
 */
MQTX_API void mqtx_qdisc_walk_classes(struct mqtx_qdisc *q, mqtx_class_fn fn, void *arg);

/* ---- dump emitter: one call per option, rendered as tc text and as JSON ---- */

/**
 * mqtx_dump_uint() - emit option @key with value @v. @text is a printf format with one
 * PRIu64-compatible conversion (e.g. "limit %" PRIu64 "p") used for the text form; the JSON
 * form is "key": v. @key NULL: text only; @text NULL: JSON only (so do mqtx_dump_int() and
 * mqtx_dump_str()). Items of a line are set off by a blank, except a text that starts with a
 * tab, which tc prints as its own separator ("clockid TAI\tbase-time 0").
 */
MQTX_API void mqtx_dump_uint(struct mqtx_dump *d, const char *key, const char *text, uint64_t v);
/** mqtx_dump_int() - a signed value (tc's print_int): @text has one PRId64-compatible
 *  conversion; the JSON form is "key": v. */
MQTX_API void mqtx_dump_int(struct mqtx_dump *d, const char *key, const char *text, int64_t v);
/** mqtx_dump_str() - the same for a string value; @text has one %s. */
MQTX_API void mqtx_dump_str(struct mqtx_dump *d, const char *key, const char *text, const char *v);
/**
 * mqtx_dump_float() - a real value (tc's print_float): @text has one double conversion
 * ("loss %g%%"); the JSON form is "key": v printed with %g, as iproute2's JSON writer does.
 * @key NULL: text only; @text NULL: JSON only.
 */
MQTX_API void mqtx_dump_float(struct mqtx_dump *d, const char *key, const char *text, double v);
/**
 * mqtx_dump_obj_begin() - open a JSON object "key": { ... } (tc's open_json_object) that the
 * next items go into, until mqtx_dump_obj_end(); nothing in text.
 * mqtx_dump_obj_end() - close it.
 */
MQTX_API void mqtx_dump_obj_begin(struct mqtx_dump *d, const char *key);
MQTX_API void mqtx_dump_obj_end(struct mqtx_dump *d);
/**
 * mqtx_dump_array_begin() - open a JSON array "key": [ ... ] (tc's open_json_array) that the
 * next items go into, until mqtx_dump_array_end(); nothing in text. Its elements are objects
 * (mqtx_dump_obj_begin() with @key NULL) or values.
 * mqtx_dump_array_end() - close it.
 */
MQTX_API void mqtx_dump_array_begin(struct mqtx_dump *d, const char *key);
MQTX_API void mqtx_dump_array_end(struct mqtx_dump *d);
/**
 * mqtx_dump_null() - a member tc prints with print_null(): "key": null in JSON, @text (no
 * conversion) in text. @key NULL: text only; @text NULL: JSON only.
 */
MQTX_API void mqtx_dump_null(struct mqtx_dump *d, const char *key, const char *text);
/**
 * mqtx_dump_time() - a time option (@ns): tc's words in text ("5ms", via @text with one %s),
 * and in JSON the number iproute2 emits, whole microseconds (tc's time unit). @key NULL: text
 * only; @text NULL: JSON only (so do mqtx_dump_size() and mqtx_dump_rate()).
 */
MQTX_API void mqtx_dump_time(struct mqtx_dump *d, const char *key, const char *text, uint64_t ns);
/**
 * mqtx_dump_time_signed() - a time that may be negative (@ns): tc's words of its magnitude
 * with a "-" in front when negative ("drop_next -2ms", via @text with one %s), and the signed
 * whole microseconds in JSON.
 */
MQTX_API void mqtx_dump_time_signed(struct mqtx_dump *d, const char *key, const char *text,
				    int64_t ns);
/** mqtx_dump_size() - a size in bytes: "10Kb" in text (@text has one %s), bytes in JSON. */
MQTX_API void mqtx_dump_size(struct mqtx_dump *d, const char *key, const char *text,
			     uint64_t bytes);
/** mqtx_dump_rate() - a rate in bytes per second: "1Mbit" in text (@text has one %s), bytes per
 *  second in JSON (iproute2's print_rate()). */
MQTX_API void mqtx_dump_rate(struct mqtx_dump *d, const char *key, const char *text,
			     uint64_t bytes_per_sec);
/** mqtx_dump_flag() - a flag that is on: @text (no conversion) in text, "key": true in JSON.
 *  @key NULL: text only (what tc prints but leaves out of its JSON). */
MQTX_API void mqtx_dump_flag(struct mqtx_dump *d, const char *key, const char *text);
/** mqtx_dump_bool() - "key": true/false in JSON; @text (no conversion, NULL: nothing) in text
 *  only when @v is true. */
MQTX_API void mqtx_dump_bool(struct mqtx_dump *d, const char *key, const char *text, bool v);
/** mqtx_dump_nl() - end the text line: what follows starts a new one (tc's print_nl; used
 *  between the lines of xstats). Nothing in JSON. */
MQTX_API void mqtx_dump_nl(struct mqtx_dump *d);
/**
 * mqtx_dump_indent() - what starts each text line written from now on: the statistics tc
 * shows on lines of their own are indented by two blanks, as most of its printers do it,
 * unless a kind's printer says otherwise (htb's class xstats: one). @indent must stay valid
 * until the dump ends.
 */
MQTX_API void mqtx_dump_indent(struct mqtx_dump *d, const char *indent);
/** mqtx_dump_uint_array() - "label v0 v1 ..." in text, "key": [v0, v1, ...] in JSON. */
MQTX_API void mqtx_dump_uint_array(struct mqtx_dump *d, const char *key, const char *label,
				   const uint32_t *v, unsigned n);
/** mqtx_dump_str_array() - "label s0 s1 ..." in text, "key": ["s0", "s1", ...] in JSON. */
MQTX_API void mqtx_dump_str_array(struct mqtx_dump *d, const char *key, const char *label,
				  const char *const *v, unsigned n);

/**
 * mqtx_dump_details() - whether the dump is for tc's -d: a dump adds then what tc prints only
 * with it (tbf: "burst 10Kb/1 mpu 0b ... linklayer ethernet").
 */
MQTX_API bool mqtx_dump_details(const struct mqtx_dump *d);

/**
 * mqtx_qdisc_dump_opts() - render @q's options: tc text into @text and JSON members
 * (without braces) into @json. Returns the text length, or -ENOSPC if a buffer was too small.
 */
MQTX_API int mqtx_qdisc_dump_opts(struct mqtx_qdisc *q, char *text, size_t text_len, char *json,
				  size_t json_len);

/* Flags of mqtx_qdisc_dump_options(). */
#define MQTX_DUMP_F_DETAILS 0x1u /* tc -d: the details tc shows only then */

/**
 * mqtx_qdisc_dump_options() - mqtx_qdisc_dump_opts() with @flags (MQTX_DUMP_F_DETAILS, or 0 for
 * the plain form). Takes @q's lock.
 * Return: the text length; -ENOSPC (a buffer was too small).
 */
MQTX_API int mqtx_qdisc_dump_options(struct mqtx_qdisc *q, unsigned flags, char *text,
				     size_t text_len, char *json, size_t json_len);

/**
 * mqtx_qdisc_dump_xstats() - render @q's own statistics (ops->dump_stats, tc's xstats) as
 * `tc -s qdisc show` prints them after the counters: text lines indented by two blanks
 * (without the last newline) into @text, JSON members (without braces) into @json. Takes @q's
 * lock.
 * Return: the text length, 0 when @q has none; -ENOSPC (a buffer was too small).
 */
MQTX_API int mqtx_qdisc_dump_xstats(struct mqtx_qdisc *q, char *text, size_t text_len, char *json,
				    size_t json_len);

/**
 * mqtx_class_dump_xstats() - the same for class @minor of @q (cl_ops->dump_stats), as
 * `tc -s class show` prints them. Takes @q's lock.
 * Return: the text length, 0 when the class has none; -ENOSPC (a buffer was too small).
 */
MQTX_API int mqtx_class_dump_xstats(struct mqtx_qdisc *q, uint32_t minor, char *text,
				    size_t text_len, char *json, size_t json_len);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/* htb's state, shared by its data path (sch_htb.c), its class tree (htb_tree.c) and its
 * classes (htb_class.c). */
#ifndef MQTX_QDISC_HTB_H
#define MQTX_QDISC_HTB_H

#include <mqtx/cls.h>
#include <mqtx/qdisc.h>
#include "base/tbucket.h"

#define HTB_MAXDEPTH 8		 /* TC_HTB_MAXDEPTH: levels 0 (leaves) .. 7 */
#define HTB_NUMPRIO  8		 /* TC_HTB_NUMPRIO */
#define HTB_PQ	     HTB_NUMPRIO /* the link a class waits on its level's event queue with */

/* A class's mode (Linux's enum htb_cmode): out of ceil tokens, may borrow, may send. */
enum htb_cmode { HTB_CANT_SEND, HTB_MAY_BORROW, HTB_CAN_SEND };

struct htb_class;

/* One link of a class in a sorted list (Linux keeps red-black trees; lists sorted the same
 * way give the same order, and the classes of one row are few). */
struct htb_link {
	struct htb_class *next, *prev;
	bool on;
};

/* A row of a level or the feed of an inner class, for one priority (Linux's htb_prio): the
 * active classes sorted by class id, the round-robin pointer, and the id it had when its
 * class left (to find the next one again). */
struct htb_prio {
	struct htb_class *first;
	struct htb_class *ptr;
	uint32_t last_ptr_id;
};

struct htb_class {
	uint32_t classid;
	struct htb_class *parent, *hnext; /* hnext: the class hash bucket's chain */
	uint32_t children;
	int level; /* 0: a leaf */
	uint32_t prio, quantum;
	struct mqtx_ratecfg rate, ceil;
	int64_t buffer, cbuffer, mbuffer; /* bucket depths in ns */
	int64_t tokens, ctokens, t_c, pq_key;
	enum htb_cmode cmode;
	unsigned prio_activity;
	struct htb_link link[HTB_NUMPRIO + 1];
	struct mqtx_tcf_block *block; /* its filters, for the packets that reach it (inner) */
	/* a leaf's */
	struct mqtx_qdisc *leaf;
	int32_t deficit[HTB_MAXDEPTH];
	/* an inner class's */
	struct htb_prio clprio[HTB_NUMPRIO];
	/* what tc shows */
	uint64_t bytes, packets, drops, overlimits;
	uint32_t lends, borrows, giants;
};

struct htb_level {
	struct htb_prio hprio[HTB_NUMPRIO];
	struct htb_class *wait_pq; /* sorted by pq_key, linked through link[HTB_PQ] */
};

struct htb_priv {
	/* the class hash as Linux's qdisc_class_hash: its order is tc's listing order */
	struct htb_class **hash;
	uint32_t hashsize, hashelems;
	struct htb_level hlevel[HTB_MAXDEPTH];
	unsigned row_mask[HTB_MAXDEPTH];
	int64_t near_ev_cache[HTB_MAXDEPTH];
	int64_t now;
	struct mqtx_pkt_list direct; /* unclassified packets when no default class takes them */
	uint32_t direct_len, direct_qlen;
	uint64_t direct_pkts;
	uint32_t r2q, defcls;
	struct mqtx_qdisc *sch;	 /* the qdisc, whose overlimits its classes count */
	struct mqtx_pkt *peeked; /* what peek took out (Linux's qdisc_peek_dequeued) */
	struct mqtx_timer watchdog;
	bool watchdog_ready;
	struct mqtx_tcf_block *block;
};

/* The class options as tc sends them (htb_parse_class_opt): buckets in ticks. */
struct htb_copt {
	uint64_t rate, ceil; /* bytes/s */
	uint32_t buffer, cbuffer;
	uint32_t quantum, prio;
	uint16_t mpu, overhead;
	uint8_t linklayer;
};

/* htb_tree.c: the lists (by class id; by event time with @by_key), the activity of classes
 * in rows and feeds (Linux's htb_activate_prios() and friends), the class lookup */
uint32_t mqtx__htb_hash(uint32_t id, uint32_t size);
struct htb_class *mqtx__htb_find(struct htb_priv *p, uint32_t classid);
void mqtx__htb_list_insert(struct htb_class **first, struct htb_class *cl, int i, bool by_key);
void mqtx__htb_list_erase(struct htb_class **first, struct htb_class *cl, int i);
void mqtx__htb_next_node(struct htb_class **ptr, int prio);
struct htb_class *mqtx__htb_find_next_upper(struct htb_class *cl, int prio, uint32_t id);
int mqtx__htb_lowest_bit(unsigned m);
void mqtx__htb_add_to_wait_tree(struct htb_priv *p, struct htb_class *cl, int64_t delay);
void mqtx__htb_pq_erase(struct htb_priv *p, struct htb_class *cl);
void mqtx__htb_activate_prios(struct htb_priv *p, struct htb_class *cl);
void mqtx__htb_deactivate_prios(struct htb_priv *p, struct htb_class *cl);
void mqtx__htb_activate(struct htb_priv *p, struct htb_class *cl);
void mqtx__htb_deactivate(struct htb_priv *p, struct htb_class *cl);

/* htb_class.c */
void mqtx__htb_classes_destroy(struct mqtx_qdisc *q);
void mqtx__htb_classes_reset(struct mqtx_qdisc *q, struct mqtx_pkt **to_free);
extern const struct mqtx_class_ops mqtx__htb_class_ops;

#endif

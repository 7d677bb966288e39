// SPDX-License-Identifier: MIT
/* htb's class tree as its data path and its class changes both move it (Linux sch_htb.c):
 * the rows and feeds of active classes, the event queues, and the class lookup. */
#include <string.h>

#include "qdisc/htb.h"

/* The class hash (Linux's qdisc_class_hash): its walk is tc's listing order. */
uint32_t mqtx__htb_hash(uint32_t id, uint32_t size)
{
	id ^= id >> 8;
	id ^= id >> 4;
	return id & (size - 1);
}

struct htb_class *mqtx__htb_find(struct htb_priv *p, uint32_t classid)
{
	struct htb_class *cl = p->hash[mqtx__htb_hash(classid, p->hashsize)];

	while (cl && cl->classid != classid)
		cl = cl->hnext;
	return cl;
}

/* ---- sorted lists of classes: by class id (rows, feeds), by event time (wait queues) ---- */

void mqtx__htb_list_insert(struct htb_class **first, struct htb_class *cl, int i, bool by_key)
{
	struct htb_class **pp = first, *prev = NULL;

	/* equal keys go after those already there, as Linux's rb insert to the right */
	while (*pp && (by_key ? (*pp)->pq_key <= cl->pq_key : (*pp)->classid < cl->classid)) {
		prev = *pp;
		pp = &(*pp)->link[i].next;
	}
	cl->link[i].next = *pp;
	cl->link[i].prev = prev;
	if (*pp)
		(*pp)->link[i].prev = cl;
	*pp = cl;
	cl->link[i].on = true;
}

void mqtx__htb_list_erase(struct htb_class **first, struct htb_class *cl, int i)
{
	struct htb_link *l = &cl->link[i];

	if (!l->on)
		return;
	if (l->prev)
		l->prev->link[i].next = l->next;
	else
		*first = l->next;
	if (l->next)
		l->next->link[i].prev = l->prev;
	l->next = l->prev = NULL;
	l->on = false;
}

void mqtx__htb_next_node(struct htb_class **ptr, int prio)
{
	if (*ptr)
		*ptr = (*ptr)->link[prio].next;
}

/* htb_id_find_next_upper(): the first class of the list with an id >= @id. */
struct htb_class *mqtx__htb_find_next_upper(struct htb_class *cl, int prio, uint32_t id)
{
	while (cl && cl->classid < id)
		cl = cl->link[prio].next;
	return cl;
}

int mqtx__htb_lowest_bit(unsigned m)
{
	return __builtin_ctz(m);
}

/* ---- activity: which classes a row or a feed offers (mqtx__htb_activate_prios) ---- */

void mqtx__htb_add_to_wait_tree(struct htb_priv *p, struct htb_class *cl, int64_t delay)
{
	cl->pq_key = p->now + delay;
	if (cl->pq_key == p->now)
		cl->pq_key++;
	if (p->near_ev_cache[cl->level] > cl->pq_key)
		p->near_ev_cache[cl->level] = cl->pq_key;
	mqtx__htb_list_insert(&p->hlevel[cl->level].wait_pq, cl, HTB_PQ, true);
}

void mqtx__htb_pq_erase(struct htb_priv *p, struct htb_class *cl)
{
	mqtx__htb_list_erase(&p->hlevel[cl->level].wait_pq, cl, HTB_PQ);
}

static void add_class_to_row(struct htb_priv *p, struct htb_class *cl, unsigned mask)
{
	p->row_mask[cl->level] |= mask;
	while (mask) {
		int prio = mqtx__htb_lowest_bit(mask);

		mask &= ~(1u << prio);
		mqtx__htb_list_insert(&p->hlevel[cl->level].hprio[prio].first, cl, prio, false);
	}
}

static void remove_class_from_row(struct htb_priv *p, struct htb_class *cl, unsigned mask)
{
	struct htb_level *hl = &p->hlevel[cl->level];
	unsigned m = 0;

	while (mask) {
		int prio = mqtx__htb_lowest_bit(mask);
		struct htb_prio *hp = &hl->hprio[prio];

		mask &= ~(1u << prio);
		if (hp->ptr == cl)
			mqtx__htb_next_node(&hp->ptr, prio);
		mqtx__htb_list_erase(&hp->first, cl, prio);
		if (!hp->first)
			m |= 1u << prio;
	}
	p->row_mask[cl->level] &= ~m;
}

/* A class that may borrow hangs in its parent's feed, up to an ancestor that can send, which
 * goes in its level's row. */
void mqtx__htb_activate_prios(struct htb_priv *p, struct htb_class *cl)
{
	struct htb_class *parent = cl->parent;
	unsigned mask = cl->prio_activity;

	while (cl->cmode == HTB_MAY_BORROW && parent && mask) {
		for (unsigned m = mask; m;) {
			int prio = mqtx__htb_lowest_bit(m);

			m &= ~(1u << prio);
			if (parent->clprio[prio].first) /* the parent offers this prio already */
				mask &= ~(1u << prio);
			mqtx__htb_list_insert(&parent->clprio[prio].first, cl, prio, false);
		}
		parent->prio_activity |= mask;
		cl = parent;
		parent = cl->parent;
	}
	if (cl->cmode == HTB_CAN_SEND && mask)
		add_class_to_row(p, cl, mask);
}

void mqtx__htb_deactivate_prios(struct htb_priv *p, struct htb_class *cl)
{
	struct htb_class *parent = cl->parent;
	unsigned mask = cl->prio_activity;

	while (cl->cmode == HTB_MAY_BORROW && parent && mask) {
		unsigned m = mask;

		mask = 0;
		while (m) {
			int prio = mqtx__htb_lowest_bit(m);
			struct htb_prio *hp = &parent->clprio[prio];

			m &= ~(1u << prio);
			if (hp->ptr == cl) { /* forget the pointer, remember the id */
				hp->last_ptr_id = cl->classid;
				hp->ptr = NULL;
			}
			mqtx__htb_list_erase(&hp->first, cl, prio);
			if (!hp->first)
				mask |= 1u << prio;
		}
		parent->prio_activity &= ~mask;
		cl = parent;
		parent = cl->parent;
	}
	if (cl->cmode == HTB_CAN_SEND && mask)
		remove_class_from_row(p, cl, mask);
}

void mqtx__htb_activate(struct htb_priv *p, struct htb_class *cl)
{
	if (!cl->prio_activity) {
		cl->prio_activity = 1u << cl->prio;
		mqtx__htb_activate_prios(p, cl);
	}
}

void mqtx__htb_deactivate(struct htb_priv *p, struct htb_class *cl)
{
	if (!cl->prio_activity)
		return;
	mqtx__htb_deactivate_prios(p, cl);
	cl->prio_activity = 0;
}

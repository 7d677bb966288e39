/* SPDX-License-Identifier: MIT */
/* Filters and actions, internals: blocks and their rule sets, classifier and action kinds, the
 * parser state every kind shares, and the printer that makes tc's text and JSON. */
#ifndef MQTX_CLS_INT_H
#define MQTX_CLS_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include <mqtx/cls.h>
#include <mqtx/dev.h>

#include "base/internal.h"
#include "cls/flower_key.h"
#include "tc/tc.h"

/* ---- actions ---- */

struct tcf_action;
struct tcf_parse;
struct tcf_pkt;

/* Counters of an action (Linux's bstats and qstats): several writers, relaxed adds. */
struct tcf_stats {
	atomic_ullong bytes, packets, drops, overlimits;
};

/**
 * struct tcf_action_ops - an action kind (act_*.c, one table each).
 * @kind: tc's name ("gact").
 * @priv_size: bytes of private state after struct tcf_action (tcf_act_priv()).
 * @parse: required. Read the kind's words at ps->argv[ps->i] (the word after the kind) and
 *         on; leave ps->i at the first word not taken. 0, or -EINVAL with tc's message lines
 *         and exit code in @ps.
 * @act: required. The data path: the verdict for the packet (MQTX_ACT_*), pk->pkt, on device
 *       pk->dev (may be NULL). May count overlimits in a->st; the caller counts bytes, packets
 *       and drops. Sets pkt->drop_reason with MQTX_ACT_SHOT.
 * @probe: optional. What "filter test" runs instead of @act: the same verdict and edits of
 *         the probe packet without side effects (a policer's tokens, a redirect).
 * @dump: required. Print the action after tc's "action order N: ".
 * @brief: optional. What it does in a few words, for "filter test" ("mirred egress redirect
 *         dev ifb0"); without it the kind's name stands.
 * @destroy: optional. Release what the action holds (freed after a grace period).
 * @replace: optional. "actions replace" of an action there: what the new parameters @a take
 *           over from those they replace, @cur's (a policer's tokens), called under the
 *           table's lock just before @a's are published.
 * @usage: what tc's explain() of the action prints: after "help" and after the refusals that
 *         call for it (tc's usage()).
 */
struct tcf_action_ops {
	const char *kind;
	const char *usage;
	size_t priv_size;
	int (*parse)(struct tcf_action *a, struct tcf_parse *ps);
	int (*act)(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res);
	int (*probe)(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res);
	void (*dump)(const struct tcf_action *a, struct tc_out *p);
	void (*brief)(const struct tcf_action *a, char *buf, size_t len);
	void (*destroy)(struct tcf_action *a);
	void (*replace)(struct tcf_action *a, const struct tcf_action *cur);
};

#define TCF_COOKIE_MAX 16 /* TC_COOKIE_MAX_SIZE */

/* What "actions replace" changes as a whole: the cookie and the kind's state. Published by
 * RCU in struct tcf_action; the one it replaces is freed after a grace period. */
struct tcf_act_params {
	uint8_t cookie_len;
	uint8_t cookie[TCF_COOKIE_MAX];
	bool no_percpu; /* tc's flag, shown back; mqtx's counters are shared atomics either way */
	_Alignas(16) unsigned char priv[]; /* the kind's (tcf_act_priv()) */
};

struct tcf_act_table;

/*
 * One action, in its kind's table (act_table.c) under @index, shared by the filters bound to
 * it. @refcnt and @bindcnt are tc's "ref" and "bind": the table's own reference (an action
 * made by "actions add") and each filter's; they change under the table's lock and are read
 * without it. The counters are the action's, whichever filter ran it.
 */
struct tcf_action {
	const struct tcf_action_ops *ops;
	uint32_t index;
	struct tcf_stats st;
	struct tcf_act_params *_Atomic params;
	atomic_uint refcnt, bindcnt;
	struct tcf_act_table *table; /* NULL: in none (not yet, or its table is gone) */
};

/* The kind's state, read on the data path in a read section, or in a dump. */
static inline void *tcf_act_priv(const struct tcf_action *a)
{
	return atomic_load_explicit(&((struct tcf_action *)a)->params, memory_order_acquire)->priv;
}

/* tc's "ref" and "bind" of @a, as its dump prints them. */
static inline unsigned tcf_act_ref(const struct tcf_action *a)
{
	return atomic_load_explicit(&((struct tcf_action *)a)->refcnt, memory_order_relaxed);
}

static inline unsigned tcf_act_bind(const struct tcf_action *a)
{
	return atomic_load_explicit(&((struct tcf_action *)a)->bindcnt, memory_order_relaxed);
}

/* A filter's actions, run in order (Linux's tcf_exts). */
struct tcf_exts {
	unsigned n;
	struct tcf_action **acts;
};

/* ---- classifiers ---- */

/*
 * One filter. Every classifier's filter starts with this (container_of). Once published a
 * filter never changes: a change makes a new one, and unchanged filters are shared by the
 * rule sets before and after it.
 */
struct tcf_filter {
	uint32_t handle;
	uint32_t classid; /* its class (classid/flowid), 0: none */
	struct tcf_exts exts;
	atomic_ullong hits; /* packets it matched (tc's "rule hit") */
	atomic_ullong tries;
};

struct tcf_store;

/*
 * A classifier's rules of one priority: its filters in handle order, and whatever its lookup
 * needs (flower's masks and hash tables), built by ops->build. Immutable once published; a
 * change builds a new root. @filters lies in @store, which a root made by appending one
 * filter shares with the root before it (ruleset.c): what a root reads, filters[0..n), never
 * changes.
 */
struct tcf_root {
	unsigned n;
	struct tcf_filter **filters;
	void *index; /* ops->build's lookup structure, freed by ops->free_index */
	struct tcf_store *store;
};

struct tcf_proto;
struct tcf_ruleset;

/**
 * struct tcf_mod - where a filter command acts, for a kind's @modify and @remove.
 * @ops: the kind.
 * @b: the block (its lock held); @rs its rules now.
 * @tp: the priority the command names (NULL: it is to be made, as @prio, @protocol, @chain).
 * @excl: the command is an add; @create: it may create (add, replace).
 */
struct tcf_mod {
	const struct tcf_proto_ops *ops;
	struct mqtx_tcf_block *b;
	const struct tcf_ruleset *rs;
	const struct tcf_proto *tp;
	uint32_t chain, prio;
	uint16_t protocol;
	bool excl, create;
};

/**
 * struct tcf_proto_ops - a classifier kind (cls_*.c, one table each).
 * @kind: tc's name ("flower").
 * @usage: what "help" prints, and what follows the refusals that call for it (tc's explain()).
 * @parse_handle: optional. tc's handle word into *@h (absent: a number, base 0). 0 or
 *         -EINVAL (with tc's message in @ps).
 * @auto_handle: optional. The handle of a new filter given none (absent: the lowest free,
 *         from 1). 0 when none is left.
 * @parse: required. A new filter of @handle from the kind's words at ps->argv[ps->i]: fill
 *         *@out (allocated with mqtx__tcf_filter_alloc()). 0 or -EINVAL (message and exit in @ps).
 * @build: optional. Make root->index from root->filters (every allocation of a change
 *         happens here or before: it may fail with -ENOMEM, or refuse a root the classifier
 *         cannot hold: -EEXIST for a second matchall, a duplicate flower key). 0 or -errno
 *         with a message in @ack.
 * @append: optional. Make root->index from @old's index, @root being @old's filters and one
 *         more, the last (the highest handle): what the two share is the classifier's to
 *         count, and nothing @old's readers see may change. -EAGAIN when it cannot (@build
 *         then makes it whole), -EEXIST or -ENOMEM as @build.
 * @free_index: optional. Free what @build or @append made.
 * @classify: required. The data path: find the filter for @pk in @tp->root; set res->classid
 *         and return mqtx__tcf_exts_exec(), or MQTX_ACT_UNSPEC when none matches.
 * @dump: required. Print a filter's options after "KIND chain N " (tc's print_fopt).
 * @terse_dump: optional. Print a filter as the kernel's terse dump has it (tc -br: its handle,
 *         flags and actions' kinds); without it "filter show -br" stops at the kind's first
 *         filter, as Linux's tcf_fill_node() does.
 * @dump_head: optional. Print an entry of the priority's own after its first line (u32's root
 *         hash table, which the kernel walks as a filter).
 * @walk: optional. The @i-th entry of the priority in the order the kernel dumps it (u32: each
 *         hash table, then its nodes), or NULL past the last (absent: root->filters in order).
 * @modify: optional. Add, replace or change the filter *@f where @m says, as the kernel
 *         does when the kind's priorities share state (u32: the hash tables of a block, a
 *         node going in the priority whose table holds it): place the filter, make the new
 *         rules and publish them (mqtx__tcf_block_commit()), *@f NULL once published. Called
 *         instead of the generic placement once the priority is found (or is to be made). 0
 *         or -errno with a message in @ack; a failure publishes nothing.
 * @remove: optional. Likewise for "filter del" of the filter @handle of @m->tp (0: the whole
 *         priority), in place of the generic removal.
 * @free_filter: optional. Free what the classifier's part of @f holds (the core frees @f and
 *         its actions).
 * @find: optional. "filter get": the filter @handle names as the kind's get() finds it from
 *         @tp in the block's rules @rs, printed as @tp's (u32: a table or node that any u32
 *         priority of the block holds). Absent: @tp's own filter, in @walk's entries if any.
 */
struct tcf_proto_ops {
	const char *kind;
	const char *usage;
	int (*parse_handle)(const char *s, uint32_t *h, struct tcf_parse *ps);
	uint32_t (*auto_handle)(const struct tcf_root *root);
	int (*parse)(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out);
	int (*build)(struct tcf_root *root, struct mqtx_extack *ack);
	int (*append)(const struct tcf_root *old, struct tcf_root *root, struct mqtx_extack *ack);
	void (*free_index)(void *index);
	int (*classify)(const struct tcf_proto *tp, struct tcf_pkt *pk,
			struct mqtx_tcf_result *res);
	void (*dump)(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p);
	void (*terse_dump)(const struct tcf_proto *tp, const struct tcf_filter *f,
			   struct tc_out *p);
	void (*dump_head)(const struct tcf_proto *tp, struct tc_out *p);
	const struct tcf_filter *(*walk)(const struct tcf_proto *tp, unsigned i);
	int (*modify)(const struct tcf_mod *m, struct tcf_filter **f, struct mqtx_extack *ack);
	int (*remove)(const struct tcf_mod *m, uint32_t handle, struct mqtx_extack *ack);
	void (*free_filter)(struct tcf_filter *f);
	const struct tcf_filter *(*find)(const struct tcf_ruleset *rs, const struct tcf_proto *tp,
					 uint32_t handle);
};

/* One priority of a chain: a classifier, its protocol and its rules. Immutable. */
struct tcf_proto {
	uint32_t prio;	   /* 1..0xffff */
	uint16_t protocol; /* ethertype, host order; MQTX_ETH_P_ALL matches every frame */
	uint32_t chain;
	const struct tcf_proto_ops *ops;
	struct tcf_root *root;
};

/* A chain: its priorities, lowest first. */
struct tcf_chain {
	uint32_t index;
	unsigned n;
	struct tcf_proto **tps;
};

/* The rules of a block at one moment: its non-empty chains, lowest index first. Published by
 * RCU and never changed; one allocation holds the chains and their priority arrays. */
struct tcf_ruleset {
	unsigned nchains;
	struct tcf_chain chains[];
};

struct mqtx_tcf_block {
	struct tcf_ruleset *_Atomic rs; /* NULL: no rules */
	uint32_t index;			/* shared block index, 0: private */
	unsigned refs;			/* under the registry lock */
	pthread_mutex_t lock;		/* one change at a time (taken inside a config lock) */
};

/* block_ports.c, in a read section: the ports of the shared block @index (*@devs, a NULL among them
 * is none), valid until the section ends. Return: how many; 0: none, or no such block. */
unsigned mqtx__tcf_block_ports(uint32_t index, struct mqtx_dev *_Atomic const **devs);

/* ---- a packet during classification ---- */

struct tcf_trace;

/* classify.c: the frame's ethertype, bytes 12-13 (0 for a runt). */
uint16_t mqtx__tcf_frame_proto(const struct mqtx_pkt *pkt);

struct tcf_pkt {
	struct mqtx_pkt *pkt;
	struct mqtx_dev *dev;	      /* the device it is on (its clock), or NULL */
	uint32_t len;		      /* what actions count and police (Linux's skb->len) */
	uint16_t proto;		      /* the frame's ethertype (tc's skb->protocol) */
	bool keyed;		      /* @key holds flower's key of the frame */
	bool located;		      /* @l3 and @l4 hold the frame's header offsets */
	uint16_t l3, l4;	      /* the network and transport headers (l4 0: none) */
	bool dry;		      /* "filter test": probes, no counters */
	const struct tcf_ruleset *rs; /* the rules it runs through (u32's tables of the block) */
	bool no_mac;		      /* an action took the Ethernet header off (vlan pop_eth) */
	struct tcf_trace *tr;
	struct fl_key key;
};

/* classify.c: @pk's network and transport header offsets (@l3, @l4), as the flow dissector
 * finds them (l3 14 when it finds none); @located set. */
void mqtx__tcf_locate(struct tcf_pkt *pk);

/* An action changed the frame's headers: what the classifiers read of it is read again, and
 * the protocol is the frame's outer ethertype now (mqtx's frames carry their VLAN tags in the
 * payload, so a pushed tag is what the next filter sees). */
static inline void tcf_pkt_edited(struct tcf_pkt *pk)
{
	const struct mqtx_pkt *pkt = pk->pkt;

	pk->keyed = false;
	pk->located = false;
	/* bytes 12-13, as mqtx__tcf_frame_proto() reads them (here: no call up to classify.c) */
	if (!pk->no_mac)
		pk->proto = pkt->len < 14 ? 0 : (uint16_t)(pkt->data[12] << 8 | pkt->data[13]);
}

/* classify.c */
int mqtx__tcf_classify_rs(const struct tcf_ruleset *rs, struct tcf_pkt *pk,
			  struct mqtx_tcf_result *res);
/* A chain of @rs by index, or NULL. */
const struct tcf_chain *mqtx__tcf_chain_find(const struct tcf_ruleset *rs, uint32_t index);

/* exts.c: run @f's actions (Linux's tcf_exts_exec); MQTX_ACT_OK when it has none. */
int mqtx__tcf_exts_exec(struct tcf_filter *f, struct tcf_pkt *pk, struct mqtx_tcf_result *res);
static inline void tcf_trace_hit(struct tcf_pkt *pk, const struct tcf_proto *tp,
				 const struct tcf_filter *f, int verdict);

/* A classifier's match: count it, set the class, run the actions. */
static inline int tcf_filter_hit(const struct tcf_proto *tp, struct tcf_filter *f,
				 struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	int v;

	if (!pk->dry)
		atomic_fetch_add_explicit(&f->hits, 1, memory_order_relaxed);
	res->classid = f->classid;
	v = mqtx__tcf_exts_exec(f, pk, res);
	if (unlikely(pk->tr != NULL))
		tcf_trace_hit(pk, tp, f, v);
	return v;
}

/* ---- parsing (words.c): tc's words, tc's messages ---- */

/*
 * The state of one filter command's parse. Messages accumulate line by line in @err (tc
 * prints several on a failure: "Illegal queue_mapping", "bad action parsing", ...); @exit is
 * the code tc would exit with.
 */
struct tcf_parse {
	int argc;
	char **argv;
	int i;
	uint16_t protocol; /* the filter's protocol (flower's eth_type) */
	uint32_t parent;
	/* mirred: the device a name stands for (the command layer's table), or NULL and, when
	 * the device is there but may not be used, why in @why (a whole message) */
	struct mqtx_dev *(*find_dev)(void *arg, const char *name, char *why, size_t whylen);
	/* mirred: whether the caller may send to a shared block (NULL: it may), with @find_arg;
	 * false with a whole message in @why */
	bool (*may_block)(void *arg, uint32_t index, char *why, size_t whylen);
	void *find_arg;
	struct tcf_act_table *acts; /* where actions go (NULL: the process's own table) */
	int exit;
	char err[4096];
	size_t errlen;
	/* what the kernel would refuse once tc has read every word and sent them (an action's
	 * init): the first such refusal, given when the whole command has parsed */
	char late[256];
};

void mqtx__tcf_parse_init(struct tcf_parse *ps, int argc, char **argv);
/* Append one line to the messages; returns -EINVAL with @exit set (when not set yet). */
int mqtx__tcf_perr(struct tcf_parse *ps, int exit, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A refusal of the kernel's, whole message: tc reads on (the next words may still be its
 * own errors); the command is refused with it (exit 2) once every word has parsed. Returns 0. */
int mqtx__tcf_refuse_late(struct tcf_parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The late refusal, if there is one: -EINVAL with it as the message, else 0. */
int mqtx__tcf_late(struct tcf_parse *ps);
/* The current word, or NULL at the end. */
static inline const char *tcf_word(const struct tcf_parse *ps)
{
	return ps->i < ps->argc ? ps->argv[ps->i] : NULL;
}
/* NEXT_ARG(): move to the value of the current option; -EINVAL (tc's "Command line is not
 * complete", exit 255) when there is none. */
int mqtx__tcf_next(struct tcf_parse *ps);
/* An action's closing "index N" (base @base), when the current word is "index": into
 * @a->index, past it. 1 when one was read, 0 when the word is another, -EINVAL with tc's
 * "@who Illegal "index"" (@who: the kind's prefix, "" for none). */
int mqtx__tcf_act_index(struct tcf_parse *ps, struct tcf_action *a, const char *who, int base);
/* A classifier's @parse_handle for a handle that is a number (base 0), with the message of
 * tc's matchall and basic: "Illegal handle "@s", must be numeric.". */
int mqtx__tcf_numeric_handle(const char *s, uint32_t *h, struct tcf_parse *ps);
/* An action kind's usage() in tc: @usage as the message, exit 255. Returns -EINVAL. */
int mqtx__tcf_usage_exit(struct tcf_parse *ps, const char *usage);
/* One of a kind's own words at the current word, with what it takes after it: 0 taken,
 * ps->i left on the last word it took; 1 not one of its words; or -EINVAL. */
typedef int tcf_word_fn(void *priv, struct tcf_parse *ps);
/*
 * The loop of a tc kind's parser: @fn reads word after word up to the first that is not its
 * own, "help" (any prefix of it when @help_prefix, as tc's matches(); else the whole word)
 * prints @usage. Return: how many options @fn took, or -EINVAL.
 */
int mqtx__tcf_words(struct tcf_parse *ps, tcf_word_fn *fn, void *priv, bool help_prefix,
		    const char *usage);
/* ll_proto_a2n() / ll_proto_n2a(): "ip", "all", "802.1q", or a number. */
int mqtx__tcf_proto_parse(const char *s, uint16_t *proto);
const char *mqtx__tcf_proto_name(uint16_t proto, char *buf, size_t len);
/* tc's action_a2n() and parse_action_control(): a verdict word (and "goto chain N",
 * "jump N") at the current word; moves past it. */
int mqtx__tcf_parse_control(struct tcf_parse *ps, int *verdict, bool allow_num);
bool mqtx__tcf_is_control(const char *w);
/* action_a2n() with numbers allowed: one word, no "goto chain N" after it. */
int mqtx__tcf_control_word(const char *w, int *verdict);
const char *mqtx__tcf_control_name(int verdict, char *buf, size_t len);
/* print_action_control(): "@prefix verdict[ chain N]@suffix", JSON "control_action". */
void mqtx__tcf_print_control(struct tc_out *p, const char *prefix, int verdict, const char *suffix);

/* ---- filters and actions: objects (filter.c) ---- */

/* A zeroed filter of @size bytes (the classifier's struct) with @handle. */
struct tcf_filter *mqtx__tcf_filter_alloc(size_t size, uint32_t handle);
/* Free a filter that is not or no longer published: its actions, its classifier part (@ops
 * NULL: a classifier that holds nothing more). */
void mqtx__tcf_filter_free(const struct tcf_proto_ops *ops, struct tcf_filter *f);
/* parse_action() at "action" (the word after it is current): the actions into @e. */
int mqtx__tcf_exts_parse(struct tcf_exts *e, struct tcf_parse *ps);
void mqtx__tcf_exts_free(struct tcf_exts *e);
/* tc_print_action(): every action, its counters with -s. */
void mqtx__tcf_exts_dump(const struct tcf_exts *e, struct tc_out *p);
/* tc_print_one_action(): @a after "action order N: " (@table: as "actions ls" lists it). */
void mqtx__tcf_act_dump(const struct tcf_action *a, bool table, struct tc_out *p);
/* The act and dump of a kind tc knows and mqtx refuses (tunnel_key, sample): its parse refuses
 * every action, so neither runs; they keep the ops table whole. */
int mqtx__tcf_refused_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res);
void mqtx__tcf_refused_dump(const struct tcf_action *a, struct tc_out *p);
/* An action's "index N ref R bind B" after @lead, the spacing tc's printer of its kind puts
 * before "index" (text only). */
void mqtx__tcf_act_dump_index(const struct tcf_action *a, const char *lead, struct tc_out *p);
/* The words after an action's kind parser (tc's parse_action()): cookie, hw_stats, no_percpu;
 * the cookie into @pa. */
int mqtx__tcf_act_options(struct tcf_parse *ps, struct tcf_act_params *pa);
/* tcf_exts_terse_dump() as tc prints it: each action's order, kind, and counters with -s. */
void mqtx__tcf_exts_dump_terse(const struct tcf_exts *e, struct tc_out *p);
/* "classid"/"flowid" at the current word into f->classid. */
int mqtx__tcf_parse_classid(struct tcf_parse *ps, uint32_t *classid);

/* ---- kinds (kinds.c) ---- */

const struct tcf_proto_ops *mqtx__tcf_proto_kind(const char *kind);
const struct tcf_action_ops *mqtx__tcf_action_kind(const char *kind);

/* ---- the action tables (act_table.c) ---- */

/* A new action of @ops, in no table, its state zeroed. */
int mqtx__tcf_act_alloc(const struct tcf_action_ops *ops, struct tcf_action **out);
/* Free an action that no table and no published filter holds (its kind's destroy first). */
void mqtx__tcf_act_free(struct tcf_action *a);
/*
 * mqtx__tcf_act_bind() - a filter's action: @a (just parsed, index 0 for the lowest free)
 * goes into @t bound once (ref 1 bind 1); where its kind already has an action of that index,
 * @a is freed and *@out is the one there, bound once more (Linux's tcf_idr_check_alloc(),
 * ACT_P_BOUND). Return: 0; -ENOMEM; -ENOSPC.
 */
int mqtx__tcf_act_bind(struct tcf_act_table *t, struct tcf_action *a, struct tcf_action **out);
/* mqtx__tcf_act_lookup_bind() - bind to @ops's action @index of @t if there is one. */
struct tcf_action *mqtx__tcf_act_lookup_bind(struct tcf_act_table *t,
					     const struct tcf_action_ops *ops, uint32_t index);
/* Drop a filter's binding (@bind) or the table's reference; the last one frees @a. Only once
 * no read section can see @a through the holder (a filter retired after a grace period). */
void mqtx__tcf_act_put(struct tcf_action *a, bool bind);

/* ---- blocks (block.c) ---- */

/* The rules now (read section held, or the block's lock). */
static inline struct tcf_ruleset *tcf_block_rules(const struct mqtx_tcf_block *b)
{
	return atomic_load_explicit(&((struct mqtx_tcf_block *)b)->rs, memory_order_acquire);
}

/* ---- the trace of "filter test" (classify.c) ---- */

#define TCF_TRACE_MAX 16

struct tcf_trace {
	unsigned n;
	struct {
		const struct tcf_proto *tp;
		const struct tcf_filter *f;
		int verdict;
	} hit[TCF_TRACE_MAX];
};

static inline void tcf_trace_hit(struct tcf_pkt *pk, const struct tcf_proto *tp,
				 const struct tcf_filter *f, int verdict)
{
	struct tcf_trace *tr = pk->tr;

	if (tr && tr->n < TCF_TRACE_MAX) {
		tr->hit[tr->n].tp = tp;
		tr->hit[tr->n].f = f;
		tr->hit[tr->n++].verdict = verdict;
	}
}

#endif

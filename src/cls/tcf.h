/* SPDX-License-Identifier: MIT */
/* What the filter layer offers the layers above it (the command language): changing a block
 * the way tc's filter commands do, showing it, and tracing one packet through it. */
#ifndef MQTX_CLS_TCF_H
#define MQTX_CLS_TCF_H

#include <pthread.h>

#include <mqtx/cls.h>
#include <mqtx/dev.h>

struct tc_out;
struct tcf_action;
struct tcf_action_ops;
struct tcf_parse;
struct tcf_proto;
struct tcf_proto_ops;
struct tcf_filter;
struct tcf_ruleset;

/**
 * struct tcf_req - one "filter add|replace|change|del" after its attachment point, parsed as
 * far as tc's tc_filter_modify() reads it; the kind's own words are still words.
 * @verb: MQTX_TCF_*.
 * @protocol: ethertype (host order); 0: none given (MQTX_ETH_P_ALL for add and replace).
 * @prio: 1..0xffff, 0: none given.
 * @chain: the chain (0 unless given).
 * @parent: the parent it goes under (flower's hw_tc names a class of its major).
 * @kind: the classifier's name, or NULL.
 * @handle: the handle word, or NULL.
 * @argc, @argv: the classifier's words.
 * @find_dev, @find_arg: how a device name in an action (mirred) is found; NULL: none is. It
 *        returns the device, or NULL: there is none, or, with a message in @why, the caller
 *        may not send to it (the command is then refused).
 * @may_block: whether the caller may send to shared block @index (mirred's blockid), with
 *        @find_arg; false with a message in @why. NULL: it may.
 * @acts: the action table the filter's actions go in or bind to (NULL: the process's own).
 */
struct tcf_req {
	int verb;
	uint16_t protocol;
	uint32_t prio, chain, parent;
	const char *kind, *handle;
	int argc;
	char **argv;
	struct mqtx_dev *(*find_dev)(void *arg, const char *name, char *why, size_t whylen);
	bool (*may_block)(void *arg, uint32_t index, char *why, size_t whylen);
	void *find_arg;
	struct tcf_act_table *acts;
};

/* Parents that name clsact's (or ingress's) hooks, as tc writes them. */
#define TCF_PARENT_INGRESS 0xFFFFFFF2u /* TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS) */
#define TCF_PARENT_EGRESS  0xFFFFFFF3u

/**
 * struct tcf_cmd - a filter command's head as tc_filter_modify() reads it: where the filter
 * goes (@dev with @parent, or @block) and the request.
 */
struct tcf_cmd {
	const char *dev;
	uint32_t block, parent;
	bool has_protocol, has_chain;
	struct tcf_req rq;
};

/**
 * mqtx__tcf_parse_head() - the words of "filter VERB ..." up to the kind into @c; the kind's
 * words are left in @c->rq.argc/argv. Return: 0, or -EINVAL with tc's message and exit code
 * (255 for tc's invarg/duparg/incomplete) in @ps.
 */
int mqtx__tcf_parse_head(int argc, char **argv, int verb, struct tcf_cmd *c, struct tcf_parse *ps);

/* A parsed request, ready to apply: the classifier and the new filter, if any. */
struct tcf_prep {
	const struct tcf_proto_ops *ops;
	uint32_t handle;
	struct tcf_filter *f;
};

/**
 * mqtx__tcf_prepare() - parse the kind's words of @rq into @pp (a new filter with its
 * actions), as tc parses them before it sends anything.
 * Return: 0; -EINVAL with @ps->exit and @ps->err as tc (1 or 255); -ENOMEM.
 */
int mqtx__tcf_prepare(const struct tcf_req *rq, struct tcf_parse *ps, struct tcf_prep *pp);

/**
 * mqtx__tcf_apply() - carry out @rq with what @pp holds on @b, as the kernel decides: the new
 * rules are made whole, published for every user of @b, and the old retired after a grace
 * period; a failure changes nothing. @pp keeps the filter when it was not used (free it with
 * mqtx__tcf_prep_free()). Return: 0 or -errno with a message in @ack.
 */
int mqtx__tcf_apply(struct mqtx_tcf_block *b, const struct tcf_req *rq, struct tcf_prep *pp,
		    struct mqtx_extack *ack);
void mqtx__tcf_prep_free(struct tcf_prep *pp);

/**
 * struct tcf_show - what "filter show" lists and which parts of each line it prints (tc
 * leaves out what the command named: the device, the parent, the protocol, ...).
 * @dev: the device to print ("dev X "), or NULL.
 * @block: the block index to print ("block N "), or 0.
 * @parent: the parent to print ("egress ", "parent 1: "), or 0.
 * @prio, @protocol: list only these (and do not print them); 0: all.
 * @chain, @has_chain: list only that chain (and do not print it).
 * @brief: tc -br: each filter as the kernel's terse dump has it.
 */
struct tcf_show {
	const char *dev;
	uint32_t block, parent;
	uint32_t prio;
	uint16_t protocol;
	uint32_t chain;
	bool has_chain;
	bool brief;
};

/** mqtx__tcf_show() - print @b's rules as "tc filter show" does, into @p; with @s->brief as
 *  "tc -br filter show" does: -EMSGSIZE where a kind has no terse form (the rest is not
 *  printed), else 0. */
int mqtx__tcf_show(struct mqtx_tcf_block *b, const struct tcf_show *s, struct tc_out *p);

/* The highest chain index (Linux's TC_ACT_EXT_VAL_MASK). */
#define TCF_CHAIN_MAX 0x0FFFFFFFu

/**
 * struct tcf_get - the filter "filter get" names: @chain, @prio, @protocol (0: any), @kind
 * (NULL: any) and @handle, as the classifier parsed it.
 */
struct tcf_get {
	uint32_t chain, prio, handle;
	uint16_t protocol;
	const char *kind;
};

/**
 * mqtx__tcf_get() - print the filter @g names in @b as "filter show" prints it (@s says what
 * to leave out), with Linux's tc_get_tfilter() checks. Return: 0, or -errno with the kernel's
 * message in @ack (no such chain, priority, kind or handle).
 */
int mqtx__tcf_get(struct mqtx_tcf_block *b, const struct tcf_get *g, const struct tcf_show *s,
		  struct tc_out *p, struct mqtx_extack *ack);

/**
 * mqtx__tcf_chains() - "chain get" (@get the index) or "chain show" (@get NULL: every chain,
 * or only @s->chain with @s->has_chain): "chain parent P chain N" lines, as tc prints the
 * kernel's chain messages (@s->parent or @s->block names the block). A chain exists while it
 * holds filters. Return: 0, or -EINVAL with Linux's tc_ctl_chain() message in @ack.
 */
int mqtx__tcf_chains(struct mqtx_tcf_block *b, const struct tcf_show *s, const uint32_t *get,
		     struct tc_out *p, struct mqtx_extack *ack);

/** mqtx__tcf_block_find() - a reference to the shared block @index if it exists (put it with
 *  mqtx_tcf_block_put()). Return: 0 and *@out; -ENOENT. */
int mqtx__tcf_block_find(uint32_t index, struct mqtx_tcf_block **out);

/** mqtx__tcf_block_exists() - whether the shared block @index exists now. */
bool mqtx__tcf_block_exists(uint32_t index);

/**
 * mqtx__tcf_test() - "filter test": classify @pkt in @b without side effects (no counters, no
 * policer tokens spent, no redirect), and print what matched and the verdict (text: one line
 * per filter that matched, prefixed by @what; JSON: an array). Returns the verdict; res and
 * the packet's queue_mapping and priority are what the actions would make them.
 */
int mqtx__tcf_test(struct mqtx_tcf_block *b, struct mqtx_dev *dev, struct mqtx_pkt *pkt,
		   struct mqtx_tcf_result *res, const char *what, struct tc_out *p);

/** mqtx__tcf_dev_targeted() - whether a mirred action sends to @dev (which must then stay). */
bool mqtx__tcf_dev_targeted(const struct mqtx_dev *dev);

/* ---- standalone actions (act_table.c): "tc actions" ---- */

/*
 * struct tcf_act_table - the actions of a context (Linux keeps one table per kind and
 * network namespace): every action, by kind and index, whether a filter made it or "actions
 * add". @lock is a leaf: nothing is taken inside it, and the data path never takes it.
 */
struct tcf_act_table {
	pthread_mutex_t lock;
	struct tcf_action **v; /* by kind name, then index */
	unsigned n, cap;
};

void mqtx__tcf_act_table_init(struct tcf_act_table *t);
/* Drop the table's references; the actions filters still hold leave the table with them. */
void mqtx__tcf_act_table_fini(struct tcf_act_table *t);

/* The actions of one "actions add|replace|change", parsed, in no table yet. */
struct tcf_act_req {
	unsigned n;
	struct tcf_action **acts;
};

/**
 * mqtx__tcf_act_parse() - tc's parse_action() for "actions add|change|replace": the actions
 * at ps->argv[ps->i] up to the end or a word that starts another command. Return: 0; -EINVAL
 * with tc's lines and exit in @ps; -ENOMEM.
 */
int mqtx__tcf_act_parse(struct tcf_parse *ps, struct tcf_act_req *rq);
/**
 * mqtx__tcf_act_commit() - put @rq's actions in @t: new ones with the table's reference (ref
 * 1 bind 0), and with @replace an existing one takes the new parameters (its counters and
 * bindings stay; the old parameters are freed after a grace period). All or nothing.
 * Return: 0 (@rq is then empty); -EEXIST (without @replace); -ENOSPC; -ENOMEM.
 */
int mqtx__tcf_act_commit(struct tcf_act_table *t, struct tcf_act_req *rq, bool replace);
void mqtx__tcf_act_req_free(struct tcf_act_req *rq);

/**
 * mqtx__tcf_act_show() - "actions get" (@n actions: @ops[i] @index[i]) or "actions ls" (@n
 * 0: every action of @ops[0]) as tc prints what the kernel answers: "total acts N", then each
 * action. Return: 0; -ENOENT: an action named is not there (nothing printed).
 */
int mqtx__tcf_act_show(struct tcf_act_table *t, const struct tcf_action_ops *const *ops,
		       const uint32_t *index, unsigned n, struct tc_out *p);
/**
 * mqtx__tcf_act_delete() - "actions delete": every action named goes, or none. Return: 0;
 * -ENOENT: one is not there; -EPERM: a filter is bound to one (Linux's tcf_idr_delete_index()).
 */
int mqtx__tcf_act_delete(struct tcf_act_table *t, const struct tcf_action_ops *const *ops,
			 const uint32_t *index, unsigned n);
/**
 * mqtx__tcf_act_flush() - "actions flush action KIND": the kind's actions in index order up
 * to the first a filter is bound to (Linux's tcf_del_walker()); *@rest: some stayed. Return: how many went;
 * -EPERM when the first is bound (none went).
 */
int mqtx__tcf_act_flush(struct tcf_act_table *t, const struct tcf_action_ops *ops, bool *rest);
/* The kind tc takes a word for: its name; any other word is gact (get_action_kind()). */
const struct tcf_action_ops *mqtx__tcf_act_kind_of(const char *word);

/* ---- rule sets (ruleset.c), for the change transaction ---- */

int mqtx__tcf_proto_new(const struct tcf_proto_ops *ops, uint32_t prio, uint16_t protocol,
			uint32_t chain, struct tcf_filter *const *filters, unsigned n,
			struct mqtx_extack *ack, struct tcf_proto **out);
/* @old with @f appended (its handle above every other), sharing @old's filter array and,
 * where the classifier can, its lookup: -EAGAIN when it cannot (make it whole instead). */
int mqtx__tcf_proto_append(const struct tcf_proto *old, struct tcf_filter *f,
			   struct mqtx_extack *ack, struct tcf_proto **out);
void mqtx__tcf_proto_free(struct tcf_proto *tp, bool filters);
struct tcf_filter *mqtx__tcf_proto_get(const struct tcf_proto *tp, uint32_t handle);
uint32_t mqtx__tcf_proto_free_handle(const struct tcf_proto *tp);
int mqtx__tcf_proto_filters(const struct tcf_proto *tp, struct tcf_filter *f,
			    const struct tcf_filter *gone, struct tcf_filter ***out, unsigned *n);
int mqtx__tcf_rs_edit(const struct tcf_ruleset *old, uint32_t chain, const struct tcf_proto *gone,
		      struct tcf_proto *new, bool flush, struct tcf_ruleset **out);
void mqtx__tcf_rs_retire(struct tcf_ruleset *old, const struct tcf_ruleset *new);

/* block.c: publish @rs on @b (its lock held), wait a grace period, retire the old rules. */
void mqtx__tcf_block_commit(struct mqtx_tcf_block *b, struct tcf_ruleset *rs);

#endif

/* SPDX-License-Identifier: MIT */
/* mqtx filters and actions: filter blocks, their classification, and changing their rules (the
 * tc filter machinery of Linux's net/sched/cls_api.c and act_api.c). */
#ifndef MQTX_CLS_H
#define MQTX_CLS_H

#include <mqtx/dev.h>
#include <mqtx/pkt.h>
#include <mqtx/tc.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Verdicts of a classification and of an action, with Linux's TC_ACT_* values. A filter that
 * matches ends the classification with its verdict unless it is MQTX_ACT_UNSPEC (continue
 * with the next priority), MQTX_ACT_RECLASSIFY (start again at the first filter) or a goto.
 */
#define MQTX_ACT_UNSPEC	    (-1) /* nothing matched, or "continue" */
#define MQTX_ACT_OK	    0	 /* classified; the result holds the class, if any */
#define MQTX_ACT_RECLASSIFY 1
#define MQTX_ACT_SHOT	    2 /* drop it; pkt->drop_reason says why */
#define MQTX_ACT_PIPE	    3 /* (actions) go on with the next action */
#define MQTX_ACT_STOLEN	    4 /* a filter took the packet (redirected it to another device) */
#define MQTX_ACT_JUMP	    (1 << 28) /* | N: skip to the N-th action of the list */
#define MQTX_ACT_GOTO_CHAIN (2 << 28) /* | N: go on at the first filter of chain N */
#define MQTX_ACT_EXT_MASK   ((1 << 28) - 1)

/* Link-layer protocols of a filter (ethertypes, host order); ALL matches every frame. */
#define MQTX_ETH_P_ALL	 0x0003u
#define MQTX_ETH_P_IP	 0x0800u
#define MQTX_ETH_P_IPV6	 0x86DDu
#define MQTX_ETH_P_8021Q 0x8100u

/**
 * struct mqtx_tcf_result - what a classification found besides its verdict.
 * @classid: the class the matching filter names (its classid or flowid), or 0 for none.
 */
struct mqtx_tcf_result {
	uint32_t classid;
};

/** A filter block: the ordered chains of filters one or more qdiscs classify with. */
struct mqtx_tcf_block;

/**
 * mqtx_tcf_block_get() - a reference to a filter block.
 * @index: 0 for a new block of the caller's own (a qdisc's private block), or N > 0 for the
 *         shared block N, created empty on its first reference (Linux's tc blocks: one set of
 *         rules written once and used by every qdisc that shares it).
 * @out: the block.
 * Shared blocks are process-wide, as Linux's are per network namespace.
 * Return: 0; -ENOMEM.
 */
MQTX_API int mqtx_tcf_block_get(uint32_t index, struct mqtx_tcf_block **out);

/**
 * mqtx_tcf_block_put() - drop a reference; the last one frees the block and its rules after a
 * grace period, so that no classification can still see them. NULL is allowed. Must not be
 * called inside a read section of the data path.
 */
MQTX_API void mqtx_tcf_block_put(struct mqtx_tcf_block *b);

/**
 * mqtx_tcf_block_add_port() - @dev becomes a port of the shared block @b: a mirred action that
 * sends to the block ("mirred egress mirror blockid N") sends to each of its ports but the
 * device the packet is on. clsact and ingress make the device they are on a port of each
 * shared block they hold, as Linux's tcf_block_get_ext() fills block->ports. A private block
 * (index 0) has no ports: nothing is done.
 * Return: 0; -EBUSY: @dev is a port of @b already (Linux: "block dev insert failed"); -ENOMEM.
 * Must not be called inside a read section of the data path.
 */
MQTX_API int mqtx_tcf_block_add_port(struct mqtx_tcf_block *b, struct mqtx_dev *dev);

/**
 * mqtx_tcf_block_del_port() - @dev is no longer a port of @b. On return no packet is being
 * sent to @dev through @b (it waits for a grace period). NULL @b, a private block or a device
 * that is no port of @b: nothing is done. Cannot fail. Must not be called inside a read section
 * of the data path.
 */
MQTX_API void mqtx_tcf_block_del_port(struct mqtx_tcf_block *b, struct mqtx_dev *dev);

/** mqtx_tcf_block_index() - the index of a shared block, 0 for a private one. */
MQTX_API uint32_t mqtx_tcf_block_index(const struct mqtx_tcf_block *b);

/**
 * mqtx_tcf_block_bound() - how many filters of @b name class @classid ("classid" or
 * "flowid"): the filters bound to that class of the qdisc that owns @b (Linux's
 * tcf_bind_filter() and the class's filter_cnt). A classful qdisc refuses to delete a class
 * while filters are bound to it. A shared block binds nothing, as in Linux, where its
 * filters belong to no one qdisc.
 * @b: the block (NULL: none are).
 * @classid: the class, major and minor.
 * Takes the block's lock: call it outside a read section of the data path.
 * Return: the number of filters bound; 0 for a shared block.
 */
MQTX_API unsigned mqtx_tcf_block_bound(struct mqtx_tcf_block *b, uint32_t classid);

/**
 * mqtx_tcf_classify() - run @pkt through the filters of @b (Linux's tcf_classify()): chain 0
 * in priority order, each filter whose protocol is all or the frame's ethertype, with the
 * actions of the one that matches. Lock-free: the rules are read under RCU, and a change of
 * them is seen whole or not at all. Actions run: counters, policers, edits of the packet's
 * queue_mapping, priority or mark, redirects.
 * @b: the block (NULL: nothing matches).
 * @dev: the device the packet is on: its clock times policers (NULL: the real clock).
 * @pkt: the packet, frame at pkt->data.
 * @res: the class, valid with MQTX_ACT_OK.
 * A redirect or mirror (mirred) hands the packet to the other device when the calling
 * thread's outermost transmit or receive call ends (mqtx_dev_xmit(), mqtx_dev_receive(): a
 * qdisc's enqueue runs inside one; a receive ends its part before its handler gets the
 * packet), with none of that path's locks held; called outside them, before this call
 * returns.
 * Return: MQTX_ACT_OK (a filter matched), MQTX_ACT_UNSPEC (none did), MQTX_ACT_SHOT (drop it:
 * pkt->drop_reason is set), MQTX_ACT_STOLEN (@pkt is no longer the caller's).
 */
MQTX_API int mqtx_tcf_classify(const struct mqtx_tcf_block *b, struct mqtx_dev *dev,
			       struct mqtx_pkt *pkt, struct mqtx_tcf_result *res);

/* What mqtx_tcf_change() does, as tc filter's verbs. */
#define MQTX_TCF_ADD	 1 /* create; refuse an existing filter */
#define MQTX_TCF_REPLACE 2 /* create, or replace the filter the handle names */
#define MQTX_TCF_CHANGE	 3 /* change the filter the handle names; never create */
#define MQTX_TCF_DELETE	 4 /* delete a filter, a priority, or flush a chain */

/**
 * mqtx_tcf_change() - change the rules of @b as "tc filter add|replace|change|del ... block N"
 * does, from the words after the attachment point: [ protocol P ] [ prio N ] [ handle H ]
 * [ chain C ] KIND [ KIND's options ] [ action ... ]. The change is one transaction: every
 * object of the new rules is made first; then one pointer switch, which cannot fail, puts
 * them in service for every qdisc that shares @b; what they replace is freed after a grace
 * period. A failure leaves the old rules running, unchanged.
 * @b: the block.
 * @verb: MQTX_TCF_*.
 * @argc, @argv: the words.
 * @ack: a message naming the bad word on failure.
 * mirred's "dev NAME" names a device of a command context: here, without one, no device is
 * found; add such filters with mqtx_ctl_exec_line() ("filter add block N ...").
 * Return: 0; -EINVAL (a word tc would refuse to parse, or a request the kernel would refuse
 * as invalid); -ENOENT (no such filter, chain or kind); -EEXIST (it exists, with add);
 * -EOPNOTSUPP; -ENOMEM.
 */
MQTX_API int mqtx_tcf_change(struct mqtx_tcf_block *b, int verb, int argc, char **argv,
			     struct mqtx_extack *ack);

#ifdef __cplusplus
}
#endif
#endif

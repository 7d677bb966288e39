/* SPDX-License-Identifier: MIT */
/* Control language internals: the context, and the helpers every command uses (ctl_util.c). */
#ifndef MQTX_CTL_INT_H
#define MQTX_CTL_INT_H

#include <pthread.h>

#include <mqtx/ctl.h>
#include <mqtx/sim_wifi.h>
#include <mqtx/wme.h>

#include "cls/tcf.h"
#include "tc/tc.h"

struct ctl_watch {
	mqtx_ctl_gone_fn fn;
	void *arg;
};

/*
 * Who made an object of the context (a device, a shared filter block; a job keeps its own):
 * a server's client (mqtx_ctl_exec_req(): @client, its @id, how messages name it), or nobody,
 * the server itself (mqtx_ctl_exec(), mqtx_ctl_add_dev()).
 */
struct ctl_owner {
	bool client;
	unsigned id;
	char who[32];
};

/* The owner of a shared filter block, recorded by the command that made the block. */
struct ctl_block_owner {
	uint32_t index;
	struct ctl_owner owner;
};

/*
 * The context: its devices and who made each, the owners of the shared blocks its commands
 * made, the commands registered after the built-in ones, and the watches told when a device
 * leaves. Everything is under @lock, which a command holds while it runs.
 */
struct mqtx_ctl {
	pthread_mutex_t lock;
	struct mqtx_dev **devs;
	struct ctl_owner *dev_owners; /* of devs[i]; as many */
	unsigned ndevs, cap;
	struct ctl_block_owner *blocks;
	unsigned nblocks;
	bool has_admin; /* mqtx_ctl_set_admin() */
	unsigned admin;
	struct mqtx_ctl_cmd *cmds; /* registered commands */
	unsigned ncmds;
	struct ctl_watch *watches;
	unsigned nwatches;
	struct mqtx_clock *clock;  /* the devices dev add makes run on it (NULL: the real clock) */
	struct tcf_act_table acts; /* its actions, standalone or bound to its filters */
};

/* ---- the built-in commands (one file each), called by the dispatcher in ctl.c ---- */

int mqtx__ctl_cmd_qdisc(const struct mqtx_ctl_call *c, void *arg);
int mqtx__ctl_cmd_class(const struct mqtx_ctl_call *c, void *arg);
/** mqtx__ctl_show() - "qdisc show" (@classes false) or "class show" on the words after the
 *  verb (cmd_qdisc.c). Returns an exit code. */
int mqtx__ctl_show(struct mqtx_ctl_call *a, bool classes);
/** mqtx__class_usage - what "class help" prints (ctl_util.c). */
extern const char mqtx__class_usage[];
int mqtx__ctl_cmd_filter(const struct mqtx_ctl_call *c, void *arg);
int mqtx__ctl_cmd_action(const struct mqtx_ctl_call *c, void *arg);
/** mqtx__ctl_mirred_dev() - mirred's device @name for the call @arg (cmd_filter.c): NULL when
 *  there is none, or, with a message in @why, when the caller may not send to it. */
struct mqtx_dev *mqtx__ctl_mirred_dev(void *arg, const char *name, char *why, size_t whylen);
/** mqtx__ctl_mirred_block() - whether the call @arg may send to shared block @index (mirred's
 *  blockid; cmd_filter.c): false with a message in @why. */
bool mqtx__ctl_mirred_block(void *arg, uint32_t index, char *why, size_t whylen);
/** mqtx__ctl_cmd_chain() - "chain get|show" (cmd_filter.c). */
int mqtx__ctl_cmd_chain(const struct mqtx_ctl_call *c, void *arg);
/** mqtx__ctl_filter_get() - "filter get" (@chain false) or "chain get"; @c's words after
 *  the verb. */
int mqtx__ctl_filter_get(const struct mqtx_ctl_call *c, bool chain);
int mqtx__ctl_cmd_dev(const struct mqtx_ctl_call *c, void *arg);
/** mqtx__ctl_dev_show() - "dev show" (@stats false) or "dev stats" on the words @argv[0..@argc)
 *  after the verb (cmd_dev_show.c). Returns an exit code. */
int mqtx__ctl_dev_show(const struct mqtx_ctl_call *c, int argc, char **argv, bool stats);
int mqtx__ctl_cmd_hash(const struct mqtx_ctl_call *c, void *arg);
int mqtx__ctl_cmd_sta(const struct mqtx_ctl_call *c, void *arg);
int mqtx__ctl_cmd_ba(const struct mqtx_ctl_call *c, void *arg);
int mqtx__ctl_cmd_wme(const struct mqtx_ctl_call *c, void *arg);

/* ---- the WME words of dev set, and how dev show prints WME (cmd_wme.c) ---- */

/* struct wme_set.mask */
#define WME_SET_ACM	 0x01u
#define WME_SET_QOS_MAP	 0x02u
#define WME_SET_NOADMIT	 0x04u
#define WME_SET_LEGACY	 0x08u
#define WME_SET_TSPEC	 0x10u
#define WME_SET_BA	 0x20u /* the simulated peer's answer (sim-wifi) */
#define WME_SET_BA_DELAY 0x40u
#define WME_SET_ROLE	 0x80u

/* What "dev set NAME xps TXQ CPUS" or "dev set NAME flowcache N" asks for (one per command). */
struct xps_set {
	int txq;	   /* the queue whose map is set; -1: none */
	unsigned ncpus;	   /* 0: "none" */
	unsigned *cpus;	   /* ascending; allocated by the parse, freed by mqtx__xps_set_free() */
	int64_t flowcache; /* entries; -1: unchanged */
};

/**
 * mqtx__xps_set_word() - "xps TXQ CPUS" or "flowcache N" at @argv[0] into @s, for @dev.
 * Returns the words used, 0 when @argv[0] is not one, -1 after a message in @err.
 */
int mqtx__xps_set_word(struct xps_set *s, struct mqtx_dev *dev, int argc, char **argv,
		       struct mqtx_buf *err);

/** mqtx__xps_set_apply() - make the setting of @s on @dev, or none. Returns an exit code. */
int mqtx__xps_set_apply(const struct mqtx_ctl_call *c, struct mqtx_dev *dev,
			const struct xps_set *s);

/** mqtx__xps_set_free() - what the parse of @s allocated. */
void mqtx__xps_set_free(struct xps_set *s);

/**
 * mqtx__xps_show() - the flow cache and the XPS maps of @dev: " flowcache N" on the device's
 * line and a line "    txq Q: xps cpus LIST" per queue with a map; JSON members "flowcache"
 * and "xps" (an array of {"txq", "cpus"}). @line: the part on the device's line (and all of
 * the JSON); else the lines after it (text only).
 */
void mqtx__xps_show(struct mqtx_dev *dev, bool line, struct tc_out *p);

/* What "dev set NAME acm ... qosmap ... noadmit ... legacy ... tspec ... ba ..." asks for. */
struct wme_set {
	unsigned mask;
	uint8_t acm; /* (1 << AC) bits */
	bool has_map, legacy;
	struct mqtx_wme_qos_map map; /* if @has_map; else qosmap none */
	enum mqtx_wme_noadmit noadmit;
	uint8_t tspec_ac, tspec_up; /* one tspec per command */
	uint32_t tspec_time;	    /* 0: removed */
	enum mqtx_sim_wifi_ba_mode ba;
	uint64_t ba_delay_ns;
	enum mqtx_wme_role role;
	bool has_bssid;
	uint8_t bssid[6];
};

/**
 * mqtx__wme_set_word() - one WME word of dev set at @argv[0] (and its values) into @s.
 * Returns the words used, 0 when @argv[0] is not one, -1 after a message in @err.
 */
int mqtx__wme_set_word(struct wme_set *s, int argc, char **argv, struct mqtx_buf *err);

/**
 * mqtx__wme_set_apply() - make the settings of @s on @dev: all, or (after a message naming the
 * cause) none. Returns an exit code.
 */
int mqtx__wme_set_apply(const struct mqtx_ctl_call *c, struct mqtx_dev *dev,
			const struct wme_set *s);

/** mqtx__wme_show() - the WME settings of @dev: a " wme: ..." text line, or a "wme" JSON member. */
void mqtx__wme_show(struct mqtx_dev *dev, struct tc_out *p);

/** mqtx__wme_acm_format() - "vo,vi" or "none" for (1 << AC) bits @acm into @buf (24 bytes). */
const char *mqtx__wme_acm_format(uint8_t acm, char *buf);

/* ---- helpers for the commands (ctl_util.c); the command lock is held ---- */

/* tc's ways of leaving at once with exit -1 (255): incomplete_command() when the words end
 * where a value was due, invarg() for a word it cannot read, duparg() for one given twice.
 * Each prints tc's message into @err and returns MQTX_TC_EXIT_ABORT. */
int mqtx__ctl_incomplete(struct mqtx_buf *err);
int mqtx__ctl_invarg(struct mqtx_buf *err, const char *word, const char *why);
int mqtx__ctl_duparg(struct mqtx_buf *err, const char *key, const char *val);

/**
 * mqtx__ctl_opt_value() - the value of row @o, at @argv[*@i + 1], into @base, as tc's command
 * loops read a keyword's: none is an incomplete command, a second (the row's @given set, or its
 * parser's -EEXIST) tc's duparg() naming the word and the value, a bad one tc's invarg() with
 * the row's @hint. *@i moves to the value. Return: 0, or an exit code after the message.
 */
int mqtx__ctl_opt_value(struct mqtx_buf *err, const struct tc_opt *o, int argc, char **argv, int *i,
			void *base);

/**
 * mqtx__ctl_ifname_ok() - whether @name may name a network interface, as iproute2's
 * check_ifname() has it: 1 to IFNAMSIZ - 1 (15) bytes, no '/' and no blank. Every name that
 * becomes a device's or an interface's is held to it.
 */
bool mqtx__ctl_ifname_ok(const char *name);

/**
 * mqtx__ctl_ifname_check() - 0 when @name is one (mqtx__ctl_ifname_ok()); else what ip link
 * says of the value of its word @key ("name", "ifname"), with its exit code (MQTX_TC_EXIT_ABORT):
 * Error: argument "NAME" is wrong: "KEY" not a valid ifname
 */
int mqtx__ctl_ifname_check(struct mqtx_buf *err, const char *key, const char *name);

/** mqtx__ctl_after_name() - @c without the object's name: the words tc's do_OBJECT() sees. */
struct mqtx_ctl_call mqtx__ctl_after_name(const struct mqtx_ctl_call *c);

/**
 * mqtx__ctl_after_verb() - @c without the object's name and the verb after it: the words the
 * verb's handler sees. *@verb is the verb, @none where the call ends at the object's name.
 */
struct mqtx_ctl_call mqtx__ctl_after_verb(const struct mqtx_ctl_call *c, const char *none,
					  const char **verb);

/**
 * mqtx__ctl_asks_help() - whether a command of mqtx's own objects (dev, wme, sta, ba) asks for
 * its usage: @verb "help", or "help" as the last of the words @w after it.
 */
bool mqtx__ctl_asks_help(const char *verb, const struct mqtx_ctl_call *w);

/**
 * mqtx__ctl_unknown_verb() - "Command "@verb" is unknown, try "mqtx @object help"." on @err.
 * Returns @code: tc's objects exit 255 (tc's -1), mqtx's own (dev, wme, sta, ba) 1.
 */
int mqtx__ctl_unknown_verb(struct mqtx_buf *err, const char *object, const char *verb, int code);

/**
 * mqtx__ctl_verb_other() - what tc's do_OBJECT() does with a @verb none of the object's
 * handlers took: "help" (or a prefix of it) prints @usage; any other word is unknown ("Command
 * ... is unknown, try "mqtx @object help"."), MQTX_TC_EXIT_ABORT as tc's -1.
 */
int mqtx__ctl_verb_other(const struct mqtx_ctl_call *a, const char *object, const char *verb,
			 const char *usage);

/** mqtx__ctl_find_dev() - the device @name of @ctl, or NULL (no message). */
struct mqtx_dev *mqtx__ctl_find_dev(struct mqtx_ctl *ctl, const char *name);

/** mqtx__ctl_add_dev() - append @dev, made by @owner (NULL: the server), to @ctl.
 *  Return: 0, -EEXIST, -ENOMEM. */
int mqtx__ctl_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev, const struct ctl_owner *owner);

/* ---- who may change what: a client changes what it made; root and the admin, anything ---- */

/** mqtx__ctl_caller() - the owner the objects @c makes get. */
struct ctl_owner mqtx__ctl_caller(const struct mqtx_ctl_call *c);

/** mqtx__ctl_owns() - whether @c may change or delete what @o made. */
bool mqtx__ctl_owns(const struct mqtx_ctl_call *c, const struct ctl_owner *o);

/**
 * mqtx__ctl_eperm() - "LABEL: Operation not permitted (WHAT belongs to OWNER)" into @c->err.
 * Return: MQTX_TC_EXIT_REFUSED.
 */
int mqtx__ctl_eperm(const struct mqtx_ctl_call *c, const char *label, const char *what,
		    const struct ctl_owner *o);

/**
 * mqtx__ctl_may_change_dev() - 0 when @c may change @dev and what is on it (its qdiscs,
 * classes, filters, stations, jobs); else the refusal (mqtx__ctl_eperm(), @label first) and
 * MQTX_TC_EXIT_REFUSED.
 */
int mqtx__ctl_may_change_dev(const struct mqtx_ctl_call *c, const char *label,
			     struct mqtx_dev *dev);

/**
 * mqtx__ctl_block_owner() - who made the shared block @index, or NULL when no command of @ctl
 * did (or it has gone since).
 */
const struct ctl_owner *mqtx__ctl_block_owner(struct mqtx_ctl *ctl, uint32_t index);

/**
 * mqtx__ctl_may_use_block() - 0 when @c may change, or bind a qdisc to, the shared block
 * @index (one that does not exist yet is the caller's to make); else the refusal and
 * MQTX_TC_EXIT_REFUSED.
 */
int mqtx__ctl_may_use_block(const struct mqtx_ctl_call *c, const char *label, uint32_t index);

/**
 * mqtx__ctl_blocks_prepare() - before a command that may make up to @n shared blocks changes
 * anything: room for the owners of the blocks that exist and of @n more (free it with
 * mqtx__free() if the command fails).
 * Return: the room, or NULL (out of memory).
 */
struct ctl_block_owner *mqtx__ctl_blocks_prepare(struct mqtx_ctl *ctl, unsigned n);

/**
 * mqtx__ctl_blocks_made() - after that command succeeded: the owners of the blocks that still
 * exist, and @c as the owner of those of @index[0..n) (0: none) that were not there before
 * (@existed[i]) and are now, go into @room, which becomes the context's. Cannot fail.
 */
void mqtx__ctl_blocks_made(const struct mqtx_ctl_call *c, struct ctl_block_owner *room,
			   const uint32_t *index, const bool *existed, unsigned n);

/**
 * mqtx__ctl_remove_dev() - take @dev out of @ctl after telling every watch that it goes (the
 * caller destroys it).
 */
void mqtx__ctl_remove_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev);

/** mqtx__ctl_file_remove() - remove @path if it is still the file @fd is open on (ctl_file.c). */
void mqtx__ctl_file_remove(const char *path, int fd);

/**
 * mqtx__ctl_errno() - "CMD: NAME: what errno @err means" into @c->err.
 * Return: MQTX_TC_EXIT_REFUSED, what a refused request exits with.
 */
int mqtx__ctl_errno(const struct mqtx_ctl_call *c, const char *name, int err);

/**
 * mqtx__ctl_dev_why() - "CMD: NAME: why" into @err, for what the library said (logged, or
 * wrote into a message) about device @name: the name is said once, also where @why begins with
 * it ("NAME: ...") or with a driver's kind and then it ("KIND: NAME: ...").
 */
void mqtx__ctl_dev_why(struct mqtx_buf *err, const char *cmd, const char *name, const char *why);

/**
 * mqtx__ctl_unlock() / mqtx__ctl_relock() - let other commands run while this one waits on
 * something slow that needs nothing of the context (reading a file): nothing looked up before
 * the unlock may be used after the relock without looking it up again.
 */
void mqtx__ctl_unlock(struct mqtx_ctl *ctl);
void mqtx__ctl_relock(struct mqtx_ctl *ctl);

/**
 * mqtx__parse_hash_words() - "hash ALGO [seed S] [key HEX80] [l4]" starting at @argv[0] into
 * @h (algo, seed, key, l4 only). Returns the words used, or -1 after a message in @err.
 */
int mqtx__parse_hash_words(int argc, char **argv, struct mqtx_hash_cfg *h, struct mqtx_buf *err);

/**
 * mqtx__ctl_filter_block() - the filter block of @parent on @dev as "filter" commands find it
 * (the root qdisc's without a parent; TCF_PARENT_EGRESS/INGRESS: clsact's). Config lock held.
 * Return: 0 and *@out, or -errno with tc's message in @ack.
 */
struct mqtx_tcf_block;
int mqtx__ctl_filter_block(struct mqtx_dev *dev, uint32_t parent, bool shared_ok,
			   struct mqtx_tcf_block **out, struct mqtx_extack *ack);

/** mqtx__ctl_filter_test() - "filter test" (cmd_filter_test.c); @c's words after "test". */
int mqtx__ctl_filter_test(const struct mqtx_ctl_call *c);

#endif

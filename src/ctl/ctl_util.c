// SPDX-License-Identifier: MIT
/* What every command shares: the context's device list and its watches, the one
 * device lookup, the error convention, and the parsers more than one command reads. */
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/internal.h"
#include "cls/tcf.h"
#include "ctl/ctl_int.h"

int mqtx__ctl_incomplete(struct mqtx_buf *err)
{
	mqtx_buf_printf(err, "Command line is not complete. Try option \"help\"\n");
	return MQTX_TC_EXIT_ABORT; /* tc's incomplete_command() exits with -1 */
}

int mqtx__ctl_invarg(struct mqtx_buf *err, const char *word, const char *why)
{
	mqtx_buf_printf(err, "Error: argument \"%s\" is wrong: %s\n", word, why);
	return MQTX_TC_EXIT_ABORT;
}

bool mqtx__ctl_ifname_ok(const char *name)
{
	size_t n = strlen(name);

	/* iproute2's check_ifname(): what ip link refuses before asking the kernel. */
	if (n == 0 || n >= IF_NAMESIZE)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' || isspace((unsigned char)name[i]))
			return false;
	return true;
}

int mqtx__ctl_ifname_check(struct mqtx_buf *err, const char *key, const char *name)
{
	char why[64];

	if (mqtx__ctl_ifname_ok(name))
		return 0;
	snprintf(why, sizeof(why), "\"%s\" not a valid ifname", key);
	return mqtx__ctl_invarg(err, name, why);
}

int mqtx__ctl_duparg(struct mqtx_buf *err, const char *key, const char *val)
{
	mqtx_buf_printf(err, "Error: duplicate \"%s\": \"%s\" is the second value.\n", key, val);
	return MQTX_TC_EXIT_ABORT;
}

int mqtx__ctl_opt_value(struct mqtx_buf *err, const struct tc_opt *o, int argc, char **argv, int *i,
			void *base)
{
	const char *v;
	int rc;

	if (++*i >= argc)
		return mqtx__ctl_incomplete(err);
	v = argv[*i];
	if (mqtx__tc_opt_given(o, base))
		return mqtx__ctl_duparg(err, o->word, v);
	rc = mqtx__tc_opt_apply(o, v, base);
	if (rc == -EEXIST)
		return mqtx__ctl_duparg(err, o->word, v);
	return rc ? mqtx__ctl_invarg(err, v, o->hint) : MQTX_TC_EXIT_OK;
}

struct mqtx_ctl_call mqtx__ctl_after_name(const struct mqtx_ctl_call *c)
{
	struct mqtx_ctl_call a = *c;

	a.argc--;
	a.argv++;
	return a;
}

struct mqtx_ctl_call mqtx__ctl_after_verb(const struct mqtx_ctl_call *c, const char *none,
					  const char **verb)
{
	struct mqtx_ctl_call a = mqtx__ctl_after_name(c);

	*verb = a.argc ? a.argv[0] : none;
	if (a.argc) {
		a.argc--;
		a.argv++;
	}
	return a;
}

bool mqtx__ctl_asks_help(const char *verb, const struct mqtx_ctl_call *w)
{
	return !strcmp(verb, "help") || (w->argc && !strcmp(w->argv[w->argc - 1], "help"));
}

int mqtx__ctl_unknown_verb(struct mqtx_buf *err, const char *object, const char *verb, int code)
{
	mqtx_buf_printf(err, "Command \"%s\" is unknown, try \"mqtx %s help\".\n", verb, object);
	return code;
}

int mqtx__ctl_verb_other(const struct mqtx_ctl_call *a, const char *object, const char *verb,
			 const char *usage)
{
	if (mqtx__tc_matches(verb, "help")) {
		mqtx_buf_printf(a->out, "%s", usage);
		return MQTX_TC_EXIT_OK;
	}
	return mqtx__ctl_unknown_verb(a->err, object, verb, MQTX_TC_EXIT_ABORT); /* tc's -1 */
}

/* ---- the context's devices and watches ---- */

struct mqtx_dev *mqtx__ctl_find_dev(struct mqtx_ctl *ctl, const char *name)
{
	for (unsigned i = 0; i < ctl->ndevs; i++)
		if (!strcmp(mqtx_dev_name(ctl->devs[i]), name))
			return ctl->devs[i];
	return NULL;
}

int mqtx__ctl_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev, const struct ctl_owner *owner)
{
	struct ctl_owner *o;
	struct mqtx_dev **d;

	if (mqtx__ctl_find_dev(ctl, mqtx_dev_name(dev)))
		return -EEXIST;
	if (ctl->ndevs == ctl->cap) {
		unsigned cap = ctl->cap ? ctl->cap * 2 : 8;

		d = mqtx__alloc(cap * sizeof(*d));
		o = mqtx__alloc(cap * sizeof(*o));
		if (!d || !o) {
			mqtx__free(d);
			mqtx__free(o);
			return -ENOMEM;
		}
		if (ctl->ndevs) {
			memcpy(d, ctl->devs, ctl->ndevs * sizeof(*d));
			memcpy(o, ctl->dev_owners, ctl->ndevs * sizeof(*o));
		}
		mqtx__free(ctl->devs);
		mqtx__free(ctl->dev_owners);
		ctl->devs = d;
		ctl->dev_owners = o;
		ctl->cap = cap;
	}
	ctl->dev_owners[ctl->ndevs] = owner ? *owner : (struct ctl_owner){ .client = false };
	ctl->devs[ctl->ndevs++] = dev;
	return 0;
}

void mqtx__ctl_remove_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev)
{
	for (unsigned i = 0; i < ctl->nwatches; i++)
		ctl->watches[i].fn(ctl, dev, ctl->watches[i].arg);
	for (unsigned i = 0; i < ctl->ndevs; i++) {
		if (ctl->devs[i] != dev)
			continue;
		memmove(&ctl->devs[i], &ctl->devs[i + 1], (ctl->ndevs - i - 1) * sizeof(dev));
		memmove(&ctl->dev_owners[i], &ctl->dev_owners[i + 1],
			(ctl->ndevs - i - 1) * sizeof(*ctl->dev_owners));
		ctl->ndevs--;
		return;
	}
}

/* ---- who may change what ---- */

void mqtx_ctl_set_admin(struct mqtx_ctl *ctl, unsigned owner)
{
	pthread_mutex_lock(&ctl->lock);
	ctl->has_admin = true;
	ctl->admin = owner;
	pthread_mutex_unlock(&ctl->lock);
}

/* Root (owner 0), the admin, and a local caller (no request) may change anything. */
static bool is_admin(const struct mqtx_ctl_call *c)
{
	return !c->req || c->req->owner == 0 ||
	       (c->ctl->has_admin && c->req->owner == c->ctl->admin);
}

struct ctl_owner mqtx__ctl_caller(const struct mqtx_ctl_call *c)
{
	struct ctl_owner o = { .client = c->req != NULL };

	if (c->req) {
		o.id = c->req->owner;
		snprintf(o.who, sizeof(o.who), "%s", c->req->who ? c->req->who : "");
	}
	return o;
}

bool mqtx__ctl_owns(const struct mqtx_ctl_call *c, const struct ctl_owner *o)
{
	return is_admin(c) || (o->client && o->id == c->req->owner);
}

int mqtx__ctl_eperm(const struct mqtx_ctl_call *c, const char *label, const char *what,
		    const struct ctl_owner *o)
{
	mqtx_buf_printf(c->err, "%s: Operation not permitted (%s belongs to %s)\n", label, what,
			!o->client ? "the server"
			: *o->who  ? o->who
				   : "another client");
	return MQTX_TC_EXIT_REFUSED;
}

static const struct ctl_owner *dev_owner(struct mqtx_ctl *ctl, const struct mqtx_dev *dev)
{
	static const struct ctl_owner server = { .client = false };

	for (unsigned i = 0; i < ctl->ndevs; i++)
		if (ctl->devs[i] == dev)
			return &ctl->dev_owners[i];
	return &server; /* not the context's: nobody's to change but an admin */
}

int mqtx__ctl_may_change_dev(const struct mqtx_ctl_call *c, const char *label, struct mqtx_dev *dev)
{
	const struct ctl_owner *o = dev_owner(c->ctl, dev);
	char what[MQTX_NAME_MAX + 16];

	if (mqtx__ctl_owns(c, o))
		return 0;
	snprintf(what, sizeof(what), "device %s", mqtx_dev_name(dev));
	return mqtx__ctl_eperm(c, label, what, o);
}

const struct ctl_owner *mqtx__ctl_block_owner(struct mqtx_ctl *ctl, uint32_t index)
{
	for (unsigned i = 0; i < ctl->nblocks; i++)
		if (ctl->blocks[i].index == index)
			return mqtx__tcf_block_exists(index) ? &ctl->blocks[i].owner : NULL;
	return NULL;
}

int mqtx__ctl_may_use_block(const struct mqtx_ctl_call *c, const char *label, uint32_t index)
{
	static const struct ctl_owner server = { .client = false };
	const struct ctl_owner *o;
	char what[24];

	if (!index || !mqtx__tcf_block_exists(index))
		return 0;
	/* A block no command of this context made is the server's (or another context's). */
	o = mqtx__ctl_block_owner(c->ctl, index);
	if (!o)
		o = &server;
	if (mqtx__ctl_owns(c, o))
		return 0;
	snprintf(what, sizeof(what), "block %u", index);
	return mqtx__ctl_eperm(c, label, what, o);
}

/* The records stay as long as their blocks: a record of a block that has gone is dropped here
 * (which nothing shows), before a block of its index can be made again, so the room needed is
 * the records left and @n more. */
struct ctl_block_owner *mqtx__ctl_blocks_prepare(struct mqtx_ctl *ctl, unsigned n)
{
	unsigned live = 0;

	for (unsigned i = 0; i < ctl->nblocks; i++)
		if (mqtx__tcf_block_exists(ctl->blocks[i].index))
			ctl->blocks[live++] = ctl->blocks[i];
	ctl->nblocks = live;
	return mqtx__alloc((live + n) * sizeof(struct ctl_block_owner));
}

void mqtx__ctl_blocks_made(const struct mqtx_ctl_call *c, struct ctl_block_owner *room,
			   const uint32_t *index, const bool *existed, unsigned n)
{
	struct mqtx_ctl *ctl = c->ctl;
	unsigned used = 0;

	/* The records of the prepare, less the blocks the command let go of: they fit. */
	for (unsigned i = 0; i < ctl->nblocks; i++)
		if (mqtx__tcf_block_exists(ctl->blocks[i].index))
			room[used++] = ctl->blocks[i];
	for (unsigned k = 0; k < n; k++) {
		if (!index[k] || existed[k] || !mqtx__tcf_block_exists(index[k]))
			continue;
		room[used].index = index[k];
		room[used++].owner = mqtx__ctl_caller(c);
	}
	mqtx__free(ctl->blocks);
	ctl->blocks = room;
	ctl->nblocks = used;
}

int mqtx_ctl_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev)
{
	int err;

	pthread_mutex_lock(&ctl->lock);
	err = mqtx__ctl_add_dev(ctl, dev, NULL);
	pthread_mutex_unlock(&ctl->lock);
	return err;
}

struct mqtx_dev *mqtx_ctl_dev(struct mqtx_ctl *ctl, const char *name)
{
	struct mqtx_dev *dev;

	pthread_mutex_lock(&ctl->lock);
	dev = mqtx__ctl_find_dev(ctl, name);
	pthread_mutex_unlock(&ctl->lock);
	return dev;
}

struct mqtx_dev *mqtx_ctl_dev_next(struct mqtx_ctl *ctl, const struct mqtx_dev *prev)
{
	struct mqtx_dev *dev = NULL;
	unsigned i = 0;

	pthread_mutex_lock(&ctl->lock);
	if (prev) {
		while (i < ctl->ndevs && ctl->devs[i] != prev)
			i++;
		i++; /* past the last when @prev is gone: the walk ends */
	}
	if (i < ctl->ndevs)
		dev = ctl->devs[i];
	pthread_mutex_unlock(&ctl->lock);
	return dev;
}

struct mqtx_dev *mqtx_ctl_call_dev(const struct mqtx_ctl_call *call, const char *name)
{
	struct mqtx_dev *dev = mqtx__ctl_find_dev(call->ctl, name);

	if (!dev)
		mqtx_buf_printf(call->err, "Cannot find device \"%s\"\n", name);
	return dev;
}

int mqtx_ctl_watch(struct mqtx_ctl *ctl, mqtx_ctl_gone_fn fn, void *arg)
{
	struct ctl_watch *w;

	pthread_mutex_lock(&ctl->lock);
	w = mqtx__alloc((ctl->nwatches + 1) * sizeof(*w));
	if (w) {
		if (ctl->nwatches)
			memcpy(w, ctl->watches, ctl->nwatches * sizeof(*w));
		w[ctl->nwatches++] = (struct ctl_watch){ fn, arg };
		mqtx__free(ctl->watches);
		ctl->watches = w;
	}
	pthread_mutex_unlock(&ctl->lock);
	return w ? 0 : -ENOMEM;
}

void mqtx_ctl_unwatch(struct mqtx_ctl *ctl, mqtx_ctl_gone_fn fn, void *arg)
{
	pthread_mutex_lock(&ctl->lock);
	for (unsigned i = 0; i < ctl->nwatches; i++) {
		if (ctl->watches[i].fn != fn || ctl->watches[i].arg != arg)
			continue;
		memmove(&ctl->watches[i], &ctl->watches[i + 1],
			(ctl->nwatches - i - 1) * sizeof(*ctl->watches));
		ctl->nwatches--;
		break;
	}
	pthread_mutex_unlock(&ctl->lock);
}

void mqtx__ctl_unlock(struct mqtx_ctl *ctl)
{
	pthread_mutex_unlock(&ctl->lock);
}

void mqtx__ctl_relock(struct mqtx_ctl *ctl)
{
	pthread_mutex_lock(&ctl->lock);
}

/* ---- the error convention: tc's exit codes, a message that names the cause ---- */

int mqtx__ctl_errno(const struct mqtx_ctl_call *c, const char *name, int err)
{
	mqtx_buf_printf(c->err, "%s %s: %s: %s\n", c->argv[0], c->argc > 1 ? c->argv[1] : "", name,
			mqtx_strerror(err));
	return MQTX_TC_EXIT_REFUSED;
}

void mqtx__ctl_dev_why(struct mqtx_buf *err, const char *cmd, const char *name, const char *why)
{
	size_t n = strlen(name);
	const char *colon = strstr(why, ": ");

	/* The library names the device it logs about, first ("NAME: why") or after the
	 * driver's kind ("tap: NAME: why"): the command has said it already. */
	if (!strncmp(why, name, n) && !strncmp(why + n, ": ", 2)) {
		why += n + 2;
	} else if (colon && !memchr(why, ' ', (size_t)(colon - why)) &&
		   !strncmp(colon + 2, name, n) && !strncmp(colon + 2 + n, ": ", 2)) {
		mqtx_buf_printf(err, "%s: %s: %.*s: %s\n", cmd, name, (int)(colon - why), why,
				colon + 2 + n + 2);
		return;
	}
	mqtx_buf_printf(err, "%s: %s: %s\n", cmd, name, why);
}

/* ---- parsers shared by commands ---- */

static int parse_hex_key(const char *s, uint8_t *key, size_t n)
{
	if (strlen(s) != n * 2)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		key[i] = (uint8_t)v;
	}
	return 0;
}

/* The key of "hash ALGO key HEX": its 40 bytes, which are then the key's length. */
static int parse_hash_key(const char *v, void *field, const struct tc_opt *o)
{
	struct mqtx_hash_cfg *h = field;

	(void)o;
	if (parse_hex_key(v, h->key, sizeof(h->key)))
		return -EINVAL;
	h->key_len = sizeof(h->key);
	return 0;
}

static const char *const hash_algos[] = { "jhash", "toeplitz", "toeplitz-sym", NULL };

static const struct tc_opt hash_algo = { "hash", mqtx__tc_opt_word,
					 offsetof(struct mqtx_hash_cfg, algo),
					 .words = hash_algos };

/* What may follow the algorithm with a value ("l4" takes none). */
static const struct tc_opt hash_opts[] = {
	{ "seed", mqtx__tc_opt_u32, offsetof(struct mqtx_hash_cfg, seed) },
	{ "key", parse_hash_key, 0, .hint = "80 hex digits" },
};

int mqtx__parse_hash_words(int argc, char **argv, struct mqtx_hash_cfg *h, struct mqtx_buf *err)
{
	int i;

	if (argc < 2) {
		mqtx_buf_printf(err, "hash: an algorithm is required\n");
		return -1;
	}
	if (mqtx__tc_opt_apply(&hash_algo, argv[1], h)) {
		mqtx_buf_printf(err, "hash: unknown algorithm \"%s\"\n", argv[1]);
		return -1;
	}
	for (i = 2; i < argc; i++) {
		const struct tc_opt *o =
			mqtx__tc_opt_find(hash_opts, ARRAY_SIZE(hash_opts), argv[i]);

		if (!strcmp(argv[i], "l4")) {
			h->l4 = true;
			continue;
		}
		if (!o || i + 1 >= argc)
			break;
		if (!mqtx__tc_opt_apply(o, argv[++i], h))
			continue;
		if (o->hint)
			mqtx_buf_printf(err, "hash: invalid %s \"%s\" (%s)\n", o->word, argv[i],
					o->hint);
		else
			mqtx_buf_printf(err, "hash: invalid %s \"%s\"\n", o->word, argv[i]);
		return -1;
	}
	return i;
}

/* What "class help" prints (and "help" among the words of class show). */
const char mqtx__class_usage[] =
	"Usage: mqtx class [ add | del | change | replace | show ] dev STRING\n"
	"       [ classid CLASSID ] [ root | parent CLASSID ]\n"
	"\n"
	"       mqtx class show [ dev STRING ] [ root | parent CLASSID ] [ classid CLASSID ]\n"
	"                       [ qdisc QHANDLE ]\n"
	"       mqtx class add dev STRING parent CLASSID classid CLASSID htb rate RATE ...\n"
	"       mqtx class change dev STRING classid CLASSID ets quantum BYTES\n"
	"htb's classes are added, changed and deleted one by one; the classes of mq,\n"
	"mqprio, prio, tbf, taprio and ets come with their qdisc (ets's quanta change per "
	"class).\n";

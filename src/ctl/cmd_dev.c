// SPDX-License-Identifier: MIT
// The dev command: add (through a table of driver kinds), set, del, show and stats.
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mqtx/ctl.h>
#include <mqtx/driver.h>
#include <mqtx/ktxq.h>
#include <mqtx/loopback.h>
#include <mqtx/sim.h>

#include "base/internal.h"
#include "cls/tcf.h"
#include "core/core.h"
#include "ctl/ctl_int.h"
#include "ctl/dev_kinds.h"
#include <mqtx/tc.h>

static void dev_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx dev add NAME type KIND [ txqueues N ] [ maxqueues M ] [ txqueuelen "
		"L ]\n"
		"                    [ mtu MTU ] [ quota Q ] [ bql ] [ noqueue ] [ HASH ] [ "
		"KIND_OPTS ]\n"
		"                    [ up ]\n"
		"       mqtx dev set NAME { up | down | txqueues N | HASH } ...\n"
		"       mqtx dev set NAME { mtu M | txqueuelen L | ring D | coalesce TIME | "
		"rate RATE }"
		" ...\n"
		"       mqtx dev set NAME { acm { AC[,AC...] | none } | qosmap { QOSMAP | none } "
		"|\n"
		"                           noadmit { drop | bk } | legacy { on | off } |\n"
		"                           tspec AC { up U [ medium-time N ] | off } |\n"
		"                           ba { accept | refuse | silent } | ba-delay TIME } "
		"...\n"
		"       mqtx dev set NAME { xps TXQ { CPU[-CPU][,...] | none } | flowcache N }\n"
		"       mqtx dev del NAME\n"
		"       mqtx [ -s ] [ -j ] dev show [ NAME ]\n"
		"       mqtx [ -j ] dev stats [ NAME ]\n"
		"KIND := { null | loopback | sim [ ring D ] [ rate RATE ] [ coalesce TIME ] |\n"
		"          tap [ ifname IF ] txqueues N [ vnet_hdr ] |\n"
		"          af_packet ifname IF [ bypass { on | off } ] |\n"
		"          af_xdp ifname IF [ queue Q ] [ mode { copy | zerocopy | auto } ]\n"
		"                 [ frame { 2048 | 4096 } ] [ ring D ] |\n"
		"          pcap file PATH [ overwrite ] [ format { pcap | pcapng } ] [ rate RATE "
		"] |\n"
		"          sim-wifi [ rate RATE ] [ ring D ] [ aggqueues N ] [ ampdu N ]\n"
		"                   [ acm AC[,AC...] ] [ noadmit { drop | bk } ] [ legacy { on | "
		"off } ]\n"
		"                   [ stations N ] [ ba { accept | refuse | silent } ] [ "
		"ba-delay TIME ]\n"
		"                   [ ba-timeout TIME ] [ seed S ] [ coalesce TIME ]\n"
		"                   [ edca AC [ aifsn N ] [ cwmin N ] [ cwmax N ] [ txop TIME ] "
		"] ... }\n"
		"          (af_packet, af_xdp: without txqueues, as many as the interface has)\n"
		"HASH := hash { jhash | toeplitz | toeplitz-sym } [ seed S ] [ key HEX40 ] [ l4 "
		"]\n"
		"AC := { vo | vi | be | bk }    QOSMAP := hostapd's qos_map_set: DSCP,UP "
		"exception\n"
		"       pairs, then 8 low,high DSCP ranges for UP 0..7 (255,255: none)\n");
}

/* mqtx's own rule on top of ip link's (mqtx__ctl_ifname_ok()): a word scripts can quote
 * nowhere, and no word that a command takes for something else. */
static int valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "all") || !strcmp(s, "help"))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

/* A bad value of a row: its bounds, or what it wants (the words of dev set). */
static int opt_bad(const struct tc_opt *o, const char *v, struct mqtx_buf *err)
{
	if (o->hint)
		mqtx_buf_printf(err, "dev set: invalid %s \"%s\" (%s)\n", o->word, v ? v : "",
				o->hint);
	else
		mqtx_buf_printf(err, "dev: invalid %s \"%s\" (%llu..%llu)\n", o->word, v ? v : "",
				(unsigned long long)o->min, (unsigned long long)o->max);
	return -1;
}

/* "WORD VALUE" at @argv[0] by the rows @t[0..n): the words used (2), 0 if not one, -1. */
static int opt_word(const struct tc_opt *t, size_t n, int argc, char **argv, void *base,
		    struct mqtx_buf *err)
{
	const struct tc_opt *o = mqtx__tc_opt_find(t, n, argv[0]);
	const char *v = argc > 1 ? argv[1] : NULL;

	if (!o)
		return 0;
	if (!v || mqtx__tc_opt_apply(o, v, base))
		return opt_bad(o, v, err);
	return 2;
}

struct dev_add {
	struct mqtx_dev_cfg cfg;
	const struct dev_kind *kind;
	uint8_t kopt[KIND_OPT_MAX];
	struct mqtx_hash_cfg hash;
	bool has_hash, up;
	/* A kind that writes a file: its path, and the file open (sent by a server's client, or
	 * opened here with @opened set, when this open made it @created), or -1. */
	const char *path;
	int fd;
	bool opened, created;
};

#define ADD(m) offsetof(struct dev_add, cfg.m)

/* The numbers of dev add, as ip link add takes them. */
static const struct tc_opt add_opts[] = {
	{ "txqueues", mqtx__tc_opt_u32, ADD(real_num_txq), .min = 1, .max = MQTX_MAX_TXQ },
	{ "maxqueues", mqtx__tc_opt_u32, ADD(num_txq), .min = 1, .max = MQTX_MAX_TXQ },
	{ "txqueuelen", mqtx__tc_opt_u32, ADD(tx_queue_len), .min = 1, .max = 1u << 24 },
	{ "qlen", mqtx__tc_opt_u32, ADD(tx_queue_len), .min = 1, .max = 1u << 24 },
	{ "mtu", mqtx__tc_opt_u32, ADD(mtu), .min = 68, .max = 9000 },
	{ "quota", mqtx__tc_opt_u32, ADD(quota), .min = 1, .max = 65536 },
};

/* A common word of dev add; returns words used, 0 if unknown, -1 after a message. */
static int add_common(struct dev_add *a, int argc, char **argv, struct mqtx_buf *err)
{
	const char *w = argv[0];

	if (!strcmp(w, "up"))
		return a->up = true, 1;
	if (!strcmp(w, "bql"))
		return a->cfg.flags |= MQTX_DEV_F_BQL, 1;
	if (!strcmp(w, "noqueue")) /* no qdisc on the queues, as veth and tun by default */
		return a->cfg.flags |= MQTX_DEV_F_NO_QUEUE, 1;
	if (!strcmp(w, "hash")) {
		int n = mqtx__parse_hash_words(argc, argv, &a->hash, err);

		a->has_hash = true;
		return n;
	}
	return opt_word(add_opts, ARRAY_SIZE(add_opts), argc, argv, a, err);
}

static bool has_word(int argc, char **argv, const char *w)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], w))
			return true;
	return false;
}

static int add_parse(struct dev_add *a, int argc, char **argv, struct mqtx_buf *err)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "type")) {
			if (i + 1 >= argc || !(a->kind = mqtx__dev_kind(argv[i + 1]))) {
				mqtx_buf_printf(err, "dev add: unknown type \"%s\"\n",
						i + 1 < argc ? argv[i + 1] : "");
				return MQTX_TC_EXIT_PARSE;
			}
			i++;
		}
	}
	if (!a->kind) {
		mqtx_buf_printf(err, "dev add: \"type KIND\" is required\n");
		return MQTX_TC_EXIT_PARSE;
	}
	if (a->kind->required && !has_word(argc, argv, a->kind->required)) {
		mqtx_buf_printf(err, "dev add: type %s needs \"%s\"\n", a->kind->kind,
				a->kind->required);
		return MQTX_TC_EXIT_PARSE;
	}
	for (int i = 0; i < argc;) {
		int n = !strcmp(argv[i], "type") ? 2 : add_common(a, argc - i, argv + i, err);

		if (n == 0 && a->kind->parse)
			n = a->kind->parse(a->kopt, argc - i, argv + i, err);
		if (n < 0)
			return n == -MQTX_TC_EXIT_ABORT ? MQTX_TC_EXIT_ABORT : MQTX_TC_EXIT_PARSE;
		if (n == 0) {
			mqtx_buf_printf(err, "dev add: what is \"%s\"? Try \"mqtx dev help\".\n",
					argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		i += n;
	}
	return 0;
}

/* The queue counts: the kind's default when none is given, txqueues within maxqueues. */
static int add_queues(struct dev_add *a, struct mqtx_buf *err)
{
	if (a->kind->flags & KIND_F_OWN_QUEUES) {
		if (a->cfg.num_txq || a->cfg.real_num_txq) {
			mqtx_buf_printf(err,
					"dev add: type %s makes its own queues: no txqueues or "
					"maxqueues\n",
					a->kind->kind);
			return MQTX_TC_EXIT_PARSE;
		}
		return 0;
	}
	if (a->kind->flags & KIND_F_IF_QUEUES) {
		/* txqueues N is the sockets to make; none given: the interface's count (0). */
		if (!a->cfg.num_txq)
			a->cfg.num_txq = a->cfg.real_num_txq;
	} else {
		if (!a->cfg.real_num_txq)
			a->cfg.real_num_txq = a->cfg.num_txq ? a->cfg.num_txq : 1;
		if (!a->cfg.num_txq)
			a->cfg.num_txq = a->cfg.real_num_txq;
	}
	if (a->cfg.real_num_txq > a->cfg.num_txq) {
		mqtx_buf_printf(err, "dev add: txqueues %u is more than maxqueues %u\n",
				a->cfg.real_num_txq, a->cfg.num_txq);
		return MQTX_TC_EXIT_PARSE;
	}
	return 0;
}

/* Create the device and bring it up if asked; on a failure nothing is left, and the reason the
 * driver logged (the interface and the cause) is the message. */
static int add_create(const struct mqtx_ctl_call *c, struct dev_add *a, struct mqtx_dev **dev)
{
	struct mqtx_extack ack = { "" };
	char why[256];
	int rc;

	mqtx__log_capture(why, sizeof(why));
	a->cfg.clock = c->ctl->clock;
	if (a->kind->file)
		rc = a->kind->create_fd(&a->cfg, a->kopt, a->fd, dev);
	else
		rc = a->kind->create(&a->cfg, a->kopt, dev, &ack);
	if (!rc && a->has_hash)
		rc = mqtx_dev_set_hash(*dev, &a->hash);
	if (!rc && a->up)
		rc = mqtx_dev_open(*dev);
	mqtx__log_capture(NULL, 0);
	if (!rc)
		return 0;
	mqtx_dev_destroy(*dev); /* NULL when the constructor failed */
	*dev = NULL;
	if (ack.msg[0])
		snprintf(why, sizeof(why), "%s", ack.msg);
	if (!*why)
		return mqtx__ctl_errno(c, a->cfg.name, rc);
	mqtx__ctl_dev_why(c->err, "dev add", a->cfg.name, why);
	return MQTX_TC_EXIT_REFUSED;
}

/*
 * The file of a kind that writes one: the one a server's client sent; else the path, opened
 * here as the client would (kind->file_open), for a local caller or, by an absolute path, for
 * root (mqtx_ctl_exec_req()). For anyone else a name would be resolved with the server's rights
 * (it could make root write where they may not), and a relative one in its directory.
 */
static int add_file(const struct mqtx_ctl_call *c, struct dev_add *a, int argc, char **argv)
{
	a->fd = -1;
	if (!a->kind->file)
		return 0;
	a->path = "";
	for (int i = 0; i + 1 < argc && !*a->path; i++)
		if (!strcmp(argv[i], a->kind->file))
			a->path = argv[i + 1];
	if (c->req && c->req->fd >= 0) {
		a->fd = c->req->fd; /* mqtx_ctl_exec_req() closes it */
		return 0;
	}
	if (c->req && c->req->owner != 0) {
		mqtx_buf_printf(c->err,
				"dev add: %s: the file must come open with the command (a server "
				"opens no file by name for a client but root; mqtx sends it)\n",
				a->path);
		return MQTX_TC_EXIT_PARSE;
	}
	if (c->req && a->path[0] != '/') {
		mqtx_buf_printf(c->err,
				"dev add: %s: a relative path must come open with the command (the "
				"server's working directory is not the client's; mqtx sends it)\n",
				a->path);
		return MQTX_TC_EXIT_PARSE;
	}
	a->opened = true;
	return 0;
}

/* Open the kind's file by its path; 0, or an exit code after the message. */
static int add_open(const struct mqtx_ctl_call *c, struct dev_add *a, int argc, char **argv)
{
	char msg[320];

	a->fd = a->kind->file_open(a->path, argc, argv, &a->created, msg, sizeof(msg));
	if (a->fd >= 0)
		return 0;
	a->opened = false;
	mqtx_buf_printf(c->err, "dev add: %s: %s: %s\n", a->cfg.name, a->kind->kind, msg);
	return MQTX_TC_EXIT_REFUSED;
}

/* Create the device. A driver that writes a file has it opened and set up with the command
 * lock released (a file system may be slow); the name is checked again once the lock is back. */
static int add_unlocked(const struct mqtx_ctl_call *c, struct dev_add *a, int argc, char **argv,
			struct mqtx_dev **dev)
{
	int rc = 0;

	if (!a->kind->file)
		return add_create(c, a, dev);
	mqtx__ctl_unlock(c->ctl);
	if (a->opened)
		rc = add_open(c, a, argc, argv);
	if (!rc)
		rc = add_create(c, a, dev);
	mqtx__ctl_relock(c->ctl);
	if (!rc && mqtx__ctl_find_dev(c->ctl, a->cfg.name)) {
		mqtx_dev_destroy(*dev);
		*dev = NULL;
		mqtx_buf_printf(c->err, "dev add: device \"%s\" already exists\n", a->cfg.name);
		rc = MQTX_TC_EXIT_REFUSED;
	}
	return rc;
}

/* A dev add that failed leaves no file that its own open made; the file it opened is closed
 * (the device has its own copy). */
static int add_done(struct dev_add *a, int rc)
{
	if (!a->opened)
		return rc;
	if (rc && a->created)
		mqtx__ctl_file_remove(a->path, a->fd);
	close(a->fd);
	return rc;
}

static int dev_add(const struct mqtx_ctl_call *c, int argc, char **argv)
{
	struct mqtx_buf *err = c->err;
	struct mqtx_dev *dev = NULL;
	struct ctl_owner owner;
	struct dev_add a;
	int rc;

	memset(&a, 0, sizeof(a));
	/* The name is an interface's (a TAP takes it by default): ip link's words first. */
	if (argc >= 1 && (rc = mqtx__ctl_ifname_check(err, "name", argv[0])))
		return rc;
	if (argc < 1 || !valid_name(argv[0])) {
		mqtx_buf_printf(err, "dev add: invalid device name \"%s\"\n", argc ? argv[0] : "");
		return MQTX_TC_EXIT_PARSE;
	}
	a.cfg.name = argv[0];
	rc = add_parse(&a, argc - 1, argv + 1, err);
	if (!rc)
		rc = add_queues(&a, err);
	if (!rc)
		rc = add_file(c, &a, argc - 1, argv + 1);
	if (rc)
		return rc;
	if (mqtx__ctl_find_dev(c->ctl, argv[0])) {
		mqtx_buf_printf(err, "dev add: device \"%s\" already exists\n", argv[0]);
		return MQTX_TC_EXIT_REFUSED;
	}
	rc = add_unlocked(c, &a, argc - 1, argv + 1, &dev);
	if (rc)
		return add_done(&a, rc);
	owner = mqtx__ctl_caller(c);
	rc = mqtx__ctl_add_dev(c->ctl, dev, &owner);
	if (rc) {
		mqtx_dev_destroy(dev);
		return add_done(&a, mqtx__ctl_errno(c, argv[0], rc));
	}
	return add_done(&a, MQTX_TC_EXIT_OK);
}

struct dev_set {
	int up; /* -1 unchanged, 0 down, 1 up */
	uint32_t txq;
	struct mqtx_hash_cfg hash;
	bool has_hash;
	struct mqtx_dev_settings chg; /* mtu, txqueuelen, ring, coalesce, rate */
	struct wme_set wme;	      /* acm, qosmap, noadmit, legacy, tspec, ba */
	struct xps_set xps;	      /* xps or flowcache */
};

/* A bit rate, not a packet rate, into a uint64_t. */
static int parse_bit_rate(const char *v, void *field, const struct tc_opt *o)
{
	uint64_t pps = 0;

	(void)o;
	if (mqtx__parse_rate(v, field, &pps) || pps)
		return -EINVAL;
	return 0;
}

#define SETTING(m) offsetof(struct dev_set, chg.m), .flags = TC_OPT_GIVEN(struct dev_set, chg.mask)

/* What mqtx_dev_change() sets (ip link set, ethtool -G/-C). */
static const struct tc_opt setting_opts[] = {
	{ "mtu", mqtx__tc_opt_u32, SETTING(mtu), .min = 68, .max = 65535,
	  .flag = MQTX_DEV_SET_MTU },
	{ "txqueuelen", mqtx__tc_opt_u32, SETTING(tx_queue_len), .min = 1, .max = 1u << 24,
	  .flag = MQTX_DEV_SET_TXQUEUELEN },
	{ "qlen", mqtx__tc_opt_u32, SETTING(tx_queue_len), .min = 1, .max = 1u << 24,
	  .flag = MQTX_DEV_SET_TXQUEUELEN },
	{ "ring", mqtx__tc_opt_u32, SETTING(ring), .min = 1, .max = 65536,
	  .flag = MQTX_DEV_SET_RING },
	{ "coalesce", mqtx__tc_opt_time, SETTING(coalesce_ns), .flag = MQTX_DEV_SET_COALESCE,
	  .hint = "a time such as 20us" },
	{ "rate", parse_bit_rate, SETTING(rate_bps), .flag = MQTX_DEV_SET_RATE,
	  .hint = "a bit rate such as 1gbit" },
};

/* One word of dev set (and its values) into @o: the words used, 0 if unknown, -1. */
static int set_word(struct dev_set *o, struct mqtx_dev *dev, int argc, char **argv,
		    struct mqtx_buf *err)
{
	/* txqueues: within the queues the device has */
	const struct tc_opt txqueues = { "txqueues", mqtx__tc_opt_u32,
					 offsetof(struct dev_set, txq), .min = 1,
					 .max = mqtx_dev_num_txq(dev) };
	int n;

	if (!strcmp(argv[0], "up") || !strcmp(argv[0], "down")) {
		o->up = argv[0][0] == 'u';
		return 1;
	}
	if (!strcmp(argv[0], "hash")) {
		mqtx_dev_hash_cfg(dev, &o->hash);
		o->hash.key_len = 0;
		o->hash.l4 = false;
		o->has_hash = true;
		return mqtx__parse_hash_words(argc, argv, &o->hash, err);
	}
	n = opt_word(&txqueues, 1, argc, argv, o, err);
	if (n == 0)
		n = opt_word(setting_opts, ARRAY_SIZE(setting_opts), argc, argv, o, err);
	if (n == 0)
		n = mqtx__wme_set_word(&o->wme, argc, argv, err);
	if (n == 0)
		n = mqtx__xps_set_word(&o->xps, dev, argc, argv, err);
	return n;
}

/* The settings that go in a command of their own; 0, or -1 after a message. */
static int set_alone(const struct dev_set *o, struct mqtx_buf *err)
{
	/* A change that fails after the device went up or down could not be undone. */
	if (o->chg.mask && o->up >= 0) {
		mqtx_buf_printf(err, "dev set: give up or down in a command of its own, not with "
				     "mtu, txqueuelen, ring, coalesce or rate\n");
		return -1;
	}
	/* WME settings are all or nothing among themselves (mqtx__wme_set_apply()). */
	if (o->wme.mask && (o->chg.mask || o->up >= 0 || o->txq || o->has_hash)) {
		mqtx_buf_printf(err,
				"dev set: give acm, qosmap, noadmit, legacy, tspec and ba in a "
				"command of their own\n");
		return -1;
	}
	/* One call each, which changes all or nothing. */
	if ((o->xps.txq >= 0 || o->xps.flowcache >= 0) &&
	    (o->chg.mask || o->up >= 0 || o->txq || o->has_hash || o->wme.mask)) {
		mqtx_buf_printf(err, "dev set: give xps or flowcache in a command of its own\n");
		return -1;
	}
	return 0;
}

static int set_parse(struct dev_set *o, struct mqtx_dev *dev, int argc, char **argv,
		     struct mqtx_buf *err)
{
	for (int i = 0; i < argc;) {
		int n = set_word(o, dev, argc - i, argv + i, err);

		if (n < 0)
			return MQTX_TC_EXIT_PARSE;
		if (n == 0) {
			mqtx_buf_printf(err, "dev set: what is \"%s\"? Try \"mqtx dev help\".\n",
					argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
		i += n;
	}
	return set_alone(o, err) ? MQTX_TC_EXIT_PARSE : 0;
}

/*
 * "up": open the device, and attach it to its kernel interface again when that one is gone (it
 * was deleted, and one of the same name made since): the driver does it as it opens. A device
 * still up over a gone interface goes down first; what its queues hold could not go out any
 * more. Returns 0, an exit code after a message, or -errno for mqtx__ctl_errno().
 */
static int set_up(const struct mqtx_ctl_call *c, struct mqtx_dev *dev, const char *name)
{
	bool gone = false, reopen = false;
	const char *ifname = mqtx_kdev_ifname(dev, &gone);
	char why[256];
	int rc;

	if (mqtx_dev_is_up(dev)) {
		if (!ifname || !gone)
			return 0;
		/* Nothing to attach to: it stays as it is. */
		if (!if_nametoindex(ifname)) {
			mqtx_buf_printf(c->err, "dev set: %s: %s: the interface is gone\n", name,
					ifname);
			return MQTX_TC_EXIT_REFUSED;
		}
		mqtx_dev_close(dev);
		reopen = true;
	}
	mqtx__log_capture(why, sizeof(why));
	rc = mqtx_dev_open(dev);
	mqtx__log_capture(NULL, 0);
	if (!rc)
		return 0;
	if (!*why && !reopen)
		return rc;
	if (!*why)
		snprintf(why, sizeof(why), "%s", mqtx_strerror(rc));
	mqtx__ctl_dev_why(c->err, "dev set", name, why);
	if (reopen)
		mqtx_buf_printf(c->err,
				"dev set: %s is down now: it was up over %s, which had gone\n",
				name, ifname);
	return MQTX_TC_EXIT_REFUSED;
}

/*
 * Everything that can fail is done before anything changes: the parse checks every value, the
 * new hasher is built, the settings are changed (mqtx_dev_change() changes nothing when it
 * fails; it never comes with up or down) and the device brought up (mqtx_dev_open() changes
 * nothing when it fails); what follows cannot fail. The queue count changes live, as Linux's
 * netif_set_real_num_tx_queues(): the device is not bounced, so its qdiscs, counters and
 * queued packets stay (the queues that go out of use lose what they hold).
 */
static int dev_set(const struct mqtx_ctl_call *c, int argc, char **argv)
{
	struct dev_set o = { .up = -1, .xps = { .txq = -1, .flowcache = -1 } };
	const struct dev_kind *k;
	struct mqtx_hasher *h = NULL;
	struct mqtx_dev *dev;
	char why[256];
	int rc;

	if (argc < 2) {
		mqtx_buf_printf(c->err, "dev set: NAME and a setting are required\n");
		return MQTX_TC_EXIT_PARSE;
	}
	dev = mqtx_ctl_call_dev(c, argv[0]);
	if (!dev)
		return MQTX_TC_EXIT_PARSE;
	rc = set_parse(&o, dev, argc - 1, argv + 1, c->err);
	if (!rc)
		rc = mqtx__ctl_may_change_dev(c, "dev set", dev);
	if (!rc && (o.xps.txq >= 0 || o.xps.flowcache >= 0))
		rc = mqtx__xps_set_apply(c, dev, &o.xps);
	mqtx__xps_set_free(&o.xps);
	if (rc || o.xps.txq >= 0 || o.xps.flowcache >= 0)
		return rc;
	k = mqtx__dev_kind_of(dev);
	if (o.txq && o.txq != mqtx_dev_real_num_txq(dev) && k && (k->flags & KIND_F_OWN_QUEUES)) {
		/* WME selects every one of a Wi-Fi device's queues: none may go out of use. */
		mqtx_buf_printf(c->err, "dev set: %s: a %s device keeps all its %u queues in use\n",
				argv[0], k->kind, mqtx_dev_num_txq(dev));
		return MQTX_TC_EXIT_REFUSED;
	}
	if (o.wme.mask)
		return mqtx__wme_set_apply(c, dev, &o.wme);
	if (o.has_hash && (rc = mqtx_hasher_new(&o.hash, &h)))
		return mqtx__ctl_errno(c, argv[0], rc);
	if (o.chg.mask && (rc = mqtx_dev_change(dev, &o.chg, why, sizeof(why)))) {
		mqtx_hasher_free(h);
		mqtx__ctl_dev_why(c->err, "dev set", argv[0], why);
		return MQTX_TC_EXIT_REFUSED;
	}
	if (o.up == 1 && (rc = set_up(c, dev, argv[0]))) {
		if (rc < 0)
			goto free_hasher;
		mqtx_hasher_free(h);
		return rc;
	}
	/* The commit: none of these can fail. */
	if (h)
		mqtx__dev_swap_hasher(dev, h);
	if (o.up == 0 && mqtx_dev_is_up(dev))
		mqtx_dev_close(dev);
	if (o.txq && o.txq != mqtx_dev_real_num_txq(dev))
		mqtx_dev_set_real_num_txq(dev, o.txq); /* in range: checked by the parse */
	return MQTX_TC_EXIT_OK;
free_hasher:
	mqtx_hasher_free(h);
	return mqtx__ctl_errno(c, argv[0], rc);
}

static int dev_del(const struct mqtx_ctl_call *c, int argc, char **argv)
{
	struct mqtx_dev *dev;

	if (argc != 1) {
		mqtx_buf_printf(c->err,
				argc ? "dev del: what is \"%s\"?\n"
				     : "dev del: NAME is required%s\n",
				argc ? argv[1] : "");
		return MQTX_TC_EXIT_PARSE;
	}
	dev = mqtx_ctl_call_dev(c, argv[0]);
	if (!dev)
		return MQTX_TC_EXIT_PARSE;
	if (mqtx__ctl_may_change_dev(c, "dev del", dev))
		return MQTX_TC_EXIT_REFUSED;
	if (mqtx__tcf_dev_targeted(dev)) {
		mqtx_buf_printf(c->err,
				"dev del: %s is the device of a mirred action: delete its filter "
				"first\n",
				argv[0]);
		return MQTX_TC_EXIT_REFUSED;
	}
	mqtx__ctl_remove_dev(c->ctl, dev); /* jobs on it stop first (the watches) */
	mqtx_dev_destroy(dev);
	return MQTX_TC_EXIT_OK;
}

int mqtx__ctl_cmd_dev(const struct mqtx_ctl_call *c, void *arg)
{
	const char *verb;
	const struct mqtx_ctl_call w = mqtx__ctl_after_verb(c, "show", &verb);

	(void)arg;
	if (mqtx__ctl_asks_help(verb, &w)) {
		dev_usage(c->out);
		return MQTX_TC_EXIT_OK;
	}
	if (!strcmp(verb, "add"))
		return dev_add(c, w.argc, w.argv);
	if (!strcmp(verb, "set"))
		return dev_set(c, w.argc, w.argv);
	if (!strcmp(verb, "del") || !strcmp(verb, "delete"))
		return dev_del(c, w.argc, w.argv);
	if (!strcmp(verb, "show") || !strcmp(verb, "list") || !strcmp(verb, "ls"))
		return mqtx__ctl_dev_show(c, w.argc, w.argv, false);
	if (!strcmp(verb, "stats"))
		return mqtx__ctl_dev_show(c, w.argc, w.argv, true);
	return mqtx__ctl_unknown_verb(c->err, "dev", verb, MQTX_TC_EXIT_PARSE);
}

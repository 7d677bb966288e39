// SPDX-License-Identifier: MIT
/* The drivers "dev add NAME type KIND" builds, each with its own words: null, sim, loopback,
 * sim-wifi (kind_sim_wifi.c), and over the kernel tap, af_packet, af_xdp and pcap. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/af_packet.h>
#include <mqtx/af_xdp.h>
#include <mqtx/driver.h>
#include <mqtx/loopback.h>
#include <mqtx/pcap.h>
#include <mqtx/sim.h>
#include <mqtx/tap.h>
#include <mqtx/tc.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include "ctl/dev_kinds.h"

_Static_assert(sizeof(struct mqtx_sim_cfg) <= KIND_OPT_MAX, "kind options fit");
_Static_assert(sizeof(struct mqtx_tap_cfg) <= KIND_OPT_MAX, "kind options fit");
_Static_assert(sizeof(struct mqtx_af_packet_cfg) <= KIND_OPT_MAX, "kind options fit");
_Static_assert(sizeof(struct mqtx_af_xdp_cfg) <= KIND_OPT_MAX, "kind options fit");
_Static_assert(sizeof(struct mqtx_pcap_cfg) <= KIND_OPT_MAX, "kind options fit");

static int bad_value(struct mqtx_buf *err, const char *kind, char **argv, const char *want)
{
	mqtx_buf_printf(err, "dev add: invalid %s %s \"%s\"%s%s\n", kind, argv[0], argv[1],
			want ? ": " : "", want ? want : "");
	return -1;
}

/* "ifname IF": an interface's name as ip link takes one (-MQTX_TC_EXIT_ABORT: exit 255). */
static int ifname_word(struct mqtx_buf *err, char *v, const char **ifname)
{
	if (mqtx__ctl_ifname_check(err, "ifname", v))
		return -MQTX_TC_EXIT_ABORT;
	*ifname = v;
	return 2;
}

/* "WORD VALUE" with WORD one of @words (NULL-terminated): which one, or -1. */
static int word_of(int argc, char **argv, const char *const *words)
{
	if (argc < 2)
		return -1;
	for (int i = 0; words[i]; i++)
		if (!strcmp(argv[0], words[i]))
			return i;
	return -1;
}

static int null_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
		       struct mqtx_extack *ack)
{
	(void)ack;
	(void)opt;
	base->ops = &mqtx_null_ops;
	return mqtx_dev_create(base, out);
}

static int loopback_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
			   struct mqtx_extack *ack)
{
	(void)ack;
	(void)opt;
	base->ops = &mqtx_loopback_ops;
	return mqtx_dev_create(base, out);
}

/* sim: "ring D", "rate R" (bit/s or pps per queue), "coalesce TIME". */
static int sim_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	static const char *const words[] = { "ring", "rate", "coalesce", NULL };
	struct mqtx_sim_cfg *c = opt;
	int w = word_of(argc, argv, words);
	uint64_t x;

	if (w < 0)
		return 0;
	if (w == 0) {
		if (mqtx__parse_u64(argv[1], &x) || !x || x > MQTX_SIM_RING_MAX)
			goto bad;
		c->ring = (uint32_t)x;
	} else if (w == 1) {
		if (mqtx__parse_rate(argv[1], &c->rate_bps, &c->rate_pps))
			goto bad;
	} else if (mqtx_tc_parse_time(argv[1], &c->coalesce_ns)) { /* bare: us, as tc and ethtool */
		goto bad;
	}
	return 2;
bad:
	return bad_value(err, "sim", argv, NULL);
}

static int sim_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
		      struct mqtx_extack *ack)
{
	(void)ack;
	return mqtx_sim_dev_create(base, opt, out);
}

/* The model as it runs, in the words and units dev add takes. */
/* Text only: the sim's settings are not in its JSON. */
static void sim_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	(void)flags;
	struct mqtx_sim_cfg c;
	char b[MQTX_TC_BUF];

	if (mqtx_sim_get_cfg(dev, &c))
		return;
	mqtx__out_text(p, " ring %u", c.ring);
	if (c.rate_bps)
		mqtx__out_text(p, " rate %s", mqtx_tc_print_rate(b, sizeof(b), c.rate_bps / 8));
	if (c.rate_pps)
		mqtx__out_text(p, " rate %llupps", (unsigned long long)c.rate_pps);
	mqtx__out_text(p, " stop_thresh %u wake_thresh %u coalesce %s", c.stop_thresh,
		       c.wake_thresh, mqtx_tc_print_time(b, sizeof(b), c.coalesce_ns));
}

/* tap: "ifname IF" (absent: the device's name), "vnet_hdr". */
static int tap_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	struct mqtx_tap_cfg *c = opt;

	(void)err;
	if (!strcmp(argv[0], "vnet_hdr"))
		return c->vnet_hdr = true, 1;
	if (argc >= 2 && !strcmp(argv[0], "ifname"))
		return ifname_word(err, argv[1], &c->ifname);
	return 0;
}

static int tap_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
		      struct mqtx_extack *ack)
{
	(void)ack;
	return mqtx_tap_dev_create(base, opt, out);
}

/* The kernel interface a tap, af_packet or af_xdp device sends on, "(gone)" once it was
 * deleted: then "dev set NAME up" attaches to one of the same name made since. */
static void kif_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	bool gone = false;
	const char *ifname = mqtx_kdev_ifname(dev, &gone);

	(void)flags;
	if (!ifname)
		return;
	mqtx__out_str(p, OUT_ANY, "ifname", " ifname %s", ifname);
	mqtx__out_bool(p, OUT_ANY, "ifname_gone", " (gone)", gone);
}

/* af_packet: the interface, and whether its kernel qdisc is bypassed (as it was added). */
static void afp_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	bool on = mqtx_af_packet_bypass(dev) > 0;

	kif_show(dev, flags, p);
	mqtx__out_str(p, OUT_FP, NULL, " bypass %s", on ? "on" : "off");
	mqtx__out_bool(p, OUT_JSON, "bypass", NULL, on);
}

/* af_packet: "ifname IF", "bypass on|off". */
static int afp_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	static const char *const words[] = { "ifname", "bypass", NULL };
	struct mqtx_af_packet_cfg *c = opt;
	int w = word_of(argc, argv, words);

	if (w < 0)
		return 0;
	if (w == 0) {
		return ifname_word(err, argv[1], &c->ifname);
	} else if (!strcmp(argv[1], "on") || !strcmp(argv[1], "off")) {
		c->no_bypass = !strcmp(argv[1], "off");
	} else {
		return bad_value(err, "af_packet", argv, "on or off");
	}
	return 2;
}

static int afp_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
		      struct mqtx_extack *ack)
{
	(void)ack;
	return mqtx_af_packet_dev_create(base, opt, out);
}

/* af_xdp: "ifname IF", "queue Q", "mode copy|zerocopy|auto", "frame 2048|4096", "ring D". */
static int xdp_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	static const char *const words[] = { "ifname", "queue", "mode", "frame", "ring", NULL };
	static const char *const modes[] = { "auto", "copy", "zerocopy" };
	struct mqtx_af_xdp_cfg *c = opt;
	int w = word_of(argc, argv, words);
	uint64_t x = 0;

	if (w < 0)
		return 0;
	if (w == 0)
		return ifname_word(err, argv[1], &c->ifname);
	if (w == 2) {
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++)
			if (!strcmp(argv[1], modes[m]))
				return c->mode = (enum mqtx_xdp_mode)m, 2;
		return bad_value(err, "af_xdp", argv, "copy, zerocopy or auto");
	}
	if (mqtx__parse_u64(argv[1], &x))
		x = UINT64_MAX;
	if (w == 1 && x < UINT32_MAX)
		c->queue = (uint32_t)x;
	else if (w == 3 && (x == 2048 || x == 4096))
		c->frame = (uint32_t)x;
	else if (w == 4 && x >= 64 && x <= MQTX_XDP_RING_MAX && !(x & (x - 1)))
		c->ring = (uint32_t)x;
	else
		return bad_value(err, "af_xdp", argv,
				 w == 3	  ? "2048 or 4096"
				 : w == 4 ? "a power of two, 64..65536"
					  : NULL);
	return 2;
}

static int xdp_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
		      struct mqtx_extack *ack)
{
	(void)ack;
	return mqtx_af_xdp_dev_create(base, opt, out);
}

static void xdp_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p)
{
	int zc = mqtx_af_xdp_zerocopy(dev);

	kif_show(dev, flags, p);
	if (zc >= 0)
		mqtx__out_str(p, OUT_FP, NULL, " mode %s", zc ? "zerocopy" : "copy");
}

/* pcap: "file PATH", "format pcap|pcapng", "rate RATE" (tc's bit rates), "overwrite". */
static int pcap_parse(void *opt, int argc, char **argv, struct mqtx_buf *err)
{
	static const char *const words[] = { "file", "format", "rate", NULL };
	struct mqtx_pcap_cfg *c = opt;
	int w = word_of(argc, argv, words);
	uint64_t pps;

	if (!strcmp(argv[0], "overwrite"))
		return c->overwrite = true, 1;
	if (w < 0)
		return 0;
	if (w == 0) {
		/* One file: a client opens the first one named (mqtx_ctl_file_word()). */
		if (c->file) {
			mqtx_buf_printf(err, "dev add: pcap file \"%s\" after \"%s\": one file\n",
					argv[1], c->file);
			return -1;
		}
		c->file = argv[1];
	} else if (w == 1) {
		if (strcmp(argv[1], "pcap") && strcmp(argv[1], "pcapng"))
			return bad_value(err, "pcap", argv, "pcap or pcapng");
		c->format = argv[1][4] ? MQTX_PCAP_FORMAT_PCAPNG : MQTX_PCAP_FORMAT_PCAP;
	} else if (mqtx__parse_rate(argv[1], &c->rate_bps, &pps) || pps) {
		return bad_value(err, "pcap", argv, "a bit rate such as 1gbit");
	}
	return 2;
}

static int pcap_create_fd(struct mqtx_dev_cfg *base, const void *opt, int fd, struct mqtx_dev **out)
{
	return mqtx_pcap_dev_create_fd(base, opt, fd, out);
}

/* As the client: "overwrite" among the words replaces a file of the client's own. */
static int pcap_file_open(const char *path, int argc, char **argv, bool *created, char *msg,
			  size_t msglen)
{
	bool overwrite = false;

	for (int i = 0; i < argc; i++)
		overwrite |= !strcmp(argv[i], "overwrite");
	return mqtx_pcap_open(path, overwrite, created, msg, msglen);
}

static const struct dev_kind dev_kinds[] = {
	{ .kind = "null", .create = null_create },
	{ .kind = "sim", .parse = sim_parse, .create = sim_create, .show = sim_show },
	{ .kind = "loopback", .create = loopback_create },
	{ .kind = "tap",
	  .required = "txqueues",
	  .parse = tap_parse,
	  .create = tap_create,
	  .show = kif_show },
	{ .kind = "af_packet",
	  .flags = KIND_F_IF_QUEUES,
	  .required = "ifname",
	  .parse = afp_parse,
	  .create = afp_create,
	  .show = afp_show },
	{ .kind = "af_xdp",
	  .flags = KIND_F_IF_QUEUES,
	  .required = "ifname",
	  .parse = xdp_parse,
	  .create = xdp_create,
	  .show = xdp_show },
	{ .kind = "pcap",
	  .required = "file",
	  .parse = pcap_parse,
	  .file = "file",
	  .file_open = pcap_file_open,
	  .create_fd = pcap_create_fd },
	{ .kind = "sim-wifi",
	  .flags = KIND_F_OWN_QUEUES,
	  .parse = mqtx__sim_wifi_parse,
	  .create = mqtx__sim_wifi_create,
	  .show = mqtx__sim_wifi_show,
	  .stats = mqtx__sim_wifi_stats },
};

const struct dev_kind *mqtx__dev_kind(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(dev_kinds); i++)
		if (!strcmp(dev_kinds[i].kind, name))
			return &dev_kinds[i];
	return NULL;
}

const struct dev_kind *mqtx__dev_kind_of(struct mqtx_dev *dev)
{
	const char *k = mqtx_dev_ops(dev)->kind;

	return k ? mqtx__dev_kind(k) : NULL;
}

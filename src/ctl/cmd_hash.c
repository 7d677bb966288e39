// SPDX-License-Identifier: MIT
// The hash command: which flow hash and which TX queue a 4-tuple gets.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/ctl.h>
#include <mqtx/gen.h>
#include <mqtx/pkt.h>

#include "ctl/ctl_int.h"
#include "base/internal.h"

/* The generator's frame of the flow @src -> @dst: what the hash reads is the dissector's view
 * of that frame, so it must be the frame a generator would send for that flow. */
static int build_probe(uint8_t *f, size_t cap, const struct tc_endpoint *src,
		       const struct tc_endpoint *dst, uint8_t proto)
{
	struct mqtx_gen_cfg g;
	uint32_t s, d;

	mqtx_gen_cfg_default(&g);
	g.proto = proto;
	g.ipv6 = src->family == AF_INET6;
	if (g.ipv6) {
		memcpy(g.src6, src->addr, 16);
		memcpy(g.dst6, dst->addr, 16);
		memcpy(&s, src->addr + 12, 4);
		memcpy(&d, dst->addr + 12, 4);
	} else {
		memcpy(&s, src->addr, 4);
		memcpy(&d, dst->addr, 4);
	}
	g.src_lo = g.src_hi = ntohl(s);
	g.dst_lo = g.dst_hi = ntohl(d);
	g.sport_lo = g.sport_hi = src->port;
	g.dport_lo = g.dport_hi = dst->port;
	g.size = mqtx_gen_min_size(&g);
	return mqtx_gen_build(&g, 0, f, cap);
}

struct hash_args {
	struct tc_endpoint src, dst;
	bool has_src, has_dst, has_algo;
	uint8_t proto;
	const char *dev;
	uint32_t queues;
	struct mqtx_hash_cfg cfg;
};

static const char *strip_dashes(const char *w)
{
	return w[0] == '-' && w[1] == '-' ? w + 2 : w;
}

/* tcp or udp */
static int parse_proto(const char *v, void *field, const struct tc_opt *o)
{
	(void)o;
	if (strcmp(v, "tcp") && strcmp(v, "udp"))
		return -EINVAL;
	*(uint8_t *)field = v[0] == 't' ? IPPROTO_TCP : IPPROTO_UDP;
	return 0;
}

#define ARG(m) offsetof(struct hash_args, m)

static const struct tc_opt hash_opts[] = {
	{ "seed", mqtx__tc_opt_u32, ARG(cfg.seed) },
	{ "src", mqtx__tc_opt_endpoint, ARG(src),
	  .given = TC_OPT_GIVEN(struct hash_args, has_src) },
	{ "dst", mqtx__tc_opt_endpoint, ARG(dst),
	  .given = TC_OPT_GIVEN(struct hash_args, has_dst) },
	{ "proto", parse_proto, ARG(proto) },
	{ "dev", mqtx__tc_opt_str, ARG(dev) },
	{ "txqueues", mqtx__tc_opt_u32, ARG(queues), .min = 1, .max = MQTX_MAX_TXQ },
};

static int hash_parse(int argc, char **argv, struct hash_args *a, struct mqtx_buf *err)
{
	/* Every word takes a value after it. */
	for (int i = 1; i < argc; i += 2) {
		const char *w = strip_dashes(argv[i]), *v = i + 1 < argc ? argv[i + 1] : NULL;
		const struct tc_opt *o;

		if (!strcmp(w, "algo")) {
			char *sub[2] = { "hash", (char *)(v ? v : "") };
			uint32_t seed = a->cfg.seed;

			if (mqtx__parse_hash_words(2, sub, &a->cfg, err) < 0)
				return MQTX_TC_EXIT_PARSE;
			a->cfg.seed = seed;
			a->has_algo = true;
		} else if (!v) {
			mqtx_buf_printf(err, "hash: \"%s\" needs a value\n", argv[i]);
			return MQTX_TC_EXIT_PARSE;
		} else if (!strcmp(w, "key")) {
			char *sub[4] = { "hash", "toeplitz", "key", (char *)v };
			struct mqtx_hash_cfg tmp = a->cfg;

			if (mqtx__parse_hash_words(4, sub, &tmp, err) < 0)
				return MQTX_TC_EXIT_PARSE;
			memcpy(a->cfg.key, tmp.key, sizeof(tmp.key));
			a->cfg.key_len = tmp.key_len;
		} else if ((o = mqtx__tc_opt_find(hash_opts, ARRAY_SIZE(hash_opts), w))) {
			if (mqtx__tc_opt_apply(o, v, a)) {
				mqtx_buf_printf(err, "hash: invalid %s \"%s\"\n", w, v);
				return MQTX_TC_EXIT_PARSE;
			}
		} else {
			mqtx_buf_printf(err, "hash: what is \"%s\"? Try \"mqtx hash help\".\n",
					argv[i]);
			return MQTX_TC_EXIT_PARSE;
		}
	}
	return 0;
}

static void hash_usage(struct mqtx_buf *b)
{
	mqtx_buf_printf(
		b,
		"Usage: mqtx hash [ --algo { jhash | toeplitz | toeplitz-sym } ] [ --seed S ]\n"
		"                 [ --key HEX80 ] --src A[:P] --dst A[:P] [ --proto tcp | udp ]\n"
		"                 [ dev NAME | txqueues N ]\n"
		"IPv6: [ADDR]:PORT. Without --algo a device's own hash is used. Without dev it\n"
		"needs no mqtxd: mqtx answers it alone.\n");
}

/* "hash H [queue Q txqueues N]", or its JSON object; @n 0: no queue was asked about. */
static void print_hash(struct mqtx_buf *out, bool json, uint32_t hash, uint32_t n, uint16_t q)
{
	struct tc_out p;

	mqtx__out_init(&p, out, json, false, false);
	mqtx__out_open(&p, NULL);
	mqtx__out_uint(&p, OUT_ANY, "hash", "hash 0x%08llx", hash);
	if (n) {
		mqtx__out_uint(&p, OUT_ANY, "queue", " queue %llu", q);
		mqtx__out_uint(&p, OUT_ANY, "txqueues", " txqueues %llu", n);
	}
	mqtx__out_close(&p);
	mqtx__out_end(&p);
	mqtx__out_nl(&p);
}

/* The queue the device's own picker chooses (select hooks and traffic classes included). */
static int dev_queue(struct mqtx_dev *dev, const uint8_t *frame, size_t len, uint16_t *q)
{
	struct mqtx_pool_cfg pc = { .count = 1, .cache_size = 1 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_pkt *pkt;

	if (mqtx_pool_create(&pc, &pool))
		return -ENOMEM;
	pkt = mqtx_pkt_alloc(pool);
	memcpy(mqtx_pkt_put(pkt, (uint32_t)len), frame, len);
	*q = mqtx_dev_pick_tx(dev, pkt);
	mqtx_pkt_free(pkt);
	mqtx_pool_destroy(pool);
	return 0;
}

int mqtx__ctl_cmd_hash(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_buf *out = c->out, *err = c->err;
	char **argv = c->argv;
	int argc = c->argc;
	struct hash_args a = { .proto = IPPROTO_TCP };
	struct mqtx_dev *dev = NULL;
	struct mqtx_hasher *h;
	uint8_t frame[128];
	uint32_t hash = 0;
	size_t len;
	uint16_t q = 0;
	uint32_t n = 0;
	bool ok;
	int rc;

	(void)arg;
	/* Its options are spelled --src, --dst: --help and -h are help too. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "help") || !strcmp(argv[i], "--help") ||
		    !strcmp(argv[i], "-h")) {
			hash_usage(out);
			return MQTX_TC_EXIT_OK;
		}
	}
	rc = hash_parse(argc, argv, &a, err);
	if (rc)
		return rc;
	if (!a.has_src || !a.has_dst || a.src.family != a.dst.family) {
		mqtx_buf_printf(err,
				"hash: --src and --dst of one address family are required (%s)\n",
				!a.has_src		   ? "no --src"
				: !a.has_dst		   ? "no --dst"
				: a.src.family == AF_INET6 ? "--src is IPv6, --dst IPv4"
							   : "--src is IPv4, --dst IPv6");
		return MQTX_TC_EXIT_PARSE;
	}
	if (a.dev && !(dev = mqtx_ctl_call_dev(c, a.dev)))
		return MQTX_TC_EXIT_PARSE;
	if (dev && !a.has_algo)
		mqtx_dev_hash_cfg(dev, &a.cfg);
	else
		a.cfg.l4 = a.src.has_port || a.dst.has_port;
	rc = mqtx_hasher_new(&a.cfg, &h);
	if (rc) {
		mqtx_buf_printf(err, "hash: %s\n",
				rc == -EINVAL
					? "invalid key for this algorithm (toeplitz-sym needs a "
					  "symmetric key: one 16-bit value repeated)"
					: mqtx_strerror(rc));
		return rc == -EINVAL ? MQTX_TC_EXIT_PARSE : MQTX_TC_EXIT_REFUSED;
	}
	len = (size_t)build_probe(frame, sizeof(frame), &a.src, &a.dst, a.proto);
	ok = mqtx_hasher_hash(h, frame, len, &hash, NULL);
	mqtx_hasher_free(h);
	/* Asked about a device, the answer is its queue: without it there is no answer. */
	if (dev && !a.has_algo && dev_queue(dev, frame, len, &q)) {
		mqtx_buf_printf(err, "hash: %s\n", mqtx_strerror(-ENOMEM));
		return MQTX_TC_EXIT_REFUSED;
	}
	hash = ok ? hash : 0;
	if (dev && !a.has_algo) {
		n = mqtx_dev_real_num_txq(dev);
	} else if (dev || a.queues) {
		n = dev ? mqtx_dev_real_num_txq(dev) : a.queues;
		q = ok ? (uint16_t)mqtx_reciprocal_scale(hash, n) : 0;
	}
	print_hash(out, c->flags & MQTX_CTL_F_JSON, hash, n, q);
	return MQTX_TC_EXIT_OK;
}

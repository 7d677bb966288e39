// SPDX-License-Identifier: MIT
/* Flow hash tests: lookup3 and Toeplitz vectors, hasher behaviour, queue spread. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <mqtx/flow.h>

#include "flow/flow_internal.h"
#include "frames.h"

/*
 * An independent lookup3 written from the algorithm description: mix is six rounds of
 * "x -= y; x ^= rot(y, r); y += z" over rotating roles, final seven rounds of
 * "x ^= y; x -= rot(y, r)"; the tail is zero-padded to 12 bytes and loaded as little-endian
 * words, which is the same as adding the bytes one by one.
 */
static uint32_t ref_rot(uint32_t v, int r)
{
	return (v << r) | (v >> (32 - r));
}

static void ref_mix(uint32_t v[3])
{
	static const int role[6][3] = { { 0, 2, 1 }, { 1, 0, 2 }, { 2, 1, 0 },
					{ 0, 2, 1 }, { 1, 0, 2 }, { 2, 1, 0 } };
	static const int rot[6] = { 4, 6, 8, 16, 19, 4 };
	int i;

	for (i = 0; i < 6; i++) {
		v[role[i][0]] -= v[role[i][1]];
		v[role[i][0]] ^= ref_rot(v[role[i][1]], rot[i]);
		v[role[i][1]] += v[role[i][2]];
	}
}

static uint32_t ref_final(uint32_t a, uint32_t b, uint32_t c)
{
	static const int role[7][2] = { { 2, 1 }, { 0, 2 }, { 1, 0 }, { 2, 1 },
					{ 0, 2 }, { 1, 0 }, { 2, 1 } };
	static const int rot[7] = { 14, 11, 25, 16, 4, 14, 24 };
	uint32_t v[3] = { a, b, c };
	int i;

	for (i = 0; i < 7; i++) {
		v[role[i][0]] ^= v[role[i][1]];
		v[role[i][0]] -= ref_rot(v[role[i][1]], rot[i]);
	}
	return v[2];
}

static uint32_t ref_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t ref_hashlittle(const uint8_t *k, size_t len, uint32_t seed)
{
	uint32_t v[3];
	uint8_t tail[12] = { 0 };
	int i;

	v[0] = v[1] = v[2] = 0xdeadbeefu + (uint32_t)len + seed;
	for (; len > 12; len -= 12, k += 12) {
		for (i = 0; i < 3; i++)
			v[i] += ref_le32(k + 4 * i);
		ref_mix(v);
	}
	if (len == 0)
		return v[2];
	memcpy(tail, k, len);
	for (i = 0; i < 3; i++)
		v[i] += ref_le32(tail + 4 * i);
	return ref_final(v[0], v[1], v[2]);
}

static void test_jhash_vectors(void **state)
{
	static const char four[] = "Four score and seven years ago";

	(void)state;
	/* lookup3's driver5 vectors; hashlittle(seed 1) is the hashlittle2 row with c=1, b=0. */
	assert_int_equal(mqtx_jhash("", 0, 0), 0xdeadbeef);
	assert_int_equal(mqtx_jhash(four, 30, 0), 0x17770551);
	assert_int_equal(mqtx_jhash(four, 30, 1), 0xcd628161);
	/* An empty key returns the seeded initial value untouched. */
	assert_int_equal(mqtx_jhash("", 0, 0xdeadbeef), 0xbd5b7dde);
	assert_int_equal(mqtx_jhash(NULL, 0, 7), 0xdeadbeefu + 7);
	assert_int_equal(ref_hashlittle((const uint8_t *)four, 30, 0), 0x17770551);
	assert_int_equal(ref_hashlittle((const uint8_t *)four, 30, 1), 0xcd628161);
}

static void test_jhash_reference(void **state)
{
	uint64_t seed = 42;
	uint8_t buf[100];
	uint32_t iv;
	size_t len;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		iv = (uint32_t)test_rand(&seed);
		for (len = 0; len <= sizeof(buf); len++) {
			test_rand_fill(&seed, buf, len);
			assert_int_equal(mqtx_jhash(buf, len, iv), ref_hashlittle(buf, len, iv));
		}
	}
}

/* 12 bytes are exactly one final-only block: jhash of three LE words == jhash_3words. */
static void test_jhash_3words(void **state)
{
	uint64_t seed = 7;
	uint32_t w[3], iv, x;
	uint8_t buf[13];
	int i, j;

	(void)state;
	x = 0xdeadbeefu + 12;
	assert_int_equal(mqtx_jhash_3words(0, 0, 0, 0), ref_final(x, x, x));
	for (i = 0; i < 10000; i++) {
		iv = (uint32_t)test_rand(&seed);
		for (j = 0; j < 3; j++) {
			w[j] = (uint32_t)test_rand(&seed);
			buf[4 * j] = (uint8_t)w[j];
			buf[4 * j + 1] = (uint8_t)(w[j] >> 8);
			buf[4 * j + 2] = (uint8_t)(w[j] >> 16);
			buf[4 * j + 3] = (uint8_t)(w[j] >> 24);
		}
		x = iv + 0xdeadbeefu + 12;
		assert_int_equal(mqtx_jhash_3words(w[0], w[1], w[2], iv),
				 ref_final(w[0] + x, w[1] + x, w[2] + x));
		assert_int_equal(mqtx_jhash(buf, 12, iv), mqtx_jhash_3words(w[0], w[1], w[2], iv));
		/* 13 bytes: one mixed block, then a 1-byte tail into a. */
		buf[12] = (uint8_t)i;
		x = 0xdeadbeefu + 13 + iv;
		{
			uint32_t v[3] = { x + w[0], x + w[1], x + w[2] };

			ref_mix(v);
			assert_int_equal(mqtx_jhash(buf, 13, iv),
					 ref_final(v[0] + buf[12], v[1], v[2]));
		}
	}
}

/* Toeplitz straight from the definition: XOR the key window at every set input bit. */
static uint32_t ref_toeplitz(const uint8_t *key, const uint8_t *in, size_t len)
{
	uint32_t hash = 0, win;
	size_t i, j;

	for (i = 0; i < len * 8; i++) {
		if (!(in[i / 8] & (0x80 >> (i % 8))))
			continue;
		win = 0;
		for (j = 0; j < 32; j++)
			win = win << 1 | ((key[(i + j) / 8] >> (7 - (i + j) % 8)) & 1);
		hash ^= win;
	}
	return hash;
}

struct rss_v4 {
	const char *dst, *src;
	uint16_t dport, sport;
	uint32_t h2, h4;
};

/* Microsoft's verification suite, destination listed first as Microsoft does. */
static const struct rss_v4 rss_v4[] = {
	{ "161.142.100.80", "66.9.149.187", 1766, 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", "199.92.111.2", 4739, 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", "24.19.198.95", 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", "38.27.205.30", 2217, 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", "153.39.163.191", 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static const struct rss_v4 rss_v6[] = {
	{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
	  0x4b61e985, 0x02d1feef },
};

/* Lay out source ‖ destination ‖ sport ‖ dport; returns the 2-tuple length. */
static size_t rss_input(const struct rss_v4 *r, int af, uint8_t *in)
{
	size_t alen = af == AF_INET ? 4 : 16;

	assert_int_equal(inet_pton(af, r->src, in), 1);
	assert_int_equal(inet_pton(af, r->dst, in + alen), 1);
	in[2 * alen] = (uint8_t)(r->sport >> 8);
	in[2 * alen + 1] = (uint8_t)r->sport;
	in[2 * alen + 2] = (uint8_t)(r->dport >> 8);
	in[2 * alen + 3] = (uint8_t)r->dport;
	return 2 * alen;
}

static void test_toeplitz_vectors(void **state)
{
	const uint8_t *key = mqtx_rss_default_key;
	uint8_t in[36];
	size_t i, n;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rss_v4); i++) {
		n = rss_input(&rss_v4[i], AF_INET, in);
		assert_int_equal(mqtx_toeplitz(key, 40, in, n), rss_v4[i].h2);
		assert_int_equal(mqtx_toeplitz(key, 40, in, n + 4), rss_v4[i].h4);
		assert_int_equal(ref_toeplitz(key, in, n + 4), rss_v4[i].h4);
	}
	for (i = 0; i < ARRAY_SIZE(rss_v6); i++) {
		n = rss_input(&rss_v6[i], AF_INET6, in);
		assert_int_equal(mqtx_toeplitz(key, 40, in, n), rss_v6[i].h2);
		assert_int_equal(mqtx_toeplitz(key, 40, in, n + 4), rss_v6[i].h4);
		assert_int_equal(ref_toeplitz(key, in, n + 4), rss_v6[i].h4);
	}
	/* The key must cover the input plus one 32-bit window. */
	assert_int_equal(mqtx_toeplitz(key, 15, in, 12), 0);
	assert_int_equal(mqtx_toeplitz(key, 16, in, 12), mqtx_toeplitz(key, 40, in, 12));
	assert_int_equal(mqtx_toeplitz(NULL, 40, in, 12), 0);
	assert_int_equal(mqtx_toeplitz(key, 40, in, 0), 0);
	/* The symmetric key is 0x6d5a twenty times. */
	for (i = 0; i < 40; i++)
		assert_int_equal(mqtx_rss_symmetric_key[i], i % 2 ? 0x5a : 0x6d);
}

static void test_toeplitz_tables(void **state)
{
	uint32_t(*tbl)[256] = malloc(MQTX__TOEPLITZ_MAX_IN * sizeof(*tbl));
	uint64_t seed = 99;
	uint8_t key[40], in[36];
	uint32_t fast;
	size_t len, i;
	int round;

	(void)state;
	assert_non_null(tbl);
	for (round = 0; round < 50; round++) {
		if (round == 0)
			memcpy(key, mqtx_rss_default_key, 40);
		else
			test_rand_fill(&seed, key, sizeof(key));
		mqtx__toeplitz_tables(tbl, key);
		for (len = 0; len <= sizeof(in); len++) {
			test_rand_fill(&seed, in, len);
			fast = 0;
			for (i = 0; i < len; i++)
				fast ^= tbl[i][in[i]];
			assert_int_equal(fast, mqtx_toeplitz(key, 40, in, len));
			assert_int_equal(fast, ref_toeplitz(key, in, len));
		}
	}
	free(tbl);
}

static void frame_v4(struct frame *f, uint8_t proto, const uint8_t *src, const uint8_t *dst,
		     uint16_t sport, uint16_t dport, uint16_t frag)
{
	fr_eth(f, 0x0800);
	fr_ipv4(f, proto, src, dst, 5, frag);
	fr_l4(f, sport, dport, proto == IPPROTO_TCP ? 20 : 8);
	fr_zero(f, 16);
}

static void frame_v6(struct frame *f, uint8_t proto, const uint8_t *src, const uint8_t *dst,
		     uint16_t sport, uint16_t dport)
{
	fr_eth(f, 0x86dd);
	fr_ipv6(f, proto, src, dst);
	fr_l4(f, sport, dport, proto == IPPROTO_TCP ? 20 : 8);
}

static struct mqtx_hasher *new_hasher(enum mqtx_hash_algo algo, bool l4, uint32_t seed)
{
	struct mqtx_hash_cfg cfg = { .algo = algo, .l4 = l4, .seed = seed };
	struct mqtx_hasher *h = NULL;

	assert_int_equal(mqtx_hasher_new(&cfg, &h), 0);
	assert_non_null(h);
	return h;
}

/* The suite again, through whole frames and the table-driven hasher. */
static void test_toeplitz_frames(void **state)
{
	struct mqtx_hasher *h2 = new_hasher(MQTX_HASH_TOEPLITZ, false, 0);
	struct mqtx_hasher *h4 = new_hasher(MQTX_HASH_TOEPLITZ, true, 0);
	struct mqtx_flow_keys k;
	uint8_t in[36];
	struct frame f;
	uint32_t hash;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rss_v4); i++) {
		rss_input(&rss_v4[i], AF_INET, in);
		frame_v4(&f, IPPROTO_TCP, in, in + 4, rss_v4[i].sport, rss_v4[i].dport, 0);
		assert_true(mqtx_hasher_hash(h2, f.b, f.len, &hash, NULL));
		assert_int_equal(hash, rss_v4[i].h2);
		assert_true(mqtx_hasher_hash(h4, f.b, f.len, &hash, &k));
		assert_int_equal(hash, rss_v4[i].h4);
		assert_int_equal(k.flags, MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_PORTS);
		/* A fragment has no ports: the 4-tuple hasher falls back to the 2-tuple. */
		frame_v4(&f, IPPROTO_TCP, in, in + 4, rss_v4[i].sport, rss_v4[i].dport, 0x2000);
		assert_true(mqtx_hasher_hash(h4, f.b, f.len, &hash, NULL));
		assert_int_equal(hash, rss_v4[i].h2);
	}
	for (i = 0; i < ARRAY_SIZE(rss_v6); i++) {
		rss_input(&rss_v6[i], AF_INET6, in);
		frame_v6(&f, IPPROTO_TCP, in, in + 16, rss_v6[i].sport, rss_v6[i].dport);
		assert_true(mqtx_hasher_hash(h2, f.b, f.len, &hash, NULL));
		assert_int_equal(hash, rss_v6[i].h2);
		assert_true(mqtx_hasher_hash(h4, f.b, f.len, &hash, NULL));
		assert_int_equal(hash, rss_v6[i].h4);
	}
	mqtx_hasher_free(h2);
	mqtx_hasher_free(h4);
}

/* A user key goes through the tables too: hasher == bitwise hash of the assembled input. */
static void test_toeplitz_user_key(void **state)
{
	struct mqtx_hash_cfg cfg = { .algo = MQTX_HASH_TOEPLITZ, .key_len = 40, .l4 = true };
	struct mqtx_hasher *h;
	struct mqtx_flow_keys k;
	uint64_t seed = 5;
	uint8_t in[36];
	uint32_t hash;
	int i;

	(void)state;
	test_rand_fill(&seed, cfg.key, 40);
	assert_int_equal(mqtx_hasher_new(&cfg, &h), 0);
	for (i = 0; i < 2000; i++) {
		memset(&k, 0, sizeof(k));
		test_rand_fill(&seed, &k.addrs, sizeof(k.addrs));
		test_rand_fill(&seed, &k.sport, 2);
		test_rand_fill(&seed, &k.dport, 2);
		k.flags = (i & 1 ? MQTX_FLOW_F_IPV4 : MQTX_FLOW_F_IPV6) | MQTX_FLOW_F_PORTS;
		assert_true(mqtx_hasher_hash_keys(h, &k, &hash));
		if (i & 1) {
			memcpy(in, &k.addrs.v4, 8);
			memcpy(in + 8, &k.sport, 2);
			memcpy(in + 10, &k.dport, 2);
			assert_int_equal(hash, mqtx_toeplitz(cfg.key, 40, in, 12));
		} else {
			memcpy(in, &k.addrs.v6, 32);
			memcpy(in + 32, &k.sport, 2);
			memcpy(in + 34, &k.dport, 2);
			assert_int_equal(hash, mqtx_toeplitz(cfg.key, 40, in, 36));
		}
	}
	mqtx_hasher_free(h);
}

static void test_toeplitz_symmetric(void **state)
{
	struct mqtx_hasher *sym = new_hasher(MQTX_HASH_TOEPLITZ_SYM, true, 0);
	struct mqtx_hasher *plain = new_hasher(MQTX_HASH_TOEPLITZ, true, 0);
	struct mqtx_hash_cfg cfg = { .algo = MQTX_HASH_TOEPLITZ_SYM, .key_len = 40, .l4 = true };
	struct mqtx_hasher *own;
	uint8_t a[16], b[16];
	uint16_t pa, pb;
	uint32_t ab, ba, pab, pba;
	uint64_t seed = 11;
	struct frame f;
	int i, asym = 0;

	(void)state;
	for (i = 0; i < 40; i += 2) {
		cfg.key[i] = 0x3c;
		cfg.key[i + 1] = 0xa7;
	}
	assert_int_equal(mqtx_hasher_new(&cfg, &own), 0);
	for (i = 0; i < 5000; i++) {
		test_rand_fill(&seed, a, 16);
		test_rand_fill(&seed, b, 16);
		pa = (uint16_t)test_rand(&seed);
		pb = (uint16_t)test_rand(&seed);
		if (i & 1) {
			frame_v4(&f, IPPROTO_UDP, a, b, pa, pb, 0);
			assert_true(mqtx_hasher_hash(sym, f.b, f.len, &ab, NULL));
			assert_true(mqtx_hasher_hash(plain, f.b, f.len, &pab, NULL));
			frame_v4(&f, IPPROTO_UDP, b, a, pb, pa, 0);
		} else {
			frame_v6(&f, IPPROTO_TCP, a, b, pa, pb);
			assert_true(mqtx_hasher_hash(sym, f.b, f.len, &ab, NULL));
			assert_true(mqtx_hasher_hash(plain, f.b, f.len, &pab, NULL));
			frame_v6(&f, IPPROTO_TCP, b, a, pb, pa);
		}
		assert_true(mqtx_hasher_hash(sym, f.b, f.len, &ba, NULL));
		assert_int_equal(ab, ba);
		assert_true(mqtx_hasher_hash(own, f.b, f.len, &ba, NULL));
		assert_true(mqtx_hasher_hash(plain, f.b, f.len, &pba, NULL));
		asym += pab != pba;
	}
	/* The default key is not symmetric: the reverse direction almost always differs. */
	assert_true(asym > 4900);
	mqtx_hasher_free(own);
	mqtx_hasher_free(sym);
	mqtx_hasher_free(plain);
}

static void test_reciprocal_scale(void **state)
{
	(void)state;
	assert_int_equal(mqtx_reciprocal_scale(0x80000000u, 8), 4);
	assert_int_equal(mqtx_reciprocal_scale(0xffffffffu, 8), 7);
	assert_int_equal(mqtx_reciprocal_scale(0x17770551u, 8), 0);
	assert_int_equal(mqtx_reciprocal_scale(0, 8), 0);
	assert_int_equal(mqtx_reciprocal_scale(0xffffffffu, 1), 0);
	assert_int_equal(mqtx_reciprocal_scale(0x20000000u, 8), 1);
	assert_int_equal(mqtx_reciprocal_scale(0x1fffffffu, 8), 0);
	assert_int_equal(mqtx_reciprocal_scale(0xffffffffu, 0xffffffffu), 0xfffffffeu);
}

static uint32_t load_native(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void test_jhash_hasher(void **state)
{
	struct mqtx_hasher *h1 = new_hasher(MQTX_HASH_JHASH, false, 1);
	struct mqtx_hasher *h2 = new_hasher(MQTX_HASH_JHASH, false, 2);
	uint8_t a[16], b[16];
	uint16_t sp, dp;
	uint32_t x, y, z, frag, noports;
	uint64_t seed = 1234;
	struct frame f;
	int i, same_seed_clash = 0;

	(void)state;
	for (i = 0; i < 1000; i++) {
		test_rand_fill(&seed, a, 16);
		test_rand_fill(&seed, b, 16);
		sp = (uint16_t)test_rand(&seed);
		dp = (uint16_t)test_rand(&seed);

		frame_v4(&f, IPPROTO_TCP, a, b, sp, dp, 0);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &x, NULL));
		/* simple_tx_hash: native loads of saddr, daddr and the first transport word. */
		assert_int_equal(x, mqtx_jhash_3words(load_native(a), load_native(b),
						      load_native(f.b + 34), 1));
		f.b[22] = 1; /* a different TTL is the same flow */
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &y, NULL));
		assert_int_equal(x, y);
		assert_true(mqtx_hasher_hash(h2, f.b, f.len, &z, NULL));
		same_seed_clash += x == z;

		/* Fragments hash as the same flow without ports. */
		frame_v4(&f, IPPROTO_TCP, a, b, sp, dp, 0x2000);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &frag, NULL));
		frame_v4(&f, IPPROTO_TCP, a, b, sp, dp, 0x0100);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &y, NULL));
		assert_int_equal(frag, y);
		frame_v4(&f, IPPROTO_TCP, a, b, 0, 0, 0);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &noports, NULL));
		assert_int_equal(frag, noports);
		assert_int_equal(frag, mqtx_jhash_3words(load_native(a), load_native(b), 0, 1));

		/* IPv6: the last word of each address. */
		frame_v6(&f, IPPROTO_UDP, a, b, sp, dp);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &x, NULL));
		assert_int_equal(x, mqtx_jhash_3words(load_native(a + 12), load_native(b + 12),
						      load_native(f.b + 54), 1));
		fr_eth(&f, 0x86dd);
		fr_ipv6(&f, IPPROTO_FRAGMENT, a, b);
		fr_frag6(&f, IPPROTO_UDP, 0, 1);
		fr_l4(&f, sp, dp, 8);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &y, NULL));
		assert_int_equal(y,
				 mqtx_jhash_3words(load_native(a + 12), load_native(b + 12), 0, 1));
		frame_v6(&f, IPPROTO_UDP, a, b, 0, 0);
		assert_true(mqtx_hasher_hash(h1, f.b, f.len, &z, NULL));
		assert_int_equal(y, z);
	}
	assert_int_equal(same_seed_clash, 0);
	mqtx_hasher_free(h1);
	mqtx_hasher_free(h2);
}

static void test_non_ip_hasher(void **state)
{
	static const enum mqtx_hash_algo algos[] = { MQTX_HASH_JHASH, MQTX_HASH_TOEPLITZ,
						     MQTX_HASH_TOEPLITZ_SYM };
	struct mqtx_flow_keys k;
	struct mqtx_hasher *h;
	struct frame f;
	uint32_t hash = 0x5a5a5a5a;
	size_t i;

	(void)state;
	fr_eth(&f, 0x0806);
	fr_zero(&f, 28);
	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		h = new_hasher(algos[i], true, 3);
		assert_false(mqtx_hasher_hash(h, f.b, f.len, &hash, &k));
		assert_int_equal(k.n_proto, 0x0806);
		assert_false(mqtx_hasher_hash_keys(h, &k, &hash));
		assert_false(mqtx_hasher_hash(h, f.b, 10, &hash, NULL));
		assert_false(mqtx_hasher_hash(h, NULL, 60, &hash, NULL));
		assert_int_equal(hash, 0x5a5a5a5a);
		mqtx_hasher_free(h);
	}
	assert_false(mqtx_hasher_hash(NULL, f.b, f.len, &hash, NULL));
}

struct cb_log {
	int calls;
	const void *frame;
	size_t len;
	uint16_t n_proto;
};

static bool cb_hash(const void *frame, size_t len, const struct mqtx_flow_keys *keys,
		    uint32_t *hash, void *arg)
{
	struct cb_log *log = arg;

	log->calls++;
	log->frame = frame;
	log->len = len;
	log->n_proto = keys->n_proto;
	*hash = 0xc0ff0000u | keys->n_proto;
	return keys->n_proto != 0x88cc; /* LLDP goes to queue 0 */
}

static void test_callback(void **state)
{
	struct cb_log log = { 0 };
	struct mqtx_hash_cfg cfg = { .algo = MQTX_HASH_CALLBACK, .fn = cb_hash, .arg = &log };
	struct mqtx_flow_keys k;
	struct mqtx_hasher *h;
	struct frame f;
	uint32_t hash;

	(void)state;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), 0);
	assert_ptr_equal(mqtx_hasher_cfg(h)->fn, cb_hash);
	assert_ptr_equal(mqtx_hasher_cfg(h)->arg, &log);

	fr_eth(&f, 0x0806);
	fr_zero(&f, 28);
	assert_true(mqtx_hasher_hash(h, f.b, f.len, &hash, NULL));
	assert_int_equal(hash, 0xc0ff0806);
	assert_ptr_equal(log.frame, f.b);
	assert_int_equal(log.len, f.len);

	fr_eth(&f, 0x88cc);
	fr_zero(&f, 40);
	assert_false(mqtx_hasher_hash(h, f.b, f.len, &hash, &k));
	assert_int_equal(log.calls, 2);

	frame_v4(&f, IPPROTO_UDP, (const uint8_t *)"\x0a\0\0\x01", (const uint8_t *)"\x0a\0\0\x02",
		 1, 2, 0);
	assert_int_equal(mqtx_flow_dissect(f.b, f.len, &k), 0);
	assert_true(mqtx_hasher_hash_keys(h, &k, &hash));
	assert_int_equal(hash, 0xc0ff0800);
	assert_null(log.frame);
	assert_int_equal(log.len, 0);
	assert_int_equal(log.calls, 3);
	mqtx_hasher_free(h);
}

static void test_hasher_new_errors(void **state)
{
	struct mqtx_hash_cfg cfg = { .algo = MQTX_HASH_TOEPLITZ };
	struct mqtx_hasher *h = (struct mqtx_hasher *)&cfg; /* must stay untouched on error */
	const struct mqtx_hash_cfg *got;

	(void)state;
	assert_int_equal(mqtx_hasher_new(NULL, &h), -EINVAL);
	assert_int_equal(mqtx_hasher_new(&cfg, NULL), -EINVAL);
	cfg.key_len = 16;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	cfg.key_len = 41;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	cfg.algo = MQTX_HASH_JHASH;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);

	/* TOEPLITZ_SYM refuses a key without the 16-bit period, even one byte off. */
	cfg.algo = MQTX_HASH_TOEPLITZ_SYM;
	cfg.key_len = 40;
	memcpy(cfg.key, mqtx_rss_default_key, 40);
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	memcpy(cfg.key, mqtx_rss_symmetric_key, 40);
	cfg.key[39] ^= 1;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	cfg.algo = MQTX_HASH_TOEPLITZ; /* any key is fine without the symmetry promise */
	assert_int_equal(mqtx_hasher_new(&cfg, &h), 0);
	mqtx_hasher_free(h);
	h = (struct mqtx_hasher *)&cfg;

	cfg.algo = MQTX_HASH_CALLBACK;
	cfg.key_len = 0;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	cfg.algo = (enum mqtx_hash_algo)4;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	cfg.algo = (enum mqtx_hash_algo) - 1;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), -EINVAL);
	assert_ptr_equal(h, &cfg);

	/* The config is kept as given. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.algo = MQTX_HASH_JHASH;
	cfg.seed = 0x1234;
	assert_int_equal(mqtx_hasher_new(&cfg, &h), 0);
	got = mqtx_hasher_cfg(h);
	assert_int_equal(got->seed, 0x1234);
	assert_int_equal(got->algo, MQTX_HASH_JHASH);
	mqtx_hasher_free(h);
	mqtx_hasher_free(NULL);
	assert_null(mqtx_hasher_cfg(NULL));
	assert_false(mqtx_hasher_hash_keys(NULL, NULL, NULL));
}

struct count_alloc {
	int allocs, frees, fail_at;
};

static void *count_alloc(size_t size, size_t align, void *arg)
{
	struct count_alloc *c = arg;

	if (c->fail_at >= 0 && c->allocs == c->fail_at)
		return NULL;
	c->allocs++;
	return mqtx_default_alloc(size, align, NULL);
}

static void count_free(void *p, void *arg)
{
	struct count_alloc *c = arg;

	c->frees++;
	mqtx_default_free(p, NULL);
}

static void test_hasher_enomem(void **state)
{
	static const enum mqtx_hash_algo algos[] = { MQTX_HASH_JHASH, MQTX_HASH_TOEPLITZ,
						     MQTX_HASH_TOEPLITZ_SYM, MQTX_HASH_CALLBACK };
	struct count_alloc c = { 0 };
	struct mqtx_allocator a = { .alloc = count_alloc, .free = count_free, .arg = &c };
	struct mqtx_hash_cfg cfg = { .fn = cb_hash };
	struct mqtx_hasher *h;
	size_t i;

	(void)state;
	mqtx_set_allocator(&a);
	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		cfg.algo = algos[i];
		c.fail_at = 0;
		h = NULL;
		assert_int_equal(mqtx_hasher_new(&cfg, &h), -ENOMEM);
		assert_null(h);
		assert_int_equal(c.allocs, 0);

		/* One allocation, aligned for the tables, released by free. */
		c.fail_at = -1;
		assert_int_equal(mqtx_hasher_new(&cfg, &h), 0);
		assert_int_equal(c.allocs, 1);
		assert_int_equal((uintptr_t)h % MQTX_CACHE_LINE, 0);
		mqtx_hasher_free(h);
		assert_int_equal(c.frees, 1);
		c.allocs = c.frees = 0;
	}
}

/* Runs even when an assertion aborts the test, so later tests get the default allocator. */
/*
 * The hasher's shortcut for plain IPv4 TCP/UDP (taken when no keys are asked for) must give
 * exactly what the full dissection gives, for every algorithm, including near the edges:
 * random frames biased towards the shortcut's conditions (IHL 5, TCP/UDP, short lengths,
 * fragment bits).
 */
static void test_fast_path_agrees(void **state)
{
	static const struct mqtx_hash_cfg cfgs[] = {
		{ .algo = MQTX_HASH_JHASH, .seed = 0x1234 },
		{ .algo = MQTX_HASH_TOEPLITZ, .l4 = true },
		{ .algo = MQTX_HASH_TOEPLITZ, .l4 = false },
		{ .algo = MQTX_HASH_TOEPLITZ_SYM, .l4 = true },
	};
	uint64_t seed = 42;
	unsigned fast_hits = 0;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cfgs); c++) {
		struct mqtx_hasher *h;

		assert_int_equal(mqtx_hasher_new(&cfgs[c], &h), 0);
		for (int i = 0; i < 20000; i++) {
			uint8_t f[80];
			struct mqtx_flow_keys k;
			uint32_t h1 = 0, h2 = 0;
			size_t len = 30 + test_rand(&seed) % 50;
			bool r1, r2;

			test_rand_fill(&seed, f, sizeof(f));
			f[12] = 0x08;
			f[13] = test_rand(&seed) % 8 ? 0x00 : 0x06;
			if (test_rand(&seed) % 4)
				f[14] = 0x45;
			if (test_rand(&seed) % 2)
				f[20] &= 0xc0;
			if (test_rand(&seed) % 2)
				f[21] = 0;
			f[23] = (uint8_t[]){ 6, 17, 132, 1 }[test_rand(&seed) % 4];
			r1 = mqtx_hasher_hash(h, f, len, &h1, NULL);
			r2 = mqtx_hasher_hash(h, f, len, &h2, &k);
			assert_int_equal(r1, r2);
			if (r1)
				assert_int_equal(h1, h2);
			fast_hits += r1 && f[14] == 0x45 && len >= 54;
		}
		mqtx_hasher_free(h);
	}
	/* The generator did exercise the shortcut. */
	assert_true(fast_hits > 10000);
}

static int restore_allocator(void **state)
{
	(void)state;
	mqtx_set_allocator(NULL);
	return 0;
}

/* Chi-square of 10,000 random IPv4 flows over 4, 8 and 16 queues, critical values at 99.9%. */
static void test_spread(void **state)
{
	static const struct {
		uint32_t n;
		double crit;
	} q[] = { { 4, 16.266 }, { 8, 24.322 }, { 16, 37.697 } };
	static const enum mqtx_hash_algo algos[] = { MQTX_HASH_JHASH, MQTX_HASH_TOEPLITZ,
						     MQTX_HASH_TOEPLITZ_SYM };
	enum { FLOWS = 10000 };
	uint32_t *hashes = malloc(FLOWS * sizeof(*hashes));
	unsigned int count[16];
	struct mqtx_hasher *h;
	uint8_t a[4], b[4];
	uint64_t seed = 2024;
	struct frame f;
	double chi, e, d;
	size_t ai, qi;
	int i;
	uint32_t j;

	(void)state;
	assert_non_null(hashes);
	for (ai = 0; ai < ARRAY_SIZE(algos); ai++) {
		h = new_hasher(algos[ai], true, 0x9e3779b9u);
		for (i = 0; i < FLOWS; i++) {
			test_rand_fill(&seed, a, 4);
			test_rand_fill(&seed, b, 4);
			frame_v4(&f, IPPROTO_TCP, a, b, (uint16_t)test_rand(&seed),
				 (uint16_t)test_rand(&seed), 0);
			assert_true(mqtx_hasher_hash(h, f.b, f.len, &hashes[i], NULL));
		}
		for (qi = 0; qi < ARRAY_SIZE(q); qi++) {
			memset(count, 0, sizeof(count));
			for (i = 0; i < FLOWS; i++)
				count[mqtx_reciprocal_scale(hashes[i], q[qi].n)]++;
			e = (double)FLOWS / q[qi].n;
			chi = 0;
			for (j = 0; j < q[qi].n; j++) {
				d = count[j] - e;
				chi += d * d / e;
			}
			if (chi >= q[qi].crit)
				fail_msg("algo %zu, %u queues: chi-square %.2f >= %.3f", ai,
					 q[qi].n, chi, q[qi].crit);
		}
		mqtx_hasher_free(h);
	}
	free(hashes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jhash_vectors),
		cmocka_unit_test(test_jhash_reference),
		cmocka_unit_test(test_jhash_3words),
		cmocka_unit_test(test_toeplitz_vectors),
		cmocka_unit_test(test_toeplitz_tables),
		cmocka_unit_test(test_toeplitz_frames),
		cmocka_unit_test(test_toeplitz_user_key),
		cmocka_unit_test(test_toeplitz_symmetric),
		cmocka_unit_test(test_reciprocal_scale),
		cmocka_unit_test(test_jhash_hasher),
		cmocka_unit_test(test_non_ip_hasher),
		cmocka_unit_test(test_callback),
		cmocka_unit_test(test_hasher_new_errors),
		cmocka_unit_test_teardown(test_hasher_enomem, restore_allocator),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_fast_path_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

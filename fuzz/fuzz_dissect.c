// SPDX-License-Identifier: MIT
// Fuzz the dissector and the flow hashes: whatever the frame, the dissector stays inside it
// (AddressSanitizer sees an overread), reports only what lies within it, and every hash of a
// frame is stable, the same from the frame or from its keys, and symmetric where it says so.
#include <errno.h>
#include <string.h>

#include <mqtx/flow.h>

#include "fuzz.h"

/* jhash, Toeplitz 4-tuple and 2-tuple, symmetric Toeplitz 4-tuple. */
enum { H_JHASH, H_TOEPLITZ_L4, H_TOEPLITZ, H_SYM, H_N };
static struct mqtx_hasher *hs[H_N];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct mqtx_hash_cfg cfg[H_N] = {
		[H_JHASH] = { .algo = MQTX_HASH_JHASH, .seed = 0x5eed1234 },
		[H_TOEPLITZ_L4] = { .algo = MQTX_HASH_TOEPLITZ, .l4 = true },
		[H_TOEPLITZ] = { .algo = MQTX_HASH_TOEPLITZ },
		[H_SYM] = { .algo = MQTX_HASH_TOEPLITZ_SYM, .l4 = true },
	};

	(void)argc;
	(void)argv;
	for (int i = 0; i < H_N; i++)
		if (mqtx_hasher_new(&cfg[i], &hs[i]))
			abort();
	return 0;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* What the keys say must be in the frame, byte for byte. */
static void check_keys(const uint8_t *f, size_t len, int rc, const struct mqtx_flow_keys *k)
{
	const unsigned ip = k->flags & (MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6);

	FUZZ_CHECK(rc == 0 || rc == -ENOENT, "rc %d", rc);
	FUZZ_CHECK(k->l3_off <= len && k->l4_off <= len, "l3 %u l4 %u len %zu", k->l3_off,
		   k->l4_off, len);
	FUZZ_CHECK(!((k->flags & MQTX_FLOW_F_PORTS) && (k->flags & MQTX_FLOW_F_FRAG)), "%#x",
		   k->flags);
	FUZZ_CHECK(ip != (MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6), "both families");
	FUZZ_CHECK((rc == 0) == (ip != 0), "rc %d flags %#x", rc, k->flags);
	if (k->n_proto) {
		FUZZ_CHECK(k->l3_off >= 14 && be16(f + k->l3_off - 2) == k->n_proto,
			   "ethertype %#x at %u", k->n_proto, k->l3_off);
	}
	if (k->flags & MQTX_FLOW_F_IPV4) {
		FUZZ_CHECK(k->n_proto == 0x0800 && k->l3_off + 20u <= len, "v4 at %u", k->l3_off);
		FUZZ_CHECK(!memcmp(&k->addrs.v4.src, f + k->l3_off + 12, 4) &&
				   !memcmp(&k->addrs.v4.dst, f + k->l3_off + 16, 4),
			   "v4 addresses");
		FUZZ_CHECK(k->ip_proto == f[k->l3_off + 9], "v4 protocol");
	}
	if (k->flags & MQTX_FLOW_F_IPV6) {
		FUZZ_CHECK(k->n_proto == 0x86dd && k->l3_off + 40u <= len, "v6 at %u", k->l3_off);
		FUZZ_CHECK(!memcmp(k->addrs.v6.src, f + k->l3_off + 8, 16) &&
				   !memcmp(k->addrs.v6.dst, f + k->l3_off + 24, 16),
			   "v6 addresses");
	}
	if (k->l4_off)
		FUZZ_CHECK(ip && k->l4_off >= k->l3_off + 20u, "l4 %u l3 %u", k->l4_off, k->l3_off);
	if (k->flags & MQTX_FLOW_F_PORTS) {
		FUZZ_CHECK(ip && k->l4_off && k->l4_off + 4u <= len, "ports at %u", k->l4_off);
		FUZZ_CHECK(!memcmp(&k->sport, f + k->l4_off, 2) &&
				   !memcmp(&k->dport, f + k->l4_off + 2, 2),
			   "ports");
	}
}

/* The same flow seen from the other end. */
static void swap_ends(struct mqtx_flow_keys *k)
{
	uint8_t t[16];
	uint16_t p = k->sport;

	if (k->flags & MQTX_FLOW_F_IPV4) {
		uint32_t a = k->addrs.v4.src;

		k->addrs.v4.src = k->addrs.v4.dst;
		k->addrs.v4.dst = a;
	} else {
		memcpy(t, k->addrs.v6.src, 16);
		memcpy(k->addrs.v6.src, k->addrs.v6.dst, 16);
		memcpy(k->addrs.v6.dst, t, 16);
	}
	k->sport = k->dport;
	k->dport = p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mqtx_flow_keys k, k2;
	uint8_t *moved;
	int rc;

	if (size > 65535)
		return 0; /* offsets are 16-bit: frames are never larger */
	rc = mqtx_flow_dissect(data, size, &k);
	check_keys(data, size, rc, &k);
	FUZZ_CHECK(mqtx_flow_dissect(data, size, &k2) == rc && !memcmp(&k, &k2, sizeof(k)),
		   "a second dissection differs");
	/* The same bytes at another alignment: no unaligned load may change a thing. */
	moved = malloc(size + 1);
	if (!moved)
		return 0;
	memcpy(moved + 1, data, size);
	for (int i = 0; i < H_N; i++) {
		uint32_t a = 0, b = 0, c = 0;
		bool ok = mqtx_hasher_hash(hs[i], data, size, &a, &k2);

		FUZZ_CHECK(ok == (rc == 0), "hasher %d: %d for rc %d", i, ok, rc);
		FUZZ_CHECK(!memcmp(&k, &k2, sizeof(k)), "hasher %d: other keys", i);
		if (!ok)
			continue;
		FUZZ_CHECK(mqtx_hasher_hash(hs[i], moved + 1, size, &b, NULL) && a == b,
			   "hasher %d: %#x then %#x moved", i, a, b);
		FUZZ_CHECK(mqtx_hasher_hash_keys(hs[i], &k, &c) && a == c,
			   "hasher %d: frame %#x keys %#x", i, a, c);
		for (uint32_t n = 1; n <= 64; n *= 2)
			FUZZ_CHECK(mqtx_reciprocal_scale(a, n) < n, "scale");
	}
	/* Symmetric Toeplitz: A->B and B->A land on one queue. */
	if (rc == 0) {
		uint32_t ab = 0, ba = 0;

		k2 = k;
		swap_ends(&k2);
		FUZZ_CHECK(mqtx_hasher_hash_keys(hs[H_SYM], &k, &ab) &&
				   mqtx_hasher_hash_keys(hs[H_SYM], &k2, &ba) && ab == ba,
			   "symmetric: %#x one way, %#x back", ab, ba);
	}
	free(moved);
	return 0;
}

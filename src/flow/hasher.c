// SPDX-License-Identifier: MIT
/* Flow hashers: simple_tx_hash-style jhash, table-driven Toeplitz, or the user's callback. */
#include <errno.h>
#include <string.h>

#include <mqtx/flow.h>

#include "flow/flow_internal.h"

struct mqtx_hasher {
	struct mqtx_hash_cfg cfg;
	/* Toeplitz only: MQTX__TOEPLITZ_MAX_IN rows, one contribution per byte value. */
	uint32_t tbl[][256];
};

/* A key gives A->B and B->A the same hash when its bytes repeat with a 16-bit period. */
static bool key_is_symmetric(const uint8_t *key, size_t len)
{
	size_t i;

	for (i = 2; i < len; i++)
		if (key[i] != key[i - 2])
			return false;
	return true;
}

int mqtx_hasher_new(const struct mqtx_hash_cfg *cfg, struct mqtx_hasher **out)
{
	const uint8_t *key = NULL;
	struct mqtx_hasher *h;
	size_t size = sizeof(*h);

	if (!cfg || !out)
		return -EINVAL;
	if (cfg->key_len != 0 && cfg->key_len != MQTX__TOEPLITZ_KEY_LEN)
		return -EINVAL;
	switch (cfg->algo) {
	case MQTX_HASH_JHASH:
		break;
	case MQTX_HASH_TOEPLITZ:
		key = cfg->key_len ? cfg->key : mqtx_rss_default_key;
		break;
	case MQTX_HASH_TOEPLITZ_SYM:
		key = cfg->key_len ? cfg->key : mqtx_rss_symmetric_key;
		if (!key_is_symmetric(key, MQTX__TOEPLITZ_KEY_LEN))
			return -EINVAL;
		break;
	case MQTX_HASH_CALLBACK:
		if (!cfg->fn)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (key)
		size += MQTX__TOEPLITZ_MAX_IN * sizeof(h->tbl[0]);

	h = mqtx__alloc_aligned(size, MQTX_CACHE_LINE);
	if (!h)
		return -ENOMEM;
	h->cfg = *cfg;
	if (key)
		mqtx__toeplitz_tables(h->tbl, key);
	*out = h;
	return 0;
}

void mqtx_hasher_free(struct mqtx_hasher *h)
{
	mqtx__free(h);
}

const struct mqtx_hash_cfg *mqtx_hasher_cfg(const struct mqtx_hasher *h)
{
	return h ? &h->cfg : NULL;
}

/* The four port bytes as one native load of the wire bytes, like simple_tx_hash's u32 read. */
static inline uint32_t ports_word(const struct mqtx_flow_keys *k)
{
	uint8_t b[4];
	uint32_t w;

	if (!(k->flags & MQTX_FLOW_F_PORTS))
		return 0;
	memcpy(b, &k->sport, 2);
	memcpy(b + 2, &k->dport, 2);
	memcpy(&w, b, 4);
	return w;
}

static uint32_t hash_jhash(const struct mqtx_hasher *h, const struct mqtx_flow_keys *k)
{
	uint32_t src, dst;

	if (k->flags & MQTX_FLOW_F_IPV4) {
		src = k->addrs.v4.src;
		dst = k->addrs.v4.dst;
	} else {
		memcpy(&src, k->addrs.v6.src + 12, 4);
		memcpy(&dst, k->addrs.v6.dst + 12, 4);
	}
	return mqtx_jhash_3words(src, dst, ports_word(k), h->cfg.seed);
}

static uint32_t hash_toeplitz(const struct mqtx_hasher *h, const struct mqtx_flow_keys *k)
{
	uint8_t in[MQTX__TOEPLITZ_MAX_IN];
	uint32_t hash = 0;
	size_t n, i;

	/* Source first, then destination, then the ports: the order the NICs hash in. */
	if (k->flags & MQTX_FLOW_F_IPV4) {
		memcpy(in, &k->addrs.v4.src, 4);
		memcpy(in + 4, &k->addrs.v4.dst, 4);
		n = 8;
	} else {
		memcpy(in, k->addrs.v6.src, 16);
		memcpy(in + 16, k->addrs.v6.dst, 16);
		n = 32;
	}
	if (h->cfg.l4 && (k->flags & MQTX_FLOW_F_PORTS)) {
		memcpy(in + n, &k->sport, 2);
		memcpy(in + n + 2, &k->dport, 2);
		n += 4;
	}
	for (i = 0; i < n; i++)
		hash ^= h->tbl[i][in[i]];
	return hash;
}

bool mqtx_hasher_hash_keys(const struct mqtx_hasher *h, const struct mqtx_flow_keys *k,
			   uint32_t *hash)
{
	if (unlikely(!h || !k || !hash))
		return false;
	if (h->cfg.algo == MQTX_HASH_CALLBACK)
		return h->cfg.fn(NULL, 0, k, hash, h->cfg.arg);
	if (!(k->flags & (MQTX_FLOW_F_IPV4 | MQTX_FLOW_F_IPV6)))
		return false;
	*hash = h->cfg.algo == MQTX_HASH_JHASH ? hash_jhash(h, k) : hash_toeplitz(h, k);
	return true;
}

/*
 * The frame most senders send: untagged IPv4 without options, not a fragment, TCP or UDP with
 * a complete header. Hashed straight from the frame, with exactly the inputs the dissector
 * would give (tests check both paths agree). Returns false for anything else.
 */
static bool hash_fast_ipv4(const struct mqtx_hasher *h, const uint8_t *f, size_t len,
			   uint32_t *hash)
{
	uint8_t in[12];
	uint32_t ports, hv = 0;

	if (len < 14 + 20 + 20 || f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45)
		return false;
	if ((f[20] & 0x3f) | f[21]) /* MF or a fragment offset */
		return false;
	if (f[23] != 6 && !(f[23] == 17 && len >= 14 + 20 + 8))
		return false;
	if (h->cfg.algo == MQTX_HASH_JHASH) {
		uint32_t src, dst;

		memcpy(&src, f + 26, 4);
		memcpy(&dst, f + 30, 4);
		memcpy(&ports, f + 34, 4);
		*hash = mqtx_jhash_3words(src, dst, ports, h->cfg.seed);
		return true;
	}
	memcpy(in, f + 26, 8);
	memcpy(in + 8, f + 34, 4);
	for (size_t i = 0; i < (h->cfg.l4 ? 12u : 8u); i++)
		hv ^= h->tbl[i][in[i]];
	*hash = hv;
	return true;
}

bool mqtx_hasher_hash(const struct mqtx_hasher *h, const void *frame, size_t len, uint32_t *hash,
		      struct mqtx_flow_keys *keys)
{
	struct mqtx_flow_keys local;
	struct mqtx_flow_keys *k = keys ? keys : &local;
	int ret;

	if (unlikely(!h || !frame || !hash))
		return false;
	if (!keys && h->cfg.algo != MQTX_HASH_CALLBACK && hash_fast_ipv4(h, frame, len, hash))
		return true;
	ret = mqtx_flow_dissect(frame, len, k);
	/* The callback sees every frame, so it can spread non-IP traffic too. */
	if (h->cfg.algo == MQTX_HASH_CALLBACK)
		return h->cfg.fn(frame, len, k, hash, h->cfg.arg);
	if (ret)
		return false;
	return mqtx_hasher_hash_keys(h, k, hash);
}

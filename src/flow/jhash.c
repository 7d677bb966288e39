// SPDX-License-Identifier: MIT
/* Bob Jenkins' lookup3 hash with the conventions of Linux's jhash(): seed, tail and word forms. */
#include <string.h>

#include <mqtx/flow.h>

#include "base/internal.h"

static inline uint32_t rol32(uint32_t v, unsigned int s)
{
	return (v << s) | (v >> (32 - s));
}

/* Little-endian load whatever the host order, so hashes match across machines. */
static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The reversible mixing step run between 12-byte blocks (rotations 4, 6, 8, 16, 19, 4). */
static inline void jmix(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*a -= *c;
	*a ^= rol32(*c, 4);
	*c += *b;
	*b -= *a;
	*b ^= rol32(*a, 6);
	*a += *c;
	*c -= *b;
	*c ^= rol32(*b, 8);
	*b += *a;
	*a -= *c;
	*a ^= rol32(*c, 16);
	*c += *b;
	*b -= *a;
	*b ^= rol32(*a, 19);
	*a += *c;
	*c -= *b;
	*c ^= rol32(*b, 4);
	*b += *a;
}

/* The final avalanche of (a, b, c) into c (rotations 14, 11, 25, 16, 4, 14, 24). */
static inline uint32_t jfinal(uint32_t a, uint32_t b, uint32_t c)
{
	c ^= b;
	c -= rol32(b, 14);
	a ^= c;
	a -= rol32(c, 11);
	b ^= a;
	b -= rol32(a, 25);
	c ^= b;
	c -= rol32(b, 16);
	a ^= c;
	a -= rol32(c, 4);
	b ^= a;
	b -= rol32(a, 14);
	c ^= b;
	c -= rol32(b, 24);
	return c;
}

uint32_t mqtx_jhash(const void *key, size_t len, uint32_t initval)
{
	const uint8_t *k = key;
	uint32_t w[3];
	size_t i;

	/* lookup3 folds the length in as a 32-bit value; longer inputs wrap like Linux's u32. */
	w[0] = w[1] = w[2] = MQTX_JHASH_INITVAL + (uint32_t)len + initval;

	/* The last block, even a full one, goes through the final step rather than mix. */
	while (len > 12) {
		w[0] += load_le32(k);
		w[1] += load_le32(k + 4);
		w[2] += load_le32(k + 8);
		jmix(&w[0], &w[1], &w[2]);
		k += 12;
		len -= 12;
	}
	if (!len)
		return w[2];
	/* Tail bytes land in the word lanes as a zero-padded little-endian load would put them. */
	for (i = 0; i < len; i++)
		w[i / 4] += (uint32_t)k[i] << (8 * (i % 4));
	return jfinal(w[0], w[1], w[2]);
}

uint32_t mqtx_jhash_3words(uint32_t a, uint32_t b, uint32_t c, uint32_t initval)
{
	uint32_t seed = initval + MQTX_JHASH_INITVAL + (3u << 2);

	return jfinal(a + seed, b + seed, c + seed);
}

// SPDX-License-Identifier: MIT
/* Microsoft RSS Toeplitz hash: the bitwise definition, the two keys and the per-byte tables. */
#include <mqtx/flow.h>

#include "flow/flow_internal.h"

const uint8_t mqtx_rss_default_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* A 16-bit period makes each key window depend only on the bit position modulo 16. */
const uint8_t mqtx_rss_symmetric_key[40] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

uint32_t mqtx_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len)
{
	uint32_t hash = 0, window;
	size_t i;
	int bit;

	if (!key || (len && !data) || len > SIZE_MAX - 4 || key_len < len + 4)
		return 0;
	window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
	for (i = 0; i < len; i++) {
		for (bit = 7; bit >= 0; bit--) {
			if (data[i] & (1u << bit))
				hash ^= window;
			/* Slide the 32-bit key window one bit, pulling in the next key bit. */
			window = window << 1 | ((key[i + 4] >> bit) & 1);
		}
	}
	return hash;
}

void mqtx__toeplitz_tables(uint32_t (*tbl)[256], const uint8_t *key)
{
	unsigned int pos, v, bit;
	uint64_t span;
	uint32_t win[8];

	for (pos = 0; pos < MQTX__TOEPLITZ_MAX_IN; pos++) {
		/* Input byte pos sees the key windows starting at bits 8*pos .. 8*pos+7. */
		span = (uint64_t)key[pos] << 32 | (uint64_t)key[pos + 1] << 24 |
		       (uint64_t)key[pos + 2] << 16 | (uint64_t)key[pos + 3] << 8 | key[pos + 4];
		for (bit = 0; bit < 8; bit++)
			win[bit] = (uint32_t)(span >> (8 - bit));
		tbl[pos][0] = 0;
		/* Toeplitz is linear: a byte's value is the XOR of the windows of its set bits. */
		for (v = 1; v < 256; v++)
			tbl[pos][v] = tbl[pos][v & (v - 1)] ^ win[7 - __builtin_ctz(v)];
	}
}

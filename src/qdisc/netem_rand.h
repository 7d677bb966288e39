/* SPDX-License-Identifier: MIT */
/* netem's randomness: Linux's prandom generator (a seeded, reproducible sequence), its
 * correlated draws, and the delay distribution tables tc ships, built from their formulas. */
#ifndef MQTX_QDISC_NETEM_RAND_H
#define MQTX_QDISC_NETEM_RAND_H

#include <stdbool.h>
#include <stdint.h>

/* The state of L'Ecuyer's maximally equidistributed combined Tausworthe generator (lfsr113),
 * Linux's struct rnd_state (lib/random32.c). */
struct netem_prng {
	uint32_t s1, s2, s3, s4;
};

/* prandom_seed_state(): the four components from one 64-bit seed, each above its minimum. */
void mqtx__netem_prng_seed(struct netem_prng *s, uint64_t seed);

/* prandom_u32_state(): the next 32-bit value. */
uint32_t mqtx__netem_prng_u32(struct netem_prng *s);

/* get_crandom(): a value correlated with the previous one by rho / 2^32 (rho 0: plain). */
struct netem_corr {
	uint32_t last, rho;
};

uint32_t mqtx__netem_corr_u32(struct netem_corr *c, struct netem_prng *s);

/* The distributions of tc's tables (NETEM_DIST_SCALE 8192 per standard deviation). */
enum netem_dist {
	NETEM_DIST_NONE, /* uniform: no table */
	NETEM_DIST_NORMAL,
	NETEM_DIST_PARETO,
	NETEM_DIST_PARETONORMAL,
	NETEM_DIST_MAX
};

#define NETEM_DIST_SCALE 8192
#define NETEM_DIST_SIZE	 4096

/* The table of @d (built once, then shared), or NULL for NETEM_DIST_NONE. */
const int16_t *mqtx__netem_dist_table(enum netem_dist d);

/* tabledist(): a value of mean @mu and deviation @sigma from @table (NULL: uniform in
 * [mu - sigma, mu + sigma)), drawing through @c. */
int64_t mqtx__netem_tabledist(int64_t mu, int32_t sigma, struct netem_corr *c, struct netem_prng *s,
			      const int16_t *table);

#endif

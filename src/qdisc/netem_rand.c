// SPDX-License-Identifier: MIT
/* netem's randomness: Linux's seeded prandom generator and correlated draws (sch_netem.c,
 * lib/random32.c), and the delay distribution tables tc reads from its .dist files, computed
 * here from the distributions themselves (iproute2's netem/ table generators). */
#include <math.h>
#include <pthread.h>
#include <stddef.h>

#include "qdisc/netem_rand.h"

/* ---- the generator: lfsr113 (P. L'Ecuyer, "Maximally Equidistributed Combined Tausworthe
 * Generators", Math. Comp. 65 (1996) 203-213, with the 1999 erratum's seed minimums). ---- */

/* Each component must keep its top k bits non-zero: a seed below the minimum is raised. */
static uint32_t seed_min(uint32_t x, uint32_t min)
{
	return x < min ? x + min : x;
}

void mqtx__netem_prng_seed(struct netem_prng *s, uint64_t seed)
{
	/* prandom_seed_state(): one 32-bit mix of the 64-bit seed feeds all four, and no
	 * warm-up follows (netem's first values are drawn straight after). */
	uint32_t i = (uint32_t)((seed >> 32) ^ (seed << 10) ^ seed);

	s->s1 = seed_min(i, 2);
	s->s2 = seed_min(i, 8);
	s->s3 = seed_min(i, 16);
	s->s4 = seed_min(i, 128);
}

/* One Tausworthe step: mask @m keeps the component's k bits, then shifts q, s, r as the
 * paper's table gives them for lfsr113. */
static uint32_t taus_step(uint32_t z, unsigned q, unsigned s, uint32_t m, unsigned r)
{
	return ((z & m) << r) ^ (((z << q) ^ z) >> s);
}

uint32_t mqtx__netem_prng_u32(struct netem_prng *s)
{
	s->s1 = taus_step(s->s1, 6, 13, 0xFFFFFFFEu, 18);
	s->s2 = taus_step(s->s2, 2, 27, 0xFFFFFFF8u, 2);
	s->s3 = taus_step(s->s3, 13, 21, 0xFFFFFFF0u, 7);
	s->s4 = taus_step(s->s4, 3, 12, 0xFFFFFF80u, 13);
	return s->s1 ^ s->s2 ^ s->s3 ^ s->s4;
}

uint32_t mqtx__netem_corr_u32(struct netem_corr *c, struct netem_prng *s)
{
	uint64_t v, w;

	if (!c || !c->rho)
		return mqtx__netem_prng_u32(s);
	/* A weighted mean of a fresh value and the last one, the weights (2^32 - rho - 1) and
	 * rho + 1 in 32-bit fixed point (get_crandom). */
	v = mqtx__netem_prng_u32(s);
	w = (uint64_t)c->rho + 1;
	c->last = (uint32_t)((v * ((1ull << 32) - w) + (uint64_t)c->last * w) >> 32);
	return c->last;
}

int64_t mqtx__netem_tabledist(int64_t mu, int32_t sigma, struct netem_corr *c, struct netem_prng *s,
			      const int16_t *table)
{
	int64_t t, frac;
	uint32_t rnd;

	if (!sigma)
		return mu;
	rnd = mqtx__netem_corr_u32(c, s);
	if (!table)
		return (int64_t)(rnd % (2 * (uint32_t)sigma)) + mu - sigma;
	/* The table holds deviations in 1/NETEM_DIST_SCALE of sigma: scale the whole part and
	 * the remainder of sigma apart, rounding the remainder's product half away from 0, so
	 * that nothing overflows (tabledist). */
	t = table[rnd % NETEM_DIST_SIZE];
	frac = (int64_t)(sigma % NETEM_DIST_SCALE) * t;
	frac += frac >= 0 ? NETEM_DIST_SCALE / 2 : -NETEM_DIST_SCALE / 2;
	return frac / NETEM_DIST_SCALE + (int64_t)(sigma / NETEM_DIST_SCALE) * t + mu;
}

/* ---- the tables, as tc's .dist files hold them: 4096 deviations each ---- */

/* tc's generators sample the inverse of the distribution function at 16384 points and keep
 * every fourth. */
#define FINE 16384

static int16_t tables[NETEM_DIST_MAX][NETEM_DIST_SIZE];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static int16_t clamp_s16(long v)
{
	return (int16_t)(v < INT16_MIN ? INT16_MIN : (v > INT16_MAX ? INT16_MAX : v));
}

/*
 * The normal distribution's inverse at (4k)/16384, in units of 1/NETEM_DIST_SCALE: for each
 * sample the largest x of a grid from -10 by 1/20000 whose rounded cumulative probability
 * (times 16384) is 4k. The grid is walked by repeated addition, as the generator does, so
 * that the values agree to the unit.
 */
static void normal_inverse(long out[NETEM_DIST_SIZE])
{
	double x;

	for (unsigned k = 0; k < NETEM_DIST_SIZE; k++)
		out[k] = 0;
	for (x = -10.0; x < 10.05; x += .00005) {
		double cdf = .5 + .5 * erf(x / sqrt(2.0));
		long i = lrint(FINE * cdf);

		if (i < FINE && i % 4 == 0)
			out[i / 4] = lrint(x * NETEM_DIST_SCALE);
	}
}

/*
 * A Pareto distribution of shape 3 and scale 1 (mean 1.5), centred and scaled by 4/3, at the
 * k-th of 4096 points from the top of the probability range down: x = u^(-1/3) for
 * u = 1 - k/4096.
 */
static long pareto_at(unsigned k)
{
	double u = (double)(65536 - 16 * k) / 65536.0;
	double v = 1.0 / pow(u, 1.0 / 3.0);

	v -= 1.5;
	v *= (4.0 / 3.0) * NETEM_DIST_SCALE;
	if (v > INT16_MAX)
		v = INT16_MAX;
	return lrint(v);
}

static void build_tables(void)
{
	static long normal[NETEM_DIST_SIZE];

	normal_inverse(normal);
	for (unsigned k = 0; k < NETEM_DIST_SIZE; k++) {
		long p = pareto_at(k);

		tables[NETEM_DIST_NORMAL][k] = clamp_s16(normal[k]);
		tables[NETEM_DIST_PARETO][k] = clamp_s16(p);
		/* a quarter normal, three quarters Pareto (integer division, towards 0) */
		tables[NETEM_DIST_PARETONORMAL][k] = clamp_s16((normal[k] + 3 * p) / 4);
	}
}

const int16_t *mqtx__netem_dist_table(enum netem_dist d)
{
	if (d <= NETEM_DIST_NONE || d >= NETEM_DIST_MAX)
		return NULL;
	pthread_once(&tables_once, build_tables);
	return tables[d];
}

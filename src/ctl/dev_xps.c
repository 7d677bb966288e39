// SPDX-License-Identifier: MIT
/*
 * "dev set NAME xps TXQ CPUS" and "dev set NAME flowcache N": Linux's per-queue xps_cpus
 * (/sys/class/net/DEV/queues/tx-N/xps_cpus) and the flow-to-queue table, and how dev show
 * prints them. CPUS is a list as taskset -c takes it ("0,2-3") or "none".
 */
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_int.h"

/* "0,2-3" into @s->cpus, ascending, each once. 0, or -1 after a message naming the list. */
static int parse_cpus(struct xps_set *s, const char *v, struct mqtx_buf *err)
{
	uint64_t seen[MQTX_XPS_CPUS_MAX / 64] = { 0 };
	const char *p = v;

	s->ncpus = 0;
	if (!strcmp(v, "none"))
		return 0;
	for (;;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p || *p == '-' || *p == '+')
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || *p == '-' || *p == '+' || b < a)
				goto bad;
		}
		if (b >= MQTX_XPS_CPUS_MAX) {
			mqtx_buf_printf(err, "dev set: xps: CPU %lu in \"%s\" is beyond %u\n", b, v,
					MQTX_XPS_CPUS_MAX - 1);
			return -1;
		}
		for (unsigned long c = a; c <= b; c++)
			seen[c / 64] |= 1ull << (c % 64);
		if (!*end)
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	s->cpus = malloc(MQTX_XPS_CPUS_MAX * sizeof(*s->cpus));
	if (!s->cpus) {
		mqtx_buf_printf(err, "dev set: xps: out of memory\n");
		return -1;
	}
	for (unsigned c = 0; c < MQTX_XPS_CPUS_MAX; c++)
		if (seen[c / 64] >> (c % 64) & 1)
			s->cpus[s->ncpus++] = c;
	return 0;
bad:
	mqtx_buf_printf(
		err, "dev set: xps: invalid CPU list \"%s\" (a list such as 0,2-3, or none)\n", v);
	return -1;
}

int mqtx__xps_set_word(struct xps_set *s, struct mqtx_dev *dev, int argc, char **argv,
		       struct mqtx_buf *err)
{
	uint64_t x;

	if (!strcmp(argv[0], "flowcache")) {
		if (s->flowcache >= 0 || s->txq >= 0)
			goto twice;
		if (argc < 2 || mqtx__parse_u64(argv[1], &x) || (x & (x - 1)) || x > (1u << 20)) {
			mqtx_buf_printf(err,
					"dev set: invalid flowcache \"%s\" (0 or a power of two up "
					"to 1048576)\n",
					argc > 1 ? argv[1] : "");
			return -1;
		}
		s->flowcache = (int64_t)x;
		return 2;
	}
	if (strcmp(argv[0], "xps"))
		return 0;
	if (s->flowcache >= 0 || s->txq >= 0)
		goto twice;
	if (argc < 3) {
		mqtx_buf_printf(err, "dev set: xps needs a queue and CPUs: xps TXQ CPUS\n");
		return -1;
	}
	if (mqtx__parse_u64(argv[1], &x) || x >= mqtx_dev_num_txq(dev)) {
		mqtx_buf_printf(err, "dev set: xps: invalid queue \"%s\" (0..%u)\n", argv[1],
				mqtx_dev_num_txq(dev) - 1);
		return -1;
	}
	s->txq = (int)x;
	return parse_cpus(s, argv[2], err) ? -1 : 3;
twice:
	mqtx_buf_printf(err, "dev set: give one xps or flowcache per command (\"%s\")\n", argv[0]);
	return -1;
}

int mqtx__xps_set_apply(const struct mqtx_ctl_call *c, struct mqtx_dev *dev,
			const struct xps_set *s)
{
	int rc;

	if (s->flowcache >= 0)
		rc = mqtx_dev_set_flow_cache(dev, (uint32_t)s->flowcache);
	else
		rc = mqtx_dev_set_xps(dev, (uint32_t)s->txq, s->cpus, s->ncpus);
	return rc ? mqtx__ctl_errno(c, mqtx_dev_name(dev), rc) : MQTX_TC_EXIT_OK;
}

void mqtx__xps_set_free(struct xps_set *s)
{
	free(s->cpus);
	s->cpus = NULL;
}

/* @cpus[0..n) ascending as "0,2-3". */
static void print_cpus(const unsigned *cpus, int n, struct mqtx_buf *out)
{
	for (int i = 0; i < n;) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		mqtx_buf_printf(out, i ? ",%u" : "%u", cpus[i]);
		if (j > i)
			mqtx_buf_printf(out, "-%u", cpus[j]);
		i = j + 1;
	}
}

void mqtx__xps_show(struct mqtx_dev *dev, bool line, struct tc_out *p)
{
	uint32_t fc = mqtx_dev_flow_cache(dev);
	unsigned cpus[MQTX_XPS_CPUS_MAX];

	if (line) {
		mqtx__out_uint(p, fc ? OUT_ANY : OUT_JSON, "flowcache", " flowcache %llu", fc);
		mqtx__out_open_array(p, "xps");
	}
	for (uint32_t q = 0; q < mqtx_dev_num_txq(dev); q++) {
		int n = mqtx_dev_xps(dev, q, cpus, MQTX_XPS_CPUS_MAX);

		/* The maps: JSON members of the device's object, text lines after its line. */
		if (n <= 0 || line == !p->json)
			continue;
		mqtx__out_open(p, NULL);
		mqtx__out_uint(p, OUT_ANY, "txq", "    txq %llu: xps cpus ", q);
		mqtx__out_open_array(p, "cpus");
		for (int i = 0; i < n; i++)
			mqtx__out_uint(p, OUT_JSON, NULL, NULL, cpus[i]);
		mqtx__out_close_array(p);
		if (!p->json)
			print_cpus(cpus, n, p->buf);
		mqtx__out_close(p);
		mqtx__out_nl(p);
	}
	if (line)
		mqtx__out_close_array(p);
}

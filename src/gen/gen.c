// SPDX-License-Identifier: MIT
// Traffic generator: builds valid Ethernet/IPv4|IPv6/UDP|TCP frames for a set of flows and
// sends them through the device's select/qdisc/driver path, paced on the device's clock.
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <mqtx/clock.h>
#include <mqtx/pkt.h>

#include "gen/gen.h"
#include "base/internal.h"

#define ETH_HLEN  14
#define VLAN_HLEN 4
#define IP_HLEN	  20
#define IP6_HLEN  40
#define UDP_HLEN  8
#define TCP_HLEN  20

void mqtx_gen_cfg_default(struct mqtx_gen_cfg *cfg)
{
	static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t dmac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

	memset(cfg, 0, sizeof(*cfg));
	cfg->flows = 1;
	cfg->size = 64;
	cfg->threads = 1;
	cfg->proto = IPPROTO_UDP;
	cfg->src_lo = cfg->src_hi = 0x0a000001;
	cfg->dst_lo = cfg->dst_hi = 0x0a000002;
	cfg->sport_lo = 1024;
	cfg->sport_hi = 65535;
	cfg->dport_lo = cfg->dport_hi = 9;
	cfg->vlan = -1;
	memcpy(cfg->src_mac, smac, 6);
	memcpy(cfg->dst_mac, dmac, 6);
}

uint32_t mqtx__tos2prio(uint8_t tos)
{
	/* Linux ip_tos2prio[]: indexed by the four TOS bits; 0 best effort, 2 bulk,
	 * 6 interactive, 4 interactive bulk. */
	static const uint8_t map[16] = { 0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4 };

	return map[(tos & 0x1e) >> 1];
}

uint32_t mqtx_gen_min_size(const struct mqtx_gen_cfg *cfg)
{
	uint32_t n = ETH_HLEN + (cfg->vlan >= 0 ? VLAN_HLEN : 0) + MQTX_GEN_FCS +
		     (cfg->ipv6 ? IP6_HLEN : IP_HLEN) +
		     (cfg->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN);

	return n > MQTX_GEN_SIZE_MIN ? n : MQTX_GEN_SIZE_MIN;
}

uint32_t mqtx_gen_frame_size(const struct mqtx_gen_cfg *cfg, uint64_t seq)
{
	/* Simple IMIX: 7 x 64, 4 x 594, 1 x 1518 in every 12 frames, interleaved. */
	static const uint16_t imix[12] = { 64, 594, 64, 64, 594, 64, 1518, 64, 594, 64, 594, 64 };
	uint32_t min;

	if (cfg->size != MQTX_GEN_SIZE_IMIX)
		return cfg->size;
	/* 64 bytes cannot hold IPv6 and UDP or TCP headers: the smallest frame that can stands
	 * in for it (as pktgen grows a frame too small for its headers). */
	min = mqtx_gen_min_size(cfg);
	return imix[seq % 12] > min ? imix[seq % 12] : min;
}

/* The 4-tuple of flow @f: the source range moves fastest (see struct mqtx_gen_cfg). */
static void flow_tuple(const struct mqtx_gen_cfg *cfg, uint64_t f, uint32_t *src, uint32_t *dst,
		       uint16_t *sport, uint16_t *dport)
{
	uint64_t ns = (uint64_t)cfg->src_hi - cfg->src_lo + 1;
	uint64_t nd = (uint64_t)cfg->dst_hi - cfg->dst_lo + 1;
	uint64_t nsp = (uint64_t)cfg->sport_hi - cfg->sport_lo + 1;
	uint64_t ndp = (uint64_t)cfg->dport_hi - cfg->dport_lo + 1;

	*src = cfg->src_lo + (uint32_t)(f % ns);
	f /= ns;
	*dst = cfg->dst_lo + (uint32_t)(f % nd);
	f /= nd;
	*sport = (uint16_t)(cfg->sport_lo + f % nsp);
	f /= nsp;
	*dport = (uint16_t)(cfg->dport_lo + f % ndp);
}

static uint8_t *build_l2(const struct mqtx_gen_cfg *cfg, uint8_t *p)
{
	memcpy(p, cfg->dst_mac, 6);
	memcpy(p + 6, cfg->src_mac, 6);
	p += 12;
	if (cfg->vlan >= 0) {
		mqtx__put16(p, 0x8100);
		mqtx__put16(p + 2, (uint16_t)cfg->vlan);
		p += VLAN_HLEN;
	}
	mqtx__put16(p, cfg->ipv6 ? 0x86dd : 0x0800);
	return p + 2;
}

/* IPv4 header: version 4, IHL 5, DF, TTL 64, header checksum. */
static void build_ip4(const struct mqtx_gen_cfg *cfg, uint8_t *ip, uint64_t seq, uint32_t src,
		      uint32_t dst, size_t l4len)
{
	ip[0] = 0x45;
	ip[1] = cfg->tos;
	mqtx__put16(ip + 2, (uint16_t)(IP_HLEN + l4len));
	mqtx__put16(ip + 4, (uint16_t)seq);
	mqtx__put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = cfg->proto;
	mqtx__put16(ip + 10, 0);
	mqtx__put32(ip + 12, src);
	mqtx__put32(ip + 16, dst);
	mqtx__put16(ip + 10, mqtx__csum_fold(mqtx__csum_add(0, ip, IP_HLEN)));
}

/* IPv6 header (RFC 8200): the TOS byte as traffic class, flow label 0, hop limit 64; the
 * addresses are the configured prefixes with the flow's last 32 bits. */
static void build_ip6(const struct mqtx_gen_cfg *cfg, uint8_t *ip, uint32_t src, uint32_t dst,
		      size_t l4len)
{
	mqtx__put32(ip, 6u << 28 | (uint32_t)cfg->tos << 20);
	mqtx__put16(ip + 4, (uint16_t)l4len);
	ip[6] = cfg->proto;
	ip[7] = 64;
	memcpy(ip + 8, cfg->src6, 12);
	mqtx__put32(ip + 20, src);
	memcpy(ip + 24, cfg->dst6, 12);
	mqtx__put32(ip + 36, dst);
}

int mqtx_gen_build(const struct mqtx_gen_cfg *cfg, uint64_t seq, uint8_t *buf, size_t cap)
{
	size_t len = mqtx_gen_frame_size(cfg, seq) - MQTX_GEN_FCS;
	size_t l4len, hl4 = cfg->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN;
	uint32_t src, dst, sum;
	uint16_t sport, dport;
	uint8_t *ip, *l4;

	if (len > cap)
		return -ENOSPC;
	flow_tuple(cfg, seq % cfg->flows, &src, &dst, &sport, &dport);
	ip = build_l2(cfg, buf);
	l4 = ip + (cfg->ipv6 ? IP6_HLEN : IP_HLEN);
	if (l4 + hl4 > buf + len)
		return -EINVAL; /* smaller than its headers: mqtx__gen_start() refuses such sizes */
	l4len = len - (size_t)(l4 - buf);
	/* Payload: the sequence number, then a byte pattern a reader can check. */
	for (size_t i = hl4; i < l4len; i++)
		l4[i] = (uint8_t)i;
	if (l4len >= hl4 + 8) {
		mqtx__put32(l4 + hl4, (uint32_t)(seq >> 32));
		mqtx__put32(l4 + hl4 + 4, (uint32_t)seq);
	}
	if (cfg->ipv6)
		build_ip6(cfg, ip, src, dst, l4len);
	else
		build_ip4(cfg, ip, seq, src, dst, l4len);
	mqtx__put16(l4, sport);
	mqtx__put16(l4 + 2, dport);
	if (cfg->proto == IPPROTO_TCP) {
		mqtx__put32(l4 + 4, (uint32_t)seq); /* sequence */
		mqtx__put32(l4 + 8, 0);		    /* ack */
		l4[12] = 5 << 4;		    /* data offset */
		l4[13] = 0x18;			    /* PSH, ACK */
		mqtx__put16(l4 + 14, 65535);	    /* window */
		mqtx__put16(l4 + 16, 0);	    /* checksum */
		mqtx__put16(l4 + 18, 0);	    /* urgent */
	} else {
		mqtx__put16(l4 + 4, (uint16_t)l4len);
		mqtx__put16(l4 + 6, 0);
	}
	/* Pseudo-header: addresses, protocol, L4 length; the IPv6 one (RFC 8200 8.1) has a
	 * 32-bit length and next header, which add up the same as IPv4's 16-bit fields. */
	if (cfg->ipv6)
		sum = mqtx__csum_add(0, ip + 8, 32) + cfg->proto + (uint32_t)l4len;
	else
		sum = mqtx__csum_add(0, ip + 12, 8) + cfg->proto + (uint32_t)l4len;
	sum = mqtx__csum_fold(mqtx__csum_add(sum, l4, l4len));
	if (cfg->proto != IPPROTO_TCP && sum == 0)
		sum = 0xffff; /* UDP: zero means "no checksum" (RFC 768; not allowed over IPv6) */
	mqtx__put16(l4 + (cfg->proto == IPPROTO_TCP ? 16 : 6), (uint16_t)sum);
	return (int)len;
}

/* When frame @seq is due after the start: @seq frames at the packet rate, or the bits of the
 * frames before it (without FCS) at the bit rate, as if one thread sent every frame. */
static uint64_t seq_due_ns(const struct mqtx_gen_cfg *cfg, uint64_t seq)
{
	unsigned period = cfg->size == MQTX_GEN_SIZE_IMIX ? 12 : 1;
	unsigned __int128 bits = 0, ns;

	if (cfg->rate_pps)
		ns = (unsigned __int128)seq * MQTX_NSEC_PER_SEC / cfg->rate_pps;
	else {
		for (unsigned i = 0; i < period; i++)
			bits += (unsigned __int128)(mqtx_gen_frame_size(cfg, i) - MQTX_GEN_FCS) *
				8 * (seq / period + (i < seq % period));
		ns = bits * MQTX_NSEC_PER_SEC / cfg->rate_bps;
	}
	return ns > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)ns;
}

/* The frame after @seq of the thread owning its flow: the next of its flows (every @k-th), or,
 * past the last flow, its first flow (@seq's flow % @k) of the next round. */
static uint64_t next_seq(uint64_t seq, uint32_t flows, unsigned k)
{
	uint64_t f = seq % flows;

	if (f + k < flows)
		return seq + k;
	return seq - f + flows + f % k;
}

/* Thread t sends the frames of flows t, t + K, t + 2K, ...: each flow from one thread, in
 * order; paced, each frame when it is due as if one thread sent all (seq_due_ns()). */
static void *gen_thread(void *arg)
{
	struct mqtx_job_thread *t = arg;
	struct mqtx_job *job = t->job;
	const struct mqtx_gen_cfg *cfg = job->priv;
	unsigned k = job->nthreads;
	bool paced = cfg->rate_bps || cfg->rate_pps;
	unsigned burst = !paced ? MQTX_GEN_BURST : cfg->burst ? cfg->burst : 1;
	uint64_t seq = t->index;
	uint64_t end = cfg->duration_ns ? job->start_ns + cfg->duration_ns : UINT64_MAX;
	struct mqtx_pkt *pkts[MQTX_GEN_BURST];
	struct mqtx_pacer pc = { 0 };

	while (!atomic_load_explicit(&job->stop, memory_order_relaxed)) {
		unsigned want = 0, got, i;
		uint64_t now, s;

		for (s = seq; want < burst && (!cfg->count || s < cfg->count); want++)
			s = next_seq(s, cfg->flows, k);
		if (!want)
			break;
		if (paced) {
			uint64_t due = job->start_ns + seq_due_ns(cfg, seq);

			if (due >= end) {
				mqtx__job_wait_until(job, end);
				break;
			}
			if (!(burst == 1 ? mqtx__job_pace(job, &pc, due)
					 : mqtx__job_wait_until(job, due)))
				break;
		}
		now = mqtx_clock_now(job->clock);
		if (now >= end)
			break;
		got = mqtx_pkt_alloc_bulk(job->pool, pkts, want);
		if (!got) {
			atomic_fetch_add_explicit(&t->nomem, 1, memory_order_relaxed);
			mqtx__job_wait_until(job, now + 100000);
			continue;
		}
		for (i = 0; i < got; i++, seq = next_seq(seq, cfg->flows, k)) {
			struct mqtx_pkt *p = pkts[i];
			int len = mqtx_gen_build(cfg, seq, p->data, mqtx_pkt_tailroom(p));

			p->len = len > 0 ? (uint32_t)len : 0;
			p->priority = mqtx__tos2prio(cfg->tos);
			p->user = seq;
		}
		mqtx__job_send(t, pkts, got);
		if (paced && burst == 1)
			mqtx__job_paced(job, &pc);
	}
	mqtx__job_thread_done(t);
	return NULL;
}

int mqtx__gen_start(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
		    const struct mqtx_gen_cfg *cfg, struct mqtx_job **out)
{
	struct mqtx_gen_cfg *copy;

	if (!cfg->flows || !cfg->threads || cfg->threads > MQTX_GEN_THREADS_MAX ||
	    cfg->burst > MQTX_GEN_BURST ||
	    (cfg->size != MQTX_GEN_SIZE_IMIX && cfg->size < MQTX_GEN_SIZE_MIN) ||
	    (cfg->proto != IPPROTO_UDP && cfg->proto != IPPROTO_TCP) ||
	    (cfg->size != MQTX_GEN_SIZE_IMIX && cfg->size < mqtx_gen_min_size(cfg)) ||
	    (cfg->rate_bps && cfg->rate_pps) || cfg->vlan > 4095 || cfg->src_lo > cfg->src_hi ||
	    cfg->dst_lo > cfg->dst_hi || cfg->sport_lo > cfg->sport_hi ||
	    cfg->dport_lo > cfg->dport_hi)
		return -EINVAL;
	copy = mqtx__alloc(sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	*copy = *cfg;
	/* A flow belongs to one thread: threads beyond the flows would have nothing to send. */
	return mqtx__job_start(dev, pool, copy,
			       cfg->threads < cfg->flows ? cfg->threads : cfg->flows, gen_thread,
			       out);
}

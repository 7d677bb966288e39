// SPDX-License-Identifier: MIT
/* A flower filter as tc's flower_print_opt() prints what the kernel dumps: the class, then one
 * line per key in tc's order, the flags, the actions. */
#include <arpa/inet.h>
#include <stdio.h>

#include "cls/flower.h"

#define TC_MIN_PRIORITY 0xFFE0u

/* The prefix length of a mask, or -1 when it has holes (tc's __mask_bits()). */
static int mask_bits(const uint8_t *m, size_t len)
{
	int bits = 0;
	bool hole = false;

	for (size_t i = 0; i < len; i++) {
		for (int j = 7; j >= 0; j--) {
			if ((m[i] >> j) & 1) {
				if (hole)
					return -1;
				bits++;
			} else {
				hole = true;
			}
		}
	}
	return bits;
}

static void line(struct tc_out *p, const char *key, const char *v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "  %s %%s", key);
	mqtx__out_nl(p);
	mqtx__out_str(p, OUT_ANY, key, fmt, v);
}

static void mac(struct tc_out *p, const char *key, const uint8_t *a, const uint8_t *m)
{
	char out[64];
	int n = snprintf(out, sizeof(out), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3],
			 a[4], a[5]);
	int bits = mask_bits(m, 6);

	if (bits < 0)
		snprintf(out + n, sizeof(out) - (size_t)n, "/%02x:%02x:%02x:%02x:%02x:%02x", m[0],
			 m[1], m[2], m[3], m[4], m[5]);
	else if (bits < 48)
		snprintf(out + n, sizeof(out) - (size_t)n, "/%d", bits);
	line(p, key, out);
}

static void addr(struct tc_out *p, const char *key, int af, const void *a, const void *m)
{
	size_t len = af == AF_INET ? 4 : 16;
	char out[INET6_ADDRSTRLEN * 2 + 2], mb[INET6_ADDRSTRLEN];
	int bits = mask_bits(m, len);
	size_t n;

	inet_ntop(af, a, out, sizeof(out));
	n = strlen(out);
	if (bits < 0)
		snprintf(out + n, sizeof(out) - n, "/%s", inet_ntop(af, m, mb, sizeof(mb)));
	else if ((size_t)bits < len * 8)
		snprintf(out + n, sizeof(out) - n, "/%d", bits);
	line(p, key, out);
}

/* print_masked_u8/be16(): "  name V[/0xM]" in text, "name": V and "name_mask": M in JSON. */
static void masked(struct tc_out *p, const char *key, unsigned v, unsigned m, unsigned max)
{
	char out[32], mk[40], fmt[48];

	if (p->json) {
		mqtx__out_uint(p, OUT_JSON, key, NULL, v);
		if (m != max) {
			snprintf(mk, sizeof(mk), "%s_mask", key);
			mqtx__out_uint(p, OUT_JSON, mk, NULL, m);
		}
		return;
	}
	if (m != max)
		snprintf(out, sizeof(out), "%u/0x%x", v, m);
	else
		snprintf(out, sizeof(out), "%u", v);
	snprintf(fmt, sizeof(fmt), "\n  %s %%s", key);
	mqtx__out_str(p, OUT_FP, NULL, fmt, out);
}

static void range(struct tc_out *p, const char *key, unsigned min, unsigned max)
{
	char out[32];

	if (p->json) {
		mqtx__out_open(p, key);
		mqtx__out_uint(p, OUT_JSON, "start", NULL, min);
		mqtx__out_uint(p, OUT_JSON, "end", NULL, max);
		mqtx__out_close(p);
		return;
	}
	snprintf(out, sizeof(out), "%u-%u", min, max);
	line(p, key, out);
}

static const char *eth_type_name(uint16_t t, char *buf, size_t len)
{
	switch (t) {
	case 0x0800:
		return "ipv4";
	case 0x86DD:
		return "ipv6";
	case 0x0806:
		return "arp";
	case 0x8035:
		return "rarp";
	}
	snprintf(buf, len, "%04x", t);
	return buf;
}

static const char *ip_proto_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 132:
		return "sctp";
	case 1:
		return "icmp";
	case 58:
		return "icmpv6";
	}
	snprintf(buf, len, "%02x", p);
	return buf;
}

static void ip_flags(struct tc_out *p, const struct fl_filter *f, const struct fl_key *k)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} flags[] = { { FL_FLAG_FRAG, "frag" }, { FL_FLAG_FIRSTFRAG, "firstfrag" } };
	unsigned count = 0;

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		bool on = k->ip_flags & flags[i].bit;

		if (!(f->mask.ip_flags & flags[i].bit))
			continue;
		if (!count++) {
			mqtx__out_nl(p);
			mqtx__out_text(p, "  ip_flags ");
			mqtx__out_open(p, "ip_flags");
		} else {
			mqtx__out_text(p, "/");
		}
		mqtx__out_bool(p, OUT_JSON, flags[i].name, NULL, on);
		mqtx__out_text(p, "%s%s", on ? "" : "no", flags[i].name);
	}
	if (count)
		mqtx__out_close(p);
}

static void keys(struct tc_out *p, const struct fl_filter *f)
{
	const struct fl_key *k = &f->given; /* tc shows the key as it was given */
	uint16_t eth = ntohs(k->n_proto);
	int af = eth == 0x0800 ? AF_INET : AF_INET6;
	char b[32];

	if (f->present & FLK_VLAN_ID) {
		mqtx__out_nl(p);
		mqtx__out_uint(p, OUT_ANY, "vlan_id", "  vlan_id %llu", k->vlan_id);
	}
	if (f->present & FLK_VLAN_PRIO) {
		mqtx__out_nl(p);
		mqtx__out_uint(p, OUT_ANY, "vlan_prio", "  vlan_prio %llu", k->vlan_prio);
	}
	if (f->present & FLK_VLAN_ETHTYPE)
		line(p, "vlan_ethtype", mqtx__tcf_proto_name(f->vlan_ethtype, b, sizeof(b)));
	if (f->present & FLK_DST_MAC)
		mac(p, "dst_mac", k->dst_mac, f->mask.dst_mac);
	if (f->present & FLK_SRC_MAC)
		mac(p, "src_mac", k->src_mac, f->mask.src_mac);
	if (f->present & FLK_ETH_TYPE)
		line(p, "eth_type", eth_type_name(eth, b, sizeof(b)));
	if (f->present & FLK_IP_PROTO)
		line(p, "ip_proto", ip_proto_name(k->ip_proto, b, sizeof(b)));
	if (f->present & FLK_TOS)
		masked(p, "ip_tos", k->tos, f->mask.tos, 0xFF);
	if (f->present & FLK_TTL)
		masked(p, "ip_ttl", k->ttl, f->mask.ttl, 0xFF);
	if (f->present & FLK_DST_IP)
		addr(p, "dst_ip", af, af == AF_INET ? (const void *)&k->ipv4_dst : k->ipv6_dst,
		     af == AF_INET ? (const void *)&f->mask.ipv4_dst : f->mask.ipv6_dst);
	if (f->present & FLK_SRC_IP)
		addr(p, "src_ip", af, af == AF_INET ? (const void *)&k->ipv4_src : k->ipv6_src,
		     af == AF_INET ? (const void *)&f->mask.ipv4_src : f->mask.ipv6_src);
	if (f->present & FLK_DST_PORT)
		masked(p, "dst_port", ntohs(k->dport), ntohs(f->mask.dport), 0xFFFF);
	if (f->present & FLK_SRC_PORT)
		masked(p, "src_port", ntohs(k->sport), ntohs(f->mask.sport), 0xFFFF);
	if (f->present & FLK_DST_RANGE)
		range(p, "dst_port", f->dport_min, f->dport_max);
	if (f->present & FLK_SRC_RANGE)
		range(p, "src_port", f->sport_min, f->sport_max);
	if (f->present & FLK_TCP_FLAGS) {
		snprintf(b, sizeof(b), "0x%x/%x", ntohs(k->tcp_flags), ntohs(f->mask.tcp_flags));
		line(p, "tcp_flags", b);
	}
	if (f->present & FLK_IP_FLAGS)
		ip_flags(p, f, k);
}

/* The offload flags, a line each: skip_hw when given, and not_in_hw (nothing is offloaded). */
static void hw_flags(struct tc_out *p, const struct fl_filter *f)
{
	if (f->skip_hw) {
		mqtx__out_nl(p);
		mqtx__out_bool(p, OUT_ANY, "skip_hw", "  skip_hw", true);
	}
	mqtx__out_nl(p);
	mqtx__out_bool(p, OUT_ANY, "not_in_hw", "  not_in_hw", true);
}

void mqtx__fl_dump(const struct tcf_proto *tp, const struct tcf_filter *f0, struct tc_out *p)
{
	const struct fl_filter *f = fl_of(f0);
	uint32_t minor = f0->classid & 0xFFFF;
	char b[16];

	(void)tp;
	if (f0->handle)
		mqtx__out_uint(p, OUT_ANY, "handle", "handle 0x%llx ", f0->handle);
	if (f0->classid && minor >= TC_MIN_PRIORITY && minor < TC_MIN_PRIORITY + 16)
		mqtx__out_uint(p, OUT_ANY, "hw_tc", "hw_tc %llu ", minor - TC_MIN_PRIORITY);
	else if (f0->classid)
		mqtx__out_str(p, OUT_ANY, "classid", "classid %s ",
			      mqtx__classid_fmt(f0->classid, b, sizeof(b)));
	mqtx__out_open(p, "keys");
	keys(p, f);
	mqtx__out_close(p);
	hw_flags(p, f);
	if (p->stats)
		mqtx__out_uint(p, OUT_ANY, "rule_hit", " (rule hit %llu)", atomic_load(&f0->hits));
	mqtx__tcf_exts_dump(&f0->exts, p);
}

void mqtx__fl_terse_dump(const struct tcf_proto *tp, const struct tcf_filter *f0, struct tc_out *p)
{
	const struct fl_filter *f = fl_of(f0);

	(void)tp;
	if (f0->handle)
		mqtx__out_uint(p, OUT_ANY, "handle", "handle 0x%llx ", f0->handle);
	hw_flags(p, f);
	mqtx__tcf_exts_dump_terse(&f0->exts, p);
}

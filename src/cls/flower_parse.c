// SPDX-License-Identifier: MIT
/* flower's words, as tc's f_flower.c reads them: keys with masks, ports and ranges, flags, the
 * class and the actions; the checks tc makes (a key needs the right protocol) and its messages. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cls/flower.h"

/* tc's explain() of f_flower.c, as far as mqtx takes its words. */
const char mqtx__fl_usage[] = "Usage: ... flower\t[ MATCH-LIST ] [ verbose ]\n"
			      "\t\t\t[ skip_sw | skip_hw ]\n"
			      "\t\t\t[ action ACTION-SPEC ] [ classid CLASSID ]\n"
			      "\n"
			      "Where: MATCH-LIST := [ MATCH-LIST ] MATCH\n"
			      "       MATCH      := {\tvlan_id VID |\n"
			      "\t\t\tvlan_prio PRIORITY |\n"
			      "\t\t\tvlan_ethtype [ ipv4 | ipv6 | ETH-TYPE ] |\n"
			      "\t\t\tdst_mac MASKED-LLADDR |\n"
			      "\t\t\tsrc_mac MASKED-LLADDR |\n"
			      "\t\t\tip_proto [tcp | udp | sctp | icmp | icmpv6 | IP-PROTO ] |\n"
			      "\t\t\tip_tos MASKED-IP_TOS |\n"
			      "\t\t\tip_ttl MASKED-IP_TTL |\n"
			      "\t\t\tdst_ip PREFIX |\n"
			      "\t\t\tsrc_ip PREFIX |\n"
			      "\t\t\tdst_port PORT-NUMBER |\n"
			      "\t\t\tsrc_port PORT-NUMBER |\n"
			      "\t\t\ttcp_flags MASKED-TCP_FLAGS |\n"
			      "\t\t\tip_flags IP-FLAGS }\n"
			      "\tFILTERID := X:Y:Z\n"
			      "\tMASKED_LLADDR := { LLADDR | LLADDR/MASK | LLADDR/BITS }\n"
			      "\tACTION-SPEC := ... look at individual actions\n"
			      "\n"
			      "NOTE:\tCLASSID, IP-PROTO are parsed as hexadecimal input.\n"
			      "NOTE:\tThere can be only used one mask per one prio. If user needs\n"
			      "\tto specify different mask, he has to use different prio.\n";

#define TC_MIN_PRIORITY 0xFFE0u /* TC_H_MIN_PRIORITY: hw_tc N is class major:ffe0+N */

/* The parse of one filter: the filter, and the protocol keys are checked against. */
struct flp {
	struct fl_filter *f;
	uint16_t tc_proto, eth_type, vlan_ethtype; /* host order */
	uint8_t ip_proto;			   /* 0xff: none given */
};

static bool is_vlan(uint16_t t)
{
	return t == 0x8100 || t == 0x88A8;
}

/* ---- values ---- */

/* MAC[/BITS | /MASK] */
static int parse_masked_mac(const char *s, uint8_t *key, uint8_t *mask)
{
	char buf[64], *slash;
	uint32_t bits;

	if (mqtx__tc_split(s, buf, sizeof(buf), &slash) || mqtx__parse_mac(buf, key))
		return -EINVAL;
	memset(mask, 0xFF, 6);
	if (!slash)
		return 0;
	if (!mqtx__tc_get_u32(slash, &bits, 10)) {
		if (bits > 48)
			return -EINVAL;
		for (unsigned i = 0; i < 48; i++)
			if (i >= bits)
				mask[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
		return 0;
	}
	return mqtx__parse_mac(slash, mask);
}

/* get_prefix(): ADDR[/LEN] of @family (AF_UNSPEC: either), its address and mask. */
static int parse_prefix(const char *s, int family, int *got, uint8_t *addr, uint8_t *mask)
{
	char buf[64], *slash;
	uint32_t len, max;

	if (mqtx__tc_split(s, buf, sizeof(buf), &slash))
		return -EINVAL;
	if (inet_pton(AF_INET, buf, addr) == 1)
		*got = AF_INET;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		*got = AF_INET6;
	else
		return -EINVAL;
	max = *got == AF_INET ? 32 : 128;
	len = max;
	if (slash && (mqtx__tc_get_u32(slash, &len, 10) || len > max))
		return -ERANGE; /* an address with a bad prefix length */
	memset(mask, 0, max / 8);
	for (uint32_t i = 0; i < len; i++)
		mask[i / 8] |= (uint8_t)(0x80u >> (i % 8));
	(void)family;
	return 0;
}

/* ---- the keys ---- */

static int bad(struct tcf_parse *ps, const char *what)
{
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"%s\"", what);
}

static int key_mac(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	bool dst = w[0] == 'd';
	struct fl_filter *f = fp->f;

	if (parse_masked_mac(tcf_word(ps), dst ? f->key.dst_mac : f->key.src_mac,
			     dst ? f->mask.dst_mac : f->mask.src_mac))
		return bad(ps, dst ? "dst_mac" : "src_mac");
	f->present |= dst ? FLK_DST_MAC : FLK_SRC_MAC;
	return 0;
}

static int key_vlan(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	struct fl_filter *f = fp->f;
	const char *v = tcf_word(ps);
	uint16_t id;
	uint8_t pr;

	if (!strcmp(w, "vlan_ethtype")) {
		if (!is_vlan(fp->eth_type))
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_PARSE,
				"Can't set \"vlan_ethtype\" if ethertype isn't 802.1Q or "
				"802.1AD");
		if (mqtx__tcf_proto_parse(v, &fp->vlan_ethtype))
			return mqtx__tcf_perr(
				ps, MQTX_TC_EXIT_ABORT,
				"Error: argument \"%s\" is wrong: invalid vlan_ethtype", v);
		fp->eth_type = fp->vlan_ethtype;
		f->vlan_ethtype = fp->vlan_ethtype;
		f->present |= FLK_VLAN_ETHTYPE;
		return 0;
	}
	if (!is_vlan(fp->tc_proto))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "Can't set \"%s\" if ethertype isn't 802.1Q or 802.1AD", w);
	if (!strcmp(w, "vlan_id")) {
		if (mqtx__tc_get_u16(v, &id, 10) || id > 0xFFF)
			return bad(ps, w);
		f->key.vlan_id = id;
		f->mask.vlan_id = 0xFFF;
		f->present |= FLK_VLAN_ID;
	} else {
		if (mqtx__tc_get_u8(v, &pr, 10) || pr > 7)
			return bad(ps, w);
		f->key.vlan_prio = pr;
		f->mask.vlan_prio = 7;
		f->present |= FLK_VLAN_PRIO;
	}
	return 0;
}

static int key_ip_proto(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	const char *v = tcf_word(ps);
	uint8_t p;

	(void)w;
	if (fp->eth_type != 0x0800 && fp->eth_type != 0x86DD)
		goto eth_type;
	if (mqtx__tc_matches(v, "tcp"))
		p = 6;
	else if (mqtx__tc_matches(v, "udp"))
		p = 17;
	else if (mqtx__tc_matches(v, "sctp"))
		p = 132;
	else if (mqtx__tc_matches(v, "icmp") && fp->eth_type == 0x0800)
		p = 1;
	else if (mqtx__tc_matches(v, "icmpv6") && fp->eth_type == 0x86DD)
		p = 58;
	else if (mqtx__tc_matches(v, "icmp") || mqtx__tc_matches(v, "icmpv6"))
		goto eth_type;
	else if (mqtx__tc_get_u8(v, &p, 16))
		return bad(ps, "ip_proto");
	fp->ip_proto = p;
	fp->f->key.ip_proto = p;
	fp->f->mask.ip_proto = 0xFF;
	fp->f->present |= FLK_IP_PROTO;
	return 0;
eth_type:
	mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"eth_type\" for ip proto");
	return bad(ps, "ip_proto");
}

/* ip_tos / ip_ttl: VALUE[/MASK], the value in decimal or hex, the mask in hex. */
static int key_tos_ttl(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	bool tos = !strcmp(w, "ip_tos");
	char buf[32], *slash;
	uint8_t v, m = 0xFF;

	if (mqtx__tc_split(tcf_word(ps), buf, sizeof(buf), &slash) ||
	    (mqtx__tc_get_u8(buf, &v, 10) && mqtx__tc_get_u8(buf, &v, 16)) ||
	    (slash && mqtx__tc_get_u8(slash, &m, 16)))
		return bad(ps, w);
	if (tos) {
		fp->f->key.tos = v;
		fp->f->mask.tos = m;
	} else {
		fp->f->key.ttl = v;
		fp->f->mask.ttl = m;
	}
	fp->f->present |= tos ? FLK_TOS : FLK_TTL;
	return 0;
}

static int key_ip(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	bool dst = w[0] == 'd';
	uint8_t addr[16], mask[16];
	struct fl_filter *f = fp->f;
	int want, got;

	if (fp->eth_type == 0x0800)
		want = AF_INET;
	else if (fp->eth_type == 0x86DD)
		want = AF_INET6;
	else
		return bad(ps, w);
	/* get_prefix() of the protocol's family says it, and nothing follows */
	if (parse_prefix(tcf_word(ps), want, &got, addr, mask) || got != want)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "Error: %s prefix is expected rather than \"%s\".",
				      want == AF_INET ? "inet" : "inet6", tcf_word(ps));
	if (got == AF_INET) {
		memcpy(dst ? &f->key.ipv4_dst : &f->key.ipv4_src, addr, 4);
		memcpy(dst ? &f->mask.ipv4_dst : &f->mask.ipv4_src, mask, 4);
	} else {
		memcpy(dst ? f->key.ipv6_dst : f->key.ipv6_src, addr, 16);
		memcpy(dst ? f->mask.ipv6_dst : f->mask.ipv6_src, mask, 16);
	}
	f->present |= dst ? FLK_DST_IP : FLK_SRC_IP;
	return 0;
}

/* flower_parse_port(): PORT, PORT/MASK or MIN-MAX; a port needs tcp, udp or sctp. */
static int key_port(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	bool dst = w[0] == 'd';
	struct fl_filter *f = fp->f;
	char buf[32], *sep;
	uint16_t min = 0, max = 0, mask = 0xFFFF;

	if (fp->ip_proto != 6 && fp->ip_proto != 17 && fp->ip_proto != 132)
		return bad(ps, w);
	if (strlen(tcf_word(ps)) >= sizeof(buf))
		return bad(ps, w);
	strcpy(buf, tcf_word(ps));
	if ((sep = strchr(buf, '-'))) {
		*sep++ = 0;
		if (mqtx__tc_get_u16(buf, &min, 10) || mqtx__tc_get_u16(sep, &max, 10) || !min)
			return bad(ps, w);
		if (max <= min) {
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				       "max value should be greater than min value");
			return bad(ps, w);
		}
		*(dst ? &f->dport_min : &f->sport_min) = min;
		*(dst ? &f->dport_max : &f->sport_max) = max;
		f->present |= dst ? FLK_DST_RANGE : FLK_SRC_RANGE;
		return 0;
	}
	if ((sep = strchr(buf, '/'))) {
		*sep++ = 0;
		if (mqtx__tc_get_u16(buf, &min, 0) || mqtx__tc_get_u16(sep, &mask, 0))
			return bad(ps, w);
	} else if (mqtx__tc_get_u16(buf, &min, 10) || !min) {
		return bad(ps, w);
	}
	*(dst ? &f->key.dport : &f->key.sport) = htons(min);
	*(dst ? &f->mask.dport : &f->mask.sport) = htons(mask);
	f->present |= dst ? FLK_DST_PORT : FLK_SRC_PORT;
	return 0;
}

/* tcp_flags FLAGS[/MASK], both in hex, at most 0xfff. */
static int key_tcp_flags(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	char buf[32], *slash;
	uint16_t v, m = 0xFFF;

	if (mqtx__tc_split(tcf_word(ps), buf, sizeof(buf), &slash) ||
	    mqtx__tc_get_u16(buf, &v, 16) || v > 0xFFF ||
	    (slash && (mqtx__tc_get_u16(slash, &m, 16) || m > 0xFFF)))
		return bad(ps, w);
	fp->f->key.tcp_flags = htons(v);
	fp->f->mask.tcp_flags = htons(m);
	fp->f->present |= FLK_TCP_FLAGS;
	return 0;
}

/* ip_flags [no]frag/[no]firstfrag */
static int key_ip_flags(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	char buf[64], *tok, *save = NULL;

	if (strlen(tcf_word(ps)) >= sizeof(buf))
		return bad(ps, w);
	strcpy(buf, tcf_word(ps));
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		bool no = !strncmp(tok, "no", 2);
		uint8_t bit;

		if (!strcmp(tok + (no ? 2 : 0), "frag"))
			bit = FL_FLAG_FRAG;
		else if (!strcmp(tok + (no ? 2 : 0), "firstfrag"))
			bit = FL_FLAG_FIRSTFRAG;
		else
			return bad(ps, w);
		if (no)
			fp->f->key.ip_flags &= (uint8_t)~bit;
		else
			fp->f->key.ip_flags |= bit;
		fp->f->mask.ip_flags |= bit;
	}
	fp->f->present |= FLK_IP_FLAGS;
	return 0;
}

static int key_classid(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	(void)w;
	if (mqtx__classid_parse(tcf_word(ps), &fp->f->f.classid))
		return bad(ps, "classid");
	return 0;
}

static int key_hw_tc(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	uint32_t tc;

	(void)w;
	if (mqtx__tc_get_u32(tcf_word(ps), &tc, 0))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal TC index");
	if (tc >= 16)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "TC index exceeds max range");
	fp->f->f.classid = (ps->parent & 0xFFFF0000u) | (TC_MIN_PRIORITY + tc);
	return 0;
}

/* Keys tc knows that mqtx's flower does not match: refused, as a kernel without them would. */
static int key_unsupported(struct flp *fp, struct tcf_parse *ps, const char *w)
{
	(void)fp;
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
			      "Error: flower: \"%s\" is not supported (matches: mac addresses, "
			      "one VLAN tag, ip_proto, tos, ttl, addresses, ports, tcp_flags, "
			      "ip_flags).",
			      w);
}

/* ---- the words ---- */

typedef int (*key_fn)(struct flp *fp, struct tcf_parse *ps, const char *w);

/* tc's order, which decides what an abbreviation stands for ("dst" is dst_mac). */
static const struct {
	const char *word;
	key_fn fn; /* NULL: a flag without a value */
} keys[] = {
	{ "classid", key_classid },
	{ "flowid", key_classid },
	{ "hw_tc", key_hw_tc },
	{ "ip_flags", key_ip_flags },
	{ "verbose", NULL },
	{ "skip_hw", NULL },
	{ "skip_sw", NULL },
	{ "ct_state", key_unsupported },
	{ "ct_zone", key_unsupported },
	{ "ct_mark", key_unsupported },
	{ "ct_label", key_unsupported },
	{ "indev", key_unsupported },
	{ "vlan_id", key_vlan },
	{ "vlan_prio", key_vlan },
	{ "vlan_ethtype", key_vlan },
	{ "cvlan_id", key_unsupported },
	{ "cvlan_prio", key_unsupported },
	{ "cvlan_ethtype", key_unsupported },
	{ "mpls", key_unsupported },
	{ "mpls_label", key_unsupported },
	{ "mpls_tc", key_unsupported },
	{ "mpls_bos", key_unsupported },
	{ "mpls_ttl", key_unsupported },
	{ "dst_mac", key_mac },
	{ "src_mac", key_mac },
	{ "ip_proto", key_ip_proto },
	{ "ip_tos", key_tos_ttl },
	{ "ip_ttl", key_tos_ttl },
	{ "dst_ip", key_ip },
	{ "src_ip", key_ip },
	{ "dst_port", key_port },
	{ "src_port", key_port },
	{ "tcp_flags", key_tcp_flags },
	{ "type", key_unsupported },
	{ "code", key_unsupported },
	{ "arp_tip", key_unsupported },
	{ "arp_sip", key_unsupported },
	{ "arp_op", key_unsupported },
	{ "arp_tha", key_unsupported },
	{ "arp_sha", key_unsupported },
	{ "enc_dst_ip", key_unsupported },
	{ "enc_src_ip", key_unsupported },
	{ "enc_key_id", key_unsupported },
	{ "enc_dst_port", key_unsupported },
	{ "enc_tos", key_unsupported },
	{ "enc_ttl", key_unsupported },
	{ "geneve_opts", key_unsupported },
	{ "vxlan_opts", key_unsupported },
	{ "erspan_opts", key_unsupported },
};

static int parse_word(struct flp *fp, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);
	size_t k;
	int err;

	if (mqtx__tc_matches(w, "action")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		err = mqtx__tcf_exts_parse(&fp->f->f.exts, ps);
		return err == -EINVAL ? mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"action\"")
				      : err;
	}
	for (k = 0; k < ARRAY_SIZE(keys); k++)
		if (mqtx__tc_matches(w, keys[k].word))
			break;
	if (k == ARRAY_SIZE(keys) || !strcmp(w, "help")) {
		if (strcmp(w, "help"))
			mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "What is \"%s\"?", w);
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", mqtx__fl_usage);
	}
	if (!keys[k].fn) {
		if (!strcmp(keys[k].word, "skip_sw"))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
					      "Error: flower: \"skip_sw\": there is no hardware to "
					      "offload to.");
		fp->f->skip_hw |= !strcmp(keys[k].word, "skip_hw");
		ps->i++;
		return 0;
	}
	if (mqtx__tcf_next(ps) || keys[k].fn(fp, ps, keys[k].word))
		return -EINVAL;
	ps->i++;
	return 0;
}

/* At parse_done: the protocol is a key too (n_proto), the VLAN's inner one for 802.1Q. */
static void finish(struct flp *fp)
{
	struct fl_filter *f = fp->f;
	uint64_t *k = (uint64_t *)(void *)&f->key;
	const uint64_t *m = (const uint64_t *)(const void *)&f->mask;
	uint16_t n = is_vlan(fp->tc_proto) ? fp->vlan_ethtype : fp->tc_proto;

	if (fp->tc_proto != MQTX_ETH_P_ALL && n) {
		f->key.n_proto = htons(n);
		f->mask.n_proto = 0xFFFF;
		f->present |= FLK_ETH_TYPE;
	}
	f->given = f->key;
	for (unsigned i = 0; i < FL_KEY_WORDS; i++)
		k[i] &= m[i];
}

int mqtx__fl_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out)
{
	struct flp fp = { .tc_proto = ps->protocol, .eth_type = ps->protocol, .ip_proto = 0xFF };
	int err = 0;

	fp.f = (struct fl_filter *)mqtx__tcf_filter_alloc(sizeof(*fp.f), handle);
	if (!fp.f)
		return -ENOMEM;
	while (!err && tcf_word(ps))
		err = parse_word(&fp, ps);
	if (err) {
		mqtx__tcf_filter_free(NULL, &fp.f->f);
		return err;
	}
	finish(&fp);
	*out = &fp.f->f;
	return 0;
}

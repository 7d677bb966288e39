// SPDX-License-Identifier: MIT
/* vlan: take the outer 802.1Q/802.1ad tag off a frame, put one on, rewrite it, or take the
 * Ethernet header off and put another on (Linux's act_vlan.c). mqtx's frames carry their tags
 * in the payload: a push inserts 4 bytes after the MAC addresses, a pop removes them. */
#include <errno.h>
#include <stdio.h>

#include "cls/cls_int.h"
#include "cls/kinds.h"

/* TCA_VLAN_ACT_* */
#define VLAN_POP      1
#define VLAN_PUSH     2
#define VLAN_MODIFY   3
#define VLAN_POP_ETH  4
#define VLAN_PUSH_ETH 5

#define ETH_HLEN       14
#define VLAN_HLEN      4
#define VLAN_VID_MASK  0x0FFFu
#define VLAN_PRIO_MASK 0xE000u
#define ETH_P_8021AD   0x88A8u

#define VLAN_USAGE                                                                              \
	"Usage: vlan pop [CONTROL]\n"                                                           \
	"       vlan push [ protocol VLANPROTO ] id VLANID [ priority VLANPRIO ] [CONTROL]\n"   \
	"       vlan modify [ protocol VLANPROTO ] id VLANID [ priority VLANPRIO ] [CONTROL]\n" \
	"       vlan pop_eth [CONTROL]\n"                                                       \
	"       vlan push_eth dst_mac LLADDR src_mac LLADDR [CONTROL]\n"                        \
	"       VLANPROTO is one of 802.1Q or 802.1AD\n"                                        \
	"            with default: 802.1Q\n"                                                    \
	"       CONTROL := reclassify | pipe | drop | continue | pass |\n"                      \
	"                  goto chain <CHAIN_INDEX>\n"

static const char *const mode_names[] = { "", "pop", "push", "modify", "pop_eth", "push_eth" };

struct vlan {
	int mode;
	uint16_t vid, proto; /* proto: the tag's TPID, host order */
	uint8_t prio;
	bool has_id, has_proto, has_prio, has_dst, has_src;
	uint8_t dst[6], src[6];
	int verdict;
};

static bool is_vlan_proto(uint16_t p)
{
	return p == MQTX_ETH_P_8021Q || p == ETH_P_8021AD;
}

/* ---- data path ---- */

/* Room for @n more bytes at @at: in front if the headroom has it, else by moving the bytes
 * after @at into the tailroom. False when neither has room (Linux's -ENOMEM: a drop). */
static bool open_gap(struct mqtx_pkt *pkt, uint32_t at, uint32_t n)
{
	if (mqtx_pkt_headroom(pkt) >= n) {
		mqtx_pkt_push(pkt, n);
		memmove(pkt->data, pkt->data + n, at);
		return true;
	}
	if (mqtx_pkt_tailroom(pkt) < n)
		return false;
	memmove(pkt->data + at + n, pkt->data + at, pkt->len - at);
	pkt->len += n;
	return true;
}

/* Remove @n bytes at @at: the bytes in front move up (the cheaper side for a header). */
static void close_gap(struct mqtx_pkt *pkt, uint32_t at, uint32_t n)
{
	memmove(pkt->data + n, pkt->data, at);
	mqtx_pkt_pull(pkt, n);
}

static bool tagged(const struct tcf_pkt *pk)
{
	const uint8_t *d = pk->pkt->data;

	return !pk->no_mac && pk->pkt->len >= ETH_HLEN + VLAN_HLEN &&
	       is_vlan_proto((uint16_t)(d[12] << 8 | d[13]));
}

/* skb_vlan_push(): the new tag outermost. */
static bool push_tag(struct tcf_pkt *pk, uint16_t proto, uint16_t tci)
{
	uint8_t *t;

	if (pk->no_mac || pk->pkt->len < ETH_HLEN || !open_gap(pk->pkt, 12, VLAN_HLEN))
		return false;
	t = pk->pkt->data + 12;
	t[0] = (uint8_t)(proto >> 8);
	t[1] = (uint8_t)proto;
	t[2] = (uint8_t)(tci >> 8);
	t[3] = (uint8_t)tci;
	return true;
}

/* skb_eth_pop(): only a plain Ethernet header (its tags popped first). */
static bool pop_eth(struct tcf_pkt *pk)
{
	if (pk->no_mac || pk->pkt->len < ETH_HLEN || is_vlan_proto(pk->proto))
		return false;
	mqtx_pkt_pull(pk->pkt, ETH_HLEN);
	pk->no_mac = true;
	return true;
}

/* skb_eth_push(): only where there is no MAC header; its type is the packet's protocol. */
static bool push_eth(struct tcf_pkt *pk, const struct vlan *v)
{
	uint8_t *h;

	if (!pk->no_mac || !open_gap(pk->pkt, 0, ETH_HLEN))
		return false;
	h = pk->pkt->data;
	memcpy(h, v->dst, 6);
	memcpy(h + 6, v->src, 6);
	h[12] = (uint8_t)(pk->proto >> 8);
	h[13] = (uint8_t)pk->proto;
	pk->no_mac = false;
	return true;
}

static int vlan_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct vlan *v = tcf_act_priv(a);
	uint8_t *t = pk->pkt->data + 12;
	bool ok = true;
	uint16_t tci;

	(void)res;
	switch (v->mode) {
	case VLAN_POP:
		/* skb_vlan_pop(): an untagged frame is left as it is */
		if (tagged(pk))
			close_gap(pk->pkt, 12, VLAN_HLEN);
		break;
	case VLAN_PUSH:
		ok = push_tag(pk, v->proto, (uint16_t)(v->vid | v->prio << 13));
		break;
	case VLAN_MODIFY:
		/* no tag: nothing to modify; the TPID becomes the action's protocol */
		if (!tagged(pk))
			break;
		tci = (uint16_t)(t[2] << 8 | t[3]);
		tci = (uint16_t)((tci & ~VLAN_VID_MASK) | v->vid);
		if (v->has_prio)
			tci = (uint16_t)((tci & ~VLAN_PRIO_MASK) | v->prio << 13);
		t[0] = (uint8_t)(v->proto >> 8);
		t[1] = (uint8_t)v->proto;
		t[2] = (uint8_t)(tci >> 8);
		t[3] = (uint8_t)tci;
		break;
	case VLAN_POP_ETH:
		ok = pop_eth(pk);
		break;
	case VLAN_PUSH_ETH:
		ok = push_eth(pk, v);
		break;
	}
	tcf_pkt_edited(pk);
	if (!ok || v->verdict == MQTX_ACT_SHOT) {
		pk->pkt->drop_reason = MQTX_DROP_FILTER;
		return MQTX_ACT_SHOT;
	}
	return v->verdict;
}

/* ---- control path ---- */

/* tc's invarg(): the message, exit 255. */
static int invarg(struct tcf_parse *ps, const char *why)
{
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT, "Error: argument \"%s\" is wrong: %s",
			      tcf_word(ps), why);
}

/* A message and the usage after it (tc's explain() and return -1). */
static int explain(struct tcf_parse *ps, const char *fmt, const char *arg)
{
	mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, fmt, arg);
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "%s", VLAN_USAGE);
}

static bool has_push_attribs(int mode)
{
	return mode == VLAN_PUSH || mode == VLAN_MODIFY;
}

/* The value of a push/modify option: the mode must take it, and the value follows. */
static int option_value(struct vlan *v, struct tcf_parse *ps, bool push_eth)
{
	if (push_eth ? v->mode != VLAN_PUSH_ETH : !has_push_attribs(v->mode))
		return invarg(ps,
			      push_eth ? "only valid for push_eth" : "only valid for push/modify");
	return mqtx__tcf_next(ps);
}

/* One word of the loop: 0 taken, 1 not vlan's. */
static int parse_word(struct vlan *v, struct tcf_parse *ps)
{
	const char *w = tcf_word(ps);

	for (int m = VLAN_POP; m <= VLAN_PUSH_ETH; m++) {
		if (!mqtx__tc_matches(w, mode_names[m]))
			continue;
		if (v->mode)
			return explain(ps, "unexpected \"%s\" - action already specified", w);
		v->mode = m;
		return 0;
	}
	if (mqtx__tc_matches(w, "id")) {
		if (option_value(v, ps, false))
			return -EINVAL;
		if (mqtx__tc_get_u16(tcf_word(ps), &v->vid, 0))
			return invarg(ps, "id is invalid");
		v->has_id = true;
	} else if (mqtx__tc_matches(w, "protocol")) {
		if (option_value(v, ps, false))
			return -EINVAL;
		if (mqtx__tcf_proto_parse(tcf_word(ps), &v->proto))
			return invarg(ps, "protocol is invalid");
		v->has_proto = true;
	} else if (mqtx__tc_matches(w, "priority")) {
		if (option_value(v, ps, false))
			return -EINVAL;
		if (mqtx__tc_get_u8(tcf_word(ps), &v->prio, 0) || v->prio & ~7)
			return invarg(ps, "prio is invalid");
		v->has_prio = true;
	} else if (mqtx__tc_matches(w, "dst_mac") || mqtx__tc_matches(w, "src_mac")) {
		bool dst = w[0] == 'd';

		if (option_value(v, ps, true))
			return -EINVAL;
		if (mqtx__parse_mac(tcf_word(ps), dst ? v->dst : v->src))
			return invarg(ps, dst ? "dst_mac is invalid" : "src_mac is invalid");
		*(dst ? &v->has_dst : &v->has_src) = true;
	} else if (mqtx__tc_matches(w, "help")) {
		return mqtx__tcf_usage_exit(ps, VLAN_USAGE);
	} else {
		return 1;
	}
	return 0;
}

/* What tc checks once the words are read, then what tcf_vlan_init() refuses. */
static int check(struct vlan *v, struct tcf_parse *ps)
{
	if (has_push_attribs(v->mode) && !v->has_id)
		return explain(ps, "id needs to be set for %s", mode_names[v->mode]);
	if (v->mode == VLAN_PUSH_ETH && (!v->has_dst || !v->has_src))
		return explain(ps,
			       v->has_dst ? "src_mac needs to be set for %s"
					  : "dst_mac needs to be set for %s",
			       mode_names[v->mode]);
	if (has_push_attribs(v->mode) && v->has_proto && !is_vlan_proto(v->proto))
		return explain(ps, "%s", "protocol not supported");
	if (!v->mode)
		return mqtx__tcf_refuse_late(ps,
					     "RTNETLINK answers: Invalid argument (vlan: no pop, "
					     "push, modify, pop_eth or push_eth)");
	if (has_push_attribs(v->mode) && v->vid >= VLAN_VID_MASK)
		return mqtx__tcf_refuse_late(
			ps,
			"RTNETLINK answers: Numerical result out of range (vlan "
			"id %u is above 4094)",
			v->vid);
	if (!has_push_attribs(v->mode))
		return 0;
	if (!v->has_proto)
		v->proto = MQTX_ETH_P_8021Q;
	/* A push always sets the priority (0 unless given); a modify only when given. */
	v->has_prio |= v->mode == VLAN_PUSH;
	return 0;
}

static int vlan_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct vlan *v = tcf_act_priv(a);
	const char *w;
	int rc;

	v->verdict = MQTX_ACT_PIPE;
	while (tcf_word(ps)) {
		rc = parse_word(v, ps);
		if (rc < 0)
			return rc;
		if (rc)
			break;
		ps->i++;
	}
	w = tcf_word(ps);
	if (w && mqtx__tcf_is_control(w) && mqtx__tcf_parse_control(ps, &v->verdict, false))
		return -EINVAL;
	if (mqtx__tcf_act_index(ps, a, "vlan: ", 10) < 0)
		return -EINVAL;
	return check(v, ps);
}

static void vlan_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct vlan *v = tcf_act_priv(a);
	char b[24];

	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "vlan");
	mqtx__out_str(p, OUT_ANY, "vlan_action", " %s", mode_names[v->mode]);
	if (has_push_attribs(v->mode)) {
		mqtx__out_uint(p, OUT_ANY, "id", " id %llu", v->vid);
		mqtx__out_str(p, OUT_ANY, "protocol", " protocol %s",
			      mqtx__tcf_proto_name(v->proto, b, sizeof(b)));
		if (v->has_prio)
			mqtx__out_uint(p, OUT_ANY, "priority", " priority %llu", v->prio);
	} else if (v->mode == VLAN_PUSH_ETH) {
		mqtx__out_str(p, OUT_ANY, "dst_mac", " dst_mac %s",
			      mqtx__mac_fmt(v->dst, b, sizeof(b)));
		mqtx__out_str(p, OUT_ANY, "src_mac", " src_mac %s",
			      mqtx__mac_fmt(v->src, b, sizeof(b)));
	}
	mqtx__tcf_print_control(p, " ", v->verdict, "");
	mqtx__out_nl(p);
	mqtx__tcf_act_dump_index(a, "	 ", p);
	mqtx__out_nl(p);
}

static void vlan_brief(const struct tcf_action *a, char *buf, size_t len)
{
	const struct vlan *v = tcf_act_priv(a);

	if (has_push_attribs(v->mode))
		snprintf(buf, len, "vlan %s id %u", mode_names[v->mode], v->vid);
	else
		snprintf(buf, len, "vlan %s", mode_names[v->mode]);
}

const struct tcf_action_ops mqtx__tcf_vlan_ops = {
	.kind = "vlan",
	.usage = VLAN_USAGE,
	.priv_size = sizeof(struct vlan),
	.parse = vlan_parse,
	.act = vlan_act,
	.dump = vlan_dump,
	.brief = vlan_brief,
};

/* SPDX-License-Identifier: MIT */
/* flower's filter: its key, mask and port ranges, and what the command gave (for its dump). */
#ifndef MQTX_CLS_FLOWER_H
#define MQTX_CLS_FLOWER_H

#include "cls/cls_int.h"

/* What a filter matches on, as given (fl_filter.present). */
#define FLK_DST_MAC	 0x0001u
#define FLK_SRC_MAC	 0x0002u
#define FLK_ETH_TYPE	 0x0004u
#define FLK_VLAN_ID	 0x0008u
#define FLK_VLAN_PRIO	 0x0010u
#define FLK_VLAN_ETHTYPE 0x0020u
#define FLK_IP_PROTO	 0x0040u
#define FLK_TOS		 0x0080u
#define FLK_TTL		 0x0100u
#define FLK_DST_IP	 0x0200u
#define FLK_SRC_IP	 0x0400u
#define FLK_DST_PORT	 0x0800u
#define FLK_SRC_PORT	 0x1000u
#define FLK_TCP_FLAGS	 0x2000u
#define FLK_IP_FLAGS	 0x4000u
#define FLK_SRC_RANGE	 0x8000u /* src_port MIN-MAX */
#define FLK_DST_RANGE	 0x10000u

struct fl_filter {
	struct tcf_filter f;
	struct fl_key key;   /* already masked */
	struct fl_key mask;  /* the ranged ports are not in it */
	struct fl_key given; /* the key as given, unmasked: what tc shows */
	uint16_t sport_min, sport_max, dport_min, dport_max; /* host order */
	uint32_t present;				     /* FLK_* */
	uint16_t vlan_ethtype;				     /* host order */
	bool skip_hw;
};

static inline struct fl_filter *fl_of(const struct tcf_filter *f)
{
	return (struct fl_filter *)f;
}

extern const struct tcf_proto_ops mqtx__tcf_flower_ops;
/* What the ops carry as flower's usage (flower_parse.c). */
extern const char mqtx__fl_usage[];

/* flower_parse.c */
int mqtx__fl_parse(struct tcf_parse *ps, uint32_t handle, struct tcf_filter **out);

/* flower_dump.c */
void mqtx__fl_dump(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p);
/* fl_terse_dump(): the handle, the flags and the actions' kinds (tc -br). */
void mqtx__fl_terse_dump(const struct tcf_proto *tp, const struct tcf_filter *f, struct tc_out *p);

#endif

/* SPDX-License-Identifier: MIT */
/* The built-in classifier and action kinds (kinds.c lists them). */
#ifndef MQTX_CLS_KINDS_H
#define MQTX_CLS_KINDS_H

#include "cls/cls_int.h"

extern const struct tcf_proto_ops mqtx__tcf_matchall_ops;
extern const struct tcf_proto_ops mqtx__tcf_u32_ops;
extern const struct tcf_proto_ops mqtx__tcf_basic_ops;

extern const struct tcf_action_ops mqtx__tcf_gact_ops;
extern const struct tcf_action_ops mqtx__tcf_skbedit_ops;
extern const struct tcf_action_ops mqtx__tcf_police_ops;
extern const struct tcf_action_ops mqtx__tcf_mirred_ops;
extern const struct tcf_action_ops mqtx__tcf_vlan_ops;
extern const struct tcf_action_ops mqtx__tcf_csum_ops;
extern const struct tcf_action_ops mqtx__tcf_skbmod_ops;
extern const struct tcf_action_ops mqtx__tcf_pedit_ops;
extern const struct tcf_action_ops mqtx__tcf_tunnel_key_ops;
extern const struct tcf_action_ops mqtx__tcf_sample_ops;

#endif

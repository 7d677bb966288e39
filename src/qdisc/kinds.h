/* SPDX-License-Identifier: MIT */
/* The built-in qdisc kinds (registry.c lists them; the default attachment names some). */
#ifndef MQTX_QDISC_KINDS_H
#define MQTX_QDISC_KINDS_H

#include <mqtx/qdisc.h>

extern const struct mqtx_qdisc_ops mqtx_noqueue_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_pfifo_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_pfifo_fast_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_bfifo_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_pfifo_head_drop_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_prio_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_tbf_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_htb_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_ets_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_netem_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_codel_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_fq_codel_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_fq_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_taprio_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_ingress_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_clsact_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_mq_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_mqprio_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx_wme_qdisc_ops;

#endif

/* SPDX-License-Identifier: MIT */
/* The built-in qdisc kinds (registry.c lists them; the default attachment names some). */
#ifndef MQTX_QDISC_KINDS_H
#define MQTX_QDISC_KINDS_H

#include <mqtx/qdisc.h>

extern const struct mqtx_qdisc_ops mqtx__noqueue_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__pfifo_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__pfifo_fast_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__bfifo_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__pfifo_head_drop_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__prio_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__tbf_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__htb_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__ets_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__netem_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__codel_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__fq_codel_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__fq_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__taprio_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__ingress_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__clsact_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__mq_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__mqprio_qdisc_ops;
extern const struct mqtx_qdisc_ops mqtx__wme_qdisc_ops;

#endif

/* SPDX-License-Identifier: MIT */
/* Test helper: count frames on an interface's tc hook by skb->queue_mapping. */
#ifndef MQTX_TESTS_KT_BPF_H
#define MQTX_TESTS_KT_BPF_H

#include <stdbool.h>

struct kt_qcount;

/*
 * On @ifname's tc ingress (or egress) hook, count every frame in an array indexed by
 * skb->queue_mapping (for a received frame, its receive queue + 1: skb_record_rx_queue()).
 * Returns the counter or NULL (at most four at a time).
 */
struct kt_qcount *kt_qcount_attach(const char *ifname, bool ingress);
unsigned long long kt_qcount_get(struct kt_qcount *qc, unsigned qm);
void kt_qcount_detach(struct kt_qcount *qc);

#endif

/* SPDX-License-Identifier: MIT */
/* Extended matches for basic: cmp, u32, nbyte, meta and text terms joined by and/or/not and
 * parentheses. */
#ifndef MQTX_CLS_EMATCH_H
#define MQTX_CLS_EMATCH_H

#include "cls/cls_int.h"

struct em_tree;

/* The expression at the current word up to "action", "classid", "flowid" or the end. */
int mqtx__em_parse(struct tcf_parse *ps, struct em_tree **out);
void mqtx__em_free(struct em_tree *tr);
/* Whether the packet matches (its headers located in @pk on the way); a NULL tree matches everything. Lock-free, read-only. */
bool mqtx__em_match(const struct em_tree *tr, struct tcf_pkt *pk);
/* print_ematch(): "\n  meta(priority eq 5) AND ..." */
void mqtx__em_dump(const struct em_tree *tr, struct tc_out *p);

#endif

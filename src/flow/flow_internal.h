/* SPDX-License-Identifier: MIT */
/* Flow layer internals shared by the Toeplitz tables and the hasher. */
#ifndef MQTX_FLOW_INTERNAL_H
#define MQTX_FLOW_INTERNAL_H

#include <mqtx/flow.h>

#include "base/internal.h"

/* The longest Toeplitz input: IPv6 source and destination plus two ports. */
#define MQTX__TOEPLITZ_MAX_IN  36
#define MQTX__TOEPLITZ_KEY_LEN 40

/*
 * mqtx__toeplitz_tables() - fill tbl[pos][byte] with the hash contribution of @byte at input
 * position @pos under @key (MQTX__TOEPLITZ_KEY_LEN bytes), for pos < MQTX__TOEPLITZ_MAX_IN.
 * The hash of an input is then the XOR of one lookup per byte.
 */
void mqtx__toeplitz_tables(uint32_t (*tbl)[256], const uint8_t *key);

#endif

/* SPDX-License-Identifier: MIT */
/* The tc language, internals: how a word is matched and how each kind of value is read and
 * spelled, as iproute2's tc (lib/utils.c, tc/tc_util.c, lib/ll_addr.c) does it. Every layer
 * above reads and writes tc's words through this folder; its public half is <mqtx/tc.h>. */
#ifndef MQTX_TC_TC_H
#define MQTX_TC_TC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mqtx/tc.h>

/* ---- words (values.c) ---- */

/** mqtx__tc_matches() - tc's matches(): @word is a non-empty prefix of @full ("ad" is add). */
bool mqtx__tc_matches(const char *word, const char *full);

/**
 * mqtx__tc_get_u32() / _u16() / _u8() - tc's get_u32() and friends: strtoul in @base (0: "0x"
 * hex, leading "0" octal), the whole word, no '-', within the type.
 * Return: 0, or -EINVAL.
 */
int mqtx__tc_get_u32(const char *s, uint32_t *v, int base);
int mqtx__tc_get_u16(const char *s, uint16_t *v, int base);
int mqtx__tc_get_u8(const char *s, uint8_t *v, int base);

/** mqtx__parse_u64() - a decimal or 0x number (no sign). Return 0 or -EINVAL. */
int mqtx__parse_u64(const char *s, uint64_t *v);

/**
 * mqtx__parse_rate() - a tc rate (mqtx_tc_parse_rate_bits(): "10mbit", "125kbps", a bare
 * number of bits) into *@bps, or a packet rate ("1000pps", "2kpps", "1mpps") into *@pps; the
 * other is 0. Return: 0, or -EINVAL (malformed, zero, above 1 Pbit/s or 1e15 pps).
 */
int mqtx__parse_rate(const char *s, uint64_t *bps, uint64_t *pps);

/** mqtx__parse_ipv4_range() - "A" or "A-B" (host order, A <= B). */
int mqtx__parse_ipv4_range(const char *s, uint32_t *lo, uint32_t *hi);

/**
 * mqtx__parse_ipv6_range() - "A" or "A-B" (IPv6, A <= B): @base gets A, *@lo and *@hi the last
 * 32 bits of A and B. Return: 0, -EINVAL, or -ERANGE (A and B differ in the first 96 bits).
 */
int mqtx__parse_ipv6_range(const char *s, uint8_t base[16], uint32_t *lo, uint32_t *hi);

/** mqtx__parse_port_range() - "P" or "P-Q" (P <= Q). */
int mqtx__parse_port_range(const char *s, uint16_t *lo, uint16_t *hi);

/**
 * mqtx__parse_mac() - a link-layer address as tc's ll_addr_a2n() reads one: six hex numbers
 * (each at most ff, "0x" allowed) separated by ':' ("02:00:00:00:00:01", "2:0:0:0:0:1").
 * Return: 0, or -EINVAL.
 */
int mqtx__parse_mac(const char *s, uint8_t mac[6]);

/* ---- handles and class ids (handle.c) ---- */

/**
 * mqtx__handle_parse() - a qdisc handle as tc(8) reads it: a hex major as strtoul() takes it
 * ("1:", "8001", "0x10:", "ffff:"), what follows a ':' ignored ("1:2" is 1:); "none" is 0.
 * Return: 0, or -EINVAL (no digits, anything but ':' after them, major above ffff).
 */
int mqtx__handle_parse(const char *s, uint32_t *h);

/**
 * mqtx__classid_parse() - a class id: "root", "none", "X:Y", "X:", ":Y" or "X", each number
 * hex as strtoul() takes it ("0x1:0x3"). Return: 0, or -EINVAL.
 */
int mqtx__classid_parse(const char *s, uint32_t *h);

/** mqtx__classid_fmt() - tc's spelling of @h ("root", "1:", ":4", "1:a"); returns @buf. */
const char *mqtx__classid_fmt(uint32_t h, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* flower's key: the fields of a frame its filters match, one fixed layout for masks too. */
#ifndef MQTX_CLS_FLOWER_KEY_H
#define MQTX_CLS_FLOWER_KEY_H

#include <stdint.h>

#include <mqtx/pkt.h>

/* fl_key.ip_flags, as Linux's TCA_FLOWER_KEY_FLAGS_* */
#define FL_FLAG_FRAG	  0x1u /* an IP fragment */
#define FL_FLAG_FIRSTFRAG 0x2u /* its first fragment */

/*
 * Wire order (network byte order) for everything read from the frame, but @vlan_id (host
 * order). A mask is the same struct with the bits a filter compares set; the layout is 9
 * 64-bit words, so a masked compare and a hash run word by word.
 */
struct fl_key {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint16_t n_proto; /* the ethertype after every VLAN tag */
	uint16_t vlan_id; /* the outer tag's id */
	uint8_t vlan_prio;
	uint8_t ip_proto;
	uint8_t tos; /* IPv4 TOS, IPv6 traffic class */
	uint8_t ttl; /* IPv4 TTL, IPv6 hop limit */
	uint8_t ip_flags;
	uint8_t pad0;
	uint16_t tcp_flags; /* the low 12 bits of the word after the TCP header's ack number */
	uint16_t sport, dport;
	uint8_t pad1[4];
	uint32_t ipv4_src, ipv4_dst;
	uint8_t ipv6_src[16], ipv6_dst[16];
} __attribute__((aligned(8)));

#define FL_KEY_WORDS (sizeof(struct fl_key) / sizeof(uint64_t))

_Static_assert(sizeof(struct fl_key) == 72, "flower's key is 9 words");

/* Fill @k from @pkt's frame (flower.c): zero where the frame has no such header. */
void mqtx__fl_key_extract(const struct mqtx_pkt *pkt, struct fl_key *k);

#endif

/* SPDX-License-Identifier: MIT */
/* mqtx flow layer: a bounds-checked packet dissector and the TX flow hashes (jhash, Toeplitz). */
#ifndef MQTX_FLOW_H
#define MQTX_FLOW_H

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags in struct mqtx_flow_keys.flags. */
#define MQTX_FLOW_F_IPV4  0x01 /* addrs.v4 valid */
#define MQTX_FLOW_F_IPV6  0x02 /* addrs.v6 valid */
#define MQTX_FLOW_F_PORTS 0x04 /* sport/dport valid: TCP, UDP, UDP-Lite, SCTP, DCCP; never FRAG */
#define MQTX_FLOW_F_FRAG  0x08 /* an IP fragment: never has ports */
#define MQTX_FLOW_F_TRUNC 0x10 /* a header the dissector wanted was cut short or malformed */

/**
 * struct mqtx_flow_keys - what the dissector found, every field from a header fully inside
 * the frame. Addresses and ports are kept in network byte order, exactly as on the wire.
 * @n_proto: the L3 ethertype after all VLAN tags, host order (0x0800, 0x86dd, ...), 0 if none.
 * @ip_proto: the L4 protocol number (after IPv6 extension headers), 0 if none or if the IPv6
 *            extension chain could not be walked to its end. For a non-first fragment it is the
 *            protocol the IPv4 header or IPv6 fragment header names.
 * @flags: MQTX_FLOW_F_*.
 * @vlan_depth: number of 802.1Q/802.1ad tags seen (at most 2 are recorded).
 * @vlan_id: the VLAN IDs (host order, 12 bits), outermost first.
 * @l3_off: byte offset of the header @n_proto names; set together with @n_proto, else 0.
 * @l4_off: byte offset of the transport header, set when the IP header (and the IPv6 extension
 *          chain) is complete and the packet is not a non-first fragment, else 0. The transport
 *          header itself may still be cut short (then F_TRUNC without F_PORTS).
 * Both offsets are always <= the frame length.
 */
struct mqtx_flow_keys {
	uint16_t n_proto;
	uint8_t ip_proto;
	uint8_t flags;
	uint8_t vlan_depth;
	uint16_t vlan_id[2];
	uint16_t l3_off;
	uint16_t l4_off;
	union {
		struct {
			uint32_t src, dst;
		} v4;
		struct {
			uint8_t src[16], dst[16];
		} v6;
	} addrs;
	uint16_t sport, dport;
};

/**
 * mqtx_flow_dissect() - parse an Ethernet frame into @keys.
 * @frame: the frame, starting at the destination MAC.
 * @len: its length in bytes.
 * @keys: filled in (zeroed first).
 *
 * Understands Ethernet II, 802.1Q (0x8100) and 802.1ad (0x88a8) tags stacked up to 8 deep
 * (more is treated as non-IP), IPv4 with options, IPv6 with up to 8 hop-by-hop, routing,
 * destination-options, fragment and AH extension headers, and the ports of TCP, UDP, UDP-Lite,
 * SCTP and DCCP. Ports count only once the protocol's fixed header (TCP 20, UDP/UDP-Lite 8,
 * SCTP/DCCP 12 bytes) is in the frame.
 *
 * Fragments: an IPv4 packet with MF or a non-zero offset, or an IPv6 packet whose fragment
 * header has M or a non-zero offset, gets MQTX_FLOW_F_FRAG and never ports, not even the first
 * fragment (as simple_tx_hash: every fragment of a datagram hashes alike). An IPv6 atomic
 * fragment (offset 0, M clear) is not a fragment.
 *
 * Never reads outside [frame, frame + len): a truncated or malformed header stops the walk,
 * keeps what was valid before it and sets MQTX_FLOW_F_TRUNC. The IP total/payload length is not
 * checked against @len (Ethernet padding makes frames longer than their packets).
 *
 * Return: 0 when an IPv4 or IPv6 header was found, -ENOENT for a frame without one (non-IP,
 * or too short or malformed to hold a valid IP header: wrong version, IHL < 5, IHL beyond the
 * frame), -EINVAL if @frame or @keys is NULL.
 */
MQTX_API int mqtx_flow_dissect(const void *frame, size_t len, struct mqtx_flow_keys *keys);

/* Jenkins lookup3 as Linux's jhash.h defines it (JHASH_INITVAL 0xdeadbeef). */
#define MQTX_JHASH_INITVAL 0xdeadbeefu

/**
 * mqtx_jhash() - lookup3 hashlittle() over @len bytes with @initval (Linux jhash()).
 * Reads the key as little-endian 32-bit words on every host, so results are portable.
 */
MQTX_API uint32_t mqtx_jhash(const void *key, size_t len, uint32_t initval);

/** mqtx_jhash_3words() - Linux jhash_3words(): only the final mix over a, b, c. */
MQTX_API uint32_t mqtx_jhash_3words(uint32_t a, uint32_t b, uint32_t c, uint32_t initval);

/**
 * mqtx_toeplitz() - the Microsoft RSS Toeplitz hash of @data under @key.
 * @key: the secret key; @key_len must be at least @len + 4 bytes.
 * @data: the input, fields in network byte order (source before destination).
 * This is the bitwise reference; a hasher uses precomputed per-byte tables instead.
 * Return: the 32-bit hash, or 0 if @key_len is too short or @key/@data is NULL.
 */
MQTX_API uint32_t mqtx_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *data,
				size_t len);

/** The Microsoft RSS default 40-byte key, and the symmetric key (0x6d5a repeated). */
MQTX_API extern const uint8_t mqtx_rss_default_key[40];
MQTX_API extern const uint8_t mqtx_rss_symmetric_key[40];

/** Hash algorithms a device can use to spread flows over its TX queues. */
enum mqtx_hash_algo {
	MQTX_HASH_JHASH = 0,	/* simple_tx_hash: jhash_3words(saddr, daddr, ports, seed) */
	MQTX_HASH_TOEPLITZ,	/* RSS: 2-tuple, or 4-tuple when ports are present and l4 set */
	MQTX_HASH_TOEPLITZ_SYM, /* RSS with the symmetric key: A->B and B->A hash alike */
	MQTX_HASH_CALLBACK,	/* the user's function */
};

/**
 * mqtx_hash_fn - a user hash. Return true and set *@hash for a hashable frame, false to send
 * the frame to queue 0. @keys holds the dissection (may be incomplete for odd frames).
 */
typedef bool (*mqtx_hash_fn)(const void *frame, size_t len, const struct mqtx_flow_keys *keys,
			     uint32_t *hash, void *arg);

/**
 * struct mqtx_hash_cfg - how a device hashes flows.
 * @algo: the algorithm.
 * @seed: jhash initval (per device; set it for reproducible runs).
 * @key, @key_len: Toeplitz key; @key_len 0 selects the default key (TOEPLITZ) or the
 *                 symmetric key (TOEPLITZ_SYM). Non-zero lengths must be 40 (enough for the
 *                 IPv6 4-tuple) for every algorithm; a given key with TOEPLITZ_SYM must itself
 *                 be symmetric (one 16-bit value repeated: key[i] == key[i - 2]), else -EINVAL.
 * @l4: Toeplitz: include the ports (4-tuple) when the frame has them; else 2-tuple only.
 * @fn, @arg: the callback for MQTX_HASH_CALLBACK (required there, ignored elsewhere).
 */
struct mqtx_hash_cfg {
	enum mqtx_hash_algo algo;
	uint32_t seed;
	uint8_t key[40];
	uint8_t key_len;
	bool l4;
	mqtx_hash_fn fn;
	void *arg;
};

struct mqtx_hasher;

/**
 * mqtx_hasher_new() - build a hasher (precomputed tables) for @cfg.
 * Return: 0 and *@out, or -EINVAL (unknown algo, bad key length, non-symmetric key for
 * TOEPLITZ_SYM, CALLBACK without fn), -ENOMEM.
 */
MQTX_API int mqtx_hasher_new(const struct mqtx_hash_cfg *cfg, struct mqtx_hasher **out);

/** mqtx_hasher_free() - release a hasher; NULL is allowed. */
MQTX_API void mqtx_hasher_free(struct mqtx_hasher *h);

/** mqtx_hasher_cfg() - the configuration a hasher was built from. */
MQTX_API const struct mqtx_hash_cfg *mqtx_hasher_cfg(const struct mqtx_hasher *h);

/**
 * mqtx_hasher_hash() - hash one frame.
 * @keys: optional; receives the dissection.
 *
 * JHASH is jhash_3words(saddr, daddr, ports, seed) as simple_tx_hash computed it: each IPv4
 * address is its four wire bytes loaded as a native u32 (what reading ip_hdr(skb)->saddr did),
 * IPv6 uses the last 32-bit word of each address loaded the same way, and ports is the first
 * 32-bit word of the transport header loaded natively, or 0 without ports (fragments, other
 * protocols; unlike simple_tx_hash, ESP and AH SPIs are not used). The value therefore depends
 * on host byte order, as it did in the kernel.
 * TOEPLITZ hashes source ‖ destination address (‖ source ‖ destination port when the frame
 * has ports and cfg->l4 is set) in network order. CALLBACK calls cfg->fn for every frame, IP or
 * not. No allocation and no division.
 *
 * Return: true with *@hash set for an IP frame, false for a frame that goes to queue 0 (non-IP,
 * NULL @h, @frame or @hash, or the callback said so).
 */
MQTX_API bool mqtx_hasher_hash(const struct mqtx_hasher *h, const void *frame, size_t len,
			       uint32_t *hash, struct mqtx_flow_keys *keys);

/**
 * mqtx_hasher_hash_keys() - the same from keys already dissected (no frame access).
 * A CALLBACK hasher's fn is called with a NULL frame and length 0.
 * Return: as mqtx_hasher_hash(); false when @k has neither MQTX_FLOW_F_IPV4 nor _IPV6.
 */
MQTX_API bool mqtx_hasher_hash_keys(const struct mqtx_hasher *h, const struct mqtx_flow_keys *k,
				    uint32_t *hash);

/** mqtx_reciprocal_scale() - map a 32-bit hash onto [0, n) as Linux does: (hash * n) >> 32. */
static inline uint32_t mqtx_reciprocal_scale(uint32_t hash, uint32_t n)
{
	return (uint32_t)(((uint64_t)hash * n) >> 32);
}

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: MIT
// Linux cooked captures (tcpdump -i any: DLT_LINUX_SLL, DLT_LINUX_SLL2) as Ethernet frames.
#include <net/ethernet.h>
#include <pcap/pcap.h>
#include <pcap/sll.h>
#include <string.h>

#include "gen/gen.h"

#define ETHERTYPE_MIN 0x0600 /* below: an 802.3 length (Linux's ETH_P_802_3_MIN) */

/* The fields of either cooked header that an Ethernet header is made from. */
struct cooked {
	uint16_t protocol, halen;
	uint8_t pkttype;
	const uint8_t *addr;
	size_t hdr_len;
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* libpcap's own header layouts (<pcap/sll.h>), read field by field: a record's data is not
 * aligned for a struct. */
static bool cooked_header(int dlt, const uint8_t *d, uint32_t caplen, struct cooked *c)
{
	if (dlt == DLT_LINUX_SLL) {
		if (caplen < SLL_HDR_LEN)
			return false;
		c->pkttype = (uint8_t)be16(d + offsetof(struct sll_header, sll_pkttype));
		c->halen = be16(d + offsetof(struct sll_header, sll_halen));
		c->addr = d + offsetof(struct sll_header, sll_addr);
		c->protocol = be16(d + offsetof(struct sll_header, sll_protocol));
		c->hdr_len = SLL_HDR_LEN;
		return true;
	}
	if (caplen < SLL2_HDR_LEN)
		return false;
	c->protocol = be16(d + offsetof(struct sll2_header, sll2_protocol));
	c->pkttype = d[offsetof(struct sll2_header, sll2_pkttype)];
	c->halen = d[offsetof(struct sll2_header, sll2_halen)];
	c->addr = d + offsetof(struct sll2_header, sll2_addr);
	c->hdr_len = SLL2_HDR_LEN;
	return true;
}

/* The group address an IPv4 (RFC 1112) or IPv6 (RFC 2464) multicast destination maps to. */
static bool multicast_mac(uint16_t proto, const uint8_t *l3, size_t len, uint8_t mac[6])
{
	if (proto == ETHERTYPE_IP && len >= 20 && (l3[16] & 0xf0) == 0xe0) {
		memcpy(mac, (const uint8_t[]){ 0x01, 0x00, 0x5e, l3[17] & 0x7f, l3[18], l3[19] },
		       6);
		return true;
	}
	if (proto == ETHERTYPE_IPV6 && len >= 40 && l3[24] == 0xff) {
		memcpy(mac, (const uint8_t[]){ 0x33, 0x33, l3[36], l3[37], l3[38], l3[39] }, 6);
		return true;
	}
	return false;
}

long mqtx__cooked_len(int dlt, const uint8_t *data, uint32_t caplen, uint16_t *ethertype)
{
	struct cooked c;

	if (dlt == DLT_EN10MB) {
		if (caplen < ETHER_HDR_LEN)
			return -1;
		*ethertype = be16(data + 12);
		return caplen;
	}
	if (!cooked_header(dlt, data, caplen, &c))
		return -1;
	/* An EtherType, or 802.3 (Novell's raw IPX) and 802.2 (LLC) frames, whose Ethernet
	 * header holds their length; any other protocol (CAN, ...) has no Ethernet form. */
	if (c.protocol < ETHERTYPE_MIN && c.protocol != LINUX_SLL_P_802_3 &&
	    c.protocol != LINUX_SLL_P_802_2)
		return -1;
	*ethertype = c.protocol < ETHERTYPE_MIN ? 0 : c.protocol;
	return (long)(caplen - c.hdr_len + ETHER_HDR_LEN);
}

void mqtx__cooked_to_eth(int dlt, const uint8_t *data, uint32_t caplen,
			 const struct mqtx_replay_cfg *cfg, uint8_t *out, size_t len)
{
	const uint8_t *l3;
	struct cooked c;
	size_t l3len;

	if (dlt == DLT_EN10MB || !cooked_header(dlt, data, caplen, &c)) {
		memcpy(out, data, len); /* (a cooked record here was accepted by the length) */
		return;
	}
	l3 = data + c.hdr_len;
	l3len = len - ETHER_HDR_LEN; /* what fits: the frame may be cut to the MTU */
	if (cfg->has_dmac)
		memcpy(out, cfg->dmac, 6);
	else if (c.pkttype == LINUX_SLL_BROADCAST)
		memset(out, 0xff, 6);
	else if (!multicast_mac(c.protocol, l3, caplen - c.hdr_len, out))
		memset(out, 0, 6); /* tcprewrite --dlt enet's destination without --enet-dmac */
	if (cfg->has_smac)
		memcpy(out + 6, cfg->smac, 6);
	else if (c.halen == 6)
		memcpy(out + 6, c.addr, 6);
	else
		memset(out + 6, 0, 6);
	if (c.protocol < ETHERTYPE_MIN) { /* 802.3: the length of what follows */
		out[12] = (uint8_t)((caplen - c.hdr_len) >> 8);
		out[13] = (uint8_t)(caplen - c.hdr_len);
	} else {
		out[12] = (uint8_t)(c.protocol >> 8);
		out[13] = (uint8_t)c.protocol;
	}
	memcpy(out + ETHER_HDR_LEN, l3, l3len);
}

// SPDX-License-Identifier: MIT
// Edits of a replayed frame: tcpreplay's --unique-ip (addresses moved each pass, checksums kept
// as they were) and --fixcsum (IPv4, TCP and UDP checksums recomputed); the RFC 1071 sums.
#include <netinet/in.h>
#include <string.h>

#include "gen/gen.h"

uint32_t mqtx__csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

uint16_t mqtx__csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* Where a frame's IP header, its L4 header and their lengths are: what both edits need. */
struct ipf {
	uint8_t *ip, *l4;
	size_t iplen, l4len; /* header; L4 bytes the frame holds (and its IP length says) */
	uint8_t proto;
	bool v6, whole; /* @whole: the L4 segment is all here (not a fragment, not cut) */
};

/* The IP packet of Ethernet frame @f (VLAN tags skipped; IPv6 without extension headers, as
 * their L4 header is then next). False when it has none. */
static bool ip_of(uint8_t *f, size_t len, struct ipf *x)
{
	size_t off = 12, total;
	uint16_t type;

	while (off + 2 <= len && ((type = get16(f + off)) == 0x8100 || type == 0x88a8))
		off += 4;
	if (off + 2 > len)
		return false;
	type = get16(f + off);
	off += 2;
	x->ip = f + off;
	len -= off;
	if (type == 0x0800 && len >= 20 && x->ip[0] >> 4 == 4) {
		x->v6 = false;
		x->iplen = (size_t)(x->ip[0] & 15) * 4;
		total = get16(x->ip + 2);
		x->proto = x->ip[9];
		x->whole = !(get16(x->ip + 6) & 0x3fff); /* no MF, no offset */
	} else if (type == 0x86dd && len >= 40 && x->ip[0] >> 4 == 6) {
		x->v6 = true;
		x->iplen = 40;
		total = 40 + (size_t)get16(x->ip + 4);
		x->proto = x->ip[6];
		x->whole = true;
	} else {
		return false;
	}
	if (x->iplen < 20 || x->iplen > len || total < x->iplen)
		return false;
	x->whole = x->whole && total <= len;
	x->l4 = x->ip + x->iplen;
	x->l4len = (total <= len ? total : len) - x->iplen;
	return true;
}

/* The offset of the L4 checksum of @x, or 0 when it has none mqtx keeps (TCP, UDP). */
static size_t l4_csum_at(const struct ipf *x)
{
	if (x->proto == IPPROTO_TCP && x->l4len >= 20)
		return 16;
	if (x->proto == IPPROTO_UDP && x->l4len >= 8)
		return 6;
	return 0;
}

/* RFC 1624 (eqn. 3): the checksum at @c after a 32-bit word went from @from to @to. */
static void csum_update32(uint8_t *c, uint32_t from, uint32_t to)
{
	uint32_t sum = (uint16_t)~get16(c);

	sum += (uint16_t) ~(from >> 16) + (uint16_t)~from;
	sum += (to >> 16) + (to & 0xffff);
	mqtx__put16(c, mqtx__csum_fold(sum));
}

void mqtx__frame_unique_ip(uint8_t *f, size_t len, uint32_t pass)
{
	struct ipf x;
	uint8_t *src, *dst;
	uint32_t s, d;
	size_t c;

	if (!pass || !ip_of(f, len, &x))
		return;
	/* The last 32 bits of each address: the source up by the pass, the destination down,
	 * so that flows of one pass differ from those of every other. */
	src = x.v6 ? x.ip + 20 : x.ip + 12;
	dst = x.v6 ? x.ip + 36 : x.ip + 16;
	s = get32(src);
	d = get32(dst);
	mqtx__put32(src, s + pass);
	mqtx__put32(dst, d - pass);
	if (!x.v6) {
		csum_update32(x.ip + 10, s, s + pass);
		csum_update32(x.ip + 10, d, d - pass);
	}
	/* The pseudo-header holds the addresses: the L4 checksum follows them, unless UDP over
	 * IPv4 sent none (zero). */
	c = l4_csum_at(&x);
	if (c && (x.proto != IPPROTO_UDP || x.v6 || get16(x.l4 + c))) {
		csum_update32(x.l4 + c, s, s + pass);
		csum_update32(x.l4 + c, d, d - pass);
	}
}

void mqtx__frame_fixcsum(uint8_t *f, size_t len)
{
	struct ipf x;
	uint32_t sum;
	size_t c;

	if (!ip_of(f, len, &x))
		return;
	if (!x.v6) {
		mqtx__put16(x.ip + 10, 0);
		mqtx__put16(x.ip + 10, mqtx__csum_fold(mqtx__csum_add(0, x.ip, x.iplen)));
	}
	c = l4_csum_at(&x);
	if (!c || !x.whole)
		return; /* a fragment or a cut frame: its sum covers bytes that are not here */
	sum = mqtx__csum_add(0, x.ip + (x.v6 ? 8 : 12), x.v6 ? 32 : 8) + x.proto +
	      (uint32_t)x.l4len;
	mqtx__put16(x.l4 + c, 0);
	sum = mqtx__csum_fold(mqtx__csum_add(sum, x.l4, x.l4len));
	if (x.proto == IPPROTO_UDP && !sum)
		sum = 0xffff; /* zero means "no checksum" (RFC 768) */
	mqtx__put16(x.l4 + c, (uint16_t)sum);
}

// SPDX-License-Identifier: MIT
/* 802.1d classification of Ethernet frames (cfg80211_classify8021d() in net/wireless/util.c,
 * and the 2008 classify_1d() of net/mac80211/wme.c), the QoS Map, AC names and lists. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wme/wme_int.h"

#define ETH_P_IPV4    0x0800
#define ETH_P_IPV6    0x86DD
#define ETH_P_8021Q   0x8100
#define ETH_P_8021AD  0x88A8
#define ETH_P_MPLS_UC 0x8847
#define ETH_P_MPLS_MC 0x8848
#define ETH_HLEN      14

static const char *const ac_names[MQTX_WME_NUM_AC] = { "VO", "VI", "BE", "BK" };

const char *mqtx_wme_ac_name(enum mqtx_wme_ac ac)
{
	return (unsigned)ac < MQTX_WME_NUM_AC ? ac_names[ac] : "?";
}

int mqtx_wme_ac_parse(const char *s)
{
	if (!s)
		return -EINVAL;
	if (!strncasecmp(s, "ac_", 3))
		s += 3;
	for (int ac = 0; ac < MQTX_WME_NUM_AC; ac++)
		if (!strcasecmp(s, ac_names[ac]))
			return ac;
	return -EINVAL;
}

int mqtx_wme_acm_parse(const char *list, uint8_t *ac_mask, struct mqtx_extack *ack)
{
	char buf[64], *save = NULL;
	uint8_t mask = 0;

	if (!list || !*list || strlen(list) >= sizeof(buf))
		return mqtx_extack_set(ack, "ACM list \"%s\" is not a list of ACs (vo,vi,be,bk)",
				       list ? list : "");
	if (!strcasecmp(list, "none")) {
		*ac_mask = 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int ac = mqtx_wme_ac_parse(t);

		if (ac < 0)
			return mqtx_extack_set(ack,
					       "unknown access category \"%s\" in \"%s\" "
					       "(vo, vi, be, bk)",
					       t, list);
		mask |= (uint8_t)(1u << ac);
	}
	*ac_mask = mask;
	return 0;
}

int mqtx_wme_mac_parse(const char *s, uint8_t addr[6], struct mqtx_extack *ack)
{
	unsigned v[6];
	char end;

	if (!s || strlen(s) != 17 ||
	    (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		    &end) != 6 &&
	     sscanf(s, "%2x-%2x-%2x-%2x-%2x-%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		    &end) != 6))
		return mqtx_extack_set(ack, "\"%s\" is not a MAC address (xx:xx:xx:xx:xx:xx)",
				       s ? s : "");
	for (unsigned i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)s[3 * i]) || !isxdigit((unsigned char)s[3 * i + 1]))
			return mqtx_extack_set(ack, "\"%s\" is not a MAC address", s);
		addr[i] = (uint8_t)v[i];
	}
	return 0;
}

const char *mqtx_wme_mac_format(const uint8_t a[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
	return buf;
}

/* ---- the QoS Map ---- */

int mqtx_wme_qos_map_check(const struct mqtx_wme_qos_map *m, struct mqtx_extack *ack)
{
	if (m->num_except > MQTX_WME_QOS_MAP_MAX_EXCEPT)
		return mqtx_extack_set(ack, "QoS map: %u DSCP exceptions, at most %u",
				       m->num_except, MQTX_WME_QOS_MAP_MAX_EXCEPT);
	for (unsigned i = 0; i < m->num_except; i++) {
		if (m->except[i].dscp > 63 || m->except[i].up > 7)
			return mqtx_extack_set(ack,
					       "QoS map: exception %u (dscp %u up %u): "
					       "DSCP is 0..63 and UP 0..7",
					       i + 1, m->except[i].dscp, m->except[i].up);
		for (unsigned j = 0; j < i; j++)
			if (m->except[j].dscp == m->except[i].dscp)
				return mqtx_extack_set(ack, "QoS map: DSCP %u has two exceptions",
						       m->except[i].dscp);
	}
	for (unsigned u = 0; u < MQTX_WME_NUM_UP; u++) {
		unsigned lo = m->range[u].low, hi = m->range[u].high;

		if (lo == MQTX_WME_DSCP_UNUSED && hi == MQTX_WME_DSCP_UNUSED)
			continue;
		if (lo > 63 || hi > 63)
			return mqtx_extack_set(ack,
					       "QoS map: range of UP %u (%u,%u): bounds are "
					       "0..63, or both 255 for none",
					       u, lo, hi);
		if (lo > hi)
			return mqtx_extack_set(ack,
					       "QoS map: range of UP %u (%u,%u) is out of "
					       "order: low above high",
					       u, lo, hi);
		for (unsigned v = 0; v < u; v++) {
			unsigned l2 = m->range[v].low, h2 = m->range[v].high;

			if (l2 != MQTX_WME_DSCP_UNUSED && lo <= h2 && l2 <= hi)
				return mqtx_extack_set(ack,
						       "QoS map: ranges of UP %u (%u,%u) and "
						       "UP %u (%u,%u) overlap",
						       v, l2, h2, u, lo, hi);
		}
	}
	return 0;
}

int mqtx_wme_qos_map_parse(const char *s, struct mqtx_wme_qos_map *m, struct mqtx_extack *ack)
{
	unsigned v[2 * MQTX_WME_QOS_MAP_MAX_EXCEPT + 16], n = 0;
	struct mqtx_wme_qos_map r;
	const char *p = s;

	if (!s || !*s)
		return mqtx_extack_set(ack, "QoS map is empty: DSCP,UP exceptions then 8 "
					    "low,high ranges");
	for (;;) {
		char *end;
		unsigned long x;

		if (n == sizeof(v) / sizeof(v[0]))
			return mqtx_extack_set(ack,
					       "QoS map \"%s\": too many numbers (at most %u "
					       "exceptions and 8 ranges)",
					       s, MQTX_WME_QOS_MAP_MAX_EXCEPT);
		if (!isdigit((unsigned char)*p))
			return mqtx_extack_set(ack, "QoS map: \"%.16s\" is not a number", p);
		x = strtoul(p, &end, 10);
		if (x > 255)
			return mqtx_extack_set(ack, "QoS map: %lu is above 255", x);
		v[n++] = (unsigned)x;
		p = end;
		if (!*p)
			break;
		if (*p++ != ',')
			return mqtx_extack_set(ack,
					       "QoS map: \"%.16s\": numbers are separated by "
					       "commas",
					       p - 1);
	}
	if (n < 16 || (n - 16) % 2)
		return mqtx_extack_set(ack,
				       "QoS map \"%s\": %u numbers; want DSCP,UP pairs then "
				       "8 low,high ranges (16 numbers)",
				       s, n);
	memset(&r, 0, sizeof(r));
	r.num_except = (uint8_t)((n - 16) / 2);
	for (unsigned i = 0; i < r.num_except; i++) {
		r.except[i].dscp = (uint8_t)v[2 * i];
		r.except[i].up = (uint8_t)v[2 * i + 1];
	}
	for (unsigned u = 0; u < MQTX_WME_NUM_UP; u++) {
		r.range[u].low = (uint8_t)v[n - 16 + 2 * u];
		r.range[u].high = (uint8_t)v[n - 16 + 2 * u + 1];
	}
	if (mqtx_wme_qos_map_check(&r, ack))
		return -EINVAL;
	*m = r;
	return 0;
}

int mqtx_wme_qos_map_format(const struct mqtx_wme_qos_map *m, char *buf, size_t len)
{
	size_t off = 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < m->num_except; i++) {
		n = snprintf(buf + off, off < len ? len - off : 0, "%s%u,%u", off ? "," : "",
			     m->except[i].dscp, m->except[i].up);
		off += (size_t)n;
	}
	for (unsigned u = 0; u < MQTX_WME_NUM_UP; u++) {
		n = snprintf(buf + off, off < len ? len - off : 0, "%s%u,%u", off ? "," : "",
			     m->range[u].low, m->range[u].high);
		off += (size_t)n;
	}
	return (int)off;
}

/* ---- classification ---- */

static unsigned rd16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The default DSCP to UP mapping of RFC 8325 section 4, where it differs from DSCP >> 3
 * (cfg80211's switch after "wifi: cfg80211: Update the default DSCP-to-UP mapping", with the
 * AF3x fix). */
static unsigned rfc8325_up(unsigned dscp)
{
	switch (dscp) {
	case 10: /* AF11 */
	case 12: /* AF12 */
	case 14: /* AF13: high-throughput data */
	case 16: /* CS2: OAM */
		return 0;
	case 18: /* AF21 */
	case 20: /* AF22 */
	case 22: /* AF23: low-latency data */
		return 3;
	case 24: /* CS3: broadcast video */
	case 26: /* AF31 */
	case 28: /* AF32 */
	case 30: /* AF33: multimedia streaming */
		return 4;
	case 44: /* VOICE-ADMIT */
	case 46: /* EF: telephony */
		return 6;
	case 48: /* CS6: network control */
		return 7;
	default:
		return dscp >> 3;
	}
}

static unsigned dscp_to_up(unsigned dscp, const struct mqtx_wme_qos_map *map)
{
	if (map) {
		/* 802.11u: the exceptions first, then the ranges; a match skips the default. */
		for (unsigned i = 0; i < map->num_except; i++)
			if (map->except[i].dscp == dscp)
				return map->except[i].up;
		for (unsigned u = 0; u < MQTX_WME_NUM_UP; u++)
			if (dscp >= map->range[u].low && dscp <= map->range[u].high)
				return u;
	}
	return rfc8325_up(dscp);
}

/* 2008: only class-selector code points map (DSCP xxx000), through their precedence. */
static unsigned classify_2008(const uint8_t *f, size_t len)
{
	unsigned dscp;

	if (len < ETH_HLEN + 20 || rd16(f + 12) != ETH_P_IPV4)
		return 0;
	dscp = f[ETH_HLEN + 1] & 0xfc;
	if (dscp & 0x1c)
		return 0;
	return dscp >> 5;
}

unsigned mqtx_wme_classify8021d(const void *frame, size_t len, uint32_t priority,
				const struct mqtx_wme_qos_map *map, bool legacy)
{
	const uint8_t *f = frame;
	size_t off = 12;
	unsigned proto;
	bool tagged = false;

	/* Priorities 256..263 carry an 802.1d priority straight through (VLAN, TDLS). */
	if (priority >= 256 && priority <= 263)
		return priority - 256;
	if (legacy)
		return classify_2008(f, len);
	if (len < off + 2)
		return 0;
	proto = rd16(f + off);
	/* The first tag stands for the VLAN tag Linux carries beside the frame; more tags are
	 * stepped over to find the protocol. */
	while ((proto == ETH_P_8021Q || proto == ETH_P_8021AD) && len >= off + 6) {
		unsigned pcp = f[off + 2] >> 5;

		if (!tagged && pcp)
			return pcp;
		tagged = true;
		off += 4;
		proto = rd16(f + off);
	}
	off += 2; /* the network header */
	switch (proto) {
	case ETH_P_IPV4:
		return len > off + 1 ? dscp_to_up(f[off + 1] >> 2, map) : 0;
	case ETH_P_IPV6:
		return len > off + 1
			       ? dscp_to_up((unsigned)((f[off] & 0x0f) << 2 | f[off + 1] >> 6), map)
			       : 0;
	case ETH_P_MPLS_UC:
	case ETH_P_MPLS_MC:
		/* The TC bits of the first label stack entry (MPLS_LS_TC_MASK). */
		return len >= off + 4 ? (f[off + 2] >> 1) & 7 : 0;
	case MQTX_WME_ETH_P_80221:
		return 7;
	default:
		return 0;
	}
}

// SPDX-License-Identifier: MIT
/* WME classification and queue selection: every DSCP for IPv4 and IPv6 (tables written from
 * RFC 8325 and cfg80211_classify8021d, not from the code), magic priorities, VLAN PCP, the
 * 802.11u QoS Map and its rules, the 2008 classifier, admission control chains, TSPECs,
 * reserved TIDs, the no-admissible-AC drop, stations. */
#include "wme_util.h"

/* RFC 8325 section 4 as Linux applies it: DSCP >> 3, except AF1x and CS2 -> 0, AF2x -> 3,
 * CS3 and AF3x -> 4, VOICE-ADMIT and EF -> 6, CS6 -> 7. */
static const uint8_t want_up[64] = {
	0, 0, 0, 0, 0, 0, 0, 0, /*  0.. 7: DF, LE */
	1, 1, 0, 1, 0, 1, 0, 1, /*  8..15: CS1; AF11 10, AF12 12, AF13 14 */
	0, 2, 3, 2, 3, 2, 3, 2, /* 16..23: CS2 16; AF21 18, AF22 20, AF23 22 */
	4, 3, 4, 3, 4, 3, 4, 3, /* 24..31: CS3 24; AF31 26, AF32 28, AF33 30 */
	4, 4, 4, 4, 4, 4, 4, 4, /* 32..39: CS4, AF4x */
	5, 5, 5, 5, 6, 5, 6, 5, /* 40..47: CS5; VOICE-ADMIT 44, EF 46 */
	7, 6, 6, 6, 6, 6, 6, 6, /* 48..55: CS6 48 */
	7, 7, 7, 7, 7, 7, 7, 7, /* 56..63: CS7 */
};

/* ieee802_1d_to_ac: BE BK BK BE VI VI VO VO. */
static const uint8_t want_ac[8] = { 2, 3, 3, 2, 1, 1, 0, 0 };

/* An Ethernet frame: @tags VLAN tags (the first with PCP @pcp), then Ethertype @proto and a
 * header carrying @dscp for IPv4/IPv6 or the MPLS TC @dscp. */
static size_t mkframe(uint8_t *f, unsigned tags, unsigned pcp, unsigned proto, unsigned dscp)
{
	size_t off = 12;

	memset(f, 0, 128);
	f[0] = 0x02;
	f[5] = 1;
	for (unsigned t = 0; t < tags; t++) {
		f[off] = t ? 0x81 : 0x88;
		f[off + 1] = t ? 0x00 : 0xa8;
		f[off + 2] = (uint8_t)(t ? 0 : pcp << 5);
		off += 4;
	}
	f[off] = (uint8_t)(proto >> 8);
	f[off + 1] = (uint8_t)proto;
	off += 2;
	if (proto == 0x0800) {
		f[off] = 0x45;
		f[off + 1] = (uint8_t)(dscp << 2 | 1); /* ECN bits must not matter */
		return off + 20;
	}
	if (proto == 0x86DD) {
		f[off] = (uint8_t)(0x60 | dscp >> 2);
		f[off + 1] = (uint8_t)((dscp & 3) << 6 | 0x1a);
		return off + 40;
	}
	if (proto == 0x8847 || proto == 0x8848) {
		f[off + 2] = (uint8_t)(dscp << 1 | 1); /* TC, bottom of stack */
		return off + 4;
	}
	return off + 28;
}

static unsigned up_of(unsigned tags, unsigned pcp, unsigned proto, unsigned dscp, uint32_t priority,
		      const struct mqtx_wme_qos_map *map, bool legacy)
{
	uint8_t f[128];
	size_t len = mkframe(f, tags, pcp, proto, dscp);

	return mqtx_wme_classify8021d(f, len, priority, map, legacy);
}

static void test_dscp_table(void **state)
{
	struct mqtx_wme_query q = { .flags = MQTX_WME_Q_DSCP };
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_verdict v;

	(void)state;
	for (unsigned d = 0; d < 64; d++) {
		assert_int_equal(up_of(0, 0, 0x0800, d, 0, NULL, false), want_up[d]);
		assert_int_equal(up_of(0, 0, 0x86DD, d, 0, NULL, false), want_up[d]);
		for (unsigned v6 = 0; v6 < 2; v6++) {
			q.dscp = (uint8_t)d;
			q.flags = MQTX_WME_Q_DSCP | (v6 ? MQTX_WME_Q_IPV6 : 0);
			assert_int_equal(mqtx_wme_classify(NULL, &q, &v, &ack), 0);
			assert_false(v.drop);
			assert_int_equal(v.up, want_up[d]);
			assert_int_equal(v.ac, want_ac[want_up[d]]);
			assert_int_equal(v.queue, want_ac[want_up[d]]);
		}
	}
	for (unsigned up = 0; up < 8; up++)
		assert_int_equal(mqtx_wme_up_to_ac(up), want_ac[up]);
}

static void test_magic_and_vlan(void **state)
{
	(void)state;
	/* 256..263 win over everything, even a VLAN PCP and EF. */
	for (unsigned p = 256; p <= 263; p++) {
		assert_int_equal(up_of(1, 3, 0x0800, 46, p, NULL, false), p - 256);
		assert_int_equal(up_of(0, 0, 0x0800, 46, p, NULL, true), p - 256);
	}
	assert_int_equal(up_of(0, 0, 0x0800, 46, 255, NULL, false), 6);
	assert_int_equal(up_of(0, 0, 0x0800, 46, 264, NULL, false), 6);
	/* A non-zero PCP wins over the DSCP; PCP 0 falls through to it. */
	assert_int_equal(up_of(1, 5, 0x0800, 46, 0, NULL, false), 5);
	assert_int_equal(up_of(1, 1, 0x86DD, 46, 0, NULL, false), 1);
	assert_int_equal(up_of(1, 0, 0x0800, 46, 0, NULL, false), 6);
	assert_int_equal(up_of(2, 0, 0x86DD, 8, 0, NULL, false), 1); /* QinQ, inner IPv6 */
}

static void test_other_protocols(void **state)
{
	uint8_t f[128];

	(void)state;
	assert_int_equal(up_of(0, 0, 0x8847, 5, 0, NULL, false), 5); /* MPLS TC */
	assert_int_equal(up_of(0, 0, 0x8848, 3, 0, NULL, false), 3);
	assert_int_equal(up_of(0, 0, 0x8917, 0, 0, NULL, false), 7);  /* 802.21 */
	assert_int_equal(up_of(0, 0, 0x0806, 46, 0, NULL, false), 0); /* ARP */
	mkframe(f, 0, 0, 0x0800, 46);
	assert_int_equal(mqtx_wme_classify8021d(f, 15, 0, NULL, false), 0); /* cut short */
	assert_int_equal(mqtx_wme_classify8021d(f, 16, 0, NULL, false), 6);
	assert_int_equal(mqtx_wme_classify8021d(f, 4, 0, NULL, false), 0);
}

/* hostapd's example: exceptions 53->2 and 22->6; UP 0 8-15, 1 0-7, 3 16-31, 4 32-39, 6 40-47,
 * 7 48-63; UP 2 and 5 unused. */
#define HOSTAPD_MAP "53,2,22,6,8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,63"

static void test_qos_map(void **state)
{
	struct mqtx_wme_qos_map m, only;
	struct mqtx_extack ack = { "" };
	char buf[128];

	(void)state;
	assert_int_equal(mqtx_wme_qos_map_parse(HOSTAPD_MAP, &m, &ack), 0);
	assert_int_equal(m.num_except, 2);
	assert_int_equal(up_of(0, 0, 0x0800, 22, 0, &m, false), 6); /* exception beats 16-31 */
	assert_int_equal(up_of(0, 0, 0x0800, 53, 0, &m, false), 2); /* exception beats 48-63 */
	assert_int_equal(up_of(0, 0, 0x0800, 10, 0, &m, false), 0); /* range, not RFC 8325 */
	assert_int_equal(up_of(0, 0, 0x86DD, 0, 0, &m, false), 1);
	assert_int_equal(up_of(0, 0, 0x0800, 18, 0, &m, false), 3);
	assert_int_equal(up_of(0, 0, 0x0800, 46, 0, &m, false), 6);
	assert_int_equal(up_of(0, 0, 0x0800, 56, 0, &m, false), 7);
	/* VLAN PCP and the magic priorities still come first. */
	assert_int_equal(up_of(1, 4, 0x0800, 53, 0, &m, false), 4);
	assert_int_equal(mqtx_wme_qos_map_format(&m, buf, sizeof(buf)), (int)strlen(HOSTAPD_MAP));
	assert_string_equal(buf, HOSTAPD_MAP);
	/* No range: what no exception matches gets the default mapping. */
	assert_int_equal(mqtx_wme_qos_map_parse("46,5,255,255,255,255,255,255,255,255,255,255,"
						"255,255,255,255,255,255",
						&only, &ack),
			 0);
	assert_int_equal(up_of(0, 0, 0x0800, 46, 0, &only, false), 5);
	for (unsigned d = 0; d < 64; d++)
		if (d != 46)
			assert_int_equal(up_of(0, 0, 0x0800, d, 0, &only, false), want_up[d]);
}

static void expect_bad_map(const char *s, const char *words)
{
	struct mqtx_wme_qos_map m;
	struct mqtx_extack ack = { "" };

	assert_int_equal(mqtx_wme_qos_map_parse(s, &m, &ack), -EINVAL);
	if (!strstr(ack.msg, words))
		fail_msg("\"%s\": message \"%s\" lacks \"%s\"", s, ack.msg, words);
}

static void test_qos_map_rules(void **state)
{
	(void)state;
	expect_bad_map("0,7,7,15,255,255,16,31,32,39,255,255,40,47,48,63",
		       "ranges of UP 0 (0,7) and UP 1 (7,15) overlap");
	expect_bad_map("8,15,0,7,255,255,31,16,32,39,255,255,40,47,48,63", "out of order");
	expect_bad_map("8,15,0,7,255,255,16,31,32,39,255,3,40,47,48,63", "UP 5");
	expect_bad_map("8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,64", "0..63");
	expect_bad_map("64,1," HOSTAPD_MAP, "DSCP is 0..63");
	expect_bad_map("12,8," HOSTAPD_MAP, "UP 0..7");
	expect_bad_map("12,1,12,2," HOSTAPD_MAP, "DSCP 12 has two exceptions");
	expect_bad_map("12," HOSTAPD_MAP, "21 numbers");
	expect_bad_map("8,15,0,7", "4 numbers");
	expect_bad_map("8;15", "commas");
	expect_bad_map("x,1", "\"x,1\" is not a number");
	expect_bad_map("", "empty");
}

/* The 2008 classifier: only class selectors of IPv4, and nothing else. */
static void test_legacy(void **state)
{
	(void)state;
	for (unsigned d = 0; d < 64; d++) {
		unsigned want = d % 8 ? 0 : d / 8;

		assert_int_equal(up_of(0, 0, 0x0800, d, 0, NULL, true), want);
		assert_int_equal(up_of(0, 0, 0x86DD, d, 0, NULL, true), 0);
	}
	assert_int_equal(up_of(1, 5, 0x0800, 40, 0, NULL, true), 0); /* no VLAN */
	assert_int_equal(up_of(0, 0, 0x8847, 5, 0, NULL, true), 0);
	assert_int_equal(up_of(0, 0, 0x8917, 0, 0, NULL, true), 0);
	assert_int_equal(up_of(0, 0, 0x0800, 46, 262, NULL, true), 6);
}

/* ---- with a device ---- */

static int dsetup(void **state)
{
	static struct wifi_env e;

	wifi_env_new(&e, false);
	*state = &e;
	return 0;
}

static int dteardown(void **state)
{
	struct wifi_env *e = *state;

	assert_int_equal(test_env_free(e->dev, e->pool, e->clock), 0);
	return 0;
}

/* Classify for station 1 (QoS): "up U ac AC queue Q" or "drop no-admissible-ac". */
static const char *cls(struct wifi_env *e, uint32_t flags, unsigned dscp)
{
	static char line[64];
	struct mqtx_wme_query q = { .flags = flags | MQTX_WME_Q_DSCP, .dscp = (uint8_t)dscp };
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_verdict v;

	if (flags & MQTX_WME_Q_EAPOL)
		q.flags &= ~MQTX_WME_Q_DSCP;
	if (!(flags &
	      (MQTX_WME_Q_MGMT | MQTX_WME_Q_EAPOL | MQTX_WME_Q_MULTICAST | MQTX_WME_Q_NONQOS))) {
		q.flags |= MQTX_WME_Q_STA;
		memcpy(q.sta, sta_mac(1), 6);
	}
	assert_int_equal(mqtx_wme_classify(e->dev, &q, &v, &ack), 0);
	mqtx_wme_verdict_format(&v, line, sizeof(line));
	return line;
}

static void set_acm(struct wifi_env *e, const char *list)
{
	struct mqtx_extack ack = { "" };
	uint8_t mask;

	assert_int_equal(mqtx_wme_acm_parse(list, &mask, &ack), 0);
	assert_int_equal(mqtx_wme_set_acm(e->dev, mask, &ack), 0);
}

static void test_peers_and_kinds(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_wme_query q = { .flags = MQTX_WME_Q_STA | MQTX_WME_Q_DSCP, .dscp = 46 };
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_verdict v;

	assert_string_equal(cls(e, 0, 46), "up 6 ac VO queue 0");
	assert_string_equal(cls(e, MQTX_WME_Q_NONQOS, 46), "up 0 ac BE queue 2");
	assert_string_equal(cls(e, MQTX_WME_Q_MULTICAST, 46), "up 0 ac BE queue 2");
	assert_string_equal(cls(e, MQTX_WME_Q_MGMT, 0), "up 7 ac VO queue 0");
	assert_string_equal(cls(e, MQTX_WME_Q_EAPOL, 0), "up 7 ac VO queue 0");
	memcpy(q.sta, sta_mac(2), 6); /* known, not QoS-capable */
	assert_int_equal(mqtx_wme_classify(e->dev, &q, &v, &ack), 0);
	assert_int_equal(v.up, 0);
	assert_int_equal(v.ac, MQTX_WME_AC_BE);
	memcpy(q.sta, sta_mac(7), 6);
	assert_int_equal(mqtx_wme_classify(e->dev, &q, &v, &ack), -ENOENT);
	assert_non_null(strstr(ack.msg, "unknown station 02:00:00:00:00:07"));
	q.flags = MQTX_WME_Q_VLAN;
	q.vlan_pcp = 8;
	assert_int_equal(mqtx_wme_classify(e->dev, &q, &v, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "vlan-pcp 8"));
	q.flags = MQTX_WME_Q_MGMT | MQTX_WME_Q_NONQOS;
	assert_int_equal(mqtx_wme_classify(e->dev, &q, &v, &ack), -EINVAL);
	q.flags = MQTX_WME_Q_STA;
	assert_int_equal(mqtx_wme_classify(NULL, &q, &v, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "sta needs a device"));
}

/* Each downgrade chain of ieee80211_downgrade_queue(). */
static void test_acm_chains(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };

	set_acm(e, "vo");
	assert_string_equal(cls(e, 0, 46), "up 5 ac VI queue 1"); /* 6 -> 5 */
	assert_string_equal(cls(e, 0, 56), "up 5 ac VI queue 1"); /* 7 -> 5 */
	assert_string_equal(cls(e, 0, 32), "up 4 ac VI queue 1"); /* VI untouched */
	assert_string_equal(cls(e, MQTX_WME_Q_EAPOL, 0), "up 5 ac VI queue 1");
	assert_string_equal(cls(e, MQTX_WME_Q_MGMT, 0), "up 7 ac VO queue 0"); /* exempt */
	set_acm(e, "vo,vi");
	assert_string_equal(cls(e, 0, 46), "up 3 ac BE queue 2"); /* 6 -> 5 -> 3 */
	assert_string_equal(cls(e, 0, 40), "up 3 ac BE queue 2"); /* 5 -> 3 */
	set_acm(e, "VO,vi,ac_be");
	assert_string_equal(cls(e, 0, 56), "up 2 ac BK queue 3"); /* 7 -> 5 -> 3 -> 2 */
	assert_string_equal(cls(e, 0, 0), "up 2 ac BK queue 3");  /* 0 -> 2 */
	assert_string_equal(cls(e, 0, 8), "up 1 ac BK queue 3");  /* BK admitted */
	set_acm(e, "be");
	assert_string_equal(cls(e, 0, 18), "up 2 ac BK queue 3"); /* 3 -> 2 */
	assert_string_equal(cls(e, 0, 46), "up 6 ac VO queue 0");
	/* Nothing below: sent on BK (current Linux, the default), or dropped (2008) by policy. */
	set_acm(e, "vo,vi,be,bk");
	assert_string_equal(cls(e, 0, 46), "up 2 ac BK queue 3");
	assert_string_equal(cls(e, 0, 8), "up 1 ac BK queue 3");
	assert_int_equal(mqtx_wme_set_noadmit(e->dev, MQTX_WME_NOADMIT_DROP, &ack), 0);
	assert_string_equal(cls(e, 0, 46), "drop no-admissible-ac");
	assert_string_equal(cls(e, 0, 8), "drop no-admissible-ac");
	assert_string_equal(cls(e, MQTX_WME_Q_NONQOS, 46), "up 0 ac BE queue 2"); /* no WMM */
	set_acm(e, "bk");
	assert_string_equal(cls(e, 0, 8), "drop no-admissible-ac");
	assert_string_equal(cls(e, 0, 0), "up 0 ac BE queue 2");
	set_acm(e, "none");
	assert_string_equal(cls(e, 0, 46), "up 6 ac VO queue 0");
}

static void test_mac_parse(void **state)
{
	struct mqtx_extack ack = { "" };
	uint8_t a[6];
	char buf[18];

	(void)state;
	assert_int_equal(mqtx_wme_mac_parse("02:0a:00:00:00:FF", a, &ack), 0);
	assert_string_equal(mqtx_wme_mac_format(a, buf), "02:0a:00:00:00:ff");
	assert_int_equal(mqtx_wme_mac_parse("02-0a-00-00-00-01", a, &ack), 0);
	assert_int_equal(a[5], 1);
	assert_int_equal(mqtx_wme_mac_parse("02:0a:00:00:00", a, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "\"02:0a:00:00:00\" is not a MAC address"));
	assert_int_equal(mqtx_wme_mac_parse("02:0a:00:00:00:0g", a, &ack), -EINVAL);
	assert_int_equal(mqtx_wme_mac_parse("02:0a:00:00:00:01x", a, &ack), -EINVAL);
}

static void test_acm_parse(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_info info;
	uint8_t mask = 0xff;

	assert_int_equal(mqtx_wme_acm_parse("vo,bk", &mask, &ack), 0);
	assert_int_equal(mask, 0x9);
	assert_int_equal(mqtx_wme_acm_parse("vo,xx", &mask, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "\"xx\""));
	assert_int_equal(mask, 0x9);
	assert_int_equal(mqtx_wme_set_acm(e->dev, 0x10, &ack), -EINVAL);
	assert_int_equal(mqtx_wme_set_acm(e->dev, 0x9, &ack), 0);
	assert_int_equal(mqtx_wme_get_info(e->dev, &info), 0);
	assert_int_equal(info.acm, 0x9);
	assert_int_equal(info.acm_up, 0xC6); /* mac80211's wmm_acm: UP 6,7 and 1,2 */
	assert_int_equal(mqtx_wme_ac_parse("Vi"), MQTX_WME_AC_VI);
	assert_int_equal(mqtx_wme_ac_parse("voice"), -EINVAL);
}

/* An admitted stream keeps its AC for its own UP only. */
static void test_tspec(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };

	set_acm(e, "vo");
	assert_int_equal(mqtx_wme_set_tspec(e->dev, MQTX_WME_AC_VO, 6, 1000, &ack), 0);
	assert_string_equal(cls(e, 0, 46), "up 6 ac VO queue 0");
	assert_string_equal(cls(e, 0, 56), "up 5 ac VI queue 1");
	assert_int_equal(mqtx_wme_set_tspec(e->dev, MQTX_WME_AC_VO, 4, 1000, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "UP 4 is not of AC VO"));
	assert_int_equal(mqtx_wme_set_tspec(e->dev, MQTX_WME_AC_VO, 6, 0, &ack), 0);
	assert_string_equal(cls(e, 0, 46), "up 5 ac VI queue 1");
}

static void test_reserved_tid(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };

	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 6, &ack), 0);
	assert_string_equal(cls(e, 0, 46), "up 7 ac VO queue 0");
	/* One reservation at a time (ieee80211_reserve_tid(): -EALREADY); the same one again is
	 * no change. */
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 0, &ack), -EALREADY);
	assert_string_equal(ack.msg, "station 02:00:00:00:00:01 already has reserved TID 6 (set "
				     "none first)");
	assert_string_equal(cls(e, 0, 0), "up 0 ac BE queue 2");
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 6, &ack), 0);
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), -1, &ack), 0);
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 0, &ack), 0);
	assert_string_equal(cls(e, 0, 0), "up 3 ac BE queue 2");
	assert_string_equal(cls(e, 0, 8), "up 1 ac BK queue 3");
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 8, &ack), -EINVAL);
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(9), 1, &ack), -ENOENT);
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), -1, &ack), 0);
	assert_string_equal(cls(e, 0, 0), "up 0 ac BE queue 2");
}

static void test_device_qos_map_and_legacy(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_qos_map m;
	struct mqtx_wme_info info;

	assert_int_equal(mqtx_wme_qos_map_parse(HOSTAPD_MAP, &m, &ack), 0);
	assert_int_equal(mqtx_wme_set_qos_map(e->dev, &m, &ack), 0);
	assert_string_equal(cls(e, 0, 22), "up 6 ac VO queue 0");
	assert_string_equal(cls(e, 0, 10), "up 0 ac BE queue 2");
	m.range[0].high = 20; /* 8-20 overlaps UP 3's 16-31 */
	assert_int_equal(mqtx_wme_set_qos_map(e->dev, &m, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "overlap"));
	assert_string_equal(cls(e, 0, 22), "up 6 ac VO queue 0"); /* unchanged */
	assert_int_equal(mqtx_wme_get_info(e->dev, &info), 0);
	assert_true(info.has_qos_map);
	assert_int_equal(mqtx_wme_set_qos_map(e->dev, NULL, &ack), 0);
	assert_string_equal(cls(e, 0, 22), "up 3 ac BE queue 2");
	assert_int_equal(mqtx_wme_set_legacy(e->dev, true, &ack), 0);
	assert_string_equal(cls(e, 0, 46), "up 0 ac BE queue 2");
	assert_string_equal(cls(e, 0, 40), "up 5 ac VI queue 1");
}

/* Through the transmit path: a frame no AC admits is dropped and counted on its first AC's
 * queue; the others of the same burst go on; with the BK policy it is sent. */
static void test_noadmit_drop_counted(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_stats ws;
	struct mqtx_txq_stats ts;
	struct mqtx_pkt *b[4];

	assert_int_equal(mqtx_dev_open(e->dev), 0);
	set_acm(e, "vo,vi,be,bk");
	assert_int_equal(mqtx_wme_set_noadmit(e->dev, MQTX_WME_NOADMIT_DROP, &ack), 0);
	assert_int_equal(mqtx_dev_xmit(e->dev, wifi_frame(e->pool, sta_mac(1), 46, 100, 0)),
			 MQTX_XMIT_DROP);
	for (unsigned i = 0; i < 4; i++)
		b[i] = wifi_frame(e->pool, sta_mac(i % 2 ? 2 : 1), 34, 100, i);
	assert_int_equal(mqtx_dev_xmit_burst(e->dev, b, 4), 2); /* station 2 has no WMM */
	mqtx_txq_get_stats(mqtx_dev_txq(e->dev, MQTX_WME_AC_VO), &ts);
	assert_int_equal(ts.drops[MQTX_DROP_NO_ADMIT], 1);
	mqtx_txq_get_stats(mqtx_dev_txq(e->dev, MQTX_WME_AC_VI), &ts);
	assert_int_equal(ts.drops[MQTX_DROP_NO_ADMIT], 2);
	assert_string_equal(mqtx_drop_reason_name(MQTX_DROP_NO_ADMIT), "noadmit");
	assert_string_equal(mqtx_drop_reason_name(MQTX_DROP_EXPIRED), "expired");
	assert_int_equal(mqtx_wme_set_noadmit(e->dev, MQTX_WME_NOADMIT_BK, &ack), 0);
	assert_int_equal(mqtx_dev_xmit(e->dev, wifi_frame(e->pool, sta_mac(1), 46, 100, 9)),
			 MQTX_XMIT_SUCCESS);
	mqtx_clock_advance(e->clock, 10 * MS);
	assert_int_equal(mqtx_wme_get_stats(e->dev, &ws), 0);
	assert_int_equal(ws.noadmit[MQTX_WME_AC_VO], 1);
	assert_int_equal(ws.noadmit[MQTX_WME_AC_VI], 2);
	assert_int_equal(ws.nonqos, 2);
	assert_int_equal(ws.downgraded[MQTX_WME_AC_VO], 1);
	assert_int_equal(ws.selected[MQTX_WME_AC_BK], 1);
	assert_int_equal(ws.selected[MQTX_WME_AC_BE], 2);
	check_conservation(e->dev, 6);
	mqtx_txq_get_stats(mqtx_dev_txq(e->dev, MQTX_WME_AC_BK), &ts);
	assert_int_equal(ts.packets, 1);
}

static void count_sta(const struct mqtx_wme_sta_info *info, void *arg)
{
	(void)info;
	(*(unsigned *)arg)++;
}

static void test_stations(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_dev_cfg c = { .name = "nul0", .ops = &mqtx_null_ops, .num_txq = 4 };
	static const uint8_t group[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
	struct mqtx_wme_cfg wc = { .max_stations = 2 };
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_sta_info si;
	struct mqtx_dev *nul;
	unsigned n = 0;

	assert_int_equal(mqtx_wme_sta_add(e->dev, sta_mac(1), true, &ack), -EEXIST);
	assert_int_equal(mqtx_wme_sta_add(e->dev, group, true, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "01:00:5e:00:00:01"));
	assert_int_equal(mqtx_wme_sta_get(e->dev, sta_mac(2), &si), 0);
	assert_false(si.qos);
	assert_int_equal(si.reserved_tid, -1);
	assert_int_equal(si.ba_queue[3], MQTX_WME_QUEUE_NONE);
	assert_int_equal(mqtx_wme_sta_walk(e->dev, count_sta, &n), 2);
	assert_int_equal(n, 2);
	assert_int_equal(mqtx_wme_sta_del(e->dev, sta_mac(2), &ack), 0);
	assert_int_equal(mqtx_wme_sta_del(e->dev, sta_mac(2), &ack), -ENOENT);
	assert_non_null(strstr(ack.msg, "unknown station 02:00:00:00:00:02"));
	assert_int_equal(mqtx_wme_sta_get(e->dev, sta_mac(2), &si), -ENOENT);
	/* A device of its own with room for two. */
	assert_int_equal(mqtx_dev_create(&c, &nul), 0);
	assert_int_equal(mqtx_wme_sta_add(nul, sta_mac(1), true, &ack), -EOPNOTSUPP);
	assert_non_null(strstr(ack.msg, "not a Wi-Fi device"));
	assert_int_equal(mqtx_wme_attach(nul, &wc, NULL, &ack), 0);
	assert_int_equal(mqtx_wme_attach(nul, &wc, NULL, &ack), -EBUSY);
	assert_int_equal(mqtx_wme_sta_add(nul, sta_mac(1), true, &ack), 0);
	assert_int_equal(mqtx_wme_sta_add(nul, sta_mac(2), true, &ack), 0);
	assert_int_equal(mqtx_wme_sta_add(nul, sta_mac(3), true, &ack), -ENOSPC);
	assert_int_equal(mqtx_wme_ba_start(nul, sta_mac(1), 0, &ack), -EOPNOTSUPP);
	assert_non_null(strstr(ack.msg, "no block-ack support"));
	mqtx_wme_detach(nul);
	mqtx_dev_destroy(nul);
}

/* What a driver was asked to start: the sessions, as a driver keeps them for its answers. */
static struct mqtx_wme_ba_session started[4];
static unsigned nstarted, nstopped;

static int record_ampdu(struct mqtx_dev *dev, enum mqtx_wme_ampdu_action action,
			const struct mqtx_wme_ba_session *s)
{
	(void)dev;
	if (action == MQTX_WME_AMPDU_TX_STOP)
		nstopped++;
	else if (nstarted < 4)
		started[nstarted++] = *s;
	return 0;
}

/* An answer the driver collected for a session that was then stopped and started again (same
 * station, TID and queue) is stale: it neither starts nor ends the new session. */
static void test_stale_ba_answer(void **state)
{
	static const struct mqtx_wme_ops ops = { .ampdu_action = record_ampdu };
	struct mqtx_dev_cfg c = { .name = "nul1", .ops = &mqtx_null_ops, .num_txq = 5 };
	struct mqtx_wme_cfg wc = { .num_agg_queues = 1 };
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_sta_info si;
	struct mqtx_dev *dev;

	(void)state;
	nstarted = nstopped = 0;
	assert_int_equal(mqtx_dev_create(&c, &dev), 0);
	assert_int_equal(mqtx_wme_attach(dev, &wc, &ops, &ack), 0);
	assert_int_equal(mqtx_dev_open(dev), 0);
	assert_int_equal(mqtx_wme_sta_add(dev, sta_mac(1), true, &ack), 0);
	assert_int_equal(mqtx_wme_ba_start(dev, sta_mac(1), 6, &ack), 0);
	assert_int_equal(mqtx_wme_ba_stop(dev, sta_mac(1), 6, &ack), 0);
	assert_int_equal(mqtx_wme_ba_start(dev, sta_mac(1), 6, &ack), 0);
	assert_int_equal(nstarted, 2);
	assert_int_equal(nstopped, 1);
	assert_memory_equal(started[0].addr, sta_mac(1), 6);
	assert_int_equal(started[0].tid, 6);
	assert_int_equal(started[0].ac, MQTX_WME_AC_VO);
	assert_int_equal(started[0].queue, 4);
	assert_int_equal(started[1].queue, 4);
	assert_int_not_equal(started[0].id, started[1].id);
	/* The old session's refusal, then its acceptance: both ignored. */
	assert_int_equal(mqtx_wme_ba_done(dev, &started[0], MQTX_WME_BA_REFUSED), -ENOENT);
	assert_int_equal(mqtx_wme_ba_done(dev, &started[0], MQTX_WME_BA_ACCEPTED), -ENOENT);
	assert_int_equal(mqtx_wme_sta_get(dev, sta_mac(1), &si), 0);
	assert_int_equal(si.ba_state[6], MQTX_WME_BA_STARTING);
	assert_int_equal(si.ba_queue[6], 4);
	/* The new session's own answer counts. */
	assert_int_equal(mqtx_wme_ba_done(dev, &started[1], MQTX_WME_BA_ACCEPTED), 0);
	assert_int_equal(mqtx_wme_sta_get(dev, sta_mac(1), &si), 0);
	assert_int_equal(si.ba_state[6], MQTX_WME_BA_OPERATIONAL);
	assert_int_equal(mqtx_wme_ba_done(dev, &started[1], MQTX_WME_BA_ACCEPTED), -ENOENT);
	mqtx_dev_close(dev);
	mqtx_wme_detach(dev);
	mqtx_dev_destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dscp_table),
		cmocka_unit_test(test_magic_and_vlan),
		cmocka_unit_test(test_other_protocols),
		cmocka_unit_test(test_qos_map),
		cmocka_unit_test(test_qos_map_rules),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_mac_parse),
		cmocka_unit_test_setup_teardown(test_peers_and_kinds, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_acm_chains, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_acm_parse, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_tspec, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_reserved_tid, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_device_qos_map_and_legacy, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_noadmit_drop_counted, dsetup, dteardown),
		cmocka_unit_test_setup_teardown(test_stations, dsetup, dteardown),
		cmocka_unit_test(test_stale_ba_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

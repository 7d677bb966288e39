// SPDX-License-Identifier: MIT
/* WME where it follows mac80211 to the letter (Linux 6.12 net/mac80211/{wme,tx,agg-tx,mlme}.c):
 * pre-authentication is data, TSPEC TIDs and the reserved TID have no block-ack session, the
 * ADDBA retry limits in virtual time, the no-admissible-AC default, the AP and station roles,
 * AIFSN below 2 for a station. */
#include "wme_util.h"

static int fsetup(void **state)
{
	static struct wifi_env e;

	wifi_env_new(&e, true);
	assert_int_equal(mqtx_dev_open(e.dev), 0);
	*state = &e;
	return 0;
}

static int fteardown(void **state)
{
	struct wifi_env *e = *state;

	assert_int_equal(test_env_free(e->dev, e->pool, e->clock), 0);
	return 0;
}

/* A frame to station 1 of Ethertype @proto with a 46-byte payload whose first bytes would read
 * as an IPv4 header with DSCP EF if anything took them for one. */
static struct mqtx_pkt *proto_frame(struct wifi_env *e, unsigned proto)
{
	struct mqtx_pkt *p = wifi_frame(e->pool, sta_mac(1), 46, 60, 0);

	p->data[12] = (uint8_t)(proto >> 8);
	p->data[13] = (uint8_t)proto;
	return p;
}

/* Only the control port protocol gets UP 7 (ieee80211_select_queue()); pre-authentication is
 * classified as any other Ethertype: UP 0, BE, not counted as EAPOL. */
static void test_preauth_is_data(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_wme_stats ws;
	struct mqtx_pkt *p;

	p = proto_frame(e, MQTX_WME_ETH_P_PREAUTH);
	assert_int_equal(mqtx_wme_select_queue(e->dev, p), MQTX_WME_AC_BE);
	assert_int_equal(p->priority, 0);
	mqtx_pkt_free(p);
	p = proto_frame(e, MQTX_WME_ETH_P_EAPOL);
	assert_int_equal(mqtx_wme_select_queue(e->dev, p), MQTX_WME_AC_VO);
	assert_int_equal(p->priority, 7);
	mqtx_pkt_free(p);
	assert_int_equal(mqtx_wme_get_stats(e->dev, &ws), 0);
	assert_int_equal(ws.eapol, 1);
	assert_int_equal(ws.selected[MQTX_WME_AC_BE], 1);
}

static void sta_info(struct wifi_env *e, uint8_t n, struct mqtx_wme_sta_info *si)
{
	assert_int_equal(mqtx_wme_sta_get(e->dev, sta_mac(n), si), 0);
}

/* TIDs 8..15 and the reserved TID: -EINVAL, as ieee80211_start_tx_ba_session() gives. */
static void test_ba_refused_tids(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_sta_info si;

	for (unsigned tid = 8; tid < 16; tid++) {
		assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), tid, &ack), -EINVAL);
		assert_non_null(strstr(ack.msg, "is a TSPEC TID (8-15)"));
	}
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 16, &ack), -EINVAL);
	assert_string_equal(ack.msg, "tid 16 outside 0-15");
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 5, &ack), 0);
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 5, &ack), -EINVAL);
	assert_string_equal(ack.msg,
			    "tid 5 is the reserved TID of 02:00:00:00:00:01: no block-ack session");
	/* The other UP of the AC, where the reserved one's frames go, may have one. */
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 4, &ack), 0);
	sta_info(e, 1, &si);
	for (unsigned tid = 0; tid < 16; tid++)
		assert_int_equal(si.ba_state[tid],
				 tid == 4 ? MQTX_WME_BA_STARTING : MQTX_WME_BA_IDLE);
}

/* Reserving the TID of a running session ends it first (ieee80211_reserve_tid() tears the
 * session down): its frames go back to the AC queue ahead of newer ones, nothing lost. */
static void test_reserve_stops_session(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_sta_info si;
	struct mqtx_wme_stats ws;
	struct delivered *d = calloc(1, sizeof(*d));
	struct mqtx_sim_wifi_cfg sw = { .done = record_done, .done_arg = d };

	assert_non_null(d);
	mqtx_dev_close(e->dev);
	assert_int_equal(mqtx_sim_wifi_configure(e->dev, &sw, &ack), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 6, &ack), 0);
	/* The peer has not answered yet: the frames wait, stopped, on the aggregation queue. */
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(
			mqtx_dev_xmit(e->dev, wifi_frame(e->pool, sta_mac(1), DSCP_VO, 100, i)),
			MQTX_XMIT_SUCCESS);
	sta_info(e, 1, &si);
	assert_int_equal(si.ba_state[6], MQTX_WME_BA_STARTING);
	assert_int_equal(mqtx_wme_sta_set_reserved_tid(e->dev, sta_mac(1), 6, &ack), 0);
	sta_info(e, 1, &si);
	assert_int_equal(si.ba_state[6], MQTX_WME_BA_IDLE);
	assert_int_equal(si.reserved_tid, 6);
	assert_int_equal(mqtx_wme_get_stats(e->dev, &ws), 0);
	assert_int_equal(ws.ba_stopped, 1);
	assert_int_equal(ws.moved_to_ac, 10);
	/* Newer frames of UP 6 now use UP 7 and follow the older ones on VO. */
	for (unsigned i = 10; i < 15; i++)
		mqtx_dev_xmit(e->dev, wifi_frame(e->pool, sta_mac(1), DSCP_VO, 100, i));
	mqtx_clock_advance(e->clock, 100 * MS);
	assert_int_equal(d->n, 15);
	for (unsigned i = 0; i < 15; i++) {
		assert_int_equal(d->user[i], i);
		assert_int_equal(d->up[i], i < 10 ? 6 : 7);
	}
	check_conservation(e->dev, 15);
	free(d);
}

/* Start, and let the simulated peer refuse: one ADDBA request that went unanswered. */
static int start_refused(struct wifi_env *e, unsigned tid)
{
	struct mqtx_extack ack = { "" };
	int err = mqtx_wme_ba_start(e->dev, sta_mac(1), tid, &ack);

	mqtx_clock_advance(e->clock, 1 * MS);
	return err;
}

/*
 * HT_AGG_BURST_RETRIES, HT_AGG_RETRIES_PERIOD and HT_AGG_MAX_RETRIES: a fifth request within
 * 15 s of the fourth is refused with -EBUSY; after 15 s it goes; after the sixteenth the TID is
 * given up; an accepted session clears the count.
 */
static void test_addba_retries(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_sta_info si;
	struct mqtx_wme_stats ws;
	uint64_t last;

	assert_int_equal(mqtx_sim_wifi_set_ba(e->dev, MQTX_SIM_WIFI_BA_REFUSE, 100 * US), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(start_refused(e, 0), 0);
	last = mqtx_clock_now(e->clock) - 1 * MS;
	sta_info(e, 1, &si);
	assert_int_equal(si.addba_requests[0], 4);
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 0, &ack), -EBUSY);
	assert_string_equal(ack.msg, "4 block-ack requests for 02:00:00:00:00:01 tid 0 failed: the "
				     "next one waits until 15 s after the last");
	/* Per TID and per station. */
	assert_int_equal(start_refused(e, 3), 0);
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(2), 0, &ack), 0);
	mqtx_clock_advance_to(e->clock, last + 15000 * MS - 1);
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 0, &ack), -EBUSY);
	mqtx_clock_advance_to(e->clock, last + 15000 * MS);
	assert_int_equal(start_refused(e, 0), 0);
	assert_int_equal(start_refused(e, 0), -EBUSY);
	/* Spread out, the requests go on up to the sixteenth; then never again. */
	for (unsigned n = 5; n < 16; n++) {
		mqtx_clock_advance(e->clock, 15000 * MS);
		assert_int_equal(start_refused(e, 0), 0);
	}
	sta_info(e, 1, &si);
	assert_int_equal(si.addba_requests[0], 16);
	mqtx_clock_advance(e->clock, 3600000 * MS);
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(1), 0, &ack), -EBUSY);
	assert_string_equal(ack.msg, "16 block-ack requests for 02:00:00:00:00:01 tid 0 went "
				     "unanswered: given up");
	assert_int_equal(mqtx_wme_get_stats(e->dev, &ws), 0);
	assert_int_equal(ws.ba_busy, 4);
	assert_int_equal(ws.ba_requested, 4 + 1 + 1 + 1 + 11);
	/* TID 3 had one refusal; an accepted session clears it. */
	assert_int_equal(mqtx_sim_wifi_set_ba(e->dev, MQTX_SIM_WIFI_BA_ACCEPT, 100 * US), 0);
	assert_int_equal(start_refused(e, 3), 0);
	sta_info(e, 1, &si);
	assert_int_equal(si.ba_state[3], MQTX_WME_BA_OPERATIONAL);
	assert_int_equal(si.addba_requests[3], 0);
	/* The station added again starts from nothing. */
	assert_int_equal(mqtx_wme_sta_del(e->dev, sta_mac(1), &ack), 0);
	assert_int_equal(mqtx_wme_sta_add(e->dev, sta_mac(1), true, &ack), 0);
	assert_int_equal(start_refused(e, 0), 0);
}

/* Current Linux sends what no AC admits on BK (ieee80211_downgrade_queue()); drop is the
 * choice of the 2008 code. */
static void test_noadmit_default_bk(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_cfg zero = { 0 };
	struct mqtx_wme_info in;
	struct mqtx_pkt *p;

	assert_int_equal(zero.noadmit, MQTX_WME_NOADMIT_BK);
	assert_int_equal(mqtx_wme_get_info(e->dev, &in), 0);
	assert_int_equal(in.noadmit, MQTX_WME_NOADMIT_BK);
	assert_int_equal(mqtx_wme_set_acm(e->dev, 0xf, &ack), 0);
	p = wifi_frame(e->pool, sta_mac(1), DSCP_VO, 100, 0);
	assert_int_equal(mqtx_wme_select_queue(e->dev, p), MQTX_WME_AC_BK);
	assert_int_equal(p->priority, 2);
	mqtx_pkt_free(p);
	assert_int_equal(mqtx_wme_set_noadmit(e->dev, (enum mqtx_wme_noadmit)2, &ack), -EINVAL);
}

/* Classify a frame to @dst with DSCP @dscp through the device's selection. */
static uint16_t pick(struct wifi_env *e, const uint8_t *dst, unsigned dscp, uint32_t *up)
{
	struct mqtx_pkt *p = wifi_frame(e->pool, dst, dscp, 100, 0);
	uint16_t q = mqtx_wme_select_queue(e->dev, p);

	*up = p->priority;
	mqtx_pkt_free(p);
	return q;
}

static const uint8_t group[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

/* Role sta: everything goes to the AP's station, group frames included, classified and
 * downgraded; role ap: peers by receiver, group frames to BE, no downgrade of its own. */
static void test_roles(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_extack ack = { "" };
	struct mqtx_wme_info in;
	uint32_t up;

	/* The default: an AP's lookup with a client's ACM. */
	assert_int_equal(mqtx_wme_set_acm(e->dev, 1u << MQTX_WME_AC_VO, &ack), 0);
	assert_int_equal(pick(e, group, DSCP_VO, &up), MQTX_WME_AC_BE);
	assert_int_equal(up, 0);
	assert_int_equal(pick(e, sta_mac(1), DSCP_VO, &up), MQTX_WME_AC_VI);
	assert_int_equal(pick(e, sta_mac(9), DSCP_VO, &up), MQTX_WME_AC_BE);
	/* Role sta without an AP address is refused and changes nothing. */
	assert_int_equal(mqtx_wme_set_role(e->dev, MQTX_WME_ROLE_STA, NULL, &ack), -EINVAL);
	assert_string_equal(ack.msg, "role sta needs the AP's unicast address (bssid)");
	assert_int_equal(mqtx_wme_set_role(e->dev, MQTX_WME_ROLE_STA, group, &ack), -EINVAL);
	assert_non_null(strstr(ack.msg, "not 01:00:5e:00:00:01"));
	assert_int_equal(mqtx_wme_set_role(e->dev, (enum mqtx_wme_role)3, NULL, &ack), -EINVAL);
	assert_int_equal(mqtx_wme_get_role(e->dev), MQTX_WME_ROLE_DEFAULT);
	assert_int_equal(mqtx_wme_set_role(e->dev, MQTX_WME_ROLE_STA, sta_mac(2), &ack), 0);
	assert_int_equal(mqtx_wme_get_info(e->dev, &in), 0);
	assert_int_equal(in.role, MQTX_WME_ROLE_STA);
	assert_memory_equal(in.bssid, sta_mac(2), 6);
	assert_int_equal(pick(e, group, DSCP_VO, &up), MQTX_WME_AC_VI);
	assert_int_equal(up, 5);
	assert_int_equal(pick(e, sta_mac(9), DSCP_VI, &up), MQTX_WME_AC_VI);
	assert_int_equal(up, 4);
	/* The AP's session is the one frames use, whoever they are for. */
	assert_int_equal(mqtx_wme_ba_start(e->dev, sta_mac(2), 4, &ack), 0);
	assert_int_equal(pick(e, group, DSCP_VI, &up), 4);
	/* Role ap: no downgrade, group frames to BE. */
	assert_int_equal(mqtx_wme_set_role(e->dev, MQTX_WME_ROLE_AP, NULL, &ack), 0);
	assert_int_equal(pick(e, sta_mac(1), DSCP_VO, &up), MQTX_WME_AC_VO);
	assert_int_equal(up, 6);
	assert_int_equal(pick(e, group, DSCP_VO, &up), MQTX_WME_AC_BE);
	assert_int_equal(up, 0);
	assert_string_equal(mqtx_wme_role_name(MQTX_WME_ROLE_AP), "ap");
	assert_string_equal(mqtx_wme_role_name((enum mqtx_wme_role)7), "?");
}

static char logged[256];

static void keep_log(enum mqtx_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == MQTX_LOG_WARN)
		snprintf(logged, sizeof(logged), "%s", msg);
}

/* The EDCA defaults follow the role; a non-AP station uses AIFSN 2 for 1 and says so at open
 * (ieee80211_sta_wmm_params()); an AP keeps AIFSN 1. */
static void test_edca_by_role(void **state)
{
	struct wifi_env *e = *state;
	struct mqtx_sim_wifi_cfg sw = { 0 }, got;
	struct mqtx_extack ack = { "" };
	struct mqtx_sim_wifi_edca d;

	assert_int_equal(mqtx_sim_wifi_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.edca[MQTX_WME_AC_VO].aifsn, 2);
	assert_int_equal(got.edca[MQTX_WME_AC_BE].cwmax, 1023);
	mqtx_dev_close(e->dev);
	assert_int_equal(mqtx_wme_set_role(e->dev, MQTX_WME_ROLE_AP, NULL, &ack), 0);
	assert_int_equal(mqtx_sim_wifi_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.edca[MQTX_WME_AC_VO].aifsn, 1);
	assert_int_equal(got.edca[MQTX_WME_AC_VO].txop_ns, 1500000);
	assert_int_equal(got.edca[MQTX_WME_AC_VI].txop_ns, 3000000);
	assert_int_equal(got.edca[MQTX_WME_AC_BE].cwmax, 63);
	/* A VO AIFSN of 1: kept by an AP, raised to 2 with a warning at a station's open. */
	sw.edca[MQTX_WME_AC_VO] = (struct mqtx_sim_wifi_edca){ 1, 3, 7, 0 };
	assert_int_equal(mqtx_sim_wifi_configure(e->dev, &sw, &ack), 0);
	mqtx_set_log(keep_log, NULL, MQTX_LOG_WARN);
	logged[0] = '\0';
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_string_equal(logged, "");
	assert_int_equal(mqtx_sim_wifi_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.edca[MQTX_WME_AC_VO].aifsn, 1);
	mqtx_dev_close(e->dev);
	assert_int_equal(mqtx_wme_set_role(e->dev, MQTX_WME_ROLE_STA, sta_mac(2), &ack), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	mqtx_set_log(NULL, NULL, MQTX_LOG_ERR);
	assert_string_equal(logged, "sim-wifi: wl0: AIFSN 1 for VO is invalid for a non-AP station "
				    "(role sta): using 2, as mac80211 does");
	assert_int_equal(mqtx_sim_wifi_get_cfg(e->dev, &got), 0);
	assert_int_equal(got.edca[MQTX_WME_AC_VO].aifsn, 2);
	assert_int_equal(mqtx_sim_wifi_edca_default(MQTX_WME_ROLE_AP, MQTX_WME_AC_BK, &d), 0);
	assert_int_equal(d.aifsn, 7);
	assert_int_equal(mqtx_sim_wifi_edca_default(MQTX_WME_ROLE_AP, MQTX_WME_NUM_AC, &d),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_preauth_is_data, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(test_ba_refused_tids, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(test_reserve_stops_session, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(test_addba_retries, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(test_noadmit_default_bk, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(test_roles, fsetup, fteardown),
		cmocka_unit_test_setup_teardown(test_edca_by_role, fsetup, fteardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

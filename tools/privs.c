// SPDX-License-Identifier: MIT
// mqtxd's privileges: after start-up it keeps only the capabilities its backends use.
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "privs.h"

#ifndef CAP_BPF
#define CAP_BPF 39 /* Linux 5.8 */
#endif

/* The capabilities to keep, those of them the process has, into @keep; their count. */
static int wanted(cap_t now, cap_value_t *keep)
{
	cap_value_t want[] = { CAP_NET_ADMIN, CAP_NET_RAW, CAP_IPC_LOCK, CAP_BPF };
	int n = 0;

	/* Before CAP_BPF, loading a program took CAP_SYS_ADMIN. */
	if (!CAP_IS_SUPPORTED(CAP_BPF))
		want[3] = CAP_SYS_ADMIN;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (CAP_IS_SUPPORTED(want[i]) && !cap_get_flag(now, want[i], CAP_PERMITTED, &v) &&
		    v == CAP_SET)
			keep[n++] = want[i];
	}
	return n;
}

static bool kept(const cap_value_t *keep, int n, cap_value_t c)
{
	for (int i = 0; i < n; i++)
		if (keep[i] == c)
			return true;
	return false;
}

/* The bounding set: every capability not kept (needs CAP_SETPCAP, still effective here). */
static int drop_bounding(const cap_value_t *keep, int n, char *why, size_t len)
{
	for (cap_value_t c = 0; CAP_IS_SUPPORTED(c); c++) {
		if (kept(keep, n, c) || cap_get_bound(c) != 1)
			continue;
		if (cap_drop_bound(c)) {
			snprintf(why, len, "cannot drop %s from the bounding set: %s",
				 cap_to_name(c), strerror(errno));
			return -1;
		}
	}
	return 0;
}

int privs_drop(bool has_group, gid_t group, char *why, size_t len)
{
	cap_value_t keep[4];
	cap_flag_value_t setpcap = CAP_CLEAR;
	cap_t now = cap_get_proc(), next = NULL;
	int n, rc = -1;

	if (!now) {
		snprintf(why, len, "cannot read the capabilities: %s", strerror(errno));
		return -1;
	}
	n = wanted(now, keep);
	if (has_group && group != getegid() && setgroups(1, &group) && errno != EPERM) {
		snprintf(why, len, "cannot join group %u: %s", (unsigned)group, strerror(errno));
		goto out;
	}
	cap_get_flag(now, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap);
	if (setpcap == CAP_SET && drop_bounding(keep, n, why, len))
		goto out;
	if (cap_reset_ambient() && errno != EINVAL && errno != EPERM) {
		snprintf(why, len, "cannot clear the ambient set: %s", strerror(errno));
		goto out;
	}
	next = cap_init(); /* all clear */
	if (!next ||
	    (n && (cap_set_flag(next, CAP_PERMITTED, n, keep, CAP_SET) ||
		   cap_set_flag(next, CAP_EFFECTIVE, n, keep, CAP_SET))) ||
	    cap_set_proc(next)) {
		snprintf(why, len, "cannot set the capabilities: %s", strerror(errno));
		goto out;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(why, len, "cannot set no_new_privs: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	cap_free(next);
	cap_free(now);
	return rc;
}

void privs_describe(char *buf, size_t len)
{
	cap_t now = cap_get_proc();
	size_t used = 0;

	buf[0] = '\0';
	for (cap_value_t c = 0; now && CAP_IS_SUPPORTED(c) && used < len; c++) {
		cap_flag_value_t v = CAP_CLEAR;
		char *name;

		if (cap_get_flag(now, c, CAP_EFFECTIVE, &v) || v != CAP_SET)
			continue;
		name = cap_to_name(c);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
					 name ? name : "?");
		cap_free(name);
	}
	cap_free(now);
	if (!buf[0])
		snprintf(buf, len, "none");
}

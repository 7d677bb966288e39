// SPDX-License-Identifier: MIT
// Who may use mqtxd's socket: root, the daemon's user and, with -g, members of a group.
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer.h"

/* Members of the allowed group: the primary group or a supplementary one of the user. */
static bool in_group(uid_t uid, gid_t gid, gid_t want)
{
	struct passwd *pw;
	gid_t *groups = NULL;
	int n = 64;
	bool found = false;

	if (gid == want)
		return true;
	pw = getpwuid(uid);
	if (!pw)
		return false;
	/* getgrouplist() says how many groups there are when the array is too small. */
	for (int tries = 0; tries < 2 && !found; tries++) {
		gid_t *g = realloc(groups, (size_t)n * sizeof(*groups));
		int want_n = n;

		if (!g)
			break;
		groups = g;
		if (getgrouplist(pw->pw_name, gid, groups, &want_n) >= 0) {
			for (int i = 0; i < want_n; i++)
				found |= groups[i] == want;
			break;
		}
		n = want_n;
	}
	free(groups);
	return found;
}

bool peer_allowed(int fd, bool has_group, gid_t group, struct ucred *cr, char *why, size_t len)
{
	socklen_t l = sizeof(*cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &l)) {
		snprintf(why, len, "mqtxd: cannot read peer credentials: %s\n", strerror(errno));
		return false;
	}
	if (cr->uid == 0 || cr->uid == geteuid() ||
	    (has_group && in_group(cr->uid, cr->gid, group)))
		return true;
	snprintf(why, len, "mqtxd: permission denied: uid %u (pid %d) may not use this socket "
		 "(allowed: uid %u%s)\n", (unsigned)cr->uid, (int)cr->pid, (unsigned)geteuid(),
		 has_group ? " and its group" : "");
	return false;
}

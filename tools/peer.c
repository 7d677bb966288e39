// SPDX-License-Identifier: MIT
// Who may use mqtxd's socket: root, the daemon's user, and with -g the processes in a group.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer.h"

/* The groups of a process from /proc/PID/status ("Groups: 4 24 27"), for kernels without
 * SO_PEERGROUPS (before 4.13). */
static bool proc_in_group(pid_t pid, gid_t want)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 7, *end;

		if (strncmp(line, "Groups:", 7))
			continue;
		for (;;) {
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			found |= g == want;
			p = end;
		}
		break;
	}
	fclose(f);
	return found;
}

/*
 * Whether the peer is in @want: its effective group, or one of the supplementary groups it had
 * when it connected (SO_PEERGROUPS). What /etc/group says of its user does not count: a
 * process may have dropped a group the file gives it, or been given one the file does not.
 */
static bool in_group(int fd, const struct ucred *cr, gid_t want)
{
	gid_t buf[64], *g = buf;
	socklen_t len = sizeof(buf);
	bool found = false;

	if (cr->gid == want)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
		if (errno == ENOPROTOOPT)
			return proc_in_group(cr->pid, want);
		/* ERANGE: len says how much room all of them need */
		g = errno == ERANGE ? malloc(len) : NULL;
		if (!g || getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
			free(g);
			return false;
		}
	}
	for (size_t i = 0; i < len / sizeof(*g); i++)
		found |= g[i] == want;
	if (g != buf)
		free(g);
	return found;
}

bool peer_allowed(int fd, bool has_group, gid_t group, struct ucred *cr, char *why, size_t len)
{
	socklen_t l = sizeof(*cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &l)) {
		snprintf(why, len, "mqtxd: cannot read peer credentials: %s\n", strerror(errno));
		return false;
	}
	if (cr->uid == 0 || cr->uid == geteuid() || (has_group && in_group(fd, cr, group)))
		return true;
	snprintf(why, len,
		 "mqtxd: permission denied: uid %u (pid %d) may not use this socket "
		 "(allowed: uid %u%s)\n",
		 (unsigned)cr->uid, (int)cr->pid, (unsigned)geteuid(),
		 has_group ? " and its group" : "");
	return false;
}

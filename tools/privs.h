/* SPDX-License-Identifier: MIT */
/* mqtxd's privileges: after start-up it keeps only the capabilities its backends use. */
#ifndef MQTX_TOOLS_PRIVS_H
#define MQTX_TOOLS_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/**
 * privs_drop() - keep only what creating and running the kernel backends needs, for this
 * thread and every thread it starts later (call it while the process has one thread):
 * CAP_NET_ADMIN (create a TAP, bring an interface up, set its MTU, the tc hook and SO_MARK of
 * af_packet's steering), CAP_NET_RAW (AF_PACKET and AF_XDP sockets), CAP_BPF (load af_packet's
 * steering program; CAP_SYS_ADMIN instead on a kernel older than 5.8, which has no CAP_BPF) and
 * CAP_IPC_LOCK (an AF_XDP UMEM is locked memory beyond RLIMIT_MEMLOCK). Each only if the
 * process has it. Every other capability leaves the effective, permitted, inheritable, ambient
 * and bounding sets, and PR_SET_NO_NEW_PRIVS is set, so that nothing the daemon could run
 * would gain one back.
 * @group: with @has_group, added to the supplementary groups first (the group of -g), so that
 *        the socket can be given to it without CAP_CHOWN.
 * @why: the reason on failure.
 * Return: 0, or -1 with @why.
 */
int privs_drop(bool has_group, gid_t group, char *why, size_t len);

/** privs_describe() - the capabilities this thread has now, as names ("cap_net_raw,..."). */
void privs_describe(char *buf, size_t len);

#endif

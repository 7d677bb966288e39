/* SPDX-License-Identifier: MIT */
/* mqtxd's per-user accounts: the connections each user has open and the library memory its
 * commands hold, counted through the library's allocator hook. */
#ifndef MQTX_TOOLS_QUOTA_H
#define MQTX_TOOLS_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct account;

/**
 * quota_init() - route every library allocation through the accounting hook; a user's
 * commands may hold at most @max_bytes (0: no limit). Call before any library object exists.
 */
void quota_init(size_t max_bytes);

/** quota_get() - the account of @uid, made on first use (never freed); NULL: out of memory. */
struct account *quota_get(uid_t uid);

/** quota_connect() - one more connection of @a, unless it has @max (0: no limit): 0 or -1. */
int quota_connect(struct account *a, unsigned max, unsigned *open);

/** quota_disconnect() - one connection of @a fewer. */
void quota_disconnect(struct account *a);

/**
 * quota_charge() - charge the library memory this thread allocates to @a (NULL: to nobody)
 * from now on. Return: whether an allocation was refused for @a's limit since the previous
 * call on this thread.
 */
bool quota_charge(struct account *a);

/** quota_bytes() - the library memory @a's commands hold now. */
size_t quota_bytes(const struct account *a);

/** quota_max() - the limit of quota_init(). */
size_t quota_max(void);

#endif

/* SPDX-License-Identifier: MIT */
/* RCU for pointers the data path reads without a lock (qdiscs, hashers, hooks): liburcu-bp. */
#ifndef MQTX_BASE_RCU_H
#define MQTX_BASE_RCU_H

void mqtx__rcu_read_lock(void);
void mqtx__rcu_read_unlock(void);
/* Wait until every read section that began before the call has ended. */
void mqtx__rcu_synchronize(void);
/* Free @old, which was just unpublished (swapped out of the pointer readers load), once every
 * reader that may still see it has left: a grace period, then mqtx__free(). NULL: nothing,
 * not even the wait (the update that published the first object retires none). */
void mqtx__rcu_retire(void *old);

#endif

// SPDX-License-Identifier: MIT
/* The device's config lock (mqtx's rtnl), which records its holder, so that a reader that may
 * be called under it (the counters, txq.c) can tell whether this thread holds it. */
#include "core/core.h"

/* Each thread's token: the address of a thread-local byte, unique among live threads. */
static MQTX_TLS char config_token;

static void config_own(struct mqtx_dev *dev)
{
	atomic_store_explicit(&dev->config_owner, (uintptr_t)&config_token, memory_order_relaxed);
}

void mqtx__config_lock(struct mqtx_dev *dev)
{
	pthread_mutex_lock(&dev->config_lock);
	config_own(dev);
}

void mqtx__config_unlock(struct mqtx_dev *dev)
{
	atomic_store_explicit(&dev->config_owner, 0, memory_order_relaxed);
	pthread_mutex_unlock(&dev->config_lock);
}

bool mqtx__config_held(struct mqtx_dev *dev)
{
	/* Only this thread writes its own token: another's, or 0, is never mistaken for it. */
	return atomic_load_explicit(&dev->config_owner, memory_order_relaxed) ==
	       (uintptr_t)&config_token;
}

bool mqtx_dev_config_trylock(struct mqtx_dev *dev)
{
	if (pthread_mutex_trylock(&dev->config_lock))
		return false;
	config_own(dev);
	return true;
}

void mqtx_dev_config_lock(struct mqtx_dev *dev)
{
	mqtx__config_lock(dev);
}

void mqtx_dev_config_unlock(struct mqtx_dev *dev)
{
	mqtx__config_unlock(dev);
}

// SPDX-License-Identifier: MIT
/* The device's traffic classes: netdev_set_num_tc, set_tc_queue, prio_tc_map, setup_tc. */
#include <string.h>

#include "core/core.h"

/* Config lock held. Readers (the picker) never see a map change under them: the new map is
 * written into the slot not in use and published; after a grace period no reader can still
 * hold the old slot, so the next change may reuse it. Cannot fail (commit pass). */
static void publish_tc(struct mqtx_dev *dev, const struct mqtx_tc_map *m)
{
	struct mqtx_tc_map *cur = atomic_load(&dev->tc);
	struct mqtx_tc_map *next = cur == &dev->tc_slot[0] ? &dev->tc_slot[1] : &dev->tc_slot[0];

	if (m && m->num_tc)
		*next = *m;
	atomic_store_explicit(&dev->tc, (m && m->num_tc) ? next : NULL, memory_order_release);
	mqtx__rcu_synchronize();
}

void mqtx_dev_set_tc(struct mqtx_dev *dev, unsigned num_tc, const uint8_t *prio_tc_map,
		     const uint16_t *count, const uint16_t *offset)
{
	struct mqtx_tc_map m = { .num_tc = (uint8_t)num_tc };

	for (unsigned i = 0; i < MQTX_TC_MAX; i++) {
		m.tc_to_txq[i].count = i < num_tc ? count[i] : 0;
		m.tc_to_txq[i].offset = i < num_tc ? offset[i] : 0;
		m.prio_tc_map[i] = prio_tc_map[i] & MQTX_TC_BITMASK;
	}
	publish_tc(dev, &m);
}

void mqtx_dev_reset_tc(struct mqtx_dev *dev)
{
	publish_tc(dev, NULL);
}

void mqtx__dev_setup_tc(struct mqtx_dev *dev, uint32_t n)
{
	struct mqtx_tc_map *cur = atomic_load(&dev->tc), m;

	if (!cur)
		return;
	m = *cur;
	/* netif_setup_tc(): TC 0 no longer fits: classification off; else remap what breaks. */
	if (m.tc_to_txq[0].offset + m.tc_to_txq[0].count > n) {
		mqtx_warn("%s: Number of in use tx queues changed invalidating tc mappings. "
			  "Priority traffic classification disabled!",
			  dev->name);
		publish_tc(dev, NULL);
		return;
	}
	for (unsigned p = 1; p < MQTX_TC_MAX; p++) {
		unsigned tc = m.prio_tc_map[p];

		if (m.tc_to_txq[tc].offset + m.tc_to_txq[tc].count > n) {
			mqtx_warn("%s: Number of in use tx queues changed. Priority %u to tc "
				  "mapping %u is no longer valid. Setting map to 0",
				  dev->name, p, tc);
			m.prio_tc_map[p] = 0;
		}
	}
	publish_tc(dev, &m);
}

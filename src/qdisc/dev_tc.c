// SPDX-License-Identifier: MIT
/* The device's traffic classes: netdev_set_num_tc, set_tc_queue, prio_tc_map, setup_tc. */
#include <string.h>

#include "core.h"
#include "qdisc/qtree.h"

/* Writers hold the config lock; the picker reads while the queues run, so the map is written
 * with every queue frozen (as Linux changes it with the device quiesced). */
void mqtx__dev_set_tc(struct mqtx_dev *dev, unsigned num_tc, const uint8_t *prio_tc_map,
		      const uint16_t *count, const uint16_t *offset)
{
	mqtx_dev_lock_all(dev);
	for (unsigned i = 0; i < MQTX_TC_MAX; i++) {
		dev->tc_to_txq[i].count = i < num_tc ? count[i] : 0;
		dev->tc_to_txq[i].offset = i < num_tc ? offset[i] : 0;
		dev->prio_tc_map[i] = prio_tc_map[i] & MQTX_TC_BITMASK;
	}
	dev->num_tc = (uint8_t)num_tc;
	mqtx_dev_unlock_all(dev);
}

void mqtx__dev_reset_tc(struct mqtx_dev *dev)
{
	mqtx_dev_lock_all(dev);
	dev->num_tc = 0;
	memset(dev->tc_to_txq, 0, sizeof(dev->tc_to_txq));
	memset(dev->prio_tc_map, 0, sizeof(dev->prio_tc_map));
	mqtx_dev_unlock_all(dev);
}

void mqtx__dev_setup_tc(struct mqtx_dev *dev, uint32_t n)
{
	if (!dev->num_tc)
		return;
	/* netif_setup_tc(): TC 0 no longer fits: classification off; else remap what breaks. */
	if (dev->tc_to_txq[0].offset + dev->tc_to_txq[0].count > n) {
		mqtx_warn("%s: Number of in use tx queues changed invalidating tc mappings. "
			  "Priority traffic classification disabled!", dev->name);
		dev->num_tc = 0;
		return;
	}
	for (unsigned p = 1; p < MQTX_TC_MAX; p++) {
		unsigned tc = dev->prio_tc_map[p];

		if (dev->tc_to_txq[tc].offset + dev->tc_to_txq[tc].count > n) {
			mqtx_warn("%s: Number of in use tx queues changed. Priority %u to tc "
				  "mapping %u is no longer valid. Setting map to 0",
				  dev->name, p, tc);
			dev->prio_tc_map[p] = 0;
		}
	}
}

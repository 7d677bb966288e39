// SPDX-License-Identifier: MIT
/* How to embed libmqtx: a device, a packet pool, a few packets, the counters. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/mqtx.h>
#include <mqtx/sim.h>

int main(void)
{
	struct mqtx_dev_cfg cfg = { .name = "sim0", .num_txq = 4 };
	struct mqtx_pool_cfg pool_cfg = { .count = 256 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct mqtx_dev_stats st;

	if (mqtx_pool_create(&pool_cfg, &pool) || mqtx_sim_dev_create(&cfg, NULL, &dev) ||
	    mqtx_dev_open(dev))
		return 1;
	for (int i = 0; i < 10; i++) {
		struct mqtx_pkt *pkt = mqtx_pkt_alloc(pool);

		memset(mqtx_pkt_put(pkt, 64), 0, 64); /* your frame here */
		mqtx_dev_xmit(dev, pkt);	      /* consumes pkt */
	}
	mqtx_dev_get_stats(dev, &st);
	printf("%s: %" PRIu64 " packets, %" PRIu64 " bytes sent\n", mqtx_dev_name(dev),
	       st.txq.packets, st.txq.bytes);
	mqtx_dev_destroy(dev); /* closes it: what is still queued is counted and freed */
	mqtx_pool_destroy(pool);
	return st.txq.packets == 10 && st.txq.bytes == 640 ? 0 : 1;
}

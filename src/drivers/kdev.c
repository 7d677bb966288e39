// SPDX-License-Identifier: MIT
/* Which kernel interface a tap, af_packet or af_xdp device sends on, and whether it is gone. */
#include <stddef.h>

#include "kq.h"

const char *mqtx_kdev_ifname(struct mqtx_dev *dev, bool *gone)
{
	const char *name;
	int ifindex = 0;

	if (!dev)
		return NULL;
	name = mqtx__kq_tap_if(dev, &ifindex);
	if (!name)
		name = mqtx__kq_afp_if(dev, &ifindex);
	if (!name)
		name = mqtx__kq_xdp_if(dev, &ifindex);
	if (name && gone)
		*gone = mqtx__kq_if_gone(ifindex);
	return name;
}

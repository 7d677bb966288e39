/* SPDX-License-Identifier: MIT */
/* mqtx: the umbrella header for applications. */
#ifndef MQTX_MQTX_H
#define MQTX_MQTX_H

#include <mqtx/clock.h>
#include <mqtx/common.h>
#include <mqtx/dev.h>
#include <mqtx/flow.h>
#include <mqtx/pkt.h>
#include <mqtx/xstats.h>

#endif

/* SPDX-License-Identifier: MIT */
/* mqtx what-if: the whatif command, which replays a capture in virtual time through candidate
 * configurations and compares per-flow delay and drops (see mqtx(8), WHAT-IF). */
#ifndef MQTX_WHATIF_H
#define MQTX_WHATIF_H

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mqtx_ctl;

/**
 * mqtx_whatif_attach() - register the whatif command in @ctl (see mqtx_ctl_register()). Each
 * run makes contexts of its own, so the command is registered rather than built in: it reads
 * files by name, and belongs in a front end that runs as the user (mqtx), never in a server
 * (it refuses a server's client anyway). It stays until @ctl is freed.
 * @ctl: the context.
 * Return: 0; -EEXIST (@ctl has a whatif command); -ENOMEM.
 */
MQTX_API int mqtx_whatif_attach(struct mqtx_ctl *ctl);

#ifdef __cplusplus
}
#endif
#endif

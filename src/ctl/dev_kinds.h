/* SPDX-License-Identifier: MIT */
/* The driver kinds "dev add NAME type KIND" builds: one table entry per driver (dev_kinds.c). */
#ifndef MQTX_CTL_DEV_KINDS_H
#define MQTX_CTL_DEV_KINDS_H

#include <mqtx/ctl.h>
#include <mqtx/tc.h>

#include "tc/tc.h"

#define KIND_OPT_MAX 256

/* struct dev_kind.flags */
#define KIND_F_IF_QUEUES  0x1u /* without "txqueues N", the interface's count (driver decides) */
#define KIND_F_OWN_QUEUES 0x2u /* the kind's own words give the queues: no txqueues, maxqueues */

/**
 * struct dev_kind - one driver the dev add command can build. Adding a driver is one entry.
 * @kind: the word after "type".
 * @flags: KIND_F_*.
 * @required: optional. A word the command must give for this kind ("ifname"), or NULL.
 * @parse: optional. Offered every word dev add does not know: consume it (and its value) into
 *        @opt (KIND_OPT_MAX bytes, zeroed) and return how many words were used, 0 if the word
 *        is not the driver's, or -1 after a message in @err for a bad value (-MQTX_TC_EXIT_ABORT
 *        where ip link would leave at once with 255: an interface name it refuses). Strings may
 *        point into @argv: they are used only during the command.
 * @create: required unless @file. Build the device from @base (the common options) and @opt. A
 *        driver that logs why it failed, or says it in @ack, gets its message printed
 *        (mqtx__log_capture()).
 * @file: optional. The word whose value names a file the driver writes ("file"). A server's
 *        client opens it with @file_open and passes it open (mqtx_ctl_file_word()); for a local
 *        caller dev add opens it the same way. The device is built with @create_fd, with the
 *        command lock released; a file that the open made goes again if dev add fails.
 * @file_open: with @file: open @path for the device, @argv (@argc words after the device's
 *        name) saying how; the descriptor or -errno with "PATH: why" in @msg, and *@created
 *        whether it made the file.
 * @create_fd: with @file: build the device on the file @fd, already open (the caller closes
 *        it); as @create otherwise.
 * @show: optional. The driver's own settings, with the printer @p: appended to the dev show
 *        line (@flags: MQTX_CTL_F_*; more lines may follow, each starting with a newline), or
 *        members of the device's JSON object.
 * @stats: optional. The driver's counters for dev show -s: text lines, or members of the
 *        device's JSON object (dev show -s -j and dev stats -j, what top reads).
 */
struct dev_kind {
	const char *kind;
	unsigned flags;
	const char *required;
	int (*parse)(void *opt, int argc, char **argv, struct mqtx_buf *err);
	int (*create)(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
		      struct mqtx_extack *ack);
	const char *file;
	int (*file_open)(const char *path, int argc, char **argv, bool *created, char *msg,
			 size_t msglen);
	int (*create_fd)(struct mqtx_dev_cfg *base, const void *opt, int fd, struct mqtx_dev **out);
	void (*show)(struct mqtx_dev *dev, unsigned flags, struct tc_out *p);
	void (*stats)(struct mqtx_dev *dev, struct tc_out *p);
};

/** mqtx__dev_kind() - the kind named @name, or NULL. */
const struct dev_kind *mqtx__dev_kind(const char *name);

/* The sim-wifi kind (kind_sim_wifi.c). */
int mqtx__sim_wifi_parse(void *opt, int argc, char **argv, struct mqtx_buf *err);
int mqtx__sim_wifi_create(struct mqtx_dev_cfg *base, const void *opt, struct mqtx_dev **out,
			  struct mqtx_extack *ack);
void mqtx__sim_wifi_show(struct mqtx_dev *dev, unsigned flags, struct tc_out *p);
void mqtx__sim_wifi_stats(struct mqtx_dev *dev, struct tc_out *p);

/** mqtx__dev_kind_of() - the kind of @dev's driver, or NULL (a driver dev add cannot build). */
const struct dev_kind *mqtx__dev_kind_of(struct mqtx_dev *dev);

#endif

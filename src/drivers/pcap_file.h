/* SPDX-License-Identifier: MIT */
/* The pcap driver's file (pcap_file.c): the checks of a descriptor handed over, and removing a
 * file that the driver's own open created (private to src/drivers/). */
#ifndef MQTX_DRIVERS_PCAP_FILE_H
#define MQTX_DRIVERS_PCAP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* "a FIFO, not a regular file" and the like, for a file of mode @m. */
const char *mqtx__pcap_file_type(mode_t m);

/*
 * Whether @fd can be a pcap device's file: a regular file open for writing, not for appending,
 * and empty unless @overwrite. Does no I/O on it. 0, or -errno with "NAME: why" in @msg
 * (-EINVAL, or -EEXIST for a file that is not empty).
 */
int mqtx__pcap_file_check(int fd, const char *name, bool overwrite, char *msg, size_t msglen);

/* Remove @path if it is still the file @fd is open on. */
void mqtx__pcap_file_remove(const char *path, int fd);

#endif

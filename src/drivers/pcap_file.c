// SPDX-License-Identifier: MIT
/* The pcap driver's file: how it is opened by name (never through a symbolic link, never an
 * existing file unless asked, nothing but a regular file, without blocking), what a descriptor
 * handed over must be, and removing only a file that this open created. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mqtx/pcap.h>

#include "pcap_file.h"

const char *mqtx__pcap_file_type(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link, which is not followed";
	if (S_ISFIFO(m))
		return "a FIFO, not a regular file";
	if (S_ISDIR(m))
		return "a directory, not a regular file";
	if (S_ISCHR(m))
		return "a character device, not a regular file";
	if (S_ISBLK(m))
		return "a block device, not a regular file";
	if (S_ISSOCK(m))
		return "a socket, not a regular file";
	return "not a regular file";
}

static int refuse(int err, char *msg, size_t msglen, const char *fmt, const char *path,
		  const char *why)
{
	snprintf(msg, msglen, fmt, path, why);
	return -err;
}

/* What is at @path, which open() refused with @err: a link or something else that is not a
 * regular file is said as such; any other errno as itself. */
static int open_refused(const char *path, int err, const char *what, char *msg, size_t msglen)
{
	struct stat st;

	if ((err == ELOOP || err == ENXIO || err == EISDIR || err == EEXIST) && !lstat(path, &st) &&
	    !S_ISREG(st.st_mode))
		return refuse(S_ISLNK(st.st_mode) ? ELOOP : EINVAL, msg, msglen, "%s: %s", path,
			      mqtx__pcap_file_type(st.st_mode));
	if (err == EEXIST)
		return refuse(EEXIST, msg, msglen, "%s: %s", path,
			      "File exists (add \"overwrite\" to replace it)");
	snprintf(msg, msglen, "%s: cannot %s: %s", path, what, strerror(err));
	return -err;
}

/*
 * Create @path (O_EXCL: nothing there is followed or reused), or with @overwrite open the
 * regular file already there. A file that goes or comes between the two tries is tried again,
 * a few times. Returns the descriptor with *@created set, or -errno.
 */
static int open_or_create(const char *path, bool overwrite, bool *created, char *msg, size_t msglen)
{
	/* O_NONBLOCK: a FIFO put there in the meantime opens at once (ENXIO without a reader)
	 * instead of waiting for a reader forever; O_NOCTTY: a terminal is not taken over. */
	const int flags = O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
	struct stat st;
	int fd = -1, err = 0;

	for (int tries = 0; tries < 4 && fd < 0; tries++) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0666);
		if (fd >= 0) {
			*created = true;
			break;
		}
		err = errno;
		if (err != EEXIST || !overwrite)
			return open_refused(path, err, "create", msg, msglen);
		/* Only a regular file is opened at all: opening a device may do something. */
		if (lstat(path, &st)) {
			err = errno;
			if (err == ENOENT)
				continue;
			return open_refused(path, err, "open", msg, msglen);
		}
		if (!S_ISREG(st.st_mode))
			return open_refused(path, EEXIST, "open", msg, msglen);
		fd = open(path, flags);
		err = errno;
		if (fd < 0 && err != ENOENT)
			return open_refused(path, err, "open", msg, msglen);
	}
	if (fd < 0)
		return open_refused(path, err, "open", msg, msglen);
	return fd;
}

int mqtx_pcap_open(const char *path, bool overwrite, bool *created, char *msg, size_t msglen)
{
	struct stat st;
	int fd, err;

	*created = false;
	if (!path || !*path) {
		snprintf(msg, msglen, "no file named");
		return -EINVAL;
	}
	fd = open_or_create(path, overwrite, created, msg, msglen);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		err = -errno;
		snprintf(msg, msglen, "%s: %s", path, strerror(-err));
	} else if (!S_ISREG(st.st_mode)) {
		err = refuse(EINVAL, msg, msglen, "%s: %s", path, mqtx__pcap_file_type(st.st_mode));
	} else if (!*created && st.st_uid != geteuid()) {
		snprintf(msg, msglen, "%s: belongs to uid %u, not to you (uid %u): not replaced",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
		err = -EPERM;
	} else if (!*created && st.st_nlink != 1) {
		/* Another name of the same file (a hard link put there) is some other file. */
		snprintf(msg, msglen, "%s: has %lu links: not replaced", path,
			 (unsigned long)st.st_nlink);
		err = -EPERM;
	} else if (!*created && ftruncate(fd, 0)) {
		err = -errno;
		snprintf(msg, msglen, "%s: cannot empty it: %s", path, strerror(-err));
	} else {
		return fd;
	}
	if (*created)
		mqtx__pcap_file_remove(path, fd);
	close(fd);
	*created = false;
	return err;
}

int mqtx__pcap_file_check(int fd, const char *name, bool overwrite, char *msg, size_t msglen)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fstat(fd, &st))
		return refuse(errno, msg, msglen, "%s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse(EINVAL, msg, msglen, "%s: %s", name,
			      mqtx__pcap_file_type(st.st_mode));
	if ((fl & O_ACCMODE) == O_RDONLY)
		return refuse(EINVAL, msg, msglen, "%s: %s", name, "not open for writing");
	/* Records go at the offsets the driver keeps; O_APPEND would put them elsewhere. */
	if (fl & O_APPEND)
		return refuse(EINVAL, msg, msglen, "%s: %s", name,
			      "open for appending (O_APPEND): records are written at their place");
	if (st.st_size && !overwrite)
		return refuse(EEXIST, msg, msglen, "%s: %s", name,
			      "not empty (add \"overwrite\" to replace it)");
	return 0;
}

void mqtx__pcap_file_remove(const char *path, int fd)
{
	struct stat a, b;

	/* Only the file this open created, still at @path (not one put in its place since). */
	if (!fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(path);
}

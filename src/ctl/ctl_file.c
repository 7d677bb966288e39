// SPDX-License-Identifier: MIT
/* The files commands name: which word names one, how a client opens it to pass it to a server,
 * and removing what that open created when the command failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/ctl_int.h"
#include "ctl/dev_kinds.h"
#include "ctl/replay_words.h"

/* As the replay command reads its words: "replay [OPTIONS] FILE [OPTIONS]", not show, stop or
 * help; FILE's index in @argv, or -1. */
static int replay_file(int argc, char **argv)
{
	if (argc >= 2 && mqtx__tc_matches(argv[0], "replay") && strcmp(argv[1], "show") &&
	    strcmp(argv[1], "stop") && strcmp(argv[argc - 1], "help"))
		return mqtx__replay_file_arg(argc, argv);
	return -1;
}

/* "dev add NAME ... type KIND ... WORD FILE" for a kind whose driver writes a file: the kind
 * (the last "type" wins, as dev add reads them), and FILE's index (the first WORD, the one
 * dev add takes), or -1. */
static int dev_add_file(int argc, char **argv, const struct dev_kind **kind)
{
	const struct dev_kind *k = NULL;

	if (argc < 3 || !mqtx__tc_matches(argv[0], "dev") || strcmp(argv[1], "add") ||
	    !strcmp(argv[argc - 1], "help"))
		return -1;
	for (int i = 3; i + 1 < argc; i++)
		if (!strcmp(argv[i], "type"))
			k = mqtx__dev_kind(argv[i + 1]);
	if (!k || !k->file)
		return -1;
	for (int i = 3; i + 1 < argc; i++) {
		if (!strcmp(argv[i], k->file)) {
			*kind = k;
			return i + 1;
		}
	}
	return -1;
}

int mqtx_ctl_file_word(int argc, char **argv)
{
	const struct dev_kind *k;
	int i = 0, w;

	while (i < argc && argv[i][0] == '-')
		i++; /* leading options, as the dispatcher takes them */
	w = replay_file(argc - i, argv + i);
	if (w >= 0)
		return i + w;
	w = dev_add_file(argc - i, argv + i, &k);
	return w < 0 ? -1 : i + w;
}

int mqtx_ctl_file_open(int argc, char **argv, struct mqtx_ctl_file *f, struct mqtx_buf *err)
{
	int word = mqtx_ctl_file_word(argc, argv), i = 0, fd;
	const struct dev_kind *k;
	char msg[320];

	*f = (struct mqtx_ctl_file){ .fd = -1 };
	if (word < 0)
		return 0;
	while (argv[i][0] == '-')
		i++;
	if (replay_file(argc - i, argv + i) >= 0) {
		/* O_NONBLOCK: a FIFO opens at once, and the command refuses it unread. */
		fd = open(argv[word], O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			mqtx_buf_printf(err, "replay: %s: %s\n", argv[word], strerror(errno));
			return MQTX_TC_EXIT_PARSE;
		}
	} else {
		dev_add_file(argc - i, argv + i, &k);
		fd = k->file_open(argv[word], argc - i - 3, argv + i + 3, &f->created, msg,
				  sizeof(msg));
		if (fd < 0) {
			/* As dev add says a driver's refusal: "dev add: NAME: KIND: why". */
			mqtx_buf_printf(err, "dev add: %s: %s: %s\n", argv[i + 2], k->kind, msg);
			return MQTX_TC_EXIT_REFUSED;
		}
	}
	f->fd = fd;
	f->path = argv[word];
	return 0;
}

void mqtx__ctl_file_remove(const char *path, int fd)
{
	struct stat a, b;

	/* Only the file this open created, still at its path (not one put there since). */
	if (!fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(path);
}

void mqtx_ctl_file_close(struct mqtx_ctl_file *f, bool failed)
{
	if (f->fd < 0)
		return;
	if (failed && f->created)
		mqtx__ctl_file_remove(f->path, f->fd);
	close(f->fd);
	*f = (struct mqtx_ctl_file){ .fd = -1 };
}

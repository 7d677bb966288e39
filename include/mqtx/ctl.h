/* SPDX-License-Identifier: MIT */
/* mqtx control language: the tc-like commands every front end shares (mqtxd, mqtx -batch). */
#ifndef MQTX_CTL_H
#define MQTX_CTL_H

#include <mqtx/dev.h>
#include <mqtx/tc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The exit codes of a command are tc's: enum mqtx_tc_exit (<mqtx/tc.h>). */

/* Flags for mqtx_ctl_exec(). */
#define MQTX_CTL_F_STATS   0x1u /* -s */
#define MQTX_CTL_F_JSON	   0x2u /* -j */
#define MQTX_CTL_F_DETAILS 0x4u /* -d */
#define MQTX_CTL_F_BRIEF   0x8u /* -br: filter show as tc -br prints it (terse dump) */

/**
 * struct mqtx_buf - a growing text buffer (output and error text of a command).
 * @data, @len, @cap: the text (NUL-terminated once anything was written), its length, room.
 * @nomem: an append failed for want of memory. The text stops where that append would have
 *         started: every later append fails too, so the text never has a hole.
 */
struct mqtx_buf {
	char *data;
	size_t len, cap;
	bool nomem;
};

/** mqtx_buf_init() - an empty buffer (no allocation yet); mqtx_buf_free() - release its text
 *  and make it empty again. */
MQTX_API void mqtx_buf_init(struct mqtx_buf *b);
MQTX_API void mqtx_buf_free(struct mqtx_buf *b);
/** mqtx_buf_printf() - append; returns 0 or -ENOMEM (the buffer keeps what it had, @nomem). */
MQTX_API int mqtx_buf_printf(struct mqtx_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** A control context: the named devices a front end manages (what mqtxd hosts). */
struct mqtx_ctl;

/**
 * mqtx_ctl_new() - an empty context with the built-in commands (qdisc, class, filter, dev,
 * hash, help, sta, ba, wme); generators and replays are a separate object (mqtx_jobs_attach() in
 * <mqtx/gen.h>).
 * Return: 0 and *@out, or -ENOMEM.
 */
MQTX_API int mqtx_ctl_new(struct mqtx_ctl **out);

/**
 * mqtx_ctl_free() - tell every watch (mqtx_ctl_watch()) that the context goes, destroy its
 * devices, free it. No command may run on it any more.
 */
MQTX_API void mqtx_ctl_free(struct mqtx_ctl *ctl);

/**
 * mqtx_ctl_add_dev() - let the context manage @dev under its name (it will destroy it). The
 * device belongs to no client: a server's clients see it, and only root and the admin
 * (mqtx_ctl_set_admin()) may change it.
 * Return: 0, -EEXIST (name taken), -ENOMEM.
 */
MQTX_API int mqtx_ctl_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev);

/** mqtx_ctl_dev() - the device named @name, or NULL. */
MQTX_API struct mqtx_dev *mqtx_ctl_dev(struct mqtx_ctl *ctl, const char *name);

/**
 * mqtx_ctl_exec() - run one command, given as the words after "mqtx" (e.g. "qdisc", "add",
 * "dev", "eth0", "root", "handle", "1:", "mq"). Thread-safe: commands are serialised per
 * context. Output goes to @out (text as tc prints it, or JSON with MQTX_CTL_F_JSON), error
 * messages naming the offending token to @err.
 * A command that reads a file ("replay FILE") opens it by name, read-only and without blocking,
 * refuses anything but a regular file (a FIFO, device or directory) without reading it, and
 * reads it with the context's lock released, so that a big file delays no other command. One
 * that writes a file (a pcap device's "file PATH") creates it as mqtx_pcap_open() says, with
 * the lock released too; a relative path is the calling process's.
 * Return: MQTX_TC_EXIT_OK, MQTX_TC_EXIT_PARSE, MQTX_TC_EXIT_REFUSED or MQTX_TC_EXIT_ABORT. A command that
 * fails changes nothing. Output that could not be written in full (out of memory) makes the
 * command fail with MQTX_TC_EXIT_REFUSED and is withheld: @out is left empty, its @nomem set, and
 * so is the output of any command that failed after an allocation was refused; a caller never
 * gets a cut listing. A command that changes something makes room for its output before it
 * does, so that such a failure too changes nothing.
 */
MQTX_API int mqtx_ctl_exec(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
			   struct mqtx_buf *out, struct mqtx_buf *err);

/**
 * struct mqtx_ctl_req - what a server knows of a command it runs for a client
 * (mqtx_ctl_exec_req()).
 * @fd: the file the command reads or writes (see mqtx_ctl_file_word()), opened by the client
 *      (mqtx_ctl_file_open()) and passed to the server (over a Unix socket with SCM_RIGHTS), or
 *      -1 for none. It must be a regular file; the command's FILE word then only names it in
 *      messages.
 * @owner: whose command it is (mqtxd: the client's uid). The devices, shared filter blocks,
 *      generators, replays and packet pools the command creates belong to @owner (the latter
 *      three count against the limits below), and @owner may change or delete only what
 *      belongs to it, and what is on its devices (qdiscs, classes, filters, stations, jobs):
 *      everything else it sees read-only. Owner 0 (root) and the owner given to
 *      mqtx_ctl_set_admin() may change everything, and so may a local caller (mqtx_ctl_exec()),
 *      whose objects belong to none of the owners. Only for owner 0 (root) does the library
 *      open a file by name when @fd is -1, and only a pcap device's, by an absolute path.
 * @who: how messages name @owner ("uid 1000").
 * @max_jobs: most generators and replays @owner may have running at once; 0: no limit.
 * @max_pools: most packet pools (one per device that a job of @owner was the first to use)
 *      @owner may hold; a pool goes with its device (dev del). 0: no limit.
 */
struct mqtx_ctl_req {
	int fd;
	unsigned owner;
	const char *who;
	unsigned max_jobs, max_pools;
};

/**
 * struct mqtx_ctl_call - one command as the dispatcher hands it to its function.
 * @ctl: the context; its command lock is held for the whole call (commands run one at a time
 *       per context), so the function must not call the locking mqtx_ctl_dev(),
 *       mqtx_ctl_add_dev() or mqtx_ctl_exec() on it, but mqtx_ctl_call_dev() and the like.
 * @argc: the number of words in @argv.
 * @argv: the command's full name first (as messages spell it, whatever prefix was typed:
 *       "replay" for "rep"), then the words after it; NULL-terminated.
 * @flags: MQTX_CTL_F_* (leading -s, -j, -d already taken out of @argv).
 * @req: what a server knows of the client the command runs for (mqtx_ctl_exec_req()), or NULL
 *       for a local caller (mqtx_ctl_exec()).
 * @out: where the output goes (text as tc prints it, or JSON with MQTX_CTL_F_JSON).
 * @err: where error messages go, naming the offending word.
 */
struct mqtx_ctl_call {
	struct mqtx_ctl *ctl;
	int argc;
	char **argv;
	unsigned flags;
	const struct mqtx_ctl_req *req;
	struct mqtx_buf *out, *err;
};

/**
 * typedef mqtx_ctl_cmd_fn - a command of the language (see struct mqtx_ctl_cmd).
 * @call: the command's words and where to write; valid during the call only.
 * @arg: the registration's @arg.
 * Return: MQTX_TC_EXIT_OK, MQTX_TC_EXIT_PARSE, MQTX_TC_EXIT_REFUSED or MQTX_TC_EXIT_ABORT, with a message
 * in @call->err unless MQTX_TC_EXIT_OK. A command that fails must change nothing.
 */
typedef int (*mqtx_ctl_cmd_fn)(const struct mqtx_ctl_call *call, void *arg);

/**
 * struct mqtx_ctl_cmd - one object of the language ("qdisc", "dev", "gen", ...): every command,
 * built in or registered, has this one signature.
 * @name: the object's word (a user may type any prefix of it, as tc takes them); not copied.
 * @fn: required. Runs the command.
 * @arg: passed to @fn.
 * @help: the command's synopsis lines for "mqtx help" (no trailing newline); not copied.
 */
struct mqtx_ctl_cmd {
	const char *name;
	mqtx_ctl_cmd_fn fn;
	void *arg;
	const char *help;
};

/**
 * mqtx_ctl_register() - add the command @cmd (copied; its strings are not) to @ctl, after the
 * built-in ones (qdisc, class, filter, dev, help, hash, sta, ba, wme) and those registered
 * before it: a typed prefix runs the first command it matches in that order.
 * Return: 0; -EINVAL (no name or function); -EEXIST (a command of that name exists); -ENOMEM.
 */
MQTX_API int mqtx_ctl_register(struct mqtx_ctl *ctl, const struct mqtx_ctl_cmd *cmd);

/**
 * mqtx_ctl_unregister() - remove the registered command @name from @ctl (built-in commands
 * cannot be removed). Waits for a running command to finish.
 * Return: 0, or -ENOENT (no registered command of that name).
 */
MQTX_API int mqtx_ctl_unregister(struct mqtx_ctl *ctl, const char *name);

/**
 * typedef mqtx_ctl_gone_fn - told that a device leaves a context (see mqtx_ctl_watch()).
 * @ctl: the context (its command lock held).
 * @dev: the device, still in the state it had (up or down), about to be destroyed; or NULL
 *       when @ctl itself is being freed: release everything tied to any of its devices now
 *       (they are destroyed next); the watch ends with this call.
 * @arg: the watch's @arg.
 */
typedef void (*mqtx_ctl_gone_fn)(struct mqtx_ctl *ctl, struct mqtx_dev *dev, void *arg);

/**
 * mqtx_ctl_watch() - call @fn before any device leaves @ctl (the dev del command) and when @ctl
 * is freed, so that an object built on the context's devices (a job table, for instance) lets
 * go of them first. Watches are called in the order they were added.
 * Return: 0, -ENOMEM.
 */
MQTX_API int mqtx_ctl_watch(struct mqtx_ctl *ctl, mqtx_ctl_gone_fn fn, void *arg);

/** mqtx_ctl_unwatch() - remove the watch of mqtx_ctl_watch() with this @fn and @arg, if any. */
MQTX_API void mqtx_ctl_unwatch(struct mqtx_ctl *ctl, mqtx_ctl_gone_fn fn, void *arg);

/**
 * mqtx_ctl_dev_next() - walk the devices of @ctl in the order they were added: the first with
 * @prev NULL, then the one after @prev.
 * Return: the device, or NULL past the last (or when @prev is no longer in @ctl). Devices added
 * or removed during a walk may be missed; a walk that only changes devices (dev set) sees each
 * once.
 */
MQTX_API struct mqtx_dev *mqtx_ctl_dev_next(struct mqtx_ctl *ctl, const struct mqtx_dev *prev);

/**
 * mqtx_ctl_call_dev() - the one device lookup of the commands: the device @name of the context
 * of @call (whose lock the command holds).
 * Return: the device, or NULL after writing tc's message to @call->err
 * ("Cannot find device \"NAME\""); the command then fails with MQTX_TC_EXIT_PARSE, as tc does.
 */
MQTX_API struct mqtx_dev *mqtx_ctl_call_dev(const struct mqtx_ctl_call *call, const char *name);

/**
 * mqtx_ctl_exec_req() - mqtx_ctl_exec() for a server that runs other processes' commands. A
 * file a command reads or writes must come open as @req->fd: the library opens no name for a
 * client (the name would be resolved in the server's directory, with the server's permissions,
 * and could be a FIFO that blocks), except a pcap device's absolute path for owner 0 (root),
 * which it opens as mqtx_pcap_open() says. A command that names a file but comes without it is
 * otherwise refused (MQTX_TC_EXIT_PARSE), and so is a file with a command that names none. A file
 * a driver writes is set up with the context's lock released. @req->owner's limits apply to the
 * generators, replays and pools it creates (MQTX_TC_EXIT_REFUSED past one, with a message naming
 * the limit), and a command that would change or delete what another owner made is refused
 * (MQTX_TC_EXIT_REFUSED, "Operation not permitted", naming the object and its owner) and changes
 * nothing; see struct mqtx_ctl_req.
 * @req->fd is closed in every case (a replay or a device keeps its own copy).
 * Return: as mqtx_ctl_exec().
 */
MQTX_API int mqtx_ctl_exec_req(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
			       const struct mqtx_ctl_req *req, struct mqtx_buf *out,
			       struct mqtx_buf *err);

/**
 * mqtx_ctl_set_admin() - let the requests of @owner (mqtx_ctl_exec_req()) change and delete
 * every object of @ctl, as root's (owner 0) may: a server gives it its own user, so that the
 * objects its configuration made (which belong to no owner) are not read-only to it. One admin
 * per context; a later call replaces it.
 */
MQTX_API void mqtx_ctl_set_admin(struct mqtx_ctl *ctl, unsigned owner);

/**
 * mqtx_ctl_file_word() - the word of a command that names a file the command reads (the FILE
 * of "replay FILE dev NAME") or writes (the PATH of "dev add NAME type pcap file PATH"), so
 * that a client can open it itself and pass it to a server for mqtx_ctl_exec_req(). Leading
 * options (-s, -j, -d) are skipped as mqtx_ctl_exec() skips them.
 * Return: the index of that word in @argv, or -1 when the command names no file.
 */
MQTX_API int mqtx_ctl_file_word(int argc, char **argv);

/**
 * struct mqtx_ctl_file - the file of a command, opened by a client (mqtx_ctl_file_open()).
 * @fd: the open file to pass with the command (mqtx_ctl_req.fd), or -1 when it names none.
 * @path: its word in the command's @argv (not copied), or NULL.
 * @created: the open created it (a capture a device will write): mqtx_ctl_file_close() removes
 *        it again when the command failed.
 */
struct mqtx_ctl_file {
	int fd;
	const char *path;
	bool created;
};

/**
 * mqtx_ctl_file_open() - open the file a command names (mqtx_ctl_file_word()) as the command
 * would, here in the client, so that the kernel checks the client's rights and a relative path
 * is the client's: a capture to replay read-only; a pcap device's file created as
 * mqtx_pcap_open() says ("overwrite" among the words replaces a regular file of the client's
 * own). Neither blocks on a FIFO. Keep @f open until the command's reply has come, then call
 * mqtx_ctl_file_close().
 * @f: set in every case (@f->fd -1 when there is nothing to open, or on failure).
 * @err: on failure, the message the command would give ("replay: FILE: why", "dev add: NAME:
 *       pcap: PATH: why").
 * Return: 0; or the exit code the command would have (MQTX_TC_EXIT_PARSE for a capture to read,
 * MQTX_TC_EXIT_REFUSED for a file to write).
 */
MQTX_API int mqtx_ctl_file_open(int argc, char **argv, struct mqtx_ctl_file *f,
				struct mqtx_buf *err);

/**
 * mqtx_ctl_file_close() - close the file of mqtx_ctl_file_open(). With @failed (the command's
 * reply said it failed), a file the open created is removed, if it is still the same file:
 * nothing is left of a command that failed. Pass false when the reply did not come (the command
 * may still complete). Accepts an @f with nothing open.
 */
MQTX_API void mqtx_ctl_file_close(struct mqtx_ctl_file *f, bool failed);

/** Most words one command line may have (as many as mqtxd takes in one request). */
#define MQTX_CTL_WORDS_MAX 1024

/**
 * mqtx_ctl_split() - split one command line into words, the one way every front end reads
 * them (mqtx -batch, mqtxd -c, mqtx_ctl_exec_line()): blanks (space, tab, CR, LF) separate
 * words; double quotes group blanks into a word and may open and close inside one
 * (a"b c"d is the word "ab cd"; "" is an empty word); a '#' where a word would start begins a
 * comment that runs to the end of the line. There are no escapes.
 * @line: the text (not changed).
 * @argc: the number of words (0 for an empty or comment-only line).
 * @argv: a NULL-terminated array of the words; free it with mqtx_ctl_split_free().
 * @err: where a message naming the problem goes on failure.
 * Return: 0; -EINVAL (a quote that is never closed; the message gives its column), -E2BIG
 * (more than MQTX_CTL_WORDS_MAX words), -ENOMEM. On failure *@argc and *@argv are not set.
 */
MQTX_API int mqtx_ctl_split(const char *line, int *argc, char ***argv, struct mqtx_buf *err);

/** mqtx_ctl_split_free() - free the words of mqtx_ctl_split(); NULL allowed. */
MQTX_API void mqtx_ctl_split_free(char **argv);

/**
 * mqtx_ctl_exec_line() - split @line with mqtx_ctl_split() and run it as mqtx_ctl_exec().
 * An empty or comment line returns MQTX_TC_EXIT_OK; a line that cannot be split runs nothing and
 * returns MQTX_TC_EXIT_PARSE (MQTX_TC_EXIT_REFUSED when out of memory) with the message in @err.
 */
MQTX_API int mqtx_ctl_exec_line(struct mqtx_ctl *ctl, const char *line, unsigned flags,
				struct mqtx_buf *out, struct mqtx_buf *err);

#ifdef __cplusplus
}
#endif
#endif

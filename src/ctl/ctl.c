// SPDX-License-Identifier: MIT
/* The control language: text buffers, the context's devices, word splitting, the dispatcher. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctl/cmd_tool.h"
#include "ctl/ctl_int.h"
#include "base/internal.h"

/* ---- text buffer ---- */

void mqtx_buf_init(struct mqtx_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->nomem = false;
}

void mqtx_buf_free(struct mqtx_buf *b)
{
	mqtx__free(b->data);
	mqtx_buf_init(b);
}

int mqtx__buf_reserve(struct mqtx_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->nomem)
		return -ENOMEM; /* an earlier append is missing: nothing may follow it */
	if (b->len + need + 1 <= b->cap)
		return 0;
	while (cap < b->len + need + 1)
		cap *= 2;
	p = mqtx__alloc(cap);
	if (!p) {
		b->nomem = true;
		return -ENOMEM;
	}
	if (b->data)
		memcpy(p, b->data, b->len + 1);
	else
		p[0] = 0;
	mqtx__free(b->data);
	b->data = p;
	b->cap = cap;
	return 0;
}

int mqtx_buf_printf(struct mqtx_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || mqtx__buf_reserve(b, (size_t)n))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/* ---- context and devices ---- */

int mqtx_ctl_new(struct mqtx_ctl **out)
{
	struct mqtx_ctl *ctl = mqtx__zalloc(sizeof(*ctl));

	if (!ctl)
		return -ENOMEM;
	pthread_mutex_init(&ctl->lock, NULL);
	*out = ctl;
	return 0;
}

void mqtx_ctl_free(struct mqtx_ctl *ctl)
{
	if (!ctl)
		return;
	mqtx__tool_ctl_free(ctl); /* generators and replays stop before their devices go */
	for (unsigned i = ctl->ndevs; i-- > 0;)
		mqtx_dev_destroy(ctl->devs[i]);
	mqtx__free(ctl->devs);
	pthread_mutex_destroy(&ctl->lock);
	mqtx__free(ctl);
}

struct mqtx_dev *mqtx__tool_find_dev(struct mqtx_ctl *ctl, const char *name)
{
	for (unsigned i = 0; i < ctl->ndevs; i++)
		if (!strcmp(mqtx_dev_name(ctl->devs[i]), name))
			return ctl->devs[i];
	return NULL;
}

int mqtx__tool_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev)
{
	struct mqtx_dev **d;

	if (mqtx__tool_find_dev(ctl, mqtx_dev_name(dev)))
		return -EEXIST;
	if (ctl->ndevs == ctl->cap) {
		unsigned cap = ctl->cap ? ctl->cap * 2 : 8;

		d = mqtx__alloc(cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		if (ctl->ndevs)
			memcpy(d, ctl->devs, ctl->ndevs * sizeof(*d));
		mqtx__free(ctl->devs);
		ctl->devs = d;
		ctl->cap = cap;
	}
	ctl->devs[ctl->ndevs++] = dev;
	return 0;
}

struct mqtx_dev *mqtx__ctl_detach_dev(struct mqtx_ctl *ctl, const char *name)
{
	for (unsigned i = 0; i < ctl->ndevs; i++) {
		struct mqtx_dev *dev = ctl->devs[i];

		if (strcmp(mqtx_dev_name(dev), name))
			continue;
		memmove(&ctl->devs[i], &ctl->devs[i + 1], (ctl->ndevs - i - 1) * sizeof(dev));
		ctl->ndevs--;
		return dev;
	}
	return NULL;
}

struct mqtx_dev *mqtx__ctl_dev_at(struct mqtx_ctl *ctl, unsigned i)
{
	return i < ctl->ndevs ? ctl->devs[i] : NULL;
}

int mqtx_ctl_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev)
{
	int err;

	pthread_mutex_lock(&ctl->lock);
	err = mqtx__tool_add_dev(ctl, dev);
	pthread_mutex_unlock(&ctl->lock);
	return err;
}

struct mqtx_dev *mqtx_ctl_dev(struct mqtx_ctl *ctl, const char *name)
{
	struct mqtx_dev *dev;

	pthread_mutex_lock(&ctl->lock);
	dev = mqtx__tool_find_dev(ctl, name);
	pthread_mutex_unlock(&ctl->lock);
	return dev;
}

struct mqtx_dev *mqtx__ctl_find_dev(struct mqtx_ctl_args *a, const char *name)
{
	struct mqtx_dev *dev = mqtx__tool_find_dev(a->ctl, name);

	if (!dev)
		mqtx_buf_printf(a->err, "Cannot find device \"%s\"\n", name);
	return dev;
}

bool mqtx__ctl_matches(const char *word, const char *cmd)
{
	size_t n = strlen(word);

	return n && n <= strlen(cmd) && !memcmp(word, cmd, n);
}

int mqtx__tool_call(struct mqtx_ctl_args *a, const char *name, mqtx_tool_fn fn)
{
	char *argv[a->argc + 2];

	/* The dispatcher passes the words after the (maybe abbreviated) name; the tool commands
	 * take the full name first. */
	argv[0] = (char *)name;
	memcpy(argv + 1, a->argv, (size_t)a->argc * sizeof(*argv));
	argv[a->argc + 1] = NULL;
	return fn(a->ctl, a->argc + 1, argv, a->flags, a->out, a->err);
}

/* ---- dispatcher ---- */

static int cmd_help(struct mqtx_ctl_args *a);

/* Other front-end commands (dev, gen, replay, hash) add their entries here. */
static const struct mqtx_ctl_cmd commands[] = {
	{ "qdisc", mqtx__ctl_qdisc,
	  "qdisc { add | replace | change | del } dev NAME { root | parent X:Y | ingress } "
	  "[ handle X: ] KIND [ OPTIONS ]\nqdisc show [ dev NAME ]" },
	{ "class", mqtx__ctl_class, "class show dev NAME" },
	{ "dev", mqtx__cmd_dev, MQTX_CMD_DEV_HELP },
	{ "gen", mqtx__cmd_gen, MQTX_CMD_GEN_HELP },
	{ "replay", mqtx__cmd_replay, MQTX_CMD_REPLAY_HELP },
	{ "help", cmd_help, "help" },
	{ "hash", mqtx__cmd_hash, MQTX_CMD_HASH_HELP },
};

static int cmd_help(struct mqtx_ctl_args *a)
{
	mqtx_buf_printf(a->out, "Usage: mqtx [ -s ] [ -j ] [ -d ] OBJECT COMMAND\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		mqtx_buf_printf(a->out, "%s\n", commands[i].help);
	return MQTX_CTL_OK;
}

/* Leading options as tc takes them: -s[tatistics], -j[son], -d[etails]. */
static unsigned take_options(int *argc, char ***argv, unsigned flags, bool *bad)
{
	while (*argc > 0 && (*argv)[0][0] == '-') {
		const char *o = (*argv)[0] + 1;

		if (*o == '-')
			o++;
		if (mqtx__ctl_matches(o, "statistics"))
			flags |= MQTX_CTL_F_STATS;
		else if (mqtx__ctl_matches(o, "json"))
			flags |= MQTX_CTL_F_JSON;
		else if (mqtx__ctl_matches(o, "details"))
			flags |= MQTX_CTL_F_DETAILS;
		else {
			*bad = true;
			break;
		}
		(*argc)--;
		(*argv)++;
	}
	return flags;
}

int mqtx_ctl_exec(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		  struct mqtx_buf *out, struct mqtx_buf *err)
{
	struct mqtx_ctl_args a = { .ctl = ctl, .out = out, .err = err };
	bool bad = false;
	int rc;

	flags = take_options(&argc, &argv, flags, &bad);
	if (bad) {
		mqtx_buf_printf(err, "Option \"%s\" is unknown, try \"mqtx help\".\n", argv[0]);
		return MQTX_CTL_EPARSE;
	}
	if (argc < 1) {
		mqtx_buf_printf(err, "Usage: mqtx [ OPTIONS ] OBJECT { COMMAND | help }\n");
		return MQTX_CTL_EPARSE;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!mqtx__ctl_matches(argv[0], commands[i].name))
			continue;
		a.argc = argc - 1;
		a.argv = argv + 1;
		a.flags = flags;
		pthread_mutex_lock(&ctl->lock);
		rc = commands[i].fn(&a);
		pthread_mutex_unlock(&ctl->lock);
		/* Cut output is not output: a caller must not take a prefix for the whole. */
		if (rc == MQTX_CTL_OK && out->nomem) {
			mqtx_buf_printf(err, "Out of memory: the output is incomplete\n");
			rc = MQTX_CTL_EREFUSED;
		}
		return rc;
	}
	mqtx_buf_printf(err, "Object \"%s\" is unknown, try \"mqtx help\".\n", argv[0]);
	return MQTX_CTL_EPARSE;
}

/* ---- word splitting ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Split @line into words: blanks separate, "..." groups (also inside a word), '#' at the start
 * of a word starts a comment. With @buf (strlen(line) + 1 bytes) the words are written there,
 * NUL-terminated, and @words points at them; without, they are only counted. Returns the
 * count, -E2BIG past @max words, or -EINVAL with *@quote_at the column (from 1) of a quote
 * that is never closed.
 */
static int split_words(const char *line, char *buf, char **words, int max, size_t *quote_at)
{
	const char *r = line;
	char *w = buf;
	int n = 0;

	for (;;) {
		const char *open = NULL;

		while (is_blank(*r))
			r++;
		if (!*r || *r == '#')
			return n;
		if (n == max)
			return -E2BIG;
		if (words)
			words[n] = w;
		n++;
		for (; *r && (open || !is_blank(*r)); r++) {
			if (*r == '"')
				open = open ? NULL : r;
			else if (w)
				*w++ = *r;
		}
		if (open) {
			*quote_at = (size_t)(open - line) + 1;
			return -EINVAL;
		}
		if (w)
			*w++ = '\0';
	}
}

int mqtx_ctl_split(const char *line, int *argc, char ***argv, struct mqtx_buf *err)
{
	size_t len = strlen(line), quote_at = 0, room;
	int n = split_words(line, NULL, NULL, MQTX_CTL_WORDS_MAX, &quote_at);
	char **words;

	if (n == -EINVAL) {
		mqtx_buf_printf(err, "Unterminated quote: the \" at column %zu is never closed\n",
				quote_at);
		return n;
	}
	if (n < 0) {
		mqtx_buf_printf(err, "Too many words: a command has at most %d\n",
				MQTX_CTL_WORDS_MAX);
		return n;
	}
	/* One block: the NULL-terminated pointer array, then the words it points into. */
	room = ((size_t)n + 1) * sizeof(*words);
	words = mqtx__alloc(room + len + 1);
	if (!words) {
		mqtx_buf_printf(err, "Out of memory\n");
		return -ENOMEM;
	}
	split_words(line, (char *)words + room, words, n, &quote_at);
	words[n] = NULL;
	*argc = n;
	*argv = words;
	return 0;
}

void mqtx_ctl_split_free(char **argv)
{
	mqtx__free(argv);
}

int mqtx_ctl_exec_line(struct mqtx_ctl *ctl, const char *line, unsigned flags,
		       struct mqtx_buf *out, struct mqtx_buf *err)
{
	char **words;
	int n, rc;

	rc = mqtx_ctl_split(line, &n, &words, err);
	if (rc)
		return rc == -ENOMEM ? MQTX_CTL_EREFUSED : MQTX_CTL_EPARSE;
	rc = n ? mqtx_ctl_exec(ctl, n, words, flags, out, err) : MQTX_CTL_OK;
	mqtx_ctl_split_free(words);
	return rc;
}

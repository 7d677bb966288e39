// SPDX-License-Identifier: MIT
// Minimal control context and dispatcher (branch tool only; the config branch owns the real one).
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/ctl.h>

#include "ctl/cmd_tool.h"
#include "internal.h"

struct mqtx_ctl {
	pthread_mutex_t lock; /* serialises commands */
	struct mqtx_dev **devs;
	unsigned ndev, cap;
};

void mqtx_buf_init(struct mqtx_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void mqtx_buf_free(struct mqtx_buf *b)
{
	mqtx__free(b->data);
	mqtx_buf_init(b);
}

int mqtx_buf_printf(struct mqtx_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		p = mqtx__alloc(cap);
		if (!p)
			return -ENOMEM;
		if (b->len)
			memcpy(p, b->data, b->len);
		mqtx__free(b->data);
		b->data = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

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
	mqtx__tool_ctl_free(ctl);
	for (unsigned i = ctl->ndev; i-- > 0;)
		mqtx_dev_destroy(ctl->devs[i]);
	mqtx__free(ctl->devs);
	pthread_mutex_destroy(&ctl->lock);
	mqtx__free(ctl);
}

struct mqtx_dev *mqtx_ctl_dev(struct mqtx_ctl *ctl, const char *name)
{
	for (unsigned i = 0; i < ctl->ndev; i++)
		if (!strcmp(mqtx_dev_name(ctl->devs[i]), name))
			return ctl->devs[i];
	return NULL;
}

int mqtx_ctl_add_dev(struct mqtx_ctl *ctl, struct mqtx_dev *dev)
{
	if (mqtx_ctl_dev(ctl, mqtx_dev_name(dev)))
		return -EEXIST;
	if (ctl->ndev == ctl->cap) {
		unsigned cap = ctl->cap ? ctl->cap * 2 : 8;
		struct mqtx_dev **d = mqtx__alloc(cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		if (ctl->ndev)
			memcpy(d, ctl->devs, ctl->ndev * sizeof(*d));
		mqtx__free(ctl->devs);
		ctl->devs = d;
		ctl->cap = cap;
	}
	ctl->devs[ctl->ndev++] = dev;
	return 0;
}

struct mqtx_dev *mqtx__ctl_detach_dev(struct mqtx_ctl *ctl, const char *name)
{
	for (unsigned i = 0; i < ctl->ndev; i++) {
		struct mqtx_dev *dev = ctl->devs[i];

		if (strcmp(mqtx_dev_name(dev), name))
			continue;
		memmove(&ctl->devs[i], &ctl->devs[i + 1], (ctl->ndev - i - 1) * sizeof(dev));
		ctl->ndev--;
		return dev;
	}
	return NULL;
}

unsigned mqtx__ctl_devs(struct mqtx_ctl *ctl, struct mqtx_dev **devs, unsigned max)
{
	for (unsigned i = 0; i < ctl->ndev && i < max; i++)
		devs[i] = ctl->devs[i];
	return ctl->ndev;
}

typedef int (*cmd_fn)(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		      struct mqtx_buf *out, struct mqtx_buf *err);

static const struct {
	const char *name;
	cmd_fn fn;
} cmds[] = {
	{ "dev", mqtx__cmd_dev },
	{ "hash", mqtx__cmd_hash },
	{ "gen", mqtx__cmd_gen },
	{ "replay", mqtx__cmd_replay },
};

int mqtx_ctl_exec(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		  struct mqtx_buf *out, struct mqtx_buf *err)
{
	int rc;

	if (argc < 1)
		return MQTX_CTL_OK;
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[0], cmds[i].name))
			continue;
		pthread_mutex_lock(&ctl->lock);
		rc = cmds[i].fn(ctl, argc, argv, flags, out, err);
		pthread_mutex_unlock(&ctl->lock);
		return rc;
	}
	mqtx_buf_printf(err, "Object \"%s\" is unknown, try \"mqtx help\".\n", argv[0]);
	return MQTX_CTL_EPARSE;
}

int mqtx_ctl_exec_line(struct mqtx_ctl *ctl, const char *line, unsigned flags,
		       struct mqtx_buf *out, struct mqtx_buf *err)
{
	size_t n = strlen(line);
	char *copy = mqtx__alloc(n + 1), *p, *w;
	char **argv = mqtx__alloc((n / 2 + 2) * sizeof(*argv));
	int argc = 0, rc;

	if (!copy || !argv) {
		mqtx__free(copy);
		mqtx__free(argv);
		mqtx_buf_printf(err, "out of memory\n");
		return MQTX_CTL_EREFUSED;
	}
	for (p = (char *)line, w = copy; *p && *p != '#';) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
			continue;
		}
		argv[argc++] = w;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
			if (*p == '"') {
				for (p++; *p && *p != '"'; p++)
					*w++ = *p;
				if (*p)
					p++;
				continue;
			}
			*w++ = *p++;
		}
		*w++ = '\0';
	}
	rc = mqtx_ctl_exec(ctl, argc, argv, flags, out, err);
	mqtx__free(copy);
	mqtx__free(argv);
	return rc;
}

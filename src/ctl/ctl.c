// SPDX-License-Identifier: MIT
/* The control language's dispatcher: the context, its command table (built in and registered),
 * running a command, and splitting command lines into words. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "ctl/ctl_int.h"
#include <mqtx/qdisc.h>

static int cmd_help(const struct mqtx_ctl_call *c, void *arg);

/* The built-in commands; registered ones (gen, replay) follow them in the help and the match. */
static const struct mqtx_ctl_cmd builtin[] = {
	{ "qdisc", mqtx__ctl_cmd_qdisc, NULL,
	  "qdisc { add | replace | change | link | del } dev NAME { root | parent X:Y | ingress } "
	  "[ handle X: ] KIND [ OPTIONS ]\n"
	  "qdisc show [ dev NAME ] [ root | ingress | handle X: | parent X:Y ] [ invisible ]" },
	{ "class", mqtx__ctl_cmd_class, NULL,
	  "class { add | change | replace | del } dev NAME [ classid X:Y ] [ root | parent X:Y ]\n"
	  "class show [ dev NAME ] [ root | parent X:Y ] [ classid X:Y ] [ qdisc X: ]" },
	{ "filter", mqtx__ctl_cmd_filter, NULL,
	  "filter { add | replace | change | del } { dev NAME { egress | ingress | parent X: } | "
	  "block N }\n       [ protocol P ] [ prio N ] [ handle H ] [ chain C ] KIND [ OPTIONS ] "
	  "[ action ... ]\nfilter show { dev NAME [ egress | ingress | parent X: ] | block N }\n"
	  "filter get { dev NAME | block N } { egress | ingress | parent X: } protocol P prio N "
	  "[ chain C ] handle H KIND\n"
	  "filter test dev NAME [ egress | ingress ] --src A[:P] --dst A[:P] [ --proto P ] [ "
	  "--dscp D ]" },
	{ "actions", mqtx__ctl_cmd_action, NULL,
	  "actions { add | change | replace } action KIND [ OPTIONS ] [ index N ] [ cookie HEX ] "
	  "...\n"
	  "actions { get | delete } action KIND index N ...\n"
	  "actions { list | flush } action KIND" },
	{ "chain", mqtx__ctl_cmd_chain, NULL,
	  "chain { show | get } { dev NAME | block N } [ egress | ingress | parent X: ] [ chain C "
	  "]" },
	{ "dev", mqtx__ctl_cmd_dev, NULL,
	  "dev add NAME type KIND [ txqueues N ] ... [ up ]\n"
	  "dev set NAME { up | down | txqueues N | hash ALGO | acm ACS | qosmap MAP | ... }\n"
	  "dev del NAME\n"
	  "dev show [ NAME ]\ndev stats [ NAME ]" },
	{ "help", cmd_help, NULL, "help" },
	{ "hash", mqtx__ctl_cmd_hash, NULL,
	  "hash [ --algo ALGO ] [ --seed S ] [ --key HEX ] --src A[:P] --dst A[:P] [ dev NAME ]" },
	{ "sta", mqtx__ctl_cmd_sta, NULL,
	  "sta { add | del } dev NAME addr MAC [ qos { on | off } ]\n"
	  "sta set dev NAME addr MAC reserved-tid { TID | none }\nsta show [ dev NAME [ addr MAC ] "
	  "]" },
	{ "ba", mqtx__ctl_cmd_ba, NULL,
	  "ba { start | stop } dev NAME sta MAC tid TID\nba show [ dev NAME ]" },
	{ "wme", mqtx__ctl_cmd_wme, NULL,
	  "wme classify [ dev NAME ] [ priority P ] [ vlan-pcp P ] [ dscp D [ ipv6 ] ] ..." },
};

/* ---- the context ---- */

int mqtx_ctl_new(struct mqtx_ctl **out)
{
	struct mqtx_ctl *ctl = mqtx__zalloc(sizeof(*ctl));

	if (!ctl)
		return -ENOMEM;
	pthread_mutex_init(&ctl->lock, NULL);
	mqtx__tcf_act_table_init(&ctl->acts);
	*out = ctl;
	return 0;
}

void mqtx_ctl_free(struct mqtx_ctl *ctl)
{
	if (!ctl)
		return;
	/* What runs on the devices (generators, replays) stops before the devices go. */
	pthread_mutex_lock(&ctl->lock);
	for (unsigned i = 0; i < ctl->nwatches; i++)
		ctl->watches[i].fn(ctl, NULL, ctl->watches[i].arg);
	pthread_mutex_unlock(&ctl->lock);
	for (unsigned i = ctl->ndevs; i-- > 0;)
		mqtx_dev_destroy(ctl->devs[i]);
	/* after the devices: their filters' actions have left the table */
	mqtx__tcf_act_table_fini(&ctl->acts);
	mqtx__free(ctl->devs);
	mqtx__free(ctl->dev_owners);
	mqtx__free(ctl->blocks);
	mqtx__free(ctl->cmds);
	mqtx__free(ctl->watches);
	pthread_mutex_destroy(&ctl->lock);
	mqtx__free(ctl);
}

/* The command @word names: the first built-in or registered one it is a prefix of. */
static const struct mqtx_ctl_cmd *lookup(struct mqtx_ctl *ctl, const char *word, bool exact)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (exact ? !strcmp(word, builtin[i].name)
			  : mqtx__tc_matches(word, builtin[i].name))
			return &builtin[i];
	for (unsigned i = 0; i < ctl->ncmds; i++)
		if (exact ? !strcmp(word, ctl->cmds[i].name)
			  : mqtx__tc_matches(word, ctl->cmds[i].name))
			return &ctl->cmds[i];
	return NULL;
}

int mqtx_ctl_register(struct mqtx_ctl *ctl, const struct mqtx_ctl_cmd *cmd)
{
	struct mqtx_ctl_cmd *v;
	int err = 0;

	if (!cmd || !cmd->name || !*cmd->name || !cmd->fn)
		return -EINVAL;
	pthread_mutex_lock(&ctl->lock);
	if (lookup(ctl, cmd->name, true)) {
		err = -EEXIST;
		goto out;
	}
	v = mqtx__alloc((ctl->ncmds + 1) * sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto out;
	}
	if (ctl->ncmds)
		memcpy(v, ctl->cmds, ctl->ncmds * sizeof(*v));
	v[ctl->ncmds++] = *cmd;
	mqtx__free(ctl->cmds);
	ctl->cmds = v;
out:
	pthread_mutex_unlock(&ctl->lock);
	return err;
}

int mqtx_ctl_unregister(struct mqtx_ctl *ctl, const char *name)
{
	int err = -ENOENT;

	pthread_mutex_lock(&ctl->lock);
	for (unsigned i = 0; i < ctl->ncmds; i++) {
		if (strcmp(ctl->cmds[i].name, name))
			continue;
		memmove(&ctl->cmds[i], &ctl->cmds[i + 1],
			(ctl->ncmds - i - 1) * sizeof(*ctl->cmds));
		ctl->ncmds--;
		err = 0;
		break;
	}
	pthread_mutex_unlock(&ctl->lock);
	return err;
}

/* ---- the dispatcher ---- */

static int cmd_help(const struct mqtx_ctl_call *c, void *arg)
{
	(void)arg;
	mqtx_buf_printf(c->out, "Usage: mqtx [ -s ] [ -j ] [ -d ] OBJECT COMMAND\n");
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		mqtx_buf_printf(c->out, "%s\n", builtin[i].help);
	for (unsigned i = 0; i < c->ctl->ncmds; i++)
		if (c->ctl->cmds[i].help)
			mqtx_buf_printf(c->out, "%s\n", c->ctl->cmds[i].help);
	return MQTX_TC_EXIT_OK;
}

/* Leading options as tc takes them, each by tc's matches() from @min letters. */
static const struct {
	const char *word;
	size_t min;
	unsigned flag;
} ctl_options[] = {
	{ "statistics", 1, MQTX_CTL_F_STATS },
	{ "json", 1, MQTX_CTL_F_JSON },
	{ "details", 1, MQTX_CTL_F_DETAILS },
	{ "brief", 2, MQTX_CTL_F_BRIEF },
	{ "pretty", 1, 0 }, /* tc's -p[retty]: the tool indents JSON; text is printed one way */
};

static unsigned take_options(int *argc, char ***argv, unsigned flags, bool *bad)
{
	while (*argc > 0 && (*argv)[0][0] == '-') {
		const char *o = (*argv)[0] + 1;
		size_t k = 0;

		if (*o == '-')
			o++;
		while (k < ARRAY_SIZE(ctl_options) && (strlen(o) < ctl_options[k].min ||
						       !mqtx__tc_matches(o, ctl_options[k].word)))
			k++;
		if (k == ARRAY_SIZE(ctl_options)) {
			*bad = true;
			break;
		}
		flags |= ctl_options[k].flag;
		(*argc)--;
		(*argv)++;
	}
	return flags;
}

/* Run the command of @argv[0] on the words after it, the context locked. */
static int dispatch(struct mqtx_ctl *ctl, int argc, char **argv, struct mqtx_ctl_call *c)
{
	const struct mqtx_ctl_cmd *cmd;
	char *words[argc + 1];
	unsigned long refused;
	int rc;

	pthread_mutex_lock(&ctl->lock);
	cmd = lookup(ctl, argv[0], false);
	if (!cmd) {
		pthread_mutex_unlock(&ctl->lock);
		mqtx_buf_printf(c->err, "Object \"%s\" is unknown, try \"mqtx help\".\n", argv[0]);
		if (mqtx_qdisc_lookup(argv[0])) /* "mqtx tbf help" */
			mqtx_buf_printf(c->err, "A qdisc's options: mqtx qdisc add %s help\n",
					argv[0]);
		return MQTX_TC_EXIT_ABORT; /* tc's do_cmd() returns -1 */
	}
	/* Every command sees its full name first, whatever prefix was typed. */
	words[0] = (char *)cmd->name;
	memcpy(words + 1, argv + 1, (size_t)(argc - 1) * sizeof(*words));
	words[argc] = NULL;
	c->argc = argc;
	c->argv = words;
	refused = mqtx__alloc_failures();
	rc = cmd->fn(c, cmd->arg);
	pthread_mutex_unlock(&ctl->lock);
	/* Cut output is not output: a caller must not take a prefix for the whole, so none is
	 * handed back (@nomem stays set to say why), nor what a command printed before it failed
	 * for want of memory. */
	if (c->out->nomem || (rc != MQTX_TC_EXIT_OK && mqtx__alloc_failures() != refused)) {
		if (c->out->nomem || c->out->len)
			mqtx_buf_printf(c->err,
					"Out of memory: the output did not fit and was withheld\n");
		if (c->out->nomem)
			rc = MQTX_TC_EXIT_REFUSED;
		mqtx__free(c->out->data);
		c->out->data = NULL;
		c->out->len = c->out->cap = 0;
	}
	return rc;
}

static int exec_call(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		     const struct mqtx_ctl_req *req, struct mqtx_buf *out, struct mqtx_buf *err)
{
	struct mqtx_ctl_call c = { .ctl = ctl, .req = req, .out = out, .err = err };
	bool bad = false;

	c.flags = take_options(&argc, &argv, flags, &bad);
	if (bad) {
		mqtx_buf_printf(err, "Option \"%s\" is unknown, try \"mqtx help\".\n", argv[0]);
		return MQTX_TC_EXIT_PARSE;
	}
	if (argc < 1) {
		mqtx_buf_printf(err, "Usage: mqtx [ OPTIONS ] OBJECT { COMMAND | help }\n");
		return MQTX_TC_EXIT_PARSE;
	}
	return dispatch(ctl, argc, argv, &c);
}

int mqtx_ctl_exec(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags, struct mqtx_buf *out,
		  struct mqtx_buf *err)
{
	return exec_call(ctl, argc, argv, flags, NULL, out, err);
}

int mqtx_ctl_exec_req(struct mqtx_ctl *ctl, int argc, char **argv, unsigned flags,
		      const struct mqtx_ctl_req *req, struct mqtx_buf *out, struct mqtx_buf *err)
{
	int rc;

	if (req->fd >= 0 && mqtx_ctl_file_word(argc, argv) < 0) {
		mqtx_buf_printf(err,
				"A file came with \"%s\", a command that names none (only \"replay "
				"FILE\" and \"dev add NAME type pcap file PATH\" do)\n",
				argc ? argv[0] : "");
		rc = MQTX_TC_EXIT_PARSE;
	} else {
		rc = exec_call(ctl, argc, argv, flags, req, out, err);
	}
	if (req->fd >= 0)
		close(req->fd);
	return rc;
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

int mqtx_ctl_exec_line(struct mqtx_ctl *ctl, const char *line, unsigned flags, struct mqtx_buf *out,
		       struct mqtx_buf *err)
{
	char **words;
	int n, rc;

	rc = mqtx_ctl_split(line, &n, &words, err);
	if (rc)
		return rc == -ENOMEM ? MQTX_TC_EXIT_REFUSED : MQTX_TC_EXIT_PARSE;
	rc = n ? mqtx_ctl_exec(ctl, n, words, flags, out, err) : MQTX_TC_EXIT_OK;
	mqtx_ctl_split_free(words);
	return rc;
}

// SPDX-License-Identifier: MIT
/* "actions add|change|replace|delete|get|list|flush": tc's standalone actions (iproute2's
 * m_action.c against Linux's act_api.c), kept in the context's action table, to which filters
 * bind by index. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cls/cls_int.h"
#include "cls/tcf.h"
#include "ctl/ctl_int.h"

#define ACT_MAX 32 /* TCA_ACT_MAX_PRIO */

#define ACTIONS_USAGE                                                    \
	"usage: mqtx actions <ACTSPECOP>*\n"                             \
	"Where: \tACTSPECOP := ACR | GD | FL\n"                          \
	"\tACR := add | change | replace <ACTSPEC>*\n"                   \
	"\tGD := get | delete | <ACTISPEC>*\n"                           \
	"\tFL := ls | list | flush | <ACTNAMESPEC>\n"                    \
	"\tACTNAMESPEC :=  action <ACTNAME>\n"                           \
	"\tACTISPEC := <ACTNAMESPEC> <INDEXSPEC>\n"                      \
	"\tACTSPEC := action <ACTDETAIL> [INDEXSPEC] [HWSTATSSPEC]\n"    \
	"\tINDEXSPEC := index <32 bit indexvalue>\n"                     \
	"\tHWSTATSSPEC := hw_stats [ immediate | delayed | disabled ]\n" \
	"\tACTDETAIL := <ACTNAME> <ACTPARAMS>\n"                         \
	"\t\tExample ACTNAME is gact, mirred, bpf, etc\n"                \
	"\t\tEach action has its own parameters (ACTPARAMS)\n"           \
	"\n"

#define TALK "We have an error talking to the kernel\n"

static int usage(const struct mqtx_ctl_call *a)
{
	mqtx_buf_printf(a->err, "%s", ACTIONS_USAGE);
	return MQTX_TC_EXIT_ABORT;
}

/* The kernel's answer to a request that failed, as tc prints it. */
static void kernel_err(const struct mqtx_ctl_call *a, int err, const char *extack)
{
	char buf[128];

	if (err == -ENOMEM)
		mqtx_buf_printf(a->err, "Out of memory\n");
	else if (extack)
		mqtx_buf_printf(a->err, "Error: %s.\n", extack);
	else
		mqtx_buf_printf(a->err, "RTNETLINK answers: %s\n",
				strerror_r(-err, buf, sizeof(buf)));
}

/* tc_action_modify(): parse the actions after the verb, and send them all at once. Returns
 * an exit code (0, or 255 as tc's -1; 2 when memory ran out) and moves *@i past them. */
static int modify(const struct mqtx_ctl_call *a, int *i, bool replace)
{
	struct tcf_act_req rq = { 0 };
	struct tcf_parse ps;
	int err;

	mqtx__tcf_parse_init(&ps, a->argc - *i - 1, a->argv + *i + 1);
	ps.find_dev = mqtx__ctl_mirred_dev;
	ps.may_block = mqtx__ctl_mirred_block;
	ps.find_arg = (void *)a;
	err = mqtx__tcf_act_parse(&ps, &rq);
	if (!err)
		err = mqtx__tcf_late(&ps); /* what the kernel refuses once tc has read it all */
	if (err) {
		mqtx__tcf_act_req_free(&rq);
		if (err == -ENOMEM) {
			mqtx_buf_printf(a->err, "Out of memory\n");
			return MQTX_TC_EXIT_REFUSED;
		}
		mqtx_buf_printf(a->err, "%s", ps.err);
		if (ps.exit == MQTX_TC_EXIT_REFUSED)
			mqtx_buf_printf(a->err, TALK);
		else if (ps.exit != MQTX_TC_EXIT_ABORT)
			mqtx_buf_printf(a->err, "Illegal \"action\"\n");
		return MQTX_TC_EXIT_ABORT;
	}
	/* tcf_action_check_ctrlact(): an action outside a filter has no chain to go to */
	for (int k = 1; k < ps.i; k++) {
		if (mqtx__tc_matches(ps.argv[k - 1], "goto") &&
		    mqtx__tc_matches(ps.argv[k], "chain")) {
			mqtx__tcf_act_req_free(&rq);
			mqtx_buf_printf(a->err,
					"Error: can't use goto chain with NULL chain.\n" TALK);
			return MQTX_TC_EXIT_ABORT;
		}
	}
	err = mqtx__tcf_act_commit(&a->ctl->acts, &rq, replace);
	mqtx__tcf_act_req_free(&rq);
	if (err) {
		kernel_err(a, err, err == -ENOSPC ? "no action index is left" : NULL);
		if (err == -ENOMEM)
			return MQTX_TC_EXIT_REFUSED;
		mqtx_buf_printf(a->err, TALK);
		return MQTX_TC_EXIT_ABORT;
	}
	*i += 1 + ps.i;
	return MQTX_TC_EXIT_OK;
}

/* tc_action_gd(): "action KIND index N" ... to the end of the words. */
static int gd_words(const struct mqtx_ctl_call *a, int i, const struct tcf_action_ops **ops,
		    uint32_t *index, unsigned *n)
{
	for (i++; i < a->argc;) {
		const char *w = a->argv[i];

		if (!strcmp(w, "action")) {
			i++;
			continue;
		}
		if (!strcmp(w, "help"))
			return MQTX_TC_EXIT_ABORT;
		if (*n == ACT_MAX) {
			mqtx_buf_printf(a->err, "Too many actions: at most %d\n", ACT_MAX);
			return MQTX_TC_EXIT_ABORT;
		}
		ops[*n] = mqtx__tcf_act_kind_of(w);
		if (++i >= a->argc || !mqtx__tc_matches(a->argv[i], "index")) {
			mqtx_buf_printf(a->err, "Error: no index specified action: %s\n",
					ops[*n]->kind);
			return MQTX_TC_EXIT_ABORT;
		}
		if (++i >= a->argc)
			return mqtx__ctl_incomplete(a->err);
		if (mqtx__tc_get_u32(a->argv[i], &index[*n], 10)) {
			mqtx_buf_printf(a->err, "Illegal \"index\"\n");
			return MQTX_TC_EXIT_ABORT;
		}
		i++;
		(*n)++;
	}
	return MQTX_TC_EXIT_OK;
}

/* The JSON (or text) of @ops' actions into a->out: all of it, or none. */
static int show(const struct mqtx_ctl_call *a, const struct tcf_action_ops *const *ops,
		const uint32_t *index, unsigned n)
{
	struct mqtx_buf pb;
	struct tc_out p;
	int err;

	mqtx_buf_init(&pb);
	mqtx__out_init(&p, &pb, a->flags & MQTX_CTL_F_JSON, a->flags & MQTX_CTL_F_STATS,
		       a->flags & MQTX_CTL_F_DETAILS);
	mqtx__out_open_array(&p, NULL);
	err = mqtx__tcf_act_show(&a->ctl->acts, ops, index, n, &p);
	mqtx__out_close_array(&p);
	if (err == -ENOENT) {
		mqtx_buf_free(&pb);
		return err;
	}
	if (pb.nomem) {
		mqtx_buf_free(&pb);
		return -ENOMEM;
	}
	mqtx_buf_printf(a->out, p.json ? "%s\n" : "%s", pb.data ? pb.data : "");
	mqtx_buf_free(&pb);
	return 0;
}

static int get_or_delete(const struct mqtx_ctl_call *a, int i, bool get)
{
	const struct tcf_action_ops *ops[ACT_MAX];
	uint32_t index[ACT_MAX];
	unsigned n = 0;
	int rc = gd_words(a, i, ops, index, &n), err = 0;

	if (rc)
		return rc;
	for (unsigned k = 0; k < n && !err; k++)
		if (!index[k]) /* tc sends no index for 0 */
			err = -EINVAL;
	if (err) {
		kernel_err(a, err, "Invalid TC action index value");
	} else if (get) {
		err = show(a, ops, index, n);
		if (err)
			kernel_err(a, err, "TC action with specified index not found");
	} else {
		err = mqtx__tcf_act_delete(&a->ctl->acts, ops, index, n);
		if (err)
			kernel_err(a, err,
				   err == -ENOENT ? "TC action with specified index not found"
						  : "Failed to delete TC action");
	}
	if (!err)
		return MQTX_TC_EXIT_OK;
	if (err == -ENOMEM)
		return MQTX_TC_EXIT_REFUSED;
	/* tc goes on from the word after the verb, which is no verb */
	mqtx_buf_printf(a->err, TALK);
	if (i + 1 < a->argc)
		mqtx__ctl_unknown_verb(a->err, "actions", a->argv[i + 1], 0);
	return MQTX_TC_EXIT_ABORT;
}

/* tc_act_list_or_flush(): the word after the verb is skipped ("action"), then the kind. */
static int list_or_flush(const struct mqtx_ctl_call *a, int i, bool flush)
{
	const struct tcf_action_ops *ops;
	bool rest = false;
	int n;

	if (a->argc - i <= 2)
		return usage(a);
	ops = mqtx__tcf_act_kind_of(a->argv[i + 2]);
	if (!flush) {
		uint32_t since;

		if (i + 3 < a->argc && !strcmp(a->argv[i + 3], "since")) {
			if (i + 4 >= a->argc)
				return mqtx__ctl_incomplete(a->err);
			if (mqtx__tc_get_u32(a->argv[i + 4], &since, 0)) {
				mqtx_buf_printf(
					a->err,
					"Error: argument \"%s\" is wrong: dump time \"since\" "
					"is invalid\n",
					a->argv[i + 4]);
				return MQTX_TC_EXIT_ABORT;
			}
		}
		n = show(a, &ops, NULL, 0);
		if (n == -ENOMEM) {
			mqtx_buf_printf(a->err, "Out of memory\n");
			return MQTX_TC_EXIT_REFUSED;
		}
		return MQTX_TC_EXIT_OK;
	}
	n = mqtx__tcf_act_flush(&a->ctl->acts, ops, &rest);
	if (n == -ENOMEM) {
		mqtx_buf_printf(a->err, "Out of memory\n");
		return MQTX_TC_EXIT_REFUSED;
	}
	if (n < 0) {
		kernel_err(a, n, NULL);
		mqtx_buf_printf(a->err, "We have an error flushing\n");
		return MQTX_TC_EXIT_PARSE; /* tc returns 1 */
	}
	if (rest) /* the kernel's warning: some went */
		mqtx_buf_printf(a->err, "Warning: Unable to flush all TC actions.\n");
	return MQTX_TC_EXIT_OK;
}

/*
 * The table of standalone actions is the daemon's, shared by every client as the kernel's is
 * by a network namespace, and an action in it may be bound by filters of any device: only root
 * and the daemon's admin add, change, replace, delete or flush its actions; any client lists
 * and gets them. A client's filters still carry actions of their own.
 */
static int may_change(const struct mqtx_ctl_call *a, const char *verb)
{
	static const struct ctl_owner server = { .client = false };
	char label[32];

	if (mqtx__ctl_owns(a, &server))
		return 0;
	snprintf(label, sizeof(label), "actions %s", verb);
	return mqtx__ctl_eperm(a, label, "the table of standalone actions", &server);
}

int mqtx__ctl_cmd_action(const struct mqtx_ctl_call *c, void *arg)
{
	struct mqtx_ctl_call call = mqtx__ctl_after_name(c), *a = &call;
	int i = 0, rc = MQTX_TC_EXIT_OK;

	(void)arg;
	while (!rc && i < a->argc) {
		const char *verb = a->argv[i];

		if ((mqtx__tc_matches(verb, "add") || mqtx__tc_matches(verb, "change") ||
		     mqtx__tc_matches(verb, "replace") || mqtx__tc_matches(verb, "delete") ||
		     mqtx__tc_matches(verb, "flush")) &&
		    may_change(a, verb))
			return MQTX_TC_EXIT_REFUSED;
		if (mqtx__tc_matches(verb, "add")) {
			rc = modify(a, &i, false);
		} else if (mqtx__tc_matches(verb, "change") || mqtx__tc_matches(verb, "replace")) {
			rc = modify(a, &i, true);
		} else if (mqtx__tc_matches(verb, "delete")) {
			return get_or_delete(a, i, false);
		} else if (mqtx__tc_matches(verb, "get")) {
			return get_or_delete(a, i, true);
		} else if (mqtx__tc_matches(verb, "list") || mqtx__tc_matches(verb, "show") ||
			   mqtx__tc_matches(verb, "lst")) {
			return list_or_flush(a, i, false);
		} else if (mqtx__tc_matches(verb, "flush")) {
			return list_or_flush(a, i, true);
		} else if (mqtx__tc_matches(verb, "help")) {
			return usage(a);
		} else {
			return mqtx__ctl_unknown_verb(a->err, "actions", verb, MQTX_TC_EXIT_ABORT);
		}
	}
	return rc;
}

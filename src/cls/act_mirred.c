// SPDX-License-Identifier: MIT
/*
 * mirred: send the packet (redirect) or a copy of it (mirror) to another mqtx device, or to
 * every port of a shared block but the one it is on (blockid), to transmit there (egress) or
 * to receive there (ingress), as Linux's act_mirred.c does with an ifb device. The device
 * takes it when the transmit or receive call that classified it ends (core/forward.c): the
 * action only hands it over. A packet redirected too many times (a loop between devices) is
 * dropped, as Linux drops past its nesting limit.
 */
#include <errno.h>
#include <stdio.h>

#include "base/rcu.h"
#include "cls/cls_int.h"
#include "cls/kinds.h"
#include "cls/tcf.h"
#include "core/core.h"

#define MIRRED_USAGE                                                  \
	"Usage: mirred <DIRECTION> <ACTION> [index INDEX] <TARGET>\n" \
	"where:\n"                                                    \
	"\tDIRECTION := <ingress | egress>\n"                         \
	"\tACTION := <mirror | redirect>\n"                           \
	"\tINDEX  is the specific policy instance id\n"               \
	"\tTARGET := <BLOCK | DEVICE>\n"                              \
	"\tDEVICE := dev DEVICENAME\n"                                \
	"\tDEVICENAME is the devicename\n"                            \
	"\tBLOCK := blockid BLOCKID\n"                                \
	"\tBLOCKID := 32-bit unsigned block ID\n"

struct mirred {
	struct mqtx_dev *dev; /* NULL: to the ports of shared block @blockid */
	uint32_t blockid;
	bool ingress, redirect;
	int verdict;
};

/* ---- the devices mirred actions point at (a device in use is not deleted) ---- */

struct target {
	const struct mqtx_dev *dev;
	unsigned refs;
};

static pthread_mutex_t targets_lock = PTHREAD_MUTEX_INITIALIZER;
static struct target *targets;
static unsigned ntargets, targets_cap;

static int target_get(const struct mqtx_dev *dev)
{
	int err = 0;

	pthread_mutex_lock(&targets_lock);
	for (unsigned i = 0; i < ntargets; i++) {
		if (targets[i].dev == dev) {
			targets[i].refs++;
			goto out;
		}
	}
	if (ntargets == targets_cap) {
		unsigned cap = targets_cap ? 2 * targets_cap : 8;
		struct target *t = mqtx__alloc(cap * sizeof(*t));

		if (!t) {
			err = -ENOMEM;
			goto out;
		}
		if (ntargets)
			memcpy(t, targets, ntargets * sizeof(*t));
		mqtx__free(targets);
		targets = t;
		targets_cap = cap;
	}
	targets[ntargets++] = (struct target){ dev, 1 };
out:
	pthread_mutex_unlock(&targets_lock);
	return err;
}

static void target_put(const struct mqtx_dev *dev)
{
	pthread_mutex_lock(&targets_lock);
	for (unsigned i = 0; i < ntargets; i++) {
		if (targets[i].dev == dev && !--targets[i].refs) {
			targets[i] = targets[--ntargets];
			break;
		}
	}
	if (!ntargets) {
		mqtx__free(targets);
		targets = NULL;
		targets_cap = 0;
	}
	pthread_mutex_unlock(&targets_lock);
}

bool mqtx__tcf_dev_targeted(const struct mqtx_dev *dev)
{
	bool found = false;

	pthread_mutex_lock(&targets_lock);
	for (unsigned i = 0; i < ntargets && !found; i++)
		found = targets[i].dev == dev;
	pthread_mutex_unlock(&targets_lock);
	return found;
}

/* ---- data path ---- */

static int shot(struct tcf_pkt *pk)
{
	pk->pkt->drop_reason = MQTX_DROP_FILTER;
	return MQTX_ACT_SHOT;
}

/* tcf_mirred_to_dev(): @pkt itself (@steal) or a copy of it to @to. False when it cannot go
 * (the device is down, no copy): an overlimit, as Linux counts it. */
static bool to_dev(struct tcf_action *a, const struct mirred *m, struct mqtx_dev *to,
		   struct mqtx_pkt *pkt, bool steal)
{
	struct mqtx_pkt *c = pkt;

	if (!mqtx_dev_is_up(to) || (!steal && !(c = mqtx_pkt_copy(pkt)))) {
		/* Linux: "device is down", or no clone */
		atomic_fetch_add_explicit(&a->st.overlimits, 1, memory_order_relaxed);
		return false;
	}
	mqtx__forward(to, c, m->ingress ? mqtx_dev_receive : mqtx_dev_xmit);
	return true;
}

/* The next port of the block after @i that is not the device the packet is on, or NULL. */
static struct mqtx_dev *next_port(struct mqtx_dev *_Atomic const *ports, unsigned n, unsigned *i,
				  const struct mqtx_dev *on)
{
	while (*i < n) {
		struct mqtx_dev *d = atomic_load_explicit(&ports[(*i)++], memory_order_relaxed);

		if (d && d != on)
			return d;
	}
	return NULL;
}

/*
 * tcf_blockcast(): to every port of the block but the device the packet is on. A mirror sends
 * each a copy; a redirect sends copies to all but the last and the packet to the last. No
 * port at all (or no such block) is an overlimit; a redirect with no other port drops the
 * packet without one, as Linux's tcf_blockcast_redir() does.
 */
static int blockcast(struct tcf_action *a, const struct mirred *m, struct tcf_pkt *pk)
{
	struct mqtx_dev *_Atomic const *ports;
	unsigned n = mqtx__tcf_block_ports(m->blockid, &ports), i = 0;
	struct mqtx_dev *d, *prev = NULL;

	if (!n) {
		atomic_fetch_add_explicit(&a->st.overlimits, 1, memory_order_relaxed);
		return m->redirect ? shot(pk) : m->verdict;
	}
	while ((d = next_port(ports, n, &i, pk->dev))) {
		if (!m->redirect)
			to_dev(a, m, d, pk->pkt, false);
		else if (prev)
			to_dev(a, m, prev, pk->pkt, false);
		prev = d;
	}
	if (!m->redirect)
		return m->verdict;
	if (!prev || !to_dev(a, m, prev, pk->pkt, true))
		return shot(pk);
	return MQTX_ACT_STOLEN;
}

static int mirred_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct mirred *m = tcf_act_priv(a);
	struct mqtx_pkt *pkt = pk->pkt;

	(void)res;
	if (pkt->redirects >= MQTX_XMIT_RECURSION_MAX) {
		/* Linux: "Packet exceeded mirred recursion limit" */
		atomic_fetch_add_explicit(&a->st.overlimits, 1, memory_order_relaxed);
		pkt->drop_reason = MQTX_DROP_RECURSION;
		return MQTX_ACT_SHOT;
	}
	if (!m->dev)
		return blockcast(a, m, pk);
	if (m->redirect && m->verdict == MQTX_ACT_STOLEN)
		return to_dev(a, m, m->dev, pkt, true) ? MQTX_ACT_STOLEN : shot(pk);
	if (!to_dev(a, m, m->dev, pkt, false) && m->redirect)
		return shot(pk);
	return m->verdict;
}

/* "filter test": where it would go, and nothing sent. */
static int mirred_probe(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	const struct mirred *m = tcf_act_priv(a);
	struct mqtx_dev *to = m->dev, *d;
	bool up;

	(void)res;
	if (!m->redirect)
		return m->verdict;
	if (!to) {
		struct mqtx_dev *_Atomic const *ports;
		unsigned n, i = 0;

		/* "filter test" runs under the block's lock, not in a read section */
		mqtx__rcu_read_lock();
		n = mqtx__tcf_block_ports(m->blockid, &ports);
		while ((d = next_port(ports, n, &i, pk->dev)))
			to = d; /* the packet goes to the last */
		up = to && mqtx_dev_is_up(to);
		mqtx__rcu_read_unlock();
	} else {
		up = mqtx_dev_is_up(to);
	}
	return up ? MQTX_ACT_STOLEN : shot(pk);
}

/* ---- control path ---- */

/* What parse_direction() reads: the direction and the action in any order with "index N",
 * then the target, "blockid N" or "dev NAME", which ends them (as does any other word after
 * the action). tc steps over a word it does not know before the action. */
struct mirred_words {
	bool egress, ingress, mirror, redirect;
	unsigned ok, iok;
	const char *dev;
	uint32_t blockid;
};

/* The target, after mirror or redirect: "blockid N" (the word whole, as tc's strcmp), then
 * "dev NAME" (which tc refuses after a block). */
static int target_words(struct mirred_words *mw, struct tcf_parse *ps)
{
	if (!strcmp(tcf_word(ps), "blockid")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		/* tc prints this one without a newline */
		if (mqtx__tc_get_u32(tcf_word(ps), &mw->blockid, 0) || !mw->blockid)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "invalid block ID");
		ps->i++;
	}
	if (tcf_word(ps) && mqtx__tc_matches(tcf_word(ps), "dev")) {
		if (mw->blockid)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "blockid and device are mutually exclusive.");
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		mw->dev = tcf_word(ps);
		ps->i++;
	}
	return 0;
}

static int direction_word(struct mirred *m, struct mirred_words *mw, struct tcf_parse *ps,
			  uint32_t *index, bool *done)
{
	const char *w = tcf_word(ps);

	if (mqtx__tc_matches(w, "action")) {
		*done = true;
		return mqtx__tcf_next(ps);
	}
	if ((!mw->egress && mqtx__tc_matches(w, "egress")) ||
	    (!mw->ingress && mqtx__tc_matches(w, "ingress"))) {
		bool in = w[0] == 'i';

		if (in ? mw->egress : mw->ingress)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      in ? "Can't have both ingress and egress"
						 : "Can't have both egress and ingress");
		mw->egress |= !in;
		mw->ingress |= in;
		mw->ok++;
		return mqtx__tcf_next(ps);
	}
	if (mqtx__tc_matches(w, "index")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), index, 10))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"index\"");
		mw->iok++;
		if (!mw->ok) {
			ps->i++;
			*done = true;
			return 0;
		}
	} else if (!mw->ok) {
		mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "was expecting egress or ingress (%s)", w);
		*done = true;
		return 0;
	} else if ((!mw->mirror && mqtx__tc_matches(w, "mirror")) ||
		   (!mw->redirect && mqtx__tc_matches(w, "redirect"))) {
		bool redir = w[0] == 'r';

		if (redir ? mw->mirror : mw->redirect)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "Can't have both mirror and redir");
		mw->mirror |= !redir;
		mw->redirect |= redir;
		m->redirect = redir;
		m->verdict = redir ? MQTX_ACT_STOLEN : MQTX_ACT_PIPE;
		mw->ok++;
	} else if (mw->redirect || mw->mirror) {
		*done = true;
		return target_words(mw, ps);
	}
	return mqtx__tcf_next(ps);
}

static int mirred_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct mirred *m = tcf_act_priv(a);
	struct mirred_words mw = { 0 };
	const char *w = tcf_word(ps);
	bool done = false;
	char why[192] = "";
	int err = 0;

	if (!mqtx__tc_matches(w, "egress") && !mqtx__tc_matches(w, "ingress") &&
	    !mqtx__tc_matches(w, "index")) {
		if (mqtx__tc_matches(w, "help"))
			return mqtx__tcf_usage_exit(ps, mqtx__tcf_mirred_ops.usage);
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "mirred option not supported %s", w);
	}
	while (!err && !done && tcf_word(ps))
		err = direction_word(m, &mw, ps, &a->index, &done);
	if (err || (!mw.ok && !mw.iok))
		return -EINVAL;
	m->ingress = mw.ingress;
	m->blockid = mw.blockid;
	/* tcf_mirred_init(): a new action needs one or the other (the kernel does not look for
	 * the block: a packet finds it, or not, when it comes) */
	if (!mw.dev && !mw.blockid)
		mqtx__tcf_refuse_late(ps, "Error: act_mirred: Must specify device or block.");
	if (mw.dev && ps->find_dev)
		m->dev = ps->find_dev(ps->find_arg, mw.dev, why, sizeof(why));
	if (mw.dev && !m->dev && why[0])
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED, "%s", why);
	if (mw.dev && !m->dev)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Cannot find device \"%s\"", mw.dev);
	if (mw.blockid && ps->may_block &&
	    !ps->may_block(ps->find_arg, mw.blockid, why, sizeof(why)))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED, "%s", why);
	/* a mirror reads a verdict word (pipe if none); a redirect steals, whatever follows */
	w = tcf_word(ps);
	if (mw.mirror && w && mqtx__tcf_is_control(w) &&
	    mqtx__tcf_parse_control(ps, &m->verdict, false))
		return -EINVAL;
	w = tcf_word(ps);
	if (w && mqtx__tc_matches(w, "index")) {
		if (mw.iok)
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
					      "mirred: Illegal double index");
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &a->index, 10))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "mirred: Illegal \"index\"");
		ps->i++;
	}
	if (!m->dev)
		return 0;
	err = target_get(m->dev);
	if (err)
		m->dev = NULL;
	return err;
}

static void mirred_destroy(struct tcf_action *a)
{
	struct mirred *m = tcf_act_priv(a);

	if (m->dev)
		target_put(m->dev);
}

static void mirred_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct mirred *m = tcf_act_priv(a);
	char what[32];

	snprintf(what, sizeof(what), "%s %s", m->ingress ? "Ingress" : "Egress",
		 m->redirect ? "Redirect" : "Mirror");
	mqtx__out_str(p, OUT_ANY, "kind", "%s ", "mirred");
	mqtx__out_str(p, OUT_FP, NULL, "(%s", what);
	mqtx__out_str(p, OUT_JSON, "mirred_action", NULL, m->redirect ? "redirect" : "mirror");
	mqtx__out_str(p, OUT_JSON, "direction", NULL, m->ingress ? "ingress" : "egress");
	if (m->dev)
		mqtx__out_str(p, OUT_ANY, "to_dev", " to device %s)", mqtx_dev_name(m->dev));
	else
		mqtx__out_uint(p, OUT_ANY, "to_blockid", " to blockid %u)", m->blockid);
	mqtx__tcf_print_control(p, " ", m->verdict, "");
	mqtx__out_nl(p);
	mqtx__tcf_act_dump_index(a, "	", p);
	mqtx__out_nl(p);
}

static void mirred_brief(const struct tcf_action *a, char *buf, size_t len)
{
	const struct mirred *m = tcf_act_priv(a);

	if (m->dev)
		snprintf(buf, len, "mirred %s %s dev %s", m->ingress ? "ingress" : "egress",
			 m->redirect ? "redirect" : "mirror", mqtx_dev_name(m->dev));
	else
		snprintf(buf, len, "mirred %s %s blockid %u", m->ingress ? "ingress" : "egress",
			 m->redirect ? "redirect" : "mirror", m->blockid);
}

const struct tcf_action_ops mqtx__tcf_mirred_ops = {
	.kind = "mirred",
	.usage = MIRRED_USAGE,
	.priv_size = sizeof(struct mirred),
	.parse = mirred_parse,
	.act = mirred_act,
	.probe = mirred_probe,
	.dump = mirred_dump,
	.brief = mirred_brief,
	.destroy = mirred_destroy,
};

// SPDX-License-Identifier: MIT
/*
 * police: a token-bucket policer, rate and burst, an optional peak rate over an MTU, or a
 * packet rate and a burst of packets instead of bytes, and one verdict for packets that conform
 * and one for those that exceed (Linux's act_police.c). Time is the packet's device clock, so
 * in virtual time every decision is exact. Buckets are kept in ns of transmission time, as tbf
 * keeps them.
 */
#include <errno.h>
#include <stdio.h>

#include "base/lock.h"
#include "base/tbucket.h"
#include "base/tc_ticks.h"
#include "cls/cls_int.h"
#include "cls/kinds.h"

#define POLICE_USAGE                                                                      \
	"Usage: ... police [ rate BPS burst BYTES[/BYTES] ] \n"                           \
	"\t\t[ pkts_rate RATE pkts_burst PACKETS ] [ mtu BYTES[/BYTES] ]\n"               \
	"\t\t[ peakrate BPS ] [ avrate BPS ] [ overhead BYTES ]\n"                        \
	"\t\t[ linklayer TYPE ] [ CONTROL ]\n"                                            \
	"Where: CONTROL := conform-exceed <EXCEEDACT>[/NOTEXCEEDACT]\n"                   \
	"\t\t  Define how to handle packets which exceed (<EXCEEDACT>)\n"                 \
	"\t\t  or conform (<NOTEXCEEDACT>) the configured bandwidth limit.\n"             \
	"       EXCEEDACT/NOTEXCEEDACT := { pipe | ok | reclassify | drop | continue |\n" \
	"\t\t\t\t   goto chain <CHAIN_INDEX> }\n"

/* Linux's default MTU without one given: 255 cells of 8 bytes (tc's rate table for 2047). */
#define POLICE_DEFAULT_MTU (255u << 3)

struct police {
	/* configuration */
	struct mqtx_ratecfg rate, peak; /* rate.rate 0: no bucket (an MTU check only) */
	uint64_t burst, mtu;		/* bytes */
	int64_t burst_ns, mtu_ptoks;	/* the buckets' depths */
	uint64_t pps, pkts_burst;	/* packet rate (0: none) and its burst as given */
	int64_t pkt_burst_ns, pkt_ns;	/* its bucket's depth, what one packet costs */
	int exceed, conform;
	bool atm;
	/* state, under @lock: tokens and the time of the last conforming packet */
	struct mqtx_spinlock lock;
	int64_t toks, ptoks, pkttoks, t_c;
	/* the clock of the last packet's device (NULL: no packet yet), a replace's now */
	_Atomic(const struct mqtx_clock *) clk;
};

/* The buckets a conforming packet leaves. */
struct police_toks {
	int64_t toks, ptoks, pkttoks;
};

/* What police's words go into: the action, and an avrate (read, then refused). */
struct police_words {
	struct tcf_action *a;
	uint64_t avrate;
};

/* ---- data path ---- */

static const struct mqtx_clock *clock_of(const struct tcf_pkt *pk)
{
	return pk->dev ? mqtx_dev_clock(pk->dev) : mqtx_clock_real();
}

static int64_t now_of(const struct tcf_pkt *pk)
{
	return (int64_t)mqtx_clock_now(clock_of(pk));
}

/*
 * tcf_police_act(): a packet within the MTU conforms when each bucket, refilled by the time
 * since the last conforming packet (up to its depth), holds its cost: transmission time at the
 * rate and at the peak rate, or, with a packet rate instead of a byte rate, one packet's time.
 * Returns the verdict; *@o what the buckets would hold after it.
 */
static bool conforms(const struct police *pol, uint32_t len, int64_t now, struct police_toks *o)
{
	int64_t t, pt = 0, kt = 0;

	if (len > pol->mtu)
		return false;
	t = now - pol->t_c;
	if (t > pol->burst_ns)
		t = pol->burst_ns; /* 0 without a byte rate, as tcfp_burst is */
	if (pol->peak.rate) {
		pt = t + pol->ptoks;
		if (pt > pol->mtu_ptoks)
			pt = pol->mtu_ptoks;
		pt -= mqtx__ratecfg_l2t_ns(&pol->peak, len);
	}
	if (pol->rate.rate) {
		t += pol->toks;
		if (t > pol->burst_ns)
			t = pol->burst_ns;
		t -= mqtx__ratecfg_l2t_ns(&pol->rate, len);
	} else if (pol->pps) {
		kt = now - pol->t_c;
		if (kt > pol->pkt_burst_ns)
			kt = pol->pkt_burst_ns;
		kt += pol->pkttoks;
		if (kt > pol->pkt_burst_ns)
			kt = pol->pkt_burst_ns;
		kt -= pol->pkt_ns;
	}
	*o = (struct police_toks){ t, pt, kt };
	return (t | pt | kt) >= 0;
}

/* Whether a policer has a bucket, or checks the MTU alone. */
static bool has_bucket(const struct police *pol)
{
	return pol->rate.rate || pol->pps;
}

static int verdict(struct tcf_pkt *pk, int v)
{
	if (v == MQTX_ACT_SHOT)
		pk->pkt->drop_reason = MQTX_DROP_POLICE;
	return v;
}

static int police_act(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	struct police *pol = tcf_act_priv(a);
	const struct mqtx_clock *clk;
	uint32_t len = pk->len;
	struct police_toks o;
	int64_t now;
	bool ok;

	(void)res;
	clk = clock_of(pk);
	if (atomic_load_explicit(&pol->clk, memory_order_relaxed) != clk)
		atomic_store_explicit(&pol->clk, clk, memory_order_relaxed);
	if (!has_bucket(pol)) {
		ok = len <= pol->mtu; /* no bucket: only the MTU */
	} else {
		now = (int64_t)mqtx_clock_now(clk);
		mqtx_spin_lock(&pol->lock);
		ok = conforms(pol, len, now, &o);
		if (ok) {
			pol->t_c = now;
			pol->toks = o.toks;
			pol->ptoks = o.ptoks;
			pol->pkttoks = o.pkttoks;
		}
		mqtx_spin_unlock(&pol->lock);
	}
	if (ok)
		return verdict(pk, pol->conform);
	atomic_fetch_add_explicit(&a->st.overlimits, 1, memory_order_relaxed);
	return verdict(pk, pol->exceed);
}

/* "filter test": conform or exceed now, the buckets left as they are. */
static int police_probe(struct tcf_action *a, struct tcf_pkt *pk, struct mqtx_tcf_result *res)
{
	struct police *pol = tcf_act_priv(a);
	struct police_toks o;
	bool ok;

	(void)res;
	mqtx_spin_lock(&pol->lock);
	ok = has_bucket(pol) ? conforms(pol, pk->len, now_of(pk), &o) : pk->len <= pol->mtu;
	mqtx_spin_unlock(&pol->lock);
	return verdict(pk, ok ? pol->conform : pol->exceed);
}

/* ---- control path ---- */

static int invalid(struct tcf_parse *ps, const char *what)
{
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT, "Error: argument \"%s\" is wrong: %s",
			      tcf_word(ps), what);
}

static int duplicate(struct tcf_parse *ps, const char *what)
{
	return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
			      "Error: duplicate \"%s\": \"%s\" is the second value.", what,
			      tcf_word(ps));
}

/* get_size_and_cell(): SIZE[/CELL], the cell a power of two (checked, not used). */
static int size_cell(const char *s, uint64_t *size)
{
	char buf[64], *slash;
	uint32_t cell;

	if (mqtx__tc_split(s, buf, sizeof(buf), &slash))
		return -EINVAL;
	if (mqtx_tc_parse_size(buf, size) ||
	    (slash && (mqtx_tc_parse_u32(slash, &cell) || !cell || (cell & (cell - 1)))))
		return -EINVAL;
	return 0;
}

/* conform-exceed EXCEED[/CONFORM] (parse_action_control_slash()): no goto after the slash. */
static int parse_slash(struct police *pol, struct tcf_parse *ps)
{
	char buf[64], *slash;

	if (mqtx__tcf_next(ps))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", tcf_word(ps));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	if (mqtx__tcf_control_word(buf, &pol->exceed))
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Bad action type %s", buf);
	if (slash && (mqtx__tcf_control_word(slash, &pol->conform) ||
		      (pol->conform & ~MQTX_ACT_EXT_MASK) == MQTX_ACT_GOTO_CHAIN)) {
		ps->exit = MQTX_TC_EXIT_PARSE;
		return -EINVAL;
	}
	return 0;
}

/* One of police's words at the current word (a tcf_word_fn). */
static int parse_word(void *priv, struct tcf_parse *ps)
{
	struct police_words *pw = priv;
	struct tcf_action *a = pw->a;
	struct police *pol = tcf_act_priv(a);
	uint64_t *avrate = &pw->avrate;
	const char *w = tcf_word(ps);
	uint64_t v;

	if (mqtx__tc_matches(w, "index")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_get_u32(tcf_word(ps), &a->index, 10))
			return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "Illegal \"index\"");
	} else if (mqtx__tc_matches(w, "burst") || !strcmp(w, "buffer") || !strcmp(w, "maxburst")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (pol->burst)
			return duplicate(ps, "buffer/burst");
		if (size_cell(tcf_word(ps), &pol->burst))
			return invalid(ps, "buffer");
	} else if (!strcmp(w, "mtu") || !strcmp(w, "minburst")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (pol->mtu)
			return duplicate(ps, "mtu/minburst");
		if (size_cell(tcf_word(ps), &pol->mtu))
			return invalid(ps, "mtu");
	} else if (!strcmp(w, "mpu") || mqtx__tc_matches(w, "overhead")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx_tc_parse_size(tcf_word(ps), &v) || v > 0xFFFF)
			return invalid(ps, w[0] == 'm' ? "mpu" : "overhead");
		*(w[0] == 'm' ? &pol->rate.mpu : &pol->rate.overhead) = (uint16_t)v;
	} else if (!strcmp(w, "rate") || mqtx__tc_matches(w, "peakrate") || !strcmp(w, "avrate")) {
		uint64_t *r = w[0] == 'r'   ? &pol->rate.rate
			      : w[0] == 'p' ? &pol->peak.rate
					    : avrate;
		const char *name = w[0] == 'r' ? "rate" : w[0] == 'p' ? "peakrate" : "avrate";

		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (*r)
			return duplicate(ps, name);
		if (mqtx_tc_parse_rate(tcf_word(ps), r))
			return invalid(ps, name);
	} else if (mqtx__tc_matches(w, "linklayer")) {
		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (mqtx__tc_matches(tcf_word(ps), "ethernet"))
			pol->atm = false;
		else if (mqtx__tc_matches(tcf_word(ps), "atm") ||
			 mqtx__tc_matches(tcf_word(ps), "adsl"))
			pol->atm = true;
		else
			return invalid(ps, "linklayer");
	} else if (mqtx__tc_matches(w, "reclassify") || mqtx__tc_matches(w, "drop") ||
		   mqtx__tc_matches(w, "shot") || mqtx__tc_matches(w, "continue") ||
		   mqtx__tc_matches(w, "pass") || mqtx__tc_matches(w, "ok") ||
		   mqtx__tc_matches(w, "pipe") || mqtx__tc_matches(w, "goto")) {
		if (mqtx__tcf_parse_control(ps, &pol->exceed, false))
			return -EINVAL;
		ps->i--; /* it moved past the verdict: back to its last word */
	} else if (!strcmp(w, "conform-exceed")) {
		return parse_slash(pol, ps);
	} else if (mqtx__tc_matches(w, "pkts_rate") || mqtx__tc_matches(w, "pkts_burst")) {
		bool rate = mqtx__tc_matches(w, "pkts_rate");
		uint64_t *r = rate ? &pol->pps : &pol->pkts_burst;
		const char *name = rate ? "pkts_rate" : "pkts_burst";

		if (mqtx__tcf_next(ps))
			return -EINVAL;
		if (*r)
			return duplicate(ps, name);
		if (mqtx__tc_get_u64(tcf_word(ps), r, 10))
			return invalid(ps, name);
	} else {
		return 1;
	}
	return 0;
}

/* tc's checks after the words, then the buckets as act_police's init sets them. */
static int police_finish(struct police *pol, uint64_t avrate, struct tcf_parse *ps)
{
	if (avrate)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED,
				      "Error: police: \"avrate\" is not supported.");
	if (!pol->rate.rate && !pol->mtu && !pol->pps)
		return mqtx__tcf_perr(
			ps, MQTX_TC_EXIT_PARSE,
			"'rate' or 'avrate' or 'mtu' or 'pkts_rate' MUST be specified.");
	if (pol->rate.rate && !pol->burst)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "'burst' requires 'rate'.");
	/* (tc's words for a missing pkts_burst) */
	if (pol->pps && !pol->pkts_burst)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "'pkts_burst' requires 'pkts_rate'.");
	if (pol->pps && pol->rate.rate)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "'rate' and 'pkts_rate' are not allowed in same action.");
	if (pol->peak.rate && !pol->rate.rate)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE, "'peakrate' requires 'rate'.");
	if (pol->peak.rate && !pol->mtu)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_PARSE,
				      "'mtu' is required, if 'peakrate' is requested.");
	if (!pol->pps)
		pol->pkts_burst = 0; /* tc sends a burst only with its rate */
	/* tcf_action_check_ctrlact(): a number past TC_ACT_VALUE_MAX (8) is no verdict */
	if (pol->exceed > 8 && (pol->exceed & ~MQTX_ACT_EXT_MASK) != MQTX_ACT_GOTO_CHAIN &&
	    (pol->exceed & ~MQTX_ACT_EXT_MASK) != MQTX_ACT_JUMP)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_REFUSED, "Error: invalid control action.");
	pol->rate.atm = pol->peak.atm = pol->atm;
	pol->peak.overhead = pol->rate.overhead;
	pol->peak.mpu = pol->rate.mpu;
	if (!pol->mtu)
		pol->mtu = pol->rate.rate ? POLICE_DEFAULT_MTU : UINT32_MAX;
	pol->burst_ns = mqtx__l2t_ns(pol->rate.rate, pol->burst);
	pol->mtu_ptoks = mqtx__ratecfg_l2t_ns(&pol->peak, pol->mtu);
	if (pol->pps) {
		/* tc sends the packet burst as the ticks of that many "bytes" at pkts_rate; the
		 * kernel's packet costs 1e9 / pkts_rate ns, psched_pkt2t_ns() of one packet */
		pol->pkt_burst_ns = (int64_t)tc_xmit_ticks(pol->pps, pol->pkts_burst) << 6;
		pol->pkt_ns = (int64_t)(MQTX_NSEC_PER_SEC / pol->pps);
		/* TCA_POLICE_PKTBURST64 is at least 1 (police_policy), and no extack says so */
		if (!pol->pkt_burst_ns)
			return mqtx__tcf_refuse_late(
				ps,
				"RTNETLINK answers: Numerical result out of range (police: "
				"pkts_burst %llu at pkts_rate %llu is no tick)",
				(unsigned long long)pol->pkts_burst, (unsigned long long)pol->pps);
	}
	/* Full buckets: t_c far enough back for any clock to refill them. (Linux starts the
	 * packet bucket empty at its creation time, a time on no device's clock here: the
	 * same for a first packet at least pkts_burst / pkts_rate seconds later.) */
	pol->toks = pol->burst_ns;
	pol->ptoks = pol->mtu_ptoks;
	pol->pkttoks = pol->pkt_burst_ns;
	pol->t_c = INT64_MIN / 2;
	mqtx_spin_init(&pol->lock);
	atomic_init(&pol->clk, NULL);
	return 0;
}

/*
 * tcf_police_init() on a replace: the byte bucket starts full (and the peak bucket with a peak
 * rate), as a new policer's do here, but the packet bucket keeps its tokens, and the time of
 * the last conforming packet becomes now, so what the packet bucket would have refilled since
 * is lost. Now is on the clock of the last packet that ran through the policer (its device's),
 * with a bucket or without (an MTU alone); a policer no packet ran through yet is replaced as
 * created. (A packet that runs through the old parameters after this, before they are
 * published, spends tokens the new ones lose.)
 */
static void police_replace(struct tcf_action *a, const struct tcf_action *cur)
{
	struct police *pol = tcf_act_priv(a), *old = tcf_act_priv(cur);
	const struct mqtx_clock *clk = atomic_load_explicit(&old->clk, memory_order_relaxed);

	if (!clk)
		return;
	atomic_store_explicit(&pol->clk, clk, memory_order_relaxed);
	mqtx_spin_lock(&old->lock);
	pol->t_c = (int64_t)mqtx_clock_now(clk);
	pol->pkttoks = old->pkttoks;
	mqtx_spin_unlock(&old->lock);
}

static int police_parse(struct tcf_action *a, struct tcf_parse *ps)
{
	struct police *pol = tcf_act_priv(a);
	struct police_words pw = { .a = a };
	int n;

	pol->exceed = MQTX_ACT_RECLASSIFY; /* tc's TC_POLICE_RECLASSIFY */
	pol->conform = MQTX_ACT_OK;
	n = mqtx__tcf_words(ps, parse_word, &pw, false, mqtx__tcf_police_ops.usage);
	if (n < 0)
		return n;
	if (!n)
		return mqtx__tcf_perr(ps, MQTX_TC_EXIT_ABORT,
				      "Command line is not complete. Try option \"help\"");
	return police_finish(pol, pw.avrate, ps);
}

static void police_dump(const struct tcf_action *a, struct tc_out *p)
{
	const struct police *pol = tcf_act_priv(a);
	char b[MQTX_TC_BUF];
	uint64_t burst;

	mqtx__out_str(p, OUT_JSON, "kind", NULL, "police");
	mqtx__out_text(p, " police 0x%x ", a->index);
	mqtx__out_uint(p, OUT_JSON, "index", NULL, a->index);
	/* tc prints a rate and a burst, 0bit and 0b without a byte rate (print_police()) */
	mqtx__out_str(p, OUT_FP, NULL, "rate %s ",
		      mqtx_tc_print_rate(b, sizeof(b), pol->rate.rate));
	/* tc sends the burst as ticks and shows what they carry back (tc_core.c) */
	burst = pol->rate.rate
			? tc_bucket_size(pol->rate.rate,
					 (int64_t)tc_xmit_ticks(pol->rate.rate, pol->burst) << 6)
			: 0;
	mqtx__out_str(p, OUT_FP, NULL, "burst %s ", mqtx_tc_print_size(b, sizeof(b), burst));
	if (pol->rate.rate) {
		mqtx__out_uint(p, OUT_JSON, "rate", NULL, pol->rate.rate);
		mqtx__out_uint(p, OUT_JSON, "burst", NULL, burst);
	}
	mqtx__out_str(p, OUT_FP, NULL, "mtu %s ", mqtx_tc_print_size(b, sizeof(b), pol->mtu));
	mqtx__out_uint(p, OUT_JSON, "mtu", NULL, pol->mtu);
	if (pol->peak.rate) {
		mqtx__out_str(p, OUT_FP, NULL, "peakrate %s ",
			      mqtx_tc_print_rate(b, sizeof(b), pol->peak.rate));
		mqtx__out_uint(p, OUT_JSON, "peakrate", NULL, pol->peak.rate);
	}
	if (pol->pps) {
		mqtx__out_uint(p, OUT_ANY, "pkts_rate", "pkts_rate %llu ", pol->pps);
		mqtx__out_uint(p, OUT_ANY, "pkts_burst", "pkts_burst %llu ",
			       tc_bucket_size(pol->pps, pol->pkt_burst_ns));
	}
	mqtx__tcf_print_control(p, "action ", pol->exceed, "");
	/* the kernel dumps the conform verdict only when it is not "pass" */
	if (pol->conform != MQTX_ACT_OK)
		mqtx__tcf_print_control(p, "/", pol->conform, " ");
	else
		mqtx__out_text(p, " ");
	mqtx__out_str(p, OUT_FP, NULL, "overhead %s ",
		      mqtx_tc_print_size(b, sizeof(b), pol->rate.overhead));
	mqtx__out_uint(p, OUT_JSON, "overhead", NULL, pol->rate.overhead);
	if (pol->atm || p->details)
		mqtx__out_str(p, OUT_ANY, "linklayer", "linklayer %s ",
			      pol->atm ? "atm" : "ethernet");
	mqtx__out_nl(p);
	mqtx__out_int(p, OUT_ANY, "ref", "\tref %lld ", tcf_act_ref(a));
	mqtx__out_int(p, OUT_ANY, "bind", "bind %lld ", tcf_act_bind(a));
	mqtx__out_nl(p);
}

const struct tcf_action_ops mqtx__tcf_police_ops = {
	.kind = "police",
	.usage = POLICE_USAGE,
	.priv_size = sizeof(struct police),
	.parse = police_parse,
	.act = police_act,
	.probe = police_probe,
	.dump = police_dump,
	.replace = police_replace,
};

/* SPDX-License-Identifier: MIT */
/* tc's units and option words: parse and print rates, times and sizes exactly as iproute2's
 * tc does, and the helpers a qdisc's option parser uses (mqtx_qdisc_ops.parse). */
#ifndef MQTX_TC_H
#define MQTX_TC_H

#include <errno.h>

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum mqtx_tc_exit - the exit codes of tc, which every command, filter and qdisc parser of
 * mqtx returns (the command line tool exits with them).
 * @MQTX_TC_EXIT_OK: done.
 * @MQTX_TC_EXIT_PARSE: tc's parser refused a word (its usage may follow the message).
 * @MQTX_TC_EXIT_REFUSED: the request was refused, as the kernel refuses one ("RTNETLINK
 *        answers: ..."): its one message, nothing after it.
 * @MQTX_TC_EXIT_ABORT: tc left at once with exit -1: incomplete_command() where a value was
 *        due, invarg() for a word it cannot read, duparg() for one given twice.
 */
enum mqtx_tc_exit {
	MQTX_TC_EXIT_OK = 0,
	MQTX_TC_EXIT_PARSE = 1,
	MQTX_TC_EXIT_REFUSED = 2,
	MQTX_TC_EXIT_ABORT = 255,
};

/** An extended error: a message naming what was wrong (like netlink extack). */
struct mqtx_extack {
	char msg[200];
};

/** mqtx_extack_set() - write a message into @ack (NULL allowed); returns -EINVAL for chaining. */
MQTX_API int mqtx_extack_set(struct mqtx_extack *ack, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Big enough for any string the printers below produce. */
#define MQTX_TC_BUF 32

/**
 * mqtx_tc_parse_rate() - a tc rate ("1mbit", "100kbps", "8000") as bytes per second.
 * Suffixes, case-insensitive as tc: bit kbit mbit gbit tbit (decimal), kibit mibit gibit tibit
 * (binary), and the byte forms bps kbps mbps gbps tbps kibps mibps gibps tibps; a bare number
 * is bits per second. Fractions are allowed ("1.5mbit"); the byte rate is truncated.
 * Return: 0, or -EINVAL (empty, malformed, unknown suffix, negative, not finite, too large).
 */
MQTX_API int mqtx_tc_parse_rate(const char *s, uint64_t *bytes_per_sec);

/**
 * mqtx_tc_parse_rate_percent() - tc's "N%" rate ("10%", "2.5%"): that share of the link speed
 * of the device the command names (mqtx_dev_link_rate()), in bytes per second, as tc reads a
 * percentage of the speed the kernel reports for an interface. Only inside a kind's parse
 * called by a command that names a device (the command layer tells the parse which).
 * Return: 0; -EINVAL with tc's lines in @ack (without its "Illegal" line, which the caller's
 * option adds): no such device, a speed the driver does not know, a malformed number, a share
 * outside [0,100]%; -EINVAL with @ack empty when the command names no device.
 */
MQTX_API int mqtx_tc_parse_rate_percent(const char *s, uint64_t *bytes_per_sec,
					struct mqtx_extack *ack);

/**
 * mqtx_tc_parse_rate_bits() - the same grammar as mqtx_tc_parse_rate(), in bits per second
 * (truncated), for callers that pace bits (the generator, the sim driver's wire).
 * Return: 0, or -EINVAL (as above).
 */
MQTX_API int mqtx_tc_parse_rate_bits(const char *s, uint64_t *bits_per_sec);

/**
 * mqtx_tc_parse_rate_pps() - a packet rate: a number as tc reads one, then pps, kpps or mpps
 * (case-insensitive; "1000pps", "2.5kpps"). A bare number is not a packet rate.
 * Return: 0, or -EINVAL (no pps suffix, malformed, negative, not finite, too large).
 */
MQTX_API int mqtx_tc_parse_rate_pps(const char *s, uint64_t *pps);

/**
 * mqtx_tc_parse_time() - a tc time ("5ms", "100us", "1s") in ns. Suffixes s/sec/secs,
 * ms/msec/msecs, us/usec/usecs; a bare number is microseconds (tc's rule).
 * Return: 0, or -EINVAL (as above; at most about 584 years).
 */
MQTX_API int mqtx_tc_parse_time(const char *s, uint64_t *ns);

/**
 * mqtx_tc_parse_size() - a tc size ("10kb", "1514", "32mb") in bytes. Suffixes b, k/kb, m/mb,
 * g/gb (binary multiples), kbit/mbit/gbit (binary multiples of bits); a bare number is bytes.
 * Return: 0, or -EINVAL (as above; at most UINT32_MAX bytes, tc's limit).
 */
MQTX_API int mqtx_tc_parse_size(const char *s, uint64_t *bytes);

/**
 * mqtx_tc_parse_u32() - an unsigned integer as tc's get_unsigned()/get_u32() with base 0:
 * decimal, hex after "0x"/"0X", octal after a leading "0" ("0x10" and "020" are 16). No sign,
 * blanks or suffix.
 * Return: 0, or -EINVAL (empty, malformed, trailing characters, negative, above UINT32_MAX).
 */
MQTX_API int mqtx_tc_parse_u32(const char *s, uint32_t *v);

/** mqtx_tc_parse_u32_dec() - the same in base 10 only, where tc reads get_integer(.., 10). */
MQTX_API int mqtx_tc_parse_u32_dec(const char *s, uint32_t *v);

/**
 * mqtx_tc_print_rate() - tc's sprint_rate: bits per second with the largest decimal prefix
 * that keeps the number exact, or a rounded one from 1000 units up ("1Mbit", "1500Kbit",
 * "999bit"). Returns @buf (at least MQTX_TC_BUF bytes).
 */
MQTX_API char *mqtx_tc_print_rate(char *buf, size_t len, uint64_t bytes_per_sec);

/**
 * mqtx_tc_print_time() - tc's sprint_time on microseconds: "%.3gs" from 1 s, "%.3gms" from
 * 1 ms, else whole microseconds "%uus" ("5ms", "100ms", "1.5s", "250us"). Returns @buf.
 */
MQTX_API char *mqtx_tc_print_time(char *buf, size_t len, uint64_t ns);

/**
 * mqtx_tc_print_size() - tc's sprint_size: "%gMb" when within 1 KiB of a whole MiB, "%gKb"
 * when within 16 bytes of a whole KiB, else "%ub" ("32Mb", "10Kb", "1514b"). Returns @buf.
 */
MQTX_API char *mqtx_tc_print_size(char *buf, size_t len, uint64_t bytes);

/* ---- option-token helpers for ops->parse (messages go to @ack, naming the token) ---- */

/*
 * What ops->parse returns besides 0 and -EINVAL (a word refused: tc's parser returns -1, the
 * exit is MQTX_TC_EXIT_PARSE). With MQTX_TC_EUSAGE the kind's usage (mqtx_qdisc_ops.usage)
 * follows the message (tc's explain() after an unknown word or a missing mandatory option;
 * "help" alone: the usage only, @ack empty), and the exit is MQTX_TC_EXIT_PARSE.
 * MQTX_TC_EFATAL is tc leaving at once: the exit is MQTX_TC_EXIT_ABORT (255).
 */
#define MQTX_TC_EUSAGE (-EBADRQC)
#define MQTX_TC_EFATAL (-ECANCELED)

/**
 * mqtx_tc_next_arg() - the value after option argv[*i]; advances *i. NULL when argv[*i] is the
 * last token, with tc's message for it ("Command line is not complete. Try option
 * \"help\""): the parser then returns MQTX_TC_EFATAL.
 */
MQTX_API const char *mqtx_tc_next_arg(int argc, char **argv, int *i, struct mqtx_extack *ack);

/** mqtx_tc_arg_u32() / _time() / _size() / _rate() - next_arg + parse, with a message naming
 *  the option and the bad value. Return 0, -EINVAL, or MQTX_TC_EFATAL (no value). */
MQTX_API int mqtx_tc_arg_u32(int argc, char **argv, int *i, uint32_t *v, struct mqtx_extack *ack);
MQTX_API int mqtx_tc_arg_u32_dec(int argc, char **argv, int *i, uint32_t *v,
				 struct mqtx_extack *ack);
MQTX_API int mqtx_tc_arg_time(int argc, char **argv, int *i, uint64_t *ns, struct mqtx_extack *ack);
MQTX_API int mqtx_tc_arg_size(int argc, char **argv, int *i, uint64_t *bytes,
			      struct mqtx_extack *ack);
MQTX_API int mqtx_tc_arg_rate(int argc, char **argv, int *i, uint64_t *bps,
			      struct mqtx_extack *ack);

/**
 * mqtx_tc_unknown() - an unknown token @tok of qdisc @kind where an option was due, as most of
 * tc's parsers answer it: "What is \"X\"?" then the usage; "help" asks for the usage alone.
 * Return: MQTX_TC_EUSAGE.
 */
MQTX_API int mqtx_tc_unknown(const char *kind, const char *tok, struct mqtx_extack *ack);

#ifdef __cplusplus
}
#endif
#endif

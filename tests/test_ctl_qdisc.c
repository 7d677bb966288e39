// SPDX-License-Identifier: MIT
/* The qdisc/class commands: data-driven cases as tc-testing writes them, and exact output. */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctl_fixture.h"
#include <mqtx/mqtx.h>
#include <mqtx/driver.h>
#include <mqtx/qdisc.h>

/*
 * One case: setup commands (each must exit 0), the command under test and its exit code,
 * then a verify command whose output (stdout and stderr; NULL: the command's own) must match
 * @pattern (POSIX ERE, per line) exactly @count times.
 */
struct ctl_case {
	const char *name;
	const char *setup[3];
	const char *cmd;
	int rc;
	const char *verify;
	const char *pattern;
	int count;
};

#define PFF "bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1"

static const struct ctl_case cases[] = {
	/* defaults */
	{ "mq is the default root of a multiqueue device",
	  {},
	  "qdisc show dev eth0",
	  0,
	  NULL,
	  "^qdisc mq 0: root $",
	  1 },
	{ "every queue of eth16 has the default",
	  {},
	  "qdisc show dev eth16",
	  0,
	  NULL,
	  "^qdisc pfifo_fast 0: parent :[0-9a-f]+ " PFF "$",
	  16 },
	{ "queue 10 is class :a", {}, "qdisc show dev eth16", 0, NULL, "parent :a ", 1 },
	{ "only active queues are listed", {}, "qdisc show dev half0", 0, NULL, "pfifo_fast", 2 },
	{ "class show lists every allocated queue",
	  {},
	  "class show dev half0",
	  0,
	  NULL,
	  "^class mq :[1-4] root $",
	  4 },
	{ "a single-queue device has no mq",
	  {},
	  "qdisc show dev lo1",
	  0,
	  NULL,
	  "^qdisc pfifo_fast 0: root refcnt 2 " PFF "$",
	  1 },
	/* handles */
	{ "handle 10000: is malformed",
	  {},
	  "qdisc add dev eth0 root handle 10000: mq",
	  255,
	  NULL,
	  "\"10000:\" is wrong: invalid qdisc ID",
	  1 },
	{ "handle 123^ is malformed",
	  {},
	  "qdisc add dev eth0 root handle 123^ mq",
	  255,
	  NULL,
	  "\"123\\^\" is wrong",
	  1 },
	{ "parent 1:10000 is malformed",
	  {},
	  "qdisc add dev eth0 parent 1:10000 pfifo",
	  255,
	  NULL,
	  "invalid parent ID",
	  1 },
	{ "auto handles count from 8001:",
	  { "qdisc add dev lo1 root pfifo" },
	  "qdisc replace dev lo1 root handle 5: pfifo limit 9",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc pfifo 5: root refcnt 2 limit 9p$",
	  1 },
	{ "first auto handle",
	  {},
	  "qdisc add dev lo1 root pfifo",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc pfifo 8001: root refcnt 2 limit 1000p$",
	  1 },
	/* add / replace / change / del */
	{ "mq with a handle",
	  {},
	  "qdisc add dev eth16 root handle 1: mq",
	  0,
	  "qdisc show dev eth16",
	  "^qdisc pfifo_fast 0: parent 1:(10|[1-9a-f]) ",
	  16 },
	{ "adding an existing root is refused",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc add dev eth0 root handle 1: mq",
	  2,
	  NULL,
	  "Exclusivity flag on",
	  1 },
	{ "and changes nothing",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc add dev eth0 root handle 1: mq",
	  2,
	  "qdisc show dev eth0",
	  "^qdisc mq 1: root $",
	  1 },
	{ "add without replace over another handle",
	  { "qdisc add dev lo1 root pfifo" },
	  "qdisc add dev lo1 root handle 3: pfifo",
	  2,
	  NULL,
	  "NLM_F_REPLACE needed",
	  1 },
	{ "change of a missing qdisc",
	  {},
	  "qdisc change dev lo1 root pfifo limit 5",
	  2,
	  NULL,
	  "Qdisc not found. To create specify NLM_F_CREATE flag",
	  1 },
	{ "change by handle",
	  { "qdisc add dev lo1 root handle 7: pfifo" },
	  "qdisc change dev lo1 handle 7: pfifo limit 5",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc pfifo 7: root refcnt 2 limit 5p$",
	  1 },
	{ "change to another kind makes one (Linux 6.x)",
	  { "qdisc add dev lo1 root handle 7: pfifo" },
	  "qdisc change dev lo1 root pfifo_fast",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc pfifo_fast 8001: root ",
	  1 },
	{ "change by handle to another kind",
	  { "qdisc add dev lo1 root handle 7: pfifo" },
	  "qdisc change dev lo1 handle 7: pfifo_fast",
	  2,
	  NULL,
	  "^Error: Invalid qdisc name: must match existing qdisc. \\(7: is pfifo, not "
	  "pfifo_fast\\)$",
	  1 },
	{ "add another kind over a class's qdisc makes one (Linux 6.x)",
	  { "qdisc add dev eth0 root handle 1: mq",
	    "qdisc add dev eth0 parent 1:2 handle 20: pfifo" },
	  "qdisc add dev eth0 parent 1:2 bfifo limit 3000",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc bfifo 8001: parent 1:2 limit 3000b$",
	  1 },
	{ "add the same kind over a class's qdisc",
	  { "qdisc add dev eth0 root handle 1: mq",
	    "qdisc add dev eth0 parent 1:2 handle 20: pfifo" },
	  "qdisc add dev eth0 parent 1:2 pfifo limit 3",
	  2,
	  NULL,
	  "^Error: Exclusivity flag on, cannot modify. \\(pfifo 20: exists\\)$",
	  1 },
	{ "noqueue in a class is made, then refused",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc add dev eth0 parent 1:2 noqueue",
	  2,
	  NULL,
	  "^Error: Cannot assign noqueue to a class. \\(1:2\\)$",
	  1 },
	{ "delete by handle alone",
	  { "qdisc add dev eth0 root handle 1: mq",
	    "qdisc add dev eth0 parent 1:2 handle 20: pfifo" },
	  "qdisc del dev eth0 handle 20:",
	  2,
	  NULL,
	  "^Error: Classid cannot be zero. \\(pfifo 20: is at 1:2\\)$",
	  1 },
	{ "delete of another kind",
	  { "qdisc add dev eth0 root handle 1: mq",
	    "qdisc add dev eth0 parent 1:2 handle 20: pfifo" },
	  "qdisc del dev eth0 parent 1:2 bfifo",
	  2,
	  NULL,
	  "^Error: Invalid qdisc name: must match existing qdisc. \\(20: is pfifo, not bfifo\\)$",
	  1 },
	{ "hex handles and parents",
	  { "qdisc add dev eth0 root handle 0x10: mq" },
	  "qdisc add dev eth0 parent 0x10:0x3 handle 0x20 pfifo",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc pfifo 20: parent 10:3 limit 1000p$",
	  1 },
	{ "replace with another handle",
	  { "qdisc add dev lo1 root handle 7: pfifo_fast" },
	  "qdisc replace dev lo1 root handle 8: pfifo_fast",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc pfifo_fast 8: root",
	  1 },
	{ "delete a missing handle",
	  { "qdisc add dev lo1 root handle 7: pfifo" },
	  "qdisc del dev lo1 root handle 2:",
	  2,
	  NULL,
	  "Invalid handle",
	  1 },
	{ "delete twice",
	  { "qdisc add dev eth0 root handle 1: mq", "qdisc del dev eth0 root" },
	  "qdisc del dev eth0 root",
	  2,
	  NULL,
	  "handle of zero",
	  1 },
	{ "delete brings the default back",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc del dev eth0 root handle 1:",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc mq 0: root $",
	  1 },
	{ "delete by unknown parent",
	  {},
	  "qdisc del dev eth0 parent 5:1",
	  2,
	  NULL,
	  "Failed to find qdisc with specified classid",
	  1 },
	{ "graft into an mq class",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc add dev eth0 parent 1:3 handle 30: pfifo limit 7",
	  0,
	  "class show dev eth0",
	  "^class mq 1:3 root leaf 30: $",
	  1 },
	{ "class out of range",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc add dev eth0 parent 1:5 pfifo",
	  2,
	  NULL,
	  "Specified class not found",
	  1 },
	{ "parent qdisc missing",
	  {},
	  "qdisc add dev eth0 parent 7:1 pfifo",
	  2,
	  NULL,
	  "Failed to find specified qdisc",
	  1 },
	{ "delete a class child puts the default back, unlisted as Linux's noop",
	  { "qdisc add dev eth0 root handle 1: mq",
	    "qdisc add dev eth0 parent 1:2 handle 9: pfifo" },
	  "qdisc del dev eth0 parent 1:2",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc [a-z_]+ [0-9a-f]+: parent 1:2 ",
	  0 },
	{ "invalid parent keeps mq and its children",
	  { "qdisc add dev eth16 root handle 1: mq" },
	  "qdisc replace dev eth16 parent ffff:fff1 handle 1: mq",
	  2,
	  "qdisc show dev eth16",
	  "^qdisc pfifo_fast 0: parent 1:",
	  16 },
	{ "mq on a single-queue device",
	  {},
	  "qdisc add dev lo1 root handle 1: mq",
	  2,
	  NULL,
	  "Operation not supported",
	  1 },
	{ "mq below the root",
	  { "qdisc add dev eth0 root handle 1: mq" },
	  "qdisc add dev eth0 parent 1:1 handle 7: mq",
	  2,
	  NULL,
	  "Operation not supported",
	  1 },
	{ "mqprio on a single-queue device",
	  {},
	  "qdisc add dev lo1 root mqprio num_tc 1 map 0 queues 1@0 hw 0",
	  2,
	  NULL,
	  "Operation not supported",
	  1 },
	{ "ingress names parent, handle and kind",
	  {},
	  "qdisc add dev eth0 ingress",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc ingress ffff: parent ffff:fff1 ",
	  1 },
	{ "ingress takes its options",
	  {},
	  "qdisc add dev lo1 ingress rate 8kbit burst 1500",
	  0,
	  "qdisc show dev lo1",
	  " parent ffff:fff1 .*rate 8Kbit burst 1500b $",
	  1 },
	{ "ingress after a parent",
	  {},
	  "qdisc add dev eth0 parent ffff:fff1 ingress",
	  255,
	  NULL,
	  "\"ingress\" is a duplicate parent ID",
	  1 },
	{ "ingress deleted by the same word",
	  { "qdisc add dev eth0 ingress" },
	  "qdisc del dev eth0 ingress",
	  0,
	  "qdisc show dev eth0",
	  "ingress",
	  0 },
	{ "unknown kind",
	  {},
	  "qdisc add dev eth0 root foo",
	  2,
	  NULL,
	  "Specified qdisc kind is unknown",
	  1 },
	{ "option for a kind without options",
	  {},
	  "qdisc add dev eth0 root handle 1: mq foo",
	  1,
	  NULL,
	  "hence option \"foo\" is unparsable",
	  1 },
	{ "unknown device",
	  {},
	  "qdisc add dev nope root pfifo",
	  1,
	  NULL,
	  "Cannot find device \"nope\"",
	  1 },
	/* tc exits with -1 (255) on these */
	{ "unknown verb", {}, "qdisc frob dev eth0", 255, NULL, "\"frob\" is unknown", 1 },
	{ "duplicate parent",
	  {},
	  "qdisc add dev eth0 root parent 1:1 pfifo",
	  255,
	  NULL,
	  "Error: duplicate \"parent\": \"1:1\" is the second value.",
	  1 },
	{ "duplicate root",
	  {},
	  "qdisc add dev eth0 parent 1:1 root pfifo",
	  255,
	  NULL,
	  "Error: \"root\" is duplicate parent ID",
	  1 },
	{ "duplicate handle",
	  {},
	  "qdisc add dev eth0 handle 1: handle 2: root pfifo",
	  255,
	  NULL,
	  /* tc's words, then the value */
	  "^Error: duplicate \"handle\": \"handle\" is the second value. \\(2:\\)$",
	  1 },
	{ "incomplete",
	  {},
	  "qdisc add dev eth0 root handle",
	  255,
	  NULL,
	  "Command line is not complete",
	  1 },
	{ "ingress ignores a handle, as tc",
	  {},
	  "qdisc add dev eth0 ingress handle 5:",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc ingress ffff: parent ffff:fff1 ---------------- $",
	  1 },
	/* the kind's parser runs on no words too, as tc's: a whole configuration every time */
	{ "tbf has no defaults",
	  {},
	  "qdisc add dev lo1 root tbf",
	  1,
	  NULL,
	  "the \"rate\" parameter is mandatory",
	  1 },
	{ "a kind named in a delete is parsed",
	  { "qdisc add dev lo1 root handle 1: pfifo" },
	  "qdisc del dev lo1 root tbf",
	  1,
	  "qdisc show dev lo1",
	  "^qdisc pfifo 1: root",
	  1 },
	{ "a prio change without options is the default",
	  { "qdisc add dev lo1 root handle 1: prio bands 4 priomap 3 3" },
	  "qdisc change dev lo1 handle 1: prio",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc prio 1: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1$",
	  1 },
	{ "a tbf change drops the peak rate it leaves out",
	  { "qdisc add dev lo1 root handle 1: tbf rate 1mbit burst 10kb limit 20000 peakrate 2mbit "
	    "mtu 1000" },
	  "qdisc change dev lo1 handle 1: tbf rate 4mbit burst 10kb limit 20000",
	  0,
	  "qdisc show dev lo1",
	  "^qdisc tbf 1: root refcnt 2 rate 4Mbit burst 10Kb lat 19.5ms $",
	  1 },
	/* mqprio */
	{ "mqprio",
	  {},
	  "qdisc add dev eth0 root handle 2: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 "
	  "queues 2@0 2@2 hw 0",
	  0,
	  "qdisc show dev eth0",
	  "^qdisc mqprio 2: root tc 2 map 0 0 0 0 1 1 1 1 0 0 0 0 0 0 0 0",
	  1 },
	{ "mqprio queue ranges",
	  {},
	  "qdisc add dev eth0 root handle 2: mqprio num_tc 2 map 0 1 "
	  "queues 1@0 3@1 hw 0",
	  0,
	  "qdisc show dev eth0",
	  "queues:\\(0:0\\) \\(1:3\\)",
	  1 },
	{ "mqprio overlap, unsorted",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 2 map 0 1 "
	  "queues 2@2 3@0 hw 0",
	  2,
	  NULL,
	  "^Error: sch_mqprio_lib: TC 0 queues 2@2 overlap with TC 1 queues 3@0.$",
	  1 },
	{ "mqprio beyond real_num_txq",
	  {},
	  "qdisc add dev half0 root mqprio num_tc 2 map 0 1 "
	  "queues 1@0 2@1 hw 0",
	  2,
	  NULL,
	  "Queues 2:1 for TC 1 exceed the 2 TX queues available",
	  1 },
	{ "mqprio empty class",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 2 map 0 1 "
	  "queues 2@0 0@2 hw 0",
	  2,
	  NULL,
	  "No queues for TC 1",
	  1 },
	{ "mqprio bad map",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 2 map 0 2 "
	  "queues 2@0 2@2 hw 0",
	  2,
	  NULL,
	  "Invalid traffic class in priority",
	  1 },
	{ "mqprio too many tcs",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 17",
	  2,
	  NULL,
	  "Number of traffic classes is outside valid range",
	  1 },
	{ "mqprio 17 map entries",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 2 map "
	  "0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 2@0 2@2 hw 0",
	  255, /* tc's invarg() */
	  NULL,
	  "^Error: argument \"1\" is wrong: unknown argument$",
	  1 },
	{ "mqprio more pairs than tcs",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 1 map 0 "
	  "queues 2@0 2@2 hw 0",
	  1,
	  NULL,
	  "can not be higher than given num_tc 1",
	  1 },
	{ "mqprio hw offload",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 1 map 0 queues 4@0",
	  2,
	  NULL,
	  "does not support hardware offload",
	  1 },
	{ "refused mqprio keeps the old root",
	  {},
	  "qdisc add dev eth0 root mqprio num_tc 2 map 0 1 queues 2@0 3@1 hw 0",
	  2,
	  "qdisc show dev eth0",
	  "^qdisc mq 0: root $",
	  1 },
};

static int count_matches(const char *pattern, const char *text)
{
	regex_t re;
	regmatch_t m;
	int n = 0;

	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
	for (const char *p = text; *p && !regexec(&re, p, 1, &m, p == text ? 0 : REG_NOTBOL);) {
		n++;
		/* Continue after the match, at least one character on. */
		p += m.rm_eo > 0 ? m.rm_eo : 1;
	}
	regfree(&re);
	return n;
}

static void run_case(const struct ctl_case *c)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *out, *err, *text;
	int rc, n;

	for (int i = 0; i < 3 && c->setup[i]; i++) {
		rc = fixture_run(ctl, c->setup[i], &out, &err);
		if (rc)
			fail_msg("%s: setup \"%s\" exited %d: %s", c->name, c->setup[i], rc, err);
		free(out);
		free(err);
	}
	rc = fixture_run(ctl, c->cmd, &out, &err);
	if (rc != c->rc)
		fail_msg("%s: \"%s\" exited %d, expected %d: %s", c->name, c->cmd, rc, c->rc, err);
	if (c->verify) {
		free(out);
		free(err);
		assert_int_equal(fixture_run(ctl, c->verify, &out, &err), 0);
	}
	text = malloc(strlen(out) + strlen(err) + 1);
	strcpy(text, out);
	strcat(text, err);
	n = count_matches(c->pattern, text);
	if (n != c->count)
		fail_msg("%s: /%s/ matched %d times, expected %d, in:\n%s", c->name, c->pattern, n,
			 c->count, text);
	free(text);
	free(out);
	free(err);
	fixture_free(ctl);
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

static void expect_exact(const char *dev, unsigned flags, const char *obj, const char *want)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_buf o, e;
	char line[64];

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	snprintf(line, sizeof(line), "%s show dev %s", obj, dev);
	assert_int_equal(mqtx_ctl_exec_line(ctl, line, flags, &o, &e), 0);
	assert_string_equal(o.data ? o.data : "", want);
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	fixture_free(ctl);
}

#define CHILD(n) "qdisc pfifo_fast 0: parent :" n " " PFF "\n"
#define ZSTATS                                                        \
	" Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n" \
	" backlog 0b 0p requeues 0\n"
#define PFF_JSON                                                                  \
	"\"options\":{\"bands\":3,\"priomap\":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1]," \
	"\"multiqueue\":false}"
#define ZJSON                                                                                   \
	",\"bytes\":0,\"packets\":0,\"drops\":0,\"overlimits\":0,\"requeues\":0,\"backlog\":0," \
	"\"qlen\":0"

static void test_exact_default_4q(void **state)
{
	(void)state;
	expect_exact("eth0", 0, "qdisc",
		     "qdisc mq 0: root \n" CHILD("4") CHILD("3") CHILD("2") CHILD("1"));
	expect_exact("eth0", MQTX_CTL_F_STATS, "qdisc",
		     "qdisc mq 0: root \n" ZSTATS CHILD("4") ZSTATS CHILD("3") ZSTATS CHILD("2")
			     ZSTATS CHILD("1") ZSTATS);
	expect_exact("eth0", MQTX_CTL_F_JSON, "qdisc",
		     "[{\"kind\":\"mq\",\"handle\":\"0:\",\"root\":true,\"options\":{}},"
		     "{\"kind\":\"pfifo_fast\",\"handle\":\"0:\",\"parent\":\":4\"," PFF_JSON "},"
		     "{\"kind\":\"pfifo_fast\",\"handle\":\"0:\",\"parent\":\":3\"," PFF_JSON "},"
		     "{\"kind\":\"pfifo_fast\",\"handle\":\"0:\",\"parent\":\":2\"," PFF_JSON "},"
		     "{\"kind\":\"pfifo_fast\",\"handle\":\"0:\",\"parent\":\":1\"," PFF_JSON
		     "}]\n");
	expect_exact("eth0", MQTX_CTL_F_JSON | MQTX_CTL_F_STATS, "class",
		     "[{\"class\":\"mq\",\"handle\":\":1\",\"root\":true,\"options\":{}" ZJSON "},"
		     "{\"class\":\"mq\",\"handle\":\":2\",\"root\":true,\"options\":{}" ZJSON "},"
		     "{\"class\":\"mq\",\"handle\":\":3\",\"root\":true,\"options\":{}" ZJSON "},"
		     "{\"class\":\"mq\",\"handle\":\":4\",\"root\":true,\"options\":{}" ZJSON
		     "}]\n");
	expect_exact("eth0", MQTX_CTL_F_STATS, "class",
		     "class mq :1 root \n" ZSTATS "class mq :2 root \n" ZSTATS
		     "class mq :3 root \n" ZSTATS "class mq :4 root \n" ZSTATS);
}

static void test_exact_default_1q(void **state)
{
	(void)state;
	expect_exact("lo1", 0, "qdisc", "qdisc pfifo_fast 0: root refcnt 2 " PFF "\n");
	expect_exact("lo1", MQTX_CTL_F_STATS, "qdisc",
		     "qdisc pfifo_fast 0: root refcnt 2 " PFF "\n" ZSTATS);
	expect_exact(
		"lo1", MQTX_CTL_F_JSON | MQTX_CTL_F_STATS, "qdisc",
		"[{\"kind\":\"pfifo_fast\",\"handle\":\"0:\",\"root\":true,\"refcnt\":2," PFF_JSON
			ZJSON "}]\n");
	expect_exact("lo1", 0, "class", "");
}

static void test_exact_mq_handle(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	char *out, *err;

	(void)state;
	assert_int_equal(fixture_run(ctl, "qdisc add dev eth16 root handle 1: mq", NULL, NULL), 0);
	assert_int_equal(fixture_run(ctl, "qdisc add dev eth16 parent 1:a pfifo", NULL, NULL), 0);
	assert_int_equal(fixture_run(ctl, "class show dev eth16", &out, &err), 0);
	assert_non_null(strstr(out, "class mq 1:9 root \nclass mq 1:a root leaf 8001: \n"
				    "class mq 1:b root \n"));
	free(out);
	free(err);
	assert_int_equal(fixture_run(ctl, "qdisc show dev eth16", &out, &err), 0);
	assert_non_null(strstr(out, "qdisc mq 1: root \nqdisc pfifo 8001: parent 1:a limit 1000p\n"
				    "qdisc pfifo_fast 0: parent 1:10 "));
	/* Linux hash order: 8001: shares bucket 0 with the defaults and is newest (kernel 6.18). */
	free(out);
	free(err);
	/* A shared root on a multiqueue device: one reference per queue and dev->qdisc's. */
	assert_int_equal(fixture_run(ctl, "qdisc replace dev eth0 root pfifo", NULL, NULL), 0);
	assert_int_equal(fixture_run(ctl, "qdisc show dev eth0", &out, &err), 0);
	assert_string_equal(out, "qdisc pfifo 8001: root refcnt 5 limit 1000p\n");
	free(out);
	free(err);
	fixture_free(ctl);
}

static void test_default_setting(void **state)
{
	struct mqtx_ctl *ctl;
	char *out, *err;

	(void)state;
	assert_int_equal(mqtx_set_default_qdisc("nosuch"), -ENOENT);
	assert_int_equal(mqtx_set_default_qdisc("mq"), -EINVAL);
	assert_int_equal(mqtx_set_default_qdisc("pfifo"), 0);
	ctl = fixture_ctl();
	assert_int_equal(fixture_run(ctl, "qdisc show dev half0", &out, &err), 0);
	/* Active queues get the setting; the inactive tail keeps pfifo_fast (not listed). */
	assert_string_equal(out, "qdisc mq 0: root \n"
				 "qdisc pfifo 0: parent :2 limit 1000p\n"
				 "qdisc pfifo 0: parent :1 limit 1000p\n");
	free(out);
	free(err);
	fixture_free(ctl);
	assert_int_equal(mqtx_set_default_qdisc(NULL), 0);
	assert_string_equal(mqtx_default_qdisc(NULL), "pfifo_fast");
}

/* Send @n frames of @len bytes with @prio (non-IP: the first queue of its traffic class), or
 * on queue @q when @q >= 0. */
static void send(struct mqtx_ctl *ctl, struct mqtx_pkt_pool *pool, unsigned n, uint32_t len,
		 uint32_t prio, int q)
{
	struct mqtx_dev *dev = mqtx_ctl_dev(ctl, "eth0");

	for (unsigned i = 0; i < n; i++) {
		struct mqtx_pkt *pkt = mqtx_pkt_alloc(pool);

		assert_non_null(pkt);
		memset(mqtx_pkt_put(pkt, len), 0, len);
		pkt->priority = prio;
		if (q >= 0) {
			pkt->queue_mapping = (uint16_t)q;
			pkt->flags |= MQTX_PKT_F_QMAP_SET;
		}
		assert_int_equal(mqtx_dev_xmit(dev, pkt), MQTX_XMIT_SUCCESS);
	}
}

/* "invisible" adds prio's default bands (hashed hidden by prio_tune(), newest first); a qdisc
 * eight levels down is refused (qdisc_graft()); the default a delete puts under mq is unlisted
 * and sends. */
static void test_exact_invisible_depth(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_pkt_pool *pool;
	char *out, *err, cmd[96];

	(void)state;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 64 }, &pool), 0);
	assert_int_equal(fixture_run(ctl, "qdisc add dev lo1 root handle 1: prio", NULL, NULL), 0);
	assert_int_equal(fixture_run(ctl, "qdisc show dev lo1", &out, &err), 0);
	assert_string_equal(out, "qdisc prio 1: root refcnt 2 " PFF "\n");
	free(out);
	free(err);
	assert_int_equal(fixture_run(ctl, "qdisc show dev lo1 invisible", &out, &err), 0);
	assert_string_equal(out, "qdisc prio 1: root refcnt 2 " PFF "\n"
				 "qdisc pfifo 0: parent 1:3 limit 1000p\n"
				 "qdisc pfifo 0: parent 1:2 limit 1000p\n"
				 "qdisc pfifo 0: parent 1:1 limit 1000p\n");
	free(out);
	free(err);
	assert_int_equal(fixture_run(ctl, "qdisc show dev lo1 parent 1:2 invisible", &out, &err),
			 0);
	assert_string_equal(out, "qdisc pfifo 0: parent 1:2 limit 1000p\n");
	free(out);
	free(err);
	for (unsigned h = 2; h <= 8; h++) { /* depths 1..7 */
		snprintf(cmd, sizeof(cmd), "qdisc add dev lo1 parent %x:1 handle %x: prio", h - 1,
			 h);
		assert_int_equal(fixture_run(ctl, cmd, NULL, NULL), 0);
	}
	assert_int_equal(
		fixture_run(ctl, "qdisc add dev lo1 parent 8:1 handle 9: pfifo", &out, &err), 2);
	assert_string_equal(err, "Error: Qdisc hierarchy is too deep. (8: is 7 levels down)\n");
	free(out);
	free(err);
	assert_int_equal(
		fixture_run(ctl, "qdisc add dev lo1 parent 8:2 handle 9: pfifo", NULL, NULL), 2);
	/* under mq: the default is back, unlisted, and queue 1 still sends */
	assert_int_equal(fixture_run(ctl, "qdisc add dev eth0 root handle 1: mq", NULL, NULL), 0);
	assert_int_equal(
		fixture_run(ctl, "qdisc add dev eth0 parent 1:2 handle 9: pfifo", NULL, NULL), 0);
	assert_int_equal(fixture_run(ctl, "qdisc del dev eth0 parent 1:2", NULL, NULL), 0);
	assert_int_equal(fixture_run(ctl, "qdisc show dev eth0 parent 1:2 invisible", &out, &err),
			 0);
	assert_string_equal(out, "");
	free(out);
	free(err);
	send(ctl, pool, 2, 100, 0, 1);
	assert_int_equal(fixture_run(ctl, "-s class show dev eth0", &out, &err), 0);
	assert_non_null(strstr(out,
			       "class mq 1:2 root \n"
			       " Sent 200 bytes 2 pkt (dropped 0, overlimits 0 requeues 0) \n"));
	free(out);
	free(err);
	fixture_free(ctl);
	mqtx_pool_destroy(pool);
}

/* mqprio's classes as mqprio_walk() and mqprio_dump_class() give them: a virtual class
 * major:ffe0+tc per traffic class (root, no leaf; counters: the sum over its queues), then the
 * queue classes major:q+1 with their traffic class as parent ("none" outside every range). */
static void test_exact_mqprio_classes(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_pkt_pool *pool;
	char *out, *err;

	(void)state;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 64 }, &pool), 0);
	assert_int_equal(fixture_run(ctl,
				     "qdisc add dev eth0 root handle 2: mqprio num_tc 2 "
				     "map 0 0 0 0 1 1 1 1 queues 1@0 2@1 hw 0",
				     NULL, NULL),
			 0);
	assert_int_equal(fixture_run(ctl, "qdisc add dev eth0 parent 2:2 handle 20: pfifo limit 5",
				     NULL, NULL),
			 0);
	assert_int_equal(fixture_run(ctl, "class show dev eth0", &out, &err), 0);
	assert_string_equal(out, "class mqprio 2:ffe0 root \n"
				 "class mqprio 2:ffe1 root \n"
				 "class mqprio 2:1 parent 2:ffe0 \n"
				 "class mqprio 2:2 parent 2:ffe1 leaf 20: \n"
				 "class mqprio 2:3 parent 2:ffe1 \n"
				 "class mqprio 2:4 parent none \n");
	free(out);
	free(err);
	send(ctl, pool, 3, 100, 0, -1); /* TC 0: queue 0 */
	send(ctl, pool, 2, 200, 5, -1); /* TC 1: its first queue, 1 */
	send(ctl, pool, 1, 50, 0, 2);	/* queue 2, in TC 1's range */
	send(ctl, pool, 1, 60, 0, 3);	/* queue 3, in no range */
	assert_int_equal(fixture_run(ctl, "-s class show dev eth0", &out, &err), 0);
	assert_string_equal(out, "class mqprio 2:ffe0 root \n"
				 " Sent 300 bytes 3 pkt (dropped 0, overlimits 0 requeues 0) \n"
				 " backlog 0b 0p requeues 0\n"
				 "class mqprio 2:ffe1 root \n"
				 " Sent 450 bytes 3 pkt (dropped 0, overlimits 0 requeues 0) \n"
				 " backlog 0b 0p requeues 0\n"
				 "class mqprio 2:1 parent 2:ffe0 \n"
				 " Sent 300 bytes 3 pkt (dropped 0, overlimits 0 requeues 0) \n"
				 " backlog 0b 0p requeues 0\n"
				 "class mqprio 2:2 parent 2:ffe1 leaf 20: \n"
				 " Sent 400 bytes 2 pkt (dropped 0, overlimits 0 requeues 0) \n"
				 " backlog 0b 0p requeues 0\n"
				 "class mqprio 2:3 parent 2:ffe1 \n"
				 " Sent 50 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) \n"
				 " backlog 0b 0p requeues 0\n"
				 "class mqprio 2:4 parent none \n"
				 " Sent 60 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) \n"
				 " backlog 0b 0p requeues 0\n");
	free(out);
	free(err);
	assert_int_equal(fixture_run(ctl, "-j class show dev eth0", &out, &err), 0);
	assert_string_equal(
		out,
		"[{\"class\":\"mqprio\",\"handle\":\"2:ffe0\",\"root\":true,\"options\":{}},"
		"{\"class\":\"mqprio\",\"handle\":\"2:ffe1\",\"root\":true,\"options\":{}},"
		"{\"class\":\"mqprio\",\"handle\":\"2:1\",\"parent\":\"2:ffe0\",\"options\":{}},"
		"{\"class\":\"mqprio\",\"handle\":\"2:2\",\"parent\":\"2:ffe1\",\"leaf\":\"20:\","
		"\"options\":{}},"
		"{\"class\":\"mqprio\",\"handle\":\"2:3\",\"parent\":\"2:ffe1\",\"options\":{}},"
		"{\"class\":\"mqprio\",\"handle\":\"2:4\",\"parent\":\"none\",\"options\":{}}]\n");
	free(out);
	free(err);
	/* mq again: the traffic classes go with mqprio, and so do their classes. */
	assert_int_equal(fixture_run(ctl, "qdisc replace dev eth0 root handle 3: mq", NULL, NULL),
			 0);
	assert_int_equal(fixture_run(ctl, "class show dev eth0", &out, &err), 0);
	assert_string_equal(out, "class mq 3:1 root \nclass mq 3:2 root \n"
				 "class mq 3:3 root \nclass mq 3:4 root \n");
	free(out);
	free(err);
	fixture_free(ctl);
	mqtx_pool_destroy(pool);
}

/* -s adds each qdisc's xstats after its counters (codel, fq_codel), and "class show" lists
 * fq_codel's active flows as classes X:flow+1 with queue counters only and their CoDel state,
 * as tc 6.1 prints what Linux reports. Queue 0 is stopped so the packets stay queued; their
 * priority 40:5 and 40:7 picks the flows. */
static void test_exact_xstats(void **state)
{
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_txq *txq0 = mqtx_dev_txq(mqtx_ctl_dev(ctl, "eth0"), 0);
	struct mqtx_pkt_pool *pool;
	char *out, *err;

	(void)state;
	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 64 }, &pool), 0);
	assert_int_equal(fixture_run(ctl, "qdisc add dev eth0 root handle 1: mq", NULL, NULL), 0);
	assert_int_equal(
		fixture_run(ctl, "qdisc add dev eth0 parent 1:1 handle 40: fq_codel", NULL, NULL),
		0);
	assert_int_equal(
		fixture_run(ctl, "qdisc add dev eth0 parent 1:2 handle 20: codel", NULL, NULL), 0);
	mqtx_txq_stop(txq0);
	send(ctl, pool, 2, 100, 0x400005, 0);
	send(ctl, pool, 1, 60, 0x400007, 0);
	assert_int_equal(fixture_run(ctl, "-s qdisc show dev eth0", &out, &err), 0);
	assert_int_equal(
		count_matches("^qdisc codel 20: parent 1:2 limit 1000p target 5ms interval 100ms\n"
			      " Sent 0 bytes 0 pkt \\(dropped 0, overlimits 0 requeues 0\\) \n"
			      " backlog 0b 0p requeues 0\n"
			      "  count 0 lastcount 0 ldelay 0us drop_next 0us\n"
			      "  maxpacket 0 ecn_mark 0 drop_overlimit 0\n",
			      out),
		1);
	assert_int_equal(
		count_matches("^qdisc fq_codel 40: parent 1:1 limit 10240p .*\n"
			      " Sent 0 bytes 0 pkt \\(dropped 0, overlimits 0 requeues 0\\) \n"
			      " backlog 260b 3p requeues 0\n"
			      "  maxpacket 0 drop_overlimit 0 new_flow_count 2 ecn_mark 0 "
			      "memory_used [0-9]+\n"
			      "  new_flows_len 2 old_flows_len 0\n",
			      out),
		1);
	free(out);
	free(err);
	assert_int_equal(fixture_run(ctl, "-s class show dev eth0", &out, &err), 0);
	assert_non_null(strstr(out, "class fq_codel 40:5 parent 40: \n"
				    " (dropped 0, overlimits 0 requeues 0) \n"
				    " backlog 200b 2p requeues 0\n"
				    "  deficit 1514 count 0 lastcount 0 ldelay 0us\n"
				    "class fq_codel 40:7 parent 40: \n"
				    " (dropped 0, overlimits 0 requeues 0) \n"
				    " backlog 60b 1p requeues 0\n"
				    "  deficit 1514 count 0 lastcount 0 ldelay 0us\n"));
	free(out);
	free(err);
	assert_int_equal(fixture_run(ctl, "class show dev eth0", &out, &err), 0);
	assert_non_null(strstr(out, "class fq_codel 40:5 parent 40: \n"
				    "class fq_codel 40:7 parent 40: \n"));
	free(out);
	free(err);
	{
		struct mqtx_buf o, e;

		mqtx_buf_init(&o);
		mqtx_buf_init(&e);
		assert_int_equal(mqtx_ctl_exec_line(ctl, "class show dev eth0",
						    MQTX_CTL_F_STATS | MQTX_CTL_F_JSON, &o, &e),
				 0);
		assert_non_null(strstr(
			o.data,
			"{\"class\":\"fq_codel\",\"handle\":\"40:5\",\"parent\":\"40:\","
			"\"options\":{},\"drops\":0,\"overlimits\":0,\"requeues\":0,"
			"\"backlog\":200,\"qlen\":2,\"deficit\":1514,\"count\":0,\"lastcount\":0,"
			"\"ldelay\":0}"));
		o.len = 0;
		assert_int_equal(mqtx_ctl_exec_line(ctl, "qdisc show dev eth0",
						    MQTX_CTL_F_STATS | MQTX_CTL_F_JSON, &o, &e),
				 0);
		assert_non_null(strstr(
			o.data,
			"\"backlog\":0,\"qlen\":0,\"count\":0,\"lastcount\":0,\"ldelay\":0,"
			"\"drop_next\":0,\"maxpacket\":0,\"ecn_mark\":0,\"drop_overlimit\":0}"));
		mqtx_buf_free(&o);
		mqtx_buf_free(&e);
	}
	/* a flow is no class to graft on (fq_codel_find() finds none) */
	assert_int_equal(fixture_run(ctl, "qdisc add dev eth0 parent 40:5 pfifo", NULL, &err), 2);
	assert_non_null(strstr(err, "Specified class not found"));
	free(err);
	/* woken inside a section, the queue runs at its end, here (not on the TX thread) */
	mqtx_bh_disable();
	mqtx_txq_wake(txq0);
	mqtx_bh_enable();
	assert_int_equal(fixture_run(ctl, "-s qdisc show dev eth0", &out, &err), 0);
	assert_non_null(strstr(out, " Sent 260 bytes 3 pkt (dropped 0, overlimits 0 requeues 0) \n"
				    " backlog 0b 0p requeues 0\n"
				    "  maxpacket 100 drop_overlimit 0 new_flow_count 2 ecn_mark 0\n"
				    "  new_flows_len 0 old_flows_len 0\n"));
	free(out);
	free(err);
	fixture_free(ctl);
	mqtx_pool_destroy(pool);
}

/* Times, sizes, rates and flags: tc's words in text, iproute2's numbers and booleans in -j. */
static void test_exact_units(void **state)
{
	static const char *const setup[] = {
		"qdisc add dev eth0 root handle 1: mq",
		"qdisc add dev eth0 parent 1:1 handle 10: tbf rate 1mbit burst 10kb latency 50ms",
		"qdisc add dev eth0 parent 1:2 handle 20: codel ecn",
		"qdisc add dev eth0 parent 1:3 handle 30: bfifo limit 3000",
		"qdisc add dev eth0 parent 1:4 handle 40: fq_codel noecn memory_limit 1mb",
		"qdisc add dev eth0 ingress",
	};
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_buf o, e;

	(void)state;
	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++)
		assert_int_equal(mqtx_ctl_exec_line(ctl, setup[i], 0, &o, &e), 0);
	o.len = 0;
	assert_int_equal(mqtx_ctl_exec_line(ctl, "qdisc show dev eth0", 0, &o, &e), 0);
	assert_string_equal(o.data,
			    "qdisc mq 1: root \n"
			    "qdisc bfifo 30: parent 1:3 limit 3000b\n"
			    "qdisc tbf 10: parent 1:1 rate 1Mbit burst 10Kb lat 50ms \n"
			    "qdisc fq_codel 40: parent 1:4 limit 10240p flows 1024 quantum 1514 "
			    "target 5ms interval 100ms memory_limit 1Mb drop_batch 64\n"
			    "qdisc codel 20: parent 1:2 limit 1000p target 5ms interval 100ms ecn\n"
			    "qdisc ingress ffff: parent ffff:fff1 ---------------- \n");
	o.len = 0;
	assert_int_equal(mqtx_ctl_exec_line(ctl, "qdisc show dev eth0", MQTX_CTL_F_JSON, &o, &e),
			 0);
	assert_string_equal(o.data,
			    "[{\"kind\":\"mq\",\"handle\":\"1:\",\"root\":true,\"options\":{}},"
			    "{\"kind\":\"bfifo\",\"handle\":\"30:\",\"parent\":\"1:3\","
			    "\"options\":{\"limit\":3000}},"
			    "{\"kind\":\"tbf\",\"handle\":\"10:\",\"parent\":\"1:1\","
			    "\"options\":{\"rate\":125000,\"burst\":10240,\"lat\":50000}},"
			    "{\"kind\":\"fq_codel\",\"handle\":\"40:\",\"parent\":\"1:4\","
			    "\"options\":{\"limit\":10240,\"flows\":1024,\"quantum\":1514,"
			    "\"target\":4999,\"interval\":99999,\"memory_limit\":1048576,"
			    "\"drop_batch\":64}},"
			    "{\"kind\":\"codel\",\"handle\":\"20:\",\"parent\":\"1:2\","
			    "\"options\":{\"limit\":1000,\"target\":4999,\"interval\":99999,"
			    "\"ecn\":true}},"
			    "{\"kind\":\"ingress\",\"handle\":\"ffff:\",\"parent\":\"ffff:fff1\","
			    "\"options\":{}}]\n");
	/* -d: tbf adds its cell, mpu and link layer (what tc 6.1 prints on Linux 6.18) */
	o.len = 0;
	assert_int_equal(mqtx_ctl_exec_line(ctl, "qdisc show dev eth0", MQTX_CTL_F_DETAILS, &o, &e),
			 0);
	assert_non_null(strstr(o.data, "qdisc tbf 10: parent 1:1 rate 1Mbit burst 10Kb/1 mpu 0b "
				       "lat 50ms linklayer ethernet \n"));
	assert_non_null(strstr(o.data, "qdisc bfifo 30: parent 1:3 limit 3000b\n"));
	o.len = 0;
	assert_int_equal(mqtx_ctl_exec_line(ctl, "qdisc show dev eth0",
					    MQTX_CTL_F_DETAILS | MQTX_CTL_F_JSON, &o, &e),
			 0);
	assert_non_null(strstr(o.data, "\"options\":{\"rate\":125000,\"burst\":\"10Kb/1\","
				       "\"mpu\":0,\"lat\":50000,\"linklayer\":\"ethernet\"}"));
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	fixture_free(ctl);
}

/* The one splitter of every front end: words, quotes, comments, and refusals that name why. */
static void test_split(void **state)
{
	static const struct {
		const char *line;
		int argc;
		const char *words[4];
	} good[] = {
		{ "  dev  add\teth0\r\n", 3, { "dev", "add", "eth0" } },
		{ "a\"b c\"d \"\" e", 3, { "ab cd", "", "e" } },
		{ "qdisc show # a comment \"", 2, { "qdisc", "show" } },
		{ "a#b \"#c\"", 2, { "a#b", "#c" } },
		{ "   # only a comment", 0, { NULL } },
		{ "", 0, { NULL } },
	};
	struct mqtx_ctl *ctl = fixture_ctl();
	char big[3 * (MQTX_CTL_WORDS_MAX + 1) + 1];
	struct mqtx_buf o, e;
	char **argv = NULL;
	int argc = -1;

	(void)state;
	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(mqtx_ctl_split(good[i].line, &argc, &argv, &e), 0);
		assert_int_equal(argc, good[i].argc);
		for (int w = 0; w < argc; w++)
			assert_string_equal(argv[w], good[i].words[w]);
		assert_null(argv[argc]);
		mqtx_ctl_split_free(argv);
	}
	assert_null(e.data);
	argc = -1, argv = NULL;
	assert_int_equal(mqtx_ctl_split("dev add \"eth0 type null", &argc, &argv, &e), -EINVAL);
	assert_int_equal(argc, -1);
	assert_null(argv);
	assert_string_equal(e.data, "Unterminated quote: the \" at column 9 is never closed\n");
	for (int i = 0; i <= MQTX_CTL_WORDS_MAX; i++)
		memcpy(big + 3 * i, "xy ", 3);
	big[sizeof(big) - 1] = '\0';
	e.len = 0;
	assert_int_equal(mqtx_ctl_split(big, &argc, &argv, &e), -E2BIG);
	assert_non_null(strstr(e.data, "Too many words"));
	big[3 * MQTX_CTL_WORDS_MAX] = '\0';
	assert_int_equal(mqtx_ctl_split(big, &argc, &argv, &e), 0);
	assert_int_equal(argc, MQTX_CTL_WORDS_MAX);
	mqtx_ctl_split_free(argv);
	/* exec_line refuses the same line and changes nothing */
	e.len = 0;
	assert_int_equal(mqtx_ctl_exec_line(ctl, "dev add new0 type null txqueues \"4", 0, &o, &e),
			 MQTX_TC_EXIT_PARSE);
	assert_non_null(strstr(e.data, "Unterminated quote"));
	assert_null(mqtx_ctl_dev(ctl, "new0"));
	assert_int_equal(mqtx_ctl_exec_line(ctl, "dev add \"new0\" type null", 0, &o, &e), 0);
	assert_non_null(mqtx_ctl_dev(ctl, "new0"));
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	fixture_free(ctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_exact_default_4q),
		cmocka_unit_test(test_exact_default_1q),
		cmocka_unit_test(test_exact_mqprio_classes),
		cmocka_unit_test(test_exact_invisible_depth),
		cmocka_unit_test(test_exact_mq_handle),
		cmocka_unit_test(test_exact_units),
		cmocka_unit_test(test_exact_xstats),
		cmocka_unit_test(test_default_setting),
		cmocka_unit_test(test_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* Every control command fails at each of its allocations in turn: each failure is an error,
 * leaves what the context shows and holds exactly as it was, and leaks nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "ctl_snap.h"
#include "helpers.h"
#include "txn_fixture.h"

#define QUEUED_PER_DEV 12

static long injected; /* failures injected over all cases, for the summary */

/*
 * One command under test: @setup runs first (each must exit 0), then @cmd fails at allocation
 * k = 1, 2, ... until no k-th allocation happens; it then ends with exit code @rc. "@DATA@" in
 * a command is the directory of the test captures, "@TMP@" a directory of the test's own, a
 * new one for each run of a command (a file it makes is there in the next run).
 */
struct fault_case {
	const char *setup[8];
	const char *cmd;
	int rc;
};

#define KEY40	  "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa"
#define MQ1	  "qdisc replace dev eth0 root handle 1: mq"
#define HTB1	  "qdisc add dev eth0 root handle 1: htb"
#define HTB11	  "class add dev eth0 parent 1: classid 1:1 htb rate 10mbit"
#define PRIO1	  "qdisc replace dev eth0 root handle 1: prio bands 4"
#define SIM0	  "dev add sim0 type sim txqueues 4 ring 64 rate 100mbit up"
#define WIFI	  "dev add w0 type sim-wifi up"
#define MAC1	  "02:00:00:00:00:01"
#define STA1	  "sta add dev w0 addr " MAC1
#define QMAP	  "53,2,22,6,8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,63"
#define GACT8	  "actions add action gact drop index 8"
#define GACT9	  "actions add action gact pipe index 9"
#define CLSACT	  "qdisc add dev eth0 clsact"
#define FLOW1	  "filter add dev eth0 egress protocol ip prio 4 flower dst_ip 10.1.0.0/16 classid 1:1"
#define FLOW2	  "filter add dev eth0 egress protocol ip prio 4 flower src_ip 10.2.0.0/16 classid 1:2"
#define MALL2	  "filter add dev eth0 egress prio 2 matchall action pipe action pass"
#define MQ16	  "qdisc replace dev eth16 root handle 1: mq"
#define PRIO16(n) "qdisc add dev eth16 parent 1:" #n " handle " #n "0: egress_block 7 prio"

static const struct fault_case cases[] = {
	/* dev add: every driver kind, with and without options */
	{ {}, "dev add n0 type null", 0 },
	{ {},
	  "dev add n1 type null txqueues 4 maxqueues 8 txqueuelen 500 mtu 9000 quota 32 bql "
	  "hash toeplitz key " KEY40 " l4 up",
	  0 },
	{ {}, "dev add s0 type sim", 0 },
	{ {},
	  "dev add s1 type sim txqueues 2 maxqueues 4 ring 128 rate 1gbit coalesce 50us bql "
	  "hash jhash seed 7 up",
	  0 },
	{ {}, "dev add s2 type sim rate 10kpps up", 0 },
	{ {}, "dev add l0 type loopback", 0 },
	{ {}, "dev add l1 type loopback txqueues 2 hash toeplitz-sym up", 0 },
	{ {}, "dev add eth0 type null up", 2 },
	/* dev set: up, down, txqueues, hash, and their combinations */
	{ {}, "dev set eth0 txqueues 2", 0 },
	{ {}, "dev set eth0 txqueues 3 down", 0 },
	{ {}, "dev set eth16 txqueues 16", 0 },
	{ {}, "dev set half0 txqueues 4", 0 },
	{ { MQ1 }, "dev set eth0 txqueues 1", 0 },
	{ { SIM0 }, "dev set sim0 txqueues 2", 0 },
	{ { SIM0 }, "dev set sim0 down", 0 },
	{ { "dev add sim1 type sim txqueues 4" }, "dev set sim1 txqueues 2 up", 0 },
	{ { "dev add sim1 type sim txqueues 4" }, "dev set sim1 up", 0 },
	{ { "dev add lb0 type loopback txqueues 4 up" }, "dev set lb0 txqueues 3", 0 },
	{ {}, "dev set down0 up", 0 },
	{ {}, "dev set down0 txqueues 1 up", 0 },
	{ {}, "dev set eth0 down", 0 },
	{ {}, "dev set eth0 up", 0 },
	{ {}, "dev set eth0 hash jhash seed 0x1234", 0 },
	{ {}, "dev set eth0 hash toeplitz key " KEY40 " l4", 0 },
	{ {}, "dev set eth0 hash toeplitz-sym txqueues 2", 0 },
	{ {}, "dev set eth0 hash jhash seed 9 txqueues 3 down", 0 },
	{ { "qdisc replace dev eth16 root handle 2: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 "
	    "queues 8@0 8@8 hw 0" },
	  "dev set eth16 txqueues 4",
	  0 },
	{ {}, "dev set eth0 txqueues 9", 1 },
	/* dev set: XPS maps and the flow cache */
	{ {}, "dev set eth16 xps 3 0-1,4", 0 },
	{ { "dev set eth16 xps 3 1" }, "dev set eth16 xps 3 none", 0 },
	{ {}, "dev set eth16 flowcache 4096", 0 },
	{ { "dev set eth16 flowcache 64" }, "dev set eth16 flowcache 0", 0 },
	{ {}, "dev set eth16 xps 16 0", 1 },
	/* dev set: the settings of mqtx_dev_change(), and a refusal */
	{ {}, "dev set eth0 mtu 9000 txqueuelen 300 txqueues 2", 0 },
	{ { "dev add s3 type sim" }, "dev set s3 ring 512 coalesce 30us rate 1gbit hash jhash", 0 },
	{ { SIM0 }, "dev set sim0 ring 512", 2 },
	{ {}, "dev add n3 type null txqueues 2 noqueue up", 0 },
	/* dev del */
	{ {}, "dev del eth0", 0 },
	{ { SIM0, "gen dev sim0 count 8" }, "dev del sim0", 0 },
	/* qdisc add/replace at the root, every kind */
	{ {}, "qdisc add dev eth0 root handle 1: pfifo limit 50", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: bfifo limit 30000", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: pfifo_head_drop limit 20", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: pfifo_fast", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: prio bands 5 priomap 1 2 3 4 0", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 10kb latency 50ms", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: codel target 3ms interval 50ms ecn", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: fq_codel flows 64 limit 500", 0 },
	{ {},
	  "qdisc add dev eth0 root handle 1: netem delay 10ms 1ms distribution normal loss 1% "
	  "rate 1mbit slot 1ms 2ms seed 5",
	  0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:2 netem delay 5ms duplicate 1% seed 7", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: mq", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: mqprio num_tc 2 map 0 1 queues 2@0 2@2 hw 0", 0 },
	{ {}, "qdisc add dev eth0 root noqueue", 0 },
	{ {}, "qdisc add dev eth0 ingress", 0 },
	{ {}, "qdisc add dev lo1 ingress rate 8kbit burst 1500", 0 },
	{ {}, "qdisc add dev eth0 root pfifo", 0 },
	{ {}, "qdisc add dev down0 root handle 1: mq", 0 },
	{ {}, "qdisc add dev lo1 root handle 1: fq_codel", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: fq_codel", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: mq", 0 },
	{ { MQ1 },
	  "qdisc replace dev eth0 root handle 2: mqprio num_tc 4 map 0 1 2 3 queues 1@0 "
	  "1@1 1@2 1@3 hw 0",
	  0 },
	{ {}, "qdisc replace dev eth16 root handle 1: tbf rate 8mbit burst 32kb limit 100kb", 0 },
	{ { SIM0 }, "qdisc replace dev sim0 root handle 1: mq", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: pfifo limit 9", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: bfifo", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: pfifo_head_drop", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: pfifo_fast", 0 },
	{ { MQ1 }, "qdisc replace dev eth0 root handle 2: prio bands 3", 0 },
	{ { MQ1 }, "qdisc replace dev eth0 root handle 2: codel limit 50", 0 },
	{ { MQ1 }, "qdisc replace dev eth0 root noqueue", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 root handle 2: mqprio", 2 },
	{ {},
	  "qdisc replace dev half0 root handle 1: mqprio num_tc 2 map 0 1 queues 1@0 1@1 "
	  "hw 0",
	  0 },
	{ { "qdisc add dev eth0 ingress" },
	  "qdisc replace dev eth0 ingress rate 8kbit burst 1500",
	  0 },
	{ { MQ1 }, MQ1, 0 },
	{ { MQ1 }, "qdisc add dev eth0 root handle 1: mq", 2 },
	/* qdisc add/replace under mq and prio classes, every leaf kind */
	{ { MQ1 }, "qdisc add dev eth0 parent 1:1 handle 10: pfifo limit 5", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:2 bfifo", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:3 pfifo_head_drop", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:4 handle 40: pfifo_fast", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:1 prio", 0 },
	{ { MQ1 },
	  "qdisc add dev eth0 parent 1:2 tbf rate 1mbit burst 5kb latency 70ms "
	  "peakrate 2mbit mtu 1540",
	  0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:3 codel", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:4 fq_codel", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:1 noqueue", 2 }, /* made, then refused */
	{ { MQ1, "qdisc add dev eth0 parent 1:1 handle 10: pfifo" },
	  "qdisc add dev eth0 parent 1:1 bfifo limit 3000", /* another kind: a new qdisc */
	  0 },
	{ { MQ1, "qdisc add dev eth0 parent 1:1 handle 10: pfifo" },
	  "qdisc change dev eth0 parent 1:1 codel",
	  0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:1 ingress", 255 },
	{ { MQ1, "qdisc add dev eth0 parent 1:3 handle 30: fq_codel" },
	  "qdisc replace dev eth0 parent 1:3 handle 31: prio",
	  0 },
	{ { PRIO1, "qdisc add dev eth0 parent 1:1 handle 10: pfifo" },
	  "qdisc replace dev eth0 parent 1:1 handle 11: codel",
	  0 },
	{ { "qdisc add dev eth16 root handle 1: mqprio num_tc 2 map 0 1 queues 8@0 8@8 hw 0" },
	  "qdisc add dev eth16 parent 1:9 handle 9: tbf rate 1mbit burst 10kb limit 10kb",
	  0 },
	{ { MQ1, "qdisc add dev eth0 parent 1:1 handle 10: pfifo" },
	  "qdisc replace dev eth0 parent 1:1 handle 11: bfifo limit 3000",
	  0 },
	{ { PRIO1 }, "qdisc add dev eth0 parent 1:2 handle 20: fq_codel", 0 },
	{ { PRIO1 }, "qdisc replace dev eth0 parent 1:4 tbf rate 1mbit burst 10kb limit 10kb", 0 },
	{ { MQ1 }, "qdisc add dev eth0 parent 1:1 handle 7: mq", 2 },
	/* qdisc change */
	{ { PRIO1 }, "qdisc change dev eth0 root handle 1: prio bands 8", 0 },
	{ { PRIO1 },
	  "qdisc change dev eth0 handle 1: prio bands 2 priomap 1 1 1 1 1 1 0 0 1 1 1 1 "
	  "1 1 1 1",
	  0 },
	{ { "qdisc add dev eth0 root handle 5: tbf rate 8mbit burst 32kb limit 100kb" },
	  "qdisc change dev eth0 root handle 5: tbf rate 16mbit burst 64kb latency 20ms",
	  0 },
	{ { "qdisc add dev lo1 root handle 7: pfifo" },
	  "qdisc change dev lo1 handle 7: pfifo "
	  "limit 3",
	  0 },
	{ { "qdisc add dev lo1 root handle 7: bfifo" },
	  "qdisc change dev lo1 handle 7: bfifo "
	  "limit 100",
	  0 },
	{ { "qdisc add dev lo1 root handle 7: codel" },
	  "qdisc change dev lo1 handle 7: codel "
	  "target 1ms limit 3",
	  0 },
	{ { "qdisc add dev lo1 root handle 7: fq_codel" },
	  "qdisc change dev lo1 handle 7: fq_codel limit 3 target 2ms",
	  0 },
	{ { MQ1, "qdisc add dev eth0 parent 1:1 handle 10: pfifo_head_drop" },
	  "qdisc change dev eth0 parent 1:1 handle 10: pfifo_head_drop limit 2",
	  0 },
	{ { "qdisc add dev lo1 ingress" },
	  "qdisc change dev lo1 ingress rate 1mbit burst 2000",
	  0 },
	{ {}, "qdisc change dev lo1 root pfifo limit 5", 2 },
	{ { MQ1 }, "qdisc change dev eth0 root handle 1: mq", 0 },
	{ { "qdisc add dev lo1 root handle 7: pfifo_fast" },
	  "qdisc change dev lo1 handle 7: "
	  "pfifo_fast",
	  0 },
	{ { "qdisc add dev eth0 root handle 7: mqprio num_tc 2 map 0 1 queues 2@0 2@2 hw 0" },
	  "qdisc change dev eth0 handle 7: mqprio num_tc 1 map 0 queues 4@0 hw 0",
	  2 },
	/* qdisc del */
	{ { PRIO1 }, "qdisc del dev eth0 root", 0 },
	{ { MQ1 }, "qdisc del dev eth0 root handle 1:", 0 },
	{ { MQ1, "qdisc add dev eth0 parent 1:2 handle 9: pfifo" },
	  "qdisc del dev eth0 parent 1:2",
	  0 },
	{ { PRIO1, "qdisc add dev eth0 parent 1:3 handle 30: codel" },
	  "qdisc del dev eth0 parent 1:3 handle 30:",
	  0 },
	{ { "qdisc add dev eth0 ingress" }, "qdisc del dev eth0 ingress", 0 },
	{ { "qdisc add dev lo1 root handle 3: pfifo" }, "qdisc del dev lo1 root", 0 },
	{ { "qdisc add dev eth16 root handle 1: mqprio num_tc 2 map 0 1 queues 8@0 8@8 hw 0" },
	  "qdisc del dev eth16 root",
	  0 },
	/* class: refused as Linux refuses it, having changed nothing */
	{ { MQ1 }, "class add dev eth0 classid 1:1", 2 },
	{ { MQ1 }, "class del dev eth0 classid 1:1", 2 },
	{ { MQ1 }, "class change dev eth0 classid 1:9", 2 },
	{ { MQ1 }, "qdisc link dev eth0 root handle 1: mq", 0 },
	/* class: htb's are made, changed and deleted one by one; ets's quanta change */
	{ {}, "qdisc add dev eth0 root handle 1: htb default 10 r2q 5", 0 },
	{ { HTB1 }, "class add dev eth0 parent 1: classid 1:1 htb rate 10mbit ceil 20mbit", 0 },
	{ { HTB1, HTB11 }, "class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit", 0 },
	{ { HTB1, HTB11 }, "class change dev eth0 classid 1:1 htb rate 5mbit prio 2", 0 },
	{ { HTB1, HTB11 }, "class del dev eth0 classid 1:1", 0 },
	{ { HTB1, HTB11, "class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit" },
	  "class del dev eth0 classid 1:10",
	  0 },
	{ { HTB1, HTB11, "class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit" },
	  "class del dev eth0 classid 1:1",
	  2 },
	{ { HTB1, HTB11, "class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit",
	    "filter add dev eth0 parent 1: prio 1 matchall classid 1:10" },
	  "class del dev eth0 classid 1:10",
	  2 },
	{ { HTB1, HTB11 }, "qdisc add dev eth0 parent 1:1 handle 10: fq_codel", 0 },
	{ {}, "qdisc add dev eth0 root handle 1: ets bands 4 strict 1 quanta 1000 2000", 0 },
	{ { "qdisc add dev eth0 root handle 1: ets bands 3 strict 1" },
	  "qdisc change dev eth0 root handle 1: ets bands 5 strict 2 quanta 3000",
	  0 },
	{ { "qdisc add dev eth0 root handle 1: ets bands 3 strict 1" },
	  "class change dev eth0 classid 1:3 ets quantum 3000",
	  0 },
	/* generators and replays */
	{ {}, "gen dev eth0 count 8", 0 },
	{ {}, "gen dev eth0 count 16 threads 2 flows 4 size 128 proto tcp detach", 0 },
	{ {}, "gen dev eth0 count 4 src fd00::1 dst fd00::2-fd00::9 vlan 5 size imix", 0 },
	{ { "gen dev eth0 count 2" }, "gen dev eth0 count 2 rate 1mpps", 0 },
	{ {}, "gen dev down0 count 1", 2 },
	{ {}, "replay @DATA@/good.pcap dev eth0 topspeed", 0 },
	{ {}, "replay @DATA@/good.pcapng dev eth16 topspeed loop 2", 0 },
	{ { "replay @DATA@/good.pcap dev eth0 topspeed" },
	  "replay @DATA@/good.pcap dev lo1 "
	  "rate 1mbit",
	  0 },
	{ {}, "replay @DATA@/corrupt.pcap dev eth0", 1 },
	{ {},
	  "replay @DATA@/sll2.pcap dev eth0 --pps=100000 --limit 8 --loop 0 --loopdelay-ms 1",
	  0 },
	{ {}, "replay @DATA@/mtu.pcap dev eth0 topspeed mtu-trunc dmac 02:00:00:00:00:09", 0 },
	{ { "replay @DATA@/mtu.pcap dev eth0 topspeed" }, "replay stop all", 0 },
	{ {}, "replay @DATA@/raw.pcap dev eth0", 1 },
	/* whatif: its own contexts on virtual clocks, nothing of this one changed */
	{ {},
	  "-j whatif @DATA@/good.pcap config @DATA@/whatif-fq.conf flows 3 plot @TMP@/w.svg",
	  0 },
	{ {}, "whatif @DATA@/good.pcap config @DATA@/whatif-missing.conf", 1 },
	/* A pcap device's file: each failure removes the file its open made, or the next try would
	 * find it there. */
	{ {}, "dev add p0 type pcap file @TMP@/fault.pcapng txqueues 2 rate 1gbit up", 0 },
	{ { "gen dev eth0 count 2", "replay @DATA@/good.pcap dev eth0 topspeed" },
	  "gen stop all",
	  0 },
	{ { "gen dev eth0 count 2" }, "gen stop 1", 0 },
	/* the dispatcher and the output of every read-only command (what mqtxd sends back) */
	{ { MQ1, "qdisc add dev eth0 parent 1:2 handle 9: fq_codel" }, "-s qdisc show", 0 },
	{ { PRIO1, "qdisc add dev eth0 ingress" }, "-j -s qdisc show dev eth0", 0 },
	{ { MQ1 }, "-s class show dev eth0", 0 },
	{ { "qdisc add dev eth16 root handle 1: mqprio num_tc 2 map 0 1 queues 8@0 8@8 hw 0" },
	  "-j class show dev eth16",
	  0 },
	{ { SIM0 }, "-s dev show", 0 },
	{ {}, "-j -s dev show", 0 },
	{ {}, "dev stats eth16", 0 },
	{ { "gen dev eth0 count 3", "replay @DATA@/good.pcap dev lo1 topspeed" }, "gen show", 0 },
	{ {}, "help", 0 },
	/* -j of the commands that print */
	{ {}, "-j dev stats", 0 },
	{ { "gen dev eth0 count 3" }, "-j gen show", 0 },
	{ { "gen dev eth0 count 3" }, "-j gen stop all", 0 },
	{ {}, "-j gen dev eth0 count 2", 0 },
	{ {}, "-j hash --src 10.0.0.1:1 --dst 10.0.0.2:2 dev eth0", 0 },
	{ {}, "dev help", 0 },
	{ {}, "-z qdisc show", 1 },
	{ {}, "qdisc show dev nope", 1 },
	{ {}, "\"unterminated", 1 },
	/* 802.11 WME: the sim-wifi device, its settings, stations, sessions, classification */
	{ {},
	  "dev add w1 type sim-wifi rate 24mbit ring 64 aggqueues 2 acm vo,vi noadmit bk "
	  "legacy on stations 8 ba refuse ba-delay 1ms edca be aifsn 2 txop 1ms up",
	  0 },
	{ {}, "dev add w1 type sim-wifi rate 100gbit", 2 },
	{ { WIFI },
	  "dev set w0 acm vo qosmap " QMAP " noadmit bk legacy on tspec vo up 6 ba silent",
	  0 },
	{ { WIFI, "dev set w0 qosmap " QMAP }, "dev set w0 qosmap none", 0 },
	{ {}, "dev set eth0 acm vo", 2 },
	{ { WIFI }, STA1, 0 },
	{ { WIFI, STA1 }, STA1, 2 },
	{ { WIFI, STA1 }, "sta del dev w0 addr " MAC1, 0 },
	{ { WIFI, STA1 }, "sta set dev w0 addr " MAC1 " reserved-tid 3", 0 },
	{ { WIFI, STA1, "sta add dev w0 addr 02:00:00:00:00:02 qos off" }, "-j -d sta show", 0 },
	{ { WIFI, STA1 }, "ba start dev w0 sta " MAC1 " tid 0", 0 },
	{ { WIFI, STA1, "ba start dev w0 sta " MAC1 " tid 0" },
	  "ba stop dev w0 sta " MAC1 " tid 0",
	  0 },
	{ { WIFI, STA1, "ba start dev w0 sta " MAC1 " tid 0" }, "-j ba show", 0 },
	{ { WIFI, STA1 }, "ba start dev w0 sta " MAC1 " tid 16", 2 },
	{ { WIFI, STA1, "ba start dev w0 sta " MAC1 " tid 6" },
	  "sta set dev w0 addr " MAC1 " reserved-tid 6",
	  0 },
	{ { WIFI, STA1, "ba start dev w0 sta " MAC1 " tid 0" }, "-s -j ba show", 0 },
	{ { WIFI }, "dev set w0 role sta bssid " MAC1 " qosmap " QMAP, 0 },
	{ {}, "dev add w1 type sim-wifi role ap edca vo cwmax 15 up", 0 },
	{ { WIFI, "qdisc replace dev w0 root handle 1: mq",
	    "qdisc replace dev w0 parent 1:2 wme fq_codel" },
	  "qdisc replace dev w0 parent 1:3 wme fq_codel radio",
	  0 },
	{ { WIFI, STA1 }, "wme classify dev w0 sta " MAC1 " dscp 46", 0 },
	{ {}, "-j wme classify dscp 46 ipv6", 0 },
	{ { WIFI, STA1 }, "gen dev w0 count 8 dscp 46 sta " MAC1, 0 },
	{ { WIFI }, "-s -j dev show w0", 0 },
	{ { WIFI }, "-j dev stats w0", 0 },
	/* filters: clsact, blocks, every verb */
	{ {}, CLSACT, 0 },
	{ {}, "qdisc add dev eth0 ingress_block 3 egress_block 4 clsact", 0 },
	{ {}, "qdisc add dev eth0 egress_block 4 clsact", 0 },
	{ {}, "qdisc add dev eth0 egress_block 4 ingress", 2 },
	{ { CLSACT }, "filter add dev eth0 egress matchall action drop", 0 },
	{ { CLSACT }, "filter add dev eth0 ingress protocol ip prio 3 matchall classid 1:1", 0 },
	{ { CLSACT, MALL2 }, "filter add dev eth0 egress prio 1 matchall action goto chain 3", 0 },
	{ { CLSACT, MALL2 },
	  "filter replace dev eth0 egress prio 2 handle 1 matchall action drop action pass",
	  0 },
	{ { CLSACT, MALL2 },
	  "filter change dev eth0 egress prio 2 handle 1 matchall action drop",
	  0 },
	{ { CLSACT, MALL2 }, "filter add dev eth0 egress prio 2 handle 1 matchall action drop", 2 },
	{ { CLSACT, MALL2 }, "filter del dev eth0 egress prio 2 handle 1 matchall", 0 },
	{ { CLSACT, MALL2 }, "filter del dev eth0 egress prio 2", 0 },
	{ { CLSACT, MALL2, "filter add dev eth0 egress chain 3 matchall action drop" },
	  "filter del dev eth0 egress",
	  0 },
	{ { CLSACT, MALL2 }, "filter add dev eth0 egress matchall action gact bogus", 255 },
	{ { CLSACT },
	  "filter add dev eth0 egress matchall action vlan push id 5 priority 3 action pedit ex "
	  "munge ip ttl set 9 munge udp dport set 7 pipe action csum ip4h udp action skbmod swap "
	  "mac",
	  0 },
	{ { CLSACT },
	  "filter add dev eth0 egress matchall action vlan push id 4095 action pass",
	  2 },
	{ { CLSACT }, "filter add dev eth0 egress matchall action tunnel_key unset", 2 },
	{ { CLSACT, MALL2 }, "-s -j filter show dev eth0 egress", 0 },
	{ { CLSACT, MALL2 },
	  "-s -j filter get dev eth0 egress protocol all prio 2 handle 1 matchall",
	  0 },
	{ { CLSACT, MALL2 },
	  "filter get dev eth0 egress protocol all prio 2 handle 9 matchall",
	  2 },
	{ { CLSACT, MALL2 }, "-j chain get dev eth0 egress chain 0", 0 },
	{ { CLSACT, MALL2 }, "chain show dev eth0 egress", 0 },
	{ { CLSACT, FLOW1, FLOW2 }, "-br -s filter show dev eth0 egress", 0 },
	/* appended after the highest handle: into a mask's shared arrays, and a new mask */
	{ { CLSACT, FLOW1, FLOW2 },
	  "filter add dev eth0 egress protocol ip prio 4 handle 9 flower dst_ip 10.3.0.0/16 "
	  "classid 1:3",
	  0 },
	{ { CLSACT, FLOW1, FLOW2 },
	  "filter add dev eth0 egress protocol ip prio 4 handle 9 flower ip_proto tcp classid 1:3",
	  0 },
	{ { PRIO1 }, "filter add dev eth0 parent 1: protocol ip matchall classid 1:2", 0 },
	{ { CLSACT },
	  "filter add dev eth0 egress protocol ip prio 4 flower dst_ip 10.0.0.0/8 ip_proto tcp "
	  "dst_port 80 src_port 1000-2000 ip_tos 0xb8/0xfc action skbedit queue_mapping 2 "
	  "priority 1:3 mark 7/0xff pass",
	  0 },
	{ { CLSACT, FLOW1, FLOW2 },
	  "filter add dev eth0 egress protocol ip prio 4 flower dst_ip 10.3.0.0/16 classid 1:3",
	  0 },
	{ { CLSACT, FLOW1, FLOW2 },
	  "filter replace dev eth0 egress protocol ip prio 4 handle 2 flower dst_ip 10.4.0.0/16",
	  0 },
	{ { CLSACT, FLOW1, FLOW2 },
	  "filter del dev eth0 egress protocol ip prio 4 handle 1 flower",
	  0 },
	{ { CLSACT, FLOW1 }, FLOW1, 2 },
	{ { CLSACT },
	  "filter add dev eth0 egress matchall action police rate 1mbit burst 10k peakrate "
	  "2mbit mtu 1500 conform-exceed drop/pipe action pass",
	  0 },
	{ { CLSACT }, "filter add dev eth0 egress matchall action police rate 1mbit", 1 },
	{ {}, "actions add action police pkts_rate 1000 pkts_burst 200 mtu 1500 index 5", 0 },
	{ { "qdisc add dev eth0 ingress_block 21 clsact",
	    "qdisc add dev lo1 ingress_block 21 clsact" },
	  "filter add block 21 matchall action mirred egress redirect blockid 21",
	  0 },
	{ { "qdisc add dev lo1 ingress_block 21 clsact" },
	  "qdisc add dev eth0 ingress_block 21 egress_block 21 clsact",
	  2 },
	{ { "qdisc add dev lo1 ingress_block 21 clsact" },
	  "qdisc add dev eth0 ingress_block 22 egress_block 21 clsact",
	  0 },
	{ { CLSACT, FLOW1, FLOW2 }, "-s filter show dev eth0 egress", 0 },
	{ { CLSACT },
	  "filter add dev eth0 egress protocol ip prio 5 u32 match ip dst 10.0.0.0/8 match tcp "
	  "dst 80 0xffff match mark 7 0xff flowid 1:1 action skbedit queue_mapping 1",
	  0 },
	{ { CLSACT, "filter add dev eth0 egress protocol ip prio 5 u32 match ip src 1.1.1.1 "
		    "flowid 1:1" },
	  "filter del dev eth0 egress protocol ip prio 5 handle 800::800 u32",
	  0 },
	{ { CLSACT, "filter add dev eth0 egress protocol ip prio 5 handle 2: u32 divisor 256" },
	  "filter add dev eth0 egress protocol ip prio 5 u32 match ip protocol 6 0xff hashkey "
	  "mask 0xff at 16 offset at 0 mask 0f00 shift 6 eat link 2: action pass",
	  0 },
	{ { CLSACT, "filter add dev eth0 egress protocol ip prio 5 handle 2: u32 divisor 256",
	    "filter add dev eth0 egress protocol ip prio 5 u32 ht 2: sample ip dst 10.0.0.7 "
	    "match tcp dst 22 0xffff classid 1:1" },
	  "filter del dev eth0 egress protocol ip prio 5 handle 2: u32",
	  0 },
	/* u32's tables are the block's: a new priority and a node in another's table, together */
	{ { CLSACT, "filter add dev eth0 egress protocol ip prio 5 handle 2: u32 divisor 1" },
	  "filter add dev eth0 egress protocol ip prio 6 u32 ht 2: match ip src 1.1.1.1 flowid 1:1",
	  0 },
	{ { CLSACT, "filter add dev eth0 egress protocol ip prio 5 handle 2: u32 divisor 1",
	    "filter add dev eth0 egress protocol ip prio 6 u32 match u8 0 0 flowid 1:2" },
	  "filter add dev eth0 egress protocol ip prio 6 u32 ht 2: match ip src 1.1.1.1 link 2:",
	  0 },
	{ { CLSACT, "filter add dev eth0 egress protocol ip prio 5 handle 2: u32 divisor 1",
	    "filter add dev eth0 egress protocol ip prio 6 u32 ht 2: match ip src 1.1.1.1 "
	    "flowid 1:1" },
	  "filter del dev eth0 egress protocol ip prio 6 handle 2::800 u32",
	  0 },
	{ { CLSACT },
	  "filter add dev eth0 egress prio 6 basic match meta(priority eq 5) and not ( "
	  "meta(nf_mark gt 3) or meta(vlan eq 2) ) classid 1:2 action drop",
	  0 },
	{ { CLSACT },
	  "filter add dev eth0 egress prio 6 basic match cmp(u16 at 2 layer 2 trans gt 7) or "
	  "nbyte(ab at 0) and text(bm GET from 8 layer 2) or u32(u8 1 1 at 0) classid 1:2",
	  0 },
	{ { CLSACT },
	  "filter add dev eth0 egress prio 7 matchall action mirred egress mirror dev lo1 action "
	  "mirred egress redirect dev eth16",
	  0 },
	{ { CLSACT,
	    "filter add dev eth0 egress prio 7 matchall action mirred egress mirror dev lo1" },
	  "filter replace dev eth0 egress prio 7 handle 1 matchall action mirred ingress redirect "
	  "dev lo1",
	  0 },
	{ { CLSACT, "filter add dev eth0 egress prio 6 basic match meta(priority eq 5) classid 1:2",
	    "filter add dev eth0 egress protocol ip prio 5 u32 match ip src 1.1.1.1 flowid 1:1" },
	  "-s -j filter show dev eth0 egress",
	  0 },
	{ { CLSACT, FLOW1,
	    "filter add dev eth0 egress protocol ip prio 5 matchall action skbedit "
	    "queue_mapping 2" },
	  "-j filter test dev eth0 --src 10.0.0.1:5 --dst 10.1.0.2:80 --dscp 10",
	  0 },
	/* one block under every queue of a 16-queue mq: a change is one transaction */
	{ { MQ16, PRIO16(1), PRIO16(2), PRIO16(3), PRIO16(4), PRIO16(5), PRIO16(6), PRIO16(7) },
	  "filter add block 7 protocol ip prio 1 matchall classid :3 action pipe action pass",
	  0 },
	{ { MQ16, PRIO16(1), PRIO16(2),
	    "filter add block 7 protocol ip prio 1 matchall classid :3 action pipe" },
	  "filter replace block 7 protocol ip prio 1 handle 1 matchall classid :2",
	  0 },
	/* mqprio's filters: a block of its own, or shared */
	{ {},
	  "qdisc replace dev eth16 root handle 1: egress_block 8 mqprio num_tc 2 map 0 0 0 0 "
	  "1 1 1 1 queues 8@0 8@8 hw 0",
	  0 },
	{ { "qdisc replace dev eth16 root handle 1: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 queues "
	    "8@0 8@8 hw 0" },
	  "filter add dev eth16 parent 1: protocol ip prio 1 flower ip_proto tcp classid 1:ffe1",
	  0 },
	{ { "qdisc replace dev eth16 root handle 1: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 queues "
	    "8@0 8@8 hw 0",
	    "filter add dev eth16 parent 1: protocol ip prio 1 flower ip_proto tcp classid 1:3" },
	  "qdisc replace dev eth16 root handle 2: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 queues 8@0 "
	  "8@8 hw 0",
	  0 },
	/* standalone actions: the table, and filters bound to its actions */
	{ {}, "actions add action gact drop index 8 action skbedit mark 3 cookie aabb", 0 },
	{ { GACT8 }, "actions replace action gact pass index 8 cookie 0102", 0 },
	{ { GACT8 }, "actions add action gact pass index 9 action gact pass index 8", 255 },
	{ { GACT8, GACT9 }, "actions flush action gact", 0 },
	{ { GACT8, GACT9 }, "-s -j actions ls action gact", 0 },
	{ { GACT8, GACT9 }, "actions get action gact index 9 action gact index 8", 0 },
	{ { GACT8, GACT9 }, "actions delete action gact index 8 action gact index 9", 0 },
	{ { CLSACT, GACT8 }, "filter add dev eth0 egress matchall action gact index 8", 0 },
	{ { CLSACT, GACT8, "filter add dev eth0 egress matchall action gact index 8" },
	  "actions delete action gact index 8",
	  255 },
	/* hash: the queue a flow goes to, by the device's own picker */
	{ {}, "hash --src 10.0.0.1:1000 --dst 10.0.0.2:80 dev eth16", 0 },
	{ {}, "hash --algo toeplitz --src 10.0.0.1 --dst 10.0.0.2 dev eth16", 0 },
	{ {}, "hash --src 10.0.0.1:1000 --dst 10.0.0.2:80 txqueues 8", 0 },
};

/* A fixture context, its setup done, and packets queued on every device that is up. */
struct world {
	struct mqtx_ctl *ctl;
	struct mqtx_pkt_pool *pool;
};

static char tmp_dir[] = "/tmp/mqtx-fault-XXXXXX";
static unsigned tmp_run; /* @TMP@ is tmp_dir/tmp_run */

/* @DATA@ and @TMP@, each as often as it comes, replaced in @cmd. */
static void expand(const char *cmd, char *buf, size_t len)
{
	const char *src = getenv("MQTX_SRCDIR");
	char dir[128], data[4096], *at;

	snprintf(data, sizeof(data), "%s/tests/data", src ? src : ".");
	snprintf(dir, sizeof(dir), "%s/%u", tmp_dir, tmp_run);
	snprintf(buf, len, "%s", cmd);
	while ((at = strstr(buf, "@DATA@")) || (at = strstr(buf, "@TMP@"))) {
		bool is_data = at[1] == 'D';
		char rest[512];

		if (!is_data)
			assert_true(mkdir(dir, 0700) == 0 || errno == EEXIST);
		snprintf(rest, sizeof(rest), "%s", at + (is_data ? 6 : 5));
		snprintf(at, len - (size_t)(at - buf), "%s%s", is_data ? data : dir, rest);
	}
}

static int run(struct mqtx_ctl *ctl, const char *cmd, char **out, char **err)
{
	char line[512];

	expand(cmd, line, sizeof(line));
	return fixture_run(ctl, line, out, err);
}

/* Stopped queues hold what is sent, so a command has queued packets to keep or to move. */
static void queue_packets(struct world *w)
{
	for (unsigned i = 0; i < w->ctl->ndevs; i++) {
		struct mqtx_dev *dev = w->ctl->devs[i];

		if (!mqtx_dev_is_up(dev))
			continue;
		mqtx_dev_stop_all_queues(dev);
		for (uint16_t n = 0; n < QUEUED_PER_DEV; n++) {
			struct mqtx_pkt *p =
				test_udp_pkt(w->pool, 0x0b000001u + n, 1000 + n, 80, n);

			assert_non_null(p);
			mqtx_dev_xmit(dev, p);
		}
	}
}

static void world_make(struct world *w, const struct fault_case *c)
{
	struct mqtx_pool_cfg pc = { .count = 256 };

	w->ctl = fixture_ctl();
	assert_int_equal(mqtx_pool_create(&pc, &w->pool), 0);
	queue_packets(w);
	for (size_t i = 0; i < sizeof(c->setup) / sizeof(c->setup[0]) && c->setup[i]; i++) {
		char *err;

		if (run(w->ctl, c->setup[i], NULL, &err) != 0)
			fail_msg("setup \"%s\" failed: %s", c->setup[i], err);
		free(err);
	}
	settle(w->ctl);
}

static void world_free(struct world *w)
{
	fixture_free(w->ctl);
	mqtx_pool_destroy(w->pool);
}

static const char *const json_clock[] = {
	"\"now\":",	   "\"elapsed\":",    "\"rate_pps\":",	 "\"rate_mbit\":",
	"\"lat_sum_ns\":", "\"lat_max_ns\":", "\"airtime_ns\":", "\"txops\":",
	"\"busy_ns\":",	   "\"collisions\":", "\"wall_s\":",
};

/* What the time a run took decides: the clock, and how a medium in real time grouped frames
 * into TXOPs (air time, delays, collisions). */
static const char *const text_clock[] = { " now ",   " lat_sum_ns ", " lat_max_ns ", " airtime_ns ",
					  " txops ", " busy_ns ",    " collisions " };

/* Remove what follows each @key up to the first character not in @set. */
static void strip_value(char *text, const char *key, const char *set)
{
	size_t k = strlen(key);

	for (char *p = text; (p = strstr(p, key)); p++) {
		size_t n = strspn(p + k, set);

		memmove(p + k, p + k + n, strlen(p + k + n) + 1);
	}
}

/* Job lines carry their elapsed time and rates, dev stats the clock, CoDel's xstats the
 * sojourn and drop times it measured on it: keep the rest. */
static void strip_clock(char *text)
{
	char *p = text, *eol;

	while ((p = strstr(p, " elapsed "))) {
		eol = strchr(p, '\n');
		if (!eol) {
			*p = '\0';
			break;
		}
		memmove(p, eol, strlen(eol) + 1);
	}
	for (size_t k = 0; k < ARRAY_SIZE(text_clock); k++) {
		size_t kl = strlen(text_clock[k]);

		for (p = text; (p = strstr(p, text_clock[k])); p++) {
			size_t n = strspn(p + kl, "0123456789");

			memmove(p + kl, p + kl + n, strlen(p + kl + n) + 1);
		}
	}
	/* The same in JSON (-j): the values of these keys. */
	for (size_t k = 0; k < ARRAY_SIZE(json_clock); k++) {
		size_t kl = strlen(json_clock[k]);

		for (p = text; (p = strstr(p, json_clock[k])); p++) {
			size_t n = strspn(p + kl, "0123456789.");

			memmove(p + kl, p + kl + n, strlen(p + kl + n) + 1);
		}
	}
	strip_value(text, " ldelay ", "0123456789.mus");
	strip_value(text, " drop_next ", "-0123456789.mus");
	strip_value(text, "\"ldelay\":", "0123456789");
	strip_value(text, "\"drop_next\":", "-0123456789");
}

/* What @c leaves when nothing fails: the state, the command's output, the blocks it keeps. */
static void clean_run(const struct fault_case *c, char **state, char **out, long *kept)
{
	struct ctl_snap s;
	struct world w;
	long live;

	tmp_run++;
	world_make(&w, c);
	live = fi_live();
	assert_int_equal(run(w.ctl, c->cmd, out, NULL), c->rc);
	settle(w.ctl);
	*kept = fi_live() - live;
	snap_take(w.ctl, &s);
	*state = s.text;
	world_free(&w);
}

/*
 * Fail allocation k = 1, 2, ... of the command until it runs without a failure: each failure
 * is an error, prints nothing, and leaves the state as it was. *@out gets that last run's
 * output and *@kept the blocks it keeps. Returns how many failures there were.
 */
static long fail_each(struct world *w, const struct fault_case *c, char **out, long *kept)
{
	struct ctl_snap before, after;
	long k, live = fi_live();
	char why[400];
	int rc;

	snap_take(w->ctl, &before);
	for (k = 1;; k++) {
		fi_arm(k);
		rc = run(w->ctl, c->cmd, out, NULL);
		if (!fi_disarm())
			break;
		if (rc == 0)
			fail_msg("\"%s\": allocation %ld failed, yet it succeeded", c->cmd, k);
		/* The whole output or none: a listing cut where memory ran out is withheld. */
		if (**out)
			fail_msg("\"%s\": allocation %ld failed, yet %zu bytes of output came: "
				 "%.60s",
				 c->cmd, k, strlen(*out), *out);
		free(*out);
		/* Out of memory is a refusal, never a parse error, of a command that is good. */
		if (c->rc == 0 && rc != MQTX_TC_EXIT_REFUSED)
			fail_msg("\"%s\": allocation %ld failed with exit code %d, not %d", c->cmd,
				 k, rc, MQTX_TC_EXIT_REFUSED);
		settle(w->ctl);
		if (fi_live() != live)
			fail_msg("\"%s\": allocation %ld failed, yet %ld blocks leaked", c->cmd, k,
				 fi_live() - live);
		snap_take(w->ctl, &after);
		if (!snap_same(&before, &after, why, sizeof(why)))
			fail_msg("\"%s\": allocation %ld failed, yet the state changed: %s", c->cmd,
				 k, why);
		snap_free(&after);
	}
	snap_free(&before);
	if (rc != c->rc)
		fail_msg("\"%s\": exit code %d, not %d", c->cmd, rc, c->rc);
	settle(w->ctl);
	*kept = fi_live() - live;
	return k - 1;
}

static void test_case(void **state)
{
	const struct fault_case *c = *state;
	char *ref_state, *ref_out, *out;
	long base = fi_live(), ref_kept, kept, faults;
	struct ctl_snap after;
	struct world w;

	clean_run(c, &ref_state, &ref_out, &ref_kept);
	assert_int_equal(fi_live(), base);

	tmp_run++;
	world_make(&w, c);
	faults = fail_each(&w, c, &out, &kept);
	assert_true(faults >= 1); /* every command allocates: its words, or its message */
	injected += faults;
	/* What the failures left behind: nothing, so the end is the clean run's end. */
	assert_int_equal(kept, ref_kept);
	snap_take(w.ctl, &after);
	strip_clock(after.text);
	strip_clock(ref_state);
	strip_clock(out);
	strip_clock(ref_out);
	assert_string_equal(after.text, ref_state);
	assert_string_equal(out, ref_out);
	snap_free(&after);
	free(out);
	free(ref_state);
	free(ref_out);
	world_free(&w);
	assert_int_equal(fi_live(), base);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0])];
	char line[64];
	int rc;

	if (!mkdtemp(tmp_dir))
		return 1;
	/* Installed before any object exists, so that the live count is exact. */
	mqtx_set_allocator(&fi_allocator);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tests[i] = (struct CMUnitTest){ .name = cases[i].cmd,
						.test_func = test_case,
						.initial_state = (void *)&cases[i] };
	}
	rc = _cmocka_run_group_tests("fault_ctl", tests, sizeof(tests) / sizeof(tests[0]), NULL,
				     NULL);
	printf("%zu commands, %ld allocation failures injected\n", sizeof(tests) / sizeof(tests[0]),
	       injected);
	snprintf(line, sizeof(line), "rm -rf %s", tmp_dir);
	if (system(line))
		rc = 1;
	return rc;
}

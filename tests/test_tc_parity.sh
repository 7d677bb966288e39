#!/bin/sh
# SPDX-License-Identifier: MIT
# Parity with the real tc: each scenario below runs with tc on an ifb device in a private
# network namespace and with mqtx on a null device of as many TX queues (tests/tc_parity.py
# compares, in one process with one mqtxd); every command's exit code and the output of the
# show commands must be the same (JSON compared parsed). Needs $MQTXD and root; skips (77) only
# without root or network namespaces.
set -u
: "${MQTXD:?}"
NS=mqtxpar$$
T=$(mktemp -d /tmp/mqtx-parity.XXXXXX)
cleanup() {
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if [ "$(id -u)" -ne 0 ]; then
	echo "skip: needs root to create a network namespace"
	exit 77
fi
if ! command -v tc >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then
	echo "skip: iproute2 (ip, tc) is not installed (scripts/bootstrap --check-extra)"
	exit 77
fi
if ! ip netns add "$NS" 2>"$T/err"; then
	echo "skip: ip netns add failed: $(cat "$T/err")"
	exit 77
fi
X="ip netns exec $NS"
# No IPv6 autoconfiguration: nothing may send on the device, so its counters stay 0.
$X sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
$X sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null

# A scenario: "## NAME", then "NQ [KIND...]" (the kinds it needs the kernel to have; "down":
# the device starts down), then commands, one a line, up to the next "##"; "# " lines are
# comments. D is the device; "!up" brings it up in both worlds. After each scenario the
# listings (qdisc and class show, with -s, -j, -d) are compared too.
scenarios() {
	cat <<'EOF'
## defaults, 4 queues: mq and a pfifo_fast per queue
4
## defaults, 1 queue: pfifo_fast at the root
1
## mq with a qdisc of every kind the kernel has
4
qdisc add dev D root handle 1: mq
qdisc replace dev D parent 1:2 pfifo limit 50
qdisc replace dev D parent 1:3 bfifo limit 30000
qdisc replace dev D parent 1:4 tbf rate 1mbit burst 10kb latency 50ms
qdisc add dev D ingress
## default limits follow txqueuelen, handles count from 8001:
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 pfifo
qdisc add dev D parent 1:2 bfifo
qdisc add dev D parent 1:3 pfifo_head_drop
qdisc add dev D parent 1:4 handle 40: pfifo_fast
## delete the root: the defaults come back
4
qdisc add dev D root handle 1: mq
qdisc replace dev D parent 1:2 pfifo limit 50
qdisc add dev D ingress
qdisc del dev D root
qdisc del dev D ingress
## one qdisc for all four queues
4
qdisc add dev D root handle 5: pfifo limit 10
## replace the root by other kinds
4
qdisc replace dev D root handle 1: mq
qdisc replace dev D root handle 2: tbf rate 10mbit burst 20kb limit 50kb
qdisc replace dev D root handle 3: mq
## single queue: pfifo_fast root with a handle
1
qdisc add dev D root handle 1: pfifo_fast
## single queue: tbf root, changed
1
qdisc add dev D root handle 5: tbf rate 8mbit burst 32kb limit 100kb
qdisc change dev D root handle 5: tbf rate 16mbit burst 64kb latency 20ms
qdisc change dev D handle 5: tbf rate 100mbit burst 1mb limit 1mb
## single queue: tbf whose latency is past tc's u32 of microseconds (its text wraps)
1
qdisc add dev D root handle 5: tbf rate 1mbit burst 10kb limit 4294967295
qdisc change dev D root handle 5: tbf rate 1mbit burst 10kb limit 10kb peakrate 999kbit mtu 1000
## single queue: tbf with a peak rate
1
qdisc add dev D root tbf rate 1mbit burst 5kb latency 70ms peakrate 2mbit mtu 1540
## single queue: tbf changed without its peak rate and overhead: both are off after
1
qdisc add dev D root handle 5: tbf rate 1mbit burst 10kb limit 20000 peakrate 2mbit mtu 1000 overhead 10
qdisc change dev D root handle 5: tbf rate 4mbit burst 10kb limit 20000
## single queue: tbf with overhead, mpu, ATM cells and a cell size, words abbreviated as tc allows
1
qdisc add dev D root handle 5: tbf rate 1mbit bur 10kb/8 lat 50ms over 7 link a mpu 64
qdisc replace dev D root handle 5: tbf rate 1mbit burst 10kb latency 50ms peakrate 2mbit mtu 1000 overhead 100 linklayer atm mpu 64
## htb: a tree of classes, a leaf qdisc, tc's defaults and warnings, class changes and deletes
1 htb
qdisc add dev D root handle 1: htb default 20 r2q 10
class add dev D parent 1: classid 1:1 htb rate 10mbit ceil 20mbit
class add dev D parent 1:1 classid 1:10 htb rate 1mbit ceil 10mbit prio 1 quantum 3000
class add dev D parent 1:1 classid 1:20 htb rate 100kbit
qdisc add dev D parent 1:10 handle 10: pfifo limit 5
class add dev D parent 1: classid 1:2 htb rate 100gbit
class add dev D parent 1: classid 1:3 htb rate 1kbit
class add dev D parent 1:3 classid 1:4 htb rate 1kbit
class add dev D parent 1:4 classid 1:5 htb rate 1kbit prio 9 quantum 100
class add dev D parent 1: classid 1:6 htb rate 1mbit linklayer atm overhead 10 mpu 64 ceil 2mbit burst 10k cburst 20k/8
class add dev D parent 1: classid 1:7 htb rate 5gbit ceil 6gbit quantum 1500 prio 3
class add dev D parent 1:7 classid 1:8 htb rate 1kbit
class add dev D parent 1:7 classid 1:8 htb rate 1kbit
class del dev D classid 1:7
class del dev D classid 1:9
class del dev D classid 1:8
class add dev D parent 1:9 classid 1:9 htb rate 3mbit
class change dev D classid 1:9 htb rate 4mbit
class change dev D classid 1:9 htb ceil 4mbit
class change dev D classid 1:9
qdisc add dev D parent 1:1 handle 30: pfifo
qdisc add dev D parent 1:5 handle 30: htb r2q 3 default 0x1f direct_qlen 7
qdisc change dev D root handle 1: htb r2q 5
## htb: tc's grammar and the kernel's checks
1 htb
qdisc add dev D root htb r2q x
qdisc add dev D root htb foo
qdisc add dev D root htb default
qdisc add dev D root htb offload
qdisc add dev D root htb help
qdisc add dev D root htb direct_qlen -1
qdisc add dev D root handle 1: htb d 10 deb 3 di 5
class add dev D parent 1: classid 1:1 htb rate x
class add dev D parent 1: classid 1:1 htb rate 1mbit rate 2mbit
class add dev D parent 1: classid 1:1 htb rate 1mbit foo
class add dev D parent 1: classid 1:1 htb rate 1mbit prio -1
class add dev D parent 1: classid 1:1 htb rate 1mbit burst 10k/3
class add dev D parent 1: classid 1:1 htb rate 1mbit ceil
class add dev D parent 1: classid 1:1 htb help
class add dev D parent 1: classid 1:1 htb ceil 1mbit
class add dev D parent 1: classid 1:1 htb rate 1mbit pr 2 qu 2000 bu 3000 cb 4000 mt 9000
# a share of the link speed: neither an ifb nor a null device knows its speed
class add dev D parent 1: classid 1:1 htb rate 10%
class add dev D parent 1: classid 1:1 prio
## ets: bands, strict, quanta, priomap, a band's quantum and child
1 ets
qdisc add dev D root handle 1: ets bands 5 strict 2 quanta 1500 3000 priomap 4 3 2 1 0
class change dev D classid 1:4 ets quantum 2000
class change dev D classid 1:1 ets quantum 2000
class change dev D classid 1:1 ets
class change dev D classid 1:1
class add dev D classid 1:7 ets quantum 3
qdisc add dev D parent 1:2 handle 20: pfifo
qdisc change dev D root handle 1: ets bands 3 quanta 100 2000000
## errors: tbf's grammar and checks
1
qdisc add dev D root tbf rate 1mbit burst 10kb/3 latency 50ms
qdisc add dev D root tbf rate 1mbit burst 10kb latency 50ms linklayer foo
qdisc add dev D root tbf rate 1mbit burst 10kb latency 50ms overhead 70000
qdisc add dev D root tbf rate 1mbit rate 2mbit burst 10kb latency 50ms
qdisc add dev D root tbf rate 1mbit burst 10kb limit 1 latency 5ms
qdisc add dev D root tbf rate 1mbit burst 10kb limit 1 peakrate 1mbit mtu 1500
qdisc add dev D root tbf rat 1mbit burst 10kb limit 1
qdisc add dev D root tbf
qdisc add dev D root handle 5: tbf rate 1mbit burst 10kb limit 1
qdisc change dev D root handle 5: tbf
qdisc del dev D root tbf
## change and replace in an mq class
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 handle 10: pfifo limit 5
qdisc change dev D parent 1:1 handle 10: pfifo limit 7
qdisc change dev D handle 10: pfifo limit 9
qdisc replace dev D parent 1:1 handle 10: pfifo limit 11
qdisc replace dev D parent 1:1 handle 11: bfifo limit 3000
qdisc change dev D parent 1:1 handle 11: bfifo limit 4000
qdisc change dev D parent 1:1 pfifo limit 3
## errors: what exists, what does not
4
qdisc add dev D root handle 1: mq
qdisc add dev D root handle 1: mq
qdisc add dev D root handle 2: mq
qdisc add dev D parent 1:5 pfifo
qdisc add dev D parent 7:1 pfifo
qdisc del dev D parent 1:3
qdisc del dev D parent 5:1
qdisc del dev D root handle 2:
qdisc change dev D parent 1:2 pfifo limit 5
qdisc add dev D ingress
qdisc add dev D ingress
qdisc del dev D root
qdisc del dev D root
## errors: syntax
4
qdisc add dev D root handle 10000: mq
qdisc add dev D root handle 123^ mq
qdisc add dev D parent 1:10000 pfifo
qdisc add dev D root pfifo limit abc
qdisc add dev D root bfifo limit 10zz
qdisc add dev D root tbf rate 1mbit
qdisc add dev D root tbf rate fast burst 10kb latency 50ms
qdisc add dev D root handle 1: mq foo
qdisc add dev D root parent 1:1 pfifo
qdisc add dev nosuchdev root pfifo
qdisc add dev D root foo
qdisc frob dev D
## errors: mq where it cannot be
1
qdisc add dev D root handle 1: mq
qdisc add dev D root handle 1: pfifo
qdisc add dev D parent 1:1 handle 2: mq
qdisc add dev D ingress handle 5:
## errors: mq below mq
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 handle 7: mq
qdisc add dev D parent ffff:fff1 handle 8: pfifo
## parent ffff: is a class of qdisc ffff:, never the root: the egress tree stays
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent ffff: pfifo
qdisc add dev D parent ffff:0 pfifo
qdisc add dev D parent ffff:1 pfifo
qdisc replace dev D parent ffff: pfifo limit 5
qdisc change dev D parent ffff: pfifo
qdisc replace dev D root handle 2: tbf rate 1mbit burst 10kb latency 10ms
qdisc add dev D parent ffff: pfifo
qdisc add dev D parent ffff:1 handle 5: pfifo
## parent ffff: with an ingress or clsact qdisc there: it takes no child
4
qdisc add dev D root handle 1: mq
qdisc add dev D ingress
qdisc add dev D parent ffff: pfifo
qdisc add dev D parent ffff:0 pfifo
qdisc add dev D parent ffff:1 pfifo
qdisc replace dev D parent ffff: handle 5: pfifo
qdisc del dev D ingress
qdisc add dev D clsact
qdisc add dev D parent ffff:fff2 pfifo
qdisc add dev D parent ffff:1 bfifo
## handles and parents in hex as strtoul() reads them; what follows a handle's ':' is ignored
4
qdisc add dev D root handle 0x1: mq
qdisc add dev D parent 0x1:0x2 handle 0x20 pfifo
qdisc add dev D parent 1:3 handle +3: pfifo
qdisc add dev D parent 1:4 handle 4:zz pfifo
qdisc add dev D parent 1:1 handle 1:2 pfifo
qdisc add dev D parent 1:1 handle 0x: pfifo
qdisc add dev D parent 1:1 handle -1: pfifo
qdisc add dev D parent 0x:1 pfifo
qdisc change dev D handle 0x20: pfifo limit 0x10
qdisc change dev D parent 1:0x3 handle 3:7 pfifo limit 7
## show's filters: root, ingress (clsact), handle, parent, invisible
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:2 handle 20: pfifo
qdisc add dev D ingress
qdisc show dev D root
qdisc show dev D ingress
qdisc show dev D clsact
qdisc show dev D handle 20:
qdisc show dev D han 0x1:
qdisc show dev D handle 9:
qdisc show dev D handle ffff:
qdisc show dev D parent 1:2
qdisc show dev D parent root
qdisc show dev D parent ffff:fff1
qdisc show dev D parent 1:9
qdisc show dev D invisible
-s qdisc show dev D handle 1:
-j qdisc show dev D parent 1:2
-d qdisc show dev D root
qdisc show dev D root handle 1:
qdisc show dev D handle 1: parent 1:1
qdisc show dev D ingress root
qdisc show dev D handle 1: handle 2:
qdisc show dev D handle
qdisc show dev D parent zz
qdisc show dev D handle zz
qdisc show dev D dev
qdisc show dev D inv
## class show's filters: root, parent, classid, qdisc (which prints minors alone)
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:2 handle 20: pfifo
class show dev D root
class show dev D parent 1:
class show dev D parent 1:3
class show dev D parent 2:
class show dev D classid 1:2
class show dev D qdisc 1:
class show dev D qdisc 1: classid 1:3
-s class show dev D classid 0x1:0x4
class show
class show dev D root root
class show dev D parent 1: root
class show dev D root parent 1:
class show dev D dev D
class show dev D classid
class show dev D classid x
class show dev D qdisc x
class show dev D foo
tbf help
## link (NLM_F_REPLACE alone): grafts what exists, creates nothing; "l" is link, "ls" a list
4
qdisc link dev D root handle 1: mq
qdisc add dev D root handle 1: mq
qdisc link dev D root handle 1: mq
qdisc link dev D root pfifo
qdisc link dev D parent 1:1 handle 10: pfifo
qdisc add dev D parent 1:1 handle 10: pfifo
qdisc link dev D parent 1:1 handle 10: pfifo limit 5
qdisc link dev D parent 1:1 bfifo
qdisc lin dev D parent 1:1 pfifo limit 6
qdisc link dev D parent 1:2 handle 10: pfifo
qdisc l dev D parent 1:1 pfifo limit 7
qdisc ls dev D
## class add, change, replace, del: what tc's parser refuses, and what Linux answers
4
qdisc add dev D root handle 1: mq
class add dev D classid 1:1
class add dev D parent 1: classid 1:5
class add dev D classid 1:9
class change dev D classid 1:1
class change dev D classid 1:9
class replace dev D classid 1:1
class del dev D classid 1:1
class del dev D classid 1:9
class del dev D
class add dev D
class add dev D root
class add dev D classid 2:1
class add dev D parent 2: classid 1:1
class add dev D classid 1:1 mq
class add dev D classid 1:1 foo
class add classid 1:1
class add dev D handle 1:1
class add dev D root root
class add dev D parent 1: parent 1:
class add dev D classid ffff:ffff
class add dev D root classid ffff:ffff
class add dev D root classid 1:ffff
class a dev D classid 1:1
class d dev D classid 1:1
class c dev D classid 1:1
class r dev D classid 1:1
class add dev D classid
class add dev D classid x
class del dev D parent :1
class del dev D classid :2
qdisc add dev D parent 1:2 handle 20: tbf rate 1mbit burst 10kb limit 10kb
class del dev D classid 20:1
class add dev D classid 20:1
class frob
## a device down lists no qdisc (noop); its root deleted is back to none, defaults come with up
4 down
qdisc show dev D
class show dev D
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:2 handle 20: pfifo
qdisc del dev D root
qdisc show dev D
qdisc del dev D root
qdisc del dev D root handle 1:
qdisc del dev D root pfifo
qdisc add dev D parent 1:2 pfifo
!up
## a single-queue device, down, its root deleted, then up
1 down
qdisc add dev D root handle 1: pfifo limit 5
qdisc del dev D root
qdisc show dev D
!up
## delete: the parent must be named, and the kind (if given) must match
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:2 handle 20: pfifo
qdisc del dev D handle 20:
qdisc del dev D handle 9:
qdisc del dev D
qdisc del dev D parent 1:2 bfifo
qdisc del dev D parent 1:2 handle 20: bfifo
qdisc del dev D parent 1:2 foo
qdisc del dev D parent 1:2 pfifo limit 5
qdisc del dev D parent 1:2 pfifo limit
qdisc del root
## another kind asks for a new qdisc, from add and change too (Linux 6.x)
4
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 handle 10: pfifo
qdisc add dev D parent 1:1 pfifo limit 3
qdisc add dev D parent 1:1 bfifo limit 3000
qdisc add dev D parent 1:2 handle 20: pfifo
qdisc change dev D parent 1:2 bfifo limit 4000
qdisc add dev D parent 1:3 handle 30: pfifo
qdisc change dev D handle 30: bfifo
qdisc change dev D parent 1:3 handle 30: bfifo
qdisc replace dev D parent 1:4 handle 30: bfifo
qdisc replace dev D parent 1:3 handle 30: bfifo
qdisc add dev D parent 1:3 handle 30: pfifo
qdisc add dev D parent 1:4 foo
qdisc change dev D parent 1:3 foo
qdisc add dev D parent 1:4 noqueue
qdisc add dev D parent 1:3 handle 30: tbf rate 1mbit burst 10kb limit 10kb
## another kind at the root: mq gives way to a pfifo, which gives way to noqueue
4
qdisc add dev D root handle 1: mq
qdisc add dev D root pfifo limit 5
qdisc change dev D root bfifo
qdisc add dev D root noqueue
## what tc's parsers refuse (exit 1, or 255 when tc leaves at once) and what goes on
1
qdisc add dev D root pfifo limit
qdisc add dev D root pfifo help
qdisc add dev D root pfifo bogus
qdisc add dev D root bfifo limit 1 limit
qdisc add dev D root pfifo_head_drop limit x
qdisc add dev D root pfifo_fast help
qdisc add dev D root pfifo_fast limit 5
qdisc add dev D root noqueue foo
qdisc add dev D root mq help
qdisc add dev D ingress handle
qdisc add dev D ingress bogus
qdisc add dev D root tbf rate
qdisc add dev D root tbf help
qdisc add dev D root tbf rate 1mbit burst 10kb limit 0
qdisc add dev D root tbf rate 1mbit burst 10kb limit 1 bogus
qdisc add root pfifo
qdisc del root
qdisc add dev D help
qdisc add dev D root handle
qdisc add dev D root parent
qdisc add dev D root handle 1: handle 2: pfifo
qdisc add dev D root tbf rate 1mbit burst 10kb latency 0
## prio, codel, fq_codel and mqprio: what tc's parser refuses, and what Linux refuses
4
qdisc add dev D root prio bands
qdisc add dev D root prio bands x
qdisc add dev D root prio bands 1
qdisc add dev D root prio bands 17
qdisc add dev D root prio bands -1
qdisc add dev D root prio bands 2
qdisc add dev D root prio priomap 3
qdisc add dev D root prio priomap 0 priomap 1
qdisc add dev D root prio bogus
qdisc add dev D root prio help
qdisc add dev D root codel limit
qdisc add dev D root codel limit x
qdisc add dev D root codel bogus
qdisc add dev D root fq_codel target
qdisc add dev D root fq_codel flows 65537
qdisc add dev D root fq_codel quantum 2000000
qdisc add dev D root fq_codel bogus
qdisc add dev D root mqprio num_tc
qdisc add dev D root mqprio num_tc 256
qdisc add dev D root mqprio num_tc 17
qdisc add dev D root mqprio num_tc 2 map 0 1 9
qdisc add dev D root mqprio num_tc 2 map 0 1 256
qdisc add dev D root mqprio num_tc 2 queues 2@0 1x1
qdisc add dev D root mqprio num_tc 1 queues 1@0 1@1
qdisc add dev D root mqprio num_tc 2 map 0 1 queues 2@0 0@2 hw 0
qdisc add dev D root mqprio num_tc 2 map 0 1 queues 2@0 2@3 hw 0
qdisc add dev D root mqprio num_tc 2 map 0 1 queues 2@0 1@1 hw 0
qdisc add dev D root mqprio num_tc 2 map 0 1 queues 2@0 2@2
qdisc add dev D root mqprio hw x
qdisc add dev D root mqprio foo
## netem: what tc's parser refuses, and the kernel's slot check
1
qdisc add dev D root netem delay
qdisc add dev D root netem help
qdisc add dev D root netem bogus
qdisc add dev D root netem loss 150%
qdisc add dev D root netem loss -5%
qdisc add dev D root netem loss bogus 1
qdisc add dev D root netem loss 1% loss 2%
qdisc add dev D root netem delay 10ms 2ms 120%
qdisc add dev D root netem delay 300s
qdisc add dev D root netem delay 10ms 2ms x
qdisc add dev D root netem slot 10 5
qdisc add dev D root netem slot packets 5
qdisc add dev D root netem slot distribution normal 1ms 0
qdisc add dev D root netem slot distribution normal 1ms
qdisc add dev D root netem slot 1ms 2ms packets -1
qdisc add dev D root netem ecn
qdisc add dev D root netem gap 5
qdisc add dev D root netem reorder 5%
qdisc add dev D root netem distribution normal delay 1ms
qdisc add dev D root netem rate
## clsact and its shared blocks
4
qdisc add dev D ingress_block 5 egress_block 6 clsact
qdisc add dev D clsact
qdisc add dev D egress_block 3 ingress
qdisc add dev D ingress_block 0 clsact
qdisc del dev D clsact
qdisc add dev D egress_block 7 clsact
## errors: filter words tc refuses before the kernel sees them
# (this kernel may have no classifier at all: filters that would be added are not compared)
4
qdisc add dev D clsact
filter add dev D egress flower dst_ip bogus
filter add dev D egress flower foo
filter add dev D egress protocol ip flower ip_proto tcp dst_port 80-70
filter add dev D egress protocol ip flower ip_proto tcp dst_port 0
filter add dev D egress flower vlan_id 5
filter add dev D egress protocol ip flower ip_proto icmpv6
filter add dev D egress protocol ip flower dst_ip 10.0.0.1/33
filter add dev D egress protocol ip flower dst_ip fd00::1
filter add dev D egress protocol ip flower dst_ip bogus
filter add dev D egress protocol ipv6 flower src_ip 10.0.0.1
filter add dev D egress protocol ip flower ip_flags frag/bogus
filter add dev D egress matchall action skbedit queue_mapping 70000
filter add dev D egress matchall action skbedit
filter add dev D egress matchall action police rate 1mbit
filter add dev D egress matchall action police burst 10k
filter add dev D egress matchall action police rate 1mbit burst 10k peakrate 2mbit
filter add dev D egress matchall action police rate bogus burst 10k
filter add dev D egress matchall action police rate 1mbit burst 10k/7
filter add dev D egress matchall action police rate 1mbit burst 10k burst 20k
filter add dev D egress matchall action police rate 1mbit burst 10k conform-exceed foo
filter add dev D egress matchall action police rate 1mbit burst 10k what
filter add dev D egress matchall action police pkts_rate 1000
filter add dev D egress matchall action police pkts_burst 10
filter add dev D egress matchall action police rate 1kbit burst 10k pkts_rate 1000 pkts_burst 200
filter add dev D egress matchall action police pkts_rate 0 pkts_burst 10
filter add dev D egress matchall action police pkts_rate x pkts_burst 10
filter add dev D egress matchall action police pkts_rate 10 pkts_rate 10
filter add dev D egress matchall action police pkts_rate 10 pkts_burst 0x10
filter add dev D egress matchall action police pkts_rate 1000 pkts_burst 200 peakrate 1mbit mtu 1000
filter add dev D egress matchall action police peakrate 1mbit mtu 1000
filter add dev D egress matchall action gact foo
filter add dev D egress matchall action vlan bad_mode
filter add dev D egress matchall action vlan pop push
filter add dev D egress matchall action vlan push
filter add dev D egress matchall action vlan push protocol ABCD
filter add dev D egress matchall action vlan push id 5 priority 10
filter add dev D egress matchall action vlan id 5
filter add dev D egress matchall action vlan push id 4 protocol ip
filter add dev D egress matchall action vlan push_eth dst_mac 1:2:3:4:5:6
filter add dev D egress matchall action vlan pop reclassify index 429496729599
filter add dev D egress matchall action csum foobar
filter add dev D egress matchall action csum udp xor iph
filter add dev D egress matchall action skbmod set smac 00:44:55:44:55
filter add dev D egress matchall action skbmod set etype 0xfefef
filter add dev D egress matchall action skbmod foo
filter add dev D egress matchall action sample rate 100
filter add dev D egress matchall action pedit munge offset 2 u32 set 1
filter add dev D egress matchall action pedit munge offset 15 u16 set 0x1234
filter add dev D egress matchall action pedit munge offset x u8 set 1
filter add dev D egress matchall action pedit munge offset 0 u8 bogus
filter add dev D egress matchall action pedit munge ip ttl set 300
filter add dev D egress matchall action pedit munge ip ttl add 1
filter add dev D egress matchall action pedit munge ip bogus set 1
filter add dev D egress matchall action pedit munge foo bar
filter add dev D egress matchall action pedit munge eth src set 1:2:3:4:5:6
filter add dev D egress matchall action pedit ex munge ip dport set 1
filter add dev D egress matchall action pedit ex munge eth type set 0xabcdef
filter add dev D egress matchall action pedit ex munge ip6 dst set 2001:db8::1 retain 0xff0000
filter add dev D egress matchall action pedit munge offset 0 u8 set 1 pedit ex
filter add dev D egress matchall action pedit munge ip src set 1.1.1.256
filter add dev D egress matchall action tunnel_key unset bogus
filter add dev D egress matchall action
filter add dev D egress matchall flowid zz
filter add dev D egress protocol ip u32 match ip colour 1 1 flowid 1:1
filter add dev D egress protocol ip u32 match ip protocol 6 0xff match ip protocol 17 0xff
filter add dev D egress protocol ip u32 match u32 1 0xffffffff at 2
filter add dev D egress protocol ip u32 match ip dst 10.0.0.1/33
filter add dev D egress protocol ip u32 bogus
filter add dev D egress protocol ip handle 800::7 u32 order 5 match ip src 1.1.1.1
filter add dev D egress protocol ip handle zz u32 match ip src 1.1.1.1
filter add dev D egress protocol ip u32 divisor 3
filter add dev D egress protocol ip u32 match u8 0 0 offset at 3
filter add dev D egress protocol ip u32 sample ip6 src fd00::/64 match u8 0 0
filter add dev D egress protocol ip u32 match u8 0 0 link 1:2:3
filter add dev D egress protocol ip u32 match u8 0 0 hashkey mask 0xff at 2
filter add dev D egress protocol ip u32 match u8 0 0 skip_sw skip_hw
filter add dev D egress basic match cmp(u8 at 0 layer 4 eq 1)
filter add dev D egress basic match u32(u8 0x1122 0x0f at 0)
filter add dev D egress basic match nbyte(ab)
filter add dev D egress basic match meta(rxhash eq 1)
filter add dev D egress basic match meta(colour eq 1)
filter add dev D egress basic match meta(priority eq 1) and
filter add dev D egress basic bogus
filter add dev D egress matchall action mirred egress redirect dev nosuch
filter add dev D egress matchall action mirred sideways redirect dev D
filter add dev D egress matchall action mirred egress ingress redirect dev D
filter add dev D egress matchall action mirred egress mirror redirect dev D
filter add dev D egress matchall action mirred egress redirect
filter add dev D egress matchall action mirred help
filter add dev D egress prio 0x10000 matchall
filter add dev D egress chain x matchall
filter add dev D egress egress matchall
filter add dev D egress handle 1
filter add dev nosuch egress matchall
filter add dev D egress bogus x
filter frob dev D
## standalone actions: mirred in the table, a filter bound to one, delete and flush refused
4
actions add action mirred egress mirror dev D index 3 cookie aabbccdd
actions add action mirred egress redirect dev D
actions ls action mirred
-j actions ls action mirred
actions add action mirred egress mirror dev D index 3
actions get action mirred index 3
-j actions get action mirred index 1
actions get action mirred index 9
actions replace action mirred egress redirect dev D index 3
qdisc add dev D clsact
filter add dev D egress protocol ip prio 1 u32 match ip dst 10.0.0.0/8 action mirred index 3
filter add dev D egress protocol ip prio 2 u32 match ip dst 10.0.0.0/8 action mirred egress mirror dev D index 7
actions ls action mirred
actions delete action mirred index 3
actions delete action mirred index 1
actions ls action mirred
actions flush action mirred
# The kernel unbinds a deleted filter's actions in a work item (tcf_queue_work()), so what a
# flush or a listing right after a filter's deletion finds depends on when that work ran: no
# flush or listing follows one here.
filter del dev D egress prio 1
filter del dev D egress
## mqtx's other kinds, where the kernel has them: prio
4 prio
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 handle 10: prio bands 4 priomap 0 1 2 3 3 3 3 3 3 3 3 3 3 3 3 3
qdisc add dev D parent 10:2 handle 20: pfifo limit 9
qdisc add dev D parent 1:2 handle 11: prio bands 5 priomap 4 3
qdisc change dev D handle 11: prio bands 3
qdisc change dev D handle 10: prio
## mqtx's other kinds, where the kernel has them: codel and fq_codel
4 codel fq_codel
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 handle 10: codel
qdisc add dev D parent 1:2 handle 11: codel limit 100 target 2ms interval 50ms ecn
qdisc add dev D parent 1:3 handle 12: fq_codel
qdisc add dev D parent 1:4 handle 13: fq_codel limit 1000 flows 64 quantum 300 noecn
## mqtx's other kinds, where the kernel has them: netem
4 netem
qdisc add dev D root handle 1: mq
qdisc add dev D parent 1:1 handle 10: netem
qdisc add dev D parent 1:2 handle 11: netem limit 200 delay 100ms 10ms 25% distribution normal loss 1% 30% duplicate 2% reorder 25% 50% gap 5 corrupt 0.5%
qdisc add dev D parent 1:3 handle 12: netem delay 10ms rate 20000 20 100 4 slot 10 200 packets 2000 bytes 9000 loss state 1 ecn
qdisc add dev D parent 1:4 handle 13: netem loss gemodel 1% 20 30 40 slot distribution pareto 1ms 0.1ms
qdisc change dev D handle 11: netem delay 200ms 10ms loss 2%
qdisc replace dev D parent 1:1 handle 10: netem loss 1.5 rate 1mbit -5 0x10 -3 limit 1k duplicate 5 corrupt 1 2
qdisc change dev D handle 13: netem loss state 1 2 3
## mqtx's other kinds, where the kernel has them: mqprio
4 mqprio
qdisc add dev D root handle 2: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 queues 2@0 2@2 hw 0
qdisc add dev D parent 2:3 handle 30: pfifo limit 5
## fq and taprio words tc refuses before the kernel sees them
# (this kernel may have neither kind: what would be added is not compared)
4
qdisc add dev D root fq bogus
qdisc add dev D root fq help
qdisc add dev D root fq limit
qdisc add dev D root fq limit x
qdisc add dev D root fq maxrate 1mbt
qdisc add dev D root fq timer_slack 5s
qdisc add dev D root taprio bogus
qdisc add dev D root taprio help
qdisc add dev D root taprio clockid CLOCK_FOO
qdisc add dev D root taprio sched-entry X 1 300000
qdisc add dev D root taprio sched-entry S
qdisc add dev D root taprio num_tc
EOF
}

scenarios | $X python3 "$(dirname "$0")/tc_parity.py" "$MQTXD"

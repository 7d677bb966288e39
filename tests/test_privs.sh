#!/bin/sh
# SPDX-License-Identifier: MIT
# mqtxd keeps only the capabilities of its backends: after start-up every thread has exactly
# CAP_NET_ADMIN, CAP_NET_RAW, CAP_IPC_LOCK and CAP_BPF (effective, permitted, bounding; no
# inheritable or ambient ones; no_new_privs), TAP and AF_PACKET devices are still created by
# commands, what needed a dropped capability is refused, and --keep-caps keeps them all.
set -u
SLOW=${MQTX_TEST_SLOW:-1} # the bound of every wait, stretched as tests/lib.sh says
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to have capabilities to drop"; exit 77; }
if [ -z "${MQTX_IN_NETNS:-}" ]; then
	unshare -n true 2>/dev/null || { echo "SKIP: no network namespaces here"; exit 77; }
	MQTX_IN_NETNS=1 exec unshare -n sh "$0" "$@"
fi
T=$(mktemp -d)
S="$T/mqtx.sock"
M="$MQTX -S $S"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
cleanup() {
	[ -n "${pid:-}" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid"
	rm -rf "$T"
}
trap cleanup EXIT

# The kept set: CAP_NET_ADMIN 12, CAP_NET_RAW 13, CAP_IPC_LOCK 14, CAP_BPF 39 (Linux >= 5.8).
KEPT=$(printf '%016x' $(((1 << 12) | (1 << 13) | (1 << 14) | (1 << 39))))
ALL=$(sed -n 's/^CapBnd:\t//p' /proc/self/status)

start() { # ARGS...: start mqtxd, wait for its socket
	"$MQTXD" -S "$S" "$@" >"$T/mqtxd.log" 2>&1 &
	pid=$!
	i=0
	while [ ! -S "$S" ] && [ $i -lt $((200 * SLOW)) ]; do sleep 0.05; i=$((i + 1)); done
}
stop() {
	kill -TERM "$pid" && wait "$pid"
	pid=
}
# Every thread of the daemon: FIELD has VALUE. A thread that ended between the listing and the
# read (a finished gen job's) is not counted.
all_threads() { # FIELD VALUE WHAT
	bad=""
	seen=0
	for t in /proc/"$pid"/task/*; do
		v=$(sed -n "s/^$1:\t//p" "$t/status" 2>/dev/null) || continue
		seen=$((seen + 1))
		[ "$v" = "$2" ] || bad="$bad ${t##*/}:$v"
	done
	[ -z "$bad" ] && [ "$seen" -gt 0 ] && ok "$3: $1 $2 in all $seen threads" ||
		fail "$3: $1 is not $2:$bad"
}

ip link set lo up
ip link add mqp0 numtxqueues 2 numrxqueues 2 type veth peer mqp1 numtxqueues 2 numrxqueues 2
ip link set mqp0 up && ip link set mqp1 up

start
grep -qx "mqtxd: serving $S, capabilities: cap_net_admin,cap_net_raw,cap_ipc_lock,cap_bpf" "$T/mqtxd.log" &&
	ok "mqtxd says what it kept" || fail "mqtxd log: $(cat "$T/mqtxd.log")"
for f in CapEff CapPrm CapBnd; do all_threads $f "$KEPT" "after start"; done
all_threads CapInh 0000000000000000 "after start"
all_threads CapAmb 0000000000000000 "after start"
all_threads NoNewPrivs 1 "after start"

# The backends are created at run time, by commands: they still work.
$M dev add t0 type tap txqueues 2 up >"$T/out" 2>&1 && ip link show t0 >/dev/null 2>&1 &&
	ok "a TAP device is created after the drop" || fail "tap: $(cat "$T/out")"
$M dev add a0 type af_packet ifname mqp0 up >"$T/out" 2>&1 &&
	$M gen dev a0 count 50 >/dev/null 2>&1 &&
	$M -s dev show a0 | grep -q "packets 50 " &&
	ok "an af_packet device (socket, steering program, tc hook) sends after the drop" ||
	fail "af_packet: $(cat "$T/out"; $M -s dev show a0 2>&1)"
$M dev add s0 type sim txqueues 2 up >/dev/null 2>&1
# Threads started since (TAP, sim, TX thread) inherited the small sets.
for f in CapEff CapPrm CapBnd; do all_threads $f "$KEPT" "with devices"; done

stop

# What a dropped capability allowed is refused: a capture file in a directory of another user
# (CAP_DAC_OVERRIDE), which the configuration names (a client's file is opened by the client).
mkdir "$T/other" && chown 65534:65534 "$T/other" && chmod 0700 "$T/other"
echo "dev add p0 type pcap file $T/other/x.pcap" >"$T/conf"
"$MQTXD" -S "$S" -c "$T/conf" >"$T/out" 2>&1 &&
	fail "a file in another user's private directory was written" ||
	{ grep -q "x.pcap: cannot create: Permission denied" "$T/out" &&
		ok "CAP_DAC_OVERRIDE is gone: $(grep pcap "$T/out")" ||
		fail "pcap refusal: $(cat "$T/out")"; }

start --keep-caps -c "$T/conf"
grep -q "(--keep-caps)" "$T/mqtxd.log" && ok "--keep-caps says so" ||
	fail "mqtxd log: $(cat "$T/mqtxd.log")"
all_threads CapBnd "$ALL" "--keep-caps"
[ -f "$T/other/x.pcap" ] && ok "--keep-caps: root writes anywhere again" ||
	fail "--keep-caps pcap: $(cat "$T/mqtxd.log")"
stop

echo "$((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]

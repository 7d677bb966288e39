#!/bin/sh
# SPDX-License-Identifier: MIT
# The dev commands of the kernel backends (tap, af_packet, af_xdp) against a real mqtxd, in a
# network namespace of the test's own with a veth pair: add, traffic through gen, per-queue
# kernel counters in dev show -s, dev set mtu, and the refusals with their exact messages.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a network namespace"; exit 77; }
if [ -z "${MQTX_IN_NETNS:-}" ]; then
	unshare -n true 2>/dev/null || { echo "SKIP: no network namespaces here"; exit 77; }
	MQTX_IN_NETNS=1 exec unshare -n sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
t_begin backends

ip link set lo up
ip link add mqv0 numtxqueues 2 numrxqueues 2 type veth peer mqv1 numtxqueues 2 numrxqueues 2
ip link set mqv0 up && ip link set mqv1 up
start || exit 1

# af_packet: the interface's two queues without txqueues; frames through gen; kernel counters
expect 0 "" -- $M dev add a0 type af_packet ifname mqv0 up
$M dev show a0 | grep -q "^a0: <UP> kind af_packet txqueues 2 " && ok "af_packet takes mqv0's 2 queues" ||
	fail "af_packet queues: $($M dev show a0)"
$M dev show a0 | grep -q "^a0: <UP> kind af_packet txqueues 2 .* ifname mqv0 bypass on$" &&
	$M -j dev show a0 | grep -q '"ifname":"mqv0","ifname_gone":false,"bypass":true' &&
	ok "dev show: the interface and the bypass" || fail "af_packet show: $($M dev show a0; $M -j dev show a0)"
$M gen dev a0 count 200 flows 16 >/dev/null 2>&1
out=$($M -s dev show a0)
echo "$out" | grep -Eq "^    driver: .*kernel_packets 200 " && ok "dev show -s: the kernel took the 200 frames" ||
	fail "kernel counters: $out"
echo "$out" | grep -Ec "^      driver: .* errors 0 " | grep -qx 2 && ok "dev show -s: a driver line per queue" ||
	fail "per-queue driver lines: $out"
expect 0 "" -- $M dev set a0 mtu 1400
ip link show mqv0 | grep -q "mtu 1400 " && ok "dev set mtu reaches the interface" ||
	fail "mtu: $(ip link show mqv0)"
expect 2 "dev set: a0: an AF_PACKET socket has no ring, coalescing or rate to set \(use ethtool on mqv0\)" -- $M dev set a0 ring 512
expect 0 "" -- $M dev add a1 type af_packet ifname mqv0 txqueues 1 bypass off
$M dev show a1 | grep -q " ifname mqv0 bypass off$" && ok "dev show: bypass off" ||
	fail "af_packet bypass off: $($M dev show a1)"
expect 0 "" -- $M dev del a1
expect 0 "" -- $M dev del a0
ip link set mqv0 mtu 1500
ip link set mqv1 down
expect 0 "" -- $M dev add a2 type af_packet ifname mqv1
expect 2 "dev set: a2: .*mqv1.*down.*" -- $M dev set a2 up
expect 0 "" -- $M dev del a2
ip link set mqv1 up

# af_xdp in copy mode on the veth; its refusals
if $M dev add x0 type af_xdp ifname mqv0 mode copy ring 256 up >"$T/x.log" 2>&1; then
	ok "af_xdp copy mode on mqv0"
	$M gen dev x0 count 100 >/dev/null 2>&1
	$M -s dev show x0 | grep -Eq "^    driver: zerocopy 0 .*kernel_packets 100 " &&
		ok "af_xdp: the kernel took the 100 frames" || fail "af_xdp counters: $($M -s dev show x0)"
	expect 2 "dev set: x0: the XSK rings of mqv0 are sized at creation \(ring 256\): delete and add the device to change them" -- $M dev set x0 ring 512
	expect 2 "dev set: x0: mtu 4000 does not fit a UMEM frame of 2048 bytes \(1920 of them hold a packet\)" -- $M dev set x0 mtu 4000
	expect 0 "" -- $M dev del x0
elif grep -q "not supported\|Operation not supported" "$T/x.log"; then
	echo "# af_xdp: the kernel has no AF_XDP: $(cat "$T/x.log")"
else
	fail "af_xdp on mqv0: $(cat "$T/x.log")"
fi
expect 2 "dev add: x1: af_xdp: .*mqv0.*queue 5.*" -- $M dev add x1 type af_xdp ifname mqv0 queue 5 txqueues 1

# tap: mqtx creates the TAP and removes it again; vnet_hdr; noqueue
if [ -c /dev/net/tun ]; then
	expect 0 "" -- $M dev add t0 type tap ifname mqtap0 txqueues 2 vnet_hdr noqueue up
	ip link show mqtap0 >/dev/null 2>&1 && ok "the TAP mqtap0 exists" || fail "no TAP mqtap0"
	$M qdisc show dev t0 | grep -q "^qdisc noqueue 0: root" && ok "tap noqueue" ||
		fail "tap qdisc: $($M qdisc show dev t0)"
	$M dev show t0 | grep -q "^t0: <UP> kind tap txqueues 2 .* ifname mqtap0" &&
		ok "dev show names the TAP" || fail "tap show: $($M dev show t0)"
	expect 2 "dev set: t0: a TAP has no ring, coalescing or rate to set \(mqtap0\)" -- $M dev set t0 coalesce 10us
	expect 0 "" -- $M dev set t0 mtu 9000
	ip link show mqtap0 | grep -q "mtu 9000 " && ok "dev set mtu reaches the TAP" ||
		fail "tap mtu: $(ip link show mqtap0)"
	expect 0 "" -- $M dev del t0
	ip link show mqtap0 >/dev/null 2>&1 && fail "mqtap0 is left behind" || ok "dev del removed mqtap0"
	expect 2 "dev add: t1: tap: mqv0: exists and is not a multi-queue TAP" -- $M dev add t1 type tap ifname mqv0 txqueues 1
	expect 1 'dev add: type tap needs "txqueues"' -- $M dev add t2 type tap ifname mqtap2
else
	echo "# tap: no /dev/net/tun"
fi

# An interface deleted, then made again under its name: dev show says the one attached to is
# gone, and dev set up attaches to the new one (a device gone down after a failed send, and one
# still up), its frames then reaching it. Before the new one exists, up changes nothing.
veth_r() {
	ip link add mqr0 numtxqueues 2 numrxqueues 2 type veth peer mqr1 numtxqueues 2 \
		numrxqueues 2 && ip link set mqr0 up && ip link set mqr1 up
}
veth_r
want="g0 g1"
expect 0 "" -- $M dev add g0 type af_packet ifname mqr0 up
expect 0 "" -- $M dev add g1 type af_packet ifname mqr0 bypass off up
if $M dev add gx type af_xdp ifname mqr0 mode copy up >"$T/gx.log" 2>&1; then
	want="$want gx"
fi
if [ -c /dev/net/tun ]; then
	expect 0 "" -- $M dev add gt type tap ifname mqgt0 txqueues 2 up
	want="$want gt"
fi
ip link del mqr0
ip link del mqgt0 2>/dev/null
for d in $want; do
	$M dev show $d | grep -Eq "^$d: <UP> .* ifname mq(r0|gt0) \(gone\)" &&
		ok "$d: dev show says its interface is gone" || fail "$d gone: $($M dev show $d)"
done
$M -j dev show g0 | grep -q '"ifname":"mqr0","ifname_gone":true' && ok "-j: ifname_gone" ||
	fail "-j gone: $($M -j dev show g0)"
expect 2 "dev set: g0: mqr0: the interface is gone" -- $M dev set g0 up
$M dev show g0 | grep -q "^g0: <UP> " && ok "nothing to attach to: g0 stays as it was" ||
	fail "g0 after a refused up: $($M dev show g0)"
# A send finds the interface gone: the device goes down (a helper thread closes it).
$M gen dev g0 count 5 >/dev/null 2>&1
for _ in $(seq $((100 * SLOW))); do $M dev show g0 | grep -q "^g0: <DOWN>" && break; sleep 0.05; done
# Made again but down: af_packet does not bring it up, and a failed up changes nothing.
ip link add mqr0 numtxqueues 2 numrxqueues 2 type veth peer mqr1 numtxqueues 2 numrxqueues 2
expect 2 "dev set: g0: mqr0: the interface is down" -- $M dev set g0 up
$M dev show g0 | grep -q "^g0: <DOWN> .* ifname mqr0 (gone) bypass on$" &&
	ok "a failed attach leaves g0 as it was" || fail "g0 after a failed up: $($M dev show g0)"
ip link del mqr0
veth_r
[ -c /dev/net/tun ] && ip tuntap add dev mqgt0 mode tap multi_queue
for d in $want; do
	$M dev show $d | grep -q "(gone)" && ok "$d: a new interface of the name is another" ||
		fail "$d: $($M dev show $d)"
	expect 0 "" -- $M dev set $d up
	$M dev show $d | grep -Eq "^$d: <UP> .* ifname mq(r0|gt0)( mode copy| bypass (on|off))?$" &&
		ok "$d: attached to the new interface" || fail "$d reattached: $($M dev show $d)"
	$M gen dev $d count 20 >/dev/null 2>&1
	$M -s dev show $d | grep -Eq "^    driver: .*kernel_packets 20 " &&
		ok "$d: its frames reach the new interface" || fail "$d sends: $($M -s dev show $d)"
	expect 0 "" -- $M dev del $d
done
ip link del mqr0
ip link del mqgt0 2>/dev/null
$M dev show | grep -q . && fail "devices left: $($M dev show)" || ok "nothing left in mqtxd"
t_end

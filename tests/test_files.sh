#!/bin/sh
# SPDX-License-Identifier: MIT
# The files mqtxd writes for its clients (a pcap device's capture): a full disk and a file-size
# limit counted frame by frame and logged. Needs root (a tmpfs in a mount namespace of its
# own), $MQTX and $MQTXD.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (a tmpfs)"; exit 77; }
if [ -z "${MQTX_IN_MNTNS:-}" ]; then
	unshare -m true 2>/dev/null || { echo "SKIP: no mount namespaces here"; exit 77; }
	MQTX_IN_MNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
command -v tshark >/dev/null || { echo "SKIP: tshark is missing (it reads the captures)"; exit 77; }
. "$(dirname "$0")/lib.sh"
t_begin files
cleanup_more() { mountpoint -q "$T/small" 2>/dev/null && umount "$T/small"; }

# run DESC CODE REGEX -- CMD...: CMD (within 20 s) exits CODE with output matching REGEX.
run() {
	desc=$1 code=$2 pat=$3
	shift 4
	timeout 20 "$@" >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq "$code" ] && { [ -z "$pat" ] || grep -Eq -- "$pat" "$T/out"; }; then
		ok "$desc"
	else
		fail "$desc: exit $rc (want $code, /$pat/): $(cat "$T/out")"
	fi
}
is_pcap() { # is_pcap FILE: a capture that tshark reads to its end
	[ "$(tshark -r "$1" 2>&1 >/dev/null | grep -c 'cut short\|damaged\|isn.t')" -eq 0 ] &&
		head -c 4 "$1" | od -An -tx1 | grep -q '4d 3c b2 a1'
}

start || exit 1

# ---- a full disk: every frame written whole or dropped as nospace, the file valid, logged ----
mkdir "$T/small"
mount -t tmpfs -o size=64k tmpfs "$T/small"
run "a device on a small file system" 0 "" -- $M dev add fd0 type pcap file "$T/small/full.pcap" up
run "200 frames of 1000 bytes for 64 KiB" 0 "" -- $M gen dev fd0 count 200 size 1000
$M -s dev show fd0 >"$T/show"
p=$(sed -n 's/^    txq 0: state [a-zA-Z,]* packets \([0-9]*\) .*/\1/p' "$T/show")
d=$(sed -n 's/^    txq 0: .* (nospace \([0-9]*\)).*/\1/p' "$T/show")
[ -n "$p" ] && [ -n "$d" ] && [ $((p + d)) -eq 200 ] && [ "$d" -gt 0 ] &&
	ok "full disk: $p frames written, $d dropped as nospace" || fail "full disk counters: $(cat "$T/show")"
n=$(tshark -r "$T/small/full.pcap" 2>/dev/null | wc -l)
is_pcap "$T/small/full.pcap" && [ "$n" = "${p:-x}" ] &&
	ok "full disk: the file holds exactly the frames written" || fail "full disk file: $n frames for $p"
grep -c "full.pcap: cannot write: No space left on device" "$T/daemon.err" | grep -qx 1 &&
	ok "full disk: the first failure is logged once" || fail "full disk log: $(cat "$T/daemon.err")"
run "full disk: the device is still up" 0 "^fd0: <UP>" -- $M dev show fd0
$M dev set fd0 down >/dev/null 2>&1
grep -q "full.pcap: $d frames were not written (nospace $d)" "$T/daemon.err" &&
	ok "full disk: the count is logged when the device goes down" || fail "full disk summary: $(cat "$T/daemon.err")"
$M dev del fd0 >/dev/null 2>&1
umount "$T/small"
# A file-size limit makes writes fail (EFBIG): dropped as write, and the daemon lives on.
run "a device under a file-size limit" 0 "" -- $M dev add fz0 type pcap file "$T/fz.pcap" up
prlimit --pid "$DPID" --fsize=20000
run "past the limit: the generator runs to its end" 0 "" -- $M gen dev fz0 count 50 size 1000
kill -0 "$DPID" 2>/dev/null && ok "past the limit: the daemon lives" || fail "the daemon died at the file-size limit"
run "past the limit: frames dropped as write" 0 "\(write [0-9]+\)" -- $M -s dev show fz0
prlimit --pid "$DPID" --fsize=unlimited 2>/dev/null
stop
t_end

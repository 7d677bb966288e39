#!/bin/sh
# SPDX-License-Identifier: MIT
# The 802.11 WME commands against a real mqtxd: a sim-wifi device, stations, block-ack sessions,
# what-if classification, ACM, the QoS Map, traffic to a station counted per AC, JSON, top, and
# every refusal with its exact message, exit code and the state left as it was.
# Needs $MQTX, $MQTXD and python3.
set -u
. "$(dirname "$0")/lib.sh"
t_begin wme
A1=02:00:00:00:00:01
A2=02:00:00:00:00:02
A9=02:00:00:00:00:09
# What a refused command must leave as it was: devices, settings, stations, sessions.
state() { $M -j dev show; $M -j sta show; $M ba show; }
# refused CODE MESSAGE -- CMD...: exits CODE with exactly MESSAGE, and changes nothing
refused() {
	before=$(state)
	expect "$@"
	after=$(state)
	[ "$before" = "$after" ] && ok "state unchanged" || fail "state changed: $before -> $after"
}
# Wait until the device holds no frame: every frame delivered, so the counters are final.
drain() {
	i=0
	while [ $i -lt 400 ]; do
		s=$($M -s dev show "$1")
		if [ "$(printf '%s\n' "$s" | grep -c ' queued 0 selected')" -eq 4 ] &&
			printf '%s\n' "$s" | grep -q '^    TX: .* qlen 0 backlog 0b$'; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	fail "$1 still holds frames: $s"
}
# ba_wait DEV STATE: the one session of DEV reaches STATE (the peer answers after a delay).
ba_wait() {
	i=0
	while [ $i -lt 400 ]; do
		$M ba show dev "$1" | grep -q " $2 " && return 0
		sleep 0.05
		i=$((i + 1))
	done
	fail "no session of $1 became $2: $($M ba show dev "$1")"
}

start || exit 1

# ---- dev add type sim-wifi ----
expect 0 "" -- $M dev add w0 type sim-wifi acm vo noadmit drop up
expect 0 "w0: <UP> kind sim-wifi txqueues 8 maxqueues 8 txqueuelen 1000 mtu 1500 hash jhash seed 0x0 rate 54Mbit ring 256 ampdu 32 ba accept ba-delay 100us
    wme: aggqueues 4 in-use 0 stations 0 acm vo noadmit drop legacy off qosmap none tspec none role default" -- $M dev show w0
expect 0 "" -- $M dev add w2 type sim-wifi aggqueues 0 rate 24mbit ring 64 ba silent edca be aifsn 2 cwmin 7
$M -d dev show w2 | grep -qx "w2: <DOWN> kind sim-wifi txqueues 4 .* rate 24Mbit ring 64 ampdu 32 ba silent ba-delay 100us" &&
	ok "aggqueues 0: the 4 AC queues only" || fail "w2: $($M -d dev show w2)"
$M -d dev show w2 | grep -qx "    edca BE aifsn 2 cwmin 7 cwmax 1023 txop 0us" &&
	ok "edca: the fields given, the 802.11 default for the others" || fail "w2 edca: $($M -d dev show w2)"
expect 0 "" -- $M dev del w2
expect 0 "" -- $M dev add n0 type null up
refused 1 'dev add: type sim-wifi makes its own queues: no txqueues or maxqueues' -- $M dev add w1 type sim-wifi txqueues 4
refused 1 'dev add: unknown access category "xx" in "vo,xx" \(vo, vi, be, bk\)' -- $M dev add w1 type sim-wifi acm vo,xx
refused 1 'dev add: invalid sim-wifi aggqueues "65": 0..64' -- $M dev add w1 type sim-wifi aggqueues 65
refused 1 'dev add: invalid sim-wifi ba "maybe": accept, refuse or silent' -- $M dev add w1 type sim-wifi ba maybe
refused 2 'dev add: w1: sim-wifi: rate 100000000000 bit/s outside 1Mbit..10Gbit' -- $M dev add w1 type sim-wifi rate 100gbit
refused 2 'dev add: w1: sim-wifi: EDCA of VO: aifsn 2 cwmin 4 cwmax 7 \(aifsn 1..15, cw 2\^n-1, cwmin <= cwmax\)' -- $M dev add w1 type sim-wifi edca vo cwmin 4

# ---- stations ----
expect 0 "" -- $M sta add dev w0 addr $A1
expect 0 "" -- $M sta add dev w0 addr $A2 qos off
expect 0 "sta $A1 dev w0 qos on reserved-tid none
sta $A2 dev w0 qos off reserved-tid none" -- $M sta show
expect 0 "sta $A2 dev w0 qos off reserved-tid none" -- $M sta show dev w0 addr $A2
refused 2 "sta add: station $A1 already exists on w0" -- $M sta add dev w0 addr $A1
refused 2 'sta add: station 01:00:5e:00:00:01: not a unicast address' -- $M sta add dev w0 addr 01:00:5e:00:00:01
refused 1 'sta add: "02:00:00:00:01" is not a MAC address \(xx:xx:xx:xx:xx:xx\)' -- $M sta add dev w0 addr 02:00:00:00:01
refused 1 'sta add: "addr MAC" is required' -- $M sta add dev w0
refused 2 'sta add: device n0 is not a Wi-Fi device \(no WME\)' -- $M sta add dev n0 addr $A1
refused 2 "sta del: unknown station $A9 on w0" -- $M sta del dev w0 addr $A9
refused 2 "sta show: unknown station $A9 on w0" -- $M sta show dev w0 addr $A9
refused 2 'sta set: reserved tid 9 outside 0-7' -- $M sta set dev w0 addr $A1 reserved-tid 9
refused 1 'Cannot find device "w9"' -- $M sta add dev w9 addr $A1

# ---- block-ack sessions ----
expect 0 "" -- $M ba start dev w0 sta $A1 tid 0
ba_wait w0 operational
expect 0 "ba dev w0 sta $A1 tid 0 operational queue 4" -- $M ba show
expect 0 "sta $A1 dev w0 qos on reserved-tid none
    tid 0 ba operational queue 4" -- $M sta show dev w0 addr $A1
refused 2 'ba start: tid 16 outside 0-15' -- $M ba start dev w0 sta $A1 tid 16
refused 2 "ba start: station $A2 is not QoS-capable: no block-ack session" -- $M ba start dev w0 sta $A2 tid 0
refused 2 "ba start: a block-ack session for $A1 tid 0 is already operational" -- $M ba start dev w0 sta $A1 tid 0
refused 2 "ba start: unknown station $A9 on w0" -- $M ba start dev w0 sta $A9 tid 1
refused 2 "ba stop: no block-ack session for $A1 tid 3" -- $M ba stop dev w0 sta $A1 tid 3
refused 1 'ba start: invalid tid "x"' -- $M ba start dev w0 sta $A1 tid x
refused 2 'ba start: device n0 is not a Wi-Fi device \(no WME\)' -- $M ba start dev n0 sta $A1 tid 0

# ---- wme classify: no device (in-process too), then the device's stations and sessions ----
while read -r q want; do
	expect 0 "$want" -- $M wme classify $(printf %s "$q" | tr : ' ')
done <<'EOF'
dscp:46 up 6 ac VO queue 0
dscp:34 up 4 ac VI queue 1
dscp:0 up 0 ac BE queue 2
dscp:8 up 1 ac BK queue 3
dscp:10 up 0 ac BE queue 2
dscp:48 up 7 ac VO queue 0
priority:261 up 5 ac VI queue 1
vlan-pcp:7 up 7 ac VO queue 0
dscp:46:ipv6 up 6 ac VO queue 0
eapol up 7 ac VO queue 0
mgmt up 7 ac VO queue 0
multicast:dscp:46 up 0 ac BE queue 2
nonqos:dscp:46 up 0 ac BE queue 2
EOF
# (the words are joined by ':' above so that read keeps them in one field)
for q in "dscp 46" "dscp 8"; do
	want=$($M wme classify $q)
	got=$(printf 'wme classify %s\n' "$q" | "$MQTX" -batch -)
	[ "$got" = "$want" ] && ok "wme classify $q in-process (-batch): $got" ||
		fail "wme classify $q: -batch $got, mqtxd $want"
done
expect 0 "up 0 ac BE queue 4 ampdu" -- $M wme classify dev w0 sta $A1 dscp 0
expect 0 "up 5 ac VI queue 1" -- $M wme classify dev w0 sta $A1 dscp 46
expect 0 "up 0 ac BE queue 2" -- $M wme classify dev w0 sta $A2 dscp 46
expect 1 'wme classify: dscp 64 outside 0-63' -- $M wme classify dscp 64
expect 1 'wme classify: sta needs a device' -- $M wme classify sta $A1
expect 1 'wme classify: eapol, mgmt, multicast, nonqos and sta exclude each other' -- $M wme classify eapol mgmt
expect 1 'wme classify: what is "tos"\? Try "mqtx wme help".' -- $M wme classify tos 4
expect 2 'wme classify: device n0 is not a Wi-Fi device \(no WME\)' -- $M wme classify dev n0 dscp 1
expect 2 "wme classify: unknown station $A9 on w0" -- $M wme classify dev w0 sta $A9

# ---- ACM: downgrade, drop, send on BK anyway, a TSPEC ----
expect 0 "up 5 ac VI queue 1" -- $M wme classify dev w0 dscp 46
expect 0 "" -- $M dev set w0 acm none
expect 0 "up 6 ac VO queue 0" -- $M wme classify dev w0 dscp 46
expect 0 "" -- $M dev set w0 acm vo,vi
expect 0 "up 3 ac BE queue 2" -- $M wme classify dev w0 dscp 46
expect 0 '\{"drop":false,"up":3,"ac":"BE","queue":2,"ampdu":false,"downgraded":true\}' -- $M -j wme classify dev w0 dscp 46
expect 0 "" -- $M dev set w0 acm vo,vi,be,bk
expect 0 "drop no-admissible-ac" -- $M wme classify dev w0 dscp 46
expect 0 "" -- $M dev set w0 noadmit bk
expect 0 "up 2 ac BK queue 3" -- $M wme classify dev w0 dscp 46
expect 0 "" -- $M dev set w0 acm vo noadmit drop tspec vo up 6
expect 0 "up 6 ac VO queue 0" -- $M wme classify dev w0 dscp 46
expect 0 "up 5 ac VI queue 1" -- $M wme classify dev w0 dscp 56
$M dev show w0 | grep -qx "    wme: aggqueues 4 in-use 1 stations 2 acm vo noadmit drop legacy off qosmap none tspec vo up 6 medium-time 31250 role default" &&
	ok "dev show: ACM, policy and TSPEC" || fail "dev show: $($M dev show w0)"
refused 1 'dev set: unknown access category "xx" in "vo,xx" \(vo, vi, be, bk\)' -- $M dev set w0 acm vo,xx
refused 1 'dev set: tspec: UP 4 is not of AC VO' -- $M dev set w0 tspec vo up 4
refused 1 'dev set: invalid noadmit "maybe" \(drop or bk\)' -- $M dev set w0 acm none noadmit maybe
refused 1 'dev set: give acm, qosmap, noadmit, legacy, tspec and ba in a command of their own' -- $M dev set w0 acm none down
refused 2 'dev set: w0: a sim-wifi device keeps all its 8 queues in use' -- $M dev set w0 txqueues 4
refused 2 'dev set: device n0 is not a Wi-Fi device \(no WME\)' -- $M dev set n0 acm vo
refused 2 'dev set: device n0 is not a Wi-Fi device \(no WME\)' -- $M dev set n0 ba refuse
expect 0 "" -- $M dev set w0 tspec vo off acm none legacy on
expect 0 "up 0 ac BE queue 2" -- $M wme classify dev w0 dscp 46
expect 0 "up 6 ac VO queue 0" -- $M wme classify dev w0 dscp 48
expect 0 "" -- $M dev set w0 legacy off
expect 0 "" -- $M sta set dev w0 addr $A1 reserved-tid 6
expect 0 "up 7 ac VO queue 0" -- $M wme classify dev w0 sta $A1 dscp 46
expect 0 "" -- $M sta set dev w0 addr $A1 reserved-tid none

# ---- the QoS Map ----
QM=53,2,22,6,8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,63
expect 0 "" -- $M dev set w0 qosmap $QM
$M dev show w0 | grep -q " qosmap $QM tspec none role default$" && ok "dev show: the QoS map" || fail "qosmap: $($M dev show w0)"
expect 0 "up 2 ac BK queue 3" -- $M wme classify dev w0 dscp 53
expect 0 "up 0 ac BE queue 2" -- $M wme classify dev w0 dscp 10
expect 0 "up 1 ac BK queue 3" -- $M wme classify dev w0 dscp 5
expect 0 "up 6 ac VO queue 0" -- $M wme classify dev w0 dscp 46
refused 1 'dev set: QoS map: ranges of UP 0 \(0,7\) and UP 1 \(5,15\) overlap' -- $M dev set w0 qosmap 0,7,5,15,255,255,255,255,255,255,255,255,255,255,255,255
refused 1 'dev set: QoS map: range of UP 0 \(7,0\) is out of order: low above high' -- $M dev set w0 qosmap 7,0,255,255,255,255,255,255,255,255,255,255,255,255,255,255
refused 1 'dev set: QoS map "1,2,3": 3 numbers; want DSCP,UP pairs then 8 low,high ranges \(16 numbers\)' -- $M dev set w0 qosmap 1,2,3
expect 0 "" -- $M dev set w0 qosmap none
expect 0 "up 6 ac VO queue 0" -- $M wme classify dev w0 dscp 53

# ---- the session ends; a refusing peer ----
expect 0 "" -- $M ba stop dev w0 sta $A1 tid 0
expect 0 "" -- $M ba show
expect 0 "up 0 ac BE queue 2" -- $M wme classify dev w0 sta $A1 dscp 0
expect 0 "" -- $M dev set w0 ba refuse ba-delay 200us
$M dev show w0 | grep -q " ba refuse ba-delay 200us$" && ok "dev set ba: the peer refuses" || fail "ba: $($M dev show w0)"
expect 0 "" -- $M ba start dev w0 sta $A1 tid 5
i=0
while [ $i -lt 400 ] && $M ba show | grep -q .; do sleep 0.05; i=$((i + 1)); done
expect 0 "" -- $M ba show
$M -s dev show w0 | grep -qx "    wme: mgmt 0 nonqos 0 eapol 0 ba_requested 2 ba_accepted 1 ba_refused 1 ba_timeouts 0 ba_stopped 1 ba_pool_full 0 moved_to_agg 0 moved_to_ac 0 ba_busy 0" &&
	ok "dev show -s: the sessions counted" || fail "session counters: $($M -s dev show w0)"
expect 0 "ba dev w0 sta $A1 tid 5 idle addba-requests 1" -- $M -s ba show dev w0
refused 2 'ba start: tid 8 is a TSPEC TID \(8-15\): no block-ack session' -- $M ba start dev w0 sta $A1 tid 8
expect 0 "" -- $M sta set dev w0 addr $A1 reserved-tid 3
refused 2 "ba start: tid 3 is the reserved TID of $A1: no block-ack session" -- $M ba start dev w0 sta $A1 tid 3
refused 2 "sta set: station $A1 already has reserved TID 3 \(set none first\)" -- $M sta set dev w0 addr $A1 reserved-tid 4
expect 0 "" -- $M sta set dev w0 addr $A1 reserved-tid none

# ---- roles ----
expect 0 "up 0 ac BE queue 2" -- $M wme classify dev w0 multicast dscp 46
refused 2 'dev set: role sta needs the AP.s unicast address \(bssid\)' -- $M dev set w0 role sta
refused 1 'dev set: invalid role "client" \(default, sta or ap\)' -- $M dev set w0 role client
expect 0 "" -- $M dev set w0 role sta bssid $A1
$M dev show w0 | grep -q " role sta bssid $A1$" && ok "dev show: role sta and its AP" || fail "role: $($M dev show w0)"
expect 0 "up 6 ac VO queue 0" -- $M wme classify dev w0 multicast dscp 46
expect 0 "" -- $M dev set w0 role ap
expect 0 "up 0 ac BE queue 2" -- $M wme classify dev w0 multicast dscp 46
expect 0 "" -- $M dev set w0 role default
expect 0 "" -- $M dev add w5 type sim-wifi role ap edca vi cwmax 31
$M -d dev show w5 | grep -qx "    edca VO aifsn 1 cwmin 3 cwmax 7 txop 1.5ms" &&
	$M -d dev show w5 | grep -qx "    edca VI aifsn 1 cwmin 7 cwmax 31 txop 3ms" &&
	ok "role ap: the AP's EDCA defaults" || fail "w5: $($M -d dev show w5)"
refused 2 'dev add: w6: role sta needs the AP.s unicast address \(bssid\)' -- $M dev add w6 type sim-wifi role sta
expect 0 "" -- $M dev del w5

# ---- traffic to a station, counted per AC (exact: every frame is delivered) ----
expect 0 "" -- $M dev add w3 type sim-wifi up
expect 0 "" -- $M sta add dev w3 addr $A1
$M gen dev w3 count 20 dscp 46 sta $A1 >/dev/null 2>&1
$M gen dev w3 count 30 dscp 34 sta $A1 >/dev/null 2>&1
$M gen dev w3 count 7 dscp 8 sta $A1 >/dev/null 2>&1
$M gen dev w3 count 5 dscp 46 >/dev/null 2>&1
drain w3
out=$($M -s dev show w3)
for want in "VO: frames 20 bytes 1200 " "VI: frames 30 bytes 1800 " "BE: frames 5 bytes 300 " "BK: frames 7 bytes 420 "; do
	printf '%s\n' "$out" | grep -q "^    ac $want" && ok "gen to $A1: ac $want" || fail "ac $want: $out"
done
printf '%s\n' "$out" | grep -Eq '^    ac VO: .* queued 0 selected 20 downgraded 0 noadmit 0 ampdu 0 expired 0 expired_requeued 0$' &&
	ok "WME selected VO 20" || fail "selected: $out"
printf '%s\n' "$out" | grep -q '^    wme: mgmt 0 nonqos 5 ' && ok "a frame to no station: BE, nonqos" ||
	fail "nonqos: $out"
printf '%s\n' "$out" | grep -q '^    TX: packets 62 bytes 3720 dropped 0 ' && ok "TX: all 62 sent" || fail "TX: $out"
# the drop: no AC admits VO's frames, and the policy is the 2008 one (current Linux: BK)
expect 0 "" -- $M dev set w3 acm vo,vi,be,bk noadmit drop
$M gen dev w3 count 4 dscp 46 sta $A1 >/dev/null 2>&1
drain w3
out=$($M -s dev show w3)
printf '%s\n' "$out" | grep -Eq '^    ac VO: frames 20 .* noadmit 4 ampdu 0 expired 0 expired_requeued 0$' && ok "ACM: 4 frames dropped at VO" ||
	fail "noadmit: $out"
printf '%s\n' "$out" | grep -q '^    TX: packets 62 bytes 3720 dropped 4 (noadmit 4) ' && ok "TX: 4 drops, noadmit" ||
	fail "TX drops: $out"
refused 2 "gen: unknown station $A9 on w3" -- $M gen dev w3 count 1 sta $A9
refused 2 'gen: device n0 is not a Wi-Fi device \(no WME\)' -- $M gen dev n0 count 1 sta $A1
refused 1 'gen: give sta or dmac, not both' -- $M gen dev w3 count 1 sta $A1 dmac $A2

# paced traffic on the real clock: every delay is a true one (a frame never leaves before it
# came), so the largest is far below 1000 s whatever the machine's speed
expect 0 "" -- $M dev add w4 type sim-wifi aggqueues 0 up
expect 0 "" -- $M sta add dev w4 addr $A1
$M gen dev w4 dscp 46 sta $A1 rate 2000pps count 200 detach >/dev/null 2>&1
$M gen dev w4 dscp 8 sta $A1 rate 1000pps count 100 >/dev/null 2>&1
i=0
while [ $i -lt 400 ] && $M gen show | grep -q running; do sleep 0.05; i=$((i + 1)); done
drain w4
$M -s -j dev show w4 | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
assert [a["frames"] for a in d["ac"]] == [200, 0, 0, 100], d["ac"]
assert all(a["lat_max_ns"] < 10**12 and a["lat_sum_ns"] < 10**15 for a in d["ac"]), d["ac"]
' && ok "paced frames: counted, with true delays" || fail "w4: $($M -s dev show w4)"
expect 0 "" -- $M dev del w4

# ---- JSON ----
$M -s -j dev show w3 >"$T/w3.json"
python3 - "$T/w3.json" <<'EOF' && ok "dev show -s -j: per-AC counters" || fail "JSON: $(cat "$T/w3.json")"
import json, sys
d = json.load(open(sys.argv[1]))[0]
assert [a["ac"] for a in d["ac"]] == ["VO", "VI", "BE", "BK"], d["ac"]
assert [a["frames"] for a in d["ac"]] == [20, 30, 5, 7], d["ac"]
assert [a["noadmit"] for a in d["ac"]] == [4, 0, 0, 0], d["ac"]
assert d["wme_stats"]["nonqos"] == 5 and d["wme"]["acm"] == ["VO", "VI", "BE", "BK"], d
assert d["sim_wifi"]["rate"] == 54000000 and d["sim_wifi"]["edca"][2]["cwmax"] == 1023, d
EOF
expect 0 "" -- $M ba start dev w0 sta $A1 tid 2
$M -j sta show dev w0 >"$T/sta.json"
python3 - "$T/sta.json" <<'EOF' && ok "sta show -j: stations and their TIDs" || fail "JSON: $(cat "$T/sta.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert [x["addr"] for x in s] == ["02:00:00:00:00:01", "02:00:00:00:00:02"], s
assert s[0]["qos"] is True and s[1]["qos"] is False and s[0]["reserved_tid"] is None, s
assert len(s[0]["tids"]) == 16 and s[0]["tids"][2]["ba"] in ("starting", "idle"), s[0]["tids"]
assert s[0]["tids"][0] == {"tid": 0, "ba": "idle", "queue": None}, s[0]["tids"][0]
EOF
$M -j dev stats w3 | python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; assert [a["frames"] for a in d["ac"]] == [20, 30, 5, 7]' &&
	ok "dev stats -j: the per-AC counters top reads" || fail "dev stats -j: $($M -j dev stats w3)"

# ---- top: a line per access category of a Wi-Fi device ----
"$MQTX" -S "$S" top dev w3 interval 0.2 count 2 >"$T/top" 2>&1
c=$(grep -Ec '^dev w3 ac (VO|VI|BE|BK) fps [0-9]+ mbit [0-9.]+ air [0-9.]+ queued 0 lat_avg_us [0-9]+ lat_max_us [0-9]+ noadmit [04] downgraded 0$' "$T/top")
[ "$c" -eq 8 ] && ok "top: 2 x 4 AC lines" || fail "top: $c AC lines: $(cat "$T/top")"
grep -c '^dev w3 q [0-7] ' "$T/top" | grep -qx 16 && ok "top: 2 x 8 queue lines" || fail "top queues: $(cat "$T/top")"

# ---- help ----
for o in sta ba wme; do
	$MQTX $o help | head -1 | grep -q "^Usage: mqtx .*$o " && ok "$o help" || fail "$o help: $($MQTX $o help)"
done
$MQTX help | grep -q "^where  OBJECT := { dev | qdisc | class | filter | chain | actions | sta | ba | wme |" && ok "mqtx help lists them" ||
	fail "help: $($MQTX help)"
$M dev help | grep -q "sim-wifi \[ rate RATE \]" && ok "dev help: sim-wifi" || fail "dev help"

expect 0 "" -- $M dev del w0
expect 0 "" -- $M dev del w3
expect 0 "" -- $M dev del n0
t_end

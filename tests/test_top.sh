#!/bin/sh
# SPDX-License-Identifier: MIT
# mqtx top: under tmux the view refreshes in place (one header, a line and a bar per queue),
# fits an 80x24 terminal (no row wider, the rest counted in a "+N more" line) and quits on q;
# on a pipe it prints periodic lines, the first sample's rates measured; with -j, JSON Lines.
# Needs $MQTX, $MQTXD; tmux (skips without it).
set -u
SLOW=${MQTX_TEST_SLOW:-1} # the bound of every wait, stretched as tests/lib.sh says
: "${MQTX:?}" "${MQTXD:?}"
T=$(mktemp -d /tmp/mqtx-top-test.XXXXXX)
S=$T/mqtx.sock
TM="tmux -S $T/tmux.sock" # its socket goes with $T
fails=0
cleanup() {
	$TM kill-server 2>/dev/null
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "not ok: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

"$MQTXD" -S "$S" >"$T/daemon.out" 2>"$T/daemon.err" &
DPID=$!
for _ in $(seq $((100 * SLOW))); do [ -S "$S" ] && break; sleep 0.05; done
"$MQTX" -S "$S" dev add eth0 type null txqueues 4 up
"$MQTX" -S "$S" gen dev eth0 flows 64 rate 4000pps detach >/dev/null

# Not a terminal: periodic lines, one per queue per refresh.
"$MQTX" -S "$S" top dev eth0 interval 0.2 count 3 >"$T/lines" 2>&1
n=$(grep -c '^dev eth0 q [0-3] state run pps [0-9]* mbit' "$T/lines")
[ "$n" -eq 12 ] && ok "pipe: 3 x 4 queue lines" || fail "pipe: $n lines: $(cat "$T/lines")"
grep -q 'pps [1-9]' "$T/lines" && ok "pipe: rates measured" || fail "pipe: no traffic seen"
"$MQTX" -S "$S" top dev eth0 count 1 >"$T/one" 2>&1
grep -q 'pps [1-9]' "$T/one" && ok "count 1: the first sample has rates" || fail "count 1: $(cat "$T/one")"
"$MQTX" -S "$S" -j top dev eth0 interval 0.2 count 2 >"$T/jl" 2>&1
python3 - "$T/jl" <<'PY' && ok "-j top: one JSON object a sample" || fail "-j top: $(cat "$T/jl")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for l in lines:
    d = json.loads(l)
    q = d['devices'][0]['queues']
    assert d['devices'][0]['name'] == 'eth0' and len(q) == 4, d
assert any(q['pps'] > 0 for q in json.loads(lines[0])['devices'][0]['queues'])
PY

if ! command -v tmux >/dev/null 2>&1; then
	echo "skip: tmux is not installed (scripts/bootstrap --check-extra)"
	echo "$fails failed"
	[ "$fails" -eq 0 ] || exit 1
	exit 77
fi
# capture FILE ERE: the screen once it shows a whole view, which ERE matches: a capture can
# fall before the first draw or in the middle of a redraw, more often the slower the build (a
# sanitizer's) and the busier the machine. Gives up after 20 s; the assertions then say why.
capture() {
	for _ in $(seq $((200 * SLOW))); do
		$TM capture-pane -p >"$1" 2>/dev/null && [ "$(grep -cE "$2" "$1")" -eq "${3:-1}" ] && return
		sleep 0.1
	done
}
$TM new-session -d -x 120 -y 30 "$MQTX -S $S top interval 0.2; sleep 5"
capture "$T/screen1" '^ +[0-3] run ' 4
# The next whole view that differs from the first (a refresh), or the last one seen.
for _ in $(seq 100); do
	capture "$T/screen2" '^ +[0-3] run ' 4
	cmp -s "$T/screen1" "$T/screen2" || break
	sleep 0.1
done
for f in screen1 screen2; do
	h=$(grep -c '^mqtx top - ' "$T/$f")
	[ "$h" -eq 1 ] && ok "$f: one header (refreshed in place)" || fail "$f: $h headers: $(cat "$T/$f")"
	q=$(grep -cE '^ +[0-3] run +[0-9]+ +[0-9.]+ .*\|[# ]{20}\|$' "$T/$f")
	[ "$q" -eq 4 ] && ok "$f: a row and a bar per queue" || fail "$f: $q queue rows: $(cat "$T/$f")"
	grep -q '^eth0: UP kind null txqueues 4' "$T/$f" && ok "$f: device line" || fail "$f: no device line"
done
grep -q '#' "$T/screen2" && ok "bars drawn for busy queues" || fail "no bar: $(cat "$T/screen2")"
cmp -s "$T/screen1" "$T/screen2" && fail "the screen did not change between refreshes" ||
	ok "the view refreshes"
$TM kill-server 2>/dev/null
# A server of its own: a new session on a server that is still exiting can fail.
TM="tmux -S $T/tmux-small.sock"

# 80x24 with 40 queues: every row fits (a wrapped row would show as a line of its own), the
# header stays on top, the queues that do not fit are counted; q quits.
"$MQTX" -S "$S" dev add wide0 type null txqueues 40 up
$TM new-session -d -x 80 -y 24 "$MQTX -S $S top interval 0.2; echo TOP-ENDED; sleep 5" ||
	fail "tmux: no session"
capture "$T/small" '^\+[0-9]+ more'
awk 'length > 80 { bad = 1 } END { exit bad }' "$T/small" && ok "80x24: no line wider than 80" ||
	fail "80x24: a wide line: $(cat "$T/small")"
head -1 "$T/small" | grep -q '^mqtx top - ' && ok "80x24: the header on the first line" ||
	fail "80x24: header scrolled away: $(cat "$T/small")"
grep -qE '^\+[0-9]+ more' "$T/small" && ok "80x24: a +N more line" || fail "80x24: no +N more: $(cat "$T/small")"
r=$(grep -cE '^ +[0-9]+ run ' "$T/small")
[ "$r" -ge 10 ] && ok "80x24: $r queue rows" || fail "80x24: $r rows: $(cat "$T/small")"
$TM send-keys q
for _ in $(seq $((200 * SLOW))); do
	$TM capture-pane -p | grep -q TOP-ENDED && break
	sleep 0.1
done
$TM capture-pane -p | grep -q TOP-ENDED && ok "q quits" || fail "q did not quit: $($TM capture-pane -p)"
echo "$fails failed"
[ "$fails" -eq 0 ]

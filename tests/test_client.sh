#!/bin/sh
# SPDX-License-Identifier: MIT
# mqtx waiting for mqtxd: a reply larger than any one frame arrives whole, ^C and SIGTERM end
# the wait (status 128 + N, a message), -timeout bounds it, a malformed reply is refused.
# Needs $MQTX and $MQTXD. Times below are failure bounds only.
set -u
. "$(dirname "$0")/lib.sh"
t_begin client
FPID=
cleanup_more() { [ -n "$FPID" ] && kill "$FPID" 2>/dev/null; }

# fake MODE: a server on $T/fake.sock that reads one request, writes $T/fake.got, then
# answers as MODE says (or never).
fake() {
	rm -f "$T/fake.sock" "$T/fake.got"
	python3 - "$T/fake.sock" "$T/fake.got" "$1" <<'PY' &
import os, socket, struct, sys, time
path, got, mode = sys.argv[1:4]
l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
# The path appears only once the socket listens: a client that sees it may connect.
l.bind(path + '.new')
l.listen(4)
os.rename(path + '.new', path)
c, _ = l.accept()
n = struct.unpack('!I', c.recv(4, socket.MSG_WAITALL))[0]
c.recv(n, socket.MSG_WAITALL)
open(got, 'w').close()
def frame(t, data):
    return struct.pack('!II', 4 + len(data), t) + data
bad = {
    'code-300': frame(3, struct.pack('!I', 300)),
    'empty-chunk': frame(1, b''),
    'unknown-type': frame(9, b'x'),
    'long-end': frame(3, struct.pack('!II', 0, 0)),
    'huge-chunk': struct.pack('!II', 4 + (256 << 10) + 1, 1),
}
if mode in bad:
    c.sendall(bad[mode])
time.sleep(120)
PY
	FPID=$!
	for _ in $(seq $((600 * SLOW))); do [ -S "$T/fake.sock" ] && return 0; sleep 0.05; done
	fail "the fake server did not start"
}
fake_done() { { kill "$FPID"; wait "$FPID"; } 2>/dev/null; FPID=; }

# watch PID SECS: kill -9 PID if it is still there after SECS (a failure bound); unwatch
# kills the watcher, which then never kills anything.
watch() { (sleep "$2"; kill -9 "$1" 2>/dev/null) >/dev/null 2>&1 & WPID=$!; }
unwatch() { { kill "$WPID"; wait "$WPID"; } 2>/dev/null; }

# ---- a reply of any size: 160 devices x 4096 queues, "dev show -s" is over 64 MiB ----
for i in $(seq 160); do echo "dev add big$i type null txqueues 4096 up"; done >"$T/big.conf"
# The daemon's and the client's bounds on the reply stretch as every wait does: a sanitized
# daemon on a busy machine takes minutes to build it, and a sanitized client to take it.
start -c "$T/big.conf" -L reply=$((60 * SLOW)) || exit 1
"$MQTX" -timeout $((60 * SLOW)) -S "$S" -s dev show >"$T/big.out" 2>"$T/big.err"; rc=$?
size=$(wc -c <"$T/big.out")
[ $rc -eq 0 ] && [ "$size" -gt $((64 << 20)) ] && ok "a reply of $size bytes arrives" ||
	fail "big reply: exit $rc, $size bytes: $(head -c 300 "$T/big.err")"
{ cat "$T/big.conf"; echo "-s dev show"; } >"$T/big.batch"
"$MQTX" -batch "$T/big.batch" >"$T/big.local" 2>&1
cmp -s "$T/big.out" "$T/big.local" && ok "it is the whole output, in order (as -batch prints it)" ||
	fail "the reply differs from the in-process output"
n=$(grep -c '^    txq 4095: ' "$T/big.out")
[ "$n" -eq 160 ] && ok "the last queue of every device is there" || fail "$n last queues"
rm -f "$T/big.out" "$T/big.local"
stop

# ---- ^C and SIGTERM end the wait for a reply that never comes ----
for sig in INT:2 TERM:15; do
	num=${sig#*:} sig=${sig%:*}
	fake silent
	"$MQTX" -S "$T/fake.sock" dev show >"$T/out" 2>"$T/err" &
	cpid=$!
	watch $cpid $((30 * SLOW))
	for _ in $(seq $((600 * SLOW))); do [ -e "$T/fake.got" ] && break; sleep 0.05; done
	kill -$sig $cpid
	{ wait $cpid; } 2>/dev/null; rc=$?
	unwatch
	want=$((128 + num))
	[ $rc -eq $want ] && grep -q "interrupted (SIG$sig) while waiting for mqtxd's reply" "$T/err" &&
		ok "SIG$sig ends the wait: status $rc and a message" ||
		fail "SIG$sig: status $rc (want $want): $(cat "$T/err")"
	fake_done
done

# ---- -timeout bounds the wait ----
fake silent
timeout $((30 * SLOW)) "$MQTX" -timeout 1 -S "$T/fake.sock" dev show >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no reply from mqtxd within 1 s" "$T/err" &&
	ok "-timeout 1: exit 2 with a message" || fail "-timeout: exit $rc: $(cat "$T/err")"
fake_done
"$MQTX" -timeout soon -S "$T/fake.sock" dev show >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'invalid timeout "soon"' "$T/err" && ok "-timeout: a bad value is refused" ||
	fail "-timeout soon: exit $rc: $(cat "$T/err")"

# ---- a malformed reply is refused, not believed ----
for m in code-300 empty-chunk unknown-type long-end huge-chunk; do
	fake $m
	timeout $((30 * SLOW)) "$MQTX" -S "$T/fake.sock" dev show >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "Protocol error" "$T/err" && ok "reply $m: refused" ||
		fail "reply $m: exit $rc: $(cat "$T/err")"
	fake_done
done

# ---- ^C while a generator runs stops it and prints its final counters ----
start || exit 1
"$MQTX" -S "$S" dev add eth0 type null up
"$MQTX" -S "$S" gen dev eth0 rate 1000pps >"$T/gen.out" 2>"$T/gen.err" &
cpid=$!
watch $cpid $((30 * SLOW))
for _ in $(seq $((600 * SLOW))); do grep -q started "$T/gen.out" && break; sleep 0.05; done
kill -INT $cpid
{ wait $cpid; } 2>/dev/null; rc=$?
unwatch
[ $rc -eq 0 ] && grep -q "^gen 1 dev eth0 done sent [0-9]" "$T/gen.out" &&
	ok "^C stops a generator: exit 0, final counters" ||
	fail "^C on gen: exit $rc: $(cat "$T/gen.out" "$T/gen.err")"
"$MQTX" -S "$S" gen show >"$T/out" 2>&1
[ -s "$T/out" ] && fail "the generator is still listed: $(cat "$T/out")" || ok "and it is gone"
stop

# ---- what needs no daemon: help, and a hash asked about no device ----
N=$T/no-daemon.sock
"$MQTX" -S "$N" hash --algo toeplitz --src 66.9.149.187:2794 --dst 161.142.100.80:1766 \
	txqueues 4 >"$T/out" 2>&1; rc=$?
# The first IPv4 TCP case of Microsoft's RSS verification suite: 0x51ccc178.
[ $rc -eq 0 ] && [ "$(cat "$T/out")" = "hash 0x51ccc178 queue 1 txqueues 4" ] &&
	ok "hash with an algorithm and no device: no daemon needed" ||
	fail "hash without a daemon: exit $rc: $(cat "$T/out")"
"$MQTX" -S "$N" -j hash --src 10.0.0.1:1 --dst 10.0.0.2:2 >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^{"hash":[0-9]*}$' "$T/out" && ok "-j hash without a daemon: JSON" ||
	fail "-j hash without a daemon: exit $rc: $(cat "$T/out")"
"$MQTX" -S "$N" hash --src 10.0.0.1:1 --dst 10.0.0.2:2 dev eth0 >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "cannot reach mqtxd" "$T/out" && ok "hash about a device asks the daemon" ||
	fail "hash dev without a daemon: exit $rc: $(cat "$T/out")"
for h in --help -h help; do
	"$MQTX" -S "$N" hash $h >"$T/out" 2>&1; rc=$?
	[ $rc -eq 0 ] && grep -q "^Usage: mqtx hash " "$T/out" && ok "mqtx hash $h: usage, exit 0" ||
		fail "mqtx hash $h: exit $rc: $(cat "$T/out")"
done
"$MQTX" -S "$N" class help >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^Usage: mqtx class \\[ add | del | change | replace | show \\] dev STRING" "$T/out" &&
	ok "mqtx class help: usage, exit 0" || fail "class help: exit $rc: $(cat "$T/out")"
# Every kind's help: its usage on stderr and exit 1, as tc's q_KIND.c explain() and fail
# (in tc's words where mqtx takes tc's options: "<[p|b]fifo | pfifo_head_drop>"); 255 for
# pfifo_fast, whose options tc refuses with exit -1.
for k in pfifo bfifo pfifo_head_drop pfifo_fast noqueue mq prio tbf codel fq_codel ingress \
	mqprio wme; do
	where=root
	[ $k = ingress ] && where= # "ingress" is its parent and its kind
	want=1
	[ $k = pfifo_fast ] && want=255
	pat="$k[ 	]"
	case $k in *fifo | pfifo_head_drop) pat="<\[p|b\]fifo | pfifo_head_drop>" ;; esac
	"$MQTX" -S "$N" qdisc add dev x $where $k help >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq $want ] && [ ! -s "$T/out" ] &&
		head -n 1 "$T/err" | grep -q "^Usage: \.\.\. $pat" ||
		fail "qdisc add ... $k help: exit $rc: $(cat "$T/out" "$T/err")"
done
ok "qdisc add ... KIND help: every kind's usage, exit 1 as tc"
# A classifier's help on a device: tc finds the device first, so the daemon that has it
# answers with the kind's usage (exit 1); without one there is no device to find.
"$MQTX" -S "$N" filter add dev eth0 ingress flower help >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "cannot reach mqtxd" "$T/out" &&
	ok "filter add dev D ... KIND help asks the daemon" ||
	fail "filter help without a daemon: exit $rc: $(cat "$T/out")"
printf 'dev add eth0 type null txqueues 4 up\nqdisc add dev eth0 ingress\n' >"$T/help.conf"
start -c "$T/help.conf" || exit 1
for k in flower matchall u32; do
	"$MQTX" -S "$S" filter add dev eth0 ingress $k help >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] && [ ! -s "$T/out" ] && head -n 1 "$T/err" | grep -q "^Usage: \.\.\. $k" &&
		ok "filter add dev eth0 ingress $k help: its usage, exit 1 as tc" ||
		fail "filter ... $k help: exit $rc: $(cat "$T/out" "$T/err")"
done
"$MQTX" -S "$S" filter add dev eth9 ingress flower help >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && [ "$(cat "$T/out")" = 'Cannot find device "eth9"' ] &&
	ok "and on a device that does not exist: tc's message" ||
	fail "filter help on no device: exit $rc: $(cat "$T/out")"
stop

t_end

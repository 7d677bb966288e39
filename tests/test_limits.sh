#!/bin/sh
# SPDX-License-Identifier: MIT
# mqtxd's limits: idle clients, half-sent headers and dribbled requests are dropped and their
# slots come back; a client that does not take its reply is dropped; one user's connections,
# running jobs, packet pools and memory are capped with a message naming the limit.
# Needs $MQTX and $MQTXD. Times below are failure bounds only.
set -u
. "$(dirname "$0")/lib.sh"
t_begin limits
U=$(id -u)
m() { timeout $((60 * SLOW)) "$MQTX" -S "$S" "$@"; }
# until SECS CMD...: run CMD until it succeeds, for at most SECS (a failure bound)
until_ok() {
	secs=$1; shift
	for _ in $(seq $((secs * 10 * SLOW))); do "$@" >"$T/until.out" 2>&1 && return 0; sleep 0.1; done
	return 1
}

# client MODE ARGS: a raw client; prints what became of it. (The script is a file, so that the
# client's standard input is free for "hold".)
cat >"$T/client.py" <<'PY'
import socket, struct, sys, time
path, mode = sys.argv[1], sys.argv[2]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s
def closed_within(s, secs):
    """True once the daemon closes s (EOF or reset), False if still open after secs."""
    s.settimeout(secs)
    try:
        return s.recv(65536) == b''
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True
def dribble(s, data, gap, bound):
    """Send data a byte at a time, gap seconds apart; how many bytes went before a failure."""
    for i, b in enumerate(data):
        try:
            s.send(bytes([b]))
        except OSError:
            return i
        time.sleep(gap)
        if i * gap > bound:
            break
    return len(data)
if mode == 'idle':
    print('closed' if closed_within(conn(), 30) else 'open')
elif mode == 'header':  # half a header, then nothing
    s = conn()
    s.send(b'\0\0')
    print('closed' if closed_within(s, 30) else 'open')
elif mode == 'dribble':  # a whole request, a byte every 0.2 s: 200 bytes would take 40 s
    s = conn()
    req = struct.pack('!I', 200) + b'x' * 200
    sent = dribble(s, req, 0.2, 30)
    print('cut after %d bytes' % sent if sent < len(req) else 'all sent')
elif mode == 'hold':  # N idle connections, held until stdin closes
    n = int(sys.argv[3])
    held = [conn() for _ in range(n)]
    print('holding', flush=True)
    sys.stdin.read()
elif mode == 'no-read':  # a request for a big reply, which is never read; held 30 s
    s = conn()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    b = struct.pack('!II', 1, 2) + b'dev\0show\0'
    s.send(struct.pack('!I', len(b)) + b)
    print('sent', flush=True)
    time.sleep(30)
PY
client() { python3 "$T/client.py" "$S" "$@"; }

# ---- an idle client, a half-sent header and a dribbled request are dropped ----
start -L idle=1 -L request=1 -L clients=0 || exit 1
[ "$(client idle)" = closed ] && ok "an idle client is dropped" || fail "an idle client stays"
[ "$(client header)" = closed ] && ok "a half-sent header is dropped" ||
	fail "a half-sent header stays"
r=$(client dribble)
case "$r" in "cut after"*) ok "a dribbled request is dropped ($r)" ;; *) fail "dribble: $r" ;; esac
grep -q "uid $U (pid [0-9]*): its request did not arrive in time; connection closed" \
	"$T/daemon.err" && ok "the log says why" || fail "log: $(cat "$T/daemon.err")"
# A client idle longer than that between two commands (top) reconnects by itself.
timeout $((60 * SLOW)) "$MQTX" -S "$S" top interval 2.5 count 2 >"$T/top.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^(no devices)' "$T/top.out")" -eq 2 ] &&
	ok "mqtx reconnects after the daemon closed its idle connection" ||
	fail "top across an idle close: exit $rc: $(cat "$T/top.out")"
# All 64 slots held by idle clients come back: a client that waits gets served.
mkfifo "$T/hold"
client hold 64 <"$T/hold" >"$T/hold.out" &
hpid=$!
exec 3>"$T/hold"
for _ in $(seq $((600 * SLOW))); do grep -q holding "$T/hold.out" && break; sleep 0.05; done
until_ok 30 "$MQTX" -S "$S" dev show && ok "64 idle connections give their slots back" ||
	fail "still no slot: $(cat "$T/until.out")"
exec 3>&-
wait $hpid
stop

# ---- one user's connections ----
start -L clients=3 || exit 1
mkfifo "$T/hold3"
client hold 3 <"$T/hold3" >"$T/hold3.out" &
hpid=$!
exec 3>"$T/hold3"
for _ in $(seq $((600 * SLOW))); do grep -q holding "$T/hold3.out" && break; sleep 0.05; done
m dev show >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "uid $U has 3 connections open, its limit (mqtxd --limit clients)" \
	"$T/out" && ok "a 4th connection of one user is refused" ||
	fail "clients: $rc $(cat "$T/out")"
exec 3>&-
wait $hpid
until_ok 30 "$MQTX" -S "$S" dev show && ok "and served once one closed" || fail "not served"
stop

# ---- a client that does not take its reply is dropped and its slot comes back ----
for i in $(seq 8); do echo "dev add big$i type null txqueues 4096 up"; done >"$T/big.conf"
start -c "$T/big.conf" -L reply=1 -L clients=1 || exit 1
# The client itself in the background, not a subshell running it: killing a subshell would
# leave the client asleep for 30 s holding the test's standard error, which meson waits for.
python3 "$T/client.py" "$S" no-read >"$T/nr.out" &
npid=$!
for _ in $(seq $((600 * SLOW))); do grep -q sent "$T/nr.out" && break; sleep 0.05; done
until_ok 30 "$MQTX" -S "$S" dev show big1 && ok "a client not reading its reply is dropped" ||
	fail "the slot of a client not reading stays: $(cat "$T/until.out")"
grep -q "took too long to read its reply" "$T/daemon.err" && ok "the log says why" ||
	fail "log: $(cat "$T/daemon.err")"
kill $npid 2>/dev/null
wait $npid 2>/dev/null
stop

# ---- running jobs and packet pools of one user ----
start -L jobs=2 -L pools=2 || exit 1
for d in j1 j2 j3; do m dev add $d type null up; done
m gen dev j1 rate 100pps detach >/dev/null && m gen dev j1 rate 100pps detach >/dev/null &&
	ok "two generators" || fail "two generators"
m gen dev j2 rate 100pps detach >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "gen: uid $U has 2 generators and replays running, its limit" "$T/out" &&
	ok "a third is refused" || fail "jobs: exit $rc: $(cat "$T/out")"
m gen stop 1 >/dev/null
m gen dev j2 rate 100pps detach >/dev/null && ok "one stopped: another may start" ||
	fail "after a stop"
m gen stop all >/dev/null
m gen dev j3 count 1 >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "gen: uid $U holds 2 packet pools" "$T/out" &&
	ok "a third device's pool is refused" || fail "pools: exit $rc: $(cat "$T/out")"
m dev del j1
m gen dev j3 count 1 >/dev/null && ok "a deleted device gives its pool back" ||
	fail "pool not given back"
stop

# ---- memory: what one user's commands hold ----
start -L memory=48M || exit 1
n=0
while [ $n -lt 100 ] && m dev add mem$n type null txqueues 4096 up >"$T/out" 2>&1; do
	n=$((n + 1))
done
want="uid $U is at its memory limit (48 MiB, mqtxd --limit memory): the command was refused"
[ $n -gt 0 ] && [ $n -lt 100 ] && grep -q "$want" "$T/out" &&
	ok "memory: refused after $n devices of 4096 queues" ||
	fail "memory: $n devices: $(cat "$T/out")"
m dev show mem0 >/dev/null && ok "and the daemon serves" || fail "memory: daemon gone"
m dev del mem0 && m dev add again type null txqueues 4096 up && ok "memory given back" ||
	fail "memory not given back"
stop
# Output counts too: devices from the configuration are the daemon's, their listing the user's.
start -c "$T/big.conf" -L memory=2M || exit 1
for form in -s "-j -s"; do
	# shellcheck disable=SC2086 # $form is one or two options
	m $form dev show >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "its output did not fit and was withheld" "$T/err" &&
		[ ! -s "$T/out" ] &&
		ok "memory: $form dev show past the limit is an error and prints nothing" ||
		fail "memory output ($form): exit $rc, $(wc -c <"$T/out") bytes out:" \
			"$(cat "$T/err")"
done
m dev show big1 >/dev/null && ok "a small reply still fits" || fail "small reply refused"
stop

# ---- bad limits ----
"$MQTXD" -S "$S" -L memory=lots >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'invalid limit "memory=lots"' "$T/out" && ok "a bad limit is refused" ||
	fail "bad limit: exit $rc: $(cat "$T/out")"

t_end

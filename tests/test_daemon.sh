#!/bin/sh
# SPDX-License-Identifier: MIT
# mqtxd: socket permissions and SO_PEERCRED, malformed/oversized/partial requests, racing
# clients, replay files opened by the client, config file, --daemon, SIGHUP (ignored) and the
# SIGTERM shutdown. Needs $MQTX, $MQTXD and $MQTX_SRCDIR.
set -u
. "$(dirname "$0")/lib.sh"
t_begin daemon
GPID=
cleanup_more() { [ -n "$GPID" ] && kill "$GPID" 2>/dev/null; }

expect_rc() { # expect_rc CODE DESC -- CMD...: run CMD, compare its exit code
	want=$1; desc=$2; shift 3
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$desc"; else fail "$desc: exit $rc, want $want: $(cat "$T/err")"; fi
}
raw() { # a raw python client against the socket; prints the replies' exit codes or "closed"
	python3 - "$S" "$@" <<'PY'
import os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
mode = sys.argv[2]
def req(words, flags=0):
    body = struct.pack('!II', flags, len(words)) + b''.join(w.encode() + b'\0' for w in words)
    return struct.pack('!I', len(body)) + body
if mode == 'argc-lies':
    s.sendall(struct.pack('!III', 8, 0, 5))
elif mode == 'no-nul':
    s.sendall(struct.pack('!III', 11, 0, 1) + b'dev')
elif mode == 'trailing':
    body = struct.pack('!II', 0, 1) + b'dev\0junk'
    s.sendall(struct.pack('!I', len(body)) + body)
elif mode == 'oversized':
    s.sendall(struct.pack('!I', 1 << 20) + b'x' * 1024)
elif mode == 'huge-argc':
    s.sendall(struct.pack('!III', 8, 0, 0xffffffff))
elif mode == 'partial':
    r = req(['dev', 'add', 'half0', 'type', 'null'])
    s.sendall(r[:len(r) - 3])
    s.close()
    print('closed')
    sys.exit(0)
elif mode == 'short-header':
    s.sendall(b'\0\0')
    s.close()
    print('closed')
    sys.exit(0)
elif mode.endswith('-fd') or mode.endswith('-fds'):
    # A replay with descriptors sent by hand: FILE_FLAG says whether the request announces one.
    FILE_FLAG = 0x80000000
    fifo = sys.argv[3]
    fds = {'fifo-fd': [os.open(fifo, os.O_RDWR)], 'unannounced-fd': [os.open('/dev/null', 0)],
           'missing-fd': [], 'two-fds': [os.open('/dev/null', 0), os.open('/dev/null', 0)]}[mode]
    r = req(['replay', 'x', 'dev', 'eth0'], 0 if mode == 'unannounced-fd' else FILE_FLAG)
    socket.send_fds(s, [r], fds)
    s.shutdown(socket.SHUT_WR)  # one request: the daemon closes after its reply
replies, errs = [], b''
try:
    while True:
        h = s.recv(4, socket.MSG_WAITALL)
        if len(h) < 4:
            break
        n = struct.unpack('!I', h)[0]
        b = s.recv(n, socket.MSG_WAITALL)
        if struct.unpack('!I', b[:4])[0] == 3:  # the END frame holds the exit code
            replies.append(struct.unpack('!I', b[4:8])[0])
        elif struct.unpack('!I', b[:4])[0] == 2:
            errs += b[4:]
except ConnectionResetError:
    pass
print(' '.join(map(str, replies)) if replies else 'closed')
if len(sys.argv) > 4:
    print(errs.decode(), end='')
PY
}

# ---- start, permissions ----
start || exit 1
mode=$(stat -c %a "$S")
[ "$mode" = 600 ] && ok "socket mode 0600" || fail "socket mode $mode"
[ "$(stat -c %u "$S")" = "$(id -u)" ] && ok "socket owned by the daemon's user" || fail "socket owner"
expect_rc 0 "dev add" -- "$MQTX" -S "$S" dev add eth0 type null txqueues 4 up
MQTX_SOCKET=$S "$MQTX" dev show >"$T/out" 2>&1
grep -q "^eth0: <UP>" "$T/out" && ok "MQTX_SOCKET selects the socket" || fail "MQTX_SOCKET: $(cat "$T/out")"

if [ "$(id -u)" -eq 0 ]; then
	# A second user (nobody, via setuid in a child). First the file mode stops it...
	chmod 755 "$T"
	# The checkout may be closed to other users (a clone in /root): they run a copy.
	mkdir -m 755 "$T/bin"
	cp "$MQTX" "$T/bin/mqtx"
	chmod 755 "$T/bin/mqtx"
	as_nobody() { python3 -c 'import os,sys; os.setgid(65534); os.setgroups([]); os.setuid(65534); os.execv(sys.argv[1], sys.argv[1:])' "$@"; }
	as_nobody "$T/bin/mqtx" -S "$S" dev show >"$T/out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q "Permission denied" "$T/out" && ok "other user: connect refused by mode 0600" ||
		fail "other user with mode 0600: exit $rc: $(cat "$T/out")"
	# ...and if the mode is opened up, SO_PEERCRED still refuses it with a clear message.
	chmod 666 "$S"
	as_nobody "$T/bin/mqtx" -S "$S" dev show >"$T/out" 2>&1; rc=$?
	[ $rc -eq 2 ] && grep -q "permission denied: uid 65534" "$T/out" && ok "other user: refused by SO_PEERCRED" ||
		fail "other user, mode 0666: exit $rc: $(cat "$T/out")"
	expect_rc 0 "the daemon still serves its owner" -- "$MQTX" -S "$S" dev show eth0
	chmod 600 "$S"
	# A replay's file is opened with the client's permissions, not the daemon's (root's).
	"$MQTXD" -S "$T/g.sock" -g "$(getent group 65534 | cut -d: -f1)" >"$T/g.out" 2>&1 &
	GPID=$!
	for _ in $(seq $((100 * SLOW))); do [ -S "$T/g.sock" ] && break; sleep 0.05; done
	cp "$MQTX_SRCDIR/tests/data/good.pcap" "$T/secret.pcap"
	cp "$MQTX_SRCDIR/tests/data/good.pcap" "$T/public.pcap"
	chmod 600 "$T/secret.pcap"
	chmod 644 "$T/public.pcap"
	as_nobody "$T/bin/mqtx" -S "$T/g.sock" dev add n0 type null up >"$T/out" 2>&1
	as_nobody "$T/bin/mqtx" -S "$T/g.sock" replay "$T/secret.pcap" dev n0 >"$T/out" 2>&1; rc=$?
	[ $rc -eq 1 ] && grep -q "secret.pcap: Permission denied" "$T/out" &&
		ok "replay: the client's permissions, not root's" ||
		fail "replay of a file the client cannot read: exit $rc: $(cat "$T/out")"
	as_nobody "$T/bin/mqtx" -S "$T/g.sock" replay "$T/public.pcap" dev n0 topspeed >"$T/out" 2>&1
	grep -q "^replay 1 dev n0 done sent 10 " "$T/out" &&
		ok "replay: a file the client can read" || fail "replay as nobody: $(cat "$T/out")"
	kill "$GPID"; wait "$GPID"; GPID=
	# -g: the groups the peer's process has, not what /etc/group says of its user (4242 is in
	# no file at all). The socket is opened to all, so that the daemon decides, not its mode.
	"$MQTXD" -S "$T/g2.sock" -g 4242 >"$T/g2.out" 2>&1 &
	GPID=$!
	for _ in $(seq $((100 * SLOW))); do [ -S "$T/g2.sock" ] && break; sleep 0.05; done
	[ "$(stat -c %g "$T/g2.sock")" = 4242 ] && ok "-g 4242: the socket's group" ||
		fail "-g 4242: $(cat "$T/g2.out")"
	chmod 666 "$T/g2.sock"
	g2() { setpriv --reuid=65534 "$@" "$T/bin/mqtx" -S "$T/g2.sock" dev show >"$T/out" 2>&1; }
	g2 --regid=65534 --groups=4242 && ok "-g: a supplementary group of the process counts" ||
		fail "-g, supplementary group: $(cat "$T/out")"
	g2 --regid=4242 --clear-groups && ok "-g: so does its group" ||
		fail "-g, primary group: $(cat "$T/out")"
	g2 --regid=65534 --clear-groups; rc=$?
	[ $rc -eq 2 ] && grep -q "permission denied: uid 65534" "$T/out" &&
		ok "-g: a process not in the group is refused" ||
		fail "-g, no group: $rc $(cat "$T/out")"
	kill "$GPID"; wait "$GPID"; GPID=
	# -g: two members of the group, A (uid 4301) and B (uid 4302). Each changes only what it
	# made; the other's objects, and the daemon's own (its configuration's), it sees
	# read-only: every change is refused naming the object and its owner, and changes
	# nothing. Root changes anything.
	echo "dev add cfg0 type null up" >"$T/own.conf"
	"$MQTXD" -S "$T/own.sock" -g 4242 -c "$T/own.conf" >"$T/own.out" 2>&1 &
	GPID=$!
	for _ in $(seq $((100 * SLOW))); do [ -S "$T/own.sock" ] && break; sleep 0.05; done
	as() { # UID CMD...: mqtx as UID, a member of group 4242 only
		u=$1; shift
		setpriv --reuid="$u" --regid=4242 --clear-groups "$T/bin/mqtx" -S "$T/own.sock" "$@"
	}
	ownx() { # CODE MESSAGE-REGEX UID CMD...: exit code and the whole output
		code=$1 pat=$2
		shift 2
		out=$(as "$@" 2>&1); rc=$?
		if [ $rc -eq "$code" ] && printf '%s\n' "$out" | grep -Eqx -- "$pat"; then
			ok "owners: uid $*: $code"
		else
			fail "owners: uid $*: exit $rc (want $code, /$pat/): $out"
		fi
	}
	for c in "dev add a0 type null txqueues 4 up" "qdisc add dev a0 root handle 1: mq" \
		"qdisc add dev a0 parent 1:2 handle 20: pfifo limit 7" "qdisc add dev a0 clsact" \
		"filter add dev a0 egress matchall action pass"; do
		# shellcheck disable=SC2086 # the command is split into words on purpose
		as 4301 $c >"$T/out" 2>&1 || fail "owners: A: $c: $(cat "$T/out")"
	done
	as 4301 gen dev a0 rate 10pps detach >"$T/out" 2>&1 || fail "owners: A's gen: $(cat "$T/out")"
	as 4302 dev add b0 type null up >"$T/out" 2>&1 || fail "owners: B: $(cat "$T/out")"
	as 4301 -s qdisc show dev a0 | grep -v "Sent\|backlog" >"$T/a0.before"
	of_a="Operation not permitted \(device a0 belongs to uid 4301\)"
	ownx 2 "dev del: $of_a" 4302 dev del a0
	ownx 2 "dev set: $of_a" 4302 dev set a0 down
	ownx 2 "RTNETLINK answers: $of_a" 4302 qdisc del dev a0 root
	ownx 2 "RTNETLINK answers: $of_a" 4302 qdisc replace dev a0 parent 1:2 handle 20: pfifo limit 9
	ownx 2 "RTNETLINK answers: $of_a" 4302 filter del dev a0 egress
	ownx 2 "gen: $of_a" 4302 gen dev a0 count 1
	ownx 2 "gen stop: Operation not permitted \(gen 1 belongs to uid 4301\)" 4302 gen stop 1
	ownx 0 "" 4302 gen stop all
	ownx 2 "dev del: Operation not permitted \(device cfg0 belongs to the server\)" 4302 dev del cfg0
	ownx 2 "dev set: Operation not permitted \(device b0 belongs to uid 4302\)" 4301 dev set b0 down
	# What B sees of A's, and that all of it is still there.
	ownx 0 ".*" 4302 qdisc show dev a0
	as 4302 -s qdisc show dev a0 | grep -v "Sent\|backlog" >"$T/a0.after"
	cmp -s "$T/a0.before" "$T/a0.after" && grep -q "qdisc pfifo 20: parent 1:2 limit 7p" "$T/a0.after" &&
		ok "owners: B sees A's qdiscs, unchanged" || fail "owners: a0 changed: $(cat "$T/a0.after")"
	as 4302 gen show 1 | grep -q "^gen 1 dev a0 running" && ok "owners: A's generator runs on" ||
		fail "owners: A's generator: $(as 4302 gen show 1 2>&1)"
	as 4302 dev show a0 | grep -q "^a0: <UP>" && ok "owners: A's device is up" ||
		fail "owners: a0: $(as 4302 dev show a0 2>&1)"
	# A deletes its own; root deletes B's and the daemon's.
	ownx 0 "" 4301 dev del a0
	expect_rc 0 "owners: root deletes B's device" -- "$MQTX" -S "$T/own.sock" dev del b0
	expect_rc 0 "owners: and the daemon's" -- "$MQTX" -S "$T/own.sock" dev del cfg0
	kill "$GPID"; wait "$GPID"; GPID=
else
	echo "skip: permission checks need root (a second user)"
fi

# ---- malformed, oversized, partial requests ----
for m in argc-lies no-nul trailing huge-argc; do
	r=$(raw $m)
	case "$r" in 1*) ok "malformed ($m): error reply" ;; *) fail "malformed ($m): got '$r'" ;; esac
done
r=$(raw oversized)
case "$r" in 1*) ok "oversized: error reply" ;; *) fail "oversized: got '$r'" ;; esac
grep -q "too large" "$T/daemon.err" 2>/dev/null || true
raw partial >/dev/null
raw short-header >/dev/null
sleep 0.2
"$MQTX" -S "$S" dev show >"$T/out" 2>&1
grep -q half0 "$T/out" && fail "a partial request was applied" || ok "partial request: nothing applied"
expect_rc 0 "daemon alive after bad clients" -- "$MQTX" -S "$S" dev show eth0
# an oversized command line built by the tool itself gets an error, not a hang
big=$(python3 -c 'print(" ".join(["x" * 100] * 1000))')
# shellcheck disable=SC2086
expect_rc 1 "oversized command from mqtx" -- "$MQTX" -S "$S" dev add $big

# ---- a replay's file is opened by the client, never by the daemon ----
mkfifo "$T/fifo"
timeout $((30 * SLOW)) "$MQTX" -S "$S" replay "$T/fifo" dev eth0 >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "a FIFO, not a capture file" "$T/out" && ok "a FIFO is refused at once" ||
	fail "replay of a FIFO: exit $rc: $(cat "$T/out")"
: <>"$T/fifo" # had the daemon opened it, this lets it go
expect_rc 0 "the daemon serves after a FIFO" -- timeout $((30 * SLOW)) "$MQTX" -S "$S" dev show eth0
r=$(raw fifo-fd "$T/fifo" text)
case "$r" in "1
replay: x: a FIFO, not a capture file") ok "a FIFO's descriptor sent by hand is refused" ;;
*) fail "a FIFO's descriptor: got '$r'" ;;
esac
for m in unannounced-fd missing-fd two-fds; do
	r=$(raw $m "$T/fifo")
	case "$r" in
	1*) ok "descriptors ($m): malformed" ;;
	*) fail "descriptors ($m): got '$r'" ;;
	esac
done
mkdir "$T/cwd"
cp "$MQTX_SRCDIR/tests/data/good.pcap" "$T/cwd/mine.pcap"
(cd "$T/cwd" && "$MQTX" -S "$S" replay mine.pcap dev eth0 topspeed) >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^replay [0-9]* dev eth0 done sent 10 " "$T/out" &&
	ok "a relative path is the client's" || fail "relative path: exit $rc: $(cat "$T/out")"
# tcpreplay's order (options, then the file) and its reporting options; -j: one document.
(cd "$T/cwd" && "$MQTX" -S "$S" replay -i eth0 --topspeed -K -q --stats=0 mine.pcap) >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^replay [0-9]* dev eth0 done sent 10 " "$T/out" &&
	ok "replay: options before the file, -K -q --stats" || fail "tcpreplay order: exit $rc: $(cat "$T/out")"
(cd "$T/cwd" && "$MQTX" -S "$S" -j replay mine.pcap --intf1=eth0 --pps 200) >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d[0]["sent"] == 10' "$T/out" &&
	[ ! -s "$T/err" ] && ok "-j replay: one JSON document, no progress lines" ||
	fail "-j replay: exit $rc: $(cat "$T/out" "$T/err")"

# ---- tc's habits: one version (meson's) in both tools, -p, the usage's lists ----
V=$(sed -n "s/^  version: '\(.*\)',$/\1/p" "$MQTX_SRCDIR/meson.build")
[ -n "$V" ] && [ "$("$MQTX" -V)" = "mqtx utility, libmqtx $V" ] &&
	[ "$("$MQTXD" -V)" = "mqtxd, libmqtx $V" ] && [ "$("$MQTXD" --version)" = "mqtxd, libmqtx $V" ] &&
	ok "-V: the build's version in mqtx and mqtxd" || fail "-V: $("$MQTX" -V) / $("$MQTXD" -V 2>&1) (want $V)"
"$MQTX" -S "$S" -j -p qdisc show dev eth0 >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" &&
	grep -q '^    {$' "$T/out" && grep -q '^        "kind": ' "$T/out" &&
	ok "-j -p: indented JSON" || fail "-j -p: exit $rc: $(cat "$T/out")"
"$MQTX" -S "$S" -p qdisc show dev eth0 >"$T/out" 2>&1 && grep -q '^qdisc ' "$T/out" &&
	ok "-p: accepted as tc does" || fail "-p: $(cat "$T/out")"
"$MQTX" help 2>&1 | grep -q 'OBJECT := { dev | qdisc | class | filter |' &&
	"$MQTX" qdisc help 2>&1 | grep -q 'root | ingress | clsact | parent' &&
	ok "usage: filter among the objects, clsact in qdisc help" || fail "usage lists: $("$MQTX" help 2>&1)"

# ---- two clients racing ----
race() {
	for i in $(seq 25); do
		"$MQTX" -S "$S" dev add "r$1x$i" type null txqueues 2 up >"$T/race.$1.out" 2>&1 ||
			echo "add r$1x$i failed: $(cat "$T/race.$1.out")"
		"$MQTX" -S "$S" dev add same type null >/dev/null 2>&1
		"$MQTX" -S "$S" dev del same >/dev/null 2>&1
		"$MQTX" -S "$S" gen dev "r$1x$i" count 50 >"$T/race.$1.out" 2>&1 ||
			echo "gen r$1x$i failed: $(cat "$T/race.$1.out")"
	done
}
race a >"$T/race.a" & ra=$!
race b >"$T/race.b" & rb=$!
wait $ra $rb
[ -s "$T/race.a" ] || [ -s "$T/race.b" ] && fail "racing: $(cat "$T/race.a" "$T/race.b")"
n=$("$MQTX" -S "$S" dev show | grep -c '^r[ab]x')
[ "$n" -eq 50 ] && ok "racing clients: 50 devices" || fail "racing clients: $n devices"
n=$("$MQTX" -S "$S" -s dev show | grep -A1 '^r[ab]x' | grep -c 'TX: packets 50 ')
[ "$n" -eq 50 ] && ok "racing clients: every generator sent 50" || fail "racing: $n generators complete"

# ---- SIGHUP is ignored: no death, no stale socket ----
kill -HUP "$DPID"
expect_rc 0 "SIGHUP: still serving" -- "$MQTX" -S "$S" dev show eth0
kill -0 "$DPID" 2>/dev/null && ok "SIGHUP: still running" || fail "SIGHUP killed the daemon"

# ---- shutdown with a generator running: final counters, exit 0 ----
"$MQTX" -S "$S" gen dev eth0 rate 1000pps detach >/dev/null
stop && ok "SIGTERM: exit 0"
grep -q "^eth0: <DOWN>" "$T/daemon.out" && grep -q "TX: packets" "$T/daemon.out" &&
	ok "final counters printed" || fail "final counters: $(head -5 "$T/daemon.out")"
[ -e "$S" ] && fail "socket left behind" || ok "socket removed"

# ---- config file ----
cat >"$T/conf" <<CONF
# devices at start-up
dev add cfg0 type null txqueues 8 up   # trailing comment
dev add cfg1 type null
CONF
start -c "$T/conf" || exit 1
"$MQTX" -S "$S" dev show >"$T/out" 2>&1
grep -q "^cfg0: <UP> kind null txqueues 8" "$T/out" && grep -q "^cfg1: <DOWN>" "$T/out" &&
	ok "config file applied" || fail "config file: $(cat "$T/out")"
stop && ok "SIGTERM: exit 0"
# more devices than any fixed-size array of the shutdown path: every one brought down and
# its final counters printed
for i in $(seq 300); do echo "dev add nd$i type null txqueues 2 up"; done >"$T/many"
start -c "$T/many" || exit 1
expect_rc 0 "300 devices from a config file" -- "$MQTX" -S "$S" gen dev nd300 count 7
stop && ok "SIGTERM: exit 0"
n=$(grep -c '^nd[0-9]*: <DOWN>' "$T/daemon.out")
[ "$n" -eq 300 ] && ok "shutdown: 300 devices down" || fail "shutdown: $n of 300 devices down"
n=$(grep -c '^    TX: packets ' "$T/daemon.out")
[ "$n" -eq 300 ] && ok "shutdown: final counters of 300 devices" || fail "shutdown: $n counter lines"
grep -A1 '^nd300: <DOWN>' "$T/daemon.out" | grep -q 'TX: packets 7 ' &&
	ok "shutdown: the 300th device's counters" || fail "shutdown: nd300 counters"
printf 'dev add bad0 type null\ndev add bad0 type frob\n' >"$T/bad"
"$MQTXD" -S "$S" -c "$T/bad" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "bad:2:" "$T/err" && ok "bad config: exit 1 naming the line" ||
	fail "bad config: exit $rc: $(cat "$T/err")"
[ -e "$S" ] && fail "socket created despite a bad config" || ok "no socket after a bad config"

# ---- --daemon: returns once the socket serves ----
"$MQTXD" -S "$S" --daemon; rc=$?
[ $rc -eq 0 ] && [ -S "$S" ] && ok "--daemon: ready when it returns" || fail "--daemon: exit $rc"
expect_rc 0 "--daemon serves" -- "$MQTX" -S "$S" dev add d0 type null
pid=$(python3 -c 'import socket,struct,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0])' "$S")
kill -TERM "$pid"
for _ in $(seq $((100 * SLOW))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && fail "--daemon: still running after SIGTERM" || ok "--daemon: stopped"

t_end

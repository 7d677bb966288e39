#!/bin/sh
# SPDX-License-Identifier: MIT
# Whom the socket path trusts: the default socket lives in a private directory that both sides
# check; one daemon per path (a lock file, the loser names the holder); nothing that is not the
# daemon's is replaced or unlinked; mqtx talks only to a server run by root or by its user.
# Needs $MQTX and $MQTXD; the checks with a second user (nobody) need root.
set -u
SLOW=${MQTX_TEST_SLOW:-1} # the bound of every wait, stretched as tests/lib.sh says
: "${MQTX:?}" "${MQTXD:?}"
T=$(mktemp -d /tmp/mqtx-sockpath-test.XXXXXX)
S=$T/mqtx.sock
fails=0
cleanup() {
	for p in $(jobs -p) $WINNER; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
WINNER=
trap cleanup EXIT
unset MQTX_SOCKET

fail() { echo "not ok: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
wait_for() { for _ in $(seq $((600 * SLOW))); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }
# daemon NAME ARGS: start mqtxd in the background, its output in $T/NAME.err; $! is kept
daemon() {
	name=$1; shift
	"$MQTXD" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	LAST=$!
}
stop() { # SIGTERM; the daemon must exit 0 (a sanitizer's report at exit would not)
	kill -TERM "$1"; wait "$1"; rc=$?
	[ $rc -eq 0 ] || fail "mqtxd exited $rc"
}
cat >"$T/helper.py" <<'PY'
import fcntl, socket, struct, sys, time
mode, path = sys.argv[1], sys.argv[2]
if mode == 'serve-pid':  # the pid of the process serving the socket
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    print(struct.unpack('3i', s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0])
elif mode == 'listen':  # a plain listening socket, not an mqtxd
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen()
    time.sleep(120)
elif mode == 'hold-lock':  # hold the lock file as a daemon of pid 4242 would; PATH.held: held
    f = open(path, 'w')
    fcntl.flock(f, fcntl.LOCK_EX)
    f.write('4242\n')
    f.flush()
    open(path + '.held', 'w').close()
    time.sleep(120)
PY
serve_pid() { python3 "$T/helper.py" serve-pid "$1"; }
# listener PATH: a plain listening socket at PATH (not an mqtxd), until killed
listener() {
	python3 "$T/helper.py" listen "$1" &
	LAST=$!
	wait_for "$1"
}

# ---- the default socket: a private directory under $XDG_RUNTIME_DIR ----
mkdir -m 700 "$T/xdg"
XDG_RUNTIME_DIR=$T/xdg daemon xdg
d=$LAST
wait_for "$T/xdg/mqtx/mqtx.sock" && ok "the default socket is in \$XDG_RUNTIME_DIR/mqtx" ||
	fail "no socket in $T/xdg/mqtx: $(ls -la "$T/xdg"; cat "$T/xdg.err")"
[ "$(stat -c '%a %u' "$T/xdg/mqtx")" = "700 $(id -u)" ] && ok "the directory: mode 0700, ours" ||
	fail "directory: $(stat -c '%a %u' "$T/xdg/mqtx")"
XDG_RUNTIME_DIR=$T/xdg "$MQTX" dev add x0 type null >"$T/out" 2>&1 &&
	ok "mqtx finds it there" || fail "mqtx: $(cat "$T/out")"
stop $d
# A directory that others may write to is not used by either side.
chmod 777 "$T/xdg/mqtx"
listener "$T/xdg/mqtx/mqtx.sock"
l=$LAST
XDG_RUNTIME_DIR=$T/xdg "$MQTX" dev show >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "xdg/mqtx has mode 0777: others may write to it; not a private directory" \
	"$T/out" && ok "mqtx refuses a directory others may write" ||
	fail "mqtx: $rc $(cat "$T/out")"
{ kill $l; wait $l; } 2>/dev/null
XDG_RUNTIME_DIR=$T/xdg timeout $((30 * SLOW)) "$MQTXD" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "has mode 0777: others may write to it" "$T/out" &&
	ok "mqtxd refuses it too" || fail "mqtxd: $rc $(cat "$T/out")"
# A symbolic link in its place is not followed.
rm -rf "$T/xdg/mqtx"
mkdir -m 700 "$T/elsewhere"
ln -s "$T/elsewhere" "$T/xdg/mqtx"
XDG_RUNTIME_DIR=$T/xdg timeout $((30 * SLOW)) "$MQTXD" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "is a symbolic link or not a directory" "$T/out" &&
	[ -z "$(ls "$T/elsewhere")" ] && ok "mqtxd refuses a symbolic link for its directory" ||
	fail "symlinked directory: $rc $(cat "$T/out")"
XDG_RUNTIME_DIR=$T/xdg "$MQTX" dev show >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "is a symbolic link; not a private directory" "$T/out" &&
	ok "and so does mqtx" || fail "mqtx, symlinked directory: $rc $(cat "$T/out")"
rm "$T/xdg/mqtx"

# ---- one daemon per path: the lock file ----
daemon first -S "$S"
first=$LAST
wait_for "$S" || fail "first daemon: $(cat "$T/first.err")"
timeout $((30 * SLOW)) "$MQTXD" -S "$S" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "$S: another mqtxd (pid $first) serves it: it holds $S.lock" "$T/out" &&
	ok "a second daemon is refused and told who serves" || fail "second: $rc $(cat "$T/out")"
stop $first
[ -e "$S" ] || [ -e "$S.lock" ] && fail "left behind: $(ls "$T")" ||
	ok "the socket and the lock file go at exit"
# A lock held by anyone keeps the daemon off the path.
python3 "$T/helper.py" hold-lock "$S.lock" &
h=$!
wait_for "$S.lock.held"
timeout $((30 * SLOW)) "$MQTXD" -S "$S" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "another mqtxd (pid 4242) serves it" "$T/out" && [ ! -e "$S" ] &&
	ok "a held lock keeps it off" || fail "held lock: $rc $(cat "$T/out")"
{ kill $h; wait $h; } 2>/dev/null
rm -f "$S.lock" "$S.lock.held"
# Started together, exactly one serves.
for i in 1 2 3 4; do
	("$MQTXD" -S "$S" >"$T/race$i.out" 2>"$T/race$i.err"; echo $? >"$T/race$i.rc") &
done
for _ in $(seq $((600 * SLOW))); do [ "$(ls "$T" | grep -c '^race.\.rc$')" -ge 3 ] && break; sleep 0.05; done
lost=$(cat "$T"/race*.rc 2>/dev/null | grep -c '^1$')
named=$(grep -l "another mqtxd (pid [0-9]*) serves it" "$T"/race*.err | wc -l)
"$MQTX" -S "$S" dev show >"$T/out" 2>&1 && [ "$lost" -eq 3 ] && [ "$named" -eq 3 ] &&
	ok "four daemons started together: one serves, three give up" ||
	fail "race: $lost exited, $named named the holder: $(cat "$T"/race*.err)"
WINNER=$(serve_pid "$S") # not a job of this shell (its subshell is)
kill -TERM "$WINNER"
for _ in $(seq $((600 * SLOW))); do [ -e "$S" ] || break; sleep 0.05; done
WINNER=

# ---- nothing that is not the daemon's is replaced or unlinked ----
echo keep >"$T/file"
timeout $((30 * SLOW)) "$MQTXD" -S "$T/file" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "exists and is not a socket; not replacing it" "$T/out" &&
	[ "$(cat "$T/file")" = keep ] && ok "a regular file at -S PATH is left alone" ||
	fail "regular file: $rc $(cat "$T/out")"
ln -s "$T/file" "$T/link"
timeout $((30 * SLOW)) "$MQTXD" -S "$T/link" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && [ -L "$T/link" ] && [ "$(cat "$T/file")" = keep ] &&
	ok "a symbolic link at -S PATH is left alone" || fail "symlink: $rc $(cat "$T/out")"
ln -s "$T/file" "$T/l.sock.lock"
timeout $((30 * SLOW)) "$MQTXD" -S "$T/l.sock" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "l.sock.lock: a symbolic link" "$T/out" && [ "$(cat "$T/file")" = keep ] &&
	ok "a symbolic link for the lock file is refused" ||
	fail "symlinked lock: $rc $(cat "$T/out")"
listener "$T/live.sock"
l=$LAST
timeout $((30 * SLOW)) "$MQTXD" -S "$T/live.sock" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "answers on it; not replacing it" "$T/out" &&
	ok "a socket something answers on is left alone" || fail "live socket: $rc $(cat "$T/out")"
{ kill $l; wait $l; } 2>/dev/null
daemon stale -S "$T/live.sock"
s=$LAST
wait_for "$T/live.sock.lock"
for _ in $(seq $((600 * SLOW))); do
	"$MQTX" -S "$T/live.sock" dev show >/dev/null 2>&1 && break
	sleep 0.05
done
grep -q "removed the socket of a daemon that is gone" "$T/stale.err" &&
	"$MQTX" -S "$T/live.sock" dev show >/dev/null && ok "a dead socket of ours is taken over" ||
	fail "stale socket: $(cat "$T/stale.err")"
# Moved away while the daemon runs: at exit it unlinks only what is still its own.
mv "$T/live.sock" "$T/moved.sock"
echo placeholder >"$T/live.sock"
stop $s
[ "$(cat "$T/live.sock" 2>/dev/null)" = placeholder ] &&
	grep -q "is no longer this daemon's socket; left as it is" "$T/stale.err" &&
	ok "at exit, a path no longer ours is left alone" || fail "unlinked what was not its own"

# ---- with a second user: ownership of the directory, the socket and the server ----
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: the checks with a second user need root"
	echo "$fails failed"
	[ "$fails" -eq 0 ] || exit 1
	exit 77
fi
# The checkout may be closed to other users: run copies of the tools.
mkdir -m 755 "$T/bin" "$T/nb"
cp "$MQTX" "$MQTXD" "$T/bin/"
chmod 755 "$T" "$T/bin"/*
chown 65534 "$T/nb"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups" # execs: $! is the tool's pid
$NOBODY "$T/bin/mqtxd" -S "$T/nb/mqtx.sock" >"$T/nb.out" 2>&1 &
nb=$!
wait_for "$T/nb/mqtx.sock"
"$MQTX" -S "$T/nb/mqtx.sock" dev show >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "is served by uid 65534 (pid $nb), which is neither root nor you" \
	"$T/out" && ok "mqtx does not talk to another user's server" ||
	fail "other server: $rc $(cat "$T/out")"
$NOBODY "$T/bin/mqtx" -S "$T/nb/mqtx.sock" dev show >"$T/out" 2>&1 &&
	ok "its own user does" || fail "nobody to its own daemon: $(cat "$T/out")"
kill $nb
wait $nb
# A dead socket of another user is not taken over, not even by root.
$NOBODY "$T/bin/mqtxd" -S "$T/nb/x.sock" >"$T/nb.out" 2>&1 &
nb=$!
wait_for "$T/nb/x.sock"
kill -9 $nb
wait $nb 2>/dev/null
rm "$T/nb/x.sock.lock"
timeout $((30 * SLOW)) "$MQTXD" -S "$T/nb/x.sock" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "is a socket of uid 65534; not replacing it" "$T/out" &&
	[ "$(stat -c %u "$T/nb/x.sock")" = 65534 ] && ok "another user's socket is left alone" ||
	fail "another user's socket: $rc $(cat "$T/out")"
# With -g, the private directory lets the group's members through to the socket.
rm -rf "$T/xdg/mqtx"
XDG_RUNTIME_DIR=$T/xdg daemon grp -g 4242
g=$LAST
chmod 711 "$T/xdg"
modes() { stat -c '%a %g' "$T/xdg/mqtx" "$T/xdg/mqtx/mqtx.sock" | tr '\n' ' '; }
wait_for "$T/xdg/mqtx/mqtx.sock" && [ "$(modes)" = "710 4242 660 4242 " ] &&
	ok "-g: directory 0710 and socket 0660, both of the group" ||
	fail "-g: $(stat -c '%n %a %g' "$T/xdg/mqtx" "$T/xdg/mqtx/mqtx.sock"; cat "$T/grp.err")"
XDG_RUNTIME_DIR=$T/xdg setpriv --reuid=65534 --regid=65534 --groups=4242 "$T/bin/mqtx" dev show \
	>"$T/out" 2>&1 && ok "-g: a member reaches the default socket" ||
	fail "-g member: $(cat "$T/out")"
stop $g
chmod 700 "$T/xdg"
rm -rf "$T/xdg/mqtx"
# A directory of another user is not a private directory of ours.
mkdir -m 700 "$T/xdg/mqtx"
chown 65534 "$T/xdg/mqtx"
XDG_RUNTIME_DIR=$T/xdg timeout $((30 * SLOW)) "$MQTXD" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "xdg/mqtx is owned by uid 65534, not by uid 0; not a private directory" \
	"$T/out" && ok "mqtxd refuses a directory of another user" ||
	fail "dir owner: $rc $(cat "$T/out")"

echo "$fails failed"
[ "$fails" -eq 0 ]

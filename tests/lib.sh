# SPDX-License-Identifier: MIT
# What the shell tests share. A test sources it, then calls t_begin first:
#	. "$(dirname "$0")/lib.sh"
#	t_begin NAME
# and t_end last. It gives a scratch directory $T, removed at exit, with the socket path $S in
# it; TAP lines that scripts/test-summary counts (ok, fail, t_end); expect; start and stop of an
# mqtxd of the test's own, which goes at exit too. A test that starts more processes defines
# cleanup_more, run at exit first. Needs $MQTX and $MQTXD.

# How much slower than a quiet machine this run may be (scripts/run-tests sets it from the
# load and a sanitizer's slowdown): every wait's bound is a multiple of it.
SLOW=${MQTX_TEST_SLOW:-1}

# t_begin NAME: $T, $S, $M (mqtx on $S, to be word-split), the counters and the exit trap.
t_begin() {
	: "${MQTX:?}" "${MQTXD:?}"
	T=$(mktemp -d "/tmp/mqtx-$1-test.XXXXXX")
	S=$T/mqtx.sock
	M="$MQTX -S $S"
	t_run=0
	fails=0
	DPID=
	trap t_cleanup EXIT
}

t_cleanup() {
	command -v cleanup_more >/dev/null && cleanup_more
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID"
	rm -rf "$T"
}

ok() { t_run=$((t_run + 1)); echo "ok $t_run - $*"; }
fail() { t_run=$((t_run + 1)); fails=$((fails + 1)); echo "not ok $t_run - $*"; }

# t_end: the plan and the failures; its status is the test's.
t_end() {
	echo "1..$t_run"
	echo "# $fails failed"
	[ "$fails" -eq 0 ]
}

# expect CODE OUTPUT-REGEX -- CMD...: the exit code and the whole output (stdout and stderr)
expect() {
	code=$1 pat=$2
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$code" ] && printf '%s\n' "$out" | grep -Eqx -- "$pat"; then
		ok "$* -> $code"
	else
		fail "$* -> $rc (expected $code, /$pat/): $out"
	fi
}

# start ARGS...: mqtxd on $S with ARGS, its output in $T/daemon.out and $T/daemon.err; waits for
# the socket (30 s: a failure bound). Returns 1 with a failure when it does not come.
start() {
	rm -f "$S"
	"$MQTXD" -S "$S" "$@" >"$T/daemon.out" 2>"$T/daemon.err" &
	DPID=$!
	for _ in $(seq $((600 * SLOW))); do [ -S "$S" ] && return 0; sleep 0.05; done
	fail "mqtxd did not create $S: $(cat "$T/daemon.err")"
	return 1
}

# stop: SIGTERM; the daemon must exit 0 (a sanitizer's report at exit would not). Returns its
# status.
stop() {
	kill -TERM "$DPID"; wait "$DPID"; rc=$?; DPID=
	[ $rc -eq 0 ] || fail "mqtxd exited $rc: $(tail -20 "$T/daemon.err")"
	return $rc
}

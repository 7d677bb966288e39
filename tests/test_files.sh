#!/bin/sh
# SPDX-License-Identifier: MIT
# The files mqtxd writes for its clients (a pcap device's capture): opened by the client with its
# own rights and passed over the socket, no symbolic link followed, no FIFO or device, nothing
# removed that the open did not create, a relative path the client's, and a full disk counted
# frame by frame and logged. Needs root (a second user, mknod, a tmpfs in a mount namespace of
# its own), $MQTX and $MQTXD.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (a second user, mknod, a tmpfs)"; exit 77; }
if [ -z "${MQTX_IN_MNTNS:-}" ]; then
	unshare -m true 2>/dev/null || { echo "SKIP: no mount namespaces here"; exit 77; }
	MQTX_IN_MNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
command -v tshark >/dev/null || { echo "SKIP: tshark is missing (it reads the captures)"; exit 77; }
. "$(dirname "$0")/lib.sh"
t_begin files
cleanup_more() { mountpoint -q "$T/small" 2>/dev/null && umount "$T/small"; }
G=4243 # the group mqtxd -g admits; its member is nobody with it as a supplementary group
chmod 755 "$T"
# The checkout may be closed to other users (a clone in /root): they run a copy.
mkdir -m 755 "$T/bin"
cp "$MQTX" "$T/bin/mqtx"
chmod 755 "$T/bin/mqtx"
MEMBER="setpriv --reuid=65534 --regid=65534 --groups=$G $T/bin/mqtx -S $S"
stranger() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# run DESC CODE REGEX -- CMD...: CMD (within 20 s) exits CODE with output matching REGEX.
run() {
	desc=$1 code=$2 pat=$3
	shift 4
	timeout $((20 * SLOW)) "$@" >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq "$code" ] && { [ -z "$pat" ] || grep -Eq -- "$pat" "$T/out"; }; then
		ok "$desc"
	else
		fail "$desc: exit $rc (want $code, /$pat/): $(cat "$T/out")"
	fi
}
same() { # same DESC FILE CONTENT: FILE still holds CONTENT
	if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then ok "$1"; else fail "$1: $(ls -l "$2" 2>&1)"; fi
}
absent() { # absent DESC PATH
	if [ -e "$2" ] || [ -L "$2" ]; then fail "$1: $(ls -l "$2")"; else ok "$1"; fi
}
is_pcap() { # is_pcap FILE: a capture that tshark reads to its end
	[ "$(tshark -r "$1" 2>&1 >/dev/null | grep -c 'cut short\|damaged\|isn.t')" -eq 0 ] &&
		head -c 4 "$1" | od -An -tx1 | grep -q '4d 3c b2 a1'
}

# raw NAME PATH [FILE]: a hand-made client of the group sends "dev add NAME type pcap file PATH"
# with FILE opened (as the member) and passed, or with no descriptor; prints the exit code and
# the error text. RAW_ROOT=1: the client is root.
raw() {
	python3 - "$S" "$G" "$@" <<'PY'
import os, socket, struct, sys
sock, grp, name, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if os.environ.get('RAW_ROOT') != '1':
    os.setgroups([grp]); os.setgid(65534); os.setuid(65534)
fds = [os.open(sys.argv[5], os.O_RDWR | os.O_NONBLOCK)] if len(sys.argv) > 5 else []
words = ['dev', 'add', name, 'type', 'pcap', 'file', path]
body = struct.pack('!II', 0x80000000 if fds else 0, len(words))
body += b''.join(w.encode() + b'\0' for w in words)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sock)
socket.send_fds(s, [struct.pack('!I', len(body)) + body], fds)
code, err = None, b''
while code is None:
    h = s.recv(4, socket.MSG_WAITALL)
    if len(h) < 4:
        break
    b = s.recv(struct.unpack('!I', h)[0], socket.MSG_WAITALL)
    t = struct.unpack('!I', b[:4])[0]
    if t == 3:
        code = struct.unpack('!I', b[4:8])[0]
    elif t == 2:
        err += b[4:]
print(code if code is not None else 'closed')
print(err.decode(), end='')
PY
}

# The daemon runs in a directory of its own, so that a path resolved there is seen.
mkdir "$T/dcwd"
cd "$T/dcwd" || exit 1
start -g $G || exit 1
cd / || exit 1

# ---- a member of -g: the kernel checks the member's rights, not root's ----
mkdir -m 755 "$T/root"
echo precious >"$T/root/victim"
chmod 644 "$T/root/victim"
run "member: a root file is not clobbered" 2 "victim: File exists" -- $MEMBER dev add c1 type pcap file "$T/root/victim"
same "member: the root file holds what it held" "$T/root/victim" precious
run "member: overwrite asks the kernel, which says no" 2 "victim: cannot open: Permission denied" -- $MEMBER dev add c1 type pcap file "$T/root/victim" overwrite
same "member, overwrite: the root file holds what it held" "$T/root/victim" precious
run "member: nothing is created in a root-only directory" 2 "new.pcap: cannot create: Permission denied" -- $MEMBER dev add c2 type pcap file "$T/root/new.pcap"
absent "member: no file in the root-only directory" "$T/root/new.pcap"
r=$(raw c3 "$T/root/raw.pcap")
case "$r" in "1
dev add: $T/root/raw.pcap: the file must come open with the command"*) ok "member: a path without its file is refused" ;;
*) fail "member, a path without a descriptor: got '$r'" ;;
esac
absent "member: no file from a path sent without a descriptor" "$T/root/raw.pcap"
mkdir -m 755 "$T/mine"
chown 65534:65534 "$T/mine"
run "member: a file in the member's own directory" 0 "" -- $MEMBER dev add c4 type pcap file "$T/mine/c4.pcap"
[ "$(stat -c %u "$T/mine/c4.pcap" 2>/dev/null)" = 65534 ] && is_pcap "$T/mine/c4.pcap" &&
	ok "member: the capture is the member's own file" ||
	fail "member's capture: $(ls -l "$T/mine" 2>&1)"
# The member's device is the member's (mqtxd(8), SECURITY): another member of the group may
# neither delete nor load it, nor take its name with a file of its own, which that member's
# mqtx removes again; the member deletes it, and the capture stays.
OTHER="setpriv --reuid=65533 --regid=65533 --groups=$G $T/bin/mqtx -S $S"
mkdir -m 755 "$T/other"
chown 65533:65533 "$T/other"
of_member="Operation not permitted \(device c4 belongs to uid 65534\)"
run "another member: the member's device is not its to delete" 2 "dev del: $of_member" -- $OTHER dev del c4
run "another member: nor to send on" 2 "gen: $of_member" -- $OTHER gen dev c4 count 1
run "another member: nor its name to take" 2 'device "c4" already exists' -- $OTHER dev add c4 type pcap file "$T/other/c4.pcap"
absent "another member: the file of its refused dev add is removed" "$T/other/c4.pcap"
run "root: a device on a file of root's" 0 "" -- $M dev add r0 type pcap file "$T/root/r0.pcap"
run "root's device is not a member's to delete" 2 "dev del: Operation not permitted \(device r0 belongs to uid 0\)" -- $MEMBER dev del r0
run "the member deletes its own device" 0 "" -- $MEMBER dev del c4
is_pcap "$T/mine/c4.pcap" && ok "the member's capture stays" || fail "member's capture: $(ls -l "$T/mine" 2>&1)"
$M dev del r0 >/dev/null 2>&1

# ---- root's own device and another user's symbolic link in a shared (sticky) directory ----
mkdir "$T/shared"
chown 65534:65534 "$T/shared"
chmod 1777 "$T/shared"
stranger ln -s "$T/root/victim" "$T/shared/cap.pcap"
run "root: another user's link is not followed" 2 "cap.pcap: a symbolic link" -- $M dev add r1 type pcap file "$T/shared/cap.pcap"
run "root, overwrite: the link is not followed either" 2 "cap.pcap: a symbolic link" -- $M dev add r1 type pcap file "$T/shared/cap.pcap" overwrite
printf 'dev add r1 type pcap file %s\n' "$T/shared/cap.pcap" >"$T/batch"
run "root, -batch: the library does not follow it" 2 "cap.pcap: a symbolic link" -- "$MQTX" -batch "$T/batch"
same "root: the link's target holds what it held" "$T/root/victim" precious
stranger sh -c "echo theirs >'$T/shared/theirs.pcap' && chmod 666 '$T/shared/theirs.pcap'"
run "root, overwrite: another user's file is not replaced" 2 "theirs.pcap: belongs to uid 65534" -- $M dev add r2 type pcap file "$T/shared/theirs.pcap" overwrite
same "root: the other user's file holds what it held" "$T/shared/theirs.pcap" theirs
echo old >"$T/shared/mine.pcap"
run "root: an existing file needs overwrite" 2 "mine.pcap: File exists \(add \"overwrite\" to replace it\)" -- $M dev add r3 type pcap file "$T/shared/mine.pcap"
same "root: the existing file is left as it was" "$T/shared/mine.pcap" old
run "root, overwrite: its own file is replaced" 0 "" -- $M dev add r3 type pcap file "$T/shared/mine.pcap" overwrite up
run "root, overwrite: frames go to it" 0 "sent 5 " -- $M gen dev r3 count 5
$M dev set r3 down >/dev/null 2>&1
is_pcap "$T/shared/mine.pcap" && [ "$(tshark -r "$T/shared/mine.pcap" 2>/dev/null | wc -l)" -eq 5 ] &&
	ok "root, overwrite: a capture of the 5 frames" || fail "overwritten capture: $(od -An -tx1 "$T/shared/mine.pcap" | head -3)"

# ---- FIFOs and devices: refused at once, nothing removed that was not created ----
mkfifo -m 666 "$T/fifo"
timeout $((20 * SLOW)) $M dev add f1 type pcap file "$T/fifo" >"$T/fifo.out" 2>&1 &
fpid=$!
# Until that command is refused, or a thread of the daemon waits for the FIFO's reader.
for _ in $(seq $((400 * SLOW))); do
	kill -0 $fpid 2>/dev/null || break
	grep -qs wait_for_partner /proc/"$DPID"/task/*/wchan && break
	sleep 0.05
done
run "a FIFO does not stop the daemon serving others" 0 "" -- $M dev show
: <>"$T/fifo" # had the daemon opened it, this lets it go
wait $fpid
grep -q "fifo: a FIFO, not a regular file" "$T/fifo.out" && ok "a FIFO is refused" ||
	fail "a FIFO: $(cat "$T/fifo.out")"
run "a FIFO, overwrite: refused" 2 "fifo: a FIFO, not a regular file" -- $M dev add f1 type pcap file "$T/fifo" overwrite
r=$(raw f2 fifo.pcap "$T/fifo")
case "$r" in "2
dev add: f2: pcap: fifo.pcap: a FIFO, not a regular file") ok "a FIFO's descriptor sent by hand is refused" ;;
*) fail "a FIFO's descriptor: got '$r'" ;;
esac
mknod -m 666 "$T/full" c 1 7
run "a device is refused" 2 "full: a character device, not a regular file" -- $M dev add d1 type pcap file "$T/full"
[ -c "$T/full" ] && ok "a device that refused the first write is not removed" || fail "$T/full is gone"
run "a device, overwrite: refused" 2 "full: a character device, not a regular file" -- $M dev add d1 type pcap file "$T/full" overwrite
printf 'dev add d1 type pcap file %s\n' "$T/full" >"$T/batch"
run "a device, -batch: refused" 2 "full: a character device, not a regular file" -- "$MQTX" -batch "$T/batch"
[ -c "$T/full" ] && ok "the device is still there" || fail "$T/full is gone"

# ---- a relative path is the client's, and a failed command removes what its client made ----
mkdir "$T/cwd"
(cd "$T/cwd" && timeout $((20 * SLOW)) $M dev add rel type pcap file rel.pcap) >"$T/out" 2>&1
[ -f "$T/cwd/rel.pcap" ] && is_pcap "$T/cwd/rel.pcap" && ok "a relative path is the client's" ||
	fail "relative path: $(cat "$T/out"; ls "$T/cwd" "$T/dcwd")"
absent "nothing in the daemon's directory" "$T/dcwd/rel.pcap"
(cd "$T/cwd" && timeout $((20 * SLOW)) $M dev add rel type pcap file again.pcap) >"$T/out" 2>&1
grep -q 'device "rel" already exists' "$T/out" && ok "a refused dev add says why" ||
	fail "dev add of a taken name: $(cat "$T/out")"
absent "the file of a refused dev add is removed" "$T/cwd/again.pcap"
r=$(RAW_ROOT=1 raw rr rel.pcap)
case "$r" in "1
dev add: rel.pcap: a relative path must come open with the command"*) ok "root: a relative path without its file is refused" ;;
*) fail "root, a relative path without a descriptor: got '$r'" ;;
esac
absent "root: nothing made in the daemon's directory" "$T/dcwd/rel.pcap"
r=$(RAW_ROOT=1 raw ra "$T/cwd/abs.pcap")
[ "$r" = 0 ] && is_pcap "$T/cwd/abs.pcap" && ok "root: an absolute path without its file is opened safely" ||
	fail "root, an absolute path without a descriptor: got '$r'"

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

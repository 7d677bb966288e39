#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/bootstrap as a user who cannot install: packages the build needs are an error with
# the apt command; the optional tools of --check-extra (their tests skip without them) only say
# which tests will skip and how to install them. dpkg-query is faked to report packages missing.
set -u
SRC=${1:?source directory}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $*"; }
fail() { echo "not ok: $*"; fails=$((fails + 1)); }

mkdir -p "$T/bin"
cp "$SRC/scripts/bootstrap" "$T/bin/bootstrap"
cat >"$T/bin/dpkg-query" <<'SH'
#!/bin/sh
# dpkg-query -W -f=... PKG: installed unless PKG is in $MISSING.
for p in $MISSING; do [ "$p" = "$3" ] && exit 1; done
printf 'install ok installed'
SH
chmod -R a+rX "$T"
chmod 755 "$T/bin/bootstrap" "$T/bin/dpkg-query"
# As root, a second user runs it (a copy: the checkout may be closed to others).
as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$T/bin:$PATH" MISSING="$1" \
			"$T/bin/bootstrap" "$2"
	else
		env PATH="$T/bin:$PATH" MISSING="$1" "$T/bin/bootstrap" "$2"
	fi
}

as_user "tshark tmux" --check-extra >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^mqtx: optional packages missing: tshark tmux; these tests will skip parts:" \
	"$T/out" && grep -q "^mqtx:   tshark: gen: the checksum checks by tshark" "$T/out" &&
	grep -q "^mqtx:   tmux: top: the terminal view" "$T/out" &&
	grep -q "^mqtx: to run them too: sudo apt-get install -y tshark tmux$" "$T/out" &&
	ok "optional tools missing: which tests skip, and the apt command; exit 0" ||
	fail "optional tools missing: exit $rc: $(cat "$T/out")"
as_user "tshark libpcap-dev" --check-extra >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "^mqtx: run: sudo apt-get install -y libpcap-dev$" "$T/out" &&
	ok "a package the build needs is missing: exit 1 with the apt command" ||
	fail "build package missing: exit $rc: $(cat "$T/out")"
as_user "" --check-extra >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/out" ] && ok "nothing missing: silent" ||
	fail "nothing missing: exit $rc: $(cat "$T/out")"
as_user "valgrind" --check-extra >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/out" ] && ok "valgrind is not asked for (nothing uses it)" ||
	fail "valgrind: exit $rc: $(cat "$T/out")"
echo "$fails failed"
[ "$fails" -eq 0 ]

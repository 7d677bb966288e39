#!/bin/sh
# meson install works, and an application builds against the installed library with
# pkg-config alone and runs: the README's embedding example, from a temporary DESTDIR.
set -eu
BUILD=$1
SRC=$2
SANITIZE=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $*"; }
fail() { echo "not ok: $*"; fails=$((fails + 1)); }

meson install -C "$BUILD" --destdir "$T/root" --no-rebuild --quiet >"$T/install.log" 2>&1 &&
	ok "meson install" || { fail "meson install"; cat "$T/install.log"; }
pc=$(find "$T/root" -name mqtx.pc | head -n 1)
[ -n "$pc" ] && ok "mqtx.pc installed" || fail "mqtx.pc installed"
for h in mqtx.h dev.h driver.h qdisc.h flow.h pkt.h clock.h ctl.h linux.h sim.h; do
	[ -n "$(find "$T/root" -path "*/include/mqtx/$h")" ] || fail "header mqtx/$h installed"
done
ok "headers checked"
for m in man3/mqtx_dev_create.3 man3/mqtx_dev_xmit.3 man3type/mqtx_pkt.3type man8/mqtx.8; do
	[ -n "$(find "$T/root" -path "*/man/$m")" ] && ok "man page $m installed" ||
		fail "man page $m installed"
done
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
# The .pc names the configured prefix; the files are under DESTDIR + prefix.
prefix="$T/root$(pkg-config --variable=prefix mqtx)"
flags=$(pkg-config --define-variable=prefix="$prefix" --cflags --libs mqtx)
libdir=$(pkg-config --define-variable=prefix="$prefix" --variable=libdir mqtx)
# The installed headers only: nothing from the source tree is on the include path.
cc -std=gnu11 -Wall -Werror $SANITIZE -o "$T/embed" "$SRC/examples/embed.c" $flags \
	-Wl,-rpath,"$libdir" \
	>"$T/cc.log" 2>&1 && ok "embed.c builds with pkg-config" ||
	{ fail "embed.c builds with pkg-config"; cat "$T/cc.log"; }
if [ -x "$T/embed" ]; then
	out=$("$T/embed") && ok "embed runs against the shared library: $out" || fail "embed runs"
	ldd "$T/embed" | grep -q "$libdir/libmqtx.so" && ok "linked to the installed libmqtx.so" ||
		fail "linked to the installed libmqtx.so"
fi
echo "$fails failed"
[ "$fails" -eq 0 ]

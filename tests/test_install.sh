#!/bin/sh
# meson install works, and an application builds against the installed library with
# pkg-config alone and runs: the README's embedding example and the tools themselves (mqtx,
# mqtxd), from a temporary DESTDIR.
set -eu
SLOW=${MQTX_TEST_SLOW:-1} # the bound of every wait, stretched as tests/lib.sh says
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
for h in mqtx.h dev.h driver.h qdisc.h flow.h pkt.h clock.h ctl.h gen.h linux.h sim.h; do
	[ -n "$(find "$T/root" -path "*/include/mqtx/$h")" ] || fail "header mqtx/$h installed"
done
ok "headers checked"
for m in man3/mqtx.3 man3/mqtx_dev_create.3 man3/mqtx_dev_xmit.3 man3type/mqtx_pkt.3type man8/mqtx.8; do
	[ -n "$(find "$T/root" -path "*/man/$m")" ] && ok "man page $m installed" ||
		fail "man page $m installed"
done
[ -n "$(find "$T/root" -path "*/share/bash-completion/completions/mqtx")" ] &&
	ok "bash completion installed" || fail "bash completion installed"
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
# The README's example compiles as printed (its first C block).
python3 - "$SRC/README.md" >"$T/readme.c" <<'PY'
import re, sys
print(re.search(r'```c\n(.*?)```', open(sys.argv[1]).read(), re.S).group(1), end='')
PY
cc -std=gnu11 -Wall -Werror $SANITIZE -o "$T/readme" "$T/readme.c" $flags -Wl,-rpath,"$libdir" \
	>"$T/cc-readme.log" 2>&1 && "$T/readme" >/dev/null && ok "the README's example builds and runs" ||
	{ fail "the README's example builds and runs"; cat "$T/cc-readme.log"; }
# Linking dynamically needs no .pc file of the private dependencies: only mqtx.pc is visible
# (pkg-config wants every Requires.private package for --cflags, freedesktop's for --libs too).
alone() { PKG_CONFIG_LIBDIR=$(dirname "$pc") PKG_CONFIG_PATH= pkg-config "$@"; }
out=$(alone --exists --print-errors mqtx 2>&1) && ok "mqtx.pc alone is complete" ||
	fail "pkg-config --exists mqtx alone: $out"
both=$(alone --define-variable=prefix="$prefix" --cflags --libs mqtx 2>&1) &&
	[ "$both" = "$flags" ] && ok "pkg-config --cflags --libs mqtx without the others' .pc" ||
	fail "pkg-config --cflags --libs mqtx alone: $both"
# Linking the static library takes Libs.private: every library it needs, in an order a
# static link takes (what needs a library before it).
static=$(alone --define-variable=prefix="$prefix" --static --libs mqtx 2>&1) &&
	echo " $static " | grep -q -- "-lxdp.* -lbpf " && ok "pkg-config --static --libs mqtx" ||
	fail "pkg-config --static --libs mqtx alone: $static"
# shellcheck disable=SC2086 # word lists
cc -std=gnu11 -Wall -Werror $SANITIZE -o "$T/embed-static" "$SRC/examples/embed.c" \
	$(alone --define-variable=prefix="$prefix" --cflags mqtx) \
	$(echo " $static " | sed "s| -lmqtx | $libdir/libmqtx.a |") >"$T/cc-static.log" 2>&1 &&
	"$T/embed-static" >/dev/null && ok "embed.c links libmqtx.a with --static's libraries" ||
	{ fail "embed.c links libmqtx.a with --static's libraries"; cat "$T/cc-static.log"; }
# The build tree's mqtx-uninstalled.pc, alone, links an application to the built library.
unpc=$(find "$BUILD/meson-uninstalled" -name mqtx-uninstalled.pc)
unflags=$(PKG_CONFIG_LIBDIR=$(dirname "$unpc") PKG_CONFIG_PATH= \
	pkg-config --cflags --libs mqtx-uninstalled 2>&1) &&
	cc -std=gnu11 -Wall -Werror $SANITIZE -o "$T/embed-un" "$SRC/examples/embed.c" $unflags \
		-Wl,-rpath,"$BUILD" >"$T/cc-un.log" 2>&1 && "$T/embed-un" >/dev/null &&
	ok "embed.c builds with mqtx-uninstalled.pc alone" ||
	{ fail "embed.c with mqtx-uninstalled.pc alone: $unflags"; cat "$T/cc-un.log"; }
if [ -x "$T/embed" ]; then
	out=$("$T/embed") && ok "embed runs against the shared library: $out" || fail "embed runs"
	ldd "$T/embed" | grep -q "$libdir/libmqtx.so" && ok "linked to the installed libmqtx.so" ||
		fail "linked to the installed libmqtx.so"
fi
# The tools build from the installed library too: their sources (as the build lists them) with
# the installed headers and pkg-config alone, so that a private header or an internal symbol
# fails here.
tool_srcs() {
	meson introspect "$BUILD" --targets | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    # the tool, and the parser library it links (tools/meson.build)
    if (t["name"], t["type"]) in ((sys.argv[1], "executable"),
                                  ("mqtx_tool_parsers", "static library")):
        print(" ".join(s for g in t["target_sources"] for s in g.get("sources", [])))
' "$1" | tr "\n" " "
}
for tool in mqtx mqtxd; do
	srcs=$(tool_srcs $tool)
	# mqtxd drops its capabilities with libcap (tools/privs.c)
	extra=""
	[ $tool = mqtxd ] && extra=$(pkg-config --cflags --libs libcap)
	# shellcheck disable=SC2086 # word lists
	# the version meson gives the tools, here the installed library's
	cc -std=gnu11 -D_GNU_SOURCE -DMQTX_VERSION="\"$(pkg-config --modversion mqtx)\"" \
		-Wall -Werror $SANITIZE -o "$T/$tool" $srcs $flags $extra \
		-Wl,-rpath,"$libdir" >"$T/cc-$tool.log" 2>&1 &&
		ok "$tool builds from the installed headers with pkg-config" ||
		{ fail "$tool builds from the installed headers with pkg-config"; cat "$T/cc-$tool.log"; }
done
if [ -x "$T/mqtx" ]; then
	printf 'dev add n0 type null txqueues 2 up\nqdisc replace dev n0 root handle 1: mq\n' \
		>"$T/cmds"
	printf 'gen dev n0 count 100\n-s dev show n0\n' >>"$T/cmds"
	out=$("$T/mqtx" -batch "$T/cmds" 2>&1)
	echo "$out" | grep -q "packets 100 " && ok "the installed mqtx runs a batch" ||
		{ fail "the installed mqtx runs a batch"; echo "$out"; }
fi
if [ -x "$T/mqtxd" ] && [ -x "$T/mqtx" ]; then
	"$T/mqtxd" -S "$T/d.sock" >"$T/mqtxd.log" 2>&1 &
	pid=$!
	i=0
	while [ ! -S "$T/d.sock" ] && [ $i -lt $((200 * SLOW)) ]; do sleep 0.05; i=$((i + 1)); done
	"$T/mqtx" -S "$T/d.sock" dev add n1 type null up >"$T/c.log" 2>&1 &&
		"$T/mqtx" -S "$T/d.sock" dev show n1 2>&1 | grep -q "n1: <UP>" &&
		ok "the installed mqtxd serves the installed mqtx" ||
		{ fail "the installed mqtxd serves the installed mqtx"; cat "$T/c.log" "$T/mqtxd.log"; }
	kill -TERM $pid
	wait $pid && ok "the installed mqtxd exits 0 on SIGTERM" ||
		{ fail "the installed mqtxd exits 0 on SIGTERM"; cat "$T/mqtxd.log"; }
fi
# make install PREFIX=... into a build tree of its own (the library and the tools), says where
# the files went, and make uninstall takes them all away again.
if [ -z "$SANITIZE" ]; then
	make -C "$SRC" install BUILD="$T/b" MESON_OPTS=-Dtests=false PREFIX="$T/p" >"$T/make.log" 2>&1 &&
		ok "make install PREFIX=..." || { fail "make install PREFIX=..."; tail -20 "$T/make.log"; }
	n=$(find "$T/p" ! -type d | wc -l)
	[ -x "$T/p/sbin/mqtx" ] && [ -n "$(find "$T/p" -name mqtx.pc)" ] &&
		grep -q "^mqtx: installed $n files under $T/p:" "$T/make.log" &&
		grep -q "^  $T/p/sbin/: mqtx, mqtxd" "$T/make.log" &&
		grep -q "^mqtx: pkg-config does not look in $T/p/lib.*/pkgconfig: export PKG_CONFIG_PATH=" \
			"$T/make.log" && ok "make install says where its $n files went" ||
		fail "make install's summary: $(cat "$T/make.log")"
	grep -q "^prefix=$T/p\$" "$(find "$T/p" -name mqtx.pc)" && ok "mqtx.pc names the PREFIX" ||
		fail "mqtx.pc's prefix: $(grep prefix= "$(find "$T/p" -name mqtx.pc)")"
	make -C "$SRC" uninstall BUILD="$T/b" >"$T/un.log" 2>&1 &&
		grep -q "^mqtx: removed $n of the $n files make install put in place" "$T/un.log" &&
		[ ! -e "$T/p" ] && ok "make uninstall removes every file and the directories it made" ||
		fail "make uninstall: $(cat "$T/un.log"; find "$T/p" | head)"
fi
echo "$fails failed"
[ "$fails" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# mqtx whatif as a user runs it: without a daemon, two configurations side by side on a capture
# of tests/data, the JSON document's members, the same numbers twice, and a plot that renders
# (rsvg-convert; that check skips without it). Needs $MQTX, $MQTXD and python3.
set -u
. "$(dirname "$0")/lib.sh"
t_begin whatif_cmd
D=${MQTX_SRCDIR:-.}/tests/data
cat >"$T/pfifo.conf" <<'CONF'
dev add eth0 type sim rate 10mbit ring 8 bql
qdisc add dev eth0 root pfifo limit 4
dev set eth0 up
CONF
cp "$D/whatif-fq.conf" "$T/fq.conf"
cd "$T" || exit 1

# No daemon runs: whatif never asks for one.
if "$MQTX" -S "$T/none.sock" whatif "$D/good.pcap" config pfifo.conf config fq.conf \
	flows 3 plot cmp.svg >text.out 2>text.err; then
	ok "whatif runs without a daemon"
else
	fail "whatif: $(cat text.err)"
fi
head -2 text.out | tail -1 | grep -Eq '^ +pfifo\.conf +fq\.conf$' &&
	ok "the configurations are the columns" || fail "header: $(head -2 text.out)"
grep -q '^flow udp 10.0.0.1:1000 > 10.0.0.2:9$' text.out && grep -q '^flow other$' text.out &&
	ok "the biggest flows, then other" || fail "flows: $(grep -E '^(flow|other)' text.out)"

"$MQTX" -j whatif "$D/good.pcap" config pfifo.conf config fq.conf flows 3 >a.json 2>&1
"$MQTX" -j whatif "$D/good.pcap" config pfifo.conf config fq.conf flows 3 >b.json 2>&1
if python3 - a.json b.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["capture"].endswith("good.pcap")
assert [r["config"] for r in a["runs"]] == ["pfifo.conf", "fq.conf"]
for r in a["runs"]:
    assert set(r) == {"config", "wall_s", "virtual_s", "skipped", "total", "queues", "flows"}
    assert len(r["flows"]) == 4 and r["flows"][3]["proto"] == "other"
    for f in r["flows"] + r["queues"] + [r["total"]]:
        assert f["packets"] == f["sent"] + f["dropped"] == f["sent"] + sum(f["drops"].values())
    f = r["flows"][0]
    assert (f["proto"], f["src"], f["dst"], f["sport"], f["dport"]) == \
        ("udp", "10.0.0.1", "10.0.0.2", 1000, 9)
    assert set(f["delay_us"]) == {"p50", "p90", "p99", "p999", "max"}
    assert r["total"]["packets"] == 10
for r in a["runs"] + b["runs"]:
    del r["wall_s"]
assert a == b
PY
then ok "the JSON document, the same twice"; else fail "JSON: $(cat a.json)"; fi

if command -v rsvg-convert >/dev/null; then
	if rsvg-convert cmp.svg -o cmp.png && [ -s cmp.png ] &&
		grep -q 'delay (µs, log scale)' cmp.svg && grep -q 'qdisc backlog' cmp.svg; then
		ok "the plot renders, with its axes labelled"
	else
		fail "plot: $(head -c 300 cmp.svg)"
	fi
else
	echo "ok # SKIP rsvg-convert is missing (librsvg2-bin): the plot is not rendered"
fi
t_end

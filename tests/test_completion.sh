#!/bin/sh
# SPDX-License-Identifier: MIT
# The bash completion of mqtx (completion/mqtx): objects, commands, the running mqtxd's devices,
# the qdisc kinds of mqtx's own usage, tcpreplay's options. bash-completion's helpers are stood
# in for (the script needs only _init_completion and _filedir). Needs bash, $MQTX, $MQTXD.
set -u
command -v bash >/dev/null || { echo "SKIP: no bash"; exit 77; }
. "$(dirname "$0")/lib.sh"
t_begin completion
start || { t_end; exit 1; }
$M dev add eth0 type null up >/dev/null && $M dev add wlan7 type null >/dev/null ||
	fail "devices for the completion"
mkdir "$T/bin" && ln -s "$MQTX" "$T/bin/mqtx"

# complete LINE: the words bash would offer after LINE (the last word is the one completed).
complete() {
	PATH="$T/bin:$PATH" bash -c '
		_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]};
			words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
		_filedir() { :; }
		. "$1"
		read -ra COMP_WORDS <<<"$2"
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		[ "${2% }" != "$2" ] && COMP_WORDS+=("") && COMP_CWORD=$((COMP_CWORD + 1))
		_mqtx
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' sh "$MQTX_SRCDIR/completion/mqtx" "$1"
}
# has DESC LINE WORD...: completing LINE offers each WORD
has() {
	desc=$1 line=$2
	shift 2
	got=" $(complete "$line")"
	for w in "$@"; do
		case "$got" in
		*" $w "*) ;;
		*) fail "$desc: \"$line\" offers no $w: $got"; return ;;
		esac
	done
	ok "$desc"
}
has "objects" "mqtx " dev qdisc class filter actions sta ba wme gen replay hash top
has "actions commands" "mqtx actions " add replace delete get list flush
has "action kinds" "mqtx actions add action " gact skbedit police mirred
has "a prefix" "mqtx q" qdisc
has "options" "mqtx -" -json -pretty -statistics -Version
has "dev commands" "mqtx dev " add set del show stats
has "the daemon's devices" "mqtx -S $S dev show " eth0 wlan7
has "devices after dev" "mqtx -S $S qdisc add dev " eth0 wlan7
has "device kinds" "mqtx dev add x type " null sim pcap af_packet af_xdp tap sim-wifi
has "qdisc kinds from the usage" "mqtx qdisc add dev eth0 root " fq_codel tbf pfifo bfifo mqprio clsact
has "gen words" "mqtx gen dev eth0 " rate threads burst count
has "tcpreplay's options" "mqtx replay --" --pps --topspeed --unique-ip --fixcsum --stats --intf1
case " $(complete "mqtx dev show ") " in
*" eth0 "*) fail "devices without the socket: the default one has none of these" ;;
*) ok "devices of the socket given only" ;;
esac
t_end

// SPDX-License-Identifier: MIT
/* The replay command's words (see replay_words.h), and where its capture is among them. */
#include <string.h>

#include "ctl/replay_words.h"

/* mqtx's words, then tcpreplay's and tcprewrite's spellings (man tcpreplay: --pps 10 or
 * --pps=10, and the short options). */
const struct mqtx_rword mqtx__rwords[] = {
	{ "dev", R_DEV, true },
	{ "speed", R_SPEED, true },
	{ "rate", R_RATE, true },
	{ "topspeed", R_TOPSPEED, false },
	{ "loop", R_LOOP, true },
	{ "loopdelay", R_LOOPDELAY, true },
	{ "count", R_COUNT, true },
	{ "duration", R_DURATION, true },
	{ "mtu-trunc", R_MTU_TRUNC, false },
	{ "smac", R_SMAC, true },
	{ "dmac", R_DMAC, true },
	{ "detach", R_DETACH, false },
	{ "--intf1", R_DEV, true },
	{ "-i", R_DEV, true },
	{ "--multiplier", R_SPEED, true },
	{ "-x", R_SPEED, true },
	{ "--pps", R_PPS, true },
	{ "-p", R_PPS, true },
	{ "--mbps", R_MBPS, true },
	{ "-M", R_MBPS, true },
	{ "--topspeed", R_TOPSPEED, false },
	{ "-t", R_TOPSPEED, false },
	{ "--loop", R_LOOP, true },
	{ "-l", R_LOOP, true },
	{ "--loopdelay-ms", R_LOOPDELAY_MS, true },
	{ "--limit", R_COUNT, true },
	{ "-L", R_COUNT, true },
	{ "--duration", R_DURATION_S, true },
	{ "--mtu-trunc", R_MTU_TRUNC, false },
	{ "--enet-smac", R_SMAC, true },
	{ "--enet-dmac", R_DMAC, true },
	{ "--preload-pcap", R_REPORT, false },
	{ "-K", R_REPORT, false },
	{ "--quiet", R_REPORT, false },
	{ "-q", R_REPORT, false },
	{ "--stats", R_STATS, true },
	{ "--unique-ip", R_UNIQUE_IP, false },
	{ "--fixcsum", R_FIXCSUM, false },
	{ "-C", R_FIXCSUM, false },
	{ "--intf2", R_REFUSED, true },
	{ "-I", R_REFUSED, true },
	{ "--cachefile", R_REFUSED, true },
	{ "-c", R_REFUSED, true },
	{ "--dualfile", R_REFUSED, false },
	{ "-Q", R_REFUSED, false },
};

/* What to do instead of the options refused (R_REFUSED), by their first letters. */
const char *const mqtx__rword_refusals[][2] = {
	{ "--intf2", "one replay sends on one device: split the capture (tcpdump with a filter "
		     "writes each side) and start a replay per device" },
	{ "-I", "one replay sends on one device: split the capture (tcpdump with a filter "
		"writes each side) and start a replay per device" },
	{ "--cachefile", "tcpprep's cache is not read: split the capture by side (tcpdump with "
			 "a filter) and start a replay per device" },
	{ "-c", "tcpprep's cache is not read: split the capture by side (tcpdump with a filter) "
		"and start a replay per device" },
	{ "--dualfile", "one replay reads one capture: start a replay per file" },
	{ "-Q", "one replay reads one capture: start a replay per file" },
};

const size_t mqtx__nrwords = sizeof(mqtx__rwords) / sizeof(mqtx__rwords[0]);
const size_t mqtx__nrword_refusals = sizeof(mqtx__rword_refusals) / sizeof(mqtx__rword_refusals[0]);

int mqtx__rword_of(const char *w)
{
	const char *eq = w[0] == '-' && w[1] == '-' ? strchr(w, '=') : NULL;
	size_t n = eq ? (size_t)(eq - w) : strlen(w);

	for (size_t k = 0; k < mqtx__nrwords; k++)
		if (strlen(mqtx__rwords[k].word) == n && !strncmp(mqtx__rwords[k].word, w, n))
			return (int)k;
	return -1;
}

int mqtx__replay_file_arg(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int k = mqtx__rword_of(argv[i]);

		if (k < 0)
			return i;
		if (mqtx__rwords[k].value && !strchr(argv[i], '='))
			i++;
	}
	return -1;
}

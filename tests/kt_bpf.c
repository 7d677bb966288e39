// SPDX-License-Identifier: MIT
/* Test helper: a tc BPF program that counts frames by skb->queue_mapping (kept apart from
 * libpcap, whose struct bpf_insn is another one). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_bpf.h"

/* libbpf has no instruction macros, so the instructions are spelled out. */
#define KT_INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

struct kt_qcount {
	int map, prog;
	struct bpf_tc_hook hook;
};

struct kt_qcount *kt_qcount_attach(const char *ifname, bool ingress)
{
	struct kt_qcount *qc = calloc(1, sizeof(*qc));
	int map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mqtx_qcount", 4, 8, 1024, NULL), err;
	struct bpf_insn insns[] = {
		/* key = skb->queue_mapping */
		KT_INSN(BPF_LDX | BPF_MEM | BPF_W, 2, 1, offsetof(struct __sk_buff, queue_mapping),
			0),
		KT_INSN(BPF_STX | BPF_MEM | BPF_W, 10, 2, -4, 0),
		KT_INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map),
		KT_INSN(0, 0, 0, 0, 0),
		KT_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		KT_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		KT_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* if (value) __sync_fetch_and_add(value, 1) */
		KT_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
		KT_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		KT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
		KT_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, TC_ACT_OK),
		KT_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	qc->map = map;
	if (map < 0)
		goto fail;
	qc->prog = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "mqtx_qcount", "GPL", insns,
				 sizeof(insns) / sizeof(insns[0]), NULL);
	if (qc->prog < 0)
		goto fail;
	qc->hook = (struct bpf_tc_hook){ .sz = sizeof(qc->hook),
					 .ifindex = (int)if_nametoindex(ifname),
					 .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS };
	err = bpf_tc_hook_create(&qc->hook);
	if (err && err != -EEXIST)
		goto fail;
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = qc->prog);
	if (bpf_tc_attach(&qc->hook, &opts))
		goto fail;
	return qc;
fail:
	if (qc->map >= 0)
		close(qc->map);
	free(qc);
	return NULL;
}

unsigned long long kt_qcount_get(struct kt_qcount *qc, unsigned qm)
{
	unsigned long long v = 0;

	bpf_map_lookup_elem(qc->map, &qm, &v);
	return v;
}

void kt_qcount_detach(struct kt_qcount *qc)
{
	qc->hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS; /* deletes clsact */
	bpf_tc_hook_destroy(&qc->hook);
	close(qc->prog);
	close(qc->map);
	free(qc);
}

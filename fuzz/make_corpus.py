#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Write the seed corpus of every fuzz target into fuzz/corpus/TARGET/: real frames, the
# commands of the test suite, the test captures and a few more, real protocol frames, and WME
# set-ups. Run from anywhere; it rewrites the seeds it owns (named s-*) and leaves the rest,
# the inputs that fuzzing found and that were kept, alone.
import glob
import json
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, 's-' + name), 'wb') as f:
        f.write(data)


def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


MACS = b'\x02\0\0\0\0\x02\x02\0\0\0\0\x01'


def ipv4(proto, l4, tos=0, frag=0x4000, opts=b''):
    ihl = 5 + len(opts) // 4
    h = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, tos, ihl * 4 + len(l4), 1, frag, 64, proto, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + opts
    return h[:10] + struct.pack('!H', csum(h)) + h[12:] + l4


def ipv6(nh, l4, tc=0):
    src = bytes.fromhex('fd000000000000000000000000000001')
    dst = bytes.fromhex('fd000000000000000000000000000002')
    return struct.pack('!IHBB', 6 << 28 | tc << 20, len(l4), nh, 64) + src + dst + l4


def udp(sport=1000, dport=53, payload=b'seed'):
    return struct.pack('!HHHH', sport, dport, 8 + len(payload), 0) + payload


def tcp(sport=40000, dport=80):
    return struct.pack('!HHIIBBHHH', sport, dport, 1, 0, 0x50, 0x02, 65535, 0, 0)


def eth(etype, body):
    return MACS + struct.pack('!H', etype) + body


def vlan(tpid, vid, pcp, inner):
    return struct.pack('!HH', tpid, pcp << 13 | vid) + inner


def frames():
    f = {}
    f['udp4'] = eth(0x0800, ipv4(17, udp()))
    f['tcp4'] = eth(0x0800, ipv4(6, tcp()))
    f['tcp4-opts'] = eth(0x0800, ipv4(6, tcp(), opts=b'\x01\x01\x01\x00'))
    f['frag4-first'] = eth(0x0800, ipv4(17, udp(), frag=0x2000))
    f['frag4-later'] = eth(0x0800, ipv4(17, b'payload!', frag=0x0010))
    f['sctp4'] = eth(0x0800, ipv4(132, struct.pack('!HHII', 5000, 5001, 7, 0)))
    f['dccp4'] = eth(0x0800, ipv4(33, struct.pack('!HHII', 5000, 5001, 0, 0)))
    f['udplite4'] = eth(0x0800, ipv4(136, udp()))
    f['icmp4'] = eth(0x0800, ipv4(1, b'\x08\0\0\0\0\0\0\0'))
    f['dscp-ef4'] = eth(0x0800, ipv4(17, udp(), tos=46 << 2))
    f['udp6'] = eth(0x86dd, ipv6(17, udp()))
    f['tcp6'] = eth(0x86dd, ipv6(6, tcp(), tc=34 << 2))
    hbh = struct.pack('!BB6s', 6, 0, b'\x01\x04\0\0\0\0')
    f['hbh6'] = eth(0x86dd, ipv6(0, hbh + tcp()))
    frag = struct.pack('!BBHI', 17, 0, 0x0001, 99)
    f['frag6'] = eth(0x86dd, ipv6(44, frag + udp()))
    f['atomic-frag6'] = eth(0x86dd, ipv6(44, struct.pack('!BBHI', 17, 0, 0, 9) + udp()))
    f['vlan-udp4'] = MACS + vlan(0x8100, 5, 5, struct.pack('!H', 0x0800) + ipv4(17, udp()))
    f['qinq-tcp6'] = MACS + vlan(0x88a8, 100, 0, vlan(0x8100, 7, 3, struct.pack('!H', 0x86dd) +
                                                         ipv6(6, tcp())))
    f['mpls'] = eth(0x8847, struct.pack('!I', 16 << 12 | 5 << 9 | 1 << 8 | 64) + ipv4(17, udp()))
    f['eapol'] = eth(0x888e, b'\x02\x03\x00\x04seed')
    f['arp'] = eth(0x0806, bytes(28))
    f['trunc-ipv4'] = eth(0x0800, ipv4(6, tcp()))[:30]
    f['trunc-tcp'] = eth(0x0800, ipv4(6, tcp()))[:40]
    f['runt'] = MACS[:9]
    return f


def ctl_lines():
    """The commands of the test suite: tc-testing cases and the fault-injection table."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'tests', 'tc-cases', '*.json'))):
        for case in json.load(open(path)):
            lines = [s for s in case.get('setup', []) if isinstance(s, str)]
            lines.append(case['cmdUnderTest'])
            lines = [re.sub(r'^\$TC\s+', '', s) for s in lines]
            if all(not re.search(r'\$|\b(tap|af_packet|af_xdp|pcap|gen|replay)\b|[;|]', s)
                   for s in lines):
                out.append((case['id'], lines))
    src = open(os.path.join(ROOT, 'tests', 'test_fault_ctl.c')).read()
    body = src[src.index('cases[] = {'):src.index('};', src.index('cases[] = {'))]
    macros = dict(re.findall(r'#define (\w+)\s+"([^"]*)"', src))
    n = 0
    for m in re.finditer(r'\{\s*\{([^}]*)\},\s*((?:"[^"]*"\s*|\w+\s*)+),\s*(\d+)\s*\}', body):
        def strs(t):
            parts, cur = [], ''
            for tok in re.findall(r'"([^"]*)"|(\w+)|(,)', t):
                if tok[2]:
                    parts.append(cur)
                    cur = ''
                else:
                    cur += tok[0] if tok[0] or not tok[1] else macros.get(tok[1], '')
            if cur:
                parts.append(cur)
            return [p for p in parts if p]
        lines = strs(m.group(1)) + strs(m.group(2))
        if any(re.search(r'@DATA@|\b(gen|replay)\b', s) for s in lines):
            continue
        n += 1
        out.append(('fault%03d' % n, lines))
        # The same command with its third allocation failing.
        out.append(('fault%03d-fail3' % n, ['#fail 3 %d' % len(lines)] + lines))
    return out + wme_lines()


def wme_lines():
    """The WME commands of tests/test_wme_cmds.sh (sim-wifi devices, stations, block-ack
    sessions, what-if classification, ACM, QoS Maps), a few at a time after the devices, and
    the help that tc gives."""
    src = open(os.path.join(ROOT, 'tests', 'test_wme_cmds.sh')).read()
    qm = re.search(r'^QM=(\S+)', src, re.M)
    subst = {'$A1': '02:00:00:00:00:01', '$A2': '02:00:00:00:00:02', '$A9': '02:00:00:00:00:09',
             '$QM': qm.group(1) if qm else '53,2,22,6,8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,63'}
    cmds = []
    for m in re.finditer(r'-- \$M (.*)$', src, re.M):
        c = m.group(1)
        for k, v in subst.items():
            c = c.replace(k, v)
        if '$' not in c and not re.search(r'\b(gen|replay|top)\b', c) and c not in cmds:
            cmds.append(c)
    setup = ['dev add w0 type sim-wifi acm vo noadmit drop up', 'dev add n0 type null up',
             'sta add dev w0 addr 02:00:00:00:00:01']
    out = [('wme%02d' % (i // 10 + 1), setup + cmds[i:i + 10]) for i in range(0, len(cmds), 10)]
    out.append(('help', ['qdisc help', 'class help', 'qdisc add dev eth0 root tbf help',
                         'qdisc add dev eth0 root fq_codel help', 'qdisc add dev eth0 root foo help',
                         'hash help', 'dev help']))
    return out


def pcap_file(frames, magic=0xa1b2c3d4, link=1, endian='<'):
    out = struct.pack(endian + 'IHHiIII', magic, 2, 4, 0, 0, 65535, link)
    for i, f in enumerate(frames, 1):
        out += struct.pack(endian + 'IIII', 1000 + i, i * 1000, len(f), len(f)) + f
    return out


def pcapng_file(frames, ifaces=1, tsresol=None):
    shb = struct.pack('<IIIHHq', 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1) + struct.pack('<I', 28)
    out = shb
    for _ in range(ifaces):
        opts = b''
        if tsresol is not None:
            opts = struct.pack('<HHB3x', 9, 1, tsresol) + struct.pack('<HH', 0, 0)
        n = 20 + len(opts)
        out += struct.pack('<IIHHI', 1, n, 1, 0, 65535) + opts + struct.pack('<I', n)
    for i, f in enumerate(frames):
        pad = (4 - len(f) % 4) % 4
        n = 32 + len(f) + pad
        ts = 1000000000 + i * 1000
        out += struct.pack('<IIIIIII', 6, n, i % ifaces, ts >> 32, ts & 0xffffffff, len(f),
                           len(f))
        out += f + b'\0' * pad + struct.pack('<I', n)
    return out


def req(flags, words):
    p = struct.pack('!II', flags, len(words)) + b''.join(w.encode() + b'\0' for w in words)
    return struct.pack('!I', len(p)) + p


def reply(code, out=b'', err=b''):
    r = b''
    if out:
        r += struct.pack('!II', 4 + len(out), 1) + out
    if err:
        r += struct.pack('!II', 4 + len(err), 2) + err
    return r + struct.pack('!III', 8, 3, code)


def main():
    fr = frames()
    for name, f in fr.items():
        write('dissect', name, f)
    for name, lines in ctl_lines():
        write('ctl', name, '\n'.join(lines) + '\n')
    for path in sorted(glob.glob(os.path.join(ROOT, 'tests', 'data', '*.pcap*'))):
        write('pcap', os.path.basename(path), open(path, 'rb').read())
    some = [fr['udp4'], fr['vlan-udp4'], fr['tcp6'], fr['runt']]
    write('pcap', 'bigendian.pcap', pcap_file(some, endian='>'))
    write('pcap', 'nanosecond.pcap', pcap_file(some, magic=0xa1b23c4d))
    write('pcap', 'linux-sll.pcap', pcap_file(some, link=113))
    write('pcap', 'linux-sll2.pcap', pcap_file(some, link=276))
    write('pcap', 'raw-ip.pcap', pcap_file(some, link=101))
    write('pcap', 'jumbo.pcap', pcap_file([fr['udp4'][:14] + bytes(3000)]))
    write('pcap', 'two-ifaces.pcapng', pcapng_file(some, ifaces=2))
    write('pcap', 'tsresol-ns.pcapng', pcapng_file(some, tsresol=9))
    write('pcap', 'empty.pcap', pcap_file([]))
    write('proto', 'req-qdisc-show', req(1, ['qdisc', 'show']))
    write('proto', 'req-replace', req(0, 'qdisc replace dev eth0 root handle 1: mq'.split()))
    write('proto', 'req-json-two', req(3, ['dev', 'show']) + req(2, ['gen', 'show']))
    write('proto', 'req-empty-word', req(0, ['dev', 'add', '', 'type', 'null']))
    write('proto', 'req-file-flag', req(0x80000000, ['replay', 'x.pcap', 'dev', 'n0']))
    write('proto', 'req-too-large', struct.pack('!I', 65537) + b'\0' * 16)
    write('proto', 'reply-ok', reply(0, out=b'qdisc noqueue 0: dev eth0 root refcnt 2\n'))
    write('proto', 'reply-error', reply(2, err=b'Error: Exclusivity flag on, cannot modify.\n'))
    write('proto', 'reply-chunks', reply(0, out=b'a' * 100) + reply(1, err=b'what is "x"?\n'))
    write('proto', 'reply-bad-type', struct.pack('!II', 8, 9) + b'abcd')
    # WME: flags (ACM bits, noadmit, legacy, QoS Map), [map], stations, TSPECs, answers, then
    # queries (kind < 0x80) and frames (kind >= 0x80: length, bytes).
    qos = bytes([2, 53, 2, 22, 6, 8, 15, 0, 7, 255, 255, 16, 31, 32, 39, 255, 255, 40, 47, 48,
                 63])
    q_dscp = bytes([0x04, 0x01, 0, 0, 46, 1])          # DSCP 46 to station 1
    q_vlan = bytes([0x02, 0x00, 0, 5, 0, 2])           # VLAN PCP 5
    q_mgmt = bytes([0x20, 0x00, 0, 0, 0, 0])
    q_eapol = bytes([0x10, 0x01, 0, 0, 0, 3])
    q_prio = bytes([0x01, 0x00, 0x86, 0, 0, 4])        # priority 262
    frm = [fr['dscp-ef4'], fr['vlan-udp4'], fr['tcp6'], fr['mpls'], fr['eapol']]
    frames_part = b''.join(bytes([0x80 | i, len(f)]) + f for i, f in enumerate(frm))
    stations = bytes([4, 0x01, 0x03 | 6 << 2, 0x21, 5, 0x00])
    write('wme', 'plain', bytes([0]) + stations + bytes([0, 0]) + q_dscp + q_vlan + q_mgmt +
          frames_part)
    write('wme', 'acm-vo-vi-drop', bytes([0x03]) + stations + bytes([1, 0, 6, 100, 0]) +
          q_dscp + q_prio + frames_part)
    write('wme', 'acm-all-bk', bytes([0x1f]) + stations + bytes([0, 0]) + q_dscp + q_eapol +
          frames_part)
    write('wme', 'qosmap-legacy', bytes([0x60]) + qos + stations + bytes([0, 1]) + q_dscp +
          frames_part)
    write('wme', 'ba-sessions', bytes([0]) + bytes([3, 0x21, 0, 0x21, 5, 0x23, 2]) +
          bytes([0, 1]) + q_dscp + frames_part * 3)


if __name__ == '__main__':
    main()

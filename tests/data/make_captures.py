#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Write the replay test captures: good.pcap (10 UDP frames), good.pcapng (3), truncated.pcap
# (cut inside record 7), corrupt.pcap (record 4 claims a 2 GB capture length), runts.pcap
# (records of 0, 1 and 13 bytes between frames of 14, 60 and 64 bytes), gap.pcap (two frames
# 100 days apart); sll.pcap and sll2.pcap (Linux cooked v1 and v2, as tcpdump -i any writes
# them: the records of cooked_recs below, then one cut inside its header), raw.pcap
# (LINKTYPE_RAW: a link type replay refuses), mtu.pcap (frames of 1514, 1515, 1518 and 1519
# bytes with a VLAN tag, and 1600).
# Only the file format is written by hand here; mqtx reads every capture with libpcap.
import struct


def frame(i):
    payload = bytes(range(18))
    udp = struct.pack('!HHHH', 1000 + i, 9, 8 + len(payload), 0) + payload
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), i, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    s = sum(struct.unpack('!10H', ip))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    ip = ip[:10] + struct.pack('!H', ~s & 0xffff) + ip[12:]
    return b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00' + ip + udp


def pcap(frames, corrupt_rec=None, secs=None, linktype=1):
    out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, linktype)
    for i, f in enumerate(frames, 1):
        caplen = 0x7fffffff if i == corrupt_rec else len(f)
        sec = secs[i - 1] if secs else 1000
        out += struct.pack('<IIII', sec, i * 1000, caplen, len(f)) + f
    return out


def pcapng(frames):
    shb = struct.pack('<IIIHHq', 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1) + struct.pack('<I', 28)
    idb = struct.pack('<IIHHII', 1, 20, 1, 0, 65535, 20)
    out = shb + idb
    for i, f in enumerate(frames):
        pad = (4 - len(f) % 4) % 4
        n = 32 + len(f) + pad
        ts = 1000000000 + i * 1000  # microseconds (default if_tsresol)
        out += struct.pack('<IIIIIII', 6, n, 0, ts >> 32, ts & 0xffffffff, len(f), len(f))
        out += f + b'\0' * pad + struct.pack('<I', n)
    return out


frames = [frame(i) for i in range(10)]
good = pcap(frames)
open('good.pcap', 'wb').write(good)
open('good.pcapng', 'wb').write(pcapng(frames[:3]))
rec7 = 24 + 6 * (16 + len(frames[0]))
open('truncated.pcap', 'wb').write(good[:rec7 + 16 + 10])
open('corrupt.pcap', 'wb').write(pcap(frames, corrupt_rec=4))
eth = frames[0][:14]
runts = [b'', frames[1][:1], eth, frames[2][:13], frames[3][:60], frames[4]]
open('runts.pcap', 'wb').write(pcap(runts))
open('gap.pcap', 'wb').write(pcap(frames[:2], secs=[1000, 1000 + 100 * 86400]))


# Linux cooked records: (pkttype, hatype, address, protocol, payload). pkttype 0 to us, 1
# broadcast, 2 multicast, 4 outgoing; hatype 1 Ethernet, 65534 none (a tun device).
MAC1 = b'\x02\0\0\0\0\x01'
ip4 = frames[0][14:]
mcast4 = ip4[:16] + bytes([224, 0, 0, 251]) + ip4[20:]
ip6 = (struct.pack('!IHBB', 6 << 28, 8, 17, 64) + bytes(15) + b'\x01' +
       bytes.fromhex('ff0200000000000000000001ff000001') + struct.pack('!HHHH', 1000, 9, 8, 0))
llc = b'\x42\x42\x03' + bytes(35)  # 802.2 LLC (spanning tree's SAPs) and a BPDU's room
cooked_recs = [
    (4, 1, MAC1, 0x0800, ip4),      # outgoing unicast: src its address, dst zero
    (1, 1, MAC1, 0x0800, ip4),      # broadcast: dst ff:ff:ff:ff:ff:ff
    (2, 1, MAC1, 0x0800, mcast4),   # to 224.0.0.251: dst 01:00:5e:00:00:fb
    (4, 1, MAC1, 0x86dd, ip6),      # to ff02::1:ff00:1: dst 33:33:ff:00:00:01
    (0, 65534, b'', 0x0800, ip4),   # a tun device, no address: src zero
    (0, 1, MAC1, 0x0004, llc),      # 802.2: an 802.3 length (38) instead of an EtherType
    (0, 280, b'', 0x000c, bytes(16)),  # CAN: no Ethernet form, skipped
]


def sll(rec):
    pkttype, hatype, addr, proto, payload = rec
    return struct.pack('!HHH8sH', pkttype, hatype, len(addr), addr, proto) + payload


def sll2(rec):
    pkttype, hatype, addr, proto, payload = rec
    return struct.pack('!HHiHBB8s', proto, 0, 3, hatype, pkttype, len(addr), addr) + payload


# The last record of each is cut inside its cooked header: no frame, skipped.
open('sll.pcap', 'wb').write(pcap([sll(r) for r in cooked_recs] + [sll(cooked_recs[0])[:10]],
                                  linktype=113))
open('sll2.pcap', 'wb').write(pcap([sll2(r) for r in cooked_recs] + [sll2(cooked_recs[0])[:18]],
                                   linktype=276))
open('raw.pcap', 'wb').write(pcap([ip4], linktype=101))


def sized(n, vlan=False):
    head = frames[0][:12] + (b'\x81\x00\x00\x05' if vlan else b'') + b'\x08\x00'
    return head + bytes(n - len(head))


open('mtu.pcap', 'wb').write(pcap([sized(1514), sized(1515), sized(1518, True),
                                   sized(1519, True), sized(1600)]))

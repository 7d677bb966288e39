#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Write the replay test captures: good.pcap (10 UDP frames), good.pcapng (3), truncated.pcap
# (cut inside record 7), corrupt.pcap (record 4 claims a 2 GB capture length), runts.pcap
# (records of 0, 1 and 13 bytes between frames of 14, 60 and 64 bytes), gap.pcap (two frames
# 100 days apart).
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


def pcap(frames, corrupt_rec=None, secs=None):
    out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
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

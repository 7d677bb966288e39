# SPDX-License-Identifier: MIT
# A client of mqtxd's control socket for the test runners: one connection carries every
# command, where an mqtx process per command cost more than the command (a sanitized mqtx
# starts in tens of milliseconds; the runners send over a thousand). The protocol is the one
# tools/proto.h describes; what mqtx itself does around a command is in tools/mqtx.c.
import os
import select
import socket
import struct
import subprocess
import time

# How much slower than a quiet machine this run may be (scripts/run-tests: the load and a
# sanitizer's slowdown): every timeout of the runners is a multiple of it.
SLOW = max(1, int(os.environ.get('MQTX_TEST_SLOW') or 1))


def limit(secs):
    """A timeout of @secs on a quiet machine, stretched for this run."""
    return secs * SLOW


def start_daemon(mqtxd, sock, log):
    """An mqtxd serving @sock, its output to the file @log, once its socket exists."""
    d = subprocess.Popen([mqtxd, '-S', sock], stdout=log, stderr=log)
    end = time.monotonic() + limit(30)
    while time.monotonic() < end:
        if os.path.exists(sock):
            return d
        if d.poll() is not None:
            break
        time.sleep(0.025)
    d.kill()
    raise SystemExit('mqtxd did not come up')


PROTO_OUT, PROTO_ERR, PROTO_END = 1, 2, 3
F_STATS, F_JSON, F_DETAILS = 0x1, 0x2, 0x4  # MQTX_CTL_F_* of <mqtx/ctl.h>
FLAG_OF = {'-s': F_STATS, '-j': F_JSON, '-d': F_DETAILS}


def passes_through(words):
    """The flags and the words mqtx would send as they are for command line @words (what
    follows "mqtx -S PATH"), or None where mqtx does more than send them and print the reply:
    its own options, help and hash asked of no daemon, top, a job it waits for, a file it
    opens for the daemon (tools/mqtx.c: main(), needs_no_daemon(), run_one(), open_file())."""
    flags, i = 0, 0
    while i < len(words) and words[i] in FLAG_OF:
        flags |= FLAG_OF[words[i]]
        i += 1
    words = words[i:]
    if not words or words[0].startswith('-') or 'help' in (words[0], words[-1]):
        return None
    if words[0] == 'hash' and 'dev' not in words and '--dev' not in words:
        return None
    if words[0] == 'top' or 'replay'.startswith(words[0]):
        return None
    if words[0] == 'gen' and (len(words) < 2 or words[1] not in ('show', 'stop')) and \
            'detach' not in words:
        return None
    return flags, words


class Client:
    """Commands to the mqtxd on @path, one at a time on one connection."""

    def __init__(self, path, timeout=30):
        self.path, self.timeout, self.sock = path, limit(timeout), None

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def _recv(self, n):
        buf = b''
        while len(buf) < n:
            b = self.sock.recv(n - len(buf))
            if not b:
                raise ConnectionError('mqtxd closed the connection')
            buf += b
        return buf

    def exec(self, words, flags=0):
        """Run @words (a list of str) with MQTX_CTL_F_* @flags: (exit code, output, error
        text), as mqtx would exit and print them; exit code -1 if mqtxd does not answer
        within the timeout."""
        # mqtxd closes a connection idle for too long: seen here as readable (EOF).
        if self.sock and select.select([self.sock], [], [], 0)[0]:
            self.close()
        if not self.sock:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(self.timeout)
            self.sock.connect(self.path)
        body = struct.pack('>II', flags, len(words)) + \
            b''.join(w.encode() + b'\0' for w in words)
        out, err = [], []
        try:
            self.sock.sendall(struct.pack('>I', len(body)) + body)
            while True:
                n, = struct.unpack('>I', self._recv(4))
                frame = self._recv(n)
                kind, = struct.unpack('>I', frame[:4])
                if kind == PROTO_OUT:
                    out.append(frame[4:])
                elif kind == PROTO_ERR:
                    err.append(frame[4:])
                elif kind == PROTO_END and n == 8:
                    code, = struct.unpack('>I', frame[4:])
                    break
                else:
                    raise ConnectionError('a frame of type %d and %d bytes' % (kind, n))
        except socket.timeout:
            self.close()
            return -1, '', 'no reply from mqtxd within %d s' % self.timeout
        text = [b''.join(x).decode(errors='replace') for x in (out, err)]
        return code, text[0], text[1]

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The comparer of tests/test_tc_parity.sh, which holds the scenarios and runs this in a network
# namespace of its own: each scenario with tc on an ifb device and with mqtx on a null device of
# as many TX queues, one mqtxd for the whole run. Every command's exit code and the output of
# the show commands must be the same (JSON compared parsed). One process compares all: a shell
# with a python per show and an mqtx per command spent its time starting them.
# Usage: tc_parity.py MQTXD < scenarios
import difflib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mqtx_client import Client, limit, start_daemon  # noqa: E402

D = 'mqp0'
# Which show commands are compared after each scenario. Not "-j class show": tc 6.1 prints
# classes as text even with -j (mqtx prints JSON; its form is checked in test_ctl_qdisc).
SHOWS = ['qdisc show dev D', '-s qdisc show dev D', '-j qdisc show dev D',
         '-s -j qdisc show dev D', '-d qdisc show dev D', '-d -j qdisc show dev D',
         'class show dev D', '-s class show dev D']
fails = 0


def ok(msg):
    print('ok: ' + msg)


def fail(msg):
    global fails
    fails += 1
    print('not ok: ' + msg)


def run(argv):
    """A command of the kernel's side: (exit code, output, error text)."""
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors='replace', timeout=limit(30))
    except subprocess.TimeoutExpired:
        return -1, '', '%s: timed out after %d s' % (' '.join(argv), limit(30))
    return p.returncode, p.stdout, p.stderr


def tc(cmd):
    return run(['tc'] + cmd.split())


def kdev_add(nq, up):
    """The kernel's device: ifb (this kernel has no dummy) is a plain multiqueue device whose
    default qdiscs are mq and pfifo_fast (veth and dummy are IFF_NO_QUEUE: noqueue). Its
    txqueuelen is set to mqtx's 1000, which pfifo/bfifo take as their default limit."""
    return run(['ip', 'link', 'add', D, 'numtxqueues', nq, 'numrxqueues', nq, 'type',
                'ifb'])[0] == 0 and \
        run(['ip', 'link', 'set', D, 'txqueuelen', '1000'] + (['up'] if up else []))[0] == 0


def kdev_del():
    run(['ip', 'link', 'del', D])


def kernel_has(kind):
    """Whether this kernel has qdisc KIND (it may be built without mqtx's other kinds)."""
    if run(['ip', 'link', 'add', 'mqpprobe', 'type', 'ifb'])[0]:
        return False
    r = run(['tc', 'qdisc', 'add', 'dev', 'mqpprobe', 'root', kind])[0]
    run(['ip', 'link', 'del', 'mqpprobe'])
    return r == 0


AUTO = re.compile(r'\b(8[0-9a-f]{3}):')


def norm(form, text, mqtx):
    """Bring an output to what must be equal.
    - Automatic handles (8001: up) come from one counter per device in mqtx but from one
      counter for the whole kernel in Linux, so their numbers differ: each becomes its rank
      (A1:, A2:, ...) and, as tc lists a device's qdiscs in the order of a hash of their
      handles, the objects are compared as a sorted list when automatic handles are present.
    - mqtx's tbf JSON keeps "peakrate", which tc 6.1 prints in text only (see sch_tbf.c).
    - JSON is compared parsed."""
    hs = sorted({int(h, 16) for h in AUTO.findall(text) if int(h, 16) > 0x8000})
    rk = {h: 'A%d' % (i + 1) for i, h in enumerate(hs)}
    text = AUTO.sub(lambda m: rk.get(int(m.group(1), 16), m.group(1)) + ':', text)
    if form == 'json':
        v = json.loads(text)
        for o in v:
            if mqtx and o.get('kind') == 'tbf':
                o.get('options', {}).pop('peakrate', None)
        return sorted(v, key=lambda o: json.dumps(o, sort_keys=True)) if rk else v
    if not rk:
        return text
    blocks = []
    for line in text.splitlines(keepends=True):
        if blocks and (line.startswith(' ') or line == '\n'):
            blocks[-1] += line
        else:
            blocks.append(line)
    return ''.join(sorted(blocks))


def differ(form, kout, mout):
    """None if tc's and mqtx's outputs are the same, else how they differ."""
    try:
        k, m = norm(form, kout, False), norm(form, mout, True)
    except ValueError as e:
        return '#  not JSON: %s' % e
    if k == m:
        return None
    if form == 'json':
        return '#  tc:   %s\n#  mqtx: %s' % (json.dumps(k, sort_keys=True),
                                            json.dumps(m, sort_keys=True))
    return '\n'.join('#  ' + line for line in difflib.unified_diff(
        k.splitlines(), m.splitlines(), 'tc', 'mqtx', lineterm=''))


def same_err(cmd, kerr, merr, lacks):
    """The first line of an error, where tc's is the kernel's answer or tc's own "exit -1"
    refusal ("Error: ...", "RTNETLINK answers: ...", "Command line is not complete..."): mqtx
    must say it word for word ("mqtx" for "tc" in a hint), and may then name what it is about
    in parentheses ("Error: Specified class not found. (class 1:5 of mq has 4 classes)").
    Other messages of tc's option parsers may differ (mqtx names the value too); their exit
    codes may not. For a kind this kernel lacks, tc can only say so: mqtx's answer is then
    compared by exit code alone."""
    k1 = kerr.split('\n')[0]
    m1 = merr.split('\n')[0].replace('"mqtx ', '"tc ', 1)
    if k1 == 'Error: Specified qdisc kind is unknown.':
        if any(' %s ' % k in ' %s ' % cmd for k in lacks):
            return True
    elif not k1.startswith(('Error: ', 'RTNETLINK answers: ', 'Command line is not complete',
                            'What is ')):
        return True
    return m1 == k1 or (m1.startswith(k1 + ' (') and m1.endswith(')'))


class Parity:
    def __init__(self, client, lacks):
        self.mq, self.lacks = client, lacks

    def mqtx(self, cmd):
        return self.mq.exec(cmd.split())

    def compare(self, name, c, isshow):
        """One command in both worlds, compared: exit code, error, and for a show its
        output too (@isshow is True for the listings after each scenario)."""
        cmd = re.sub(r'\bD\b', D, c)
        krc, kout, kerr = tc(cmd)
        mrc, mout, merr = self.mqtx(cmd)
        if krc != mrc:
            fail("%s: '%s': exit %d, tc %d: mqtx: %s tc: %s" % (name, cmd, mrc, krc,
                                                                merr.rstrip('\n'),
                                                                kerr.rstrip('\n')))
            return
        if not same_err(cmd, kerr, merr, self.lacks):
            fail("%s: '%s': mqtx says '%s', tc '%s'" % (name, cmd, merr.split('\n')[0],
                                                        kerr.split('\n')[0]))
            return
        if not isshow and not re.search(r' (show|list|ls) ', ' %s ' % cmd):
            ok("%s: '%s': exit %d" % (name, cmd, krc))
            return
        out = differ('json' if '-j' in cmd else 'text', kout, mout)
        if out is None:
            ok("%s: '%s'" % (name, cmd))
        else:
            fail("%s: '%s' differs:" % (name, cmd))
            print(out)

    def scenario(self, name, nq, needs, cmds):
        """"!up" brings the device up in both worlds; "down" in @needs starts it down."""
        up = 'down' not in needs
        for k in needs:
            if k != 'down' and not kernel_has(k):
                print('ok: %s # skip: this kernel has no %s' % (name, k))
                return
        kdev_del()
        if not kdev_add(nq, up):
            fail("%s: cannot create the kernel's device" % name)
            return
        rc, _, err = self.mqtx('dev add %s type null txqueues %s%s' % (D, nq,
                                                                      ' up' if up else ''))
        if rc:
            fail('%s: cannot create mqtx\'s device: %s' % (name, err.strip()))
            return
        for c in cmds:
            if c == '!up':
                run(['ip', 'link', 'set', D, 'up'])
                self.mqtx('dev set %s up' % D)
                continue
            self.compare(name, c, False)
        for c in SHOWS:
            self.compare(name, c, True)
        # A standalone mirred action left in the table still names the device: Linux clears
        # its device when the device goes, mqtx refuses to delete a device an action names.
        # Flushed first, not compared (what a flush finds right after a filter's deletion
        # depends on when the kernel's work item ran).
        self.mqtx('actions flush action mirred')
        rc, _, err = self.mqtx('dev del %s' % D)
        if rc:
            fail('%s: mqtx cannot delete its device: %s' % (name, err.strip()))


def scenarios(text):
    """ "## NAME", then "NQ [KIND...]" (the kinds it needs the kernel to have; "down": the
    device starts down), then commands, one a line, up to the next "##"; "# " lines are
    comments. D is the device. A list of (name, [NQ, KIND...], [command...])."""
    found = []
    for line in text.splitlines():
        if line.startswith('## '):
            found.append((line[3:], [], []))
        elif not found or line.startswith('# '):
            continue
        elif not found[-1][1]:
            found[-1][1].extend(line.split())
        else:
            found[-1][2].append(line)
    return found


def main():
    text = sys.stdin.read()
    # The kinds of mqtx this kernel lacks (it may be built without them): their refusals by
    # the kernel are compared by exit code only, and scenarios that need them are skipped.
    lacks = [k for k in ('prio', 'codel', 'fq_codel', 'mqprio', 'htb', 'ets',
                           'netem')
             if not kernel_has(k)]
    tmp = tempfile.mkdtemp(prefix='mqtx-parity-')
    sock = os.path.join(tmp, 'mqtx.sock')
    log = open(os.path.join(tmp, 'mqtxd.log'), 'w+')
    d = start_daemon(sys.argv[1], sock, log)
    client = Client(sock)
    try:
        p = Parity(client, lacks)
        for name, first, cmds in scenarios(text):
            p.scenario(name, first[0], first[1:], cmds)
            if d.poll() is not None:
                fail('mqtxd died (exit %d) in scenario "%s"' % (d.returncode, name))
                break
    finally:
        client.close()
        kdev_del()
        if d.poll() is None:
            d.send_signal(signal.SIGTERM)
            try:
                rc = d.wait(timeout=limit(10))
            except subprocess.TimeoutExpired:
                d.kill()
                rc = -1
            if rc != 0:
                log.seek(0)
                fail('mqtxd exited %d on SIGTERM: %s' % (rc, log.read()[-2000:]))
        log.close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    print('%d failed' % fails)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())

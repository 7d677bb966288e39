#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The bad-input table (tests/bad-input.txt): bad commands, command files, captures and frames,
# each with the exact message it must get, which must name the offending input.
#   bad_input.py --mqtx MQTX --mqtxd MQTXD --cases FILE [--print]
# --print runs every case and prints what it got, to write or review the table.
# Cases run through mqtx -batch (commands after a prelude of devices, or a whole command file)
# or mqtxd -c (a configuration file); see the head of the table for its format.
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mqtx_client import limit  # noqa: E402

PRELUDE = ['dev add eth0 type null txqueues 4 up', 'dev add lo1 type null up',
           'dev add s0 type sim txqueues 2 ring 64 up', 'dev add down0 type null txqueues 2']


def parse(path):
    cases, cur = [], None
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if line.startswith('## '):
            cur = {'title': line[3:], 'line': n, 'cmd': [], 'batch': [], 'config': [],
                   'files': [], 'exit': None, 'token': [], 'msg': [], 'show': [], 'out': [],
                   'users': []}
            cases.append(cur)
        elif not line or line.startswith('#'):
            continue
        elif cur is None or len(line) < 2 or line[1] != ' ':
            sys.exit('%s:%d: not a case line: %s' % (path, n, line))
        else:
            k, v = line[0], line[2:]
            key = {'$': 'cmd', '<': 'batch', 'c': 'config', 'x': 'files', '?': 'token',
                   '!': 'msg', 's': 'show', 'o': 'out', '@': 'users'}.get(k)
            if k == '=':
                cur['exit'] = int(v)
            elif key:
                cur[key].append(v)
            else:
                sys.exit('%s:%d: unknown line kind %r' % (path, n, k))
    return cases


def expand(s, tmp, data):
    """@TMP@: the case's own folder; @DATA@: tests/data; @LONG@: a word of 70000 bytes."""
    return s.replace('@TMP@', tmp).replace('@DATA@', data).replace('@LONG@', 'x' * 70000)


GROUP = 4242  # the group of the daemon's clients, in no file: setpriv gives it


def run_users(c, args, tmp):
    """The '@ UID COMMAND' lines, in order, each through mqtx run as UID (a member of GROUP
    only) against an mqtxd of the case's own, started by root with -g GROUP; the last one is
    the case's. A copy of mqtx in the case's folder, which every user may enter."""
    os.chmod(tmp, 0o755)
    mqtx = os.path.join(tmp, 'mqtx')
    shutil.copy(args.mqtx, mqtx)
    os.chmod(mqtx, 0o755)
    sock = os.path.join(tmp, 'sock')
    d = subprocess.Popen([args.mqtxd, '-S', sock, '-g', str(GROUP)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if os.path.exists(sock) or d.poll() is not None:
                break
            time.sleep(0.05)
        p = None
        for u in c['users']:
            uid, _, cmd = u.partition(' ')
            who = [] if uid == '0' else ['setpriv', '--reuid=' + uid,
                                         '--regid=%d' % GROUP, '--clear-groups']
            p = subprocess.run(who + [mqtx, '-S', sock] + cmd.split(), capture_output=True,
                               text=True, timeout=limit(60))
        out = ''.join(subprocess.run([mqtx, '-S', sock] + cmd.split(), capture_output=True,
                                     text=True, timeout=limit(60)).stdout for cmd in c['show'])
        return p.returncode, p.stderr, out
    finally:
        d.terminate()
        d.communicate(timeout=limit(30))


def run_case(c, args, tmp, data):
    if c['users']:
        return run_users(c, args, tmp)
    for f in c['files']:
        name, _, hexbytes = f.partition(' ')
        with open(os.path.join(tmp, name), 'wb') as fh:
            for tok in hexbytes.split():  # hex bytes; HH*N is byte HH N times
                b, _, n = tok.partition('*')
                fh.write(bytes.fromhex(b) * (int(n) if n else 1))
    if c['config']:
        cfg = os.path.join(tmp, 'config')
        with open(cfg, 'w', encoding='utf-8', newline='') as fh:
            fh.write(''.join(expand(l, tmp, data).replace('\\0', '\0') + '\n'
                             for l in c['config']))
        p = subprocess.run([args.mqtxd, '-S', os.path.join(tmp, 'sock'), '-c', cfg],
                           capture_output=True, text=True, timeout=limit(30))
        return p.returncode, p.stderr.replace(cfg, '@CONFIG@'), ''
    batch = os.path.join(tmp, 'batch')
    lines = c['batch'] if c['batch'] else PRELUDE + c['cmd']
    with open(batch, 'w', encoding='utf-8', newline='') as fh:
        fh.write(''.join(expand(l, tmp, data).replace('\\0', '\0') + '\n' for l in lines))
    p = subprocess.run([args.mqtx, '-batch', batch], capture_output=True, text=True,
                       timeout=limit(60))
    err = p.stderr.replace(batch, '@BATCH@').replace(tmp, '@TMP@').replace(data, '@DATA@')
    # What is not a message: the line that says which command failed, and a job's progress.
    err = '\n'.join(l for l in err.splitlines() if not l.startswith('Command failed ') and
                    not re.match(r'(gen|replay) \d+ dev ', l))
    out = ''
    if c['show']:
        with open(batch, 'w', encoding='utf-8') as fh:
            fh.write(''.join(expand(l, tmp, data) + '\n' for l in PRELUDE + c['cmd'] +
                             c['show']))
        q = subprocess.run([args.mqtx, '-force', '-batch', batch], capture_output=True,
                           text=True, timeout=limit(60))
        out = q.stdout
    return p.returncode, err, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mqtx', required=True)
    ap.add_argument('--mqtxd', required=True)
    ap.add_argument('--cases', required=True)
    ap.add_argument('--print', action='store_true')
    args = ap.parse_args()
    data = os.path.join(os.environ.get('MQTX_SRCDIR', '.'), 'tests', 'data')
    cases = parse(args.cases)
    passed = failed = 0
    print('1..%d' % len(cases))
    for i, c in enumerate(cases, 1):
        if c['users'] and os.geteuid() != 0:
            passed += 1
            print('ok %d %s # skip: other users need root' % (i, c['title']))
            continue
        tmp = tempfile.mkdtemp(prefix='mqtx-bad-')
        try:
            rc, err, out = run_case(c, args, tmp, data)
        finally:
            shutil.rmtree(tmp)
        if args.print:
            print('## %s\n= %d\n%s' % (c['title'], rc,
                                        ''.join('! %s\n' % l for l in err.splitlines())))
            continue
        why = []
        if c['exit'] is not None and rc != c['exit']:
            why.append('exit %d, want %d' % (rc, c['exit']))
        if err.splitlines() != c['msg']:
            why.append('message:\n#   got:  %s\n#   want: %s' %
                       ('\n#         '.join(err.splitlines()), '\n#         '.join(c['msg'])))
        if not c['token'] and c['msg']:
            why.append('the case does not say which input is offending (? line)')
        for t in c['token']:
            if t not in err:
                why.append('the message does not name the offending input %r' % t)
        for pat in c['out']:
            if not re.search(pat, out, re.M):
                why.append('show output does not match %r:\n%s' % (pat, out))
        if why:
            failed += 1
            print('not ok %d %s (line %d)\n# %s' % (i, c['title'], c['line'],
                                                   '\n# '.join(why)))
        else:
            passed += 1
            print('ok %d %s' % (i, c['title']))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

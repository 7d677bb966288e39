#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Run tc-testing (tdc) JSON cases against a real mqtxd: $TC is mqtx talking to a daemon this
# runner starts on a temporary socket. Prints TAP; exit 0 when every case passed or skipped.
# A "$TC" command of plain words that mqtx would only hand to mqtxd and print the reply of goes
# over the runner's own connection instead (tests/mqtx_client.py): an mqtx and a shell for each
# of some 1200 such commands took most of the time, a sanitized mqtx more. Anything else (the
# tool's own options, help, jobs it waits for, files, pipes and redirections) runs through the
# shell as written; --per-process runs every command so.
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mqtx_client import Client, limit, passes_through, start_daemon  # noqa: E402

# The runner's connection to mqtxd, or None with --per-process.
client = None
PLAIN = re.compile(r'[A-Za-z0-9_.:/@=+,%-]+( [A-Za-z0-9_.:/@=+,%-]+)*')

def run(cmd, env, timeout=30):
    """A command that hangs fails its case (exit code -1) instead of stopping the run; it is
    killed with everything it started."""
    p = subprocess.Popen(cmd, shell=True, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    timeout = limit(timeout)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return -1, '', 'timed out after %d s' % timeout
    return p.returncode, out, err


def subst(cmd, env):
    for k in ('TC', 'MQTXD', 'MQTX', 'SOCK', 'TMP', 'SRCDIR'):  # MQTXD before its prefix
        cmd = cmd.replace('$' + k, env[k])
    return cmd


def execute(cmd, env):
    """A case's command, run as mqtx would run it: (exit code, output, error text)."""
    if client and cmd.startswith('$TC '):
        words = subst(cmd[len('$TC '):], env)
        p = passes_through(words.split(' ')) if PLAIN.fullmatch(words) else None
        if p:
            try:
                return client.exec(p[1], p[0])
            except OSError as e:
                client.close()
                return -1, '', 'mqtxd: %s' % e
    return run(subst(cmd, env), env)


def run_stage(stage, env, what):
    """setup/teardown: a string must exit 0; [cmd, codes...] lists acceptable codes."""
    for item in stage or []:
        if isinstance(item, list):
            cmd, ok = item[0], [int(c) for c in item[1:]]
        else:
            cmd, ok = item, [0]
        rc, out, err = execute(cmd, env)
        if rc not in ok:
            return '%s "%s" exited %d: %s' % (what, cmd, rc, (err or out).strip())
    return None


def json_match(out, exp):
    """tdc's matchJSON: every key and list element @exp has, @out has with the same value
    (more keys and trailing elements in @out are allowed)."""
    if isinstance(exp, list):
        return (isinstance(out, list) and len(exp) <= len(out) and
                all(json_match(o, e) for o, e in zip(out, exp)))
    if isinstance(exp, dict):
        return isinstance(out, dict) and all(k in out and json_match(out[k], v)
                                             for k, v in exp.items())
    return out == exp


def run_case(tc, env):
    """Return (ok, message)."""
    msg = run_stage(tc.get('setup'), env, 'setup')
    if msg:
        run_stage(tc.get('teardown'), env, 'teardown')
        return False, msg
    rc, out, err = execute(tc['cmdUnderTest'], env)
    ok, msg = True, ''
    if rc != int(tc['expExitCode']):
        ok, msg = False, 'command exited %d, expected %s: %s' % (rc, tc['expExitCode'],
                                                                 (err or out).strip())
    elif tc.get('verifyCmd') and 'matchJSON' in tc:
        vrc, vout, verr = execute(tc['verifyCmd'], env)
        try:
            got = json.loads(vout)
        except ValueError as e:
            got, msg = None, 'not JSON (%s): %s' % (e, vout + verr)
        if got is None or not json_match(got, tc['matchJSON']):
            ok, msg = False, msg or 'JSON %s does not match %s' % (vout.strip(),
                                                                   json.dumps(tc['matchJSON']))
    elif tc.get('verifyCmd'):
        vrc, vout, verr = execute(tc['verifyCmd'], env)
        found = re.findall(tc['matchPattern'], vout, re.DOTALL | re.MULTILINE)
        if len(found) != int(tc['matchCount']):
            ok, msg = False, 'pattern "%s" matched %d times, expected %s in:\n%s' % (
                tc['matchPattern'], len(found), tc['matchCount'], vout + verr)
    tmsg = run_stage(tc.get('teardown'), env, 'teardown')
    if tmsg and ok:
        ok, msg = False, tmsg
    return ok, msg


def print_tail(path, most=40):
    """The end of the daemon's log, as TAP comments: what it said before a failure."""
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()[-most:]
    if lines:
        print('# the end of mqtxd\'s output:')
    for line in lines:
        print('#   ' + line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mqtx', required=True)
    ap.add_argument('--mqtxd', required=True)
    ap.add_argument('--cases', required=True, help='a directory of *.json or one file')
    ap.add_argument('-c', '--category', action='append', help='only these categories')
    ap.add_argument('--per-process', action='store_true',
                    help='every command through the shell and an mqtx, as typed')
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.cases, '*.json'))) \
        if os.path.isdir(args.cases) else [args.cases]
    cases = []
    for f in files:
        with open(f) as fh:
            for tc in json.load(fh):
                tc['_file'] = os.path.basename(f)
                cases.append(tc)
    ids = [tc['id'] for tc in cases]
    dup = set(i for i in ids if ids.count(i) > 1)
    if dup:
        raise SystemExit('duplicate ids: %s' % ', '.join(sorted(dup)))
    tmp = tempfile.mkdtemp(prefix='mqtx-tdc-')
    sock = os.path.join(tmp, 'mqtx.sock')
    log = open(os.path.join(tmp, 'mqtxd.log'), 'w')
    d = start_daemon(args.mqtxd, sock, log)
    global client
    client = None if args.per_process else Client(sock)
    env = dict(os.environ, TC='%s -S %s' % (args.mqtx, sock), MQTX=args.mqtx,
               MQTXD=args.mqtxd, SOCK=sock, TMP=tmp,
               SRCDIR=os.environ.get('MQTX_SRCDIR', '.'))
    # Commands another part provides (qdisc, class) may not be built in yet: skip their cases.
    known = {}
    for obj in ('qdisc', 'class'):
        rc, out, err = run('%s %s help' % (env['TC'], obj), env)
        known[obj] = 'unknown' not in (out + err)
    print('1..%d' % len(cases))
    failed = 0
    try:
        for n, tc in enumerate(cases, 1):
            cats = tc.get('category', [])
            name = '%s %s (%s)' % (tc['id'], tc['name'], tc['_file'])
            if tc.get('skip') == 'yes' or (args.category and
                                           not set(cats) & set(args.category)):
                print('ok %d %s # skip: %s' % (n, name, tc.get('skipReason', 'by request')))
                continue
            missing = [c for c in cats if c in known and not known[c]]
            if missing:
                print('ok %d %s # skip: "%s" is not built in' % (n, name, missing[0]))
                continue
            ok, msg = run_case(tc, env)
            if ok:
                print('ok %d %s' % (n, name))
            else:
                failed += 1
                print('not ok %d %s' % (n, name))
                for line in msg.splitlines():
                    print('#   ' + line)
            if d.poll() is not None:
                print('Bail out! mqtxd died (exit %d) after case %s' % (d.returncode, tc['id']))
                failed += 1
                break
    finally:
        if client:
            client.close()
        if d.poll() is None:
            d.send_signal(signal.SIGTERM)
            try:
                rc = d.wait(timeout=limit(10))
            except subprocess.TimeoutExpired:
                d.kill()
                rc = -1
            if rc != 0:
                print('# mqtxd exited %d on SIGTERM' % rc)
                failed += 1
        log.close()
        if failed:
            print_tail(os.path.join(tmp, 'mqtxd.log'))
        shutil.rmtree(tmp, ignore_errors=True)
    print('# %d failed' % failed)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

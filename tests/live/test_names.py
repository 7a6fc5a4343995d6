#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test: hostile process names never reach the terminal raw, and JSON
and CSV stay well-formed.

Starts a process whose comm (the name of the executable, a symlink to
sh, which waits for a sleep) and command line hold an escape sequence, a carriage return, a
newline, a tab and bytes that are not UTF-8, then runs exmtop -b on it in
text, CSV and JSON (default source: pagemap as root, smaps otherwise) and
checks:
  - every output is valid UTF-8 with no control character but newline;
  - text: one header line and exactly one row for the process (a newline
    in its name does not break the table);
  - CSV: parses, one row with as many fields as the header;
  - JSON: parses strictly; the process is there and its comm/cmd still
    show the printable part of the names.
A second process renames itself with prctl(PR_SET_NAME) to a valid UTF-8
name holding ESC, BEL, a newline and a tab: JSON gives that name back
exactly (JSON's own escapes), text shows one row, OpenMetrics has no
control byte and passes `promtool check metrics` (when installed). Error
messages that repeat a hostile file name are one line without control
bytes, and so is every output of a replay of a recording with such a
name (the summary line and --diff repeat it).
"""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

EVIL_COMM = b"ev\x1b[2J\rl\xff\n"      # comm keeps 15 bytes of the name
EVIL_ARG = b"arg\x1b]0;pwned\x07\n\tx\xc3(\x9b31m"
# valid UTF-8, 15 bytes: what PR_SET_NAME keeps whole
PRCTL_NAME = "p\x1b[2J\x07\nq\t\u00e9rxyz"
RENAMER = """
import ctypes, sys, time
libc = ctypes.CDLL(None)
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)   # PR_SET_NAME
time.sleep(1000)
"""


def raw_exmtop(args):
    p = subprocess.run([exmlive.EXMTOP] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout, p.stderr


def clean(c, out, what):
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        c.check(False, "%s is valid UTF-8 (%s)" % (what, e))
        return None
    ctl = sorted({"%#x" % ord(ch) for ch in text
                  if (ord(ch) < 0x20 and ch != "\n") or 0x7f <= ord(ch) < 0xa0})
    c.eq(ctl, [], what + " has no control characters but newline")
    return text


def main():
    c = exmlive.Checker("live names")
    tmp = tempfile.mkdtemp(prefix="exm-names-")
    evil = os.path.join(tmp.encode(), EVIL_COMM)
    os.symlink("/bin/sh", evil)
    proc = subprocess.Popen([evil, "-c", "sleep 1000; exit 0", EVIL_ARG],
                            start_new_session=True)
    try:
        for _ in range(100):
            with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
                if EVIL_ARG in f.read():
                    break
            time.sleep(0.02)
        else:
            raise RuntimeError("evil process did not start")
        pid = str(proc.pid)

        rc, out, err = raw_exmtop(["-b", "--bytes", "-p", pid])
        c.eq(rc, 0, "text exit status (%r)" % err[:200])
        text = clean(c, out, "text output")
        if text is not None:
            rows = [ln for ln in text.splitlines()
                    if ln.split() and ln.split()[0] == pid]
            c.eq(len(rows), 1, "text has one row for the process:\n" + text)

        rc, out, err = raw_exmtop(["-b", "--bytes", "--format", "csv",
                                   "-p", pid])
        c.eq(rc, 0, "csv exit status (%r)" % err[:200])
        text = clean(c, out, "csv output")
        if text is not None:
            rows = list(csv.reader(io.StringIO(text)))
            c.check(len(rows) >= 2, "csv has a header and a row")
            if rows:
                w = len(rows[0])
                c.eq([len(r) for r in rows[1:] if r], [w],
                     "csv: one row as wide as the header")

        rc, out, err = raw_exmtop(["-b", "--bytes", "--format", "json",
                                   "-p", pid])
        c.eq(rc, 0, "json exit status (%r)" % err[:200])
        try:
            doc = json.loads(out.decode("utf-8"))
        except ValueError as e:
            c.check(False, "json parses strictly (%s)" % e)
            doc = {}
        procs = doc.get("processes") or []
        if c.eq(len(procs), 1, "json lists the process"):
            p = procs[0]
            c.check("ev" in (p.get("comm") or ""), "json comm %r keeps "
                    "its printable part" % p.get("comm"))
            c.check("arg" in (p.get("cmd") or "") and "pwned" in
                    (p.get("cmd") or ""), "json cmd %r keeps its printable "
                    "part" % p.get("cmd"))
        check_prctl_name(c)
        check_error_paths(c, tmp)
        check_replay_name(c, tmp)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


def check_prctl_name(c):
    """A process renamed with prctl: the name round-trips through JSON,
    and no format lets a control byte through."""
    assert len(PRCTL_NAME.encode()) == 15
    proc = subprocess.Popen([sys.executable, "-c", RENAMER, PRCTL_NAME],
                            start_new_session=True)
    try:
        for _ in range(250):
            with open("/proc/%d/comm" % proc.pid, "rb") as f:
                if f.read() == PRCTL_NAME.encode() + b"\n":
                    break
            time.sleep(0.02)
        else:
            raise RuntimeError("the renamer did not rename itself")
        pid = str(proc.pid)
        rc, out, err = raw_exmtop(["-b", "--format", "json", "-p", pid])
        c.eq(rc, 0, "prctl json exit status (%r)" % err[:200])
        clean(c, out, "prctl json output")
        procs = json.loads(out.decode("utf-8")).get("processes") or []
        if c.eq(len(procs), 1, "prctl json lists the process"):
            c.eq(procs[0].get("comm"), PRCTL_NAME,
                 "prctl name round-trips through JSON")
        c.check(b"\\n" in out and b"\\u001b" in out and b"\\t" in out,
                "JSON's own escapes (\\n, \\u001b, \\t)")
        rc, out, err = raw_exmtop(["-b", "-p", pid])
        c.eq(rc, 0, "prctl text exit status")
        text = clean(c, out, "prctl text output")
        if text is not None:
            rows = [ln for ln in text.splitlines()
                    if ln.split() and ln.split()[0] == pid]
            c.eq(len(rows), 1, "prctl text: one row:\n" + text)
        rc, out, err = raw_exmtop(["-b", "--format", "openmetrics",
                                   "--top", "1000000", "-p", pid])
        c.eq(rc, 0, "openmetrics exit status")
        text = clean(c, out, "prctl openmetrics output")
        c.check(text is not None and
                'comm="p\\\\e[2J\\\\x07\\\\nq\\\\t\u00e9rxyz"' in text,
                "openmetrics label shows the name escaped")
        promtool = shutil.which("promtool")
        if promtool:
            p = subprocess.run([promtool, "check", "metrics"], input=out,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
            c.eq(p.returncode, 0, "promtool check metrics: %r" % p.stdout)
        for fmt in ("csv", "text"):
            rc, out, err = raw_exmtop(["-b", "--format", fmt, "--files",
                                       "-p", pid])
            c.eq(rc, 0, "%s --files exit status" % fmt)
            clean(c, out, "prctl %s --files output" % fmt)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def check_replay_name(c, tmp):
    """A recording with a hostile file name: its name is repeated by the
    summary line, --diff and the errors, never raw."""
    rec = os.path.join(tmp.encode(), b"rec\x1b[2J\x07\n\xff.exmrec")
    rc, out, err = raw_exmtop(["-b", "-n", "1", "--source", "fixture:basic",
                               "--record", rec])
    c.eq(rc, 0, "recording under a hostile name (%r)" % err[:200])
    libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    for args in ([], ["--format", "csv"], ["--format", "json"],
                 ["--format", "openmetrics"], ["--system"], ["--units"],
                 ["--sections", libc], ["--pagemap", libc]):
        rc, out, err = raw_exmtop(["-b", "--replay", rec] + args)
        c.eq(rc, 0, "replay %r exit status (%r)" % (args, err[:200]))
        clean(c, out, "replay %r output" % args)
    rc, out, err = raw_exmtop(["--diff", rec, rec])
    c.eq(rc, 0, "--diff of the recording")
    clean(c, out, "--diff output")
    rc, out, err = raw_exmtop(["-b", "--replay", rec, "--from", "9"])
    c.eq(rc, 2, "--from 9 refused")
    clean(c, err, "--from 9 error")


def check_error_paths(c, tmp):
    """Errors that repeat a hostile name: one line, no control byte."""
    name = os.path.join(tmp, "lib\x1b[2J\x07\nx.so")
    for args in (["--pagemap", name], ["--sections", name],
                 ["--replay", name], ["-u", "\x1b]0;x\x07\n"],
                 ["--output", os.path.join(tmp, "no\ndir\x1b", "x")]):
        rc, out, err = raw_exmtop(["-b"] + args)
        c.check(rc in (1, 2), "%r: exit status 1 or 2 (%d)" % (args, rc))
        c.eq(err.count(b"\n"), 1, "%r: one line (%r)" % (args, err))
        clean(c, err, "%r: stderr" % args)


if __name__ == "__main__":
    exmlive.run_main(main)

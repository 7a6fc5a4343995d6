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
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

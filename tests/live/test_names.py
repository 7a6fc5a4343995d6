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

A backslash is doubled wherever text, CSV and OpenMetrics escape: a
process named `b\\nq` (a backslash and an n) mapping the files `f\\nx`
and `f<newline>x` shows `b\\\\nq`, `f\\\\nx` and `f\\nx`, never two names
alike; JSON gives the names back exactly.

A command line of 600 KB (six arguments of 100 KB) is whole in CSV and
in text written to a file or pipe, as in JSON; on a terminal (a pty of
100 columns) text cuts it at the terminal's width, not before.
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
        check_backslash(c, tmp)
        check_long_cmdline(c)
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


MAPPER = """
import ctypes, mmap, os, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)  # PR_SET_NAME
maps = []
for path in sys.argv[2:]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.write(fd, b"x" * 4096)
    maps.append(mmap.mmap(fd, 4096))
    maps[-1][0]  # resident
print("ready", flush=True)
time.sleep(1000)
"""


def check_backslash(c, tmp):
    """A backslash in a comm, a command line and file names: doubled in
    text, CSV and OpenMetrics, so that a backslash and an n never reads as
    an escaped newline; exact in JSON."""
    comm = "b\\nq"  # b, backslash, n, q
    lit = os.path.join(tmp, "f\\nx")  # a backslash and an n
    nl = os.path.join(tmp, "f\nx")  # a newline
    proc = subprocess.Popen([sys.executable, "-c", MAPPER, comm, lit, nl],
                            stdout=subprocess.PIPE, start_new_session=True)
    try:
        if proc.stdout.readline() != b"ready\n":
            raise RuntimeError("the mapper did not start")
        pid = str(proc.pid)
        tmp_esc = tmp.replace("\\", "\\\\")
        want_lit = tmp_esc + "/f\\\\nx"  # as text shows: f\\nx
        want_nl = tmp_esc + "/f\\nx"  # f\nx
        fields = ["--fields", "pid,comm,cmd"]
        rc, out, err = raw_exmtop(["-b", "--format", "csv",
                                   "--scan-pids", pid] + fields)
        c.eq(rc, 0, "backslash csv exit status (%r)" % err[:200])
        rows = list(csv.DictReader(io.StringIO(out.decode())))
        if c.eq(len(rows), 1, "backslash csv: one row"):
            c.eq(rows[0]["comm"], "b\\\\nq", "csv comm: backslash doubled")
            c.check(rows[0]["cmd"].endswith(
                " b\\\\nq %s %s" % (want_lit, want_nl)),
                "csv cmd: backslashes doubled, the newline \\n (%r)" %
                rows[0]["cmd"])
        rc, out, err = raw_exmtop(["-b", "--scan-pids", pid] + fields)
        c.eq(rc, 0, "backslash text exit status")
        rows = [ln for ln in out.decode().splitlines()
                if ln.split() and ln.split()[0] == pid]
        if c.eq(len(rows), 1, "backslash text: one row"):
            c.eq(rows[0].split()[1], "b\\\\nq",
                 "text comm: backslash doubled")
            c.check(rows[0].endswith(" b\\\\nq %s %s" % (want_lit, want_nl)),
                    "text cmd: backslashes doubled (%r)" % rows[0])
        for fmt in ("csv", "text"):
            rc, out, err = raw_exmtop(["-b", "--files", "--format", fmt,
                                       "--scan-pids", pid])
            c.eq(rc, 0, "backslash %s --files exit status" % fmt)
            text = out.decode()
            names = sorted(ln.rsplit(",", 1)[-1] if fmt == "csv"
                           else ln.split()[-1]
                           for ln in text.splitlines() if tmp_esc in ln)
            c.eq(names, sorted([want_lit, want_nl]),
                 "%s --files: the two files apart" % fmt)
        rc, out, err = raw_exmtop(["-b", "--format", "json", "--files",
                                   "--scan-pids", pid])
        doc = json.loads(out.decode())
        c.eq(sorted(f["file"] for f in doc.get("files", [])
                    if f["file"].startswith(tmp)), sorted([lit, nl]),
             "json --files: the names exactly")
        rc, out, err = raw_exmtop(["-b", "--format", "json", "--scan-pids",
                                   pid] + fields)
        doc = json.loads(out.decode())
        c.eq([p["comm"] for p in doc.get("processes", [])], [comm],
             "json comm exactly")
        rc, out, err = raw_exmtop(["-b", "--format", "openmetrics",
                                   "--top", "1000000", "--scan-pids", pid])
        c.check('comm="b\\\\\\\\nq"' in out.decode(),
                "openmetrics label: the backslash doubled, then escaped")
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def pty_run(args, cols):
    """exmtop args with its output on a pseudo-terminal of cols columns:
    (status, output)."""
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols,
                                                       0, 0))
    attr = termios.tcgetattr(slave)
    attr[1] &= ~termios.OPOST  # no \r added to each newline
    termios.tcsetattr(slave, termios.TCSANOW, attr)
    p = subprocess.Popen([exmlive.EXMTOP] + args, stdout=slave,
                         stderr=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=120), out.decode("utf-8", "replace")


def check_long_cmdline(c):
    """600 KB of command line, whole in CSV and in text to a pipe, cut at
    the width on a terminal."""
    csv.field_size_limit(1 << 24)
    args = ["%d%s" % (i, "a" * 100000) for i in range(6)]
    proc = subprocess.Popen(["/bin/sh", "-c", "sleep 1000; exit 0",
                             "x"] + args, start_new_session=True)
    want = " ".join(["/bin/sh", "-c", "sleep 1000; exit 0", "x"] + args)
    try:
        for _ in range(250):
            with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
                if len(f.read()) > 600000:
                    break
            time.sleep(0.02)
        pid = str(proc.pid)
        fields = ["--fields", "pid,cmd"]
        rc, out, err = raw_exmtop(["-b", "--format", "json",
                                   "--scan-pids", pid] + fields)
        procs = json.loads(out.decode()).get("processes") or [{}]
        c.eq(len(procs[0].get("cmd", "")), len(want),
             "long cmdline: JSON's is whole")
        rc, out, err = raw_exmtop(["-b", "--format", "csv",
                                   "--scan-pids", pid] + fields)
        rows = list(csv.DictReader(io.StringIO(out.decode())))
        c.check(len(rows) == 1 and rows[0]["cmd"] == want,
                "long cmdline: CSV's is whole (%d bytes of %d)" %
                (len(rows[0]["cmd"]) if rows else -1, len(want)))
        rc, out, err = raw_exmtop(["-b", "--scan-pids", pid] + fields)
        rows = [ln for ln in out.decode().splitlines()
                if ln.split() and ln.split()[0] == pid]
        c.check(len(rows) == 1 and rows[0].endswith(" " + want),
                "long cmdline: text to a pipe is whole (%d bytes)" %
                (len(rows[0]) if rows else -1))
        rc, out = pty_run(["-b", "--scan-pids", pid] + fields, 100)
        c.eq(rc, 0, "long cmdline on a terminal: exit status")
        lines = out.splitlines()
        rows = [ln for ln in lines if ln.split() and ln.split()[0] == pid]
        c.check(len(rows) == 1 and len(rows[0]) == 100 and
                want.startswith(rows[0].split(None, 1)[1]),
                "long cmdline on a terminal of 100 columns: cut at 100 "
                "(%r)" % [r[:120] for r in rows])
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

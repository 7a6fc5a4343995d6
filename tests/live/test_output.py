#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--output writes safely to whatever is at the path (core/outfile.c).

Runs exmtop -b on the hostile fixture (no system state needed) with
--output to:
  - a character device (as root a private node with /dev/null's numbers,
    so a regression cannot replace the machine's own; else /dev/null):
    it stays that device (same type, numbers and inode);
  - a FIFO with a reader: the reader gets every snapshot (-n 2: two
    OpenMetrics documents, each ending in "# EOF"), the FIFO stays; when
    the reader leaves, exmtop stops quietly (exit status 0);
  - a symbolic link to a file: the link stays a link to it, the file
    holds the snapshot;
  - a new path: made, mode 0644, holding the snapshot;
  - an existing file exmtop did not make, with a write that fails (the file
    size limit, as a full disk): exit status 1, one line, the file as it
    was, no temporary file left;
  - a directory: refused, exit status 2, one line, nothing made;
  - every mode that prints (--pagemap FILE, --sections, --diff of a
    recording): the file holds what stdout shows;
  - the live screen (no -b): --output refused, exit status 2, one line;
  - three snapshots: JSON is three lines, each a document with its time;
    CSV has one header and rows of snapshots 1, 2 and 3.
Whatever is written is what stdout would show.
"""

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

ARGS = ["-b", "--source", "fixture:hostile"]


def run(args, preexec=None, base=ARGS):
    p = subprocess.run([exmlive.EXMTOP] + base + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60, preexec_fn=preexec)
    return p.returncode, p.stdout, p.stderr


def table(out):
    """The text output less its summary lines (which hold the time taken)."""
    return [ln for ln in out.split(b"\n") if not ln.startswith(b"fixture:")]


def one_line(c, err, what):
    c.eq(err.count(b"\n"), 1, what + ": one line on stderr (%r)" % err)


def main():
    c = exmlive.Checker("output")
    tmp = tempfile.mkdtemp(prefix="exm-output-")
    try:
        rc, want, err = run([])
        c.eq(rc, 0, "stdout run")
        want = table(want)
        c.check(len(want) > 5, "the fixture lists its processes")

        # a character device
        if os.geteuid() == 0:
            dev = os.path.join(tmp, "null")
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
        else:
            dev = "/dev/null"
        before = os.lstat(dev)
        rc, out, err = run(["--output", dev])
        after = os.lstat(dev)
        c.eq(rc, 0, "device: exit status")
        c.check(stat.S_ISCHR(after.st_mode), "device: still a device")
        c.eq((after.st_rdev, after.st_ino), (before.st_rdev, before.st_ino),
             "device: the same node")
        c.eq(out, b"", "device: nothing on stdout")

        # a FIFO with a reader
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        got = []

        def reader():
            with open(fifo, "rb") as f:
                got.append(f.read())
        # a daemon: a binary that replaces the FIFO leaves the reader
        # blocked in open() for ever, which must not hang the test
        t = threading.Thread(target=reader, daemon=True)
        t.start()
        rc, out, err = run(["--output", fifo, "-n", "2", "-d", "0.1",
                            "--format", "openmetrics"])
        t.join(30)
        c.eq(rc, 0, "fifo: exit status (%r)" % err)
        c.check(not t.is_alive(), "fifo: the reader saw the end")
        text = got[0] if got else b""
        c.eq(text.count(b"# EOF\n"), 2, "fifo: the reader got both snapshots")
        c.check(b'comm="evil' in text, "fifo: the reader got the rows")
        c.check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "fifo: still a FIFO")

        # a FIFO whose reader leaves after the first snapshot: exmtop stops
        # quietly, as with a pipe on stdout
        def reader_one():
            with open(fifo, "rb") as f:
                while b"# EOF\n" not in f.readline():
                    pass
        t = threading.Thread(target=reader_one, daemon=True)
        t.start()
        start = time.monotonic()
        rc, out, err = run(["--output", fifo, "-n", "100", "-d", "0.1",
                            "--format", "openmetrics"])
        c.eq((rc, err), (0, b""), "fifo reader gone: exit 0, nothing said")
        c.check(time.monotonic() - start < 8, "fifo reader gone: stopped")

        # a symbolic link to a file
        target = os.path.join(tmp, "target.txt")
        with open(target, "w") as f:
            f.write("old\n")
        os.chmod(target, 0o640)
        link = os.path.join(tmp, "link")
        os.symlink("target.txt", link)
        rc, out, err = run(["--output", link])
        c.eq(rc, 0, "symlink: exit status")
        if c.check(os.path.islink(link), "symlink: still a link"):
            c.eq(os.readlink(link), "target.txt", "symlink: to the same file")
        with open(target, "rb") as f:
            c.eq(table(f.read()), want, "symlink: its target holds the text")
        c.eq(stat.S_IMODE(os.stat(target).st_mode), 0o640,
             "symlink: the target keeps its mode")

        # a new path
        new = os.path.join(tmp, "new.txt")
        rc, out, err = run(["--output", new])
        c.eq(rc, 0, "new: exit status")
        with open(new, "rb") as f:
            c.eq(table(f.read()), want, "new: holds the text")
        c.eq(stat.S_IMODE(os.stat(new).st_mode), 0o644, "new: mode 0644")

        # a file exmtop did not make, and a write that fails
        keep = os.path.join(tmp, "keep.txt")
        with open(keep, "w") as f:
            f.write("precious\n")

        def small_files():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
        rc, out, err = run(["--output", keep], preexec=small_files)
        c.eq(rc, 1, "failed write: exit status")
        one_line(c, err, "failed write")
        c.check(b"File too large" in err, "failed write: says why")
        with open(keep) as f:
            c.eq(f.read(), "precious\n", "failed write: the file as it was")

        # a directory
        d = os.path.join(tmp, "dir")
        os.mkdir(d)
        rc, out, err = run(["--output", d])
        c.eq(rc, 2, "directory: exit status")
        one_line(c, err, "directory")
        c.eq(os.listdir(d), [], "directory: nothing made in it")

        c.eq(sorted(os.listdir(tmp)),
             sorted(["dir", "fifo", "keep.txt", "link", "new.txt",
                     "target.txt"] +
                    (["null"] if dev != "/dev/null" else [])),
             "no temporary file left")

        # the other modes that print
        mode_dir = os.path.join(tmp, "modes")
        os.mkdir(mode_dir)
        rec = os.path.join(mode_dir, "r.exmrec")
        rc, out, err = run(["-n", "2", "-d", "0.1", "--record", rec])
        c.eq(rc, 0, "a recording for --diff (%r)" % err)
        libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
        basic = ["--source", "fixture:basic"]
        for name, args in (("pagemap", basic + ["--pagemap", libc]),
                           ("sections", basic + ["--sections", libc]),
                           ("diff", ["--diff", rec])):
            path = os.path.join(mode_dir, name)
            rc1, out, err = run(args, base=["-b"])
            rc2, out2, err2 = run(args + ["--output", path], base=["-b"])
            c.eq((rc1, rc2), (0, 0), "%s: exit status (%r)" % (name, err2))
            c.eq(out2, b"", "%s: nothing on stdout" % name)
            got = b""
            if c.check(os.path.exists(path), "%s: the file made" % name):
                with open(path, "rb") as f:
                    got = f.read()
            c.check(len(got) > 50, "%s: written" % name)
            c.eq(table(got), table(out), "%s: what stdout shows" % name)

        # several snapshots: JSON Lines (one document a line, each with its
        # time), CSV rows told apart by their snapshot number
        for fmt_args in ([], ["--alerts"], ["--system"]):
            rc, out, err = run(["-n", "3", "-d", "0.1", "--format", "json"]
                               + fmt_args)
            lines = out.decode().split("\n")
            c.eq((rc, lines[-1], len(lines)), (0, "", 4),
                 "json %r: three lines" % fmt_args)
            docs = []
            for ln in lines[:-1]:
                try:
                    docs.append(json.loads(ln))
                except ValueError as e:
                    c.check(False, "json %r: a line parses (%s)" %
                            (fmt_args, e))
            c.check(all("time" in (d.get("snapshot") or d) for d in docs),
                    "json %r: each document has its time" % fmt_args)
            rc, out, err = run(["-n", "3", "-d", "0.1", "--format", "csv"]
                               + fmt_args)
            rows = out.decode().splitlines()
            c.check(rows and rows[0].startswith("snapshot,time,"),
                    "csv %r: header %r" % (fmt_args, rows[:1]))
            nums = sorted({r.split(",")[0] for r in rows[1:]})
            c.eq(nums, ["1", "2", "3"] if fmt_args != ["--alerts"] or
                 len(rows) > 1 else [], "csv %r: snapshot numbers" % fmt_args)

        # the live screen writes no file
        p = subprocess.run([exmlive.EXMTOP, "--source", "fixture:basic",
                            "--output", os.path.join(tmp, "live")],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        c.eq(p.returncode, 2, "live screen: --output refused")
        one_line(c, p.stderr, "live screen")
        c.check(not os.path.exists(os.path.join(tmp, "live")),
                "live screen: nothing made")
    finally:
        subprocess.run(["rm", "-rf", tmp])
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

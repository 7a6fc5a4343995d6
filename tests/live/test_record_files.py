#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings on files that are not ours to write (root; SKIP otherwise).

- `--record` to a directory, /dev/null or a FIFO: exit status 2, one line
  on stderr, nothing created (no /dev/null-journal, the FIFO stays a FIFO
  and nobody blocks on it); `--replay` of the same: the same. `--record`
  through a symbolic link to nothing: the same, its target not created.
- A recording on a read-only bind mount replays (every snapshot, the same
  as from the writable path) and leaves no file beside it.
- As an unprivileged user (exmtop-test, through sysstate), a recording of
  root's in a directory the user cannot write replays the same, leaves no
  file; and replays while root's recorder is writing it (under SQLite's
  locks, read-only), every snapshot it lists replaying.
- A file that is an SQLite database in WAL mode but not a recording is
  rejected (exit status 2, one line) and leaves no -wal or -shm, as root
  in a writable directory, on the read-only mount and as the user.
"""
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

USER = os.environ.get("EXMTOP_TEST_USER", "exmtop-test")
# What is recorded does not matter here: a sleeper of ours (-p), so that
# no other process on the machine has a say.
ONLY = []


def run(args, user=None, timeout=60):
    return exmlive.run_exmtop(args, user=user, timeout=timeout)


def docs(text):
    out = []
    for line in text.splitlines():
        if line.strip():
            d = json.loads(line)
            d.pop("source_detail", None)
            out.append(d)
    return out


def one_line(c, err, what):
    c.check(err.count("\n") == 1 and err.startswith("exmtop: "),
            "%s: one line on stderr, got %r" % (what, err))


def special_files(c, tmp):
    d = os.path.join(tmp, "special")
    os.mkdir(d)
    sub = os.path.join(d, "dir")
    os.mkdir(sub)
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    link = os.path.join(d, "link")
    os.symlink(os.path.join(d, "nothing"), link)
    before = sorted(os.listdir(d))
    null_before = os.stat("/dev/null")
    for target in (sub, "/dev/null", fifo):
        rc, _, err = run(["--record", target, "-n", "1"], timeout=20)
        c.eq(rc, 2, "--record %s: exit status (%s)" % (target, err.strip()))
        one_line(c, err, "--record " + target)
        c.check("not a regular file" in err, "--record %s says why: %r" %
                (target, err))
        rc, _, err = run(["-b", "--replay", target], timeout=20)
        c.eq(rc, 2, "--replay %s: exit status (%s)" % (target, err.strip()))
        one_line(c, err, "--replay " + target)
    c.eq(sorted(os.listdir(d)), before, "nothing created beside them")
    c.eq(os.listdir(sub), [], "nothing created in the directory")
    c.check(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO is a FIFO")
    null = os.stat("/dev/null")
    c.check(stat.S_ISCHR(null.st_mode) and
            null.st_rdev == null_before.st_rdev, "/dev/null a device")
    for sfx in ("-journal", "-wal", "-shm"):
        c.check(not os.path.lexists("/dev/null" + sfx),
                "no /dev/null%s" % sfx)
    # a symbolic link to nothing: SQLite would create its target
    rc, _, err = run(["--record", link, "-n", "1"], timeout=20)
    c.eq(rc, 2, "--record to a link to nothing: exit status (%s)" %
         err.strip())
    one_line(c, err, "--record to a link to nothing")
    c.eq(sorted(os.listdir(d)), before, "its target not created")


def foreign(path):
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t(x)")
    db.execute("INSERT INTO t VALUES(1)")
    db.commit()
    db.close()


def listing(d):
    return sorted(os.listdir(d))


def read_only_mount(c, ch, tmp, rec, want):
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    src = os.path.dirname(rec)
    ch.command(["mount", "--bind", src, ro], ["umount", "-l", ro])
    ch.command(["mount", "-o", "remount,bind,ro", ro], ["true"])
    before = listing(src)
    rc, out, err = run(["-b", "--replay",
                        os.path.join(ro, os.path.basename(rec)),
                        "--format", "json"])
    c.eq(rc, 0, "replay on a read-only mount: exit status (%s)" %
         err.strip())
    got = docs(out) if rc == 0 else []
    c.eq(len(got), len(want), "read-only mount: every snapshot")
    c.check(got == want, "read-only mount: the same snapshots")
    rc, _, err = run(["-b", "--replay", os.path.join(ro, "foreign.db")])
    c.eq(rc, 2, "read-only mount, foreign file: exit status (%s)" %
         err.strip())
    one_line(c, err, "read-only mount, foreign file")
    c.eq(listing(src), before, "read-only mount: no file left")


def unprivileged(c, ch, tmp, rec, want):
    ch.user(USER)
    # as USER through exmlive.run_exmtop: a copy of exmtop USER can run
    src = os.path.dirname(rec)
    before = listing(src)
    rc, out, err = run(["-b", "--replay", rec, "--format", "json"],
                       user=USER)
    c.eq(rc, 0, "replay as %s: exit status (%s)" % (USER, err.strip()))
    got = docs(out) if rc == 0 else []
    c.eq(len(got), len(want), "as %s: every snapshot" % USER)
    c.check(got == want, "as %s: the same snapshots" % USER)
    rc, _, err = run(["-b", "--replay", os.path.join(src, "foreign.db")],
                     user=USER)
    c.eq(rc, 2, "as %s, foreign file: exit status (%s)" %
         (USER, err.strip()))
    c.eq(listing(src), before, "as %s: no file left" % USER)

    # while root's recorder writes it
    live = os.path.join(src, "live.exmrec")
    rc, _, err = run(["--record", live, "-n", "1"] + ONLY)
    c.eq(rc, 0, "first snapshot of the live file (%s)" % err.strip())
    w = subprocess.Popen([exmlive.EXMTOP, "--record", live, "-n", "40",
                          "-d", "0.1"] + ONLY, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 20
        while not os.path.exists(live + "-wal") and \
                time.time() < deadline:
            time.sleep(0.02)
        for k in range(3):
            rc, out, err = run(["-b", "--replay", live, "--format",
                                "json"], user=USER)
            c.eq(rc, 0, "as %s while recorded (%d): exit status (%s)" %
                 (USER, k, err.strip()))
            c.check(len(docs(out)) >= 1 if rc == 0 else False,
                    "as %s while recorded: snapshots replayed" % USER)
    finally:
        _, werr = w.communicate(timeout=120)
    c.eq(w.returncode, 0, "the recorder (%s)" % werr.decode().strip())
    c.eq(listing(src), sorted(before + ["live.exmrec"]),
         "as %s while recorded: no file left once both ended" % USER)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (mounts, another user)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("test_record_files")
    tmp = tempfile.mkdtemp(prefix="exm-recfiles-", dir="/var/tmp")
    sleeper = subprocess.Popen(["sleep", "600"])
    ONLY.extend(["-p", str(sleeper.pid)])
    try:
        os.chmod(tmp, 0o755)
        special_files(c, tmp)
        d = os.path.join(tmp, "rec")
        os.mkdir(d)
        os.chmod(d, 0o755)
        rec = os.path.join(d, "r.exmrec")
        rc, _, err = run(["--record", rec, "-n", "2", "-d", "0.1"] + ONLY)
        c.eq(rc, 0, "record (%s)" % err.strip())
        foreign(os.path.join(d, "foreign.db"))
        c.eq(listing(d), ["foreign.db", "r.exmrec"], "the files to read")
        rc, out, err = run(["-b", "--replay", rec, "--format", "json"])
        c.eq(rc, 0, "replay as root: exit status (%s)" % err.strip())
        want = docs(out)
        c.eq(len(want), 2, "two snapshots")
        rc, _, err = run(["-b", "--replay", os.path.join(d, "foreign.db")])
        c.eq(rc, 2, "foreign file: exit status (%s)" % err.strip())
        one_line(c, err, "foreign file")
        c.eq(listing(d), ["foreign.db", "r.exmrec"],
             "replay as root: no file left")
        with sysstate.Changes("test_record_files") as ch:
            read_only_mount(c, ch, tmp, rec, want)
            unprivileged(c, ch, tmp, rec, want)
    finally:
        sleeper.kill()
        sleeper.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

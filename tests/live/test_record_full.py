#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A full disk during `--record --watch`, then room again (root, tmux;
SKIP otherwise).

The recording is on a small tmpfs of the test's own (mounted through
sysstate, unmounted after, also on failure). The live screen records the
whole system every 0.3 s; sleepers of our own (copies of sleep under names
of their own, so each maps a file of its own) run throughout. Then the
disk is filled, new sleepers (new files, whose rows the failing snapshots
write and lose) start, and snapshots fail: the screen says so, the file
gains none. The filler is removed: snapshots are written again, and in
every one of them each sleeper's mappings name exactly the files its live
/proc/PID/maps names (path and inode, address by address), no mapping
names a file row that is not there, and PRAGMA integrity_check is ok.
"""
import errno
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402


def count(path):
    """(snapshots, last id) in the recording; (0, 0) before its tables."""
    if not os.path.exists(path):
        return (0, 0)
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)
    try:
        return db.execute("SELECT count(*), coalesce(max(id), 0) "
                          "FROM snapshot").fetchone()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):  # the recorder is creating them
            return (0, 0)
        raise
    finally:
        db.close()


def fill(path):
    """Write path until the disk is full."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\xa5" * (1 << 16))
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


def wait(cond, secs):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def live_maps(pid):
    """[(start, end, name, inode)] of the file mappings of pid."""
    out = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            w = line.split(None, 5)
            if len(w) < 6 or not w[5].startswith("/"):
                continue
            lo, hi = (int(x, 16) for x in w[0].split("-"))
            out.append((lo, hi, exmlive.strip_deleted(w[5].rstrip("\n")),
                        int(w[4])))
    return out


class Sleepers:
    def __init__(self, work):
        self.work = work
        self.procs = []

    def start(self, name):
        exe = os.path.join(self.work, name)
        shutil.copy(shutil.which("sleep"), exe)
        p = subprocess.Popen([exe, "600"])
        self.procs.append(p)
        return p.pid

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root")
        sys.exit(exmlive.SKIP)
    if not shutil.which("tmux"):
        print("SKIP: no tmux")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("test_record_full")
    work = tempfile.mkdtemp(prefix="exm-recfull-", dir="/var/tmp")
    sock = "exm-recfull-%d" % os.getpid()
    tmux = ["tmux", "-L", sock]
    sl = Sleepers(work)
    exe = os.path.abspath(exmlive.EXMTOP)
    try:
        with sysstate.Changes("test_record_full") as ch:
            disk = os.path.join(work, "disk")
            os.mkdir(disk)
            ch.command(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs",
                        disk], ["umount", "-l", disk])
            rec = os.path.join(disk, "r.exmrec")
            pids = [sl.start("exmfullA%d" % i) for i in range(3)]
            subprocess.run(tmux + ["new-session", "-d", "-s", "t", "-x",
                                   "200", "-y", "20",
                                   "env LANG=C.UTF-8 TERM=tmux-256color "
                                   "HOME=/nonexistent XDG_CONFIG_HOME= "
                                   "%s --record %s --watch -d 0.3 "
                                   # smaps: see test_record_soak.py
                                   "--source smaps" %
                                   (exe, rec)], check=True)

            def screen():
                return subprocess.run(tmux + ["capture-pane", "-p", "-t",
                                              "t"], stdout=subprocess.PIPE,
                                      text=True).stdout

            ok = wait(lambda: count(rec)[0] >= 2, 30)
            c.check(ok, "two snapshots recorded:\n" + screen())
            # fill the disk, then new files to record
            fill(os.path.join(disk, "fill"))
            pids += [sl.start("exmfullB%d" % i) for i in range(3)]
            c.check(wait(lambda: "snapshot failed: --record:" in screen()
                         and "disk is full" in screen(), 20),
                    "the screen says the disk is full:\n" + screen())
            n_full, last_full = count(rec)
            time.sleep(1.0)  # three more tries, all failing
            c.eq(count(rec)[0], n_full, "no snapshot written while full")
            os.unlink(os.path.join(disk, "fill"))
            ok = wait(lambda: count(rec)[0] >= n_full + 4, 30)
            c.check(ok, "snapshots written again once there is room:\n" +
                    screen())
            subprocess.run(tmux + ["send-keys", "-t", "t", "q"])
            wait(lambda: subprocess.run(tmux + ["has-session", "-t", "t"],
                                        stderr=subprocess.DEVNULL)
                 .returncode != 0, 10)
            db = sqlite3.connect(rec)
            c.eq(db.execute("PRAGMA integrity_check").fetchone()[0], "ok",
                 "integrity_check")
            c.eq(db.execute("SELECT count(*) FROM mapping m WHERE m.file "
                            "IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file "
                            "f WHERE f.id = m.file)").fetchone()[0], 0,
                 "every mapping's file row is there")
            after = [r[0] for r in db.execute(
                "SELECT id FROM snapshot WHERE id > ? ORDER BY id",
                (last_full,))]
            c.check(len(after) >= 4, "snapshots after recovery: %d" %
                    len(after))
            want = {pid: live_maps(pid) for pid in pids}
            for sid in after:
                for pid in pids:
                    got = [(signed_back(r[0]), signed_back(r[1]), r[2], r[3])
                           for r in db.execute(
                        "SELECT m.start, m.end, f.name, f.inode FROM "
                        "mapping m JOIN process p ON p.snapshot = "
                        "m.snapshot AND p.idx = m.proc LEFT JOIN file f ON "
                        "f.id = m.file WHERE m.snapshot = ? AND p.pid = ? "
                        "AND f.name LIKE '/%' ORDER BY m.idx", (sid, pid))]
                    c.check(got == want[pid] and got,
                            "snapshot %d, pid %d: files as in its maps:\n"
                            "  got  %r\n  want %r" % (sid, pid, got[:4],
                                                      want[pid][:4]))
            db.close()
    finally:
        subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
        sl.stop()
        shutil.rmtree(work, ignore_errors=True)
    c.done()


def signed_back(v):
    return v + (1 << 64) if v < 0 else v


if __name__ == "__main__":
    exmlive.run_main(main)

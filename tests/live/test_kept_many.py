#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): with a soft descriptor limit of 1024 (`ulimit -Sn
1024`) and a hard one that allows it, a refreshing exmtop keeps the
/proc/PID descriptors (procwalk.c: directory, stat, schedstat, cmdline)
of every process, not of the first 192: it raises its soft limit to the
hard one at start (exm_raise_nofile), and keeps three quarters of it.

NPROC sleeping processes are started; exmtop runs `-b -n 2 -d 5` with
the pagemap source under RLIMIT_NOFILE (1024, hard); between its two
snapshots the test reads /proc/EXMTOP/limits (soft limit = hard limit)
and /proc/EXMTOP/fd: each sleeper's four descriptors open.

Then the same under RLIMIT_NOFILE (1024, 1024), where four descriptors
for each of the NPROC sleepers do not fit: exmtop keeps those of the
first 192 processes only (three quarters of 1024, four each), and both
snapshots list every sleeper with exit status 0. Before that limit was
kept in the walk itself, the first walk opened four descriptors for
every process and failed with "Too many open files" (6,000 processes
under a limit of 20,000 failed alike).
"""

import csv
import io
import os
import re
import resource
import select
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

NPROC = 420
KFD = 4  # EXM_KFD_N
KEPT = {"", "stat", "schedstat", "cmdline"}


def kept(pid):
    """{pid: set of what of /proc/pid process pid has open ("" the
    directory, "stat", ...)}."""
    out = {}
    d = "/proc/%d/fd" % pid
    for fd in os.listdir(d):
        try:
            t = os.readlink(os.path.join(d, fd))
        except OSError:
            continue
        m = re.match(r"/proc/(\d+)(?:/([^/]+))?$", t)
        if m:
            out.setdefault(int(m.group(1)), set()).add(m.group(2) or "")
    return out


def soft_limit(pid):
    with open("/proc/%d/limits" % pid) as f:
        for line in f:
            if line.startswith("Max open files"):
                w = line.split()
                return w[3], w[4]
    return None


def read_until(exm, mark, secs):
    """exmtop's standard output until mark is in it (or EOF, or secs)."""
    fd = exm.stdout.fileno()
    buf = b""
    deadline = time.monotonic() + secs
    while mark not in buf and time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 1)
        if r:
            more = os.read(fd, 65536)
            if not more:
                break
            buf += more
    return buf


def capped(c, pids):
    """Under a hard limit of 1024: kept for 192 processes, every process
    measured."""
    exm = subprocess.Popen(
        [exmlive.EXMTOP, "-b", "-n", "2", "-d", "3", "--format", "csv",
         "--fields", "pid,cmd", "--source", "pagemap"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: resource.setrlimit(
            resource.RLIMIT_NOFILE, (1024, 1024)))
    try:
        buf = read_until(exm, b"\n1,", 120)
        c.check(b"\n1," in buf, "hard limit 1024: exmtop printed its "
                "first snapshot")
        time.sleep(0.5)
        # exmtop's own pid apart (its pagemap is open)
        k = {p: v for p, v in kept(exm.pid).items() if p != exm.pid}
        c.check(0 < len(k) <= 1024 * 3 // 4 // KFD,
                "hard limit 1024: descriptors kept of %d processes, at "
                "most %d" % (len(k), 1024 * 3 // 4 // KFD))
        out, err = exm.communicate(timeout=120)
        out = buf + out
        c.eq(exm.returncode, 0, "hard limit 1024: exit status (%s)" %
             err.decode().strip())
        # two snapshots (snapshot,time,pid,cmd), each listing every sleeper
        listed = {}
        for row in csv.reader(io.StringIO(out.decode(errors="replace"))):
            if len(row) >= 3 and row[0].isdigit() and row[2].isdigit():
                listed.setdefault(int(row[0]), set()).add(int(row[2]))
        for n in (1, 2):
            c.eq(len(pids & listed.get(n, set())), len(pids),
                 "hard limit 1024: sleepers in snapshot %d" % n)
    finally:
        if exm.poll() is None:
            exm.kill()
            exm.wait()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap's frame numbers)")
        sys.exit(exmlive.SKIP)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = (NPROC + 200) * KFD * 4 // 3 + 64
    if hard != resource.RLIM_INFINITY and hard < need:
        print("SKIP: hard RLIMIT_NOFILE %d: fewer than %d" % (hard, need))
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live kept descriptors, many processes")
    sleepers = []
    exm = None
    try:
        for _ in range(NPROC):
            sleepers.append(subprocess.Popen(["sleep", "600"]))
        pids = {p.pid for p in sleepers}
        exm = subprocess.Popen(
            [exmlive.EXMTOP, "-b", "-n", "2", "-d", "5", "--format", "csv",
             "--fields", "pid,cmd", "--source", "pagemap"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=lambda: resource.setrlimit(
                resource.RLIMIT_NOFILE, (1024, hard)))
        # the first snapshot's rows: its walk is over
        buf = read_until(exm, b"\n1,", 120)
        c.check(b"\n1," in buf, "exmtop printed its first snapshot")
        time.sleep(1)
        lim = soft_limit(exm.pid)
        want = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
        c.eq(lim, (want, want), "exmtop's soft descriptor limit raised "
             "to the hard one (/proc/PID/limits)")
        k = kept(exm.pid)
        full = sorted(p for p in pids if k.get(p) == KEPT)
        c.eq(len(full), NPROC, "every sleeper's directory, stat, schedstat "
             "and cmdline kept (%d processes with some kept, %d "
             "descriptors on /proc)" % (len(k),
                                        sum(len(x) for x in k.values())))
        out, err = exm.communicate(timeout=120)
        c.eq(exm.returncode, 0, "exmtop exit status (%s)" %
             err.decode().strip())
        capped(c, pids)
    finally:
        if exm and exm.poll() is None:
            exm.kill()
            exm.wait()
        for p in sleepers:
            p.kill()
            p.wait()
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

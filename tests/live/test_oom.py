#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): the OOM and OOM.ADJ columns are the kernel's own
/proc/PID/oom_score and oom_score_adj.

Three sleeping processes get oom_score_adj 700, 0 and 300 (raised only:
lowering it needs CAP_SYS_RESOURCE, which a container's root may lack; the
signed printing of a negative value is a unit test); each also holds 8 MiB
of its own memory so its score is not 0. exmtop's
`oom` and `oom_adj` (JSON, -p) must equal what /proc says just before and
just after the run (the processes do nothing meanwhile, so their scores
hold still), ascending sort by oom_adj must put 0 before 300 before 700.
A recording keeps them (schema 4): a replay gives the same figures. The
test holds sysstate.py's lock shared: no other run (a mutation check's live
test beside it) makes a swap file meanwhile, which moves every score.

The oom-misleading alert (--alerts, every process scanned): a process V that
maps 128 MiB of a memfd another process H created (and keeps open) gets
oom_score_adj 1000, so the kernel would kill it first; what it frees is
only its own few MiB, while W frees the 192 MiB it wrote: the alert names V,
and its bytes are at least 192 - 64 MiB (the other's FREED less V's). The
control: V2, with oom_score_adj 1000 too, frees the 128 MiB it wrote itself
(more than half of W's): no oom-misleading alert setting V2 against W or H
(another process of the machine freeing over 256 MiB may rightly be
named), and the note names V2 as the OOM killer's pick.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

HOLDER = r"""
import mmap, sys, time
m = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.write(b"x" * (8 << 20))
print("ready", flush=True)
time.sleep(600)
"""
ADJS = (700, 0, 300)
MIB = 1 << 20

CREATOR = r"""
import mmap, os, sys, time
n = int(sys.argv[1]) << 20
fd = os.memfd_create("exm-oom-shared")
os.ftruncate(fd, n)
m = mmap.mmap(fd, n)
m.write(b"s" * n)
m.close()
print(fd, flush=True)
time.sleep(600)
"""
MAPPER = r"""
import mmap, os, sys, time
n = int(sys.argv[2]) << 20
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, n, mmap.MAP_SHARED, mmap.PROT_READ)
sum(m[i] for i in range(0, n, mmap.PAGESIZE))
print("ready", flush=True)
time.sleep(600)
"""
WRITER = r"""
import mmap, sys, time
n = int(sys.argv[1]) << 20
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.write(b"w" * n)
print("ready", flush=True)
time.sleep(600)
"""


def started(procs, script, *args):
    p = subprocess.Popen([sys.executable, "-c", script] +
                         [str(a) for a in args], stdout=subprocess.PIPE)
    procs.append(p)
    line = p.stdout.readline().decode().strip()
    if not line:
        raise RuntimeError("a workload did not start")
    return p, line


def alerts(c, what):
    rc, out, err = exmlive.run_exmtop(["-b", "--alerts", "--format",
                                       "json"])
    if not c.check(rc == 0, "%s: --alerts exit %d: %s" %
                   (what, rc, err.strip())):
        return [], []
    d = json.loads(out)
    return ([a for a in d["alerts"] if a["kind"] == "oom-misleading"],
            d["notes"])


def check_alert(c):
    procs = []
    try:
        _, w_ready = started(procs, WRITER, 192)
        w = procs[-1].pid
        h, hfd = started(procs, CREATOR, 128)
        v, _ = started(procs, MAPPER, "/proc/%d/fd/%s" % (h.pid, hfd), 128)
        with open("/proc/%d/oom_score_adj" % v.pid, "w") as f:
            f.write("1000")
        found, notes = alerts(c, "shared region")
        mine = [a for a in found if a["pid"] == v.pid]
        c.check(len(mine) == 1, "oom-misleading names the mapper %d: %r"
                % (v.pid, found))
        if mine:
            c.check(mine[0]["bytes"] >= (192 - 64) * MIB,
                    "it would free at least 128 MiB less than another: %r"
                    % mine[0])
            c.check("oom_score" in mine[0]["explanation"],
                    "the explanation gives both figures: %r" % mine[0])
        c.check(any("pick pid %d first" % v.pid in n for n in notes),
                "the note names the mapper as the pick: %r" % notes)
        c.check(not any(a["pid"] in (w, h.pid) for a in found),
                "no alert for the writer or the creator: %r" % found)
        v.kill()
        v.wait()
        v2, _ = started(procs, WRITER, 128)
        with open("/proc/%d/oom_score_adj" % v2.pid, "w") as f:
            f.write("1000")
        found, notes = alerts(c, "control")
        # another process of the machine that frees over twice V2's 128
        # MiB (a VM, a build) rightly makes V2 a misleading pick: only an
        # alert that sets V2 against the test's own processes is wrong
        c.check(not any(a["pid"] in (w, h.pid) or
                        (a["pid"] == v2.pid and
                         re.search(r"pid (%d|%d) " % (w, h.pid),
                                   a["explanation"]))
                        for a in found),
                "control: no oom-misleading alert for V2 against W or H, "
                "nor for them: %r" % found)
        c.check(any("pick pid %d first" % v2.pid in n for n in notes),
                "control: the note names the writer with adj 1000: %r"
                % notes)
    finally:
        for p in procs:
            p.kill()
            p.wait()


def read_oom(pid):
    with open("/proc/%d/oom_score" % pid) as f:
        score = int(f.read())
    with open("/proc/%d/oom_score_adj" % pid) as f:
        adj = int(f.read())
    return score, adj


def run():
    c = exmlive.Checker("live OOM columns")
    procs = []
    tmp = tempfile.mkdtemp(prefix="exm-oom-")
    try:
        for adj in ADJS:
            p = subprocess.Popen([sys.executable, "-c", HOLDER],
                                 stdout=subprocess.PIPE)
            procs.append(p)
            p.stdout.readline()
            with open("/proc/%d/oom_score_adj" % p.pid, "w") as f:
                f.write(str(adj))
        pids = [p.pid for p in procs]
        pl = ",".join(str(p) for p in pids)
        before = {pid: read_oom(pid) for pid in pids}
        doc = exmlive.exmtop_json(["-p", pl, "--fields", "pid,oom,oom_adj",
                                   "-o", "-oom_adj"])
        after = {pid: read_oom(pid) for pid in pids}
        rows = doc["processes"]
        c.eq([r["pid"] for r in rows], [pids[1], pids[2], pids[0]],
             "ascending by oom_adj: 0, 300, 700")
        adj_of = dict(zip(pids, ADJS))
        for r in rows:
            adj = adj_of.get(r["pid"])
            pid = r["pid"]
            c.eq(before[pid], after[pid],
                 "pid %d: its score held still during the run" % pid)
            c.eq((r["oom"], r["oom_adj"]), before[pid],
                 "pid %d: oom, oom_adj are /proc's" % pid)
            c.eq(r["oom_adj"], adj, "pid %d: the adj the test set" % pid)
            c.check(r["oom"] > 0, "pid %d: a score above 0" % pid)
        rc, out, err = exmlive.run_exmtop(["-b", "-p", str(pids[0]),
                                           "--fields", "pid,oom,oom_adj"])
        c.check(rc == 0 and any(ln.split() == [str(pids[0]),
                                               str(before[pids[0]][0]), "700"]
                                for ln in out.splitlines()),
                "text: %r %r" % (out, err))
        rec = os.path.join(tmp, "r.exmrec")
        rc, _, err = exmlive.run_exmtop(["-b", "--record", rec, "-p", pl])
        c.eq(rc, 0, "recorded: %s" % err.strip())
        doc = exmlive.exmtop_json(["--replay", rec, "-p", pl, "--fields",
                                   "pid,oom,oom_adj"])
        c.eq(sorted((r["pid"], r["oom"], r["oom_adj"])
                    for r in doc["processes"]),
             sorted((pid,) + before[pid] for pid in pids),
             "a replay: the recorded scores, /proc's")
    finally:
        for p in procs:
            p.kill()
            p.wait()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    check_alert(c)
    c.done()


def main():
    """No other test run changes a setting meanwhile (swap moves every
    process's oom_score)."""
    if os.geteuid() != 0:
        print("SKIP: needs root (oom_score_adj, page frame numbers)")
        sys.exit(exmlive.SKIP)
    with sysstate.Steady():
        run()


if __name__ == "__main__":
    exmlive.run_main(main)

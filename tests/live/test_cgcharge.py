#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): per cgroup, what the kernel charges against what the
processes cost (issue 21, item 3; DESIGN.md s. 3, "Charge").

Where the memory controller is on cgroup v2, two cgroups A and B are made
for the test (through sysstate.py, removed also on failure) and filled with
a workload whose charging is known by construction:

  - a process PA in A writes a file F1 (its page cache charged to A) and
    maps it, every page read; a process PB in B then maps F1 too, every
    page read: mapped by B, charged to A;
  - PA writes a file F2 and never maps it: page cache charged to A that no
    process maps;
  - PA writes a 4 MiB memfd (shared memory charged to A) and maps it; PB
    maps it too, through /proc/PA/fd: mapped by both, charged to A;
  - 16 MiB of anonymous memory written in each.

THP is off and proactive compaction too (sysstate.py, restored after), so
that no frame of the stopped processes moves between exmtop's reading and
the oracle's (a collapse or a migration between reading pagemap and
kpagecgroup would misattribute a frame; /proc/vmstat's counters of moved
pages are printed when they moved). Both are stopped, memory.stat is left to settle (the kernel flushes its
per-cpu counters every 2 s; a read of memory.stat flushes them when many
updates are pending), and exmtop scans the two (--scan-pids: sharing counted
among them, as the oracle counts it) and writes OpenMetrics. Then:

  - cg_current, cg_anon, cg_file, cg_shmem, cg_kernel equal memory.current
    and memory.stat as the test reads them before and after exmtop: within
    the two readings (they differ only if the kernel moved something, e.g.
    drained a CPU's precharged stock, at most 64 pages a CPU);
  - cg_others and cg_elsewhere of A and B equal, to the byte, an
    independent oracle here that reads the two processes' pagemap,
    /proc/kpageflags (the zero page) and /proc/kpagecgroup itself, each
    frame divided among its mappings; and what the test arranged holds:
    A's others and B's elsewhere hold at least half of F1 and of the memfd
    (each of their pages mapped by PA and PB), and A's shmem charge holds
    the memfd;
  - effective resident is conserved: a group's effective resident less
    its elsewhere is its share of the frames charged to itself (oracle);
  - cg_unmapped of A is memory.stat file less the oracle's file frames
    charged to A that the two map, and at least F2's size.

Every frame read: where the frames' memcgs can be read (v2), OpenMetrics
with --pagemap-mode read gives A's others and elsewhere also once PA holds
a big sparse private mapping (which read mode would count, frames unread,
making them unknown); where they cannot (v1), that mapping is counted: its
pagemap is not read (strace's pread64 bytes), as without the charge. Both
only where read mode may count such a mapping (not where the kernel
averages mapcounts of large folios: the limits say so; then it is said and
not checked).

Where the memory controller is not on cgroup v2 (cgroup v1), exmtop must
say so once (stderr for OpenMetrics, with -n 2 into a file) and give no
charge sample: that is what this test checks there, and it says which of
the two it ran.
"""

import os
import re
import select
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

MIB = 1 << 20
ANON = 16 * MIB
F1_SIZE = 8 * MIB
F2_SIZE = 4 * MIB
MEMFD_SIZE = 4 * MIB
MEMFD_FD = 100  # the descriptor PA keeps its memfd on, opened by PB
# a big private anonymous mapping holding 64 pages: bigger than what read
# mode always reads (DIRECT_PAGES, 256 MiB), 128 MiB of pagemap words
SPARSE = 64 << 30
KPF_ZERO_PAGE = 1 << 24
CHARGE = ("current", "anon", "file", "shmem", "kernel")
THP = "/sys/kernel/mm/transparent_hugepage/enabled"
PROACTIVE = "/proc/sys/vm/compaction_proactiveness"
MOVES = ("thp_collapse_alloc", "pgmigrate_success", "thp_split_page")
NOTE = "the memory controller is not on cgroup v2 here (cgroup v1)"

WORKER = r"""
import mmap, os, sys
held = []
def touch(m, n, write):
    s = 0
    for i in range(0, n, 4096):
        if write:
            m[i] = 1
        else:
            s += m[i]
    return s
print("ready", flush=True)
for line in sys.stdin:
    cmd, *a = line.split()
    if cmd == "anon":
        m = mmap.mmap(-1, int(a[0]))
        touch(m, int(a[0]), True)
        held.append(m)
    elif cmd == "write":
        with open(a[0], "wb") as f:
            f.write(os.urandom(int(a[1])))
    elif cmd == "sparse":
        n = int(a[0])
        m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS |
                      0x4000)  # MAP_NORESERVE
        m.madvise(mmap.MADV_NOHUGEPAGE)
        for i in range(0, n, n // 64):
            m[i] = 1
        held.append(m)
    elif cmd == "memfd":
        fd = os.memfd_create("exm-cgcharge")
        os.ftruncate(fd, int(a[0]))
        m = mmap.mmap(fd, int(a[0]))
        touch(m, int(a[0]), True)
        os.dup2(fd, int(a[1]))
        os.close(fd)
        held.append(m)
    elif cmd == "map":
        fd = os.open(a[0], os.O_RDONLY)
        n = os.fstat(fd).st_size
        m = mmap.mmap(fd, n, prot=mmap.PROT_READ)
        os.close(fd)
        touch(m, n, False)
        held.append(m)
    print("ok", flush=True)
"""


class Worker:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, "-c", WORKER],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.expect("ready")
        self.pid = self.p.pid

    def expect(self, what):
        r, _, _ = select.select([self.p.stdout], [], [], 60)
        line = self.p.stdout.readline().strip() if r else "(timeout)"
        if line != what:
            raise RuntimeError("worker %d said %r, not %r" %
                               (self.p.pid, line, what))

    def do(self, *cmd):
        self.p.stdin.write(" ".join(str(c) for c in cmd) + "\n")
        self.p.stdin.flush()
        self.expect("ok")

    def stop(self):
        self.p.kill()
        self.p.wait()


def v2_root():
    """The cgroup v2 mount (the first, as exmtop takes it), or None."""
    with open("/proc/self/mounts") as f:
        for line in f:
            m = line.split()
            if m[2] == "cgroup2":
                return m[1]
    return None


def v2_memory(root):
    if not root:
        return False
    with open(os.path.join(root, "cgroup.controllers")) as f:
        return "memory" in f.read().split()


def read_charge(d):
    """memory.current and the memory.stat keys exmtop shows."""
    c = {}
    with open(os.path.join(d, "memory.current")) as f:
        c["current"] = int(f.read())
    with open(os.path.join(d, "memory.stat")) as f:
        for line in f:
            k, v = line.split()
            if k in CHARGE:
                c[k] = int(v)
    return c


OM_LINE = re.compile(r'^(exmtop_group_\w+)\{by="cgroup",name="([^"]*)"\} '
                     r'(\S+)$')
METRIC = {"current": "exmtop_group_charge_bytes",
          "anon": "exmtop_group_charge_anon_bytes",
          "file": "exmtop_group_charge_file_bytes",
          "shmem": "exmtop_group_charge_shmem_bytes",
          "kernel": "exmtop_group_charge_kernel_bytes",
          "others": "exmtop_group_charged_mapped_by_others_bytes",
          "elsewhere": "exmtop_group_mapped_charged_elsewhere_bytes",
          "unmapped": "exmtop_group_charged_unmapped_cache_bytes",
          "erss": "exmtop_group_effective_resident_bytes"}


def om_groups(text):
    """{cgroup: {metric: value}} of the groups per cgroup."""
    g = {}
    for line in text.splitlines():
        m = OM_LINE.match(line)
        if m:
            g.setdefault(m.group(2), {})[m.group(1)] = float(m.group(3))
    return g


def vmstat():
    """The /proc/vmstat counters of pages the kernel moves."""
    with open("/proc/vmstat") as f:
        return {k: int(v) for k, v in (line.split() for line in f)
                if k in MOVES}


def oracle(pids, cg_of, ino_of, ps):
    """others, elsewhere, own share and mapped file bytes per cgroup name,
    from pagemap and kpagecgroup (each frame divided among its mappings,
    in units of 1/2520 page to stay exact with up to 10 mappings)."""
    ora = exmlive.Oracle(pids, ps)
    words = []
    for pid, vmas in ora.vmas.items():
        for v in vmas:
            for _, w in v.words:
                if w & exmlive.PM_PRESENT:
                    words.append((pid, w))
    pfns = sorted({w & exmlive.PM_PFN_MASK for _, w in words})
    flags = exmlive.kpage("kpageflags", pfns)
    memcg = exmlive.kpage("kpagecgroup", pfns)
    by_ino = {ino: name for name, ino in ino_of.items()}
    res = {n: {"others": 0, "elsewhere": 0, "own": 0, "mapped_file": 0}
           for n in ino_of}
    unit = 2520
    for pid, w in words:
        pfn = w & exmlive.PM_PFN_MASK
        if flags[pfn] & KPF_ZERO_PAGE:
            continue
        share = unit // ora.maps[("pfn", pfn)]
        mine = cg_of[pid]
        to = by_ino.get(memcg[pfn])
        if to != mine:
            res[mine]["elsewhere"] += share
        else:
            res[mine]["own"] += share
        if to is None:
            continue
        if to != mine:
            res[to]["others"] += share
        if w & exmlive.PM_FILE:
            res[to]["mapped_file"] += share
    for r in res.values():
        for k in r:
            r[k] = r[k] * ps / unit
    return res


def read_counts():
    """Whether read mode may count a big mapping on this kernel: not where
    smaps' counts of large folios are averages or that is not known (the
    limits say CONFIG_NO_PAGE_MAPCOUNT); said when it may not."""
    limits = exmlive.exmtop_json(["--source", "pagemap", "-p",
                                  str(os.getpid())]).get("limits")
    if "CONFIG_NO_PAGE_MAPCOUNT" in (limits or ""):
        print("read mode counts no big mapping on this kernel (%r): the "
              "frames-read checks are not made" % limits)
        return False
    return True


def pread_bytes(trace):
    """The bytes pread64 returned, over an strace -o file."""
    n = 0
    with open(trace) as f:
        for line in f:
            if "pread64(" in line:
                r = line.rsplit(" = ", 1)[-1].split()[0]
                n += int(r) if r.isdigit() else 0
    return n


def run_v1(c, tmp):
    """cgroup v1: said once, no charge sample."""
    out = os.path.join(tmp, "om")
    rc, _, err = exmlive.run_exmtop(["-b", "-n", "2", "-d", "0.2",
                                     "--format", "openmetrics", "--output",
                                     out])
    c.eq(rc, 0, "openmetrics -n 2 exit status (%r)" % err)
    c.eq(err.count(NOTE), 1, "cgroup v1 said once on stderr: %r" % err)
    with open(out) as f:
        text = f.read()
    c.check("exmtop_group_charge_bytes{" not in text and
            "exmtop_group_mapped_charged_elsewhere_bytes{" not in text,
            "no charge sample on cgroup v1")
    c.check("# TYPE exmtop_group_charge_bytes gauge" in text,
            "the charge families are there, without samples")
    # the charge asked for (OpenMetrics' default) reads no more frames
    # than without it here: the big mapping stays counted
    w = Worker()
    try:
        w.do("sparse", SPARSE)
        if not read_counts():
            return
        trace = os.path.join(tmp, "strace")
        rc, err = exmlive.strace_exmtop(
            "pread64", ["-b", "--format", "openmetrics", "--source", "pagemap",
                        "--pagemap-mode", "read", "--scan-pids", str(w.pid)], out=trace)
        c.eq(rc, 0, "openmetrics under strace exit status (%r)" % err)
        got = pread_bytes(trace)
        c.check(got < SPARSE // 4096 * 8 // 16,
                "cgroup v1: OpenMetrics read %d bytes with pread64, not the "
                "big mapping's %d of pagemap (counted)" %
                (got, SPARSE // 4096 * 8))
    finally:
        w.stop()


def run_v2(c, tmp, root):
    ps = os.sysconf("SC_PAGE_SIZE")
    with open(os.path.join(root, "cgroup.subtree_control")) as f:
        if "memory" not in f.read().split():
            c.check(False, "the memory controller is not enabled for the "
                    "children of %s (cgroup.subtree_control)" % root)
            return
    name = "exm-test-cgcharge-%d" % os.getpid()
    with sysstate.Changes("test_cgcharge") as ch:
        # no frame of the stopped workers may move between exmtop's read
        # and the oracle's: no THP collapse (khugepaged), no proactive
        # compaction (kcompactd migrating pages)
        ch.write(THP, "never")
        ch.write(PROACTIVE, "0")
        dirs = {x: ch.cgroup(os.path.join(root, "%s-%s" % (name, x)))
                for x in "AB"}
        keys = {x: "/%s-%s" % (name, x) for x in "AB"}
        f1, f2 = os.path.join(tmp, "f1"), os.path.join(tmp, "f2")
        pa, pb = Worker(), Worker()
        try:
            for x, w in (("A", pa), ("B", pb)):
                with open(os.path.join(dirs[x], "cgroup.procs"), "w") as f:
                    f.write(str(w.pid))
            pa.do("write", f1, F1_SIZE)
            pa.do("map", f1)
            pa.do("write", f2, F2_SIZE)
            pa.do("anon", ANON)
            pa.do("memfd", MEMFD_SIZE, MEMFD_FD)
            pb.do("map", f1)
            pb.do("map", "/proc/%d/fd/%d" % (pa.pid, MEMFD_FD))
            pb.do("anon", ANON)
            check_v2(c, ps, pa.pid, pb.pid, dirs, keys)
            check_v2_read(c, pa, pb, keys)
        finally:
            pa.stop()
            pb.stop()


def check_v2(c, ps, pa, pb, dirs, keys):
    cg_of = {pa: keys["A"], pb: keys["B"]}
    ino_of = {keys[x]: os.stat(dirs[x]).st_ino for x in "AB"}
    with exmlive.frozen([pa, pb]):
        time.sleep(2.5)  # the kernel's periodic flush of memory.stat
        moves = vmstat()
        before = {x: read_charge(dirs[x]) for x in "AB"}
        rc, out, err = exmlive.run_exmtop(
            ["-b", "--format", "openmetrics", "--top", "100000",
             "--scan-pids", "%d,%d" % (pa, pb)])
        after = {x: read_charge(dirs[x]) for x in "AB"}
        ora = oracle([pa, pb], cg_of, ino_of, ps)
        moved = {k: v - moves[k] for k, v in vmstat().items()
                 if v != moves[k]}
    if moved:
        print("the kernel moved pages meanwhile: %r" % moved)
    if not c.eq(rc, 0, "exmtop exit status (%r)" % err):
        return
    groups = om_groups(out)
    for x in "AB":
        g = groups.get(keys[x], {})
        for k in CHARGE:
            if k not in before[x]:
                c.check(METRIC[k] not in g, "%s %s: none in memory.stat, "
                        "none shown" % (x, k))
                continue
            lo = min(before[x][k], after[x][k])
            hi = max(before[x][k], after[x][k])
            got = g.get(METRIC[k])
            c.check(got is not None and lo <= got <= hi,
                    "%s %s: exmtop %r, memory files %d..%d" %
                    (x, k, got, lo, hi))
        for k in ("others", "elsewhere"):
            c.eq(g.get(METRIC[k]), ora[keys[x]][k],
                 "%s %s against the oracle" % (x, k))
        erss = g.get(METRIC["erss"])
        c.check(erss is not None and erss - ora[keys[x]]["elsewhere"] ==
                ora[keys[x]]["own"],
                "%s: effective resident %r less elsewhere %r is its share "
                "of its own charge %r" % (x, erss, ora[keys[x]]["elsewhere"],
                                          ora[keys[x]]["own"]))
    a, b = ora[keys["A"]], ora[keys["B"]]
    shared = (F1_SIZE + MEMFD_SIZE) / 2
    c.check(a["others"] >= shared,
            "A's others %r hold half of F1 and of the memfd (B's share)" %
            a["others"])
    c.check(b["elsewhere"] >= shared,
            "B's elsewhere %r holds half of F1 and of the memfd" %
            b["elsewhere"])
    shm = groups.get(keys["A"], {}).get(METRIC["shmem"])
    c.check(shm is not None and shm >= MEMFD_SIZE,
            "A's shmem charge %r holds the memfd it wrote (%d)" %
            (shm, MEMFD_SIZE))
    ga = groups.get(keys["A"], {})
    lo = min(before["A"]["file"], after["A"]["file"]) - a["mapped_file"]
    hi = max(before["A"]["file"], after["A"]["file"]) - a["mapped_file"]
    got = ga.get(METRIC["unmapped"])
    c.check(got is not None and max(lo, 0) <= got <= max(hi, 0),
            "A's unmapped cache %r: memory.stat file less the oracle's "
            "mapped file frames, %r..%r" % (got, lo, hi))
    c.check(got is not None and got >= F2_SIZE,
            "A's unmapped cache %r holds F2 (%d)" % (got, F2_SIZE))
    print("A: others %d elsewhere %d unmapped %r; B: others %d elsewhere "
          "%d" % (a["others"], a["elsewhere"], got, b["others"],
                  b["elsewhere"]))


def check_v2_read(c, pa, pb, keys):
    """The charge in read mode once PA holds a big sparse mapping that read
    mode would count: every frame read, A's frame figures known."""
    pa.do("sparse", SPARSE)
    if not read_counts():
        return
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "openmetrics", "--top", "100000", "--source",
         "pagemap", "--pagemap-mode", "read", "--scan-pids",
         "%d,%d" % (pa.pid, pb.pid)])
    c.eq(rc, 0, "openmetrics read mode exit status (%r)" % err)
    g = om_groups(out).get(keys["A"], {})
    for k in ("others", "elsewhere"):
        c.check(g.get(METRIC[k]) is not None,
                "read mode, a big sparse mapping in A: A's %s known (every "
                "frame read): %r" % (k, g.get(METRIC[k])))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap frames, kpagecgroup, cgroups)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("test_cgcharge")
    root = v2_root()
    with tempfile.TemporaryDirectory(prefix="exm-cgcharge-",
                                     dir="/var/tmp") as tmp:
        if v2_memory(root):
            print("memory controller on cgroup v2 (%s): the full test" %
                  root)
            run_v2(c, tmp, root)
        else:
            print("memory controller not on cgroup v2: the v1 behaviour")
            run_v1(c, tmp)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): exclusive memory of sets of processes, FREED / CACHED /
SHM.EXCL (DESIGN.md s. 3), per process, per set (--freed) and replayed.

tests/live/freedset.c starts eight processes whose sharing is known by
construction (see there): a server P with 64 MiB of copy-on-write anonymous
memory and four workers C1-C4 that each write their own 8 MiB of it; an
outsider O that maps a memfd P maps too; two processes A and B that map the
same 16-page file; a memfd only P and C1 map. It is linked statically and
unmaps [vdso] and [vvar], so no other process maps any of their pages, and
an independent oracle (their maps and pagemap, /proc/kpageflags for the
zero page, nothing shared with core/) gives the exact figures of any set of
them. exmtop scans every process (pagemap source) and must give:

  - per process (-p, fields freed, cached, shmem_excl): the oracle's, to the
    byte; each worker frees its 8 MiB plus its own few pages (its stack and
    data written after fork: at most EXTRA, 256 KiB), P none of the 64 MiB
    (every page of it still mapped by P and three workers: at most EXTRA);
  - --freed of P and the workers: the oracle's; FREED 64 + 32 MiB plus at
    most GROUP_EXTRA (1 MiB: the pages P wrote between the forks, its stack
    and data); the sum of their SOLE is less by at least 63 MiB (the 64 MiB
    they share only among themselves is in no member's sole); SHM.EXCL is
    the 4 pages of the memfd only they map, and none of the memfd O maps;
  - --freed of O: no SHM.EXCL (the memfd is shared with P);
  - A alone and B alone: CACHED 0; A and B together: CACHED at least the
    file's 16 pages, FREED as the oracle's (the file's pages are not in
    it);
  - --freed comm:NAME (all eight): the oracle's; and the group row of
    --group program for NAME (text, CSV and JSON) the same figures;
  - --record then --replay of the same snapshot: the same figures for the
    recorded set, and the oracle's for others; the replayed group row of
    NAME equals the replayed --freed comm:NAME;
  - the smaps source (no page identity): null, not 0;
  - where cgroup v2 is mounted, the eight moved into a cgroup made for the
    test (sysstate.py): the group row of --group cgroup for it equals
    --freed cgroup:PATH and the oracle's.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

MIB = 1 << 20
EXTRA = 256 * 1024
GROUP_EXTRA = MIB
FILE_PAGES = 16
GROUP_PAGES = 4
KPF_ZERO_PAGE = 1 << 24
CATS = ("freed", "cached", "shmem_excl")


def shmem_vma(v):
    """What exmtop calls shared memory (core/procfs.c)."""
    n = v.name
    if not n:
        return "s" in v.perms and v.inode != 0
    return n.startswith(("/SYSV", "/memfd:", "/dev/shm/", "/dev/zero",
                         "[anon_shmem:"))


class Oracle:
    """Page owners and kinds of the test's processes, from pagemap."""

    def __init__(self, pids, ps, skip=None):
        """skip(pid, vma): a mapping left out (hugetlb pages are in no
        exclusive category)."""
        self.ps = ps
        self.maps = {}   # key -> mappings
        self.who = {}    # key -> pids
        self.cat = {}    # key -> category
        self.word = {}   # key -> a word of it
        kpf = os.open("/proc/kpageflags", os.O_RDONLY)
        zero = {}
        try:
            for pid in pids:
                vmas = exmlive.read_maps(pid)
                exmlive.read_pagemap(pid, vmas, ps)
                for v in vmas:
                    if skip and skip(pid, v):
                        continue
                    for _, w in v.words:
                        present = w & exmlive.PM_PRESENT
                        k = ("pfn" if present else "swap",
                             w & exmlive.PM_PFN_MASK)
                        if present:
                            if k[1] not in zero:
                                f = os.pread(kpf, 8, k[1] * 8)
                                zero[k[1]] = len(f) == 8 and bool(
                                    int.from_bytes(f, "little") &
                                    KPF_ZERO_PAGE)
                            if zero[k[1]]:
                                continue
                            if not w & exmlive.PM_FILE:
                                c = "freed"
                            elif shmem_vma(v):
                                c = "shmem_excl"
                            else:
                                c = "cached"
                        else:
                            c = ("shmem_excl" if shmem_vma(v) and
                                 "s" in v.perms else "freed")
                        self.maps[k] = self.maps.get(k, 0) + 1
                        self.who.setdefault(k, set()).add(pid)
                        self.cat[k] = c
                        self.word[k] = w
        finally:
            os.close(kpf)

    def exclusive(self, pids):
        s = set(pids)
        out = dict.fromkeys(CATS, 0)
        for k, who in self.who.items():
            if not who <= s:
                continue
            # mapped once here, more than once for the kernel: someone
            # else maps it
            if (k[0] == "pfn" and self.maps[k] == 1 and
                    not self.word[k] & exmlive.PM_EXCLUSIVE):
                continue
            out[self.cat[k]] += self.ps
        return out


def freed(c, args, what):
    """exmtop --freed's one row (JSON), or None after a failed check."""
    rc, out, err = exmlive.run_exmtop(["-b", "--format", "json"] + args)
    if not c.check(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip())):
        return None
    rows = json.loads(out).get("freed") or []
    if not c.check(len(rows) == 1, "%s: one row, got %r" % (what, rows)):
        return None
    return rows[0]


def group_row(c, args, comm, what):
    """The JSON group row of program comm (--group program), or None."""
    rc, out, err = exmlive.run_exmtop(["-b", "--format", "json", "--group",
                                       "program"] + args)
    if not c.check(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip())):
        return None
    doc = json.loads(out)
    c.eq(doc.get("group_by"), "program", "%s: group_by" % what)
    rows = [r for r in doc.get("groups") or [] if r.get("group") == comm]
    if not c.check(len(rows) == 1, "%s: one row %s, got %r" %
                   (what, comm, rows)):
        return None
    return rows[0]


def text_same(c, comm):
    """--group program's text and CSV row of comm: the figures --freed
    comm: prints, cell for cell (--bytes)."""
    cols = ["nprocs", "freed", "cached", "shmem_excl"]
    got = {}
    for fmt in ("text", "csv"):
        rc, out, err = exmlive.run_exmtop(
            ["-b", "--bytes", "--format", fmt, "--group", "program",
             "--fields", ",".join(cols + ["group"])])
        sep = "," if fmt == "csv" else None
        rows = [ln.split(sep) for ln in out.splitlines()]
        rows = [r[-len(cols) - 1:-1] for r in rows if r and r[-1] == comm]
        c.check(rc == 0 and len(rows) == 1, "--group program --format %s: "
                "one row %s (exit %d): %r" % (fmt, comm, rc, rows))
        got[fmt] = rows[0] if rows else None
    rc, out, err = exmlive.run_exmtop(["-b", "--bytes", "--freed",
                                       "comm:" + comm])
    # SET NPROC EFF.RES SOLE FREED CACHED SHM.EXCL
    want = [ln.split() for ln in out.splitlines()
            if ln.startswith("comm:" + comm + " ")]
    want = [want[0][1]] + want[0][4:7] if len(want) == 1 else None
    for fmt in got:
        c.eq(got[fmt], want, "--group program %s row of %s: --freed "
             "comm:'s cells" % (fmt, comm))


def v2_root():
    """The cgroup v2 mount (the first, as exmtop takes it), or None."""
    with open("/proc/self/mounts") as f:
        for line in f:
            m = line.split()
            if m[2] == "cgroup2":
                return m[1]
    return None


def cgroup_row(c, ora, pids):
    """The eight in a cgroup of their own: its --group cgroup row is what
    --freed cgroup:PATH and the oracle give (the family is killed with the
    cgroup after)."""
    root = v2_root()
    if not root:
        print("note: no cgroup v2 mount: --group cgroup not checked")
        return
    with sysstate.Changes("test_freed") as ch:
        d = ch.cgroup(os.path.join(root, "exm-test-freed-%d" % os.getpid()))
        for pid in pids:
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write(str(pid))
        key = "/" + os.path.relpath(d, root)
        with open("/proc/%d/cgroup" % pids[0]) as f:
            c.check(any(ln.strip() == "0::" + key for ln in f),
                    "moved into %s" % key)
        rc, out, err = exmlive.run_exmtop(["-b", "--format", "json",
                                           "--group", "cgroup"])
        c.eq(rc, 0, "--group cgroup: exit status (%s)" % err.strip())
        rows = [r for r in json.loads(out).get("groups") or []
                if r.get("group") == key] if rc == 0 else []
        gr = rows[0] if len(rows) == 1 else None
        c.check(gr is not None, "--group cgroup: one row %s" % key)
        fr = freed(c, ["--freed", "cgroup:" + key], "--freed cgroup:")
        for k in CATS + ("nprocs",):
            c.eq(gr.get(k) if gr else None, fr.get(k) if fr else -1,
                 "group row of %s equals --freed cgroup: %s" % (key, k))
        same(c, gr, ora.exclusive(pids), "cgroup row against the oracle")


def same(c, got, want, what):
    for k in CATS:
        c.eq(got.get(k) if got else None, want[k], "%s: %s" % (what, k))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (page frame numbers)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live exclusive memory")
    prog = exmlive.plain_program("freedset", ["-static"], "static")
    comm = os.path.basename(prog)[:15]
    tmp = tempfile.mkdtemp(prefix="exm-freed-")
    proc = subprocess.Popen([prog, "/var/tmp"], stdout=subprocess.PIPE,
                            start_new_session=True)
    try:
        ps = pids = None
        for raw in proc.stdout:
            w = raw.decode().split()
            if w and w[0] == "page_size":
                ps = int(w[1])
            elif w and w[0] == "pids":
                pids = [int(x) for x in w[1:]]
            elif w and w[0] == "ready":
                break
        if not ps or not pids or len(pids) != 8:
            raise RuntimeError("freedset did not start")
        P, O, A, B = pids[:4]
        workers = pids[4:]
        group = [P] + workers
        pl = lambda s: ",".join(str(p) for p in s)  # noqa: E731

        ora = Oracle(pids, ps)

        # per process: one run, every figure
        doc = exmlive.exmtop_json(["-p", pl(pids), "--fields",
                                   "pid,sole,freed,cached,shmem_excl"])
        rows = {r["pid"]: r for r in doc["processes"]}
        for pid in pids:
            same(c, rows.get(pid), ora.exclusive([pid]),
                 "process %d against the oracle" % pid)
        for i, pid in enumerate(workers):
            f = (rows.get(pid) or {}).get("freed") or 0
            c.check(8 * MIB <= f <= 8 * MIB + EXTRA,
                    "worker %d frees its 8 MiB (+ at most %d): %d" %
                    (i + 1, EXTRA, f))
        f = (rows.get(P) or {}).get("freed")
        c.check(f is not None and f <= EXTRA,
                "the server frees none of the shared 64 MiB: %r" % f)

        # the server and its workers
        g = freed(c, ["--freed", pl(group)], "--freed group")
        same(c, g, ora.exclusive(group), "group against the oracle")
        if g:
            want = 64 * MIB + 4 * 8 * MIB
            c.check(want <= g["freed"] <= want + GROUP_EXTRA,
                    "group frees 64 + 32 MiB (+ at most %d): %d" %
                    (GROUP_EXTRA, g["freed"]))
            sole = sum((rows.get(p) or {}).get("sole") or 0 for p in group)
            c.eq(g["sole"], sole, "group's sole is its members' sum")
            c.check(g["freed"] - sole >= 63 * MIB,
                    "sum of sole %d is less than the group's FREED %d by "
                    "the 64 MiB shared inside" % (sole, g["freed"]))
            c.eq(g["shmem_excl"], GROUP_PAGES * ps,
                 "group's SHM.EXCL: the memfd only it maps")
            c.eq(g["nprocs"], 5, "group's process count")
        o = freed(c, ["--freed", str(O)], "--freed outsider")
        same(c, o, ora.exclusive([O]), "outsider against the oracle")
        c.eq(o and o["shmem_excl"], 0, "outsider's SHM.EXCL")

        # two processes mapping one file
        for name, pid in (("A", A), ("B", B)):
            c.eq((rows.get(pid) or {}).get("cached"), 0,
                 "%s alone: CACHED" % name)
        ab = freed(c, ["--freed", "%d,%d" % (A, B)], "--freed A,B")
        same(c, ab, ora.exclusive([A, B]), "A,B against the oracle")
        if ab:
            c.check(ab["cached"] >= FILE_PAGES * ps,
                    "A,B: CACHED holds the file's %d pages: %d" %
                    (FILE_PAGES, ab["cached"]))
            c.eq(ab["freed"], rows[A]["freed"] + rows[B]["freed"],
                 "A,B: FREED is A's and B's (the file is not in it)")

        # a set by command name: all eight
        a = freed(c, ["--freed", "comm:" + comm], "--freed comm:")
        same(c, a, ora.exclusive(pids), "comm: set against the oracle")
        c.eq(a and a["nprocs"], 8, "comm: set's process count")
        gr = group_row(c, [], comm, "--group program")
        for k in CATS + ("nprocs",):
            c.eq(gr.get(k) if gr else None, a.get(k) if a else -1,
                 "group row of %s equals --freed comm: %s" % (comm, k))
        same(c, gr, ora.exclusive(pids), "group row against the oracle")
        text_same(c, comm)

        # a recording answers it too
        rec = os.path.join(tmp, "rec.exmrec")
        live = freed(c, ["--record", rec, "--freed", pl(group)],
                     "--record --freed group")
        rep = freed(c, ["--replay", rec, "--freed", pl(group)],
                    "--replay --freed group")
        for k in CATS + ("erss", "sole", "nprocs"):
            c.eq(rep.get(k) if rep else None, live.get(k) if live else -1,
                 "replay equals the recorded snapshot: %s" % k)
        same(c, freed(c, ["--replay", rec, "--freed", "%d,%d" % (A, B)],
                      "--replay --freed A,B"),
             ora.exclusive([A, B]), "replayed A,B against the oracle")
        ra = freed(c, ["--replay", rec, "--freed", "comm:" + comm],
                   "--replay --freed comm:")
        rg = group_row(c, ["--replay", rec], comm, "--replay --group")
        for k in CATS + ("erss", "sole", "nprocs"):
            c.eq(rg.get(k) if rg else None, ra.get(k) if ra else -1,
                 "replayed group row equals replayed --freed comm: %s" % k)
        doc = exmlive.exmtop_json(["--replay", rec, "-p", pl(pids),
                                   "--fields", "pid,freed,cached,shmem_excl"])
        for r in doc["processes"]:
            same(c, r, ora.exclusive([r["pid"]]),
                 "replayed process %d against the oracle" % r["pid"])

        # no page identity: not measured
        s = freed(c, ["--source", "smaps", "--freed", str(P)],
                  "--source smaps --freed")
        for k in CATS:
            c.eq(s.get(k, 0) if s else 0, None, "smaps: %s is null" % k)

        cgroup_row(c, ora, pids)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

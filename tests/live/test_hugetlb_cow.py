#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): private hugetlb memory is private memory, copied on
write after fork (DESIGN.md s. 2, Hugetlb; core/procfs.c's kinds), with
tests/live/kinds.c's `hugecow`, linked statically: a page of libc that
the fixture alone maps is exclusive to it, but shared while exmtop, which
maps libc too and scans every process but itself, runs (the dynamic build
failed 2 of 3 runs on 2026-11-30 so: exmtop cached 0 and 8192 where the
oracle read 36864 and 32768).

nr_hugepages is raised, and a hugetlbfs mounted on /dev/hugepages if none
is, through sysstate.py (undone after, also on failure or a kill). kinds
maps HUGE_N 2 MiB pages in each of: a MAP_PRIVATE|MAP_ANONYMOUS|
MAP_HUGETLB mapping (cpriv, rw-p), a MAP_SHARED one (cshared, rw-s), and
a file of /dev/hugepages mapped MAP_PRIVATE (cfile, rw-p: its pages read,
the first half written, so private copies, the rest the file's pages);
then it forks and the child writes the first half of cpriv (copies of its
own, the parent's first half now mapped once) and reads the rest.

With the two stopped, in every pagemap mode and with the smaps source:
  - the kernel says so: Private_Hugetlb/Shared_Hugetlb of each region in
    smaps are the pages the test made mapped once and twice;
  - kinds: the mappings' rows (JSON and CSV, per process and --files) of
    cpriv are anon, of cshared shmem, of cfile file (never shmem: a
    private mapping; never device, though on a /dev path of major 0);
  - hugetlb of each process is the kernel's Shared+Private_Hugetlb, and of
    each row the region's; effective hugetlb (not from smaps) each page
    divided among its two processes or whole, conserved over the pair;
  - exclusive memory (freed, cached, shmem_excl) of each process and
    freed and shmem_excl of the pair (--freed PID,PID) are test_freed's
    pagemap oracle's over the mappings that are not hugetlb (hugetlb pages
    go back to the hugetlb pool, not the free pool, and are in none:
    README), the pair's cached less than a huge page (the oracle cannot
    see the other processes mapping the libraries' pages).
"""

import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402
import test_freed  # noqa: E402
import test_kinds as kinds  # noqa: E402

MiB = 1 << 20
HPS = 2 * MiB
HUGE_N = 4  # even: half of each region written after the fork
DIR = "/dev/hugepages"
ANON_FILE = "/anon_hugepage (deleted)"
REGIONS = ("cpriv", "cshared", "cfile")
KIND = {"cpriv": "anon", "cshared": "shmem", "cfile": "file"}


def is_hugetlbfs(path):
    with open("/proc/mounts") as f:
        return any(w[1] == path and w[2] == "hugetlbfs"
                   for w in (line.split() for line in f))


def made(parent, child):
    """{(pid, region): (pages mapped once, pages mapped twice)}: what
    kinds hugecow makes (see kinds.c)."""
    h = HUGE_N // 2
    return {(parent, "cpriv"): (h, h), (child, "cpriv"): (h, h),
            (parent, "cshared"): (0, HUGE_N), (child, "cshared"): (0, HUGE_N),
            (parent, "cfile"): (0, HUGE_N), (child, "cfile"): (0, HUGE_N)}


def check_kernel(c, k):
    parent, child = k.pids
    bad = []
    for pid in k.pids:
        regs = kinds.smaps_regions(pid, k.regions)
        for name in REGIONS:
            once_, twice = made(parent, child)[(pid, name)]
            r = regs.get(name, {})
            got = (r.get("Private_Hugetlb"), r.get("Shared_Hugetlb"))
            if got != (once_ * HPS, twice * HPS) or r.get("Rss") != 0:
                bad.append("pid %d %s: smaps Private_Hugetlb, Shared_"
                           "Hugetlb %r, Rss %r; made %d once, %d twice" %
                           (pid, name, got, r.get("Rss"), once_, twice))
    kinds.once(c, "[cow] smaps says the pages are as made", bad)


def row_names(k, hfile):
    return {"cpriv": ANON_FILE, "cshared": ANON_FILE, "cfile": hfile}


def check_rows(what, row, k, hfile, smaps):
    """The hugetlb rows of one process's JSON: kind, hugetlb and (not from
    smaps) effective hugetlb of each region's row."""
    parent, child = k.pids
    bad = []
    names = row_names(k, hfile)
    files = row.get("files") or []
    for name in REGIONS:
        got = [f for f in files if f.get("file") == names[name] and
               f.get("kind") == KIND[name]]
        once_, twice = made(parent, child)[(row["pid"], name)]
        want_h = (once_ + twice) * HPS
        want_e = None if smaps else (once_ + twice / 2) * HPS
        if len(got) != 1:
            bad.append("%s: rows %s of kind %s: %r; all: %r" %
                       (what, names[name], KIND[name], got,
                        [(f.get("file"), f.get("kind")) for f in files]))
            continue
        f = got[0]
        # an anonymous kind's row is one for its name across processes
        # (as [anon]): any other process's private MAP_HUGETLB is in it
        n = f.get("nprocs")
        if name == "cpriv" and isinstance(n, int) and n > 2:
            n = 2
        if (n, f.get("hugetlb"), f.get("ehugetlb"),
                f.get("rss")) != (2, want_h, want_e, 0):
            bad.append("%s: row %s (%s): nprocs, hugetlb, ehugetlb, rss "
                       "%r, want %r" % (what, names[name], KIND[name],
                                        (f.get("nprocs"), f.get("hugetlb"),
                                         f.get("ehugetlb"), f.get("rss")),
                                        (2, want_h, want_e, 0)))
    for f in files:
        if f.get("file") in names.values() and f.get("kind") not in (
                "anon", "shmem", "file"):
            bad.append("%s: row %s of kind %r" % (what, f.get("file"),
                                                  f.get("kind")))
    return bad


def check_files_view(what, args, k, hfile):
    """--files in JSON and CSV: the rows of the regions and their kinds;
    cpriv's and cshared's rows apart (same name, two kinds)."""
    bad = []
    names = row_names(k, hfile)
    sel = ["--scan-pids", ",".join(str(p) for p in k.pids)]
    rc, out, err = exmlive.run_exmtop(["-b", "-n", "1", "--bytes", "--files",
                                       "--format", "json"] + args + sel)
    if rc != 0:
        return ["%s: --files json exit %d: %s" % (what, rc, err.strip())]
    rows = json.loads(out).get("files") or []
    js = sorted((r.get("file"), r.get("kind"), r.get("hugetlb"))
                for r in rows if r.get("file") in names.values())
    rc, out, err = exmlive.run_exmtop(["-b", "-n", "1", "--bytes", "--files",
                                       "--format", "csv", "--fields",
                                       "kind,hugetlb,file"] + args + sel)
    if rc != 0:
        return ["%s: --files csv exit %d: %s" % (what, rc, err.strip())]
    lines = out.splitlines()
    head = lines[0].split(",")
    csv = []
    for line in lines[1:]:
        v = dict(zip(head, line.split(",", len(head) - 1)))
        if v.get("file") in names.values():
            csv.append((v["file"], v["kind"], int(v["hugetlb"])))
    parent, child = k.pids
    # a row's hugetlb: its pages in each process, summed
    want = sorted((names[n], KIND[n],
                   sum(sum(made(parent, child)[(p, n)]) for p in k.pids) *
                   HPS) for n in REGIONS)
    if js != want:
        bad.append("%s: --files json rows %r, want %r" % (what, js, want))
    if sorted(csv) != want:
        bad.append("%s: --files csv rows %r, want %r" % (what, sorted(csv),
                                                         want))
    return bad


def exclusive_figures(k):
    """test_freed's pagemap oracle's exclusive memory of each process and
    of the pair, over the mappings that are not hugetlb."""
    huge = {(p, s) for p in k.pids for s, _ in k.regions.values()}
    oracle = test_freed.Oracle(k.pids, os.sysconf("SC_PAGESIZE"),
                               skip=lambda p, v: (p, v.start) in huge)
    return {"pids": {pid: oracle.exclusive([pid]) for pid in k.pids},
            "pair": oracle.exclusive(k.pids)}


def check_exclusive(c, what, args, k):
    """freed, cached, shmem_excl of each process and of the pair, against
    the oracle read just before and just after exmtop (exmlive.settled):
    a page of libc or of the program that one of the two maps alone is in
    its CACHED, and is not while another process maps it too; processes
    of the machine start and end meanwhile, stopped as the two are."""
    pair = ",".join(str(p) for p in k.pids)

    def scans():
        return (kinds.scan(args)[1],
                test_freed.freed(c, ["--bytes", "--freed", pair] + args,
                                 "%s --freed pair" % what))
    (rows, r), want = exmlive.settled(lambda: exclusive_figures(k), scans)
    if want is None:
        return ["%s: the oracle's exclusive memory never held still over "
                "one exmtop run" % what]
    bad = []
    for pid in k.pids:
        row = rows.get(pid) or {}
        got = {x: row.get(x) for x in test_freed.CATS}
        if got != want["pids"][pid]:
            bad.append("%s: pid %d exclusive %r, oracle %r" %
                       (what, pid, got, want["pids"][pid]))
    if r is not None:
        # the oracle sees the two alone: a library page both map is
        # theirs to it, mapped by others too to exmtop (the pagemap word
        # says "exclusive" only of a page mapped once); CACHED is then
        # only checked to hold no huge page
        got = {x: r.get(x) for x in ("freed", "shmem_excl")}
        if got != {x: want["pair"][x] for x in got}:
            bad.append("%s: --freed %s %r, oracle %r" %
                       (what, pair, got, want["pair"]))
        if r.get("cached") is None or r["cached"] >= HPS:
            bad.append("%s: --freed %s cached %r: a huge page in it?" %
                       (what, pair, r.get("cached")))
    return bad


def run(c, modes, tmp):
    k = kinds.Kinds("hugecow", HUGE_N, DIR, path=kinds.kinds_static())
    try:
        parent, child = k.pids
        hfile = "%s/kinds-%d" % (DIR, parent)
        check_kernel(c, k)
        figs = {}
        for mode in modes + ["smaps"]:
            smaps = mode == "smaps"
            args = kinds.mode_args(mode, k.pids)
            with exmlive.frozen(k.pids):
                rows, bad = kinds.recorded_scan(
                    args, os.path.join(tmp, "cow.exmrec"), k.pids)
                kern = {p: kinds.kernel(p) for p in k.pids}
                bad += check_files_view("[cow %s]" % mode, args, k, hfile)
                if not smaps:
                    bad += check_exclusive(c, "[cow %s]" % mode, args, k)
            for pid in k.pids:
                row = rows.get(pid)
                what = "[cow %s] pid %d" % (mode, pid)
                if row is None:
                    bad.append("%s: not listed" % what)
                    continue
                if row.get("hugetlb") != kern[pid]["hugetlb"]:
                    bad.append("%s: hugetlb %r, kernel %d" %
                               (what, row.get("hugetlb"),
                                kern[pid]["hugetlb"]))
                bad += check_rows(what, row, k, hfile, smaps)
                figs.setdefault(pid, {})[mode] = row.get("hugetlb")
            if not smaps and all(rows.get(p) for p in k.pids):
                s = sum(rows[p].get("ehugetlb") or 0 for p in k.pids)
                # distinct pages: cpriv 3N/2, cshared N, cfile N
                total = (3 * HUGE_N // 2 + 2 * HUGE_N) * HPS
                if s != total:
                    bad.append("[cow %s] effective hugetlb sums to %r, the "
                               "pages mapped are %d" % (mode, s, total))
            kinds.once(c, "[cow %s] kinds, hugetlb, effective hugetlb, "
                       "exclusive; recorded and replayed" % mode, bad)
        for pid, by in figs.items():
            c.eq(len(set(by.values())), 1, "[cow] pid %d: every source's "
                 "hugetlb agrees: %r" % (pid, by))
    finally:
        k.stop()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (nr_hugepages, PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    mi = kinds.meminfo()
    if mi.get("Hugepagesize") != HPS:
        print("SKIP: the default huge page size is %r, the test needs "
              "2 MiB" % mi.get("Hugepagesize"))
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live hugetlb copy on write")
    modes = exmlive.pagemap_modes()
    tmp = tempfile.mkdtemp(prefix="exm-cow-", dir="/var/tmp")
    try:
        with sysstate.Changes("test_hugetlb_cow") as ch:
            # cpriv 3N/2 pages, cshared N, cfile N and N/2 copies; spare
            want = 4 * HUGE_N + 2
            ch.write("/proc/sys/vm/nr_hugepages",
                     str(mi["HugePages_Total"] + want))
            if not kinds.wait_free_huge(want):
                c.check(False, "could not get %d free huge pages "
                        "(HugePages_Free %d)" %
                        (want, kinds.meminfo()["HugePages_Free"]))
            else:
                if not os.path.isdir(DIR):
                    ch.command(["mkdir", DIR], ["rmdir", DIR])
                if not is_hugetlbfs(DIR):
                    ch.command(["mount", "-t", "hugetlbfs", "-o",
                                "pagesize=2M", "none", DIR],
                               ["umount", "-l", DIR])
                run(c, modes, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): known sharing, checked exactly.

Starts tests/live/sharer (four processes with regions of known sharing, see
sharer.c), runs `exmtop -b --format json --bytes --scan-pids <its pids>` (sharing
counted among them only, as the oracle counts it) once with
--pagemap-mode scan and once with --pagemap-mode read, and checks:

  1. the sharer really set up what it claims: an independent oracle (pagemap
     read here, exmlive.Oracle) gives the designed sizes for every region;
  2. exmtop's per-file rows in each process for the memfd, the MAP_SHARED
     anonymous memory (/dev/zero) and the private file mapping equal the
     designed sizes exactly (rss, erss, sole, writable, vm, nmaps);
  3. exmtop's [anon] row of each process equals the designed private, cow,
     ro and thp regions plus the oracle's sizes of the process's other anonymous
     mappings (libc data, stack-less anon), and every per-process total
     equals the oracle;
  4. the files table (nprocs, sums across the four) for those three files;
  5. conservation: sum of erss over the processes == distinct PFNs x page
     size (within a byte), and totals == sum of the process rows;
  6. the kernel's figures (pss, pss_anon, ...) equal smaps_rollup;
  7. both pagemap paths give the same JSON (timing fields aside).
"""

import os
import re
import shutil
import sys
import tempfile
from fractions import Fraction

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
from exmlive import EFFECTIVE_KEYS, EFF_TOL  # noqa: E402

CHECK_KEYS = ("vm", "rss", "erss", "sole", "writable", "swap", "eswap",
              "mapped", "emapped")


def designed(ps, swap=False):
    """Designed sizes per region and process index (see sharer.c)."""
    P = ps
    d = {}

    def sz(vm, rss, erss, sole, writable, swp=0, eswap=0):
        return {"vm": vm, "rss": rss, "erss": Fraction(erss), "sole": sole,
                "writable": writable, "swap": swp, "eswap": Fraction(eswap),
                "mapped": rss + swp, "emapped": Fraction(erss) + eswap}

    for i in range(4):
        d[("private", i)] = sz(5 * P, 5 * P, 5 * P, 5 * P, 5 * P)
        if i == 1:
            d[("cow", i)] = sz(7 * P, 7 * P, P + Fraction(6 * P, 4), P, P)
        else:
            d[("cow", i)] = sz(7 * P, 7 * P,
                               Fraction(P, 3) + Fraction(6 * P, 4), 0, 0)
        d[("ro", i)] = sz(3 * P, 3 * P, 3 * P, 3 * P, 0)
        if i == 3:
            d[("shanon", i)] = None
        else:
            d[("shanon", i)] = sz(9 * P, 9 * P, 3 * P, 0, 0)
        if i == 0:
            d[("memfd", i)] = sz(22 * P, 22 * P, Fraction(22 * P, 5), 0, 0)
        else:
            d[("memfd", i)] = sz(11 * P, 11 * P, Fraction(11 * P, 5), 0, 0)
        d[("file", i)] = sz(13 * P, 13 * P, 4 * P + Fraction(9 * P, 4),
                            4 * P, 4 * P)
        n = (2 << 20) // P  # thp: one page copied by child 2
        if i == 2:
            d[("thp", i)] = sz(n * P, n * P, Fraction((n - 1) * P, 4) + P,
                               P, P)
        else:
            d[("thp", i)] = sz(n * P, n * P, Fraction((n - 1) * P, 4) +
                               Fraction(P, 3), 0, 0)
        if not swap:
            continue
        # swcow: 6 pages paged out before fork; child 1 read 2 back in
        # (its own present pages: sole, and exclusive in a writable
        # mapping), the others still share those 2 swap entries by 3.
        if i == 1:
            d[("swcow", i)] = sz(6 * P, 2 * P, 2 * P, 2 * P, 2 * P,
                                 4 * P, P)
        else:
            d[("swcow", i)] = sz(6 * P, 0, 0, 0, 0, 6 * P,
                                 Fraction(2 * P, 3) + P)
        d[("swsole", i)] = sz(8 * P, 0, 0, 0, 0, 8 * P, 8 * P)
    return d


NMAPS = {"shanon": 1, "file": 1}
ACROSS = {  # files table: nprocs and sizes summed over the four processes
    "memfd": (4, lambda P: (55 * P, 55 * P, 11 * P, 0, 0)),
    "shanon": (3, lambda P: (27 * P, 27 * P, 9 * P, 0, 0)),
    "file": (4, lambda P: (52 * P, 52 * P, 25 * P, 16 * P, 16 * P)),
}


def cmp_sizes(c, got, want, what, keys=CHECK_KEYS):
    for k in keys:
        if k not in want:
            continue
        g = got.get(k) if got else None
        if k in EFFECTIVE_KEYS:
            c.near(g, want[k], EFF_TOL, "%s %s" % (what, k))
        else:
            c.eq(g, want[k], "%s %s" % (what, k))


def find_rows(rows, name):
    return [r for r in rows if r.get("file") == name]


def region_names(sh):
    """Names of the file-like regions as exmtop gives them: the file's own
    name (the temporary file has a space and a newline, which maps shows as
    \\012 and exmtop as the newline it is)."""
    return {"memfd": "/memfd:exm_sharer (deleted)",
            "shanon": "/dev/zero (deleted)", "file": sh.file_name}


def check_oracle_regions(c, sh, orc, want):
    for i, pid in enumerate(sh.pids):
        for r in sorted({r for r, _ in want}):
            a, b = sh.regions[r]
            got = orc.region(pid, a, b)
            if r == "memfd" and i == 0:
                a2, b2 = sh.regions["memfd2"]
                g2 = orc.region(pid, a2, b2)
                got = {k: got[k] + g2[k] for k in got}
            w = want[(r, i)]
            if w is None:
                c.eq(got["vm"], 0, "oracle %s in process %d vm" % (r, i))
                continue
            cmp_sizes(c, got, w, "oracle %s in process %d" % (r, i))


def anon_vma(v):
    return v.inode == 0 and v.name == ""


ANON_REGIONS = ("private", "cow", "ro", "thp", "swcow", "swsole")


def anon_regions(sh):
    return [r for r in ANON_REGIONS if r in sh.regions]


def in_regions(sh, v):
    for r in anon_regions(sh):
        a, b = sh.regions[r]
        if v.start < b and a < v.end:
            return True
    return False


def check_json(c, sh, orc, doc, mode):
    ps = sh.page_size
    want = designed(ps, "swcow" in sh.regions)
    names = region_names(sh)
    tag = "[%s]" % mode

    c.eq(doc.get("source"), "pagemap", tag + " source")
    c.eq(doc.get("page_size"), ps, tag + " page_size")
    c.eq(doc.get("units"), "bytes", tag + " units")
    procs = {p.get("pid"): p for p in doc.get("processes", [])}
    c.eq(sorted(procs), sorted(sh.pids), tag + " process set")

    for i, pid in enumerate(sh.pids):
        p = procs.get(pid)
        if not c.check(p is not None, "%s process %d (pid %d) listed" %
                       (tag, i, pid)):
            continue
        what = "%s process %d (pid %d)" % (tag, i, pid)
        c.eq(p.get("comm"), sh.comm, what + " comm")
        c.eq(p.get("user"), "root", what + " user")
        c.eq(p.get("ppid"), sh.pids[0] if i else os.getpid(),
             what + " ppid")
        c.check(p.get("cmd", "").startswith(sh.path), "%s cmd %r starts "
                "with %s" % (what, p.get("cmd"), sh.path))

        # Per-process totals against the oracle.
        cmp_sizes(c, p, orc.sizes(pid), what + " total")

        rows = p.get("files") or []
        # The file-like regions: designed sizes, directly.
        for r, name in names.items():
            found = find_rows(rows, name)
            w = want[(r, i)]
            if w is None:
                c.eq(len(found), 0, "%s has no %s row" % (what, r))
                continue
            if not c.eq(len(found), 1, "%s rows for %s (%s)" %
                        (what, r, name)):
                continue
            cmp_sizes(c, found[0], w, "%s %s row" % (what, r))
            nm = NMAPS.get(r, 2 if i == 0 else 1)
            c.eq(found[0].get("nmaps"), nm, "%s %s row nmaps" % (what, r))

        # Private anonymous regions: the process's anonymous row is the
        # three designed regions plus the other anonymous mappings.
        anon = [f for f in rows if f.get("kind") == "anon"]
        if c.eq(len(anon), 1, "%s one anon row (%r)" %
                (what, [f.get("file") for f in anon])):
            exp = orc.sizes(pid, lambda v: anon_vma(v) and
                            not in_regions(sh, v))
            for r in anon_regions(sh):
                for k in CHECK_KEYS:
                    exp[k] = exp[k] + want[(r, i)][k]
            cmp_sizes(c, anon[0], exp, "%s anon row" % what)
            cmp_sizes(c, anon[0], orc.sizes(pid, anon_vma),
                      "%s anon row vs oracle" % what)

        # Every process row adds up to its process.
        for k in ("vm", "rss", "sole", "writable", "swap"):
            c.eq(sum(f.get(k) or 0 for f in rows), p.get(k),
                 "%s sum of file rows %s" % (what, k))
        c.near(sum(f.get("erss") or 0 for f in rows), p.get("erss") or 0,
               1.0, "%s sum of file rows erss" % what)

        # The kernel's own figures, read from smaps_rollup now. The sharer
        # is asleep, but its libc pages are shared with every process that
        # starts or exits meanwhile (exmtop itself, other tests), so its file
        # Pss moves: allow half of it. Its anonymous and shmem pages are
        # shared with nothing else: exact; and so is Pss_Dirty, since its
        # program and file are written back before they are mapped
        # (exmlive.written_back, sharer.c): no writeback moves it.
        roll = exmlive.read_rollup(pid)
        for k in ("pss_anon", "pss_shmem", "pss_dirty", "swap_pss"):
            c.eq(p.get(k), roll.get(k), "%s %s vs smaps_rollup" % (what, k))
        for k in ("pss", "pss_file"):
            g = p.get(k)
            c.check(g is not None and
                    abs(g - roll[k]) <= roll["pss_file"] / 2 + 1024,
                    "%s %s %r vs smaps_rollup %d (pss_file %d)" %
                    (what, k, g, roll[k], roll["pss_file"]))

    # Files across the four processes.
    files = doc.get("files") or []
    for r, name in names.items():
        found = find_rows(files, name)
        if not c.eq(len(found), 1, "%s files rows for %s" % (tag, r)):
            continue
        nprocs, f = ACROSS[r]
        vm, rss, erss, sole, wr = f(ps)
        c.eq(found[0].get("nprocs"), nprocs, "%s files %s nprocs" % (tag, r))
        cmp_sizes(c, found[0], {"vm": vm, "rss": rss, "erss": erss,
                                "sole": sole, "writable": wr, "swap": 0},
                  "%s files %s" % (tag, r))

    # Conservation and totals.
    distinct = orc.distinct_present() * ps
    s_erss = sum(procs[p].get("erss") or 0 for p in procs)
    c.near(s_erss, distinct, 1.0,
           tag + " conservation: sum erss == distinct pages x page size")
    tot = doc.get("totals") or {}
    c.near(tot.get("erss"), distinct, 1.0, tag + " totals erss")
    for k in ("vm", "rss", "sole", "writable", "swap"):
        c.eq(tot.get(k), sum(procs[p].get(k) or 0 for p in procs),
             "%s totals %s == sum of processes" % (tag, k))
    s_files = sum(f.get("erss") or 0 for f in files)
    c.near(s_files, distinct, 1.0, tag + " sum of files erss")
    dswap = orc.distinct_swapped() * ps
    c.near(sum(procs[p].get("eswap") or 0 for p in procs), dswap, 1.0,
           tag + " conservation: sum eswap == distinct swap entries x "
           "page size")
    c.near(tot.get("eswap"), dswap, 1.0, tag + " totals eswap")
    c.eq(doc.get("distinct_pages"), orc.distinct_present(),
         tag + " distinct_pages")
    c.eq(doc.get("distinct_swap"), orc.distinct_swapped(),
         tag + " distinct_swap")


# Keys that legitimately differ between two runs: timing, free memory, and
# the kernel's Pss of file pages, which other processes (libc is shared
# with everything that starts or exits meanwhile, exmtop included) change.
VOLATILE = ("source_detail", "time", "time_taken", "taken_at", "timestamp",
            "elapsed", "mem_available", "pss", "pss_file")


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in VOLATILE:
                continue
            diff(a.get(k), b.get(k), path + "." + k, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d vs %d items" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out)
    elif a != b:
        out.append("%s: %r vs %r" % (path, a, b))


def thp_kb(pid, start):
    """AnonHugePages (kB) of the mapping at start, for information."""
    cur = None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if "-" in w[0] and not w[0].endswith(":"):
                cur = int(w[0].split("-")[0], 16)
            elif cur == start and w[0] == "AnonHugePages:":
                return int(w[1])
    return None


def check_derived(c, pids):
    """Auto mode reads the frames of a shared file's pages once: the other
    MAP_SHARED mappings of the same pages take them from that read and ask
    PAGEMAP_SCAN only which pages they have (source_pagemap.c,
    shared_derive); the figures are the read ones (checked above). On one
    thread, processes in pid order: the parent reads shanon and memfd and
    derives memfd2; children 1 and 2 derive shanon and memfd, child 3
    memfd: 6 mappings."""
    os.environ["EXMTOP_THREADS"] = "1"
    try:
        doc = exmlive.exmtop_json(["--bytes", "--scan-pids", pids,
                                   "--pagemap-mode", "auto"])
    finally:
        del os.environ["EXMTOP_THREADS"]
    det = str(doc.get("source_detail", ""))
    m = re.search(r"(\d+) shared mappings from frames already read", det)
    c.eq(int(m.group(1)) if m else 0, 6,
         "[auto] shared mappings derived from frames read once (%r)" % det)


ATTEMPTS = 3


class Attempt(exmlive.Checker):
    """Checks of one attempt: they count (and failures print) only when
    the sharer held still through it (commit)."""

    def __init__(self):
        super().__init__("attempt")
        self.fails = []
        self.committed = False

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            self.fails.append(what)
        return cond

    def commit(self, c):
        self.committed = True
        c.passed += self.passed
        for what in self.fails:
            c.check(False, what)


def measure(c, sh, orc, swap):
    """One comparison of every pagemap mode with the oracle's reading."""
    ps = sh.page_size
    check_oracle_regions(c, sh, orc, designed(ps, swap))
    print("thp region in a huge page (AnonHugePages) per process: "
          "%s" % [thp_kb(pid, sh.regions["thp"][0])
                  for pid in sh.pids])
    pids = ",".join(str(p) for p in sh.pids)
    docs = {}
    for mode in exmlive.pagemap_modes():
        try:
            docs[mode] = exmlive.exmtop_json(
                ["--bytes", "--scan-pids", pids, "--pagemap-mode",
                 mode])
        except RuntimeError as e:
            c.check(False, "[%s] %s" % (mode, e))
            continue
        check_json(c, sh, orc, docs[mode], mode)
    if "read" in docs and len(docs) > 1:
        for mode in docs:
            if mode == "read":
                continue
            out = []
            diff(docs[mode], docs["read"], "$", out)
            for line in out[:20]:
                print("  %s/read differ: %s" % (mode, line))
            c.eq(len(out), 0,
                 "%s and read modes agree exactly" % mode)
        for mode, want in (("scan", "PAGEMAP_SCAN"),
                           ("auto", "PAGEMAP_SCAN+reads"),
                           ("read", "read")):
            det = str(docs.get(mode, {}).get("source_detail", ""))
            c.check(want.lower() in det.lower(),
                    "[%s] source_detail %r names %s" %
                    (mode, det, want))
    if "auto" in docs:
        check_derived(c, pids)


def run(c, swap=False):
    """The whole comparison with one sharer (with swap regions if swap)."""
    tmp = tempfile.mkdtemp(prefix="exm-live-", dir="/var/tmp")
    try:
        with exmlive.Sharer(tmp, swap=swap) as sh:
            # The oracle reads pagemap before exmtop runs and again after:
            # if the sharer's frames moved meanwhile (compaction, khugepaged
            # or another test migrating them), the comparison proves nothing
            # and is made again; the moving is not exmtop's (it only reads).
            for attempt in range(1, ATTEMPTS + 1):
                a = Attempt()
                orc = exmlive.Oracle(sh.pids, sh.page_size)
                measure(a, sh, orc, swap)
                if exmlive.Oracle(sh.pids, sh.page_size).maps == orc.maps:
                    a.commit(c)
                    break
                print("sharer's frames moved during attempt %d: measuring "
                      "again" % attempt, flush=True)
            c.check(a.committed,
                    "sharer unchanged during one of %d attempts" % ATTEMPTS)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live sharing")
    run(c)
    rc, _, err = exmlive.run_exmtop(["-b", "--pagemap-mode", "bogus"])
    c.eq(rc, 2, "bad --pagemap-mode value exits 2")
    c.eq(len(err.strip().splitlines()), 1, "bad option: one line on stderr")
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

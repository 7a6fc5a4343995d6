#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): the PAGEMAP_SCAN walk finds every page (issue 27).

One process (tests/live/kinds.c `runs`) holds a 1 GiB private anonymous
reservation with 1,500 single pages written (1,500 regions: more than the
1,024 one PAGEMAP_SCAN call returns, so the walk must go on after its
first call) and runs of 511, 512, 513, 1,023, 1,024, 1,025 and 4,097
pages written whole (regions on both sides of 512 and 1,024 pages). The
process is stopped (SIGSTOP) while it is measured, so nothing moves.

In every pagemap mode this kernel has (scan, auto and read), exmtop's
recording of the reservation holds exactly the pages written, each once;
the recorded runs (frame, flags) are the same row for row in every mode
(compared page by page with the read mode, which reads every word); and
the process's resident equals the kernel's Rss exactly. A single page or
the last page of a long region lost fails it.

Big mappings whose pages are all resident (kinds `twice` with 66,000
pages, over the 65,536 of a small mapping: two maps of one memfd,
another memfd, private anonymous memory) are read at once in auto mode,
not asked about (source_pagemap.c's dense_enough), but for the memfd's
second map, whose pages' frames the first map's read gave (only which
pages it has is asked, shared_derive): an strace of it sees exactly three
PAGEMAP_SCAN calls, exmtop's probe of its own page, that one, and the
question whether the private one's first page is a transparent huge page
(count_huge: a walk that stops at its first page); every page of
each is recorded (the private one's mapping may have merged with a
neighbour's), the recorded pages (and their flags: not their frames,
which compaction may move between two snapshots) equal read mode's in
every mode, and the resident is the kernel's Rss.

Small mappings side by side are read together, holes of a few pages
between them too (source_pagemap.c's read_group; kinds `mosaic`: private
anonymous mappings split by mprotect, one-page and twenty-page holes, a
shared memfd among them): in every mode the pages recorded in each
mapping are exactly those written, the same (with their flags) as read
mode's, and the resident is the kernel's Rss.
"""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import test_kinds  # noqa: E402

GiB = 1 << 30
SINGLES = 1500
RUNS = (511, 512, 513, 1023, 1024, 1025, 4097)  # as in kinds.c
DENSE = 66000  # pages of each kinds twice region: a big mapping


def written_pages():
    """The page offsets kinds runs writes (see kinds.c)."""
    pages = [16 * i for i in range(SINGLES)]
    for j, n in enumerate(RUNS):
        first = 16 * SINGLES + 8192 * (j + 1) + 37 * j
        pages += range(first, first + n)
    return pages


def scan_recorded(c, what, mode, pid, tmp):
    """pid scanned alone (its pages are what is compared) in mode and
    recorded in tmp/WHAT-MODE.exmrec, its resident checked against the
    kernel's Rss: the recording's path."""
    rec = os.path.join(tmp, "%s-%s.exmrec" % (what, mode))
    rows, bad = test_kinds.recorded_scan(
        ["--pagemap-mode", mode, "--scan-pids", str(pid)], rec, [pid])
    for b in bad:
        c.check(False, b)
    c.eq((rows.get(pid) or {}).get("rss"), test_kinds.kernel(pid)["rss"],
         "[%s] %s: resident is the kernel's Rss" % (mode, what))
    return rec


def record(c, mode, pid, start, tmp, want):
    """pid's reservation at start as recorded in mode, checked against
    the pages written (want) and the kernel's Rss: its run rows."""
    rec = scan_recorded(c, "runs", mode, pid, tmp)
    runs = exmlive.recorded_runs(rec, pid, start)
    got = [off for r in runs for off in range(r[0], r[0] + r[1])]
    c.eq(len(got), len(want), "[%s] pages recorded in the reservation" %
         mode)
    c.check(got == want, "[%s] the recorded pages are the pages written, "
            "each once" % mode)
    return runs


def pages(rec, pid, start):
    """pid's mapping at start in the recording rec, page by page: offset
    -> (present, flags). Not the frames: the machine's compaction may move
    a page between two modes' snapshots, stopped process or not."""
    return {off: (r[2], r[5]) for r in exmlive.recorded_runs(rec, pid, start)
            for off in range(r[0], r[0] + r[1])}


def scan_calls(c, pid):
    """How many PAGEMAP_SCAN calls an auto-mode snapshot of pid makes
    (strace)."""
    rc, err = exmlive.strace_exmtop("ioctl", [
        "-b", "--pagemap-mode", "auto", "--scan-pids", str(pid),
        "--fields", "pid,erss"])
    c.eq(rc, 0, "strace exmtop: exit status")
    return sum(1 for line in err.splitlines()
               if "PAGEMAP_SCAN" in line or "0x66, 0x10" in line)


def check_dense(c, tmp):
    """Big mappings all resident: see the docstring."""
    k = test_kinds.Kinds("twice", DENSE)
    pid = k.pids[0]
    got = {}
    try:
        with exmlive.frozen([pid]):
            for mode in exmlive.pagemap_modes():
                rec = scan_recorded(c, "dense", mode, pid, tmp)
                got[mode] = {name: pages(rec, pid, r[0])
                             for name, r in k.regions.items()}
            if "auto" in got:
                if shutil.which("strace"):
                    c.eq(scan_calls(c, pid), 3, "auto, dense mappings: "
                         "PAGEMAP_SCAN called only by exmtop's probe, "
                         "for the memfd's second map and for the private "
                         "one's first page")
                else:
                    c.check(False, "strace is installed (scripts/deps.sh)")
    finally:
        k.stop()
    c.eq(sorted(k.regions), ["anon", "once", "twice1", "twice2"],
         "kinds twice's regions")
    for mode, regions in got.items():
        for name, pg in regions.items():
            # (the private one may have grown into a neighbour)
            c.check(len(pg) == DENSE or (name == "anon" and len(pg) > DENSE),
                    "[%s] dense %s: every page recorded (%d)" %
                    (mode, name, len(pg)))
            if mode != "read":
                c.check(pg == got["read"][name], "[%s] dense %s: recorded "
                        "pages equal the read mode's" % (mode, name))


MOSAIC = sorted(set(range(64)) - {10, 20, 21, 22, 23} - set(range(30, 50)))


def vmas(pid, lo, hi):
    """The starts of pid's mappings that overlap [lo, hi)."""
    out = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            a, b = (int(x, 16) for x in line.split()[0].split("-"))
            if a < hi and b > lo:
                out.append(a)
    return out


def check_mosaic(c, tmp):
    """Mappings side by side read together: see the docstring."""
    k = test_kinds.Kinds("mosaic")
    pid = k.pids[0]
    lo, hi = k.regions["mosaic"]
    ps = os.sysconf("SC_PAGE_SIZE")
    got = {}
    try:
        with exmlive.frozen([pid]):
            starts = vmas(pid, lo, hi)
            c.check(len(starts) >= 7, "mosaic: %d mappings (want 7 or "
                    "more: split, holes, a memfd among them)" % len(starts))
            for mode in exmlive.pagemap_modes():
                rec = scan_recorded(c, "mosaic", mode, pid, tmp)
                pg = {}
                for a in starts:
                    for off, v in pages(rec, pid, a).items():
                        page = (a - lo) // ps + off
                        if 0 <= page < 64:
                            pg[page] = v
                got[mode] = pg
                c.eq(sorted(p for p, v in pg.items() if v[0]), MOSAIC,
                     "[%s] mosaic: the pages recorded are those written" %
                     mode)
    finally:
        k.stop()
    for mode, pg in got.items():
        if mode != "read":
            c.check(pg == got["read"], "[%s] mosaic: recorded pages and "
                    "flags equal the read mode's" % mode)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live scan")
    want = written_pages()
    c.eq(len(set(want)), SINGLES + sum(RUNS), "the fixture's pages are "
         "distinct")
    tmp = tempfile.mkdtemp(prefix="exm-scan-", dir="/var/tmp")
    k = test_kinds.Kinds("runs", GiB, SINGLES)
    pid = k.pids[0]
    start = k.regions["runs"][0]
    try:
        with exmlive.frozen([pid]):
            by_mode = {mode: record(c, mode, pid, start, tmp, want)
                       for mode in exmlive.pagemap_modes()}
        for mode, runs in by_mode.items():
            if mode != "read":
                c.check(runs == by_mode["read"], "[%s] recorded runs "
                        "(frames, flags) equal the read mode's, %d rows" %
                        (mode, len(runs)))
        check_dense(c, tmp)
        check_mosaic(c, tmp)
    finally:
        k.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/golden/expect.py - the golden JSON files of the fixtures checked
against figures computed here, independently of exmtop (issue 27).

The golden files are exmtop's own output (UPDATE=1 writes them), so a bug
in the accounting could be written into them and pass review. This script
describes the fixtures' pages again, in its own words (what
core/source_fixture.c builds: each process's mappings, the frame or swap
entry of each page, its exclusive and file bits), computes every size of
docs/DESIGN.md section 3 from them, page by page, with exact fractions,
and compares: each process, each of its file rows, the files across
processes, the totals and the distinct pages and swap entries of
basic.json and hostile.json (the files beside this script, not exmtop's
output: test_golden.sh checks that exmtop prints them).

Usage: expect.py [DIR]   (DIR holds basic.json and hostile.json; default
this script's directory). Prints one line per difference, then a count;
exit status 0 when all agree, 1 otherwise.
"""

import json
import os
import sys
from fractions import Fraction

PS = 4096
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"


class Map:
    """One mapping: its name, size in pages, permissions, and pages:
    (kind, key, exclusive, file page): kind "p" (key a frame) or "s" (key
    a swap entry (type, offset)). A page is a file page when the mapping
    is of a file, unless said otherwise (a private copy written)."""

    def __init__(self, name, npages, perms, file_backed):
        self.name, self.npages, self.perms = name, npages, perms
        self.file = file_backed
        self.pages = []

    def present(self, frames, excl=False, file_page=None):
        fp = self.file if file_page is None else file_page
        self.pages += [("p", f, excl, fp) for f in frames]
        return self

    def swapped(self, offsets, swap_type=1):
        self.pages += [("s", (swap_type, o), False, self.file)
                       for o in offsets]
        return self


def libc(pid, text_pages):
    """The C library as ld.so maps it: 8 pages of text (the first
    text_pages resident, frames 0x1000 on, shared by all), 2 pages of
    data (the process's own copies, anonymous and exclusive, frames
    0x2000 + 2 * pid)."""
    return [Map(LIBC, 8, "r-xp", True).present(range(0x1000, 0x1000 +
                                                      text_pages)),
            Map(LIBC, 2, "rw-p", True).present([0x2000 + 2 * pid,
                                                0x2001 + 2 * pid], True,
                                               False)]


def basic():
    procs = {}
    # init: the whole text of libc, a heap of 4 pages, a stack of 1
    procs[1] = libc(1, 8) + [
        Map("[heap]", 4, "rw-p", False).present(range(0x10000, 0x10004),
                                                True),
        Map("[stack]", 1, "rw-p", False).present([0x10010], True)]
    # bash and its forked child: 16 anonymous pages; the child wrote the
    # first 4 (its own copies, exclusive), the other 12 still shared; a
    # stack of 2 pages, one resident, one swapped out (its own entry)
    for i in range(2):
        pid = 200 + i
        first = (range(0x21000, 0x21004) if i else range(0x20000, 0x20004))
        procs[pid] = libc(pid, 6) + [
            Map("[anon]", 16, "rw-p", False)
            .present(first, bool(i)).present(range(0x20004, 0x20010)),
            Map("[stack]", 2, "rw-p", False)
            .present([0x10020 + i], True).swapped([0x500 + i])]
    # postgres: 72 pages of System V shared memory, 64 resident and 8
    # swapped out, the same in all three; a heap of 2 pages each
    for i in range(3):
        pid = 300 + i
        procs[pid] = libc(pid, 4) + [
            Map("/SYSV00000000", 72, "rw-s", True)
            .present(range(0x30000, 0x30040)).swapped(range(0x900, 0x908)),
            Map("[heap]", 2, "rw-p", False)
            .present([0x11000 + 2 * i, 0x11001 + 2 * i], True)]
    # one process mapping the same 4 memfd pages twice, and 3 pages of a
    # file of its own (exclusive, read-only)
    ring = "/memfd:ring (deleted)"
    procs[400] = [
        Map(ring, 4, "rw-s", True).present(range(0x40000, 0x40004)),
        Map(ring, 4, "r--s", True).present(range(0x40000, 0x40004)),
        Map("/tmp/my data.bin", 3, "r--p", True)
        .present(range(0x50000, 0x50003), True)]
    return procs


def hostile():
    """Nine processes 500 + i, each mapping 2 + i pages of one of five
    files, the first 1 + i resident, frames 0x60000 on (shared)."""
    files = 5
    return {500 + i: [Map("file%d" % (i % files), 2 + i, "r-xp", True)
                      .present(range(0x60000, 0x60001 + i))]
            for i in range(9)}


SIZES = ("vm", "rss", "erss", "swap", "eswap", "mapped", "emapped", "sole",
         "writable")


def account(procs):
    """Every size of every process, of its files and across processes."""
    maps_n = {}
    for pid, ms in procs.items():
        for m in ms:
            for kind, key, _, _ in m.pages:
                maps_n[(kind, key)] = maps_n.get((kind, key), 0) + 1

    def zero():
        return dict((k, Fraction(0)) for k in SIZES)

    per, files = {}, {}
    for pid, ms in procs.items():
        tot, rows = zero(), {}
        for m in ms:
            r = rows.setdefault(m.name, zero())
            add = zero()
            add["vm"] = m.npages * PS
            for kind, key, excl, file_page in m.pages:
                share = Fraction(PS, maps_n[(kind, key)])
                if kind == "p":
                    add["rss"] += PS
                    add["erss"] += share
                    # sole: mapped once, the kernel's USS (a page one
                    # process maps twice is not sole)
                    if maps_n[(kind, key)] == 1:
                        add["sole"] += PS
                    # pagemap's approximation: anonymous, exclusive, in a
                    # private writable mapping
                    if excl and not file_page and m.perms[1] == "w" \
                            and m.perms[3] == "p":
                        add["writable"] += PS
                else:
                    add["swap"] += PS
                    add["eswap"] += share
            add["mapped"] = add["rss"] + add["swap"]
            add["emapped"] = add["erss"] + add["eswap"]
            for k in SIZES:
                r[k] += add[k]
                tot[k] += add[k]
        per[pid] = (tot, rows)
        for name, r in rows.items():
            f = files.setdefault(name, [zero(), 0])
            f[1] += 1
            for k in SIZES:
                f[0][k] += r[k]
    distinct_p = sum(1 for kind, _ in maps_n if kind == "p")
    distinct_s = sum(1 for kind, _ in maps_n if kind == "s")
    return per, files, distinct_p, distinct_s


def compare(name, doc, procs, by_name):
    """Differences between doc (a golden JSON) and the model; by_name:
    file rows matched by name (hostile's names are escaped: by order of
    vm there)."""
    bad = []

    def same(what, got, want):
        # the JSON prints effective sizes to 3 decimals
        if got is None or abs(Fraction(str(got)) - want) > Fraction(1, 1000):
            bad.append("%s %s: %s, want %s (= %.3f)" %
                       (name, what, got, want, float(want)))

    per, files, dp, ds = account(procs)
    same("distinct_pages", doc["distinct_pages"], dp)
    same("distinct_swap", doc["distinct_swap"], ds)
    got = {p["pid"]: p for p in doc["processes"]}
    if sorted(got) != sorted(per):
        bad.append("%s: pids %s, want %s" % (name, sorted(got), sorted(per)))
    totals = dict((k, sum(per[p][0][k] for p in per)) for k in SIZES)
    for k in SIZES:
        same("totals %s" % k, doc["totals"][k], totals[k])
    for pid, (tot, rows) in per.items():
        p = got.get(pid)
        if p is None:
            continue
        for k in SIZES:
            same("pid %d %s" % (pid, k), p[k], tot[k])
        if by_name:
            prow = {f["file"]: f for f in p["files"]}
            if sorted(prow) != sorted(rows):
                bad.append("%s pid %d: files %s, want %s" %
                           (name, pid, sorted(prow), sorted(rows)))
                continue
            for fname, r in rows.items():
                for k in SIZES:
                    same("pid %d %s %s" % (pid, fname, k), prow[fname][k],
                         r[k])
    if by_name:
        across = {f["file"]: f for f in doc["files"]}
        for fname, (r, n) in files.items():
            f = across.get(fname)
            if f is None:
                bad.append("%s: no row of %s across processes" %
                           (name, fname))
                continue
            same("across %s nprocs" % fname, f["nprocs"], n)
            for k in SIZES:
                same("across %s %s" % (fname, k), f[k], r[k])
    return bad


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.abspath(__file__))
    bad, n = [], 0
    for name, procs, by_name in (("basic.json", basic(), True),
                                 ("hostile.json", hostile(), False)):
        with open(os.path.join(d, name)) as f:
            doc = json.load(f)
        bad += compare(name, doc, procs, by_name)
        n += 1
    for b in bad:
        print(b)
    print("expect.py: %d golden files, %d differences from the figures "
          "computed here" % (n, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

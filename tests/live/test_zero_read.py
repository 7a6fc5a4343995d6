#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): zero pages of a reservation smaps calls empty, in
every pagemap mode, `read` too (issue 24, item 2: read mode must not
depend on smaps to find them).

tests/live/kinds.c `zsparse 1 TiB 1000` reads (never writes) 1,000 pages
scattered over a 1 TiB private anonymous reservation: 1,000 zero pages, and
smaps says the mapping holds nothing (Rss 0, checked). The read mode used to
skip such a mapping (over 256 MiB and empty in smaps), so its zero pages were
missing from `zero`. Now, in scan, auto and read alike, the process's zero is
the kernel's: the 1,000 pages (each checked in pagemap and /proc/kpageflags:
KPF_ZERO_PAGE) plus the zero pages of its other mappings (pagemap and
kpageflags), and the resident of its rows no other process maps (anonymous,
heap, stack) equals the kernel's Rss of those mappings, all read once with the
process stopped (SIGSTOP); read mode's header says it asked PAGEMAP_SCAN
(PAGEMAP_SCAN+reads). The fixture also reads 16 pages of /dev/zero mapped
private: anonymous memory though it names an inode, so 16 zero pages more,
which read mode used to skip too (smaps calls that mapping empty as well),
and 16 of a private anonymous mapping read, then made PROT_NONE (mprotect
keeps its zero pages; read mode skipped mappings not readable now).
On a kernel whose read faults get pages of their own (booted with
pvm_no_zero_page, which still maps the zero page for UFFDIO_ZEROPAGE and
KSM), the fixture maps those pages with UFFDIO_ZEROPAGE instead (no
/dev/zero mapping there: userfaultfd refuses it), and exmtop must learn the
zero page's frame that way too: it learnt none from its own read fault, and
read and auto modes counted those zero pages as resident.
On a kernel without PAGEMAP_SCAN (before 6.7: read mode
only) a reservation over 4 GiB that smaps calls empty is not read (2 GiB of
pagemap for this one; see README): there the test says so and checks that its
zero pages are left out, every other one counted.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import test_kinds  # noqa: E402  (the kinds fixture, pagemap, kpageflags)

N = 1000
SIZE = test_kinds.TiB


def region_zero_pages(pid, start, ps):
    """How many of the pages kinds read are the zero page, looked up one
    by one (the reservation is too big to read whole)."""
    n = 0
    for off in test_kinds.written_pages(SIZE, N, ps):
        va = start + off * ps
        w = test_kinds.page_words(pid, va, va + ps, ps)[0]
        if (w & exmlive.PM_PRESENT and
                test_kinds.kpageflags(w & exmlive.PM_PFN_MASK) &
                test_kinds.KPF_ZERO_PAGE):
            n += 1
    return n


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap, kpageflags)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live zero read")
    ps = os.sysconf("SC_PAGESIZE")
    k = test_kinds.Kinds("zsparse", SIZE, N)
    try:
        pid = k.pids[0]
        start, _ = k.regions["zsparse"]
        c.eq(exmlive.read_smaps_vma(pid, start).get("Rss"), 0,
             "smaps calls the reservation empty")
        c.eq(region_zero_pages(pid, start, ps), N,
             "the %d pages read are the zero page (kpageflags)" % N)
        if "devzero" not in k.regions:
            print("note: read faults get pages of their own here (booted "
                  "with pvm_no_zero_page): no /dev/zero mapping of zero "
                  "pages (kinds.c)")
        for name in ("devzero", "protnone"):
            if name not in k.regions:
                continue
            zstart, zend = k.regions[name]
            c.eq(exmlive.read_smaps_vma(pid, zstart).get("Rss"), 0,
                 "smaps calls %s empty" % name)
            c.eq(sum(1 for w in test_kinds.page_words(pid, zstart, zend, ps)
                     if w & exmlive.PM_PRESENT and
                     test_kinds.kpageflags(w & exmlive.PM_PFN_MASK) &
                     test_kinds.KPF_ZERO_PAGE), 16,
                 "the 16 pages of %s read are the zero page" % name)
        scan = exmlive.pagemap_scan_supported()
        if not scan:
            print("note: no PAGEMAP_SCAN (Linux before 6.7): read mode "
                  "leaves the reservation's zero pages out (README)")
        for mode in exmlive.pagemap_modes():
            with exmlive.frozen([pid]):
                # zero_bytes: every mapping but the reservation
                want = (N * ps if scan else 0) + \
                    test_kinds.zero_bytes(pid, ps)
                doc, rows = test_kinds.scan(["--pagemap-mode", mode])
                own = test_kinds.own_rows(pid)
            row = rows.get(pid)
            bad = test_kinds.compare("[%s]" % mode, row, own,
                                     erss_too=False)
            # read mode asked PAGEMAP_SCAN about the reservation
            det = doc.get("source_detail", "")
            # (then how many big mappings of other processes it
            # counted: README's pagemap mode)
            if scan and mode == "read" and \
                    det.split(",")[0] != "PAGEMAP_SCAN+reads":
                bad.append("[read] source_detail %r" % det)
            if row and row.get("zero") != want:
                bad.append("[%s] zero %r, kernel %d (%d pages in the "
                           "reservation)" % (mode, row.get("zero"),
                                             want, N))
            test_kinds.once(c, "[%s] zero, and Rss of its own rows" % mode,
                            bad)
    finally:
        k.stop()
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

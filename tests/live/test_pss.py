#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): with every process scanned, each process's effective
resident (erss, from pagemap PFNs) matches the kernel's Pss.

Runs `exmtop -b --format json --bytes --include-self` over all processes
while the sharer (known sharing) runs, for both pagemap paths, and compares
every process's erss with the kernel's Pss from smaps_rollup.

Tolerance: 0 <= erss - pss <= 1024 + 4096 bytes (TOL_LOW, TOL_HIGH), because
  - smaps_rollup prints Pss in whole kB, truncated: -1023..0 bytes of Pss;
    the kernel also truncates its per-page fixed point share (PSS_SHIFT=12),
    well under a byte per page. Both only make Pss smaller.
  - pagemap reports the shared zero page as present with its PFN, which we
    count and the kernel's Pss does not (vm_normal_page() skips it): at most
    one page (4096 bytes), divided among every process mapping it. Again
    only erss is larger.
  - large folios: a kernel built with CONFIG_NO_PAGE_MAPCOUNT (6.15+) uses
    the folio's average mapcount for Pss, which can move Pss either way;
    Debian's and this machine's kernels count per page (PAGE_MAPCOUNT=y),
    so no allowance is made and the test would show it.
  - processes changing between exmtop's scan and our read: we read
    smaps_rollup just before and just after exmtop runs and compare only
    processes whose figures did not change (and never exmtop itself).
  - processes we cannot read (e.g. a container's protected init) add
    mappings the kernel counts and we do not: erss larger. Counted and
    reported; such sharing shows up as a failure here if it is large.
At least MIN_COMPARED processes must be compared, among them all four
sharer processes, or the test fails.
"""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

TOL_LOW = 0.0
TOL_HIGH = 1024.0 + 4096.0
MIN_COMPARED = 8


def rollups(pids):
    return {p: exmlive.read_rollup(p) for p in pids}


def compare(c, mode, sh):
    pids = exmlive.all_pids()
    before = rollups(pids)
    doc = exmlive.exmtop_json(["--bytes", "--include-self",
                               "--pagemap-mode", mode])
    after = rollups(pids)
    c.eq(doc.get("source"), "pagemap", "[%s] source" % mode)
    procs = doc.get("processes") or []
    listed = {p.get("pid") for p in procs}
    for pid in sh.pids:
        c.check(pid in listed, "[%s] sharer pid %d listed" % (mode, pid))
    compared = unstable = 0
    worst = (0.0, None)
    for p in procs:
        pid = p.get("pid")
        b, a = before.get(pid), after.get(pid)
        if p.get("comm") == "exmtop" or not b or b != a:
            unstable += 1
            continue
        pss, erss = p.get("pss"), p.get("erss")
        if not c.check(pss is not None and erss is not None,
                       "[%s] pid %d has pss and erss" % (mode, pid)):
            continue
        # exmtop maps libc too: while it runs, others' Pss can only drop.
        c.check(pss <= b["pss"], "[%s] pid %d pss %d <= smaps_rollup %d "
                "before the run" % (mode, pid, pss, b["pss"]))
        d = erss - pss
        if abs(d) > abs(worst[0]):
            worst = (d, "%d %s" % (pid, p.get("comm")))
        c.check(TOL_LOW <= d <= TOL_HIGH,
                "[%s] pid %d (%s) erss %.3f - pss %d = %.3f outside "
                "[%g, %g]" % (mode, pid, p.get("comm"), erss, pss, d,
                              TOL_LOW, TOL_HIGH))
        if pid in sh.pids:
            # No zero page in the sharer: only the kB truncation remains.
            c.check(0 <= d < 1024, "[%s] sharer pid %d erss - pss = %.3f "
                    "within [0, 1024)" % (mode, pid, d))
        compared += 1
    print("[%s] %d processes compared, %d skipped as changing; max "
          "|erss - pss| = %.3f bytes (pid %s)" %
          (mode, compared, unstable, worst[0], worst[1]), flush=True)
    c.check(compared >= MIN_COMPARED, "[%s] at least %d processes compared "
            "(got %d)" % (mode, MIN_COMPARED, compared))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live pss")
    tmp = tempfile.mkdtemp(prefix="exm-pss-", dir="/var/tmp")
    try:
        with exmlive.Sharer(tmp) as sh:
            for mode in ("scan", "read"):
                compare(c, mode, sh)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    try:
        main()
    except Exception:  # noqa: BLE001 - report, then hard error
        import traceback
        traceback.print_exc()
        sys.exit(exmlive.HARD_ERROR)

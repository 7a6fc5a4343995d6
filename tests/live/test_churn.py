#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): processes that come and go during a scan.

While a few shell loops start and end short-lived processes as fast as they
can, runs full `exmtop -b --format json --bytes` snapshots (both pagemap
paths) and checks that each one:
  - exits 0 with valid JSON (vanished processes are skipped, not errors);
  - is internally consistent however much changed during the scan: each
    process's file rows add up to the process, the totals to the processes,
    and conservation holds exactly (sum of erss == distinct_pages x page
    size, sum of eswap == distinct_swap x page size);
  - never shows a size as 0 where it could not measure it: a listed process
    with state "ok" has every page-level size measured (not null);
  - and that the path under test was taken: processes did vanish during
    the scans (skipped_gone > 0 over the run). The loops start and end
    thousands of processes a second, each listed scan sees dozens of them
    come and go (measured here: 16 to 37 gone over the four scans); a run
    where none vanished tested nothing and fails.
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

ROUNDS = 2
LOOPS = 3
INT_KEYS = ("vm", "rss", "swap", "sole", "writable")


def check(c, doc, tag):
    ps = doc.get("page_size")
    procs = doc.get("processes") or []
    c.check(len(procs) > 0, tag + " processes listed")
    bad_rows = bad_null = 0
    for p in procs:
        if p.get("state", "ok") == "ok":
            if any(p.get(k) is None for k in exmlive.SIZE_KEYS):
                bad_null += 1
                print("  %s pid %s state ok but null sizes: %r" %
                      (tag, p.get("pid"),
                       [k for k in exmlive.SIZE_KEYS if p.get(k) is None]))
        rows = p.get("files") or []
        if p.get("erss") is None:
            continue
        for k in INT_KEYS:
            if sum(f.get(k) or 0 for f in rows) != p.get(k):
                bad_rows += 1
                print("  %s pid %s: file rows %s %d != %r" %
                      (tag, p.get("pid"), k,
                       sum(f.get(k) or 0 for f in rows), p.get(k)))
        if abs(sum(f.get("erss") or 0 for f in rows) - p["erss"]) > 1:
            bad_rows += 1
    c.eq(bad_null, 0, tag + " processes in state ok have every size")
    c.eq(bad_rows, 0, tag + " file rows add up to their process")
    # Totals cover the measured processes; a process we may not read (a
    # container's init) is listed with what /proc/PID/stat tells (VM, RSS)
    # but is not in the totals.
    tot = doc.get("totals") or {}
    ok = [p for p in procs if p.get("state", "ok") == "ok"]
    for k in INT_KEYS:
        c.eq(tot.get(k), sum(p.get(k) or 0 for p in ok),
             "%s totals %s == sum of measured processes" % (tag, k))
    c.near(sum(p.get("erss") or 0 for p in procs),
           doc.get("distinct_pages", -1) * ps, 1.0,
           tag + " conservation of erss")
    c.near(sum(p.get("eswap") or 0 for p in procs),
           doc.get("distinct_swap", -1) * ps, 1.0,
           tag + " conservation of eswap")
    c.check(isinstance(doc.get("skipped_gone"), int),
            tag + " skipped_gone counted: %r" % doc.get("skipped_gone"))
    return doc.get("skipped_gone") or 0


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live churn")
    loops = [subprocess.Popen(
        ["sh", "-c", "while :; do /bin/true; cat /proc/self/stat "
         ">/dev/null; done"], start_new_session=True)
        for _ in range(LOOPS)]
    gone = 0
    try:
        for r in range(ROUNDS):
            for mode in exmlive.pagemap_modes():
                tag = "[%s %d]" % (mode, r)
                try:
                    doc = exmlive.exmtop_json(["--bytes", "--pagemap-mode",
                                               mode])
                except RuntimeError as e:
                    c.check(False, "%s %s" % (tag, e))
                    continue
                gone += check(c, doc, tag)
    finally:
        for p in loops:
            p.kill()
            p.wait()
    print("%d processes vanished during %d scans" % (gone, 2 * ROUNDS))
    c.check(gone > 0, "processes vanished during the scans (the path "
            "under test was taken)")
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

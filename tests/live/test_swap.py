#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): known sharing with swapped pages, checked exactly.

The same checks as test_sharing.py, with two more regions in the sharer
(`sharer -s`, see sharer.c): swap entries shared by four processes, one of
which has read two pages back in (present for it, swapped for the others),
and swap entries private to each process. Checks swap, eswap, mapped,
emapped per region, per process and in total, and that the sum of eswap
equals the distinct swap entries times the page size. Then the same
swapped pages through the smaps source: swap equals the kernel's Swap and
eswap its SwapPss, summed over the mappings, exactly.

Needs active swap: when none is on, it makes a 64 MiB swap file in
/var/tmp through tests/live/sysstate.py, which swaps it off and removes it
afterwards, also when the test is killed. Where swapon
is not allowed (a container), the test is SKIPPED (exit 77), not passed.
"""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402
import test_sharing  # noqa: E402


def run_with_swap(name, title, body):
    """A test's main() that needs root and swap: body(c) with a Checker
    titled title, then its verdict. When no swap is on, a 64 MiB swap file
    goes through sysstate (journal name): swapped off and removed on
    leaving, on SIGTERM/SIGINT/SIGHUP, or by the next run after a
    SIGKILL; where swapon is refused, SKIP."""
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap, swapon)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker(title)
    with sysstate.Changes(name) as ch:
        if not sysstate.swap_active():
            try:
                ch.swapfile(64 << 20)
            except RuntimeError as e:
                print("SKIP: %s" % e)
                sys.exit(exmlive.SKIP)
        body(c)
    c.done()


def main():
    def body(c):
        test_sharing.run(c, swap=True)
        smaps_source(c)
    run_with_swap("test_swap", "live swap", body)


def smaps_sums(pid):
    """Sums of Swap and SwapPss (bytes) over pid's smaps mappings."""
    out = {"Swap:": 0, "SwapPss:": 0}
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if w and w[0] in out:
                out[w[0]] += int(w[1]) * 1024
    return out["Swap:"], out["SwapPss:"]


def smaps_source(c):
    """Swapped pages through the smaps source: swap is the kernel's Swap,
    effective swap its SwapPss (the swcow entries are shared by four, so
    the two differ), summed over the mappings, exactly (both whole kB)."""
    tmp = tempfile.mkdtemp(prefix="exm-swap-smaps-", dir="/var/tmp")
    try:
        with exmlive.Sharer(tmp, swap=True) as sh:
            doc = exmlive.exmtop_json(["--bytes", "--source", "smaps", "-p",
                                       ",".join(map(str, sh.pids))])
            c.eq(doc.get("source"), "smaps", "[smaps] source")
            procs = {p.get("pid"): p for p in doc.get("processes") or []}
            for i, pid in enumerate(sh.pids):
                p = procs.get(pid)
                what = "[smaps] sharer %d (pid %d)" % (i, pid)
                if not c.check(p is not None, what + " listed"):
                    continue
                swap, swap_pss = smaps_sums(pid)
                c.check(swap_pss < swap, "%s some swap shared: SwapPss %d "
                        "< Swap %d" % (what, swap_pss, swap))
                c.eq(p.get("swap"), swap, what + " swap == smaps Swap")
                c.eq(p.get("eswap"), swap_pss, what + " eswap == SwapPss")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    exmlive.run_main(main)

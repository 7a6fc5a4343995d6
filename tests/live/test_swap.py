#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): known sharing with swapped pages, checked exactly.

The same checks as test_sharing.py, with two more regions in the sharer
(`sharer -s`, see sharer.c): swap entries shared by four processes, one of
which has read two pages back in (present for it, swapped for the others),
and swap entries private to each process. Checks swap, eswap, mapped,
emapped per region, per process and in total, and that the sum of eswap
equals the distinct swap entries times the page size.

Needs active swap: when none is on, it makes a 64 MiB swap file in
/var/tmp, enables it for the test and removes it afterwards. Where swapon
is not allowed (a container), the test is SKIPPED (exit 77), not passed.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402
import test_sharing  # noqa: E402

def swap_active():
    with open("/proc/swaps") as f:
        return len(f.read().strip().splitlines()) > 1


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap, swapon)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live swap")
    # the swap file goes through sysstate: swapped off and removed on
    # leaving, on SIGTERM/SIGINT/SIGHUP, or by the next run after a SIGKILL
    with sysstate.Changes("test_swap") as ch:
        if not swap_active():
            try:
                ch.swapfile(64 << 20)
            except RuntimeError as e:
                print("SKIP: %s" % e)
                sys.exit(exmlive.SKIP)
        test_sharing.run(c, swap=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

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
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import test_sharing  # noqa: E402

SWAPFILE = None


def swap_active():
    with open("/proc/swaps") as f:
        return len(f.read().strip().splitlines()) > 1


def swap_on():
    """Enable a temporary swap file; True if we did (and must undo)."""
    global SWAPFILE
    if swap_active():
        return False
    fd, SWAPFILE = tempfile.mkstemp(prefix="exm-live-swap-", dir="/var/tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(b"\0" * (64 << 20))  # no holes: swapon refuses them
    subprocess.run(["mkswap", SWAPFILE], check=True,
                   stdout=subprocess.DEVNULL)
    r = subprocess.run(["swapon", SWAPFILE], stderr=subprocess.PIPE)
    if r.returncode != 0:
        os.unlink(SWAPFILE)
        print("SKIP: swapon refused: %s" % r.stderr.decode().strip())
        sys.exit(exmlive.SKIP)
    return True


def swap_off():
    subprocess.run(["swapoff", SWAPFILE])
    os.unlink(SWAPFILE)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap, swapon)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live swap")
    ours = swap_on()
    try:
        test_sharing.run(c, swap=True)
    finally:
        if ours:
            swap_off()
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

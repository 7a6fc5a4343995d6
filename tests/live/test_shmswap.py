#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): shared memory in swap is no process's swap, in every
source.

A process maps a memfd shared and private anonymous memory, writes both,
sends half of each to swap (MADV_PAGEOUT), maps the memfd twice more
MAP_PRIVATE (one reads the resident half; the other writes 8 of those
pages, private copies, and sends 4 copies to swap) and forks: the two
processes share the private swap entries. The memfd's pages in swap are
the file's, no page table's: the kernel's VmSwap and SwapPss leave them
out, but smaps' Swap of every mapping of it counts them where the mapping
has no page (shmem_swap_usage, smaps_pte_hole). Checks, for both
processes, in the smaps source and every pagemap mode: swap is VmSwap,
effective swap the sum of SwapPss (the private entries are shared by two),
the memfd row's swap is the 4 copies in swap alone though its mappings'
smaps Swap is 100 pages, and the rows add up to the process. (The smaps
source counted all 100, until it took a private file mapping's swap from
what VmSwap leaves.)

Needs active swap: when none is on, it makes a 64 MiB swap file through
tests/live/sysstate.py (undone after, also when killed); where swapon or
MADV_PAGEOUT does not work, the test is SKIPPED (exit 77), not passed.
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
from test_swap import run_with_swap, smaps_sums  # noqa: E402

PAGES = 64  # of each kind; half of them go to swap
COPIES = 8  # private copies of memfd pages
COPIES_OUT = 4  # of them sent to swap
MEMFD = "exm-shmswap"

# The fixture: memfd and anonymous pages written, half paged out, then a
# fork; says both pids and waits.
FIXTURE = r"""
import mmap, os, sys, time
ps, n = mmap.PAGESIZE, %d
fd = os.memfd_create("%s")
os.ftruncate(fd, n * ps)
shm = mmap.mmap(fd, n * ps)
anon = mmap.mmap(-1, n * ps, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(n):
    shm[i * ps] = anon[i * ps] = 1 + i %% 7
shm.madvise(21, 0, n // 2 * ps)   # MADV_PAGEOUT
anon.madvise(21, 0, n // 2 * ps)
# private mappings of the memfd, made after: one reads the resident half,
# one writes %d of those pages (copies) and sends %d copies to swap
ro = mmap.mmap(fd, n * ps, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
for i in range(n // 2, n):
    ro[i * ps]
cow = mmap.mmap(fd, n * ps, flags=mmap.MAP_PRIVATE)
for i in range(n // 2, n // 2 + %d):
    cow[i * ps] = 9
cow.madvise(21, n // 2 * ps, %d * ps)
if os.fork() == 0:
    time.sleep(3600)
    os._exit(0)
print("pids", os.getpid(), flush=True)
time.sleep(3600)
""" % (PAGES, MEMFD, COPIES, COPIES_OUT, COPIES, COPIES_OUT)


def kernel_swap(pid):
    """VmSwap, the sum of SwapPss, and the smaps Swap of the memfd's
    mappings (shared, private read-only, private written), in bytes."""
    with open("/proc/%d/status" % pid) as f:
        vmswap = next(int(ln.split()[1]) * 1024 for ln in f
                      if ln.startswith("VmSwap:"))
    return (vmswap, smaps_sums(pid)[1],
            [exmlive.read_smaps_vma(pid, v.start).get("Swap", 0)
             for v in exmlive.read_maps(pid) if MEMFD in v.name])


def check_doc(c, doc, pids, kernel, label):
    ps = os.sysconf("SC_PAGE_SIZE")
    procs = {p.get("pid"): p for p in doc.get("processes") or []}
    for pid in pids:
        p = procs.get(pid)
        what = "[%s] pid %d" % (label, pid)
        if not c.check(p is not None, what + " listed"):
            continue
        vmswap, swap_pss, _ = kernel[pid]
        c.eq(p.get("swap"), vmswap, what + " swap == VmSwap")
        c.near(p.get("eswap"), swap_pss, exmlive.EFF_TOL,
               what + " eswap == sum of SwapPss")
        rows = p.get("files") or []
        shm = [f for f in rows if MEMFD in (f.get("file") or "")]
        if c.check(len(shm) == 1, what + " one memfd row"):
            c.eq(shm[0].get("swap"), COPIES_OUT * ps,
                 what + " memfd row swap: the private copies'")
        c.eq(sum(f.get("swap") or 0 for f in rows), p.get("swap"),
             what + " rows' swap add up")


def run(c):
    fx = subprocess.Popen([sys.executable, "-c", FIXTURE],
                          stdout=subprocess.PIPE, start_new_session=True)
    try:
        line = fx.stdout.readline().decode().split()
        if line[:1] != ["pids"]:
            raise RuntimeError("fixture said %r" % line)
        parent = int(line[1])
        with open("/proc/%d/task/%d/children" % (parent, parent)) as f:
            pids = [parent, int(f.read().split()[0])]
        with exmlive.frozen(pids):
            kernel = {pid: kernel_swap(pid) for pid in pids}
            ps = os.sysconf("SC_PAGE_SIZE")
            half = PAGES // 2 * ps
            # shared: the file's half; read-only private: the same (the
            # pages it did not read); written: those and its copies'
            want = [half, half, half + COPIES_OUT * ps]
            if any(k[0] != half + COPIES_OUT * ps or sorted(k[2]) != want
                   for k in kernel.values()):
                print("SKIP: MADV_PAGEOUT did not swap the pages out: "
                      "%r" % kernel)
                sys.exit(exmlive.SKIP)
            arg = ",".join(map(str, pids))
            check_doc(c, exmlive.exmtop_json(
                ["--source", "smaps", "--scan-pids", arg]), pids, kernel,
                "smaps")
            for mode in exmlive.pagemap_modes() + ["read-all"]:
                check_doc(c, exmlive.exmtop_json(
                    ["--source", "pagemap", "--pagemap-mode", mode,
                     "--scan-pids", arg]), pids, kernel, mode)
    finally:
        os.killpg(fx.pid, 9)
        fx.wait()


def main():
    run_with_swap("test_shmswap", "live shmswap", run)


if __name__ == "__main__":
    exmlive.run_main(main)

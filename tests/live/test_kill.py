#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): what --freed says a set frees is what the kernel
gives back when the set is killed.

tests/live/killset.c (static: nothing outside shares its anonymous pages)
starts seven processes in a memory cgroup made for the test (sysstate.py;
v2 where a cgroup2 mount has the memory controller, else v1): a server P
with 32 MiB of copy-on-write anon, four workers W1-W4 that each write
their own 4 MiB of it, M, the only process mapping a 16-page memfd, and T,
a process of a few pages. For the sets {W1}, {W2, W3}, {T}, {M}, {P, W4}
(one worker, two, a tiny process, the memfd's only mapper, the server with
the worker left), killed in that order, exmtop gives FREED and SHM.EXCL
of the set just before the kill (pagemap source, in each --pagemap-mode
this kernel has: their paths differ, e.g. M's 512 MiB reservation goes
through PAGEMAP_SCAN in auto mode and is read whole in read mode); the
cgroup's memory.stat (v1: rss, shmem, the cgroup's own; v2: anon, shmem)
is read before and after, and

    anon drop  == FREED     (no member has swapped pages: checked)
    shmem drop == SHM.EXCL

to the page. FREED is exclusive anon and private copies of file pages:
both are anonymous folios, counted in NR_ANON_MAPPED (rss/anon) until
their last mapping goes (rmap removal, not the free: a reference a per-CPU
LRU batch still holds does not delay it); a shmem page leaves NR_SHMEM
when it leaves the page cache, as the memfd's last reference goes. Page
tables, kernel stacks and slab are in neither statistic, so no slack is
needed for them.

Reaping: P is the test's child (waitpid); the others are P's children, so
the test waits on a pidfd of each (opened before the kill), which becomes
readable in exit_notify(), after exit_mm() unmapped the pages and the
exit task work dropped the memfd's last reference.

Statistics: on Linux 6.x memory.stat is not summed on read. The per-CPU
deltas are flushed (rstat) only when the cgroup's pending updates pass a
threshold (MEMCG_CHARGE_BATCH per CPU) or by the 2 s periodic flush; a
kill of a few pages can stay invisible for 2 s (seen here: without the
ballast below, T's kill shows no drop at all, and its pages come off with
M's). So before each read the test runs a ballast (killset ballast:
4 MiB written, then exit; reaped before the read) in the cgroup itself:
its thousands of updates pass the threshold, and the read flushes every
pending delta. Its anon is off rss/anon again once it has exited (the
rmap removal at exit, as above). Not in a child cgroup: a child's updates
stop counting toward the parent's threshold once the child's own is
passed (memcg_rstat_updated), and the parent's read then did not always
flush (T's drop came only after up to 15 reads, in 2 runs of 20). Should
the drop still differ, the read is repeated for up to SETTLE seconds (the
periodic flush falls in that time too): another process may hold the mm
of a killed one for a moment (a read of /proc/PID/pagemap: exit_mmap runs
when it lets go). A wrong FREED would have to equal the drop at the moment
of a read part way through such a late exit to pass.

Swap: last, `killset swapped` writes 16 MiB in a child cgroup whose
limit (8 MiB) pushes the rest to a swap file the test makes (sysstate;
not checked, with a note, where swap is on already, as its slots would
not be the test's alone, or where swapon is refused). Its kill must give
back FREED as the subtree's anon drop plus the drop of the swap file's
slots in use (/proc/swaps: the swap area's own count, exact), and that
drop must be its VmSwap. Not the cgroup's swap statistic: cgroup v1
charges a slot to swap only once its page has left the swap cache
(mem_cgroup_swapout), so a slot whose page is still cached after writeback
is in neither rss nor swap (seen: 145 pages of 2,260). A page that
reclaim put in the swap cache but could not unmap (seen: 4 or 5 pages
of 4,096, in 10 runs of 25) is mapped, so resident, and holds a slot
too: its kill takes it off anon and frees its slot, while FREED counts
it once, as the page it is, and VmSwap not at all. So the test counts
such pages (present in pagemap, KPF_SWAPCACHE in kpageflags) just
before the kill, and the swap file's drop must be VmSwap plus them, the
sum of the drops FREED plus them.

/proc/meminfo's AnonPages is not checked: the machine's other processes
(CI runs compilers and VMs beside) move it by more than a set frees.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

MIB = 1 << 20
SETTLE = 3.0  # seconds
MEMFD_PAGES = 16
OWN_PAGES = 16  # killset.c's
TINY_PAGES = 4  # killset.c's
SWAP_LIMIT = 8 * MIB  # of killset swapped's 16 MiB
KPF_SWAPCACHE = 1 << 13


def stat_keys(limit):
    """memory.stat's (anon, shmem) keys: v1's own-cgroup ones, v2's."""
    return ("rss", "shmem") if limit == "memory.limit_in_bytes" else \
        ("anon", "shmem")


class Cgroup:
    def __init__(self, ch, prog):
        self.path, limit = ch.memory_cgroup("exm-test-kill-%d" % os.getpid())
        if not self.path:
            return
        self.keys = stat_keys(limit)
        self.limit = limit
        self.prog = prog

    def join(self, cg):
        """preexec_fn: the child moves itself into cg before exec."""
        def f():
            with open(os.path.join(cg, "cgroup.procs"), "w") as fd:
                fd.write(str(os.getpid()))
        return f

    def flushed(self):
        """memory.stat of the cgroup, read after a flush (see the top)."""
        subprocess.run([self.prog, "ballast"], check=True,
                       preexec_fn=self.join(self.path))
        out = {}
        with open(os.path.join(self.path, "memory.stat")) as f:
            for line in f:
                k, v = line.split()
                out[k] = int(v)
        return out

    def stat(self):
        """(anon, shmem) bytes, the cgroup's own (v1) or its subtree's."""
        out = self.flushed()
        return out[self.keys[0]], out[self.keys[1]]

    def total_anon(self):
        """Anon bytes of the subtree (v1: total_rss; v2: anon)."""
        return self.flushed()["total_" + self.keys[0]
                              if self.keys[0] == "rss" else "anon"]


def vmswap(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmSwap:"):
                return int(line.split()[1]) * 1024
    return 0


def freed(c, pids, mode, what):
    """--freed of pids in one pagemap mode: (FREED, SHM.EXCL), or None."""
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "json", "--bytes", "--source", "pagemap",
         "--pagemap-mode", mode, "--freed", ",".join(map(str, pids))])
    if not c.check(rc == 0, "%s: exit %d: %s" % (what, rc, err.strip())):
        return None
    rows = json.loads(out).get("freed") or []
    if not c.check(len(rows) == 1, "%s: one row, got %r" % (what, rows)):
        return None
    return rows[0].get("freed"), rows[0].get("shmem_excl")


def settle(read, ok):
    """read() again, every 0.05 s for up to SETTLE seconds, until ok(its
    result) (see the top: a late exit, the periodic flush): (the last
    result, how many reads)."""
    end, n = time.monotonic() + SETTLE, 0
    while True:
        n += 1
        got = read()
        if ok(got) or time.monotonic() > end:
            return got, n
        time.sleep(0.05)


def kill_and_reap(proc, pidfds, pids):
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    for pid in pids:
        if pid == proc.pid:
            proc.wait()
            continue
        p = select.poll()
        p.register(pidfds[pid], select.POLLIN)
        if not p.poll(10000):
            raise RuntimeError("process %d did not end" % pid)


def one_set(c, cg, proc, pidfds, name, pids, want_shmem):
    what = "set %s %s" % (name, pids)
    for pid in pids:
        c.eq(vmswap(pid), 0, "%s: process %d has no swapped pages" %
             (what, pid))
    modes = exmlive.pagemap_modes()
    rows = {m: freed(c, pids, m, "%s [%s]" % (what, m)) for m in modes}
    if None in rows.values():
        return None
    want = rows[modes[0]]
    before = cg.stat()
    kill_and_reap(proc, pidfds, pids)

    def dropped():
        after = cg.stat()
        return (before[0] - after[0], before[1] - after[1])
    drop, n = settle(dropped, lambda d: d == want)
    print("%s: FREED %r SHM.EXCL %r; the kernel gave back anon %d, "
          "shmem %d (read %d)" % (what, want[0], want[1], drop[0], drop[1],
                                  n))
    for m in modes:
        c.eq(drop[0], rows[m][0], "%s [%s]: the cgroup's anon drop is "
             "FREED" % (what, m))
        c.eq(drop[1], rows[m][1], "%s [%s]: the cgroup's shmem drop is "
             "SHM.EXCL" % (what, m))
    if want_shmem is not None:
        c.eq(want[1], want_shmem, "%s: SHM.EXCL" % what)
    return want[0]


def mapped_swapcache(pid, ps):
    """Bytes of pid's pages that are mapped and in the swap cache (each
    holds a swap slot too)."""
    ora = exmlive.Oracle([pid], ps)
    pfns = [k[1] for k in ora.maps if k[0] == "pfn"]
    flags = exmlive.kpage("kpageflags", pfns)
    return ps * sum(1 for f in flags.values() if f & KPF_SWAPCACHE)


def swap_used(path):
    """Bytes in use of swap area path (/proc/swaps: the kernel's count
    of its slots in use)."""
    with open("/proc/swaps") as f:
        for line in f.read().splitlines()[1:]:
            w = line.split()
            if w[0] == path:
                return int(w[3]) * 1024
    raise RuntimeError("swap file %s is gone" % path)


def swapped_set(c, ch, cg, prog):
    """A process of 16 MiB of anon, half pushed to swap by the limit of
    a cgroup of its own, on a swap file of the test's own: FREED (its
    pages and its swap entries, each its alone) is what its kill takes off
    the subtree's anon and the swap file's slots in use."""
    if sysstate.swap_active():
        print("note: swap is on already (slots others may take): swap "
              "not checked")
        return
    try:
        path = ch.swapfile(64 * MIB)
    except RuntimeError as e:
        print("note: %s: swap not checked" % e)
        return
    sub = ch.cgroup(os.path.join(cg.path, "swapped"))
    proc = subprocess.Popen([prog, "swapped"], stdout=subprocess.PIPE,
                            preexec_fn=cg.join(sub))
    try:
        if proc.stdout.readline().strip() != b"ready":
            raise RuntimeError("killset swapped did not start")
        with open(os.path.join(sub, cg.limit), "w") as f:
            f.write(str(SWAP_LIMIT))
        swapped = vmswap(proc.pid)
        c.check(swapped >= 4 * MIB, "the limit pushed 4 MiB or more to "
                "swap: %d" % swapped)
        modes = exmlive.pagemap_modes()
        rows = {m: freed(c, [proc.pid], m, "swapped [%s]" % m)
                for m in modes}
        want = rows[modes[0]][0] if rows[modes[0]] else None
        before = (cg.total_anon(), swap_used(path))
        swapped = vmswap(proc.pid)
        cached = mapped_swapcache(proc.pid, os.sysconf("SC_PAGESIZE"))
        proc.kill()
        proc.wait()

        def dropped():
            return (before[0] - cg.total_anon(),
                    before[1] - swap_used(path))
        drop, n = settle(dropped, lambda d: want is not None and
                         sum(d) == want + cached and
                         d[1] == swapped + cached)
        print("swapped: FREED %r (VmSwap %d, mapped swap cache %d); the "
              "kernel gave back anon %d and swap %d (read %d)" %
              (want, swapped, cached, drop[0], drop[1], n))
        c.eq(drop[1], swapped + cached, "swapped: the swap file's drop is "
             "VmSwap and the mapped swap cache's slots")
        for m in modes:
            c.eq(sum(drop) - cached, rows[m][0] if rows[m] else None,
                 "swapped [%s]: anon and swap given back, less the mapped "
                 "swap cache's slots, is FREED" % m)
    finally:
        proc.kill()
        proc.wait()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (page frame numbers, cgroups)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live kill")
    prog = exmlive.plain_program("killset", ["-static"], "static")
    ps = os.sysconf("SC_PAGESIZE")
    with sysstate.Changes("test_kill") as ch:
        cg = Cgroup(ch, prog)
        if not cg.path:
            print("SKIP: no memory cgroup controller")
            sys.exit(exmlive.SKIP)
        proc = subprocess.Popen([prog], stdout=subprocess.PIPE,
                                preexec_fn=cg.join(cg.path))
        pidfds = {}
        try:
            pids = None
            for raw in proc.stdout:
                w = raw.decode().split()
                if w and w[0] == "pids":
                    pids = [int(x) for x in w[1:]]
                elif w and w[0] == "ready":
                    break
            if not pids or len(pids) != 7:
                raise RuntimeError("killset did not start")
            for pid in pids:
                pidfds[pid] = os.pidfd_open(pid)
            P, M, T, W1, W2, W3, W4 = pids
            f = one_set(c, cg, proc, pidfds, "W1", [W1], 0)
            c.check(f is not None and 4 * MIB <= f < 5 * MIB,
                    "W1 frees its 4 MiB: %r" % f)
            f = one_set(c, cg, proc, pidfds, "W2,W3", [W2, W3], 0)
            c.check(f is not None and 8 * MIB <= f < 10 * MIB,
                    "W2,W3 free their 8 MiB: %r" % f)
            f = one_set(c, cg, proc, pidfds, "T", [T], 0)
            c.check(f is not None and TINY_PAGES * ps <= f < 128 * 1024,
                    "T frees its %d pages: %r" % (TINY_PAGES, f))
            f = one_set(c, cg, proc, pidfds, "M", [M], MEMFD_PAGES * ps)
            c.check(f is not None and OWN_PAGES * ps <= f < 256 * 1024,
                    "M frees its %d pages: %r" % (OWN_PAGES, f))
            f = one_set(c, cg, proc, pidfds, "P,W4", [P, W4], 0)
            c.check(f is not None and 36 * MIB <= f < 38 * MIB,
                    "P,W4 free 32 MiB and W4's 4 MiB: %r" % f)
            swapped_set(c, ch, cg, prog)
        finally:
            try:
                proc.kill()
            except ProcessLookupError:
                pass
            proc.wait()
            for fd in pidfds.values():
                os.close(fd)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): KSM pages, the KSM column and what merging saves.

Three processes each map N anonymous pages with MADV_MERGEABLE, page i
holding the same content in each (and a content no other page has), so
KSM merges them into N pages each mapped three times. KSM's `run` is
switched on for the test through sysstate.py (restored after), with a
fast scan. Once /proc/PID/ksm_merging_pages says all N pages of each
process are merged, exmtop (pagemap source, every process scanned):

  - KSM of each process equals ksm_merging_pages x the page size;
  - KSM.SAV of each is two thirds of it (each page costs a third of its
    bytes merged, all of them unmerged);
  - when the test's processes are the only ones with KSM pages, summed
    over every process, KSM equals the sum of every process's
    ksm_merging_pages and (pages_shared + pages_sharing) pages, and
    KSM.SAV pages_sharing pages (/sys/kernel/mm/ksm), to the byte. A
    running virtual machine's memory is often mergeable too, and its
    merged pages change by hundreds a second: then those sums are not
    compared (the test says so) and only the test's processes are;
  - --system's note gives the same totals as the processes' sum (with
    another KSM user, at least the test's processes' part);
  - the processes' pages stay resident: RES and EFF.RES count them.

A fourth process maps N_SELF pages of one content no other page has, so
KSM merges them into one page it maps N_SELF times (issue 24, item 4):
its KSM is N_SELF pages, KSM.SAV N_SELF - 1 pages, and its sole is the
same from pagemap and from smaps, the kernel's USS (smaps_rollup
Private_*): the merged page, mapped N_SELF times, is in neither (before,
pagemap counted N_SELF pages of sole that smaps did not). The machine's
sums above count its pages too.

Two more processes each write N pages spread over a reservation of
BIG_MIB, the same contents in both, merged likewise. At the end two of
the three and one of the pair exit: the survivors map their KSM pages
alone (check_alone).

A kernel without KSM (no /sys/kernel/mm/ksm) fails the test, saying why.
"""

import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402
import test_kinds  # noqa: E402  (the kernel's USS)

KSM = "/sys/kernel/mm/ksm"
N = 256
N_SELF = 128  # below max_page_sharing (256): one KSM page

WORKLOAD = r"""
import mmap, sys, time
n = int(sys.argv[1])
ps = mmap.PAGESIZE
mode = sys.argv[2] if len(sys.argv) > 2 else ""
# same: every page alike (and like no other process's); big: the pages
# spread over a reservation of BIG_MIB, with contents of their own
size = int(sys.argv[3]) << 20 if mode == "big" else n * ps
step = size // n
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(n):
    tag = b"exmtop-%s-%08d" % (b"kbig" if mode == "big" else b"ksm",
                               -1 if mode == "same" else i)
    m[i * step:i * step + ps] = tag * (ps // len(tag)) + \
        b"." * (ps % len(tag))
m.madvise(mmap.MADV_MERGEABLE)
print("ready", flush=True)
time.sleep(600)
"""
# a reservation over 256 MiB: pagemap's auto, scan and read modes count
# the pages of such a mapping mapped once rather than read them
BIG_MIB = 512
MODES = ("auto", "scan", "read", "read-all")


def ksm_value(name):
    with open(os.path.join(KSM, name)) as f:
        return int(f.read().split()[0])


def merging(pid):
    try:
        with open("/proc/%d/ksm_merging_pages" % pid) as f:
            return int(f.read())
    except (OSError, ValueError):  # gone, or a kernel thread (no mm)
        return -1


def anon_private(pid):
    """The kernel's USS of pid's unnamed anonymous mappings (exmtop's
    [anon]), summed over them from smaps: (Private_*, Shared_*)."""
    priv = shared = 0
    anon = False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if "-" in w[0] and not w[0].endswith(":"):
                anon = len(w) == 5  # no path: unnamed anonymous
            elif anon and w[0] in ("Private_Clean:", "Private_Dirty:"):
                priv += int(w[1]) * 1024
            elif anon and w[0] in ("Shared_Clean:", "Shared_Dirty:"):
                shared += int(w[1]) * 1024
    return priv, shared


def check_self(c, row, pid, ps):
    """The process that maps one KSM page N_SELF times: KSM and KSM.SAV,
    and the sole of its anonymous memory ([anon]: pages of its own, which
    no process starting or exiting shares) alike from pagemap and smaps,
    the kernel's USS of those mappings."""
    c.eq(row.get("ksm"), N_SELF * ps, "self-merged: KSM == %d pages" % N_SELF)
    c.near(row.get("ksm_saved"), (N_SELF - 1) * ps, exmlive.EFF_TOL,
           "self-merged: KSM.SAV == %d pages" % (N_SELF - 1))
    priv, shared = anon_private(pid)
    c.check(shared >= N_SELF * ps, "self-merged: the kernel calls the "
            "merged page shared (%d bytes Shared_*)" % shared)
    got = []
    for args in ([], ["--source", "smaps"]):
        d = exmlive.exmtop_json(["--bytes", "-p", str(pid)] + args)
        files = (d.get("processes") or [{}])[0].get("files") or []
        got += [f.get("sole") for f in files if f.get("file") == "[anon]"]
    c.eq(got, [priv, priv], "self-merged: [anon] sole from pagemap and "
         "smaps == the kernel's Private_* (the merged page not in it)")


def check_alone(c, procs, ps):
    """A KSM page a process maps alone: the other two of the three and one
    of the big pair exit, and the survivors' N pages stay KSM pages, each
    now mapped once (pagemap calls them exclusive). Every pagemap mode
    marks them: KSM is still ksm_merging_pages pages, KSM.SAV nothing
    (one mapping, nothing saved). In the big reservation auto, scan and
    read mode count pages mapped once rather than read them: not there
    (before, both survivors' KSM was 0 in every mode)."""
    for p in (procs[1], procs[2], procs[5]):
        p.kill()
        p.wait()
    for pid in (procs[0].pid, procs[4].pid):
        c.eq(merging(pid), N, "pid %d: its %d pages still merged once "
             "the others exited" % (pid, N))
    for mode in MODES:
        d = exmlive.exmtop_json(["--bytes", "--pagemap-mode", mode])
        rows = {p["pid"]: p for p in d.get("processes", [])}
        for pid, what in ((procs[0].pid, "small"), (procs[4].pid, "big")):
            p = rows.get(pid, {})
            c.eq(p.get("ksm"), N * ps, "%s: the %s mapping's %d KSM pages "
                 "mapped once: KSM == ksm_merging_pages x page size"
                 % (mode, what, N))
            c.near(p.get("ksm_saved"), 0, exmlive.EFF_TOL,
                   "%s: the %s mapping's KSM.SAV: nothing (mapped once)"
                   % (mode, what))
            c.check((p.get("rss") or 0) >= N * ps,
                    "%s: the %s mapping's RES counts them: %r"
                    % (mode, what, p.get("rss")))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (KSM's run, PFNs)")
        sys.exit(exmlive.SKIP)
    if not os.path.isdir(KSM):
        print("FAIL: this kernel has no KSM (%s)" % KSM)
        sys.exit(1)
    c = exmlive.Checker("live KSM")
    ps = os.sysconf("SC_PAGE_SIZE")
    procs = []
    with sysstate.Changes("test_ksm") as ch:
        try:
            for args in ([str(N)],) * 3 + ([str(N_SELF), "same"],) + \
                    ([str(N), "big", str(BIG_MIB)],) * 2:
                p = subprocess.Popen([sys.executable, "-c", WORKLOAD] + args,
                                     stdout=subprocess.PIPE, text=True)
                procs.append(p)
                c.eq(p.stdout.readline().strip(), "ready", "workload ready")
            pids = [p.pid for p in procs[:3]]
            spid = procs[3].pid
            bpids = [p.pid for p in procs[4:]]
            ch.write(os.path.join(KSM, "sleep_millisecs"), "10")
            ch.write(os.path.join(KSM, "pages_to_scan"), "5000")
            ch.write(os.path.join(KSM, "run"), "1")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and \
                    (any(merging(pid) < N for pid in pids + bpids) or
                     merging(spid) < N_SELF):
                time.sleep(0.1)
            if not c.check(all(merging(pid) == N for pid in pids + bpids)
                           and merging(spid) == N_SELF,
                           "KSM merged all %d pages of each process and "
                           "%d of the fourth: %r" %
                           (N, N_SELF, [merging(p.pid) for p in procs])):
                return
            # stop scanning: what is merged stays merged
            ch.write(os.path.join(KSM, "run"), "0")
            shared, sharing = ksm_value("pages_shared"), \
                ksm_value("pages_sharing")
            d = exmlive.exmtop_json(["--bytes"])
            every = {pid: merging(pid) for pid in exmlive.all_pids()}
            ours = pids + [spid] + bpids
            others = {pid: n for pid, n in every.items()
                      if n > 0 and pid not in ours}
            # alone: no other process maps KSM pages, and none that has
            # exited left its pages counted (ksmd, stopped, has not
            # cleaned up after it)
            alone = not others and (shared, sharing) == (ksm_value(
                "pages_shared"), ksm_value("pages_sharing")) and \
                shared + sharing == sum(every.get(pid, 0) for pid in ours)
            if not alone:
                print("other processes with KSM pages, so the machine's "
                      "sums are not compared: %r" % others, flush=True)
            rows = {p["pid"]: p for p in d.get("processes", [])}
            for pid in pids:
                p = rows.get(pid, {})
                want = merging(pid) * ps
                c.eq(p.get("ksm"), want, "pid %d KSM == ksm_merging_pages "
                     "x page size" % pid)
                c.near(p.get("ksm_saved"), want * 2 / 3, exmlive.EFF_TOL,
                       "pid %d KSM.SAV: two thirds of it" % pid)
                c.check((p.get("rss") or 0) >= want,
                        "pid %d RES counts its KSM pages: %r" %
                        (pid, p.get("rss")))
            check_self(c, rows.get(spid, {}), spid, ps)
            tot_ksm = sum(p.get("ksm") or 0 for p in rows.values())
            tot_saved = sum(p.get("ksm_saved") or 0 for p in rows.values())
            if alone:
                c.eq(tot_ksm, sum(n for n in every.values() if n > 0) * ps,
                     "every process's KSM == their ksm_merging_pages")
                c.eq((shared, sharing), (2 * N + 1, 3 * N + N_SELF - 1),
                     "pages_shared and pages_sharing")
                c.eq(tot_ksm, (shared + sharing) * ps,
                     "every process's KSM == pages_shared + pages_sharing")
                c.near(tot_saved, sharing * ps, exmlive.EFF_TOL * len(rows),
                       "every process's KSM.SAV == pages_sharing")
            rc, out, err = exmlive.run_exmtop(["-b", "--system", "--format",
                                               "json"])
            notes = json.loads(out).get("notes", []) if rc == 0 else []
            got = [[float(w) for w in n.split() if w.isdigit()]
                   for n in notes if n.startswith("ksm: ")]
            # another snapshot: with another KSM user (a running virtual
            # machine) only what the test's processes hold is certain
            ok = len(got) == 1 and len(got[0]) == 2
            if ok and alone:
                ok = got[0][0] == tot_ksm and abs(got[0][1] - tot_saved) <= 1
            elif ok:
                ok = got[0][0] >= 5 * N * ps and got[0][1] >= 3 * N * ps
            c.check(ok, "--system's note: KSM and KSM.SAV of every process "
                    "(%d, %.0f here%s): %r (%s)" %
                    (tot_ksm, tot_saved, "" if alone else
                     "; at least the test's", notes, err.strip()))
            check_alone(c, procs, ps)
        finally:
            for p in procs:
                p.kill()
                p.wait()
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

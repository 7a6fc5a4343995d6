#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): pagemap read mode counts, rather than reads, the big
private anonymous mappings whose pages smaps says are all mapped once, and
of those holding shared pages reads only where a mapping of the same range
(a fork's parent or sibling) had pages, counting the rest (issue 23 item 3;
source_pagemap.c's count_mapping, locate_shared), and every figure stays
what reading every frame gives, byte for byte.

The workload is tests/live/sparse.c: four processes, each with 1 GiB
reservations holding a few pages: its own pages only (counted), pages
shared by fork (located), both (located), copies of fork-shared pages that
every process wrote (counted), transparent huge pages of its own
(counted), fork-shared pages the parent then dropped half of (the children
share some where the parent has none: the first child reads it whole, the
others locate them), pages of its own and zero pages (read but never
written: counted), fork-shared pages and zero pages (located), none, and with active swap (a 64 MiB swap file
through sysstate.py when none is on) swap entries of its own (counted)
and shared by fork (read whole). Exmtop runs on one thread, so processes
are read in pid order. Linked
statically and without [vdso], and stopped (SIGSTOP): its figures hold
still whatever else runs. Only its processes are scanned (--scan-pids).

Checks, on one run each:
- the JSON of every figure (all fields: the kernel's from smaps_rollup) in
  read-all mode (every frame read) equals scan mode's and auto mode's
  (PAGEMAP_SCAN, Linux 6.7+), but for the time, the memory available and
  the source's detail; those two count, rather than store, the pages
  mapped once of five big mappings a process (count_once), as their
  detail says;
- so does read mode's, but for zero (smaps does not see the zero page):
  each process's zero is read-all's less the zero pages of the mappings it
  counted (README, Zero): 8 of zown in each; the children locate zfork at
  the places the parent's whole read found pages, its zero pages among
  them, so they are counted;
- read mode's second snapshot (-n 2: every big mapping with shared pages
  located with what the first learnt, none read whole) equals its first,
  zero included (it used to lose the parent's zfork zero pages);
- so does read mode on four threads (workers wait for the pages of a
  range another reads whole), the zero pages left out in all the same;
- read mode's detail says how many big mappings it counted, 4 a process
  (5 with swap) where the kernel keeps per-page mapcounts, none where it
  averages them (CONFIG_NO_PAGE_MAPCOUNT), how many it located (all but
  the parent's four and the first child's dropped) and read whole;
  read-all counts none, reads all whole;
- the kernel's Pss figures computed from mapping counts (no
  smaps_rollup) in read, scan and auto modes equal read-all's and
  smaps_rollup's;
- read mode's JSON (every kernel figure: Pss_Dirty and SwapPss too, a
  shared swap entry and shared memory's pages both dirty and clean among
  them) opens no smaps_rollup, only each
  process's smaps, which it read for its counts (strace), and its kernel
  figures equal smaps_rollup's, byte for byte;
- read mode on one thread takes the children's words of the shared
  memory (every page present in each, mapped by the others) from the
  frames the parent read (source_pagemap.c's shared_derive_whole): 3
  mappings; not those of a shared memory each child maps half of
  (shpart: read, and compared with read-all's like every figure);
  read-all none;
- the page strip (--pagemap PID:ADDR) of a counted region is read, not
  counted, in every mode: the same as read-all's, with the region's pages
  in it;
- a recording made in read mode holds every page (its replay equals
  read-all's figures).

No retries: a difference is a bug.
"""

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

KPSS = ("pss", "pss_anon", "pss_file", "pss_shmem")
COUNTED = ("own", "cowed", "thp", "zown")
ZERO_PAGES = 8  # read, never written, in zown and zfork (sparse.c)


def stopped(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def flat(d, pre=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, pre + "/" + str(k)))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(flat(v, pre + "/" + str(i)))
    else:
        out[pre] = d
    return out


def detail_counts(detail):
    """Read mode's source detail: big mappings counted (all pages mapped
    once), located (shared pages found, the rest counted), read whole."""
    got = {"counted": 0, "located": 0, "whole": 0, "derived": 0}
    # what the reuse layer adds: how much of the snapshot was walked
    walked = r"(?:, full walk \([a-z ,]+\)|, walked \d+ of \d+, oldest \d+ s)?"
    m = re.fullmatch(r"chunked reads((?:, \d+ [a-z ]+)*)" + walked, detail)
    if m:
        for part in m.group(1).split(", ")[1:]:
            num, what = part.split(" ", 1)
            key = {"big mappings counted": "counted", "located": "located",
                   "big mappings located": "located",
                   "read whole": "whole",
                   "big mappings read whole": "whole",
                   "shared mappings from frames already read":
                   "derived"}.get(what)
            if key is None:
                return {"unknown": detail}
            got[key] = int(num)
    else:
        got["unknown"] = detail
    return got


def counted_of(snap):
    m = re.search(r"(\d+) big mappings counted",
                  snap.get("source_detail", ""))
    return int(m.group(1)) if m else 0


def once_counted(c, mode, snap, pids):
    """With PAGEMAP_SCAN, the big private mappings holding pages mapped
    once count those as their words are read (source_pagemap.c's
    count_once): own, mixed (its pages not shared by fork), cowed, thp and
    zown, five a process, none where the kernel averages mapcounts (their
    figures are compared with read-all's)."""
    averages = "averages mapcounts" in snap["limits"]
    c.eq(counted_of(snap), 0 if averages else 5 * len(pids),
         "[%s] big mappings counting their pages mapped once (%r)" %
         (mode, snap["source_detail"]))


def snapshot(c, mode, pids, extra=()):
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "json", "--bytes", "--pagemap-mode", mode,
         "--scan-pids", ",".join(map(str, pids))] + list(extra))
    if not c.eq(rc, 0, "[%s] exmtop exit status (%s)" % (mode, err.strip())):
        return None
    return json.loads(out)


def same(c, what, a, b, zero=True):
    """a and b equal but for what moves between two runs (and every zero
    figure unless zero): the time, the growth since the last snapshot
    (derss: null in a run's first)."""
    fa, fb = flat(a), flat(b)
    for k in ("/time", "/time_taken", "/source_detail", "/mem_available"):
        fa.pop(k, None)
        fb.pop(k, None)
    for f in (fa, fb):
        for k in [k for k in f if k.endswith("/derss")]:
            del f[k]
    if not zero:
        for f in (fa, fb):
            for k in [k for k in f if k.endswith("/zero")]:
                del f[k]
    diff = sorted(k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k))
    c.check(not diff, "%s: %d values differ, first %s" %
            (what, len(diff), ["%s %r/%r" % (k, fa.get(k), fb.get(k))
                               for k in diff[:4]]))


def kernel_pss(c, mode, pids):
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "csv", "--bytes", "--pagemap-mode", mode,
         "--scan-pids", ",".join(map(str, pids)),
         "--fields", "pid," + ",".join(KPSS)])
    c.eq(rc, 0, "[%s] kernel's Pss: exit status (%s)" % (mode, err.strip()))
    return {int(r["pid"]): {k: int(r[k]) for k in KPSS}
            for r in csv.DictReader(io.StringIO(out))}


def rollup_from_smaps(c, tmp, pids, snap, rollup):
    """Read mode's JSON takes smaps_rollup's figures from the smaps it
    read (kpss_from_smaps): no smaps_rollup opened, the same figures."""
    trace = os.path.join(tmp, "trace")
    rc, err = exmlive.strace_exmtop(
        "open,openat", ["-b", "--format", "json", "--pagemap-mode", "read",
                        "--scan-pids", ",".join(map(str, pids))], trace)
    c.eq(rc, 0, "strace read-mode JSON: exit status (%s)" % err.strip())
    with open(trace) as f:
        text = f.read()
    c.eq(text.count("smaps_rollup"), 0, "read-mode JSON: smaps_rollup "
         "opened")
    c.eq(len(re.findall(r"\bsmaps\"", text)), len(pids),
         "read-mode JSON: one smaps a process")
    keys = KPSS + ("pss_dirty", "swap_pss")
    got = {p["pid"]: {k: p.get(k) for k in keys} for p in snap["processes"]}
    want = {pid: {k: r[k] for k in keys} for pid, r in rollup.items()}
    c.eq(got, want, "read-mode JSON: every kernel figure == "
         "smaps_rollup's")
    c.check(any(r["swap_pss"] for r in rollup.values()) and
            all(r["pss_dirty"] for r in rollup.values()),
            "SwapPss and Pss_Dirty there to compare (%r)" % rollup)
    # the shared memory holds pages shared by four both dirty and clean
    # (its Pss_Dirty follows from its one mapping count: map_dirty)
    ps = os.sysconf("SC_PAGE_SIZE")
    for pid in pids:
        v = [m for m in exmlive.read_maps(pid) if m.perms == "rw-s" and
             m.end - m.start == 5 * ps]
        sm = exmlive.read_smaps_vma(pid, v[0].start) if len(v) == 1 else {}
        c.check(sm.get("Shared_Clean") == 2 * ps and
                sm.get("Shared_Dirty") == 3 * ps,
                "pid %d: shared memory's shared pages, 2 clean and 3 "
                "dirty (%r)" % (pid, sm))


def strip(c, mode, pid, addr):
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "json", "--pagemap-mode", mode,
         "--pagemap", "%d:%x" % (pid, addr)])
    c.eq(rc, 0, "[%s] strip exit status (%s)" % (mode, err.strip()))
    try:
        return json.loads(out).get("pages")
    except ValueError:
        return None


def recorded(c, tmp, pids):
    """A recording made in read mode, replayed as JSON."""
    db = os.path.join(tmp, "rec.exmtop")
    rc, _, err = exmlive.run_exmtop(
        ["-b", "-n", "1", "--pagemap-mode", "read", "--record", db,
         "--scan-pids", ",".join(map(str, pids))])
    if not c.eq(rc, 0, "--record in read mode (%s)" % err.strip()):
        return None
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "json", "--bytes", "--source", "replay:" + db,
         "--fields", "pid," + ",".join(exmlive.SIZE_KEYS)])
    if not c.eq(rc, 0, "replay (%s)" % err.strip()):
        return None
    return json.loads(out)


def run(c, tmp, swap):
    with exmlive.Sharer(tmp, swap=swap, alone=True, program="sparse") as sp:
        try:
            compare(c, tmp, swap, sp)
        finally:
            for pid in sp.pids:
                os.kill(pid, signal.SIGCONT)


def compare(c, tmp, swap, sp):
    # the program's file pages written back: a page cache page dirty now
    # and clean later would move Pss_Dirty between snapshots (and smaps
    # could not say it: see kpss_from_smaps)
    fd = os.open("/proc/%d/exe" % sp.pids[0], os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    for pid in sp.pids:
        os.kill(pid, signal.SIGSTOP)
    for pid in sp.pids:
        while not stopped(pid):
            time.sleep(0.01)
    modes = ["read", "read-all"] + (["scan", "auto"] if "scan" in
                                    exmlive.pagemap_modes() else [])
    snaps = {m: snapshot(c, m, sp.pids) for m in modes}
    if any(s is None for s in snaps.values()):
        return
    for m in modes[2:]:
        same(c, "read-all == %s" % m, snaps["read-all"], snaps[m])
        once_counted(c, m, snaps[m], sp.pids)
    same(c, "read == read-all but for zero", snaps["read"],
         snaps["read-all"], zero=False)
    ps = sp.page_size
    counted = 0 if "averages mapcounts" in snaps["read"]["limits"] \
        else ZERO_PAGES * ps
    left_out = {pid: counted for pid in sp.pids}
    zr = {p["pid"]: p["zero"] for p in snaps["read"]["processes"]}
    za = {p["pid"]: p["zero"] for p in snaps["read-all"]["processes"]}
    c.check(all(za.get(pid, 0) >= 2 * ZERO_PAGES * ps for pid in sp.pids),
            "read-all sees the zero pages of zown and zfork (%r)" % za)
    c.eq({pid: za.get(pid, 0) - zr.get(pid, 0) for pid in sp.pids},
         left_out, "read mode's zero: read-all's less the zero pages of "
         "mappings it counted")
    c.eq(snaps["read-all"]["totals"]["zero"] -
         snaps["read"]["totals"]["zero"], sum(left_out.values()),
         "read mode's total zero: read-all's less those")
    # two snapshots in one run: the second locates what the first read
    # whole, the same figures (the processes are stopped)
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "json", "--bytes", "--pagemap-mode", "read",
         "-n", "2", "-d", "0.1", "--scan-pids",
         ",".join(map(str, sp.pids))])
    two = [json.loads(line) for line in out.splitlines() if line.strip()]
    if c.check(rc == 0 and len(two) == 2, "read mode -n 2: two snapshots "
               "(%s)" % err.strip()):
        c.check(detail_counts(two[1]["source_detail"])["whole"] <
                detail_counts(two[0]["source_detail"])["whole"],
                "read mode -n 2: the second reads fewer whole (%r, %r)" %
                (two[0]["source_detail"], two[1]["source_detail"]))
        same(c, "read mode -n 2: snapshot 2 == snapshot 1", two[1], two[0])
        same(c, "read mode -n 2: snapshot 1 == one snapshot", two[0],
             snaps["read"])
    # big mappings holding pages, a process: own, forked, mixed, cowed,
    # thp, dropped (and swown, swfork); all mapped once: own, cowed, thp
    # (and swown); shared pages to locate: forked, mixed, dropped (swfork
    # shares swap entries: read whole)
    n = len(sp.pids)
    # and empty, never touched: smaps calls it empty, but read mode reads
    # it whole for its zero pages (up to 4 GiB; issue 24), read-all too
    big = n * (9 + (2 if swap else 0))
    averages = "averages mapcounts" in snaps["read"]["limits"]
    want = 0 if averages else n * (len(COUNTED) + (1 if swap else 0))
    got = detail_counts(snaps["read"]["source_detail"])
    c.eq(got["counted"], want, "read mode counted the mappings of pages "
         "mapped once (%r)" % snaps["read"]["source_detail"])
    c.eq(got["located"] + got["whole"], big - want,
         "read mode located or read whole the others")
    if not averages:
        # one thread: the parent reads forked, mixed, dropped and zfork
        # whole (its pages are where its children's shared ones are, but
        # for dropped's last 8), child 1 dropped; the others locate them
        c.eq(got["located"], n * 4 - 5, "shared pages located (%r)" %
             snaps["read"]["source_detail"])
    # the shared memory: every page of it present in each process and
    # mapped by the others too (smaps: no Private_*), so the parent's
    # read gives the children's words (shared_derive_whole); compared
    # with read-all's above
    c.eq(got["derived"], 0 if averages else n - 1,
         "read mode took the children's shared memory from the frames "
         "the parent read (%r)" % snaps["read"]["source_detail"])
    c.eq(detail_counts(snaps["read-all"]["source_detail"]),
         {"counted": 0, "located": 0, "whole": big, "derived": 0},
         "read-all's detail")
    # four threads: a worker that meets a range another reads whole waits
    # for its pages (locate_shared); the same figures
    os.environ["EXMTOP_THREADS"] = "4"
    try:
        four = snapshot(c, "read", sp.pids)
    finally:
        os.environ["EXMTOP_THREADS"] = "1"
    if four is not None:
        same(c, "read on four threads == read-all but for zero", four,
             snaps["read-all"], zero=False)
        # one process reads zfork whole, whichever: the same zero pages
        # left out in all
        c.eq(snaps["read-all"]["totals"]["zero"] - four["totals"]["zero"],
             sum(left_out.values()), "four threads: total zero")
        got = detail_counts(four["source_detail"])
        c.eq((got["counted"], got["located"] + got["whole"]),
             (want, big - want), "four threads: mappings counted, "
             "located or read whole (%r)" % four["source_detail"])
        # a child read before the parent's read is over reads its own
        c.check(got["derived"] <= (0 if averages else n - 1),
                "four threads: shared memory taken from frames read "
                "(%r)" % four["source_detail"])
    if swap:
        c.check(snaps["read-all"]["totals"]["swap"] > 0,
                "the workload has swapped pages")
    # the kernel's Pss from mapping counts
    rollup = {pid: exmlive.read_rollup(pid) for pid in sp.pids}
    ka = kernel_pss(c, "read-all", sp.pids)
    for m in [x for x in modes if x != "read-all"]:
        km = kernel_pss(c, m, sp.pids)
        for pid in sp.pids:
            c.eq(km.get(pid), ka.get(pid),
                 "pid %d: kernel's Pss, %s == read-all" % (pid, m))
            c.eq(km.get(pid), {k: rollup[pid][k] for k in KPSS},
                 "pid %d: kernel's Pss, %s == smaps_rollup" % (pid, m))
    rollup_from_smaps(c, tmp, sp.pids, snaps["read"], rollup)
    # the strip of a counted region shows its pages
    start = sp.regions["own"][0]
    sa = strip(c, "read-all", sp.pids[1], start)
    for m in [x for x in modes if x != "read-all"]:
        sr = strip(c, m, sp.pids[1], start)
        c.check(sr is not None and sr == sa,
                "strip of 'own': %s == read-all" % m)
    c.eq(sum(1 for x in sr or () if x), 32,
         "strip of 'own' (child 1): its 32 pages")
    rep = recorded(c, tmp, sp.pids)
    if rep is not None:
        want_rows = {p["pid"]: {k: p[k] for k in exmlive.SIZE_KEYS}
                     for p in snaps["read-all"]["processes"]}
        got_rows = {p["pid"]: {k: p[k] for k in exmlive.SIZE_KEYS}
                    for p in rep["processes"]}
        c.eq(got_rows, want_rows, "recording made in read mode, "
             "replayed == read-all")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live counted")
    # processes read one after the other, in pid order: which are read
    # whole and which located is then known
    os.environ["EXMTOP_THREADS"] = "1"
    tmp = tempfile.mkdtemp(prefix="exm-counted-", dir="/var/tmp")
    try:
        with sysstate.Changes("test_counted") as ch:
            swap = sysstate.swap_active()
            if not swap:
                try:
                    ch.swapfile(64 << 20)
                    swap = True
                except (RuntimeError, OSError,
                        subprocess.CalledProcessError) as e:
                    # a machine without swap fails the test, saying why
                    # (the regions without swap are still compared)
                    c.check(False, "a swap file for the swapped regions: "
                            "%s" % e)
            run(c, tmp, swap)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

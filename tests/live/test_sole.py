#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): sole is the kernel's USS in every source (issue 24,
item 4).

tests/live/kinds.c `twice N` maps a memfd of N written pages twice (each
page mapped twice by this one process, by no other), another memfd of N
pages once, and N private anonymous pages. First the fixture is checked
against the kernel's own smaps: the memfd mapped twice is all Shared_*,
no Private_*, in both mappings; the one mapped once is all Private_*.
Then, for every pagemap mode (scan, auto, read), the smaps source and the
replay of a recording of each pagemap mode, every process scanned
(exmtop itself too, so a page it shares with the fixture counts as the
kernel counts it):

  - with the fixture stopped (SIGSTOP) for the scan and the read of its
    smaps, the sole of each of its rows that no other process maps
    (anonymous memory, heap, stack, both memfds) equals the kernel's
    Private_Clean + Private_Dirty of those mappings, resident their Rss
    and effective resident their Pss (test_kinds.compare). The process's
    whole USS is not compared: it moves whenever another process starts
    or stops mapping a library page the fixture maps;
  - the twice-mapped memfd's file row: resident 2 N pages, effective
    resident N pages, sole 0 (before issue 24 it was 2 N pages from
    pagemap and 0 from smaps);
  - the once-mapped memfd's row: sole N pages.
So every source gives the same sole to the byte.
"""

import os
import sys
import tempfile
import shutil

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import test_kinds  # noqa: E402  (the kinds fixture, the kernel's figures)

N = 64
TWICE = "/memfd:kinds-twice (deleted)"
ONCE = "/memfd:kinds-once (deleted)"


def smaps_private_shared(pid, start):
    """(Private_*, Shared_*) bytes of pid's mapping at start, from smaps."""
    s = exmlive.read_smaps_vma(pid, start)
    return (s.get("Private_Clean", 0) + s.get("Private_Dirty", 0),
            s.get("Shared_Clean", 0) + s.get("Shared_Dirty", 0))


def check_fixture(c, k, ps):
    pid = k.pids[0]
    for r in ("twice1", "twice2"):
        c.eq(smaps_private_shared(pid, k.regions[r][0]), (0, N * ps),
             "fixture: kernel's (Private, Shared) of %s" % r)
    c.eq(smaps_private_shared(pid, k.regions["once"][0]), (N * ps, 0),
         "fixture: kernel's (Private, Shared) of once")


def differences(what, row, own, ps):
    """row (a process's JSON) against the kernel's figures of its own rows
    (own: test_kinds.own_rows) and the fixture's design: a list of
    differences."""
    if row is None:
        return ["%s: process not listed" % what]
    bad = test_kinds.compare(what, row, own, sole_too=True)
    files = {f.get("file"): f for f in row.get("files") or []}
    want = {TWICE: {"rss": 2 * N * ps, "erss": N * ps, "sole": 0},
            ONCE: {"rss": N * ps, "erss": N * ps, "sole": N * ps}}
    for name, w in want.items():
        f = files.get(name)
        if f is None:
            bad.append("%s: no row for %s" % (what, name))
            continue
        for key, v in w.items():
            if f.get(key) != v:
                bad.append("%s: %s %s %r, want %d" % (what, name, key,
                                                      f.get(key), v))
    return bad


def check_source(c, what, args, pid, ps, rec=None):
    """exmtop with args (and, with rec, the replay of its recording)
    against the kernel, once, the fixture stopped meanwhile."""
    names = dict(test_kinds.OWN_ROWS)
    names.update({TWICE: TWICE, ONCE: ONCE})
    with exmlive.frozen([pid]):
        if rec is None:
            rows = test_kinds.scan(args)[1]
            bad = []
        else:
            rows, bad = test_kinds.recorded_scan(args, rec, [pid])
            if not bad:
                doc = exmlive.exmtop_json(["--bytes", "--replay", rec,
                                           "-p", str(pid)])
                rows = {p["pid"]: p for p in doc["processes"]}
        own = test_kinds.own_rows(pid, names)
    test_kinds.once(c, what, bad + differences(what, rows.get(pid), own,
                                               ps))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live sole")
    ps = os.sysconf("SC_PAGESIZE")
    tmp = tempfile.mkdtemp(prefix="exm-sole-", dir="/var/tmp")
    k = test_kinds.Kinds("twice", N)
    try:
        pid = k.pids[0]
        check_fixture(c, k, ps)
        for mode in exmlive.pagemap_modes():
            args = ["--source", "pagemap", "--pagemap-mode", mode]
            check_source(c, "[%s]" % mode, args, pid, ps)
            check_source(c, "[%s, replayed]" % mode, args, pid, ps,
                         rec=os.path.join(tmp, "sole-%s.exmrec" % mode))
        check_source(c, "[smaps]", ["--source", "smaps"], pid, ps)
    finally:
        k.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): transparent huge pages a fork child partly wrote, and
huge pages of a process's own, against the kernel and across pagemap
modes.

The workload is tests/live/thpfork.c (linked statically: no page of its
two processes is mapped by any other process; both stopped while
measured). The child wrote one huge page and a half of 8 the parent
filled before fork: the parent maps the second huge page whole by its
PMD, the child maps that page's second half by PTEs. pagemap marks every
page of a PMD-mapped huge page mapped once when its first page is (Linux
6.1 to 6.18 at least): the parent's words of that half say mapped once,
though the child maps the same frames. Each process also has 8 huge pages
of its own in a 1 GiB reservation, beside 2 MiB it only read (zero
pages).

Checks, scanning only the workload (--scan-pids), in auto, scan, read and
read-all modes:
- the kernel's Pss_Anon as exmtop has it from mapping counts (no
  smaps_rollup read: only pss and pss_anon asked for) equals
  smaps_rollup's, byte for byte, for both processes (it was 340 kB over
  in the parent when pagemap's bit was trusted);
- RSS, EFF.RES and SOLE in auto, scan and read mode equal read-all's (in
  auto and scan, a big mapping's pages mapped once are counted, not
  stored: the shared half was counted as the parent's alone), and ZERO
  in auto and scan equals read-all's;
- every field (auto mode, JSON): the kernel's Pss, Pss_Anon, Pss_File,
  Pss_Dirty and SwapPss equal smaps_rollup's, byte for byte (where auto
  mode read a process's smaps for its huge pages, they come from it);
- where the kernel gave the processes their own huge pages, auto and
  scan mode counted those from smaps (their detail: "on huge pages, from
  smaps"), one mapping a process.

Without transparent huge pages (AnonHugePages 0) the test fails: CI's
machines have them (madvise or always).
"""

import os
import signal
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

FIELDS = "pid,rss,erss,sole,zero,pss,pss_anon"
MODES = ("auto", "scan", "read", "read-all")
PFN = (1 << 55) - 1
EXCL = 1 << 56


def rollup(pid):
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[2] == "kB":
                out[w[0].rstrip(":")] = int(w[1]) * 1024
    return out


def words(pid, start, n):
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(start // 4096 * 8)
        data = f.read(n * 8)
    return [struct.unpack_from("<Q", data, i * 8)[0] for i in range(n)]


def main():
    if os.geteuid() != 0:
        print("test_thpfork: needs root (pagemap)")
        sys.exit(77)
    c = exmlive.Checker("live thpfork")
    path = exmlive.plain_program("thpfork", ["-static"], "static")
    proc = subprocess.Popen([path], stdout=subprocess.PIPE,
                            start_new_session=True)
    pids, regions = [], {}
    try:
        for raw in proc.stdout:
            w = raw.decode().split()
            if w and w[0] == "pids":
                pids = [int(x) for x in w[1:]]
            elif w and w[0] == "region":
                regions[w[1]] = (int(w[2], 16), int(w[3], 16))
            elif w and w[0] == "ready":
                break
        if len(pids) != 2:
            print("FAIL: the workload did not start")
            sys.exit(1)
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        parent, child = pids
        huge = [rollup(pid).get("AnonHugePages", 0) for pid in pids]
        c.check(all(huge), "transparent huge pages given (AnonHugePages "
                "%r): the test needs them" % huge)
        # the kernel's words of the parent's second huge page's second
        # half, which the child maps too (information: the figures below
        # must be right whether the kernel marks them mapped once or not)
        s = regions["split"][0] + 512 * 4096
        pw, cw = words(parent, s, 512), words(child, s, 512)
        same = sum(1 for a, b in zip(pw[256:], cw[256:])
                   if a >> 63 and b >> 63 and a & PFN == b & PFN)
        marked = sum(1 for a in pw[256:] if a & EXCL)
        print("parent's second huge page: %d of its last 256 frames mapped "
              "by the child too, %d of them said mapped once by pagemap"
              % (same, marked))
        c.eq(same, 256, "the child maps the second half of the parent's "
             "second huge page")
        snaps = {}
        for mode in MODES:
            snaps[mode] = exmlive.exmtop_json(
                ["--scan-pids", "%d,%d" % (parent, child), "--pagemap-mode",
                 mode, "--fields", FIELDS])
        kernel = {pid: rollup(pid) for pid in pids}
        for mode in MODES:
            rows = {p["pid"]: p for p in snaps[mode]["processes"]}
            for pid in pids:
                c.eq(rows[pid].get("pss_anon"), kernel[pid]["Pss_Anon"],
                     "%s mode, pid %d: Pss_Anon from mapping counts against "
                     "smaps_rollup's" % (mode, pid))
        full = {p["pid"]: p for p in snaps["read-all"]["processes"]}
        for mode in ("auto", "scan", "read"):
            rows = {p["pid"]: p for p in snaps[mode]["processes"]}
            for pid in pids:
                keys = ("rss", "erss", "sole") + (
                    ("zero",) if mode != "read" else ())
                for k in keys:
                    c.eq(rows[pid][k], full[pid][k],
                         "%s mode, pid %d: %s against read-all's"
                         % (mode, pid, k))
        # every field: the kernel's Pss_Dirty and SwapPss too, which
        # need smaps; where auto mode read smaps for its huge pages, the
        # kernel's figures come from it (kpss_from_smaps)
        whole = exmlive.exmtop_json(
            ["--scan-pids", "%d,%d" % (parent, child)])
        rows = {p["pid"]: p for p in whole["processes"]}
        for pid in pids:
            for k, f in (("pss", "Pss"), ("pss_anon", "Pss_Anon"),
                         ("pss_file", "Pss_File"),
                         ("pss_dirty", "Pss_Dirty"),
                         ("swap_pss", "SwapPss")):
                c.eq(rows[pid].get(k), kernel[pid][f],
                     "every field, pid %d: %s against smaps_rollup's %s"
                     % (pid, k, f))
        for mode in ("auto", "scan"):
            detail = snaps[mode].get("source_detail", "")
            c.check("(2 on huge pages, from smaps)" in detail,
                    "%s mode counted both processes' own huge pages from "
                    "smaps: %r" % (mode, detail))
    finally:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    c.done()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): the kernel's Pss, Pss_Anon, Pss_File and Pss_Shmem
that the pagemap source computes from the mapping counts of the frames it
read (/proc/kpagecount, no smaps_rollup) equal smaps_rollup's, byte for
byte, for every process of a quiet workload, on every pagemap path.

The workload is the sharer (known sharing: copy-on-write anonymous memory,
a transparent huge page split by one writer, shared anonymous memory, a
memfd mapped twice, a file's page cache and private copies of it), linked
statically and without [vdso] (-v), so that no page of its processes is
mapped by any process outside them, and stopped (SIGSTOP): its mapping
counts, hence its Pss, hold still whatever else runs on the machine.
Only its processes are scanned (--scan-pids): the kernel's Pss counts
every mapping on the system whichever processes exmtop scans, and other
processes' sparse reservations would make the plain-read path slow. Both
figures truncate the same fixed-point sum (PSS_SHIFT 12) to kB once, so
they must be equal; smaps_rollup is read before and after exmtop and must
not have moved (else the workload was not quiet: a failure too).

exmtop is asked only for the kernel's Pss columns (no pss_dirty or
swap_pss, which need smaps_rollup); an strace of it checks that it opened
no smaps_rollup for them, none either for a JSON snapshot of --fields
pid,erss (nor /proc/kpagecount), and one for pss_dirty; and that three
snapshots open /proc/self/pagemap (the probes of the kernel's features on
our own pages) and the module's device (auto's probe) once in all.

No retries: a difference is a bug.
"""

import csv
import io
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

KEYS = ("pss", "pss_anon", "pss_file", "pss_shmem")


def compare(c, mode, sh):
    before = {pid: exmlive.read_rollup(pid) for pid in sh.pids}
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "csv", "--bytes", "--pagemap-mode", mode,
         "--scan-pids", ",".join(str(p) for p in sh.pids),
         "--fields", "pid," + ",".join(KEYS)])
    after = {pid: exmlive.read_rollup(pid) for pid in sh.pids}
    if not c.eq(rc, 0, "[%s] exmtop exit status (%s)" % (mode, err.strip())):
        return
    rows = {int(r["pid"]): r for r in csv.DictReader(io.StringIO(out))}
    for i, pid in enumerate(sh.pids):
        what = "[%s] sharer %d (pid %d)" % (mode, i, pid)
        # (not Pss_Dirty: exmtop is not asked for it, see above)
        c.check(before[pid] and after[pid] and
                all(before[pid][k] == after[pid][k] for k in KEYS),
                "%s: smaps_rollup's Pss held still: %r / %r" %
                (what, before[pid], after[pid]))
        r = rows.get(pid)
        if not c.check(r is not None, what + " listed"):
            continue
        c.check(after[pid]["pss"] > 0 and after[pid]["pss_anon"] > 0 and
                after[pid]["pss_file"] > 0 and after[pid]["pss_shmem"] > 0,
                "%s: every kind of Pss is there to compare: %r" %
                (what, after[pid]))
        for k in KEYS:
            c.eq(int(r[k]) if r[k] else None, after[pid][k],
                 "%s %s == smaps_rollup's" % (what, k))


def opened(c, tmp, args, pids):
    """The files exmtop ARGS opened (strace), as one text."""
    trace = os.path.join(tmp, "trace")
    rc, err = exmlive.strace_exmtop(
        "open,openat", ["-b", "--scan-pids", ",".join(str(p) for p in pids)] +
        args, trace)
    c.eq(rc, 0, "strace exmtop %s: exit status (%s)" %
         (" ".join(args), err.strip()[-300:]))
    with open(trace) as f:
        return f.read()


def reads_only_what_is_printed(c, tmp, pids):
    """The kernel's Pss columns alone open no smaps_rollup; a JSON
    snapshot with --fields pid,erss neither smaps_rollup nor kpagecount;
    pss_dirty (which needs the kernel's walk) does open it."""
    text = opened(c, tmp, ["--format", "csv", "--fields",
                           "pid,pss,pss_anon,pss_file,pss_shmem"], pids)
    c.check("/kpagecount" in text, "pss: /proc/kpagecount was read")
    c.eq(text.count("smaps_rollup"), 0, "pss: smaps_rollup opened")
    text = opened(c, tmp, ["--format", "json", "--fields", "pid,erss"], pids)
    c.eq(text.count("smaps_rollup"), 0, "json pid,erss: smaps_rollup opened")
    c.eq(text.count("/kpagecount"), 0, "json pid,erss: kpagecount opened")
    text = opened(c, tmp, ["--format", "json", "--fields", "pid,pss_dirty"],
                  pids)
    c.check(text.count("smaps_rollup") > 0,
            "json pid,pss_dirty: smaps_rollup opened")


def probes_once_a_run(c, tmp, pids):
    """Three snapshots of the source auto picks: the kernel's features
    asked of our own pages (PFNs shown, PAGEMAP_SCAN, the zero page's
    frame, KSM's flag) open /proc/self/pagemap once in all, and the
    module's device is opened once (auto's probe; with the module, its
    open file serves the first walk too)."""
    text = opened(c, tmp, ["-n", "3", "-d", "0.1", "--fields", "pid,erss"],
                  pids)
    c.eq(text.count('"/dev/exmap"'), 1, "-n 3: /dev/exmap opened")
    if '"/dev/exmap", O_RDONLY|O_CLOEXEC) = -1' in text:  # the pagemap
        c.eq(text.count('"/proc/self/pagemap"'), 1,
             "-n 3: /proc/self/pagemap opened")
    else:  # a module is loaded here: the kmod source walked
        print("info: the kmod source picked, /proc/self/pagemap not asked")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap, /proc/kpagecount)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live kpss")
    tmp = tempfile.mkdtemp(prefix="exm-kpss-", dir="/var/tmp")
    try:
        with exmlive.Sharer(tmp, alone=True) as sh, \
                exmlive.frozen(sh.pids):
            for mode in exmlive.pagemap_modes():
                compare(c, mode, sh)
            if shutil.which("strace"):
                reads_only_what_is_printed(c, tmp, sh.pids)
                probes_once_a_run(c, tmp, sh.pids)
            else:
                c.check(False, "strace is installed (scripts/deps.sh)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

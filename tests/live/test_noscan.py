#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): PAGEMAP_SCAN refused from its first call.

Under qemu-user, or a container runtime's seccomp filter that does not
know the ioctl, PAGEMAP_SCAN fails with ENOSYS, ENOTTY, EPERM or EINVAL
whatever the kernel. tests/live/noscan.c runs exmtop under a seccomp
filter that fails exactly that ioctl with a given errno. For each of
those errnos, on the sparse workload (tests/live/sparse.c: big, mostly
empty reservations with known sharing, which auto mode asks PAGEMAP_SCAN
about, and MAP_SHARED mappings whose frames it would take from another
mapping's), stopped while measured:

  - the default (auto) mode falls back to read mode for the whole run:
    exit status 0, every process's and file's figures equal to those of
    an unfiltered --pagemap-mode read, the source detail "chunked reads";
  - it says so once: the limits of each snapshot (JSON) and the text
    header's note line name the refusal exactly once (but for ENOTTY on a
    kernel before 6.7, which is only an old kernel, said by the note on
    big mappings read whole);
  - an explicit --pagemap-mode scan is one line on stderr, nothing on
    stdout, exit status 2.
"""

import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

REFUSED = "the PAGEMAP_SCAN ioctl is refused here"
ERRNOS = ("ENOSYS", "ENOTTY", "EPERM", "EINVAL")


def run_under(launcher, err, args):
    """exmtop args under noscan with errno err (launcher None: no
    filter): (status, out, err)."""
    import errno
    import subprocess
    cmd = [exmtop_path()] + list(args)
    if launcher:  # else unfiltered
        cmd = [launcher, str(getattr(errno, err))] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def exmtop_path():
    return os.path.abspath(exmlive.EXMTOP)


# growth since the last snapshot: null in a run's first
DELTA = ("derss",)


def figures(doc):
    """What must not depend on how pages were read: every process (by
    pid) and every file, all their members but the growth."""
    def keep(d):
        return {k: v for k, v in d.items() if k not in DELTA}
    procs = {p["pid"]: keep(p) for p in doc.get("processes", [])}
    files = sorted(json.dumps(keep(f), sort_keys=True)
                   for f in doc.get("files", []))
    return procs, files


def same(c, what, got, want):
    gp, gf = got
    wp, wf = want
    c.eq(sorted(gp), sorted(wp), what + ": processes")
    for pid in sorted(wp):
        g, w = gp.get(pid, {}), wp[pid]
        diff = sorted(k for k in set(g) | set(w) if g.get(k) != w.get(k))
        c.check(not diff, "%s: pid %d: %s differ (%s)" %
                (what, pid, diff, ["%r/%r" % (g.get(k), w.get(k))
                                   for k in diff[:4]]))
    c.eq(len(gf), len(wf), what + ": files")
    c.check(gf == wf, what + ": every file's figures")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap source)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("test_noscan")
    launcher = os.path.abspath(exmlive.plain_program("noscan"))
    has_scan = exmlive.pagemap_scan_supported()
    with tempfile.TemporaryDirectory(prefix="exm-noscan-") as tmp, \
            exmlive.Sharer(tmp, alone=True, program="sparse") as sp, \
            exmlive.frozen(sp.pids):
        pids = ",".join(map(str, sp.pids))
        common = ["-b", "--format", "json", "--scan-pids", pids]
        # read mode's two snapshots: its second locates pages with what
        # the first learnt, and reads fewer mappings whole; the fallback
        # is compared snapshot by snapshot
        rc, out, stderr = run_under(None, None, common + [
            "--pagemap-mode", "read", "-n", "2"])
        wants = [json.loads(line) for line in out.splitlines() if line]
        c.check(rc == 0 and len(wants) == 2 and all(
            len(w.get("processes", [])) == len(sp.pids) for w in wants),
            "read mode lists the workload (%d processes) twice (%s)" %
            (len(sp.pids), stderr.strip()))
        if len(wants) != 2:
            c.done()
        # unfiltered auto mode: the ioctl used, no refusal said
        auto = exmlive.exmtop_json(["--scan-pids", pids])
        c.eq(REFUSED in auto.get("limits", ""), False,
             "unfiltered auto mode: no refusal said")
        if has_scan:
            c.check(auto.get("source_detail", "").startswith("PAGEMAP_SCAN"),
                    "unfiltered auto mode uses PAGEMAP_SCAN (%r)" %
                    auto.get("source_detail"))
        for err in ERRNOS:
            say = err != "ENOTTY" or has_scan
            tag = "[%s]" % err
            rc, out, stderr = run_under(launcher, err, common + ["-n", "2"])
            if not c.eq(rc, 0, "%s auto mode: exit status (%s)" %
                        (tag, stderr.strip())):
                continue
            c.eq(stderr, "", tag + " auto mode: nothing on stderr")
            docs = [json.loads(line) for line in out.splitlines() if line]
            c.eq(len(docs), 2, tag + " auto mode: two snapshots")
            for i, doc in enumerate(docs):
                what = "%s auto mode, snapshot %d" % (tag, i + 1)
                same(c, what + " == read mode's", figures(doc),
                     figures(wants[i]))
                c.check(doc.get("source_detail", "").startswith(
                    "chunked reads"), "%s: source detail %r" %
                    (what, doc.get("source_detail")))
                c.eq(doc.get("limits", "").count(REFUSED), 1 if say else 0,
                     what + ": refusals said in limits (%r)" %
                     doc.get("limits"))
            rc, out, stderr = run_under(launcher, err,
                                        ["-b", "--scan-pids", pids])
            c.eq(rc, 0, tag + " text: exit status")
            notes = [ln for ln in out.splitlines() if ln.startswith("note:")]
            c.eq(sum(ln.count(REFUSED) for ln in notes), 1 if say else 0,
                 tag + " text: the refusal said once in the header (%r)" %
                 notes)
            rc, out, stderr = run_under(
                launcher, err, ["-b", "--pagemap-mode", "scan",
                                "--scan-pids", pids])
            c.eq(rc, 2, tag + " explicit scan mode: exit status")
            c.eq(out, "", tag + " explicit scan mode: nothing on stdout")
            lines = stderr.splitlines()
            c.check(len(lines) == 1 and "PAGEMAP_SCAN" in lines[0] and
                    lines[0].startswith("exmtop: --pagemap-mode scan: "),
                    tag + " explicit scan mode: one line naming the ioctl "
                    "(%r)" % stderr)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

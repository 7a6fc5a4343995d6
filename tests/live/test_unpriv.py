#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test: exmtop as an unprivileged user falls back to smaps.

As root, runs the sharer and exmtop as a user of its own, exmtop-tPID (made
with useradd through tests/live/sysstate.py, removed after even when the
test is killed; override with EXMTOP_TEST_USER) through setpriv, from
copies of exmtop and the sharer that the user can read. Run as a normal
user, it tests as that user. Checks:

  - exit 0, JSON with source "smaps" and a non-empty source_detail;
  - the user's own processes (the four sharer processes) are listed with
    their user name, exact VM and resident sizes (the sharer's layout), the
    kernel's Pss, and erss equal to the sum of per-mapping Pss: between the
    rollup's Pss minus 1 kB per mapping (each mapping's Pss is truncated to
    whole kB) and the rollup's Pss;
  - sole is the kernel's USS (Private_Clean + Private_Dirty of each
    mapping: the documented smaps meaning), exact for the whole process and
    for the sharer's file (its 4 written pages) and memfd (none);
  - writable needs page identity: null, and the text output shows "-";
  - processes of other users, if listed at all, show null for what needs
    their smaps (erss, pss, sole, writable), never 0;
  - as root too: root's processes listed for the user with -u root, in
    text and CSV, show vm and rss (from statm) and "-" (text) or nothing
    (CSV) for every other size field; the smaps source's sole adds
    Private_Clean (a fresh copy of sleep has some) to Private_Dirty.
"""

import csv
import io
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

# a user of this run's own: another run of the test (another checkout on
# the machine) has its processes under its own user, not in our -u list
USER = os.environ.get("EXMTOP_TEST_USER", "exmtop-t%d" % os.getpid())


def ensure_user(ch):
    """The test user, made through sysstate (removed after, also when the
    test is killed) unless it exists already."""
    ch.user(USER)
    return pwd.getpwnam(USER)


def nmaps(pid):
    with open("/proc/%d/maps" % pid) as f:
        return sum(1 for _ in f)


def private_bytes(pid):
    """Sum of Private_Clean + Private_Dirty over smaps mappings, bytes."""
    total = 0
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if w and w[0] in ("Private_Clean:", "Private_Dirty:"):
                total += int(w[1]) * 1024
    return total


def settled(pids, run):
    """run() with the pids' Private_Clean + Private_Dirty read just before
    and just after it, again until the two reads agree (exmlive.settled):
    a page of libc that pid shares with one other process turns private
    when that process exits, and other tests start and end processes all
    the time. Returns (run's result, {pid: private bytes}); None when it
    never held still."""
    return exmlive.settled(lambda: {p: private_bytes(p) for p in pids}, run)


def smaps_pss(pid, name):
    """Sum of the Pss lines (bytes) of pid's mappings named name."""
    total, cur = 0, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if w and "-" in w[0] and not w[0].endswith(":"):
                parts = line.rstrip("\n").split(None, 5)
                cur = parts[5] if len(parts) > 5 else ""
            elif w and w[0] == "Pss:" and cur == name:
                total += int(w[1]) * 1024
    return total


def check_private_clean(c, tmp):
    """sole from smaps adds Private_Clean and Private_Dirty: a fresh copy of
    sleep has page cache pages of its own (Private_Clean > 0) beside its
    dirty ones."""
    exe = os.path.join(tmp, "exmsolecopy")
    shutil.copy(shutil.which("sleep"), exe)
    fd = os.open(exe, os.O_RDONLY)  # written back: clean page cache pages
    os.fsync(fd)
    os.close(fd)
    p = subprocess.Popen([exe, "600"])
    try:
        for _ in range(200):  # until it has mapped and run its program
            with open("/proc/%d/stat" % p.pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "S":
                    break
            time.sleep(0.01)
        clean = 0
        with open("/proc/%d/smaps" % p.pid) as f:
            for line in f:
                w = line.split()
                if w and w[0] == "Private_Clean:":
                    clean += int(w[1]) * 1024
        c.check(clean > 0, "[root smaps] the copy of sleep has "
                "Private_Clean pages: %d" % clean)
        doc, priv = settled([p.pid], lambda: exmlive.exmtop_json(
            ["--bytes", "--source", "smaps", "-p", str(p.pid)]))
        if c.check(priv is not None, "[root smaps] the copy of sleep's "
                   "private pages held still over one exmtop run"):
            got = [x.get("sole") for x in doc.get("processes") or []]
            c.eq(got, [priv[p.pid]], "[root smaps] sole of the copy of "
                 "sleep == Private_Clean + Private_Dirty")
    finally:
        p.kill()
        p.wait()


DENIED_SIZES = ("vm", "rss", "erss", "swap", "eswap", "mapped", "emapped",
                "sole", "writable", "pss", "pss_anon", "pss_file",
                "pss_shmem", "pss_dirty", "swap_pss")


def check_denied(c, user):
    """root's processes, seen by the test user, are denied: text and CSV
    show what statm tells (vm, rss: the README's "only vm and rss") and no
    other size at all, "-" in text and empty in CSV, over every size
    field."""
    fields = ("pid", "ppid") + DENIED_SIZES + ("comm",)
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--format", "csv", "--fields", ",".join(fields), "-u",
         "root"], user=user)
    c.eq(rc, 0, "[denied] csv exit status (%s)" % err.strip())
    rows = list(csv.reader(io.StringIO(out)))
    # every CSV row starts with the snapshot's number and time
    c.eq(rows[0] if rows else None, ["snapshot", "time"] + list(fields),
         "[denied] csv header")
    n = 0
    for r in rows[1:]:
        d = dict(zip(rows[0], r))
        what = "[denied] csv pid %s" % d.get("pid")
        c.check(d.get("vm", "").isdigit() and d.get("rss", "").isdigit(),
                what + " vm and rss from statm: %r" % r)
        c.eq([k for k in DENIED_SIZES[2:] if d.get(k) != ""], [],
             what + " sizes shown that could not be measured")
        n += 1
    c.check(n > 0, "[denied] csv lists root's processes")
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--bytes", "--fields", ",".join(fields), "-u", "root"],
        user=user)
    c.eq(rc, 0, "[denied] text exit status (%s)" % err.strip())
    lines = out.splitlines()
    head = [i for i, ln in enumerate(lines) if ln.split()[:2] == ["PID",
                                                                 "PPID"]]
    if not c.eq(len(head), 1, "[denied] one text header:\n" + out):
        return
    n = 0
    for ln in lines[head[0] + 1:]:
        w = ln.split(None, len(fields) - 1)
        if not w:
            continue
        what = "[denied] text pid %s" % w[0]
        c.check(len(w) == len(fields) and w[2].isdigit() and
                w[3].isdigit(), what + " vm and rss: %r" % ln)
        c.eq([v for v in w[4:len(fields) - 1] if v != "-"], [],
             what + " sizes shown that could not be measured")
        n += 1
    c.check(n > 0, "[denied] text lists root's processes")


def check_text(c, user, pid):
    """Text output: the writable column of our process is "-", effective
    resident and sole are numbers."""
    rc, out, err = exmlive.run_exmtop(
        ["-b", "--bytes", "-p", str(pid), "--fields",
         "pid,erss,sole,writable"], user=user)
    if not c.eq(rc, 0, "text output exit status (%s)" % err.strip()):
        return
    lines = [ln.split() for ln in out.splitlines() if ln.strip()]
    header = None
    for i, words in enumerate(lines):
        low = [w.lower() for w in words]
        if "pid" in low and any(w.startswith("writ") for w in low):
            header = (i, low)
    if not c.check(header is not None, "text header with PID and SOLE:\n" +
                   out):
        return
    i, low = header
    row = [w for w in lines[i + 1:] if w and w[0] == str(pid)]
    if not c.eq(len(row), 1, "one text row for pid %d" % pid):
        return
    row = row[0]
    if not c.eq(len(row), len(low), "text row width: %r" % row):
        return
    cols = dict(zip(low, row))
    wr = [v for k, v in cols.items() if k.startswith("writ")]
    c.eq(wr, ["-"], "text writable shows '-'")
    for title in ("sole", "eff"):
        v = [v for k, v in cols.items() if k.startswith(title)]
        c.check(len(v) == 1 and v[0].isdigit(), "text %s measured: %r" %
                (title, v))


def check_sharer(c, sh, args, user, name, tag):
    """The sharer's four processes in a smaps-source document: exmtop's
    JSON with args, run as user. Returns the document's processes."""
    ps = sh.page_size
    doc, priv = settled(sh.pids, lambda: exmlive.exmtop_json(args,
                                                             user=user))
    c.check(priv is not None, tag + " the sharer's private pages held "
            "still over one exmtop run")
    c.eq(doc.get("source"), "smaps", tag + " source is smaps")
    c.check(bool(doc.get("source_detail")), "%s source_detail: %r" %
            (tag, doc.get("source_detail")))
    c.eq(doc.get("page_size"), ps, tag + " page_size")
    procs = {p.get("pid"): p for p in doc.get("processes") or []}
    vm = {0: 5 + 7 + 3 + 9 + 22 + 13, 1: 5 + 7 + 3 + 9 + 11 + 13,
          2: 5 + 7 + 3 + 9 + 11 + 13, 3: 5 + 7 + 3 + 11 + 13}
    for i, pid in enumerate(sh.pids):
        p = procs.get(pid)
        what = "%s sharer %d (pid %d)" % (tag, i, pid)
        if not c.check(p is not None, what + " listed"):
            continue
        c.eq(p.get("user"), name, what + " user")
        # smaps_rollup now; libc is shared with every process that starts
        # or exits meanwhile (exmtop, other tests): file Pss moves, allow
        # half of it. Anonymous and shmem Pss: exact, and Pss_Dirty too
        # (the sharer's program and file are written back before they are
        # mapped: exmlive.written_back, sharer.c).
        roll = exmlive.read_rollup(pid)
        for k in ("pss_anon", "pss_shmem", "pss_dirty", "swap_pss"):
            c.eq(p.get(k), roll[k], "%s %s" % (what, k))
        for k in ("pss", "pss_file"):
            g = p.get(k)
            c.check(g is not None and
                    abs(g - roll[k]) <= roll["pss_file"] / 2 + 1024,
                    "%s %s %r vs smaps_rollup %d" %
                    (what, k, g, roll[k]))
        c.eq(p.get("rss"), roll["rss"], what + " rss == Rss")
        # erss sums each mapping's Pss (whole kB each, so up to 1 kB less
        # per mapping) from smaps, read a moment apart from the rollup; file
        # Pss may move in between (see above).
        erss, pss = p.get("erss"), p.get("pss") or 0
        churn = (p.get("pss_file") or roll["pss_file"]) / 2
        lo = pss - 1024 * nmaps(pid) - churn
        c.check(erss is not None and lo < erss <= pss + churn,
                "%s erss %r in (%d, %d]" % (what, erss, lo, pss + churn))
        if priv is not None:
            c.eq(p.get("sole"), priv[pid],
                 what + " sole == smaps Private_Clean + Private_Dirty")
        c.eq(p.get("writable"), None, what + " writable is null")
        rows = p.get("files") or []
        for r, pages, sole in (("file", 13, 4),
                               ("memfd", 22 if i == 0 else 11, 0)):
            fname = sh.file_name if r == "file" else \
                "/memfd:exm_sharer (deleted)"
            f = [x for x in rows if x.get("file") == fname]
            if c.eq(len(f), 1, "%s one %s row" % (what, r)):
                c.eq(f[0].get("vm"), pages * ps, "%s %s vm" % (what, r))
                c.eq(f[0].get("rss"), pages * ps, "%s %s rss" % (what, r))
                c.eq(f[0].get("sole"), sole * ps, "%s %s sole" % (what, r))
                # the sharer's own pages, mapped by nobody else and still:
                # erss is exactly the sum of its mappings' smaps Pss
                # (smaps names the file as maps does: a newline as \012)
                c.eq(f[0].get("erss"),
                     smaps_pss(sh.pids[i], sh.file_path if r == "file"
                               else fname),
                     "%s %s erss == sum of smaps Pss" % (what, r))
                c.eq(f[0].get("writable"), None,
                     "%s %s writable null" % (what, r))
        total_vm = sum(x.get("vm") or 0 for x in rows)
        c.eq(total_vm, p.get("vm"), what + " vm == sum of files")
        c.check(p.get("vm", 0) >= vm[i] * ps, what + " vm covers the "
                "regions")
    return procs


def main():
    c = exmlive.Checker("live unprivileged")
    root = os.geteuid() == 0
    if root:
        with sysstate.Changes("test_unpriv") as ch:
            run(c, ch)
    else:
        run(c, None)
    c.done()


def run(c, ch):
    tmp = tempfile.mkdtemp(prefix="exm-unpriv-", dir="/var/tmp")
    root = ch is not None
    try:
        if root:
            pw = ensure_user(ch)
            os.chown(tmp, pw.pw_uid, pw.pw_gid)
            user, name = USER, USER
        else:
            user, name = None, pwd.getpwuid(os.geteuid()).pw_name
        with exmlive.Sharer(tmp, user=user) as sh:
            # As the user: automatic fallback to smaps.
            procs = check_sharer(c, sh, ["--bytes"], user, name, "[user]")
            others = [p for p in procs.values() if p.get("user") != name]
            for p in others:
                for k in ("erss", "pss", "sole", "writable"):
                    c.check(p.get(k) is None, "other user's pid %s (%s) %s "
                            "is null, got %r" % (p.get("pid"), p.get("user"),
                                                 k, p.get(k)))
            print("%d processes listed, %d of other users" %
                  (len(procs), len(others)), flush=True)
            check_text(c, user, sh.pids[0])
            if root:
                check_denied(c, user)
            if root:
                pids = ",".join(str(p) for p in sh.pids)
                # As root, smaps on request, for given pids.
                procs = check_sharer(c, sh, ["--bytes", "--source", "smaps",
                                             "-p", pids], None, name,
                                     "[root smaps]")
                c.eq(sorted(procs), sorted(sh.pids),
                     "[root smaps] -p lists exactly the sharer")
                # As root, -u USER: pagemap, exactly the user's processes.
                doc = exmlive.exmtop_json(["--bytes", "-u", USER])
                c.eq(doc.get("source"), "pagemap", "[root -u] source")
                c.eq(sorted(p.get("pid") for p in doc.get("processes", [])),
                     sorted(sh.pids), "[root -u %s] lists exactly the "
                     "sharer" % USER)
                check_private_clean(c, tmp)
                rc, _, err = exmlive.run_exmtop(
                    ["-b", "-u", "exm-no-such-user"])
                c.eq(rc, 2, "-u unknown user exits 2 (%s)" % err.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    exmlive.run_main(main)

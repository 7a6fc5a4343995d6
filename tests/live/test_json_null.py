#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test: unprivileged JSON says null for everything it did not measure.

As root, runs exmtop as the user `exmtop-test` (made through sysstate.py
when absent, removed after) from a copy that user can run (exmlive.user_copy),
with a process of that user running (its own, measurable through smaps).
Every field of every JSON document is classified as measured or not from
what an unprivileged run can know, and checked both ways:

  - the snapshot: no page identity, so distinct_pages and distinct_swap
    are null (not 0), and so are the totals of what needs it (writable,
    ksm, ksm_saved, zero, ehugetlb), every other total a number;
  - a process of another user (denied): nmaps, every size but the vm and
    rss that /proc/PID/stat gives anyone, every kernel figure, derss and
    its files are null; the text table shows "-" for its NMAP;
  - the user's own process: every size and kernel figure is a number
    (writable, ksm and the exclusive figures are null: they need page
    identity), nmaps equals
    the lines of its /proc/PID/maps, and with -n 2 its derss is a number;
  - the reports (--breakdown, --units, --alerts, --system) and --files:
    what is not measured is null, the system view says why it is missing.
"""

import json
import os
import pwd
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

USER = os.environ.get("EXMTOP_TEST_USER", "exmtop-test")

# What anyone may read of any process (its identity, vm and rss from
# /proc/PID/stat, the OOM scores from /proc/PID/oom_score and
# oom_score_adj, readable by all), and the state.
ANYONE = ("pid", "ppid", "user", "comm", "cmd", "vm", "rss", "state", "oom",
          "oom_adj")
# Needs page identity: never measured through smaps.
NEEDS_PFN = ("writable", "ksm", "ksm_saved", "zero", "ehugetlb", "freed",
             "cached", "shmem_excl")
# Exclusive memory: a process's or a group's, not a file's across
# processes (no such column in --files).
EXCLUSIVE = ("freed", "cached", "shmem_excl")
# Needs a previous snapshot.
NEEDS_PREV = ("derss", "change")


def run_json(args, c, what, want_rc=0):
    rc, out, err = run_as(["-b", "--format", "json"] + args)
    if not c.eq(rc, want_rc, "%s exit status (%s)" % (what, err.strip())):
        return []
    try:
        return [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    except ValueError as e:
        c.check(False, "%s: bad JSON (%s)" % (what, e))
        return []


def run_as(args):
    """exmtop as USER (a copy USER can run: exmlive.user_copy), from /."""
    return exmlive.run_exmtop(args, user=USER, timeout=300, cwd="/")


def owner(pid):
    """The uid of a process, None once it is gone."""
    try:
        return os.stat("/proc/%d" % pid).st_uid
    except OSError:
        return None


def check_snapshot(c, snap, what):
    c.eq(snap.get("source"), "smaps", what + " source")
    for k in ("distinct_pages", "distinct_swap"):
        c.check(k in snap and snap[k] is None,
                "%s %s is null (no page identity), got %r" %
                (what, k, snap.get(k)))
    tot = snap.get("totals") or {}
    for k in NEEDS_PFN:
        if k in EXCLUSIVE:  # the totals are the files' table's sizes
            c.check(k not in tot, "%s totals have no %s" % (what, k))
            continue
        c.check(k in tot and tot[k] is None,
                "%s totals.%s is null, got %r" % (what, k, tot.get(k)))
    for k in ("vm", "rss", "erss", "swap", "eswap", "mapped", "emapped",
              "sole", "hugetlb"):
        c.check(tot.get(k) is not None,
                "%s totals.%s measured, got %r" % (what, k, tot.get(k)))


def check_procs(c, doc, own_pid, with_prev, what):
    procs = doc.get("processes") or []
    denied = [p for p in procs if p.get("state") == "denied"]
    own = [p for p in procs if p.get("pid") == own_pid]
    c.check(len(denied) > 0, "%s: processes of other users listed" % what)
    bad = []
    for p in denied:
        for k, v in p.items():
            if k not in ANYONE and v is not None:
                bad.append("pid %s %s=%r" % (p.get("pid"), k, v))
    c.check(not bad, "%s: everything not measured of denied processes is "
            "null (%d processes): %s" % (what, len(denied), bad[:10]))
    if not c.eq(len(own), 1, "%s: own process %d listed" % (what, own_pid)):
        return
    p = own[0]
    for k, v in p.items():
        if k in NEEDS_PFN or (k in NEEDS_PREV and not with_prev):
            c.check(v is None, "%s own %s is null, got %r" % (what, k, v))
        elif k == "change" and with_prev:
            continue  # null for a process seen in both: nothing changed
        else:
            c.check(v is not None, "%s own %s measured, got null" %
                    (what, k))
    with open("/proc/%d/maps" % own_pid) as f:
        c.eq(p.get("nmaps"), sum(1 for _ in f), what + " own nmaps")
    files = p.get("files")
    c.check(isinstance(files, list) and len(files) > 0,
            "%s own files listed" % what)
    for fr in files or []:
        c.check(all(fr.get(k, 0) is None for k in NEEDS_PFN) and
                fr.get("erss") is not None,
                "%s own file %s: erss measured, writable null: %r" %
                (what, fr.get("file"), fr))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (runs exmtop as another user)")
        sys.exit(77)
    c = exmlive.Checker("live JSON nulls")
    sleeper = None
    try:
        with sysstate.Changes("test_json_null") as ch:
            ch.user(USER)
            pw = pwd.getpwnam(USER)
            sleeper = subprocess.Popen(
                ["setpriv", "--reuid=" + USER, "--regid=" + USER,
                 "--init-groups", "--", "/bin/sleep", "300"])
            # setpriv execs sleep: the same pid, once it is USER's
            for _ in range(200):
                if os.stat("/proc/%d" % sleeper.pid).st_uid == pw.pw_uid:
                    break
                subprocess.run(["sleep", "0.01"])
            own = sleeper.pid

            docs = run_json(["--bytes"], c, "[table]")
            for d in docs:
                check_snapshot(c, d, "[table]")
                check_procs(c, d, own, False, "[table]")
            docs = run_json(["-n", "2", "-d", "0.2"], c, "[-n 2]")
            if c.eq(len(docs), 2, "[-n 2] two documents"):
                check_snapshot(c, docs[1], "[-n 2]")
                check_procs(c, docs[1], own, True, "[-n 2]")
            for d in run_json(["--files"], c, "[files]"):
                check_snapshot(c, d, "[files]")
                fs = d.get("files") or []
                c.check(len(fs) > 0 and all(
                    all(f.get(k, 0) is None for k in NEEDS_PFN
                        if k not in EXCLUSIVE) and
                    not any(k in f for k in EXCLUSIVE) and
                    f.get("erss") is not None for f in fs),
                    "[files] every file: erss measured; writable, ksm "
                    "null")
            for rep in ("breakdown", "units", "alerts", "system"):
                # no system view without page identity: said, exit 1
                for d in run_json(["--" + rep], c, "[%s]" % rep,
                                  1 if rep == "system" else 0):
                    check_snapshot(c, d.get("snapshot") or {},
                                   "[%s]" % rep)
                    rows = d.get(rep)
                    c.check(isinstance(rows, list), "[%s] rows" % rep)
                    if rep == "breakdown":
                        pids = [r.get("pid") for r in rows]
                        c.check(own in pids and all(
                            owner(p) in (pw.pw_uid, None) for p in pids),
                            "[breakdown] the user's own processes only "
                            "(%d among %r)" % (own, pids))
                        for r in rows:
                            c.check(r.get("erss") is not None and
                                    r.get("heap", 0) is None,
                                    "[breakdown] erss measured, parts "
                                    "(page ranges) null: %r" % r)
                    if rep == "system":
                        c.eq(rows, [], "[system] no rows without page "
                             "identity")
                        c.check(any("page identity" in n
                                    for n in d.get("notes") or []),
                                "[system] says why: %r" % d.get("notes"))
            # the text table: "-" where JSON says null
            rc, out, err = run_as(["-b", "-p", "1", "--fields",
                                   "pid,nmaps,erss"])
            rows = [ln.split() for ln in out.splitlines()
                    if ln.split()[:1] == ["1"]]
            c.check(rc == 0 and rows == [["1", "-", "-"]],
                    "text row of pid 1: NMAP and EFF.RES '-': %r (%s)" %
                    (rows, err.strip()))
    finally:
        if sleeper is not None:
            sleeper.kill()
            sleeper.wait()
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

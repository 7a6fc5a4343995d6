#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Recordings through the exmtop binary (root; SKIP otherwise).

- Round trip: `exmtop -b --record F --format json -n 2` prints what it
  records; `exmtop -b --replay F --format json` prints every recorded
  snapshot with every figure equal (only source_detail, which says
  "replay k/N", differs).
- Diff: a grower (tests/live/grower.c) maps and writes exactly 256 pages
  between two recorded snapshots; `--diff F` (and `--diff A B` of two
  files, and --from/--to) shows exactly that growth of its resident,
  effective resident, VM, sole and writable, a process started in between as new and one
  ended in between as gone, in JSON, CSV and text.
- System view of a replay: `exmtop -b --record F --system --format json
  -n 2` prints the system view of each snapshot it records; `--replay F
  --system` gives the very same rows for each (from the /proc/meminfo
  recorded with it), in JSON and CSV; the rows add up to MemTotal (this
  machine's), user_space is the sum of effective resident (of the replayed
  processes too), and the file holds /proc/meminfo's rows.
- ELF of a replay: --sections of libc in a replay resolves the file on
  disk (state ok); under an empty --sysroot it says the file is not there
  instead of showing sections.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def exm(*args):
    r = subprocess.run([exmlive.EXMTOP, *args], capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("exmtop %s: %d %s" % (args, r.returncode,
                                                  r.stderr))
    return r.stdout


def docs(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def grower_path():
    src = os.path.join(exmlive.SRCDIR, "grower.c")
    out = os.path.join("tests", "live", "grower-plain")
    if not (os.path.exists(out) and
            os.path.getmtime(out) >= os.path.getmtime(src)):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = "%s.%d" % (out, os.getpid())
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-D_GNU_SOURCE",
                        "-o", tmp, src], check=True)
        os.rename(tmp, out)
    return "./" + out


def round_trip(tmp):
    rec = os.path.join(tmp, "rt.exmrec")
    live = docs(exm("-b", "--record", rec, "--format", "json", "-n", "2",
                    "-d", "0.3"))
    replay = docs(exm("-b", "--replay", rec, "--format", "json"))
    check(len(live) == 2 and len(replay) == 2,
          "two snapshots recorded and replayed")
    for k, (a, b) in enumerate(zip(live, replay)):
        check("replay %d/2" % (k + 1) in b["source_detail"],
              "replay says which snapshot")
        a.pop("source_detail")
        b.pop("source_detail")
        check(len(a["processes"]) > 10, "a full snapshot")
        # the OOM scores are recorded (schema 4): replayed as they were
        # read (a == b below compares the values)
        scored = [[p["pid"] for p in d["processes"]
                   if p.get("oom") is not None] for d in (a, b)]
        check(len(scored[0]) > 10 and scored[0] == scored[1],
              "snapshot %d: OOM scores replayed (%d of %d live)" %
              (k, len(scored[1]), len(scored[0])))
        check(a == b, "snapshot %d: replay equals what was recorded" % k)
        if a != b:
            for key in a:
                if a[key] != b.get(key):
                    print("  differs:", key)
    # -n and --from on a replay
    one = docs(exm("-b", "--replay", rec, "--format", "json", "--from",
                   "2"))
    check(len(one) == 1 and "replay 2/2" in one[0]["source_detail"],
          "--from 2 replays the second snapshot only")


def by_pid(rows):
    return {r["pid"]: r for r in rows}


def diff_checks(doc, gpid, newpid, gonepid, grow, what):
    procs = by_pid(doc["processes"])
    g = procs.get(gpid)
    check(g is not None and g["change"] == "same", what + ": grower same")
    if g:
        for key in ("vm", "rss", "erss", "mapped", "emapped", "sole",
                    "writable"):
            check(g[key] == grow, "%s: grower %s grew %s, want %d" %
                  (what, key, g[key], grow))
        check(g["swap"] == 0 and g["eswap"] == 0, what + ": no swap growth")
    n = procs.get(newpid)
    check(n is not None and n["change"] == "new" and n["rss"] > 0,
          what + ": the process started in between is new")
    o = procs.get(gonepid)
    check(o is not None and o["change"] == "gone" and o["rss"] < 0,
          what + ": the process ended in between is gone")
    # sorted by growth of effective resident
    erss = [p["erss"] for p in doc["processes"] if p["erss"] is not None]
    check(erss == sorted(erss, reverse=True), what + ": sorted by erss")


def diff(tmp):
    one = os.path.join(tmp, "d.exmrec")
    a = os.path.join(tmp, "a.exmrec")
    b = os.path.join(tmp, "b.exmrec")
    page = os.sysconf("SC_PAGE_SIZE")
    g = subprocess.Popen([grower_path()], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    # static sleepers, and only these processes scanned: nothing shares
    # a page with the grower, so its growth is exactly what it wrote
    gone = subprocess.Popen(["/bin/busybox", "sleep", "300"])
    new = None
    try:
        check(g.stdout.readline().strip() == "ready", "grower ready")
        for f in (one, a):
            exm("--record", f, "-n", "1", "--scan-pids",
                "%d,%d" % (g.pid, gone.pid))
        gone.kill()
        gone.wait()
        g.stdin.write("256\n")
        g.stdin.flush()
        check(g.stdout.readline().strip() == "grown", "grower grown")
        new = subprocess.Popen(["/bin/busybox", "sleep", "300"])
        for f in (one, b):
            exm("--record", f, "-n", "1", "--scan-pids",
                "%d,%d" % (g.pid, new.pid))
        grow = 256 * page
        d = json.loads(exm("--diff", one, "--format", "json"))
        check(d["from"]["snapshot"] == 1 and d["to"]["snapshot"] == 2,
              "default: first to last")
        diff_checks(d, g.pid, new.pid, gone.pid, grow, "--diff FILE")
        d = json.loads(exm("--diff", one, "--from", "1", "--to", "2",
                           "--format", "json"))
        diff_checks(d, g.pid, new.pid, gone.pid, grow, "--from 1 --to 2")
        d = json.loads(exm("--diff", a, b, "--format", "json"))
        diff_checks(d, g.pid, new.pid, gone.pid, grow, "--diff A B")
        files = {(f["kind"], f["file"]): f for f in d["files"]}
        anon = files.get(("anon", "[anon]"))
        # (other processes of the machine change it too: no figure)
        check(anon is not None and anon["change"] == "same",
              "files: anonymous memory is in both")
        ferss = [f["erss"] for f in d["files"] if f["erss"] is not None]
        check(ferss == sorted(ferss, reverse=True),
              "files sorted by erss")
        csv = exm("--diff", one, "--format", "csv", "--bytes").splitlines()
        check(csv[0].startswith("pid,change,"), "CSV header")
        row = [r for r in csv if r.startswith("%d," % g.pid)]
        check(len(row) == 1 and ",same," in row[0] and
              (",%d," % grow) in row[0], "CSV row of the grower")
        text = exm("--diff", one, "--bytes")
        check(text.startswith("diff: ") and " new, " in text,
              "text summary line")
        check(any(line.split()[:2] == [str(new.pid), "new"]
                  for line in text.splitlines()), "text: new process")
        # a time picks the last snapshot taken at or before it; one
        # before the first snapshot is refused (it meant snapshot 1)
        d = json.loads(exm("--diff", one, "--to", "@99999999999",
                           "--format", "json"))
        check(d["from"]["snapshot"] == 1 and d["to"]["snapshot"] == 2,
              "--to by time")
        r = subprocess.run([exmlive.EXMTOP, "--diff", one, "--from", "@1"],
                           capture_output=True, text=True)
        check(r.returncode == 2 and not r.stdout and
              len(r.stderr.strip().split("\n")) == 1,
              "--from before the first snapshot: one line, status 2")
    finally:
        g.kill()
        gone.kill()
        if new:
            new.kill()


def system(tmp):
    rec = os.path.join(tmp, "sys.exmrec")
    live = docs(exm("-b", "--record", rec, "--system", "--format", "json",
                    "-n", "2", "-d", "0.3"))
    replay = docs(exm("-b", "--replay", rec, "--system", "--format",
                      "json"))
    with open("/proc/meminfo") as f:
        mt = int(f.readline().split()[1]) * 1024
    check(len(live) == 2 and len(replay) == 2,
          "system view of two snapshots, recorded and replayed")
    for k, (a, b) in enumerate(zip(live, replay)):
        rows = [(r["name"], r["bytes"]) for r in a["system"]]
        check(len(rows) == 19, "snapshot %d: all the rows live" % k)
        check(b["system"] == a["system"] and
              b["mem_total"] == a["mem_total"],
              "snapshot %d: replay rows equal the live ones: %r / %r" %
              (k, a["system"], b["system"]))
        check(a["mem_total"] == mt and
              sum(v for _, v in rows) == mt,
              "snapshot %d: rows sum to MemTotal" % k)
        snap = b["snapshot"]
        user = dict(rows)["user_space"]
        check(user == snap["distinct_pages"] * snap["page_size"] and
              abs(user - snap["totals"]["erss"]) <= 1.0,
              "snapshot %d: user_space %d = the sum of effective "
              "resident %s" % (k, user, snap["totals"]["erss"]))
    procs = docs(exm("-b", "--replay", rec, "--format", "json", "-n", "1"))
    # (a process that could not be read has no erss: it is not scanned)
    erss = sum(p["erss"] for p in procs[0]["processes"]
               if p["erss"] is not None)
    user = {r["name"]: r["bytes"] for r in replay[0]["system"]}
    check(abs(user["user_space"] - erss) <= 1.0,
          "user_space %d = the replayed processes' erss %s" %
          (user["user_space"], erss))
    # the second snapshot's, in CSV too
    csv = exm("-b", "--replay", rec, "--from", "2", "--system", "--format",
              "csv", "--bytes").splitlines()
    check(csv[0] == "snapshot,time,name,bytes", "CSV header %r" % csv[0])
    # every row says it is the recording's snapshot 2, and when
    got = [tuple(ln.split(",")) for ln in csv[1:]]
    want = [("2", live[1]["snapshot"]["time"], r["name"], str(r["bytes"]))
            for r in live[1]["system"]]
    check(got == want, "CSV of snapshot 2: %r / %r" % (got, want))
    db = sqlite3.connect(rec)
    try:
        n, = db.execute("SELECT meminfo FROM snapshot WHERE id = 1"
                        ).fetchone()
        kb, = db.execute("SELECT value FROM meminfo WHERE snapshot = 1 "
                         "AND key = 'MemTotal' AND unit = 'kB'"
                         ).fetchone()
        ver, = db.execute("PRAGMA user_version").fetchone()
        # exmtop's own rows: with swap cache in use (kpageflags.h), and
        # every huge page size's use (meminfo.h)
        own, = db.execute("SELECT count(*) FROM meminfo WHERE snapshot = "
                          "1 AND key IN ('SwapCached(mapped)', "
                          "'HugetlbUsed(sysfs)')").fetchone()
        hu, = db.execute("SELECT count(*) FROM meminfo WHERE snapshot = "
                         "1 AND key = 'HugetlbUsed(sysfs)' AND unit = "
                         "'kB'").fetchone()
    finally:
        db.close()
    with open("/proc/meminfo") as f:
        nlines = len(f.read().splitlines())
    check(hu == 1, "the file holds the row of huge pages in use of every "
          "size (HugetlbUsed(sysfs), kB): %d" % hu)
    check(ver == 4 and n == nlines + own and kb * 1024 == mt,
          "the file holds every row of /proc/meminfo: %d of %d, "
          "MemTotal %d kB, schema %d" % (n, nlines, kb, ver))


def elf(tmp):
    rec = os.path.join(tmp, "elf.exmrec")
    exm("--record", rec, "-n", "1")
    libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    d = json.loads(exm("-b", "--replay", rec, "--sections", libc,
                       "--format", "json"))
    check(d["state"] == "ok" and len(d["sections"]) > 10,
          "sections of libc in a replay")
    root = os.path.join(tmp, "root")
    os.mkdir(root)
    d = json.loads(exm("-b", "--replay", rec, "--sections", libc,
                       "--sysroot", root, "--format", "json"))
    check(d["state"] != "ok" and root in d.get("why", ""),
          "an empty sysroot says the file is not there: %s" % d.get("why"))
    t = exm("-b", "--replay", rec, "--sections", libc, "--sysroot", root)
    check(root in t, "text says why too")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (page frames)")
        sys.exit(exmlive.SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        round_trip(tmp)
        diff(tmp)
        system(tmp)
        elf(tmp)
    if FAILS:
        sys.exit(1)
    print("ok")


exmlive.run_main(main)

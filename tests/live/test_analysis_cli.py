#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test of the analyses through the real exmtop binary (root; SKIP
otherwise): what test_analysis.py checks on core through its driver, here
as a user gets it from `exmtop -b --alerts|--units|--breakdown|--system`,
`--pagemap FILE` and `--format openmetrics` (JSON parsed, promtool run).
The same test programs and libraries, built by test_analysis.build().

  - four processes loading the non-PIC library: one text-copies alert
    naming it with (4 - 1) x the relocated pages; none for the PIC build;
  - per-unit totals of both libraries: processes, text/data/bss virtual
    sizes from the ELF headers, all resident, effective as the sharing
    implies;
  - the per-file strip (--pagemap FILE) of both: every loaded page held by
    the four processes, nothing else;
  - the breakdown: parts add up to each process's effective resident;
  - anagrow grows its heap by 8 MiB between the two snapshots of -n 2:
    one anon-growth alert with exactly that amount (and -n 1 says growth
    was not checked);
  - the system view: rows sum to MemTotal (/proc/meminfo's), user space
    is the distinct pages the scan found, the sum of effective resident;
  - OpenMetrics with a hostile process name (quote, backslash, newline,
    brace, invalid UTF-8) passes promtool, on stdout and through
    --output (no temporary file left behind); root's group is summed
    (test_analysis.check_om).
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import test_analysis as ta  # noqa: E402

PS = ta.PS
NPROCS = ta.NPROCS


def report(args):
    rc, out, err = exmlive.run_exmtop(["-b", "--format", "json"] + args)
    if rc != 0:
        raise RuntimeError("exmtop %s exited %d: %s" % (args, rc, err))
    docs = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    return docs


def check_alerts_units(c, bins, procs):
    pids = ",".join(str(p.pid) for p in procs)
    d = report(["--alerts", "-p", pids])[0]
    c.eq(d["snapshot"]["report"], "alerts", "report name")
    text = [a for a in d["alerts"] if a["kind"] == "text-copies"]
    pages = ta.text_reloc_pages(bins["textrel"])
    if c.eq(len(text), 1, "one text-copies alert: %r" % d["alerts"]):
        a = text[0]
        c.eq(a["subject"], bins["textrel"], "names the non-PIC library")
        c.eq(a["bytes"], (NPROCS - 1) * len(pages) * PS,
             "bytes sharing would save: (%d - 1) x %d pages" %
             (NPROCS, len(pages)))
        c.eq(a["pid"], None, "a file's alert has no pid")
        c.check("DT_TEXTREL" in a["explanation"], a["explanation"])
    c.check(any("anon-growth not checked" in n and "-n 2" in n
                for n in d["notes"]), "-n 1 says growth needs -n 2: %r" %
            d["notes"])

    d = report(["--units", "-p", pids])[0]
    units = {u["file"]: u for u in d["units"]}
    for kind in ("pic", "textrel"):
        u = units.get(bins[kind])
        if not c.check(u is not None, "unit row of %s" % kind):
            continue
        vt, vd, vb = ta.expected_vm(bins[kind])
        c.eq(u["procs"], NPROCS, "%s: processes" % kind)
        c.eq(u["sections"], "sections", "%s: split by sections" % kind)
        for seg, v in (("text", vt), ("data", vd), ("bss", vb)):
            c.eq(u[seg + "_vm"], NPROCS * v, "%s: %s vm" % (kind, seg))
            c.eq(u[seg + "_rss"], NPROCS * v,
                 "%s: %s all resident" % (kind, seg))
        r = len(ta.text_reloc_pages(bins[kind])) * PS \
            if kind == "textrel" else 0
        c.near(u["text_erss"], vt - r + NPROCS * r, ta.EFF_TOL,
               "%s: text effective resident" % kind)
        c.near(u["data_erss"], NPROCS * vd, ta.EFF_TOL,
               "%s: data effective resident" % kind)
        c.near(u["bss_erss"], NPROCS * vb, ta.EFF_TOL,
               "%s: bss effective resident" % kind)
        c.near(u["erss"], u["text_erss"] + u["data_erss"] + u["bss_erss"],
               ta.EFF_TOL, "%s: total = text + data + bss" % kind)

        s = report(["--pagemap", bins[kind]])[0]
        want = set()
        for off, vaddr, filesz, memsz, fl in ta.loads(bins[kind]):
            want.update(range(ta.rd(off) // PS, ta.ru(off + filesz) // PS))
        c.eq(s["processes"], NPROCS, "%s strip: processes" % kind)
        c.eq(s["pages"], max(want) + 1, "%s strip: length" % kind)
        c.eq(s["mapped_pages"], len(want), "%s strip: mapped" % kind)
        c.eq(s["resident_pages"], len(want), "%s strip: resident" % kind)
        c.eq(s["procs_per_page"],
             [NPROCS if i in want else 0 for i in range(s["pages"])],
             "%s strip: the four hold every loaded page" % kind)
        perms = {g["perms"] for g in s["segments"]}
        c.check({"r-xp", "rw-p", "r--p"} <= perms,
                "%s strip: segments %r" % (kind, s["segments"]))

    d = report(["--breakdown", "-p", pids])[0]
    rows = d["breakdown"]
    c.eq(sorted(r["pid"] for r in rows), sorted(p.pid for p in procs),
         "one breakdown row per process")
    parts = ("stack", "heap", "prog_text", "prog_data", "prog_bss",
             "lib_text", "lib_data", "lib_bss", "anon", "other")
    for r in rows:
        c.near(sum(r[k] for k in parts), r["erss"], ta.EFF_TOL,
               "pid %d: parts add up to effective resident" % r["pid"])
        c.check(r["lib_bss"] > 0 and r["prog_text"] > 0,
                "pid %d: library bss and program text: %r" % (r["pid"], r))


def check_growth(c, bins):
    g = ta.start([bins["grow"], str(ta.GROW)])
    try:
        d = subprocess.Popen([exmlive.EXMTOP, "-b", "--alerts", "--format",
                              "json", "-n", "2", "-d", "3", "-p",
                              str(g.pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = json.loads(d.stdout.readline())
        c.eq([a for a in first["alerts"] if a["kind"] == "anon-growth"], [],
             "no growth in the first snapshot")
        g.send_signal(10)  # SIGUSR1: grow now, before the second snapshot
        c.eq(g.stdout.readline(), b"grown\n", "the heap grew")
        out, err = d.communicate(timeout=300)
        c.eq(d.returncode, 0, "exit status (%r)" % err)
        second = json.loads(out)
        alerts = [a for a in second["alerts"] if a["kind"] == "anon-growth"]
        if c.eq(len(alerts), 1, "one growth alert: %r" % second["alerts"]):
            c.eq(alerts[0]["pid"], g.pid, "the growing process")
            c.eq(alerts[0]["bytes"], ta.GROW,
                 "grown by exactly %d bytes" % ta.GROW)
            c.check("grew by %d bytes" % ta.GROW in
                    alerts[0]["explanation"], alerts[0]["explanation"])
    finally:
        g.kill()
        g.wait()


def check_system(c):
    d = report(["--system"])[0]
    rows = {r["name"]: r["bytes"] for r in d["system"]}
    c.eq(sum(rows.values()), d["mem_total"], "rows sum to mem_total")
    with open("/proc/meminfo") as f:
        mt = int(f.readline().split()[1]) * 1024
    c.eq(d["mem_total"], mt, "mem_total is /proc/meminfo's MemTotal")
    snap = d["snapshot"]
    c.eq(rows["user_space"], snap["distinct_pages"] * snap["page_size"],
         "user space = the distinct pages scanned")
    c.near(rows["user_space"], snap["totals"]["erss"], 1.0,
           "user space = the sum of effective resident")
    c.check(all(v >= 0 for k, v in rows.items() if k != "unexplained"),
            "only unexplained may be negative: %r" % rows)
    rc, out, err = exmlive.run_exmtop(["-b", "--system", "--format", "csv"])
    lines = out.splitlines()
    c.eq(lines[0], "snapshot,time,name,bytes", "CSV header")
    csv = {}
    for ln in lines[1:]:
        num, when, name, val = ln.split(",")
        c.check(num == "1" and when.endswith("Z"),
                "CSV row of snapshot 1 with its time: %r" % ln)
        csv[name] = val
    c.eq(sum(int(v) for v in csv.values()), mt, "CSV rows sum to MemTotal")


def check_openmetrics(c, tmp):
    p = ta.start_hostile(tmp)
    try:
        r = subprocess.run([exmlive.EXMTOP, "-b", "--format", "openmetrics",
                            "--top", "100000"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300)
        c.eq(r.returncode, 0, "exit status (%r)" % r.stderr)
        text = ta.check_om(c, r.stdout, p.pid, "stdout")
        c.check("exmtop_system_bytes{row=\"user_space\"}" in text,
                "the system view is exported")
        # the textfile collector's way: --output, temporary file renamed
        out = os.path.join(tmp, "exmtop.prom")
        r = subprocess.run([exmlive.EXMTOP, "-b", "--format", "openmetrics",
                            "--top", "5", "--output", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=300)
        c.eq((r.returncode, r.stdout), (0, b""), "--output: nothing on "
             "stdout (%r)" % r.stderr)
        with open(out, "rb") as f:
            data = f.read()
        ta.promtool(c, data, "--output")
        c.eq(oct(os.stat(out).st_mode & 0o777), "0o644",
             "readable by the collector")
        c.eq([n for n in os.listdir(tmp) if n.startswith("exmtop.prom.")],
             [], "no temporary file left")
        nproc = sum(1 for ln in data.decode().splitlines()
                    if ln.startswith("exmtop_process_effective_resident_"
                                     "bytes{"))
        c.eq(nproc, 5, "--top 5: five processes")
    finally:
        ta.stop_hostile(p)


def main():
    c, tmp, bins, procs = ta.setup("analyses through exmtop",
                                   "exm-anacli-")
    try:
        check_alerts_units(c, bins, procs)
        check_growth(c, bins)
        check_system(c)
        check_openmetrics(c, tmp)
    finally:
        ta.teardown(tmp, procs)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

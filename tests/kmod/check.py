#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check.py RESULTS CONSOLE NAME - judge what the kmod test's VM reported.

RESULTS is what tests/kmod/guest-init wrote to the second serial port.
Prints "PASS NAME: check" / "FAIL NAME: check (why)" lines (and "info"
lines with figures); exits 1 if anything failed.
"""
import json
import re
import sys

SIZES = ("vm", "rss", "erss", "swap", "eswap", "sole", "zero", "hugetlb", "ehugetlb",
         "ksm", "ksm_saved")
KPSS = ("pss", "pss_anon", "pss_file", "pss_shmem", "pss_dirty")
# the exclusive figures (issue 21): what stopping the process gives back
EXCL = ("freed", "cached", "shmem_excl")
# who a process is: from the module with kmod, from /proc with pagemap
IDENT = ("comm", "ppid", "user", "cmd")

results_path, console_path, name = sys.argv[1:4]
failed = False


def report(ok, what, why=""):
    global failed
    if ok:
        print("PASS %s: %s" % (name, what))
    else:
        failed = True
        print("FAIL %s: %s%s" % (name, what, " (%s)" % why if why else ""))


try:
    text = open(results_path, errors="replace").read().replace("\r", "")
except OSError as e:
    report(False, "VM results", str(e))
    sys.exit(1)

blocks, results, nojson = {}, [], {}
cur, buf = None, []
for line in text.split("\n"):
    if cur is not None:
        if line == "END " + cur:
            blocks[cur] = "\n".join(buf)
            cur = None
        else:
            buf.append(line)
        continue
    if line.startswith("BEGIN "):
        cur, buf = line[6:], []
    elif line.startswith("RESULT "):
        results.append(line.split(" ", 3)[1:])
    elif line.startswith("NOJSON "):
        parts = line.split(" ", 2)
        nojson[parts[1]] = parts[2] if len(parts) > 2 else ""
    elif line.startswith("THP "):
        print("info %s: %s" % (name, line))
    elif line.startswith("KERNEL "):
        print("info %s: guest kernel %s" % (name, line[7:]))

for r in results:
    detail = r[2] if len(r) > 2 else ""
    report(r[1] == "PASS", r[0], detail if r[1] != "PASS" else "")
# what guest-init always reports (stress and unload not in bench mode,
# which runs guest-bench.sh instead): a result missing fails
bench_mode = any(r[0].startswith("bench-") for r in results)
seen = {r[0] for r in results}
for r in ("load", "devmode", "swap", "sharer", "kinds", "compare", "kcheck",
          "task", "maps", "unpriv") + (() if bench_mode else (
              "cgcharge", "hugetlb1g", "incremental", "pidns", "stress",
              "unload")):
    if r not in seen:
        report(False, r, "no result")
# tests/live/test_incremental.py with the module, run N times in one boot:
# its summary lines (the last run's whole output only when it failed),
# and a failed run's exception line, which says what went wrong
for line in blocks.get("incremental.out", "").split("\n"):
    if (line.startswith(("run ", "last run: ", "FAIL")) or "steps," in line
            or re.match(r"\w+(Error|Exception): ", line)):
        print("info %s: incremental: %s" % (name, line))
for line in blocks.get("compare.out", "").split("\n"):
    if line.startswith("info "):
        print("info %s: %s" % (name, line[5:]))


def guest_test(block, test, checker, what, info):
    """A tests/live test run in the guest (its output the block): each of
    its checks counted here, a failed (or skipped) one with its line, the
    lines info() picks printed; its output, "" when missing."""
    out = blocks.get(block)
    if out is None and bench_mode:
        return ""
    out = out or ""
    for line in out.split("\n"):
        if line.startswith(("FAIL: ", "SKIP: ")):
            report(False, "%s: %s" % (test, line))
        elif info(line):
            print("info %s: %s: %s" % (name, test, line))
    m = re.search(r"^%s: (\d+) checks passed, (\d+) failed$" % re.escape(checker),
                  out, re.M)
    report(m is not None and int(m.group(1)) > 0, "%s finished its checks" % test,
           out[-300:])
    for i in range(int(m.group(1)) if m else 0):
        report(True, "%s %s check %d of %s passed" % (test, what, i + 1, m.group(1)))
    return out


# tests/live/test_cgcharge.py on cgroup v2, which the test says it ran
cg = guest_test("cgcharge.out", "test_cgcharge", "test_cgcharge", "(cgroup v2)",
                lambda l: l.startswith("A: ") or "moved pages" in l or "not made" in l)
if cg or not bench_mode:
    report("memory controller on cgroup v2" in cg,
           "test_cgcharge ran its cgroup v2 path", cg[-300:])
# tests/live/test_hugetlb1g.py: 1 GiB pages, which -cpu max has
guest_test("hugetlb1g.out", "test_hugetlb1g", "live hugetlb 1 GiB", "(1 GiB pages)",
           lambda l: "free 1 GiB pages" in l)
# the amd64 flavour boots with vsyscall=xonly (tests/kmod/run)
maps_ok = [l for l in blocks.get("maps.out", "").split("\n")
           if l.startswith("ok maps:")]
if maps_ok and not name.endswith("cloud-amd64"):
    report("the kernel has it" in maps_ok[0] and
           "[vsyscall] in 0 " not in maps_ok[0],
           "the module marks the vsyscall page of every process",
           maps_ok[0])
for out in ("task.out", "maps.out"):
    for line in blocks.get(out, "").split("\n"):
        if line.startswith("ok "):
            print("info %s: %s" % (name, line[3:]))

kernel = re.search(r"KERNEL (\d+)\.(\d+)", text)
has_scan = kernel and (int(kernel.group(1)), int(kernel.group(2))) >= (6, 7)
# Debian's 6.12.95 /proc/kpageflags marks every anonymous page KSM (it tests
# the folio's mapping against the KSM bits with &, and the anonymous bit is
# one of them); the pagemap source asks a page of its own first and then
# leaves KSM unmeasured (null) rather than wrong. On that kernel pagemap's
# KSM figures must be null or exact; on 6.1 exact. kmod reads the page
# itself and must be exact everywhere.
ksm_may_be_unknown = bool(has_scan)
KSM = ("ksm", "ksm_saved")


def ksm_unknown(src_is_pagemap, k, v):
    return src_is_pagemap and ksm_may_be_unknown and k in KSM and v is None


def load(key):
    try:
        return json.loads(blocks[key])
    except (KeyError, ValueError):
        return None


def procs(d):
    return {p["pid"]: p for p in d.get("processes") or []}


# the kernel's figures and the module's writable bytes per process, as
# kmcheck kcheck printed them
kernel, writable = {}, {}
for line in blocks.get("kcheck.out", "").split("\n"):
    f = line.split()
    if len(f) == 8 and f[0] == "kernel":
        kernel[int(f[2])] = dict(zip(("name", "rss", "pss", "hugetlb", "zero", "ksm"),
                                     [f[1]] + [int(x) for x in f[3:]]))
    elif len(f) == 3 and f[0] == "writable":
        writable[int(f[1])] = int(f[2])
    elif line.startswith("info "):
        print("info %s: %s" % (name, line[5:]))
report(len(kernel) == 7, "kmcheck kcheck gave the kernel's figures of the 7 kinds",
       "%d" % len(kernel))


def compare_sources(pset, nprocs):
    """kmod's JSON against pagemap's in every mode, for one set of processes."""
    km = load("json %s kmod" % pset)
    report(km is not None and km.get("source") == "kmod",
           "exmtop --source kmod runs and says so (%s)" % pset,
           nojson.get(pset + ":kmod", "no JSON"))
    if km is None:
        return
    kp = procs(km)
    report(len(kp) == nprocs, "kmod sees the %d %s processes" % (nprocs, pset), "%d" % len(kp))
    # writable from the module's PTE bits, exact (issue 27); a hugetlb
    # page's is not counted
    bad = ["pid %d writable %s, module %s" % (pid, p.get("writable"), writable.get(pid))
           for pid, p in sorted(kp.items())
           if (pid in writable or pid in kernel) and (kernel.get(pid) or {}).get("hugetlb", 0) == 0
           and p.get("writable") != writable.get(pid)]
    if pset == "sharer":
        bad += ["pid %d: no module writable" % pid for pid in kp if pid not in writable]
    report(not bad, "writable from kmod equals the module's writable PTEs (%s)" % pset,
           "; ".join(bad[:4]))
    for mode in ("read", "auto", "scan"):
        pm = load("json %s pagemap:%s" % (pset, mode))
        if pm is None:
            why = nojson.get("%s:pagemap:%s" % (pset, mode), "missing")
            if mode == "scan" and not has_scan and "PAGEMAP_SCAN" in why:
                continue  # 6.1 has no PAGEMAP_SCAN: the mode is refused
            report(False, "pagemap %s JSON (%s)" % (mode, pset), why)
            continue
        pp = procs(pm)
        bad, excl_bad = [], []
        for pid, p in sorted(kp.items()):
            q = pp.get(pid)
            if q is None:
                bad.append("pid %d missing" % pid)
                continue
            for k in SIZES + IDENT:
                if p.get(k) != q.get(k) and not ksm_unknown(True, k, q.get(k)):
                    bad.append("pid %d %s kmod %s pagemap %s" % (pid, k, p.get(k), q.get(k)))
            for k in EXCL:
                if p.get(k) is None or p.get(k) != q.get(k):
                    excl_bad.append("pid %d %s kmod %s pagemap %s" % (pid, k, p.get(k), q.get(k)))
            fk = {f["file"]: f for f in p.get("files") or []}
            fq = {f["file"]: f for f in q.get("files") or []}
            if set(fk) != set(fq):
                bad.append("pid %d files differ" % pid)
            for f in fk:
                for k in SIZES:
                    if f in fq and fk[f].get(k) != fq[f].get(k) and \
                            not ksm_unknown(True, k, fq[f].get(k)):
                        bad.append("pid %d %s %s: %s vs %s" % (pid, f, k, fk[f].get(k), fq[f].get(k)))
        report(not bad, "exmtop sizes and identity identical with --source kmod and pagemap (%s, %s)"
               % (mode, pset), "; ".join(bad[:4]))
        # none of them all zero: the comparison is of real figures
        tot = {k: sum(p.get(k) or 0 for p in kp.values()) for k in EXCL}
        report(not excl_bad and tot["freed"] > 0,
               "freed, cached and shmem_excl identical with --source kmod and pagemap (%s, %s; kmod's sums %s)"
               % (mode, pset, ", ".join("%s %d" % (k, tot[k]) for k in EXCL)), "; ".join(excl_bad[:4]))
        if mode != "read":
            continue
        # the kernel's figures: computed from the module (bytes) against
        # smaps_rollup's (read by the pagemap source, whole kB)
        bad = []
        for pid, p in sorted(kp.items()):
            q = pp.get(pid) or {}
            for k in KPSS:
                a, b = p.get(k), q.get(k)
                if a is None or b is None or a // 1024 * 1024 != b:
                    bad.append("pid %d %s kmod %s rollup %s" % (pid, k, a, b))
            if p.get("swap_pss") != q.get("swap_pss"):
                bad.append("pid %d swap_pss kmod %s rollup %s" % (pid, p.get("swap_pss"), q.get("swap_pss")))
            print("info %s: pid %d pss kmod %s B, smaps_rollup %s B; writable kmod %s, pagemap %s"
                  % (name, pid, p.get("pss"), q.get("pss"), p.get("writable"), q.get("writable")))
        report(not bad, "kernel Pss from the module equals smaps_rollup (%s)" % pset,
               "; ".join(bad[:4]))


compare_sources("sharer", 4)
compare_sources("kinds", 8)


def kernel_figures(src):
    """exmtop's figures of the kinds (one source) against the kernel's:
    resident = Rss, hugetlb = Shared_ + Private_Hugetlb (kmcheck kcheck's,
    which do not change meanwhile), zero = the zero pages the module found,
    effective resident = the Pss of the same snapshot (smaps_rollup's with
    pagemap, to its kB truncation; computed from the walk with kmod, which
    another check compares with smaps_rollup): every process is scanned"""
    d = load("json kinds " + src)
    if d is None:
        if src == "pagemap:scan" and not has_scan:
            return  # 6.1 has no PAGEMAP_SCAN
        report(False, "%s JSON of the kinds" % src, "missing")
        return
    got, bad = procs(d), []
    for pid, k in sorted(kernel.items()):
        p = got.get(pid)
        if p is None:
            bad.append("%s missing" % k["name"])
            continue
        for key, want in (("rss", k["rss"]), ("hugetlb", k["hugetlb"]), ("zero", k["zero"]),
                          ("ksm", k["ksm"])):
            if p.get(key) != want and not ksm_unknown(src != "kmod", key, p.get(key)):
                bad.append("%s %s %s, kernel %s" % (k["name"], key, p.get(key), want))
        e, pss = p.get("erss"), p.get("pss")
        if not isinstance(e, (int, float)) or not isinstance(pss, int) or not -1 < e - pss < 1024 + 1:
            bad.append("%s erss %s, kernel Pss %s" % (k["name"], e, pss))
    # effective hugetlb conserves: 13 distinct huge pages (the parent's 4
    # private ones, the child's copy, 4 of the memfd, 4 of the file)
    eh = sum(p.get("ehugetlb") or 0 for p in got.values())
    if abs(eh - 13 * (2 << 20)) > 1:
        bad.append("effective hugetlb adds up to %s, want %d" % (eh, 13 * (2 << 20)))
    # KSM saved: each ksm process maps 64 pages merged three ways
    for pid, k in sorted(kernel.items()):
        p = got.get(pid) or {}
        if ksm_unknown(src != "kmod", "ksm_saved", p.get("ksm_saved")):
            continue
        if k["name"].startswith("ksm") and abs((p.get("ksm_saved") or 0) - k["ksm"] * 2 / 3) > 1:
            bad.append("%s ksm_saved %s, want %s" % (k["name"], p.get("ksm_saved"), k["ksm"] * 2 / 3))
    report(not bad, "%s: resident, effective resident, zero, hugetlb and KSM as the kernel counts them" % src,
           "; ".join(bad[:4]))


for src in ("kmod", "pagemap:read", "pagemap:auto", "pagemap:scan"):
    kernel_figures(src)
for src in ("kmod", "pagemap"):
    out = blocks.get("alerts " + src, "")
    m = re.search(r"pss-mismatch compared (\d+) processes", out)
    alerts = [l for l in out.split("\n") if l.startswith("pss-mismatch ")]
    report(m is not None and int(m.group(1)) >= 12 and not alerts,
           "no pss-mismatch alert with %s (zero, huge zero and hugetlb pages mapped)" % src,
           "; ".join(alerts[:3]) or out[-300:])
auto = load("json auto")
report(auto is not None and auto.get("source") == "kmod",
       "auto chooses kmod when /dev/exmap opens",
       "source %s" % (auto or {}).get("source"))

dmesg = blocks.get("dmesg")
report(dmesg is not None and not re.search(
    r"WARNING|BUG|Oops|Call Trace|general protection|bad pmd|bad pte", dmesg),
    "kernel log free of WARN/oops", "see console")
report("\nDONE" in text, "VM finished (no panic, no timeout)",
       "no DONE: see %s" % console_path)
times, calls, live, smaps, nowalk = {}, {}, {}, [], {}
for line in blocks.get("bench", "").split("\n"):
    f = line.split()
    if len(f) == 5 and f[0] == "time":
        times.setdefault(f[1], []).append(tuple(float(x) for x in f[2:]))
    elif len(f) == 10 and f[0] == "calls":
        calls.setdefault(int(f[1]), []).append([float(x) for x in f[2:]])
    elif len(f) == 6 and f[0] == "smaps":
        smaps.append([float(x) for x in f[1:]])
    elif len(f) == 7 and f[0] == "nowalk":
        nowalk.setdefault(f[1], []).append([float(x) for x in f[2:]])
    elif len(f) == 4 and f[0] == "live":
        live[f[1]] = (float(f[2]), float(f[3]))
    elif f and f[0] == "FAIL":
        print("bench %s: %s" % (name, line))
        failed = True
for line in text.split("\n"):
    if line.startswith("BENCHINFO ") or line.startswith("BENCHFAIL "):
        print("bench %s: %s" % (name, line.split(" ", 1)[1]))
        failed |= line.startswith("BENCHFAIL ")


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def bench(fmt, *a):
    print("bench %s: %s" % (name, fmt % a))


# read mode's first snapshot of the bench workload: a reservation read
# whole, which the header says only the module avoids on a kernel without
# PAGEMAP_SCAN (and does not say where the kernel has it)
if bench_mode:
    bj = load("json bench pagemap:read") or {}
    detail, limits = bj.get("source_detail", ""), bj.get("limits", "")
    report("read whole" in detail and
           ("only the exmtop module avoids" in limits) == (not has_scan),
           "read mode's first snapshot of the bench workload reads a "
           "reservation whole, and the note that only the module avoids "
           "it is %s" % ("shown (no PAGEMAP_SCAN)" if not has_scan
                         else "not shown (PAGEMAP_SCAN)"),
           "detail %r, limits %r" % (detail, limits))

oneshot = {k: v for k, v in times.items() if "@" not in k}
if oneshot:
    bench("one full snapshot, start-up included (one process each time):")
    for tool, t in oneshot.items():
        # against smemstat run the same way (address-space randomisation
        # off: "-noaslr")
        ref = oneshot.get("smemstat-noaslr" if tool.endswith("-noaslr")
                          else "smemstat")
        wall = [x[0] for x in t]
        cpu = [x[1] + x[2] for x in t]
        line = "  %-13s wall best %.3f s, median %.3f s; CPU median %.3f s (%d runs)" % (
            tool, min(wall), median(wall), median(cpu), len(t))
        if ref and not tool.startswith("smemstat"):
            line += "; %.2fx smemstat's wall, %.2fx its CPU" % (
                median(wall) / median([x[0] for x in ref]),
                median(cpu) / median([x[1] + x[2] for x in ref]))
        bench("%s", line)

# per refresh: (11 refreshes - 1) / 10, paired by round
per = {}
for tool in sorted({k.split("@")[0] for k in times if "@" in k}):
    one, many = times.get(tool + "@1", []), times.get(tool + "@11", [])
    if not one or len(one) != len(many):
        continue
    cpu = [((b[1] + b[2]) - (a[1] + a[2])) / 10 for a, b in zip(one, many)]
    # exmtop sleeps 1 s after each refresh; smemstat sleeps to fixed 1 s
    # ticks, so its wall cannot be told from its sleep
    wall = None if tool == "smemstat" else [
        (b[0] - a[0] - 10) / 10 for a, b in zip(one, many)]
    per[tool] = (cpu, wall)
if per:
    bench("per refresh, start-up removed ((11 refreshes - 1) / 10; mean of the rounds, range):")
    ref = per.get("smemstat")
    for tool, (cpu, wall) in per.items():
        c = sum(cpu) / len(cpu)
        line = "  %-13s CPU %.4f s (%.4f-%.4f, %d rounds)" % (
            tool, c, min(cpu), max(cpu), len(cpu))
        if wall:
            line += ", wall %.4f s (%.4f-%.4f)" % (sum(wall) / len(wall), min(wall), max(wall))
        else:
            line += ", wall - (sleeps to 1 s ticks; single-threaded, only /proc reads)"
        if ref and tool != "smemstat":
            line += "; %.2fx smemstat's CPU" % (c / (sum(ref[0]) / len(ref[0])))
        bench("%s", line)
for n, rows in sorted(calls.items(), reverse=True):
    m = [median([r[i] for r in rows]) for i in range(8)]
    bench("kernel side, the module at %d records a call: %d processes, %d calls (at most %d for one), %d records, %d pages; a pass: wall %.4f s, CPU %.4f s (median of %d)",
          n, m[0], m[1], m[4], m[2], m[3], m[5], m[6] + m[7], len(rows))
if smaps:
    m = [median([r[i] for r in smaps]) for i in range(5)]
    bench("kernel side, reading every smaps (what smemstat reads): %d processes, %d bytes; a pass: wall %.4f s, CPU %.4f s (median of %d)",
          m[0], m[1], m[2], m[3] + m[4], len(smaps))
for mode, rows in sorted(nowalk.items()):
    m = [median([r[i] for r in rows]) for i in range(5)]
    bench("kernel side, the call finding whether a process changed (%s): %d processes, %d zero pages; a pass: wall %.4f s, CPU %.4f s (median of %d)",
          mode, m[0], m[1], m[2], m[3] + m[4], len(rows))
mhz = re.search(r"([0-9.]+) MHz", blocks.get("tsc", ""))
for tool in ("exmtop", "smemstat"):
    tot, rel, nrel = [], [], []
    for k, v in blocks.items():
        if k.startswith("ldstats %s " % tool):
            a = re.search(r"total startup time in dynamic loader: (\d+)", v)
            b = re.search(r"time needed for relocation: (\d+)", v)
            c = re.search(r"final number of relocations: (\d+)", v)
            if a and b and c:
                tot.append(int(a.group(1)))
                rel.append(int(b.group(1)))
                nrel.append(int(c.group(1)))
    if tot and mhz:
        bench("dynamic linking of %s at start-up: %.2f ms (relocation %.2f ms, %d relocations; median of %d, TSC %s MHz)",
              tool, median(tot) / float(mhz.group(1)) / 1000,
              median(rel) / float(mhz.group(1)) / 1000, median(nrel), len(tot), mhz.group(1))
if live:
    bench("live screen, 200x50 pseudo-terminal, -d 2 (CPU of all threads, 1/100 s ticks):")
for tool, (cpu, secs) in live.items():
    bench("  %-20s %.2f s CPU in %.0f s: %.1f%% of one CPU, %.3f s a refresh",
          tool, cpu, secs, 100 * cpu / secs, cpu / (secs / 2))
sys.exit(1 if failed else 0)

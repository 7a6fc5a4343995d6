#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test of the paper's analyses in core/ (alerts, executable units,
per-process breakdown, system view, OpenMetrics), through the driver
tests/live/analysis/anadrive (root; SKIP otherwise).

Built here with plain flags (cc): tests/live/analysis/libtr.c twice, as a
non-PIC library with text relocations and as a PIC library; anaload, which
dlopens one, writes all its .data and .bss and reads every page of it;
anagrow, which grows its heap by a known amount on SIGUSR1.

Checks, from the files themselves (readelf) and known sharing:
  - four processes loading the non-PIC library raise one text-copies
    alert naming it, with DT_TEXTREL, the pages readelf's relocations
    touch and bytes = (4 - 1) x those pages; four loading the PIC build
    raise none;
  - a scan of every process raises no pss-mismatch alert for them;
  - per-unit totals of both libraries: processes, text/data/bss virtual
    sizes from the program and section headers, everything resident,
    and effective resident as the sharing implies (PIC text shared by
    four; non-PIC text shared but its relocated pages private; data and
    bss private);
  - the per-process breakdown adds up to each process's sizes;
  - the per-file strip of both libraries: every page of their PT_LOADs
    (in file offsets) resident in the four processes, no other page;
  - anagrow's growth between two snapshots raises the growth alert with
    exactly that amount;
  - the system view of a full scan sums to MemTotal exactly and its
    user-space row equals the sum of effective resident;
  - OpenMetrics output with a hostile process name passes promtool, and
    the root user's group is summed even where some of root's processes
    cannot be read (PID 1 in some containers), with how many were not.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

ANADRIVE = exmlive.builddir_path("ANADRIVE", "./tests/live/analysis/anadrive")
SRC = os.path.join(exmlive.SRCDIR, "analysis")
PS = os.sysconf("SC_PAGE_SIZE")
NPROCS = 4
GROW = 8 << 20
EFF_TOL = 0.01


def cc(args):
    cmd = os.environ.get("CC", "cc").split() + args
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def build(tmp):
    lib = os.path.join(SRC, "libtr.c")
    out = {
        "textrel": os.path.join(tmp, "libtr_textrel.so"),
        "pic": os.path.join(tmp, "libtr_pic.so"),
        "load": os.path.join(tmp, "anaload"),
        "grow": os.path.join(tmp, "anagrow"),
    }
    cc(["-O0", "-fno-PIC", "-mcmodel=large", "-shared", "-o",
        out["textrel"], lib])
    cc(["-O0", "-fPIC", "-shared", "-o", out["pic"], lib])
    cc(["-O2", "-o", out["load"], os.path.join(SRC, "anaload.c"), "-ldl"])
    cc(["-O2", "-o", out["grow"], os.path.join(SRC, "anagrow.c")])
    return out


def readelf(args, path):
    return subprocess.run(["readelf", "-W"] + args + [path], check=True,
                          stdout=subprocess.PIPE).stdout.decode()


def loads(path):
    """PT_LOAD segments: (offset, vaddr, filesz, memsz, flags)."""
    segs = []
    for ln in readelf(["-l"], path).splitlines():
        w = ln.split()
        if w and w[0] == "LOAD":
            segs.append((int(w[1], 16), int(w[2], 16), int(w[4], 16),
                         int(w[5], 16), " ".join(w[6:-1])))
    return segs


def section(path, name):
    for ln in readelf(["-S"], path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)", ln)
        if m and m.group(1) == name:
            return int(m.group(2), 16), int(m.group(4), 16)
    raise RuntimeError("%s: no section %s" % (path, name))


def text_reloc_pages(path):
    """File pages of read-only PT_LOADs that dynamic relocations write."""
    segs = loads(path)
    pages = set()
    for ln in readelf(["-r"], path).splitlines():
        m = re.match(r"([0-9a-f]{8,16})\s+[0-9a-f]+\s+R_", ln)
        if not m:
            continue
        va = int(m.group(1), 16)
        for off, vaddr, filesz, memsz, fl in segs:
            if vaddr <= va < vaddr + memsz and "W" not in fl:
                fo = va - vaddr + off
                pages.add(fo // PS)
                pages.add((fo + 7) // PS)
    return pages


def rd(x):
    return x // PS * PS


def ru(x):
    return (x + PS - 1) // PS * PS


def expected_vm(path):
    """Per process: text, data and bss bytes of the library's layout."""
    text = data_bss = end = 0
    for off, vaddr, filesz, memsz, fl in loads(path):
        size = ru(vaddr + memsz) - rd(vaddr)
        if "W" in fl:
            data_bss += size
            end = ru(vaddr + memsz)
        else:
            text += size
    bss_addr, _ = section(path, ".bss")
    bss = end - bss_addr
    return text, data_bss - bss, bss


def drive(args, stdin=None):
    p = subprocess.run([ANADRIVE] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300, input=stdin)
    if p.returncode != 0:
        raise RuntimeError("anadrive %s: %s" % (args, p.stderr.decode()))
    return p.stdout.decode("utf-8", "replace")


def start(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, start_new_session=True)
    line = p.stdout.readline()
    if line != b"ready\n":
        raise RuntimeError("%s did not start: %r" % (cmd, line))
    return p


def lines(out, tag):
    return [ln.split("\t")[1:] for ln in out.splitlines()
            if ln.split("\t")[0] == tag]


def check_alerts_and_units(c, bins, procs):
    pids = ",".join(str(p.pid) for p in procs)
    out = drive(["alerts", "-p", pids])
    c.check(["text-copies"] in lines(out, "checked"), "text copies checked")
    text = [a for a in lines(out, "alert") if a[0] == "text-copies"]
    if c.eq(len(text), 1, "one text-copies alert:\n" + out):
        a = text[0]
        pages = text_reloc_pages(bins["textrel"])
        c.eq(a[1], bins["textrel"], "the alert names the non-PIC library")
        c.eq(int(a[2]), (NPROCS - 1) * len(pages) * PS,
             "bytes sharing would save: (%d - 1) x %d pages" %
             (NPROCS, len(pages)))
        c.eq(int(a[3]), NPROCS, "processes with copies")
        c.eq(int(a[4]), len(pages), "pages copied")
        c.eq(int(a[5]), NPROCS * len(pages), "copies")
        c.eq(a[6], "1", "DT_TEXTREL seen in the file")
        c.check("DT_TEXTREL" in a[10], "explanation: %r" % a[10])
    c.check(not [a for a in text if a[1] == bins["pic"]],
            "no text alert for the PIC build")

    # a scan of every process: the loaders' Pss and erss agree within
    # the documented causes
    out = drive(["alerts"])
    c.check(["pss-mismatch"] in lines(out, "checked"), "Pss checked")
    mine = {str(p.pid) for p in procs}
    c.eq([a for a in lines(out, "alert")
          if a[0] == "pss-mismatch" and a[1] in mine], [],
         "no pss-mismatch alert for the loaders")

    out = drive(["units", "-p", pids])
    units = {u[0]: u for u in lines(out, "unit")}
    for kind in ("pic", "textrel"):
        path = bins[kind]
        u = units.get(path)
        if not c.check(u is not None, "unit row for %s:\n%s" % (path, out)):
            continue
        vt, vd, vb = expected_vm(path)
        c.eq(int(u[1]), NPROCS, "%s: processes" % kind)
        c.eq(u[2], "0", "%s: ELF parsed" % kind)
        seg = {}
        for i, name in enumerate(("text", "data", "bss")):
            seg[name] = (int(u[3 + 3 * i]), int(u[4 + 3 * i]),
                         float(u[5 + 3 * i]))
        c.eq(seg["text"][0], NPROCS * vt, "%s: text vm" % kind)
        c.eq(seg["data"][0], NPROCS * vd, "%s: data vm" % kind)
        c.eq(seg["bss"][0], NPROCS * vb, "%s: bss vm" % kind)
        for name in ("text", "data", "bss"):
            c.eq(seg[name][1], seg[name][0],
                 "%s: %s all resident" % (kind, name))
        # text: every frame shared by the four, but relocated pages are
        # private copies; data and bss written by each: private
        r = len(text_reloc_pages(path)) * PS if kind == "textrel" else 0
        c.near(seg["text"][2], vt - r + NPROCS * r, EFF_TOL,
               "%s: text effective resident" % kind)
        c.near(seg["data"][2], NPROCS * vd, EFF_TOL,
               "%s: data effective resident" % kind)
        c.near(seg["bss"][2], NPROCS * vb, EFF_TOL,
               "%s: bss effective resident" % kind)

    for kind in ("pic", "textrel"):
        path = bins[kind]
        out = drive(["strip", "--file", path, "-p", pids])
        st = lines(out, "strip")
        if not c.eq(len(st), 1, "%s: one strip" % kind):
            continue
        npages, nprocs, vm, res, chars = st[0]
        want = set()
        for off, vaddr, filesz, memsz, fl in loads(path):
            want.update(range(rd(off) // PS, ru(off + filesz) // PS))
        c.eq(int(npages), max(want) + 1, "%s: strip length" % kind)
        c.eq(int(nprocs), NPROCS, "%s: processes mapping it" % kind)
        c.eq(int(vm), len(want), "%s: virtual pages" % kind)
        c.eq(int(res), len(want), "%s: resident pages" % kind)
        c.eq(chars, "".join(str(NPROCS) if i in want else "."
                            for i in range(int(npages))),
             "%s: the strip" % kind)
        segs = lines(out, "seg")
        covered = set()
        for first, end, perms in segs:
            covered.update(range(int(first), int(end)))
        c.eq(covered, want, "%s: segments cover the loaded pages" % kind)
        c.check({"r-xp", "rw-p", "r--p"} <= {g[2] for g in segs},
                "%s: text, data and read-only segments: %r" % (kind, segs))

    out = drive(["breakdown", "-p", pids])
    rows = lines(out, "proc")
    c.eq(sorted(int(r[0]) for r in rows), sorted(p.pid for p in procs),
         "one breakdown row per process")
    for r in rows:
        parts = [p for p in lines(out, "part") if p[0] == r[0]]
        c.eq(sum(int(p[2]) for p in parts), int(r[1]),
             "pid %s: parts add up to vm" % r[0])
        c.eq(sum(int(p[3]) for p in parts), int(r[2]),
             "pid %s: parts add up to resident" % r[0])
        c.near(sum(float(p[4]) for p in parts), float(r[3]), EFF_TOL,
               "pid %s: parts add up to effective resident" % r[0])
        c.eq(int(r[4]) + int(r[5]), int(r[2]),
             "pid %s: sole + shared = resident" % r[0])
        byk = {p[1]: p for p in parts}
        c.check(int(byk["stack"][3]) > 0, "pid %s: a stack" % r[0])
        c.check(int(byk["prog_text"][3]) > 0, "pid %s: program text" % r[0])
        c.check(int(byk["lib_bss"][2]) >= expected_vm(bins["pic"])[2],
                "pid %s: library bss holds libtr's" % r[0])


def check_growth(c, bins):
    g = start([bins["grow"], str(GROW)])
    try:
        d = subprocess.Popen([ANADRIVE, "alerts", "--step", "-p",
                              str(g.pid), "--min-growth", str(GROW)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if not c.eq(d.stdout.readline(), b"snap1\n", "first snapshot"):
            d.kill()
            return
        g.send_signal(10)  # SIGUSR1
        c.eq(g.stdout.readline(), b"grown\n", "the heap grew")
        out, err = d.communicate(b"\n", timeout=300)
        out = out.decode()
        c.eq(d.returncode, 0, "driver exit status (%r)" % err)
        alerts = [a for a in lines(out, "alert") if a[0] == "anon-growth"]
        if c.eq(len(alerts), 1, "one growth alert:\n" + out):
            a = alerts[0]
            c.eq(a[1], str(g.pid), "the growing process")
            c.eq(int(a[2]), GROW, "grown by exactly %d bytes" % GROW)
            c.eq(int(a[8]) - int(a[7]), GROW, "after - before")
            c.check(float(a[9]) > 0, "over a positive time")
    finally:
        g.kill()
        g.wait()


def check_system(c):
    out = drive(["system"])
    total = int(lines(out, "mem_total")[0][0])
    rows = {r[0]: int(r[1]) for r in lines(out, "row")}
    c.eq(sum(rows.values()), total, "system rows sum to MemTotal")
    with open("/proc/meminfo") as f:
        mt = int(f.readline().split()[1]) * 1024
    c.eq(total, mt, "MemTotal is /proc/meminfo's")
    c.near(rows["user_space"], float(lines(out, "sum_erss")[0][0]), 1.0,
           "user space = sum of effective resident")
    c.check(rows["free"] > 0, "free memory is counted")
    c.check(all(v >= 0 for k, v in rows.items() if k != "unexplained"),
            "only unexplained may be negative: %r" % rows)


EVIL = b"om\"\\\n{x=\"\xff"  # quote, backslash, newline, brace, bad UTF-8


def start_hostile(tmp):
    """A shell whose name (comm) is EVIL, asleep in a session of its own;
    stop it with stop_hostile()."""
    evil = os.path.join(tmp.encode(), EVIL)
    os.symlink("/bin/sh", evil)
    p = subprocess.Popen([evil, "-c", "sleep 1000; exit 0"],
                         start_new_session=True)
    for _ in range(100):
        with open("/proc/%d/comm" % p.pid, "rb") as f:
            if f.read().startswith(b"om"):
                return p
        time.sleep(0.02)
    stop_hostile(p)
    raise RuntimeError("hostile process did not start")


def stop_hostile(p):
    os.killpg(p.pid, 9)
    p.wait()


def promtool(c, data, what):
    pt = subprocess.run(["promtool", "check", "metrics"], input=data,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    c.eq(pt.returncode, 0, "%s: promtool check metrics: %r %r" %
         (what, pt.stdout[-2000:], pt.stderr[-2000:]))


def sample(text, prefix):
    """The value of the one sample line starting with prefix, or None."""
    v = [ln[len(prefix):] for ln in text.splitlines()
         if ln.startswith(prefix)]
    return float(v[0]) if len(v) == 1 else None


def check_om(c, out, pid, what):
    """OpenMetrics output (bytes) of a scan of every process, the hostile
    one (pid) among them: valid UTF-8 ending in # EOF, the hostile name
    escaped, the root user's group summed even if some of its processes
    (PID 1 in some containers) cannot be read, with how many were not;
    promtool accepts it. Returns the text."""
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        c.check(False, "%s: output is valid UTF-8 (%s)" % (what, e))
        text = out.decode("utf-8", "replace")
    c.check(text.endswith("# EOF\n"), "%s: ends with # EOF" % what)
    mine = [ln for ln in text.splitlines()
            if ln.startswith("exmtop_process_effective_resident_bytes{"
                             "pid=\"%d\"," % pid)]
    if c.eq(len(mine), 1, "%s: the hostile process has one sample" % what):
        # shown as text output shows it (a backslash doubled, \\n,
        # \\xff), then escaped as the format requires (\\\\, \\")
        shown = 'om"' + "\\\\" + "\\n" + '{x="' + "\\xff"
        want = 'comm="%s"' % shown.replace("\\", "\\\\").replace(
            '"', '\\"')
        c.check(want in mine[0], "%s: name escaped (%s): %r" %
                (what, want, mine[0]))
    c.eq([ch for ch in text if ch != "\n" and
          (ord(ch) < 0x20 or 0x7f <= ord(ch) < 0xa0)], [],
         "%s: no control character but newlines" % what)
    root = '{by="user",name="root"} '
    erss = sample(text, "exmtop_group_effective_resident_bytes" + root)
    n = sample(text, "exmtop_group_processes" + root)
    unmeasured = sample(text, "exmtop_group_unmeasured_processes" + root)
    c.check(erss is not None and erss > 0,
            "%s: root's effective resident is summed: %r" % (what, erss))
    c.check(n is not None and unmeasured is not None and
            0 <= unmeasured < n, "%s: root's processes %r, of them not "
            "measured %r" % (what, n, unmeasured))
    promtool(c, out, what)
    return text


def check_openmetrics(c, tmp):
    p = start_hostile(tmp)
    try:
        r = subprocess.run([ANADRIVE, "openmetrics", "--top", "100000"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=300)
        c.eq(r.returncode, 0, "openmetrics exit status (%r)" % r.stderr)
        check_om(c, r.stdout, p.pid, "openmetrics")
    finally:
        stop_hostile(p)


def setup(what, prefix):
    """What the live analysis tests start from (this one and
    test_analysis_cli.py): root (SKIP otherwise) and the tools, a Checker
    named what, a scratch directory, the test programs built and their
    relocations checked, NPROCS loaders of each library running. Returns
    (checker, tmp, bins, procs); the caller ends with teardown(tmp,
    procs)."""
    if os.geteuid() != 0:
        print("SKIP: needs root (page frame numbers)")
        sys.exit(exmlive.SKIP)
    for tool in ("readelf", "promtool"):
        if not shutil.which(tool):
            raise RuntimeError("%s not installed (scripts/deps.sh)" % tool)
    c = exmlive.Checker(what)
    tmp = tempfile.mkdtemp(prefix=prefix)
    procs = []
    try:
        bins = build(tmp)
        if "TEXTREL" not in readelf(["-d"], bins["textrel"]):
            raise RuntimeError("the non-PIC build has no DT_TEXTREL")
        if "TEXTREL" in readelf(["-d"], bins["pic"]):
            raise RuntimeError("the PIC build has DT_TEXTREL")
        if not text_reloc_pages(bins["textrel"]):
            raise RuntimeError("no text relocations found by readelf")
        for kind in ("textrel", "pic"):
            for _ in range(NPROCS):
                procs.append(start([bins["load"], bins[kind]]))
    except BaseException:
        teardown(tmp, procs)
        raise
    return c, tmp, bins, procs


def teardown(tmp, procs):
    for p in procs:
        p.kill()
        p.wait()
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    c, tmp, bins, procs = setup("live analysis", "exm-analysis-")
    try:
        check_alerts_and_units(c, bins, procs)
        check_growth(c, bins)
        check_system(c)
        check_openmetrics(c, tmp)
    finally:
        teardown(tmp, procs)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

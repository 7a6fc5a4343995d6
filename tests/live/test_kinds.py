#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): every kind of memory counted as the kernel counts it
(issue 24), with the fixture tests/live/kinds.c:

- sparse: reservations of 1 GiB and 1 TiB (MAP_NORESERVE) with 511, 512, 513,
  1,000, 1,024, 2,048 and 10,000 scattered pages written. In every pagemap
  mode each process's resident equals the kernel's Rss, sole its Private
  (Private_Clean + Private_Dirty) and effective resident its Pss, row by row
  (see TOL); the reservation's pages as recorded (`--record`, which must
  succeed) are exactly the pages written, each once; the replay gives the
  same figures as the scan. The read mode reads 8 bytes for every virtual
  page (3 s for 1 TiB here), so it covers the 1 GiB reservations and two of
  the 1 TiB ones (513 and 10,000 pages).
- zero: a process that only reads 64 MiB of anonymous memory: resident and
  effective resident of its own rows equal the kernel's Rss and Pss, zero is
  what its pagemap and /proc/kpageflags (KPF_ZERO_PAGE) say, 64 MiB of it in
  the region, in every pagemap mode, and the same once recorded and replayed;
  smaps agrees on its rows and says zero is not known. Then with THP set to
  always (sysstate: restored after), the same read maps the huge zero page
  (checked in kpageflags: the test fails if it does not), with the same
  checks; not on a kernel whose read faults map no zero page (booted with
  pvm_no_zero_page: the fixture maps the 4 KiB one with UFFDIO_ZEROPAGE,
  and no call maps the huge one). No pss-mismatch alert.
- hugetlb: nr_hugepages raised and a hugetlbfs mounted for the test
  (sysstate: restored after); a MAP_HUGETLB private mapping, an MFD_HUGETLB
  memfd and a hugetlbfs file, 16 huge pages each, shared by a forked child.
  Resident and effective resident of their own rows equal the kernel's Rss
  and Pss (hugetlb pages are in neither), hugetlb equals Shared_Hugetlb +
  Private_Hugetlb, effective hugetlb is half of it in each process (the sum
  is the 48 huge pages: conserved), every source's hugetlb (scan, read, auto,
  smaps) agrees, and so does the replay of each source's recording; in
  --files the memfd and the hugetlbfs file (mounted elsewhere than
  /dev/hugepages) are shared memory, with the 32 MiB hugetlb of each of
  the two processes; the
  --system hugetlb rows add up to Hugetlb with hugetlb_mapped the 48 pages,
  and with the two processes of a second such run stopped and scanned alone
  (--scan-pids), user_space (every frame they map, once) lies between the
  larger of their Rss and the sum of them (the huge pages, in no Rss, are not
  in it too); no pss-mismatch alert.

Each comparison is made once, with the test's processes stopped
(SIGSTOP, exmlive.frozen) while exmtop scans and the kernel's figures are
read, and only of what those processes alone hold: the rows of memory no
other process maps (private anonymous memory, heap, stack: test_kinds's
own_rows, the mappings summed from smaps by exmtop's row name), the
recorded pages of the reservation, zero, hugetlb and effective hugetlb.
Resident and sole are compared with the rows' Rss and Private_* exactly.
TOL: smaps prints each mapping's Pss in whole kB, truncated (and the
per-page shares it sums are truncated by under 1/4096 byte a page):
effective resident may exceed Pss by 1025 bytes per mapping of the row,
and fall 0.001 byte per mapping under it (exmtop's JSON rounds to the
thousandth), far below what is checked (a page counted twice: 4 KiB each,
2 MiB for 512 regions read twice; the zero page: 64 MiB; hugetlb: 96 MiB).
A process's whole Rss, USS and Pss are not compared: they move whenever
another process maps or unmaps a library page it shares.

unexplained (--system) is not compared: it moves with everything the
machine does between two scans (100 MiB in a minute, 55 MB in a second,
seen with other tests running), and no process of the test can hold it
still.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40
COUNTS = (511, 512, 513, 1000, 1024, 2048, 10000)
READ_TIB = (513, 10000)
KPF_THP = 1 << 22
KPF_ZERO_PAGE = 1 << 24
HUGE_N = 16


def kinds_path():
    """tests/live/kinds.c built here, or KINDS= (a prebuilt one: the QEMU
    guest has no compiler)."""
    return os.environ.get("KINDS") or exmlive.plain_program("kinds")


def kinds_static():
    """tests/live/kinds.c linked statically: no page of a library is
    mapped, so none that exmtop maps too while it runs (its own, unscanned
    mapping makes the kernel call such a page shared: not exclusive to the
    fixture while exmtop runs, exclusive to an oracle read before and
    after it)."""
    return exmlive.plain_program("kinds", ["-static"], "static")


class Kinds:
    """One kinds process, started and parsed; stop() ends it. path: the
    program (kinds_path() when None)."""

    def __init__(self, *args, path=None):
        self.proc = subprocess.Popen([path or kinds_path()] +
                                     [str(a) for a in args],
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     start_new_session=True)
        self.regions = {}
        self.pids = []
        for raw in self.proc.stdout:
            w = raw.decode().split()
            if w and w[0] == "region":
                self.regions[w[1]] = (int(w[2], 16), int(w[3], 16))
            elif w and w[0] == "pids":
                self.pids = [int(x) for x in w[1:]]
            elif w and w[0] == "ready":
                break
        else:
            err = self.proc.stderr.read().decode().strip()
            self.stop()
            raise RuntimeError("kinds %s: %s" % (" ".join(map(str, args)),
                                                 err))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def rollup(pid):
    """smaps_rollup in bytes, by the kernel's own keys."""
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[0].endswith(":") and w[2] == "kB":
                out[w[0][:-1]] = int(w[1]) * 1024
    return out


def kernel(pid):
    r = rollup(pid)
    return {"rss": r["Rss"], "pss": r["Pss"],
            "uss": r["Private_Clean"] + r["Private_Dirty"],
            "hugetlb": r.get("Shared_Hugetlb", 0) + r.get("Private_Hugetlb",
                                                          0)}


def scan(args):
    """exmtop's JSON (every process, itself too), by pid."""
    doc = exmlive.exmtop_json(["--bytes", "--include-self"] + list(args))
    return doc, {p["pid"]: p for p in doc["processes"]}


FIELDS = ("vm", "rss", "erss", "sole", "zero", "hugetlb", "ehugetlb")


def mode_args(mode, pids):
    """exmtop's arguments for a pagemap mode ("smaps": that source). The
    read mode reads 8 bytes for every virtual page of every process it
    scans: minutes for a full scan with an ASan build's 20 TiB shadow
    running beside (seen), so it scans the test's processes only
    (--scan-pids: -p selects rows of a full scan)."""
    if mode == "smaps":
        return ["--source", "smaps"]
    args = ["--pagemap-mode", mode]
    if mode == "read":
        args += ["--scan-pids", ",".join(str(p) for p in pids)]
    return args


def recorded_scan(args, rec, pids):
    """The scan of scan(), recorded in rec (made afresh) by the same run;
    (rows by pid, differences): --record failing, or the replay of pids
    differing from the scan in any of FIELDS."""
    for p in (rec, rec + "-wal", rec + "-shm"):
        if os.path.exists(p):
            os.unlink(p)
    rc, out, err = exmlive.run_exmtop(["-b", "--format", "json", "--bytes",
                                       "--include-self", "--record", rec,
                                       "-n", "1"] + list(args))
    if rc != 0:
        return {}, ["--record %s exited %d: %s" % (" ".join(args), rc,
                                                    err.strip())]
    rows = {p["pid"]: p for p in json.loads(out)["processes"]}
    doc = exmlive.exmtop_json(["--bytes", "--replay", rec])
    replayed = {p["pid"]: p for p in doc["processes"]}
    bad = []
    for pid in pids:
        a, b = rows.get(pid), replayed.get(pid)
        if a is None or b is None or any(a.get(f) != b.get(f)
                                         for f in FIELDS):
            bad.append("%s: the replay of pid %d differs: %r / %r" %
                       (" ".join(args), pid, a, b))
    return rows, bad


def smaps_regions(pid, regions):
    """{region name: {smaps key: bytes}} of pid's mappings starting where
    kinds' regions (Kinds.regions) start."""
    starts = {s: n for n, (s, _) in regions.items()}
    out, cur = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if w and "-" in w[0] and not w[0].endswith(":"):
                name = starts.get(int(w[0].split("-")[0], 16))
                cur = out.setdefault(name, {}) if name else None
            elif cur is not None and len(w) >= 3 and w[2] == "kB":
                cur[w[0].rstrip(":")] = int(w[1]) * 1024
    return out


def page_words(pid, start, end, ps):
    """pagemap words of [start, end)."""
    fd = os.open("/proc/%d/pagemap" % pid, os.O_RDONLY)
    try:
        data = os.pread(fd, (end - start) // ps * 8, start // ps * 8)
    finally:
        os.close(fd)
    return struct.unpack("=%dQ" % (len(data) // 8), data)


def kpageflags(pfn):
    fd = os.open("/proc/kpageflags", os.O_RDONLY)
    try:
        return struct.unpack("=Q", os.pread(fd, 8, pfn * 8))[0]
    finally:
        os.close(fd)


def zero_bytes(pid, ps):
    """Bytes of pid's address space mapped to the zero page or the huge
    zero page, from its pagemap and the frames' kpageflags (all but the
    huge mappings nothing is ever read from, [vsyscall] aside)."""
    total = 0
    flags = {}
    for v in exmlive.read_maps(pid):
        if v.end - v.start > 64 * GiB or v.name == "[vsyscall]":
            continue
        for w in page_words(pid, v.start, v.end, ps):
            if not w & exmlive.PM_PRESENT:
                continue
            pfn = w & exmlive.PM_PFN_MASK
            if pfn not in flags:
                flags[pfn] = kpageflags(pfn)
            if flags[pfn] & KPF_ZERO_PAGE:
                total += ps
    return total


OWN_ROWS = {"": "[anon]", "[heap]": "[heap]", "[stack]": "[stack]"}


def own_rows(pid, names=None):
    """The kernel's figures (smaps, mapping by mapping) of the rows of pid
    that no process outside the test maps: {exmtop's row name: {"n":
    mappings, "rss", "pss", "uss"}}. names: smaps name -> row name
    (OWN_ROWS: private anonymous memory, heap, stack)."""
    names = OWN_ROWS if names is None else names
    out, cur = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if "-" in w[0] and not w[0].endswith(":"):
                name = line.rstrip("\n").split(None, 5)
                row = names.get(name[5] if len(name) > 5 else "")
                cur = None
                if row is not None:
                    cur = out.setdefault(row, {"n": 0, "rss": 0, "pss": 0,
                                               "uss": 0})
                    cur["n"] += 1
            elif cur is not None and len(w) >= 3 and w[2] == "kB":
                key = {"Rss:": "rss", "Pss:": "pss", "Private_Clean:": "uss",
                       "Private_Dirty:": "uss"}.get(w[0])
                if key:
                    cur[key] += int(w[1]) * 1024
    return out


def compare(what, row, own, erss_too=True, sole_too=False):
    """row (a process's JSON, taken while the process was stopped) against
    own (own_rows() of the same stopped process), row by row: a list of
    differences. Resident and sole exactly; effective resident within
    smaps' kB truncation (TOL)."""
    if row is None:
        return ["%s: not listed" % what]
    files = {f.get("file"): f for f in row.get("files") or []}
    bad = []
    if "[anon]" not in own:
        bad.append("%s: the kernel lists no anonymous mapping" % what)
    for name, k in sorted(own.items()):
        f = files.get(name)
        if f is None:
            if k["rss"]:
                bad.append("%s: no row %s (kernel Rss %d)" % (what, name,
                                                               k["rss"]))
            continue
        if f.get("rss") != k["rss"]:
            bad.append("%s %s: rss %r, kernel Rss %d" %
                       (what, name, f.get("rss"), k["rss"]))
        if erss_too:
            erss = f.get("erss")
            d = (erss if erss is not None else float("nan")) - k["pss"]
            if not -0.001 * k["n"] <= d <= 1025 * k["n"]:
                bad.append("%s %s: erss %r - Pss %d = %.3f, not in [0, %d]"
                           % (what, name, erss, k["pss"], d, 1025 * k["n"]))
        if sole_too and f.get("sole") != k["uss"]:
            bad.append("%s %s: sole %r, kernel Private %d" %
                       (what, name, f.get("sole"), k["uss"]))
    return bad


def once(c, what, bad):
    """One comparison, no second try: its differences printed, then
    checked."""
    for b in bad:
        print("  " + b)
    c.check(not bad, "%s (%d differences)" % (what, len(bad)))


# ---------------------------------------------------------------- sparse


def written_pages(size, n, ps):
    """The page offsets kinds sparse writes (see kinds.c)."""
    step = size // ps // n
    return sorted(i * step + i % 7 for i in range(n))


def recorded_pages(path, pid, start):
    """The page offsets of pid's mapping at start in the recording's first
    snapshot, each with its count of run rows covering it."""
    return [off for r in exmlive.recorded_runs(path, pid, start)
            for off in range(r[0], r[0] + r[1])]


def check_sparse(c, ps, modes, tmp):
    procs = {}
    try:
        for size in (GiB, TiB):
            for n in COUNTS:
                procs[(size, n)] = Kinds("sparse", size, n)
        for mode in modes:
            if mode == "read":  # 8 bytes per virtual page: see above
                for (size, n), k in procs.items():
                    if size == TiB and n not in READ_TIB:
                        k.stop()
            live = {key: k for key, k in procs.items()
                    if k.proc.poll() is None}
            rec = os.path.join(tmp, "%s.exmrec" % mode)

            pids = [k.pids[0] for k in live.values()]
            with exmlive.frozen(pids):
                rows, bad = recorded_scan(mode_args(mode, pids), rec, pids)
                for key, k in live.items() if rows else ():
                    pid = k.pids[0]
                    what = "[%s] %d GiB, %d pages" % (mode, key[0] // GiB,
                                                      key[1])
                    bad += compare(what, rows.get(pid), own_rows(pid),
                                   sole_too=True)
                    start = k.regions["sparse"][0]
                    got = recorded_pages(rec, pid, start)
                    want = written_pages(key[0], key[1], ps)
                    if got != want:
                        bad.append("%s: recorded %d pages (%d distinct), "
                                   "written %d" % (what, len(got),
                                                   len(set(got)), len(want)))
            once(c, "[%s] sparse reservations: Rss, Private, Pss of their "
                 "own rows, recorded pages, replay" % mode, bad)
    finally:
        for k in procs.values():
            k.stop()


# ---------------------------------------------------------------- zero


def check_zero(c, ps, modes, thp, tmp):
    name = "thpzero" if thp else "zero"
    k = Kinds("zero", 64 * MiB, "thp" if thp else "nothp")
    rec = os.path.join(tmp, "zero.exmrec")
    try:
        pid = k.pids[0]
        start, end = k.regions[name]
        words = page_words(pid, start, end, ps)
        pfns = {w & exmlive.PM_PFN_MASK for w in words
                if w & exmlive.PM_PRESENT}
        c.eq(sum(1 for w in words if w & exmlive.PM_PRESENT),
             64 * MiB // ps, "[%s] every page of the region present" % name)
        c.check(pfns and all(kpageflags(f) & KPF_ZERO_PAGE for f in pfns),
                "[%s] every frame of the region is a zero page "
                "(KPF_ZERO_PAGE)" % name)
        if thp:
            c.check(pfns and all(kpageflags(f) & KPF_THP for f in pfns) and
                    len(pfns) == 2 * MiB // ps,
                    "[thpzero] the region maps the huge zero page (%d "
                    "frames; needs THP and use_zero_page)" % len(pfns))
        zero = zero_bytes(pid, ps)
        c.check(zero >= 64 * MiB, "[%s] kpageflags: %d bytes of zero "
                "pages, the region's 64 MiB among them" % (name, zero))
        for mode in modes:
            with exmlive.frozen([pid]):
                rows, bad = recorded_scan(mode_args(mode, [pid]), rec,
                                          [pid])
                row = rows.get(pid)
                bad += compare("[%s %s]" % (name, mode), row, own_rows(pid))
                now = zero_bytes(pid, ps)
            if row and row.get("zero") != now:
                bad.append("[%s %s] zero %r, kpageflags %d" %
                           (name, mode, row.get("zero"), now))
            once(c, "[%s %s] Rss and Pss of its own rows, zero; recorded "
                 "and replayed" % (name, mode), bad)
        with exmlive.frozen([pid]):
            _, rows = scan(["--source", "smaps"])
            own = own_rows(pid)
        row = rows.get(pid) or {}
        once(c, "[%s smaps] Rss and Pss of its own rows" % name,
             compare("[%s smaps]" % name, row, own))
        c.eq(row.get("zero"), None, "[%s smaps] zero not measured" % name)
        doc = exmlive.exmtop_json(["--bytes", "--include-self", "--alerts"])
        mism = [a for a in doc.get("alerts") or []
                if a.get("kind") == "pss-mismatch" and a.get("pid") == pid]
        c.eq(mism, [], "[%s] no pss-mismatch alert" % name)
    finally:
        k.stop()


# ---------------------------------------------------------------- hugetlb


def meminfo():
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            w = line.split()
            out[w[0].rstrip(":")] = int(w[1]) * (1024 if len(w) > 2 else 1)
    return out


def wait_free_huge(n):
    """Until n huge pages are free: those of a process that exited may be
    freed a moment after (a MAP_HUGETLB right after once failed with
    ENOMEM). False after 20 s."""
    for _ in range(400):
        if meminfo()["HugePages_Free"] >= n:
            return True
        time.sleep(0.05)
    return False


def system_rows(doc):
    return {r["name"]: r["bytes"] for r in doc["system"]}


def check_hugetlb(c, ps, modes, tmp):
    mi = meminfo()
    if mi.get("Hugepagesize") != 2 * MiB:
        c.check(False, "hugetlb: the default huge page size is %r, the "
                "test needs 2 MiB" % mi.get("Hugepagesize"))
        return
    with sysstate.Changes("test_kinds_hugetlb") as ch:
        want = 3 * HUGE_N + 2
        ch.write("/proc/sys/vm/nr_hugepages",
                 str(mi["HugePages_Total"] + want))
        if meminfo()["HugePages_Free"] < want:
            c.check(False, "hugetlb: could not get %d free huge pages "
                    "(HugePages_Free %d)" % (want,
                                             meminfo()["HugePages_Free"]))
            return
        mnt = "/run/exm-hugetlbfs-%d" % os.getpid()
        ch.command(["mkdir", mnt], ["rmdir", mnt])
        ch.command(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M",
                    "none", mnt], ["umount", "-l", mnt])
        k = Kinds("huge", HUGE_N, mnt)
        try:
            hug = {pid: kernel(pid) for pid in k.pids}
            total = 3 * HUGE_N * 2 * MiB
            c.eq(sum(x["hugetlb"] for x in hug.values()), 2 * total,
                 "hugetlb: the kernel's Shared+Private_Hugetlb of the two "
                 "processes")
            figs = {}
            for mode in modes + ["smaps"]:
                args = mode_args(mode, k.pids)

                with exmlive.frozen(k.pids):
                    rows, bad = recorded_scan(
                        args, os.path.join(tmp, "huge.exmrec"), k.pids)
                    own = {pid: own_rows(pid) for pid in k.pids}
                for pid in k.pids:
                    row = rows.get(pid)
                    what = "[hugetlb %s] pid %d" % (mode, pid)
                    bad += compare(what, row, own[pid])
                    if row and row.get("hugetlb") != hug[pid]["hugetlb"]:
                        bad.append("%s: hugetlb %r, kernel %d" %
                                   (what, row.get("hugetlb"),
                                    hug[pid]["hugetlb"]))
                    if mode == "smaps":
                        if row and row.get("ehugetlb") is not None:
                            bad.append("%s: ehugetlb %r, not measured "
                                       "by smaps" % (what,
                                                     row.get("ehugetlb")))
                    elif row and row.get("ehugetlb") != total / 2:
                        bad.append("%s: ehugetlb %r, want %d" %
                                   (what, row.get("ehugetlb"),
                                    total // 2))
                    if row:
                        figs.setdefault(pid, {})[mode] = row.get("hugetlb")
                once(c, "[hugetlb %s] Rss and Pss of their own rows, "
                     "hugetlb, effective hugetlb; recorded and replayed" %
                     mode, bad)
            for pid, by in figs.items():
                c.eq(len(set(by.values())), 1, "hugetlb: pid %d: every "
                     "source's hugetlb agrees: %r" % (pid, by))

            doc = exmlive.exmtop_json(["--bytes", "--include-self",
                                       "--alerts"])
            mism = [a for a in doc.get("alerts") or []
                    if a.get("kind") == "pss-mismatch" and
                    a.get("pid") in k.pids]
            c.eq(mism, [], "[hugetlb] no pss-mismatch alert")
            for mode in modes + ["smaps"]:
                doc = exmlive.exmtop_json(["--bytes", "--files"] +
                                          mode_args(mode, k.pids))
                got = sorted((r["file"].startswith(mnt + "/"), r["kind"],
                              r["nprocs"], r["hugetlb"])
                             for r in doc["files"]
                             if r["file"].startswith(mnt + "/") or
                             r["file"].startswith("/memfd:kinds-huge"))
                c.eq(got, [(False, "shmem", 2, total // 3 * 2),
                           (True, "shmem", 2, total // 3 * 2)],
                     "[hugetlb %s] --files: the memfd's and the hugetlbfs "
                     "file's rows (kind, processes, hugetlb)" % mode)
            c.check(all(os.path.exists("/proc/%d" % p) for p in k.pids),
                    "[hugetlb] the processes checked for alerts were alive")

            def system_once():
                """--system, once, with the huge pages mapped by a second
                kinds process (the first is stopped first), its two
                processes stopped and scanned alone (--scan-pids), then
                again when it has exited."""
                k.stop()
                if not wait_free_huge(3 * HUGE_N):
                    return ["the huge pages of a stopped process were not "
                            "freed in 20 s"]
                k2 = Kinds("huge", HUGE_N, mnt)
                try:
                    with exmlive.frozen(k2.pids):
                        doc = exmlive.exmtop_json(
                            ["--bytes", "--system", "--scan-pids",
                             ",".join(str(p) for p in k2.pids)])
                        pool_now = meminfo()["Hugetlb"]
                        rss = [kernel(p)["rss"] for p in k2.pids]
                finally:
                    k2.stop()
                after = system_rows(exmlive.exmtop_json(["--bytes",
                                                         "--system"]))
                rows = system_rows(doc)
                bad = []
                if sum(rows.values()) != doc["mem_total"]:
                    bad.append("rows add up to %d, MemTotal %d" %
                               (sum(rows.values()), doc["mem_total"]))
                if rows.get("hugetlb_mapped") != total:
                    bad.append("hugetlb_mapped %r, want %d" %
                               (rows.get("hugetlb_mapped"), total))
                pool = (rows.get("hugetlb_mapped", 0) +
                        rows.get("hugetlb_unmapped", 0) +
                        rows.get("hugetlb_free", 0))
                if pool != pool_now:
                    bad.append("hugetlb rows %d, Hugetlb %d" %
                               (pool, pool_now))
                # user_space is the frames the two (stopped) processes
                # map, each once: at least either's Rss, at most their
                # sum; hugetlb pages are in no Rss, so counted in
                # user_space too they would add 96 MiB
                us = rows.get("user_space")
                if us is None or not max(rss) <= us <= sum(rss):
                    bad.append("user_space %r, not within the kernel's "
                               "Rss of the two processes %r" % (us, rss))
                if after.get("hugetlb_mapped") != 0:
                    bad.append("hugetlb_mapped %r once unmapped" %
                               after.get("hugetlb_mapped"))
                return bad
            once(c, "[hugetlb] --system rows", system_once())
        finally:
            k.stop()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap, nr_hugepages, THP mode)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live kinds")
    ps = os.sysconf("SC_PAGESIZE")
    modes = exmlive.pagemap_modes()
    tmp = tempfile.mkdtemp(prefix="exm-kinds-", dir="/var/tmp")
    try:
        check_sparse(c, ps, modes, tmp)
        check_zero(c, ps, modes, False, tmp)
        if not exmlive.read_fault_maps_zero():
            print("note: read faults get pages of their own here (booted "
                  "with pvm_no_zero_page): no huge zero page to check")
        else:
            with sysstate.Changes("test_kinds_thp") as ch:
                ch.write("/sys/kernel/mm/transparent_hugepage/enabled",
                         "always")
                ch.write(
                    "/sys/kernel/mm/transparent_hugepage/use_zero_page",
                    "1")
                check_zero(c, ps, modes, True, tmp)
        check_hugetlb(c, ps, modes, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

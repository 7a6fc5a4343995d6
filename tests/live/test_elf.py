#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): the ELF drill-down, checked exactly.

Builds test libraries here and now (tests/live/elf/): libelft.so with
64 KiB arrays in .data, .rodata and .bss (one fully written, one read, one
half written, one untouched) and functions of known size in .text; a
stripped copy whose symbols live in a separate debug file found by build-id;
a copy with only .dynsym; a C++ library. elfload processes load them and
touch the arrays, then wait. Then:

  1. every section row and every symbol row of `exmtop -b --sections` /
     `--symbols FILE:*` for each of three processes loading libelft.so
     equals, byte for byte, an independent oracle: pagemap read here
     (exmlive.Oracle's page facts), section headers parsed here, symbols
     from nm, load bias from /proc/PID/maps, the .bss mapping found here;
  2. the arrays whose pages the kernel sets up deterministically have their
     designed sizes: written arrays (.data COW and .bss) exactly resident,
     sole and writable; read arrays resident with effective = size / 3;
     untouched .bss arrays not resident; functions' VM = their nm size;
  3. section rows (with gap rows) add up to the library's mappings plus
     its .bss mapping, in VM, resident and effective resident;
  4. across processes: sums over the three, nprocs 3, per-process
     breakdown present; --format openmetrics (across and -p) passes
     promtool and gives each section's sizes as JSON does;
  5. stripped library: symbols from the debug file (build-id), dynsym-only
     library: exported symbols only, C++ library: demangled names;
  6. a library truncated while mapped: exmtop neither fails nor crashes.

Pages the kernel maps without being touched (fault-around, large folios in
the page cache) are why untouched file-backed arrays are checked against
the oracle only, not against zero.
"""

import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
from exmlive import (EFF_TOL, PM_EXCLUSIVE, PM_FILE, PM_PRESENT,  # noqa
                     finish, zero_sizes)

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.join(HERE, "elf")
CC = os.environ.get("CC") or "cc"
CXX = os.environ.get("CXX") or "c++"
KEYS = ("vm", "rss", "erss", "swap", "eswap", "mapped", "emapped", "sole",
        "writable")
KB64 = 65536
SHF_ALLOC, SHF_TLS, SHT_NOBITS = 0x2, 0x400, 8


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(tmp):
    """Compile the libraries and the loader; returns their paths."""
    lib = os.path.join(tmp, "libelft.so")
    common = ["-shared", "-fPIC", "-O1", "-g",
              "-Wl,-z,max-page-size=0x10000"]
    sh([CC] + common + ["-Wl,--build-id", "-o", lib,
                        os.path.join(SRCDIR, "libelft.c")])
    # Stripped, with its symbols in a debug file found by build-id.
    stripped = os.path.join(tmp, "libelft_s.so")
    dbg = os.path.join(tmp, "libelft_s.debug")
    sh(["objcopy", "--only-keep-debug", lib, dbg])
    sh(["objcopy", "--strip-all", lib, stripped])
    bid = build_id(stripped)
    ddir = os.path.join(tmp, "debug", ".build-id", bid[:2])
    os.makedirs(ddir)
    shutil.move(dbg, os.path.join(ddir, bid[2:] + ".debug"))
    # Only .dynsym: no build-id, so no debug file can be found.
    dyn = os.path.join(tmp, "libelft_dyn.so")
    sh([CC] + common + ["-Wl,--build-id=none", "-o", dyn,
                        os.path.join(SRCDIR, "libelft.c")])
    sh(["strip", "--strip-all", dyn])
    cxx = os.path.join(tmp, "libelfcxx.so")
    sh([CXX] + common + ["-o", cxx, os.path.join(SRCDIR, "libelfcxx.cc")])
    # Linked at a fixed non-zero base, as prelink leaves a library.
    pre = os.path.join(tmp, "libelft_pre.so")
    sh([CC] + common + ["-Wl,-Ttext-segment=0x50000000", "-o", pre,
                        os.path.join(SRCDIR, "libelft.c")])
    trunc = os.path.join(tmp, "libelft_t.so")
    shutil.copy(lib, trunc)
    loader = os.path.join(tmp, "elfload")
    sh([CC, "-o", loader, os.path.join(SRCDIR, "elfload.c"), "-ldl"])
    nopie = os.path.join(tmp, "elfload_nopie")
    sh([CC, "-fno-pie", "-no-pie", "-o", nopie,
        os.path.join(SRCDIR, "elfload.c"), "-ldl"])
    big = build_big(tmp)
    return dict(lib=lib, stripped=stripped, dyn=dyn, cxx=cxx, trunc=trunc,
                pre=pre, big=big,
                loader=loader, loader_nopie=nopie,
                debugdir=os.path.join(tmp, "debug"))


BIG_OBJECTS, BIG_FUNCS = 40000, 8000


def big_size(i):
    """The size of libbig.so's object big_oI."""
    return 8 + i % 56


def build_big(tmp):
    """libbig.so: BIG_OBJECTS read-only objects big_oI of big_size(I)
    bytes and BIG_FUNCS functions big_fI, all exported, stripped to its
    .dynsym (the size of libLLVM's, which not every machine has)."""
    src = os.path.join(tmp, "big.c")
    with open(src, "w") as f:
        for i in range(BIG_OBJECTS):
            f.write("const char big_o%d[%d] = {%d};\n" %
                    (i, big_size(i), i % 100 + 1))
        for i in range(BIG_FUNCS):
            f.write("int big_f%d(int x) { return x * %d + %d; }\n" %
                    (i, i, i % 7))
    big = os.path.join(tmp, "libbig.so")
    sh([CC, "-shared", "-fPIC", "-O0", "-Wl,--build-id=none", "-o", big,
        src])
    sh(["strip", "--strip-all", big])
    return big


# ------------------------------------------------------------ ELF, here


def elf_headers(path):
    """(PT_LOADs, alloc sections) of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    (phoff, shoff) = struct.unpack_from("<QQ", data, 0x20)
    (phentsize, phnum, shentsize, shnum, shstrndx) = \
        struct.unpack_from("<HHHHH", data, 0x36)
    loads = []
    for i in range(phnum):
        (ptype, _fl, off, vaddr, _pa, filesz, memsz, _al) = \
            struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
        if ptype == 1:
            loads.append((off, vaddr, filesz, memsz))
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
             for i in range(shnum)]
    stroff = shdrs[shstrndx][4]

    def name(o):
        end = data.index(b"\0", stroff + o)
        return data[stroff + o:end].decode()
    secs = []
    for (nm, typ, flags, addr, _off, size, _l, _i, _a, _e) in shdrs:
        if not flags & SHF_ALLOC or not addr or not size:
            continue
        if flags & SHF_TLS and typ == SHT_NOBITS:
            continue
        secs.append((name(nm), addr, size))
    return loads, secs


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    raise RuntimeError("no build-id in " + path)


def nm_symbols(path):
    """Defined symbols with a size, as nm sees them: name -> (addr, size)."""
    out = subprocess.run(["nm", "-S", "--defined-only", path], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    syms = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in "TtDdBbRr":
            syms[w[3]] = (int(w[0], 16), int(w[1], 16))
    return syms


# ------------------------------------------------------------ processes


class Loaded:
    """elfload processes; a context manager that kills them."""

    def __init__(self):
        self.procs = []

    def start(self, loader, lib, fn):
        p = subprocess.Popen([loader, lib, fn], stdout=subprocess.PIPE,
                             start_new_session=True)
        line = p.stdout.readline().decode().strip()
        if line != "ready":
            raise RuntimeError("elfload %s %s failed" % (lib, fn))
        self.procs.append(p)
        return p.pid

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()


def lib_regions(pid, path, loads, ps):
    """The library's pieces of pid's address space: [(start, end)], bias."""
    vmas = exmlive.read_maps(pid)
    mine = [v for v in vmas if exmlive.strip_deleted(v.name) == path]
    first = [v for v in mine if v.offset == 0][0]
    off0, vaddr0 = loads[0][0], loads[0][1]
    bias = first.start - (vaddr0 - off0)
    regions = [(v.start, v.end) for v in mine]
    off, vaddr, filesz, memsz = loads[-1]
    file_end = (bias + vaddr + filesz + ps - 1) // ps * ps
    mem_end = (bias + vaddr + memsz + ps - 1) // ps * ps
    for v in vmas:
        if v.start == file_end and v.inode == 0 and mem_end > file_end:
            regions.append((v.start, min(v.end, mem_end)))
    return sorted(regions), bias


def byte_sizes(orc, pid, regions, lo, hi):
    """docs/DESIGN.md section 3 sizes of [lo, hi) within regions, byte by byte."""
    ps = orc.ps
    s = zero_sizes()
    for v in orc.vmas[pid]:
        for (rs, re_) in regions:
            a, b = max(v.start, rs, lo), min(v.end, re_, hi)
            if a >= b:
                continue
            s["vm"] += b - a
            for addr, w in v.words:
                n = min(addr + ps, b) - max(addr, a)
                if n <= 0:
                    continue
                k = orc.key(w)
                if w & PM_PRESENT:
                    s["rss"] += n
                    s["erss"] += Fraction(n, orc.maps[k])
                    if orc.maps[k] == 1:  # mapped once: the USS
                        s["sole"] += n
                    if (not w & PM_FILE and w & PM_EXCLUSIVE and
                            "w" in v.perms):
                        s["writable"] += n
                else:
                    s["swap"] += n
                    s["eswap"] += Fraction(n, orc.maps[k])
    return finish(s)


def add_sizes(a, b):
    return {k: a[k] + b[k] for k in a}


def cmp_sizes(c, got, want, what):
    for k in KEYS:
        if k in ("erss", "eswap", "emapped"):
            c.near(got.get(k), want[k], EFF_TOL, "%s %s" % (what, k))
        else:
            c.eq(got.get(k), want[k], "%s %s" % (what, k))


def rows_by(rows, key):
    out = {}
    for r in rows:
        out.setdefault(r[key], r)
    return out


# ------------------------------------------------------------ checks


def check_ranges(c, got, want, orc, pid, regions, bias, what):
    """Each (name, addr, size) of want has a row in got (by name) with that
    address and size, and the oracle's sizes for those bytes."""
    for (name, addr, size) in want:
        w = "%s %s" % (what, name)
        r = got.get(name)
        if not c.check(r is not None, w + " present"):
            continue
        c.eq(int(r["addr"], 16), addr, w + " addr")
        c.eq(r["size"], size, w + " size")
        cmp_sizes(c, r, byte_sizes(orc, pid, regions, bias + addr,
                                   bias + addr + size), w)


def check_sections(c, pid, orc, path, ps):
    """Every section row of path in pid against the oracle; the rows add
    up to the file's regions. Returns (rows, regions, bias)."""
    loads, secs = elf_headers(path)
    regions, bias = lib_regions(pid, path, loads, ps)
    js = exmlive.exmtop_json(["--bytes", "--sections", path, "-p", str(pid)])
    c.eq(js["state"], "ok", "pid %d %s state" % (pid, path))
    c.eq(js["pid"], pid, "pid in JSON")
    rows = js["sections"]
    named = rows_by([r for r in rows if r["section"] is not None], "section")
    check_ranges(c, named, secs, orc, pid, regions, bias,
                 "pid %d %s section" % (pid, os.path.basename(path)))
    total = byte_sizes(orc, pid, regions, 0, 1 << 64)
    sums = {k: sum(r[k] for r in rows) for k in ("vm", "rss", "erss",
                                                  "sole", "writable")}
    what = "pid %d %s: rows add up to the mappings" % (pid, path)
    c.eq(sums["vm"], total["vm"], what + ", vm")
    c.eq(sums["rss"], total["rss"], what + ", rss")
    c.near(sums["erss"], total["erss"], 0.05, what + ", erss")
    c.eq(sums["writable"], total["writable"], what + ", writable")
    return rows, regions, bias


def check_process(c, b, pid, orc, syms, ps, path):
    rows, regions, bias = check_sections(c, pid, orc, path, ps)
    c.eq(bias % KB64, 0, "pid %d: library loaded 64 KiB aligned" % pid)

    js = exmlive.exmtop_json(["--bytes", "--symbols", path + ":*", "-p",
                              str(pid)])
    c.eq(js["symbols_from"], "symtab", "libelft symbols from symtab")
    got = rows_by(js["symbols"], "symbol")
    check_ranges(c, got, [(n, a, sz) for n, (a, sz) in syms.items()], orc,
                 pid, regions, bias, "pid %d symbol" % pid)
    designed(c, got, pid, nreaders=3)
    return rows


def designed(c, got, pid, nreaders):
    """Sizes the test library was built to have, where the kernel's page
    set-up is deterministic."""
    full = {"vm": KB64, "rss": KB64, "erss": KB64, "sole": KB64,
            "writable": KB64}
    half = {"vm": KB64, "rss": KB64 // 2, "erss": KB64 // 2,
            "sole": KB64 // 2, "writable": KB64 // 2}
    none = {"vm": KB64, "rss": 0, "erss": 0, "sole": 0, "writable": 0}
    read = {"vm": KB64, "rss": KB64, "erss": Fraction(KB64, nreaders),
            "sole": KB64 if nreaders == 1 else 0, "writable": 0}
    want = {"d_full": full, "b_full": full, "b_half": half, "b_none": none,
            "d_read": read, "r_read": read}
    for name, w in want.items():
        r = got.get(name)
        if not c.check(r is not None, "pid %d: %s listed" % (pid, name)):
            continue
        for k, v in w.items():
            if k == "erss":
                c.near(r[k], v, EFF_TOL, "designed pid %d %s %s" %
                       (pid, name, k))
            else:
                c.eq(r[k], v, "designed pid %d %s %s" % (pid, name, k))
    r = got.get("d_half")
    if c.check(r is not None, "d_half listed"):
        # The written half is this process's own copy; the other half may
        # be mapped too if the kernel's fault-around brought in those page
        # cache pages here and not in the other readers (timing): sole is
        # then more. The oracle comparison above checks the exact value.
        c.check(KB64 // 2 <= r["sole"] <= KB64,
                "designed d_half sole: the written half, at most all "
                "(got %r)" % r["sole"])
        c.eq(r["writable"], KB64 // 2, "designed d_half writable")
    for fn in ("elft_small", "elft_loop", "elft_touch"):
        r = got.get(fn)
        if c.check(r is not None, "function %s listed" % fn):
            c.eq(r["vm"], r["size"], "%s vm = its size" % fn)
            c.eq(r["rss"], r["size"], "%s resident (it ran)" % fn)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        return exmlive.SKIP
    for tool in (CC, CXX, "objcopy", "strip", "nm", "readelf", "promtool"):
        if not shutil.which(tool):
            print("SKIP: %s not found" % tool)
            return exmlive.SKIP
    c = exmlive.Checker("test_elf")
    ps = os.sysconf("SC_PAGE_SIZE")
    tmp = tempfile.mkdtemp(prefix="exm_elf_")
    os.environ["EXMTOP_DEBUG_DIR"] = os.path.join(tmp, "debug")
    try:
        b = build(tmp)
        with Loaded() as ld:
            pids = [ld.start(b["loader"], b["lib"], "elft_touch")
                    for _ in range(3)]
            spid = ld.start(b["loader"], b["stripped"], "elft_touch")
            dpid = ld.start(b["loader"], b["dyn"], "elft_touch")
            cpid = ld.start(b["loader"], b["cxx"], "elft_cxx")
            tpid = ld.start(b["loader"], b["trunc"], "-")
            npid = ld.start(b["loader_nopie"], b["cxx"], "-")
            ppid = ld.start(b["loader"], b["pre"], "elft_touch")
            syms = nm_symbols(b["lib"])
            orc = exmlive.Oracle(pids, ps)
            per = [check_process(c, b, pid, orc, syms, ps, b["lib"])
                   for pid in pids]
            # Executables: the PIE loader and a non-PIE one (bias 0);
            # every loader maps the loader, so the oracle sees them all.
            allorc = exmlive.Oracle(pids + [spid, dpid, cpid, tpid, npid,
                                           ppid], ps)
            check_sections(c, pids[0], allorc, b["loader"], ps)
            _, _, bias = check_sections(c, npid, allorc,
                                        b["loader_nopie"], ps)
            c.eq(bias, 0, "non-PIE executable: load bias 0")
            # A prelinked-style library: its segments start at 0x50000000.
            loads, _ = elf_headers(b["pre"])
            c.eq(loads[0][1], 0x50000000, "prelinked library: base address")
            rows, _, bias = check_sections(c, ppid, allorc, b["pre"], ps)
            print("prelinked library loaded with bias %#x" % bias)
            pre = rows_by([r for r in rows if r["section"] is not None],
                          "section")
            c.check(".data" in pre and pre[".data"]["writable"] > 0,
                    "prelinked library: .data written")
            check_across(c, b, pids, per)
            check_variants(c, b, spid, dpid, cpid, tpid)
            check_big_library(c, b, ld)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


def check_across(c, b, pids, per):
    js = exmlive.exmtop_json(["--bytes", "--sections", b["lib"]])
    c.eq(js["pid"], None, "across: pid null")
    c.eq(js["nprocs"], 3, "across: nprocs")
    c.eq(sorted(p["pid"] for p in js["processes"]), sorted(pids),
         "across: per-process breakdown")
    rows = rows_by([r for r in js["sections"] if r["section"] is not None],
                   "section")
    for name, r in rows.items():
        parts = [rows_by(p, "section").get(name) for p in per]
        if not c.check(all(parts), "across %s in each process" % name):
            continue
        for k in ("vm", "rss", "sole", "writable"):
            c.eq(r[k], sum(p[k] for p in parts), "across %s %s" % (name, k))
        c.near(r["erss"], sum(p["erss"] for p in parts), 0.01,
               "across %s erss" % name)
    check_openmetrics(c, b, pids, rows, per)
    # CSV and text print the same table.
    rc, out, err = exmlive.run_exmtop(["-b", "--format", "csv", "--sections",
                                       b["lib"]])
    c.eq(rc, 0, "csv exit status")
    c.check(out.startswith("snapshot,time,") and "section" in
            out.splitlines()[0], "csv header: %r" % out[:80])
    c.check(all(ln.startswith("1,") for ln in out.splitlines()[1:]),
            "csv rows of snapshot 1")
    c.eq(len(out.splitlines()) - 1, len(js["sections"]), "csv row count")
    rc, out, err = exmlive.run_exmtop(["-b", "--sections", b["lib"]])
    c.eq(rc, 0, "text exit status")
    c.check(".bss" in out and "[gap]" in out, "text table lists sections")


def om_samples(text):
    """{(family, frozenset of (label, value)): value} of an exposition"""
    out = {}
    for ln in text.splitlines():
        m = re.match(r'^(\w+)(?:\{(.*)\})? (\S+)$', ln)
        if ln.startswith("#") or not m:
            continue
        labels = re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or "")
        out[(m.group(1), frozenset(labels))] = float(m.group(3))
    return out


def check_openmetrics(c, b, pids, rows, per):
    """--format openmetrics of the sections, across the three processes and
    of one: promtool passes, and a sample of each measured size of each
    named section, labelled by file, pid, section and address, equal to
    the JSON rows' (effective resident to 1/1000 byte)."""
    one = rows_by([r for r in per[0] if r["section"] is not None],
                  "section")
    for pid, want in [(None, rows), (pids[0], one)]:
        args = ["-b", "--format", "openmetrics", "--sections", b["lib"]]
        if pid:
            args += ["-p", str(pid)]
        rc, out, err = exmlive.run_exmtop(args)
        what = "openmetrics --sections%s" % (" -p" if pid else "")
        c.eq(rc, 0, what + " exit status")
        p = subprocess.run(["promtool", "check", "metrics"], input=out,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        c.eq(p.returncode, 0, what + " passes promtool: " + p.stdout)
        got = om_samples(out)
        c.check(out.endswith("# EOF\n"), what + " ends in # EOF")
        for name, r in want.items():
            labels = [("file", b["lib"]), ("section", name),
                      ("addr", "0x%x" % int(r["addr"], 16))]
            if pid:
                labels.append(("pid", str(pid)))
            for key, fam in (("rss", "resident"), ("sole", "sole"),
                             ("erss", "effective_resident")):
                v = got.get(("exmtop_section_%s_bytes" % fam,
                             frozenset(labels)))
                if key == "erss":
                    c.near(v, r[key], 0.001, "%s %s %s" % (what, name, key))
                else:
                    c.eq(v, r[key], "%s %s %s" % (what, name, key))


def dynsym_count(path):
    """Defined FUNC/OBJECT/NOTYPE/IFUNC symbols of .dynsym, by readelf."""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", path], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    n = 0
    for line in out.splitlines():
        w = line.split()
        if (len(w) >= 8 and w[0].endswith(":") and w[0] != "0:" and
                w[3] in ("FUNC", "OBJECT", "NOTYPE", "IFUNC") and
                w[6] not in ("UND", "ABS", "COM")):
            n += 1
    return n


def check_big_library(c, b, ld):
    """Every one of the 48,000 exported symbols of a big library (the
    test's libbig.so) appears, each object with its size."""
    lib = b["big"]
    pid = ld.start(b["loader"], lib, "-")
    want = dynsym_count(lib)
    c.eq(want, BIG_OBJECTS + BIG_FUNCS, "libbig.so: readelf's count of "
         "its exported symbols")
    js = exmlive.exmtop_json(["--bytes", "--symbols", lib + ":*", "-p",
                              str(pid)])
    c.eq(js["symbols_from"], "dynsym (exported only)", "libbig.so: symbols "
         "from")
    got = rows_by(js["symbols"], "symbol")
    c.eq(len(js["symbols"]), want, "libbig.so: every exported symbol, once")
    bad = [n for n in range(BIG_OBJECTS)
           if (got.get("big_o%d" % n) or {}).get("vm") != big_size(n)]
    c.check(not bad, "libbig.so: each object's vm is its size (%d differ, "
            "first %r)" % (len(bad), bad[:3]))
    c.check(all("big_f%d" % n in got for n in range(BIG_FUNCS)),
            "libbig.so: every function listed")


def check_variants(c, b, spid, dpid, cpid, tpid):
    js = exmlive.exmtop_json(["--bytes", "--symbols",
                              b["stripped"] + ":.data", "-p", str(spid)])
    c.eq(js["symbols_from"], "debug file", "stripped: symbols from")
    c.check((js["debug_file"] or "").startswith(b["debugdir"]),
            "stripped: debug file %r" % js["debug_file"])
    got = rows_by(js["symbols"], "symbol")
    for name in ("d_full", "d_read", "d_half", "d_none"):
        c.check(name in got, "stripped: %s from the debug file" % name)
    designed_one = {k: v for k, v in got.items()}
    if "d_full" in designed_one:
        c.eq(got["d_full"]["sole"], KB64, "stripped: d_full sole")
        c.eq(got["d_full"]["writable"], KB64, "stripped: d_full writable")
    if "d_read" in got:
        c.near(got["d_read"]["erss"], KB64, EFF_TOL,
               "stripped: d_read erss (one reader)")

    js = exmlive.exmtop_json(["--bytes", "--symbols", b["dyn"] + ":*",
                              "-p", str(dpid)])
    c.eq(js["symbols_from"], "dynsym (exported only)", "dynsym: source")
    got = rows_by(js["symbols"], "symbol")
    c.check("d_full" in got and "elft_touch" in got,
            "dynsym: exported symbols listed")
    c.check("completed.0" not in got and "deregister_tm_clones" not in got,
            "dynsym: local symbols absent")
    if "b_full" in got:
        c.eq(got["b_full"]["writable"], KB64, "dynsym: b_full writable")

    js = exmlive.exmtop_json(["--bytes", "--symbols", b["cxx"] + ":.text",
                              "-p", str(cpid)])
    names = [r["symbol"] for r in js["symbols"]]
    c.check("exm::Widget::grow(int)" in names,
            "C++: demangled grow in %r" % names)
    c.check("exm::Widget::shrink(long, char const*)" in names,
            "C++: demangled shrink")
    c.check(not any(n.startswith("_ZN3exm") for n in names),
            "C++: no mangled names left")

    # Truncated while mapped: cut the file under the running process.
    before = exmlive.exmtop_json(["--bytes", "--sections", b["trunc"], "-p",
                                  str(tpid)])
    vm = sum(r["vm"] for r in before["sections"])
    with open(b["trunc"], "r+b") as f:
        f.truncate(100)
    rc, out, err = exmlive.run_exmtop(["-b", "--format", "json", "--bytes",
                                       "--sections", b["trunc"], "-p",
                                       str(tpid)])
    c.eq(rc, 0, "truncated: exit status (%s)" % err.strip())
    try:
        js = exmlive.json.loads(out)
        c.check(js["state"] in ("ok", "not an ELF file",
                                "file unreadable"),
                "truncated: state %r" % js["state"])
        # Without a readable layout there is no .bss to attach: the rows
        # add up to the file's own mappings.
        fvm = sum(v.end - v.start for v in exmlive.read_maps(tpid)
                  if exmlive.strip_deleted(v.name) == b["trunc"])
        if js["state"] == "ok":
            c.eq(sum(r["vm"] for r in js["sections"]), fvm,
                 "truncated: rows add up to the file's mappings")
        else:
            c.eq(js["sections"], [], "truncated: no rows, only the state")
        c.check(vm >= fvm, "before truncation .bss was included")
    except ValueError:
        c.check(False, "truncated: JSON parses")


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers shared by the live tests: run exmtop and the sharer, read /proc,
and an independent page-level oracle that applies docs/DESIGN.md section 3 to
/proc/PID/pagemap, written from the definitions and sharing no code with
core/.

Exit codes follow automake: 0 pass, 1 fail, 77 skip, 99 hard error.
"""

import contextlib
import glob
import json
import os
import signal
import struct
import subprocess
import sys
import time
from fractions import Fraction

SKIP = 77
HARD_ERROR = 99


def run_main(main):
    """Run a test's main(); an unexpected exception is reported and is a
    hard error (exit 99), not a failure."""
    try:
        main()
    except Exception:  # noqa: BLE001 - report, then hard error
        import traceback
        traceback.print_exc()
        sys.exit(HARD_ERROR)

PM_PRESENT = 1 << 63
PM_SWAPPED = 1 << 62
PM_FILE = 1 << 61
PM_EXCLUSIVE = 1 << 56
PM_PFN_MASK = (1 << 55) - 1

SIZE_KEYS = ("vm", "rss", "erss", "swap", "eswap", "mapped", "emapped",
             "sole", "writable")
# Effective sizes are sums of fractions; everything else is whole bytes.
EFFECTIVE_KEYS = ("erss", "eswap", "emapped")
# JSON prints effective sizes in decimal: allow this much (bytes) of
# printing/rounding error when comparing them with an exact rational.
EFF_TOL = 0.01


def in_own_pid_ns(var):
    """Run this test again in a pid namespace of its own (its /proc
    mounted anew: only the test's own processes listed), unless the
    environment variable var says it already runs there."""
    if os.environ.get(var):
        return
    os.environ[var] = "1"
    sys.stdout.flush()
    os.execvp("unshare", ["unshare", "--pid", "--fork", "--mount-proc",
                          "--kill-child", sys.executable,
                          os.path.abspath(sys.argv[0])])


def builddir_path(env, default):
    return os.environ.get(env) or default


EXMTOP = builddir_path("EXMTOP", "./exmtop")
SRCDIR = os.path.dirname(os.path.abspath(__file__))


def _die_on_term(signum, frame):
    # Run the finally clauses (stop the sharer, swapoff) when killed.
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, _die_on_term)
signal.signal(signal.SIGHUP, _die_on_term)


def sharer_path():
    """The sharer, built here from tests/live/sharer.c with plain flags.

    Not with the build's CFLAGS: a sanitizer build's sharer would carry a
    16 TiB shadow reservation, and the pagemap read path (the only one
    before Linux 6.7) reads 8 bytes for every page of it: 32 GiB per
    process. The sharer is the fixture, not the code under test. Set
    SHARER= to use another binary.
    """
    if os.environ.get("SHARER"):
        return os.environ["SHARER"]
    return plain_program("sharer")


def plain_program(name, extra=(), suffix="plain"):
    """tests/live/NAME.c built as tests/live/NAME-SUFFIX with plain flags
    (see sharer_path) and the extra ones, when older than its source."""
    src = os.path.join(SRCDIR, name + ".c")
    out = os.path.join("tests", "live", name + "-" + suffix)
    # its source and the headers beside it (zeropage.h, unmap_vdso.h)
    newest = max(os.path.getmtime(f) for f in
                 [src] + glob.glob(os.path.join(SRCDIR, "*.h")))
    if os.path.exists(out) and os.path.getmtime(out) >= newest:
        return "./" + out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = "%s.%d" % (out, os.getpid())
    cc = os.environ.get("CC", "cc").split()
    subprocess.run(cc + ["-O2", "-D_GNU_SOURCE", "-Wall", "-Wextra",
                         "-Werror"] + list(extra) + ["-o", tmp, src],
                   check=True)
    written_back(tmp)
    os.replace(tmp, out)  # atomic: tests may build it side by side
    return "./" + out


def written_back(path):
    """The file at path written back to disk (fsync): a program or file
    a fixture maps, fresh from the compiler or a copy, is otherwise dirty
    page cache that the kernel writes back at a moment of its own (after
    30 s, or at once when another process syncs or writes much), and its
    pages leave the kernel's Pss_Dirty then: a test comparing exmtop's
    pss_dirty with smaps_rollup read a moment later would see them
    go."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def pagemap_scan_supported():
    """Whether the kernel has the PAGEMAP_SCAN ioctl (Linux 6.7+): probe it
    with a zeroed argument, which it rejects with EINVAL; kernels without it
    say ENOTTY."""
    import errno
    import fcntl
    size = 96  # struct pm_scan_arg
    req = (3 << 30) | (size << 16) | (ord("f") << 8) | 16  # _IOWR('f', 16)
    fd = os.open("/proc/self/pagemap", os.O_RDONLY)
    try:
        fcntl.ioctl(fd, req, bytearray(size))
    except OSError as e:
        return e.errno != errno.ENOTTY
    finally:
        os.close(fd)
    return True


def read_fault_maps_zero():
    """Whether a read fault on private anonymous memory maps the zero page
    here: the page read is then not mapped once (pagemap's exclusive bit;
    the zero page has no mapping count). A kernel booted with
    pvm_no_zero_page gives such a fault a page of its own."""
    import ctypes
    import mmap
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    ps = mmap.PAGESIZE
    addr = libc.mmap(None, ps, mmap.PROT_READ,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    try:
        ctypes.string_at(addr, 1)  # the read fault
        with open("/proc/self/pagemap", "rb") as f:
            f.seek(addr // ps * 8)
            w = struct.unpack("=Q", f.read(8))[0]
    finally:
        libc.munmap(addr, ps)
    return bool(w & PM_PRESENT) and not w & PM_EXCLUSIVE


def pagemap_modes():
    """The pagemap paths this kernel has: scan (6.7+: PAGEMAP_SCAN for
    every mapping), auto (6.7+: PAGEMAP_SCAN for big mappings, plain reads
    for small ones; the default) and read (always)."""
    if pagemap_scan_supported():
        return ["scan", "auto", "read"]
    return ["read"]


class Checker:
    """Counts checks; prints each failure; never stops at the first."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s" % what, flush=True)
        return cond

    def eq(self, got, want, what):
        return self.check(got == want,
                          "%s: got %r, want %r" % (what, got, want))

    def near(self, got, want, tol, what):
        ok = got is not None and abs(float(got) - float(want)) <= tol
        return self.check(ok, "%s: got %r, want %s (tolerance %g)" %
                          (what, got, fmt_num(want), tol))

    def done(self):
        print("%s: %d checks passed, %d failed" %
              (self.name, self.passed, self.failed), flush=True)
        sys.exit(1 if self.failed or not self.passed else 0)


def fmt_num(v):
    if isinstance(v, Fraction):
        return "%s (=%.6f)" % (v, float(v))
    return repr(v)


_user_copies = {}


def user_copy(path):
    """A copy of the program at path that any user can run: a test that
    drops privileges must not run the build's binary in place, which the
    user cannot reach when the checkout is private (a clone in a 0700
    home). The copies live in a directory of mode 0755 under /tmp, removed
    when the test exits."""
    path = os.path.abspath(path)
    if path not in _user_copies:
        import atexit
        import shutil
        import tempfile
        d = tempfile.mkdtemp(prefix="exm-user-bin-", dir="/tmp")
        atexit.register(shutil.rmtree, d, True)
        os.chmod(d, 0o755)
        dst = os.path.join(d, os.path.basename(path))
        shutil.copy(path, dst)
        os.chmod(dst, 0o755)
        written_back(dst)  # see written_back: the sharer is copied too
        _user_copies[path] = dst
    return _user_copies[path]


def as_user(cmd, user):
    """cmd run as user (through setpriv), its program copied where that
    user can run it; cmd as it is when user is None."""
    if user is None:
        return list(cmd)
    return ["setpriv", "--reuid=" + user, "--regid=" + user,
            "--init-groups", "--", user_copy(cmd[0])] + list(cmd[1:])


def run_exmtop(args, user=None, timeout=600, cwd=None):
    """Run exmtop (as user when given: a copy that user can run, see
    user_copy); returns (returncode, stdout, stderr)."""
    cmd = as_user([EXMTOP] + list(args), user)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def strace_exmtop(trace, args, out=None):
    """Run exmtop ARGS under strace -f -qq -e trace=TRACE (its output
    in the file out when given); returns (returncode, stderr: strace's
    too without out). A sanitizer build's LeakSanitizer cannot run under
    ptrace: it is left out (the other runs check leaks)."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=" + trace] +
                       (["-o", out] if out else []) + [EXMTOP] + list(args),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def exmtop_json(args, user=None):
    rc, out, err = run_exmtop(["-b", "--format", "json"] + list(args),
                              user=user)
    if rc != 0:
        raise RuntimeError("exmtop %s exited %d: %s" %
                           (" ".join(args), rc, err.strip()))
    try:
        return json.loads(out)
    except ValueError as e:
        raise RuntimeError("exmtop %s: bad JSON (%s): %r" %
                           (" ".join(args), e, out[:400]))


class Sharer:
    """The sharer test program, started and parsed; a context manager."""

    def __init__(self, tmpdir, user=None, swap=False, alone=False,
                 program="sharer"):
        """alone: linked statically and without [vdso]: no page of its
        processes is mapped by any other process. program: another
        fixture of tests/live that takes the same arguments and says the
        same lines (sparse.c)."""
        self.path = (plain_program(program, ["-static"], "static")
                     if alone else sharer_path() if program == "sharer"
                     else plain_program(program))
        # comm: the program's file name, at most 15 bytes
        self.comm = os.path.basename(self.path)[:15]
        cmd = as_user([self.path] + (["-s"] if swap else []) +
                      (["-v"] if alone else []) + [tmpdir], user)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     start_new_session=True)
        self.regions = {}
        self.pids = []
        self.file_path = None
        self.file_name = None
        self.page_size = None
        for raw in self.proc.stdout:
            words = raw.decode().split()
            if not words:
                continue
            if words[0] == "page_size":
                self.page_size = int(words[1])
            elif words[0] == "region":
                self.regions[words[1]] = (int(words[2], 16),
                                          int(words[3], 16))
                if len(words) > 4:
                    # as /proc/PID/maps shows it (a newline as \012)
                    self.file_path = " ".join(raw.decode().rstrip(
                        "\n").split(" ")[4:])
                    # the name itself, as exmtop gives it
                    self.file_name = self.file_path.replace("\\012", "\n")
            elif words[0] == "pids":
                self.pids = [int(w) for w in words[1:]]
            elif words[0] == "ready":
                break
        else:
            self.stop()
            raise RuntimeError("sharer exited before it was ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def recorded_runs(path, pid, start):
    """The run rows of pid's mapping at start in the recording at path's
    first snapshot, by offset: (offset, count, present, first, swap_type,
    flags)."""
    import sqlite3
    db = sqlite3.connect(path)
    try:
        row = db.execute(
            "SELECT m.pageset FROM mapping m JOIN process p ON "
            "p.snapshot = m.snapshot AND p.idx = m.proc WHERE p.pid = ? "
            "AND m.start = ?", (pid, start)).fetchone()
        if not row or row[0] is None:
            return []
        return db.execute("SELECT offset, count, present, first, swap_type, "
                          "flags FROM run WHERE pageset = ? ORDER BY offset",
                          row).fetchall()
    finally:
        db.close()


def is_stopped(pid):
    """Whether /proc says pid is stopped (T) or traced (t)."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


@contextlib.contextmanager
def frozen(pids):
    """pids stopped (SIGSTOP, waited for until /proc says so) for the
    block, so that nothing of theirs moves while they are measured; sent
    SIGCONT after, also when the block fails."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        for pid in pids:
            while not is_stopped(pid):
                time.sleep(0.01)
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def settled(read, run, tries=10):
    """run() (an exmtop run) with read() (the kernel's figures it is
    compared with) just before and just after it, again until the two
    reads agree. For figures that move with processes the test does not
    control, even with its own stopped (frozen does not help): a page of
    libc, ld.so or the interpreter that the test's process alone maps is
    private (sole, Private_*, exclusive) and turns shared when any other
    process maps it, and back when that one exits; the machine starts and
    ends processes at any moment. Two equal reads say the figure held
    still over exmtop's run (but for a move and its undoing both within
    it, which they cannot see). A quiet machine runs once; a round is
    repeated only when the figures moved. Returns (run's result, read's figures), or (the last result,
    None) after tries rounds that never held still: the caller checks
    that, so a machine that never holds still fails, saying so."""
    out = None
    for _ in range(tries):
        before = read()
        out = run()
        if read() == before:
            return out, before
    return out, None


# ---------------------------------------------------------------- /proc


class Vma:
    __slots__ = ("start", "end", "perms", "offset", "dev", "inode", "name",
                 "words")

    def __init__(self, line):
        f = line.rstrip("\n").split(None, 5)
        a, b = f[0].split("-")
        self.start = int(a, 16)
        self.end = int(b, 16)
        self.perms = f[1]
        self.offset = int(f[2], 16)
        self.dev = f[3]
        self.inode = int(f[4])
        # maps pads the name with spaces; the name itself starts after them
        self.name = f[5] if len(f) > 5 else ""
        self.words = []  # (vaddr, pagemap word) of present/swapped pages


def read_maps(pid):
    with open("/proc/%d/maps" % pid) as f:
        return [Vma(line) for line in f]


def read_pagemap(pid, vmas, ps):
    """Fill vma.words with the used (present or swapped) pages."""
    fd = os.open("/proc/%d/pagemap" % pid, os.O_RDONLY)
    try:
        for v in vmas:
            vpn = v.start // ps
            end = v.end // ps
            while vpn < end:
                n = min(end - vpn, 1 << 16)
                data = os.pread(fd, n * 8, vpn * 8)
                got = len(data) // 8
                if got == 0:
                    break  # beyond the task size ([vsyscall])
                for i, w in enumerate(struct.unpack("=%dQ" % got,
                                                    data[:got * 8])):
                    if w & (PM_PRESENT | PM_SWAPPED):
                        v.words.append(((vpn + i) * ps, w))
                vpn += got
    finally:
        os.close(fd)


def kpage(name, pfns):
    """{pfn: 8-byte value of /proc/NAME} for pfns (kpageflags,
    kpagecount, kpagecgroup)."""
    out = {}
    fd = os.open("/proc/" + name, os.O_RDONLY)
    try:
        for pfn in pfns:
            out[pfn] = int.from_bytes(os.pread(fd, 8, pfn * 8), "little")
    finally:
        os.close(fd)
    return out


def read_rollup(pid):
    """The kernel's smaps_rollup figures in bytes, keyed like exmtop's JSON;
    None if unreadable."""
    keys = {"Pss:": "pss", "Pss_Anon:": "pss_anon", "Pss_File:": "pss_file",
            "Pss_Shmem:": "pss_shmem", "Pss_Dirty:": "pss_dirty",
            "SwapPss:": "swap_pss", "Rss:": "rss"}
    out = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                w = line.split()
                if w and w[0] in keys:
                    out[keys[w[0]]] = int(w[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return out or None


def read_smaps_vma(pid, start):
    """The kB fields of pid's mapping at start in /proc/PID/smaps, in
    bytes by key ("Rss", "Private_Clean", ...); {} when there is none."""
    out, cur = {}, False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if "-" in w[0] and not w[0].endswith(":"):
                cur = int(w[0].split("-")[0], 16) == start
            elif cur and len(w) == 3 and w[2] == "kB":
                out[w[0][:-1]] = int(w[1]) * 1024
    return out


def all_pids():
    return sorted(int(d) for d in os.listdir("/proc") if d.isdigit())


# ---------------------------------------------------------------- oracle


def strip_deleted(name):
    return name[:-len(" (deleted)")] if name.endswith(" (deleted)") else name


def zero_sizes():
    return {"vm": 0, "rss": 0, "erss": Fraction(0), "swap": 0,
            "eswap": Fraction(0), "sole": 0, "writable": 0}


def finish(s):
    s = dict(s)
    s["mapped"] = s["rss"] + s["swap"]
    s["emapped"] = s["erss"] + s["eswap"]
    return s


class Oracle:
    """Exact sizes of docs/DESIGN.md section 3 for a set of processes, computed
    from their maps and pagemap with rational arithmetic."""

    def __init__(self, pids, ps):
        self.ps = ps
        self.vmas = {}
        for pid in pids:
            vmas = read_maps(pid)
            read_pagemap(pid, vmas, ps)
            self.vmas[pid] = vmas
        self.maps = {}   # key -> number of page-table mappings
        self.procs = {}  # key -> set of pids
        for pid, vmas in self.vmas.items():
            for v in vmas:
                for _, w in v.words:
                    k = self.key(w)
                    self.maps[k] = self.maps.get(k, 0) + 1
                    self.procs.setdefault(k, set()).add(pid)

    @staticmethod
    def key(w):
        return ("pfn" if w & PM_PRESENT else "swap", w & PM_PFN_MASK)

    def distinct_present(self):
        return sum(1 for k in self.maps if k[0] == "pfn")

    def distinct_swapped(self):
        return sum(1 for k in self.maps if k[0] == "swap")

    def sizes(self, pid, vma_filter=None, lo=None, hi=None):
        """Sizes of pid's mappings accepted by vma_filter, restricted to
        [lo, hi) when given."""
        ps = self.ps
        s = zero_sizes()
        for v in self.vmas[pid]:
            if vma_filter and not vma_filter(v):
                continue
            a = v.start if lo is None else max(v.start, lo)
            b = v.end if hi is None else min(v.end, hi)
            if a >= b:
                continue
            s["vm"] += b - a
            for addr, w in v.words:
                if addr < a or addr >= b:
                    continue
                k = self.key(w)
                if w & PM_PRESENT:
                    s["rss"] += ps
                    s["erss"] += Fraction(ps, self.maps[k])
                    if self.maps[k] == 1:  # mapped once: the USS
                        s["sole"] += ps
                    if (not w & PM_FILE and w & PM_EXCLUSIVE and
                            "w" in v.perms):
                        s["writable"] += ps
                else:
                    s["swap"] += ps
                    s["eswap"] += Fraction(ps, self.maps[k])
        return finish(s)

    def region(self, pid, start, end):
        return self.sizes(pid, None, start, end)

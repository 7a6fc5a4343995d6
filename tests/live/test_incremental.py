#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): a snapshot that re-reads only the processes that
changed equals a full walk of the same moment, page word for page word.

exmtop runs `-b` with EXMTOP_CHECK_WALK=step: it takes a snapshot for each
line the test writes to its stdin, and compares each with a full walk
taken right after it (core/reuse.c), saying on stderr which processes
differ. Three workload processes (walkwork.py) act only between
snapshots, when told, so they are quiescent while both walks read them:
fork and exit of children writing inherited memory (in a reservation
over 256 MiB, whose pages mapped once the pagemap source counts rather
than keeps: count_once), writing and freeing
memory, mremap, mprotect, a file truncated under another process's
mapping, compaction (/proc/sys/vm/compact_memory), KSM merging (KSM's
run switched on through sysstate.py until the pages are merged), swap-out
of a worker by its memory cgroup's limit (a swap file and the cgroup
through sysstate.py), THP collapse
(MADV_COLLAPSE), process_madvise(MADV_PAGEOUT) from another process,
PTRACE_POKEDATA into another process (also into a page a fork left
read-only and mapped once: the fault reuses it), process_vm_readv and
process_vm_writev of another process's never-touched pages (the zero
page, a new page), and an O_DIRECT read into memory shared copy-on-write
with a fork parent.

EXM_INCR_SOURCE=kmod runs it with the module (tests/kmod/guest-init does,
in QEMU, with EXM_INCR_DIRECT naming a block device for the O_DIRECT read
where files are on tmpfs, and EXM_INCR_SWAP=on: the swap enabled is used
as it is): then no step may lag, the zero page read in included (the
module counts zero pages, exmap ABI 6).

The kernel's Pss and its split (what the live screen shows) are compared
too: from the mapping counts of the frames (pagemap source) or the
module's walk, kept for a kept process while no count of its frames
moved, and had again (from the counts, or the module's sums) for one
whose counts moved; on a kernel whose mapcounts may be averages
(CONFIG_NO_PAGE_MAPCOUNT, or no configuration to say) none may be
kept. A page's share is its size over its mapping count, which any process mapping it
moves: the test runs in a pid namespace of its own (exmtop lists only
its processes, and none comes or goes during a walk unless told), its
workers run private copies of the interpreter and its libraries (no
process outside maps their pages), and a kernel figure that exmtop says
moved with its pages' counts between the two walks (a scanned process,
the test itself, mapped or dropped one meanwhile) is no verdict: the
next snapshot is taken, as when the system's counters moved.

After each step, none of the workload's processes may differ, except
after a step README names as waiting for the scheduled full walk
(SCHEDULED below); then the test waits for that walk (--full-walk) and
its snapshot must be a full walk ("scheduled") that equals, with the
step's effect seen. So too a kernel Pss kept while processes outside the
test's pid namespace came or went (README names that case): the
machine's own /proc, opened before unshare, says whether they did since
the last full walk, and only a difference in the kernel's figures alone
(words equal) is let wait for the scheduled walk. Other processes are not quiescent and are not
compared. The test also asserts that at least 3 snapshots were
incremental (walked fewer processes than listed), that kernel Pss was
kept and summed again in place, or it tested nothing, and that no check
line says more processes walked than listed; where the system's
counters made the steps' snapshots full walks, it takes a quiet window of
fork and exit steps first. The sizes a kept process's mappings keep (no
count of their frames moved) are summed again from the words by the check
and must be equal; some must have been kept.
"""

import gzip
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402
import sysstate  # noqa: E402

KSM = "/sys/kernel/mm/ksm"
KSM_PAGES = 64
SWAP_MIB = 64  # a swap file of the test's own
LIMIT_MIB = 6  # the cgroup's limit, under what its worker holds (20 MiB)

# --full-walk: the schedule the exempt steps wait for (longer in QEMU's
# emulation, where a step can take that long)
FULL_WALK = float(os.environ.get("EXM_INCR_FULL_WALK", "6"))
PS = os.sysconf("SC_PAGE_SIZE")
ROUNDS = 1  # 2: each step again on memory the first round changed
# The source: EXM_INCR_SOURCE=kmod runs it with the module (tests/kmod's
# guest), whose counters see every change.
SOURCE = os.environ.get("EXM_INCR_SOURCE", "pagemap")
# Steps no counter of the target shows: they wait for the scheduled walk
# (README, "Live refreshes"). A difference after them is allowed, and
# the scheduled walk must then set it right. With the module: none.
SCHEDULED = set() if SOURCE == "kmod" else {
    "truncate", "pageout", "poke", "pokereuse", "peekzero", "vmwrite"}
# The figures compared: the page words and the kernel's Pss and its split
# the live screen shows, kept for a kept process while no count of its
# frames moved (core/reuse.c, kpss_trust), which the test must see kept
# and summed again (with the module, by its sums: EXMAP_SCAN_SUMS).
FIELDS = "pid,erss,pss,pss_anon,pss_file,pss_shmem"


def mapcount_exact():
    """Whether the running kernel's mapcounts are known exact, as exmtop
    finds it (core/kconfig.c): before 6.15 always; from 6.15 its
    configuration (/boot/config-RELEASE, else /proc/config.gz) must be
    there and not set CONFIG_NO_PAGE_MAPCOUNT. Else a large folio's counts may be
    averages (or nobody knows), and no kernel Pss is kept at all."""
    rel = os.uname().release
    m = re.match(r"(\d+)\.(\d+)", rel)
    if m and (int(m.group(1)), int(m.group(2))) < (6, 15):
        return True
    text = None
    try:
        with open("/boot/config-" + rel) as f:
            text = f.read()
    except OSError:
        try:
            with gzip.open("/proc/config.gz", "rt") as f:
                text = f.read()
        except OSError:
            return False
    return not re.search(r"^CONFIG_NO_PAGE_MAPCOUNT=y$", text, re.M)


# where mapcounts are averaged, none may be kept (and the test says so)
KEPT_PSS = mapcount_exact()
# a full walk the system's counters made (core/reuse.c, sys_sig)
COUNTERS = ("full walk: vmstat ", "full walk: ksm ")
# what exmtop says of kernel figures that moved with the mapping counts
# between the two walks (core/reuse.c, compare): no verdict, next snapshot
MOVED = "kernel figures moved with "
# a kept kernel figure that differs, words equal, no churn exmtop saw
KERNEL_ONLY = "kernel figures: "
LINE = re.compile(r"exmtop: check (\d+): (equal|differs: (.*)) "
                  r"\((full walk: [^,]*|incremental), walked (\d+) of "
                  r"(\d+), oldest ([0-9.]+) s, kernel Pss kept (\d+), "
                  r"again (\d+), sizes kept (\d+)(, share tables kept)?\)"
                  r"(, unsettled: .*)?$")


WALKWORK = os.path.join(exmlive.SRCDIR, "walkwork.py")
# the workers' environment: the C locale, no locale file mapped
WORK_ENV = dict(os.environ, LC_ALL="C", PYTHONCOERCECLOCALE="0")


def mapped_files(pid):
    """The paths of the files pid maps."""
    with open("/proc/%d/maps" % pid) as f:
        return {ln.split()[5] for ln in f
                if len(ln.split()) > 5 and ln.split()[5].startswith("/")}


def private_runtime(rt):
    """The command running walkwork.py from private copies (in rt) of the
    interpreter, its loader, libraries and extension modules: the kernel's
    Pss of a page is its size over its mapping count, and every process
    started on the machine maps libc's pages (a test loop in a shell
    starts hundreds a second), so a worker running the system's own
    files has kernel figures that move at every moment; copies are mapped
    by the workers alone. Which files: those a worker started the usual
    way maps, and the libraries they need by name (ldd)."""
    p = subprocess.Popen([sys.executable, WALKWORK], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=WORK_ENV)
    p.stdin.write("alloc 1\n")
    p.stdin.flush()
    p.stdout.readline()  # every module imported
    mapped = mapped_files(p.pid)
    p.stdin.close()
    p.wait(timeout=10)
    exe = os.path.realpath(sys.executable)
    mod = os.path.join(rt, "mod")
    os.makedirs(mod)
    loader = None
    for path in sorted(mapped):
        if os.path.realpath(path) == exe:
            continue
        if "/lib-dynload/" in path:  # an extension module: by file name
            shutil.copy(path, mod)
    for path in [exe] + [x for x in mapped if "/lib-dynload/" in x]:
        out = subprocess.run(["ldd", path], capture_output=True, text=True,
                             check=True).stdout
        for ln in out.splitlines():
            f = ln.split()
            if len(f) >= 3 and f[1] == "=>" and f[2].startswith("/"):
                dst = os.path.join(rt, f[0])
                if not os.path.exists(dst):
                    shutil.copy(f[2], dst)
            elif f and f[0].startswith("/") and "ld-linux" in f[0]:
                loader = os.path.join(rt, os.path.basename(f[0]))
                if not os.path.exists(loader):
                    shutil.copy(f[0], loader)
    shutil.copy(exe, os.path.join(rt, "python"))
    if not loader:
        raise RuntimeError("no loader in ldd %s" % exe)
    return [loader, "--library-path", rt, os.path.join(rt, "python")], \
        dict(WORK_ENV, PYTHONHOME=sys.prefix, PYTHONPATH=mod)


class Worker:
    cmd, env = [sys.executable], WORK_ENV

    def __init__(self, cgroup=None):
        def join():
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        self.p = subprocess.Popen(
            Worker.cmd + [WALKWORK], env=Worker.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            preexec_fn=join if cgroup else None)
        self.pid = self.p.pid

    def foreign(self, own):
        """The files this worker maps that are not under own."""
        return {x for x in mapped_files(self.pid)
                if not x.startswith(own + "/")}

    def do(self, *args):
        self.p.stdin.write(" ".join(str(a) for a in args) + "\n")
        self.p.stdin.flush()
        out = self.p.stdout.readline().split()
        if not out or out[0] != "ok":
            raise RuntimeError("worker %d: %s: %s" % (self.pid, args, out))
        return out[1] if len(out) > 1 else None

    def stop(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
        except OSError:
            pass
        self.p.wait(timeout=10)


def outside():
    """What exmtop cannot see of the processes outside the test's pid
    namespace: the pids the machine's own /proc lists (a directory opened
    before unshare, EXM_INCR_HOSTPROC) and its count of forks since boot
    (/proc/stat's processes, global). None when the test runs in the
    machine's namespace, where exmtop sees every process itself."""
    fd = os.environ.get("EXM_INCR_HOSTPROC")
    if fd is None:
        return None
    fd = int(fd)
    pids = frozenset(n for n in os.listdir(fd) if n.isdigit())
    sfd = os.open("stat", os.O_RDONLY, dir_fd=fd)
    try:
        stat = os.read(sfd, 1 << 16).decode()
    finally:
        os.close(sfd)
    forks = [ln for ln in stat.split("\n") if ln.startswith("processes ")]
    return pids, forks


class Exmtop:
    def __init__(self, extra=()):
        env = dict(os.environ, EXMTOP_CHECK_WALK="step")
        self.p = subprocess.Popen(
            [exmlive.EXMTOP, "-b", "-n", "100000", "--format", "csv",
             "--fields", FIELDS, "--full-walk", str(FULL_WALK),
             "--source", SOURCE]
            + list(extra),
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, env=env)
        self.first = True
        # outside() before the request of the last full walk: a kept
        # kernel Pss is at most that old
        self.walked_out = None

    def settled(self, stats, ours):
        """The next snapshot whose two walks saw the same system: when a
        page moved under its owner between them (the system's counters
        say so: someone compacts, reclaims, migrates), the comparison
        says nothing, and the next one is taken. So when one of ours has
        kernel figures that moved with the mapping counts of its pages
        between the two walks' reads, which exmtop tells from what the
        walks saw ("kernel figures moved with a sharer": a scanned
        process mapped or dropped one of its shared pages meanwhile;
        "with processes": processes came or went meanwhile, pids given,
        gone, or listed by one walk alone); its words must still be
        equal (else a difference). A kept figure gone stale differs in
        the next snapshot again."""
        for _ in range(10):
            s = self.snapshot()
            moved = {p for p in s["pids"] & ours
                     if s["parts"][p].startswith(MOVED)}
            if not s["unsettled"] and not moved:
                return s
            print("    snapshot %d unsettled: %s" % (
                s["n"], s["unsettled"] or
                "; ".join(s["parts"][p] for p in sorted(moved))))
            stats["unsettled"] += 1
        raise RuntimeError("10 snapshots in a row unsettled")

    def snapshot(self):
        """The next snapshot's check line, parsed."""
        before = outside()
        if not self.first:
            self.p.stdin.write("\n")
            self.p.stdin.flush()
        self.first = False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.p.stderr], [], [], 1)
            if not r:
                continue
            line = self.p.stderr.readline()
            if not line:
                raise RuntimeError("exmtop ended: %s" % self.p.wait())
            m = LINE.match(line.rstrip("\n"))
            if not m:
                print("  exmtop said: " + line.rstrip())
                continue
            # a process walked in both passes of a refresh counts once
            if int(m.group(5)) > int(m.group(6)):
                raise RuntimeError("check %s: walked %s of %s" %
                                   (m.group(1), m.group(5), m.group(6)))
            diff = m.group(3) or ""
            parts = {int(x.group(1)): x.group(2) for x in
                     re.finditer(r"pid (\d+) \(([^)]*)\)", diff)}
            if m.group(4).startswith("full walk"):
                self.walked_out = before
            return {"n": int(m.group(1)), "parts": parts,
                    # processes outside the namespace came or went since
                    # the kernel Pss kept was read (README: the kernel
                    # Pss kept waits for the scheduled walk then)
                    "outside": before is not None and
                    outside() != self.walked_out,
                    "pids": set(parts),
                    "diff": diff, "mode": m.group(4),
                    "walked": int(m.group(5)), "procs": int(m.group(6)),
                    "oldest": float(m.group(7)),
                    "kept": int(m.group(8)), "again": int(m.group(9)),
                    "sizes": int(m.group(10)),
                    "tables": m.group(11) is not None,
                    "unsettled": (m.group(12) or "")[len(", unsettled: "):]}
        raise RuntimeError("no check line in 60 s")

    def stop(self):
        """Its end: its exit status, and what it said after its last
        check line (a sanitizer's report)."""
        rest = self.p.communicate(timeout=30)[1]  # stdin closed first
        return self.p.returncode, rest


def quiet(pids):
    """Wait until each process sleeps and has not run for 30 ms: a worker
    answers before it is back in its read, and what it runs meanwhile
    (a copy on write after a fork) must not fall between the two walks."""
    deadline = time.monotonic() + 5
    for pid in pids:
        last = None
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                with open("/proc/%d/schedstat" % pid) as f:
                    ran = f.read().split()[0]
            except OSError:
                break  # gone
            if state in "SDTt" and ran == last:
                break
            last = ran
            time.sleep(0.03)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap's frame numbers)")
        sys.exit(exmlive.SKIP)
    if SOURCE == "pagemap" and not os.environ.get("EXM_INCR_NS") and \
            shutil.which("unshare"):
        # Its own pid namespace and /proc: every process exmtop lists is
        # the test's, so none comes or goes during a walk unless told.
        # On a machine where others start processes all the time, a walk
        # that saw pids given (a process may have mapped a page while
        # counts were read, and be gone) keeps no kernel Pss read during
        # it (kpss_trust), and keeping would go untested.
        os.environ["EXM_INCR_NS"] = "1"
        # the machine's /proc, for what exmtop cannot see from inside
        host = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)
        os.set_inheritable(host, True)
        os.environ["EXM_INCR_HOSTPROC"] = str(host)
        sys.stdout.flush()
        os.execvp("unshare", ["unshare", "--pid", "--fork", "--mount-proc",
                              "--kill-child", sys.executable,
                              os.path.abspath(__file__)])
    if not os.path.isdir(KSM):
        print("FAIL: this kernel has no KSM (%s)" % KSM)
        sys.exit(1)
    fails = []
    tmp = tempfile.mkdtemp(prefix="exm-incr-", dir=os.environ.get(
        "EXM_DISKDIR", "/var/tmp"))
    shared = os.path.join(tmp, "shared")
    private = os.path.join(tmp, "private")
    direct = os.path.join(tmp, "direct")
    for path, n in ((shared, 64), (private, 16), (direct, 1)):
        with open(path, "wb") as f:
            f.write(os.urandom(n * PS))
    # a block device for the O_DIRECT read where the files are on tmpfs
    # (the module test's guest)
    direct_from = os.environ.get("EXM_INCR_DIRECT", direct)
    # the workers run private copies of the interpreter and its libraries
    # where there is ldd to find them (not in the module test's guest,
    # whose processes come and go only when the test says)
    if shutil.which("ldd"):
        Worker.cmd, Worker.env = private_runtime(os.path.join(tmp, "rt"))
    else:
        print("no ldd: the workers run %s" % sys.executable)
    # KSM's run, a swap file and a memory cgroup, restored at the end
    ch = sysstate.Changes("test_incremental")
    ch.__enter__()
    try:
        # EXM_INCR_SWAP=on: the swap enabled (the guest's RAM disk) will
        # do; else one of the test's own (another's may go meanwhile)
        if os.environ.get("EXM_INCR_SWAP") != "on":
            ch.swapfile(SWAP_MIB << 20)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        ch.__exit__(None, None, None)
        print("FAIL: this machine cannot enable a swap file: %s" % e)
        sys.exit(1)
    cg, limit = ch.memory_cgroup("exm-incr-%d" % os.getpid())
    if cg is None:
        ch.__exit__(None, None, None)
        print("FAIL: no memory cgroup (v2 or v1) can be made here")
        sys.exit(1)
    a, b, d, s = Worker(), Worker(), Worker(), Worker(cg)
    ours = {a.pid, b.pid, d.pid, s.pid}
    print("workers: a %d, b %d, d %d" % (a.pid, b.pid, d.pid))
    ex = None
    stats = {"incremental": 0, "all": 0, "caught": 0, "unsettled": 0,
             "kept": 0, "again": 0, "quiet": 0, "sizes": 0, "tables": 0}
    try:
        a.do("write", a.do("alloc", 1), 1)  # started, every module mapped
        if Worker.cmd[0] != sys.executable and a.foreign(tmp):
            fails.append("a worker maps files others may map: %s" %
                         sorted(a.foreign(tmp)))
        s.do("alloc", 2048)
        # 256 pages written in a reservation big enough (over 256 MiB)
        # for the pagemap source to count its pages mapped once rather
        # than keep their words: the fork, write, free and poke steps move
        # them between counted and kept
        buf = a.do("reserve", 70000, 256)
        fbuf = a.do("mapfile", shared)
        pbuf = b.do("mapprivate", private)
        ex = Exmtop()
        ex.snapshot()

        def step(name, fn, *args):
            res = fn(*args)
            quiet(ours)
            s = ex.settled(stats, ours)
            print("  %-10s snapshot %d: %s, walked %d of %d, kernel Pss "
                  "kept %d, again %d" %
                  (name, s["n"], s["mode"], s["walked"], s["procs"],
                   s["kept"], s["again"]))
            stats["all"] += 1
            # a full walk the system's counters made (a page moved
            # under its owner somewhere: on a loaded machine, at every
            # refresh) tells nothing of the incremental path
            stats["quiet"] += not s["mode"].startswith(COUNTERS)
            if s["mode"] == "incremental" and s["walked"] < s["procs"]:
                stats["incremental"] += 1
            stats["kept"] += s["kept"]
            stats["again"] += s["again"]
            stats["sizes"] += s["sizes"]
            stats["tables"] += s["tables"]
            bad = s["pids"] & ours
            if bad and name in SCHEDULED:
                lagged.add(name)
            elif bad and s["outside"] and all(
                    s["parts"][p].startswith(KERNEL_ONLY) for p in bad):
                print("  %-10s snapshot %d: kernel Pss kept while processes "
                      "outside the namespace came or went: %s" %
                      (name, s["n"], "; ".join(s["parts"][p]
                                               for p in sorted(bad))))
                lagged.add(name + " (outside)")
            elif bad:
                fails.append("%s: snapshot %d" % (name, s["n"]))
                print("FAIL %s: snapshot %d (%s) differs: %s" %
                      (name, s["n"], s["mode"],
                       "; ".join("pid %d (%s)" % (p, s["parts"][p])
                                 for p in sorted(bad))))
            if s["oldest"] > FULL_WALK + 30:
                fails.append("%s: oldest %.1f s" % (name, s["oldest"]))
            return res

        def scheduled():
            """The scheduled walk sets right what the steps no counter
            shows left behind."""
            time.sleep(FULL_WALK)
            quiet(ours)
            t = ex.settled(stats, ours)
            print("  scheduled  snapshot %d: %s" % (t["n"], t["mode"]))
            if not t["mode"].startswith("full walk") or t["pids"] & ours:
                said = "; ".join("pid %d (%s)" % (p, t["parts"][p])
                                 for p in sorted(t["pids"] & ours))
                fails.append("after %s: scheduled walk %s %s" %
                             (sorted(lagged), t["mode"], said))
                print("FAIL after %s: the scheduled walk: %s %s" %
                      (sorted(lagged), t["mode"], said))
            stats["caught"] += len(lagged)
            lagged.clear()

        def merging(pid):
            with open("/proc/%d/ksm_merging_pages" % pid) as f:
                return int(f.read())

        def ksm_merge():
            """Two workers' identical pages merged by KSM, then KSM
            stopped (what is merged stays merged)."""
            a.do("mergeable", KSM_PAGES)
            d.do("mergeable", KSM_PAGES)
            ch.write(os.path.join(KSM, "sleep_millisecs"), "10")
            ch.write(os.path.join(KSM, "pages_to_scan"), "5000")
            ch.write(os.path.join(KSM, "run"), "1")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and \
                    min(merging(a.pid), merging(d.pid)) < KSM_PAGES:
                time.sleep(0.05)
            ch.write(os.path.join(KSM, "run"), "0")
            if min(merging(a.pid), merging(d.pid)) < KSM_PAGES:
                fails.append("KSM merged %d and %d of %d pages" %
                             (merging(a.pid), merging(d.pid), KSM_PAGES))

        lagged = set()
        for rnd in range(ROUNDS):
            child = step("fork", a.do, "fork", buf, 64)
            ours.add(int(child))
            step("write", a.do, "write", buf, 128)
            step("free", a.do, "free", buf, 32)
            step("exit", a.do, "reap")
            dbuf = step("alloc", d.do, "alloc", 8)
            dbuf = step("mremap", d.do, "mremap", dbuf, 8, 24)
            step("mprotect", d.do, "mprotect", dbuf, 4)
            step("collapse", d.do, "collapse")
            dchild = step("forkdirect", d.do, "forkdirect",
                          "%x" % (int(dbuf, 16) + 8 * PS), direct_from)
            ours.add(int(dchild))
            step("exit", d.do, "reap")
            with open("/proc/sys/vm/compact_memory", "w") as f:
                step("compaction", f.write, "1\n")
            step("ksm", ksm_merge)
            with open(os.path.join(cg, limit), "w") as f:
                step("swap-out", f.write, str(LIMIT_MIB << 20))
            with open("/proc/%d/status" % s.pid) as f:
                swapped = [int(ln.split()[1]) for ln in f
                           if ln.startswith("VmSwap:")]
            print("  the swapped-out worker: VmSwap %s kB" % swapped)
            if not swapped or swapped[0] < 4096:
                fails.append("the cgroup's limit swapped out %s kB, not "
                             "4 MiB or more" % swapped)
            step("truncate", b.do, "truncate", shared, 32 - rnd * 16)
            step("pageout", b.do, "pageout", a.pid, fbuf, 8)
            step("poke", b.do, "poke", a.pid, "%x" % (int(fbuf, 16) + PS))
            step("poke", a.do, "poke", b.pid, pbuf)
            # another process writes a page a's fork left read-only and
            # mapped once: the fault reuses it (made writable in place)
            step("pokereuse", b.do, "poke", a.pid,
                 "%x" % (int(buf, 16) + (200 + rnd) * PS))
            ubuf = int(step("untouched", a.do, "untouched", 16), 16)
            # remote writes and reads of never-touched pages: a new page,
            # the zero page (get_user_pages in a's mm). These, like the
            # steps above, may lag (pagemap source): the scheduled walk
            # comes before any step that must not.
            step("vmwrite", b.do, "vmwrite", a.pid, "%x" % (ubuf + 2 * PS))
            step("peekzero", b.do, "peek", a.pid, "%x" % (ubuf + PS))
            scheduled()

        def tested():
            return stats["incremental"] >= 3 and (
                not KEPT_PSS or
                (stats["kept"] >= 3 and stats["again"] >= 1))

        # A quiet window: where the system's counters made most of the
        # steps' snapshots full walks, a fork child of a writes a page and
        # exits, again until the incremental path (and the kernel Pss
        # kept, and summed again after the exit) was compared enough, or
        # 10 times, half a second apart (a burst of migration ends); each
        # compared like any step.
        for _ in range(10):
            if tested():
                break
            time.sleep(0.5)
            ours.add(int(step("fork", a.do, "fork", buf, 1)))
            step("exit", a.do, "reap")
        if lagged:  # only a kernel Pss kept while outside processes moved
            scheduled()
    finally:
        if ex:
            rc, rest = ex.stop()
            if rc:
                fails.append("exmtop ended with status %d: %s" %
                             (rc, rest.strip()[-2000:]))
        for w in (a, b, d, s):
            w.stop()
        shutil.rmtree(tmp)
        ch.__exit__(None, None, None)
    print("%d steps, %d incremental, %d lagging steps set right by the "
          "scheduled walk, "
          "%d snapshots unsettled" % (stats["all"], stats["incremental"],
                                      stats["caught"], stats["unsettled"]))
    print("%d snapshots with the system's counters quiet" % stats["quiet"])
    if stats["incremental"] < 3:
        fails.append("only %d of %d snapshots incremental (%d with the "
                     "system's counters quiet)" %
                     (stats["incremental"], stats["all"], stats["quiet"]))
    # the kept kernel Pss compared: kept as it was (no count moved), and
    # summed again in place where a walked process moved a count of a
    # kept one's frames (a fork child's exit: its pages of the
    # interpreter, which the other workers map)
    print("kernel Pss of kept processes: %d kept, %d summed again" %
          (stats["kept"], stats["again"]))
    if KEPT_PSS and (stats["kept"] < 3 or stats["again"] < 1):
        fails.append("kernel Pss kept %d times (3 or more), summed again "
                     "%d (1 or more)" % (stats["kept"], stats["again"]))
    if not KEPT_PSS and (stats["kept"] or stats["again"]):
        fails.append("kernel Pss kept %d times, summed again %d, where "
                     "this kernel's mapcounts may be averages (none)" %
                     (stats["kept"], stats["again"]))
    # kept processes' mappings keep their sizes while no count of their
    # frames moved; the check sums them again from the words
    print("mappings whose sizes were kept: %d" % stats["sizes"])
    # the share tables of a snapshot with no word moved: kept whole (the
    # workers move pages each step, so often none)
    print("snapshots whose share tables were kept: %d" % stats["tables"])
    if stats["incremental"] >= 3 and not stats["sizes"]:
        fails.append("no kept sizes compared in %d incremental snapshots"
                     % stats["incremental"])
    for f in fails:
        print("FAIL: " + f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    exmlive.run_main(main)

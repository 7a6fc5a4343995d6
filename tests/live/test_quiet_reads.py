#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): what a quiet refresh of the pagemap source reads.

A process of one thread whose stat counters and main thread's run time
(schedstat) are those of its last walk did not run since, so it changed
neither its mappings nor its command line: a refresh parses the text of
maps that walk read and keeps the command line (reuse.c,
exm_reuse_maps), reading neither again, nor who owns /proc/PID (a
setuid is a system call). One that ran is read again.

In a pid namespace of its own (only the test's processes listed), the
test starts SLEEPERS `sleep` processes and a ticker, one thread that
every 20 ms splits and merges a mapping with mprotect (its maps change,
its virtual and resident sizes do not), and runs exmtop `-b -n 5 -d 0.5`:
- under strace: each sleeper's maps, cmdline and owner read once
  for each full walk among the snapshots (the first, and any the
  system's counters make: the header says which), the ticker's maps in
  every snapshot;
- with EXMTOP_CHECK_WALK (each refresh compared with a full walk of the
  same moment): every snapshot equal but for the ticker (whose state may
  change between the two), the ticker's mapping count that of one of its
  two states, each sleeper's that of its maps;
- the same with the kernel's Pss (`--fields pid,pss`, from the frames'
  mapping counts): from the second snapshot on, every sleeper keeps the
  kernel Pss its walk counted (the check's "kernel Pss kept"), and the
  refreshes equal full walks but for the ticker and kernel figures alone
  (processes outside the namespace, which exmtop cannot list, move the
  counts of libc's frames: README lists the case). exmtop
  maps its own program's and libraries' pages before its first walk
  (reuse.c, self_populate): else code it ran for the first time during
  that walk mapped more of them, the counts of frames the sleepers share
  with it (libc's) moved unseen, and the second snapshot read every
  kernel Pss again.
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

SLEEPERS = 30
SNAPS = 5
TICKER = """import ctypes, mmap, sys, time
libc = ctypes.CDLL(None, use_errno=True)
m = mmap.mmap(-1, 3 * 4096)
a = ctypes.addressof(ctypes.c_char.from_buffer(m))
print("ok", flush=True)
while True:
    libc.mprotect(ctypes.c_void_p(a + 4096), 4096, 1)  # split: 3 VMAs
    time.sleep(0.02)
    libc.mprotect(ctypes.c_void_p(a + 4096), 4096, 3)  # merged: 1
    time.sleep(0.02)
"""


def settle(pids):
    """Wait until every pid sleeps with its mappings made."""
    def look(pid):
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open("/proc/%d/maps" % pid) as f:
            return state, f.read()
    last = {}
    for _ in range(100):
        now = {p: look(p) for p in pids}
        if all(s[0] == "S" for s in now.values()) and now == last:
            return
        last = now
        time.sleep(0.2)
    raise RuntimeError("the sleepers did not settle")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap's frame numbers)")
        sys.exit(exmlive.SKIP)
    if not shutil.which("strace"):
        print("FAIL: strace is not installed (scripts/deps.sh)")
        sys.exit(1)
    exmlive.in_own_pid_ns("EXM_QUIET_NS")
    c = exmlive.Checker("quiet reads")
    tmp = tempfile.mkdtemp(prefix="exm-quiet-")
    procs = []
    try:
        sleepers = [subprocess.Popen(["sleep", "1000"])
                    for _ in range(SLEEPERS)]
        procs += sleepers
        ticker = subprocess.Popen([sys.executable, "-c", TICKER],
                                  stdout=subprocess.PIPE, text=True)
        procs.append(ticker)
        assert ticker.stdout.readline().strip() == "ok"
        spids = {p.pid for p in sleepers}
        settle(spids)
        args = ["-b", "-n", str(SNAPS), "-d", "0.5", "--fields",
                "pid,nmaps,cmd", "--source", "pagemap"]

        trace = os.path.join(tmp, "trace")
        out = os.path.join(tmp, "out")
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        with open(out, "w") as f:
            rc = subprocess.run(
                ["strace", "-f", "-qq", "-y", "-e", "trace=openat,read,pread64,fstat,newfstatat",
                 "-o", trace, exmlive.EXMTOP] + args, stdout=f,
                stderr=subprocess.PIPE, env=env).returncode
        c.eq(rc, 0, "strace exmtop: exit status")
        with open(out) as f:
            heads = [l for l in f if "pagemap (" in l]
        c.eq(len(heads), SNAPS, "snapshots printed")
        walks = sum("full walk" in h for h in heads)
        c.check(walks >= 1, "the first snapshot is a full walk")
        print("%d of %d snapshots full walks" % (walks, len(heads)))
        maps = {}
        cmdline = {}
        owner = {}
        with open(trace) as f:
            for line in f:
                m = re.search(r'openat\(\d+</proc/(\d+)>, "maps"', line)
                if m:
                    pid = int(m.group(1))
                    maps[pid] = maps.get(pid, 0) + 1
                m = re.search(r'read64\(\d+</proc/(\d+)/cmdline>|'
                              r'\bread\(\d+</proc/(\d+)/cmdline>', line)
                if m:
                    pid = int(m.group(1) or m.group(2))
                    cmdline[pid] = cmdline.get(pid, 0) + 1
                # its owner: fstat of the directory
                m = re.search(r'^\d+ +(?:new)?fstat(?:at)?\(\d+</proc/(\d+)>',
                              line)
                if m:
                    pid = int(m.group(1))
                    owner[pid] = owner.get(pid, 0) + 1
        for pid in sorted(spids):
            c.eq(maps.get(pid, 0), walks,
                 "sleeper %d: maps read once a full walk" % pid)
            c.eq(cmdline.get(pid, 0), walks,
                 "sleeper %d: cmdline read once a full walk" % pid)
            c.eq(owner.get(pid, 0), walks,
                 "sleeper %d: its directory's owner read once a full walk"
                 % pid)
        c.eq(maps.get(ticker.pid, 0), SNAPS,
             "the ticker's maps read in every snapshot")

        env = dict(os.environ, EXMTOP_CHECK_WALK="1")
        p = subprocess.run([exmlive.EXMTOP, "--format", "csv"] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
        c.eq(p.returncode, 0, "exmtop with the check: exit status")
        checks = [l for l in p.stderr.splitlines()
                  if l.startswith("exmtop: check")]
        c.eq(len(checks), SNAPS, "checks printed")
        # the ticker changes its mappings every 20 ms: the full walk of
        # the check, a moment later, may see the other state
        ticks = "differs: pid %d (identity, mappings or state) (" % ticker.pid
        for l in checks:
            c.check(": equal (" in l or ticks in l,
                    "refresh equals a full walk (the ticker aside): " + l)
        q = subprocess.run([exmlive.EXMTOP, "-b", "-n", "3", "-d", "0.5",
                            "--fields", "pid,pss", "--source", "pagemap"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, env=env)
        c.eq(q.returncode, 0, "exmtop --fields pid,pss with the check: "
             "exit status")
        kept = [re.search(r"^exmtop: check (\d+): (.*)kernel Pss kept "
                          r"(\d+)", l) for l in q.stderr.splitlines()]
        kept = [(int(m.group(1)), m.group(2), int(m.group(3)))
                for m in kept if m]
        c.eq(len(kept), 3, "kernel Pss: checks printed")
        print("kernel Pss kept by snapshot: %s" % [k for _, _, k in kept])
        for n, what, k in kept[1:]:
            # what differs from the check's full walk: the ticker, or a
            # kernel Pss alone (words equal), which processes outside
            # this pid namespace move unseen (README names the case: it
            # waits for the scheduled full walk; CI's other lanes map and
            # drop libc's pages all the time)
            diff = re.findall(r"pid (\d+) \(([^:()]+)", what)
            odd = [d for d in diff if int(d[0]) != ticker.pid and
                   not d[1].startswith("kernel figures")]
            c.check(("equal" in what or "differs" in what) and not odd,
                    "snapshot %d: equals a full walk but for the ticker "
                    "and kernel figures alone: %s" % (n, odd or what))
            c.check("full walk" in what or k >= SLEEPERS,
                    "snapshot %d: every sleeper's kernel Pss kept "
                    "(%d kept, %d sleepers)" % (n, k, SLEEPERS))
        base = None
        with open("/proc/%d/maps" % ticker.pid) as f:
            base = len(f.read().splitlines())
        rows = [l.split(",") for l in p.stdout.splitlines()]
        tick = [r for r in rows if len(r) > 3 and r[2] == str(ticker.pid)]
        c.eq(len(tick), SNAPS, "the ticker listed in every snapshot")
        for r in tick:
            c.check(int(r[3]) in (base, base - 2, base + 2),
                    "the ticker's mappings %s: one of its states "
                    "(%d now, +-2)" % (r[3], base))
        for pid in sorted(spids):
            with open("/proc/%d/maps" % pid) as f:
                n = str(len(f.read().splitlines()))
            got = {tuple(r[3:5]) for r in rows
                   if len(r) > 4 and r[2] == str(pid)}
            c.eq(got, {(n, "sleep 1000")},
                 "sleeper %d's mappings and command in every snapshot" % pid)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(tmp)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

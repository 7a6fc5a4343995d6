#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): the /proc/PID descriptors a refreshing exmtop keeps
from one walk to the next (procwalk.c: the directory, stat, schedstat,
cmdline) always read the process that has the pid now.

exmtop runs `-b` with EXMTOP_CHECK_WALK=step in a pid namespace of its
own (one snapshot for each line the test writes), beside a helper process
the test tells what to do between snapshots:
  - setuid to nobody: its USER is nobody (the kept directory's owner is
    the process's owner now);
  - rewrite its command line in place (setproctitle's way, through
    /proc/self/mem): its COMMAND is the new one;
  - start a thread that rewrites it when told through a pipe of its
    own, and tell it, the main thread asleep: its COMMAND is the new one (a refresh
    that keeps the words of a process of one thread that did not run
    keeps its command line too; one of more threads is read again);
  - exec `sleep 3003`: same pid, its COMMAND is the new one, its VM and
    mappings those of the new program (/proc/PID/maps);
  - exit, and another process (`sleep 2002`) given the same pid
    (ns_last_pid): listed with its own command, user and VM.
Each snapshot is also compared with a full walk (the check), which must
find no difference in the helper.
"""

import csv
import os
import select
import subprocess
import shutil
import sys
import tempfile
import time

import exmlive

FIELDS = "pid,user,cmd,vm,nmaps"
HELPER = """import ctypes, os, sys, threading
def retitle(title):
    with open("/proc/self/stat") as f:
        st = f.read().rsplit(")", 1)[1].split()
    start, end = int(st[45]), int(st[46])  # arg_start, arg_end
    new = title.encode()[:end - start - 1]
    with open("/proc/self/mem", "r+b", buffering=0) as m:
        m.seek(start)
        m.write(new + bytes(end - start - len(new)))
def titler(fd):
    for title in os.fdopen(fd):
        retitle(title.strip())
        print("ok", flush=True)
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "setuid":
        os.setuid(65534)
        ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
    elif cmd[0] == "title":
        retitle(cmd[1])
    elif cmd[0] == "thread":
        threading.Thread(target=titler, args=(int(cmd[1]),),
                         daemon=True).start()
    elif cmd[0] == "exec":
        os.execvp("sleep", ["sleep", "3003"])
    print("ok", flush=True)
"""


class Exmtop:
    def __init__(self):
        env = dict(os.environ, EXMTOP_CHECK_WALK="step")
        self.p = subprocess.Popen(
            [exmlive.EXMTOP, "-b", "-n", "1000", "--format", "csv",
             "--fields", FIELDS, "--full-walk", "3600",
             "--source", "pagemap"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env)
        self.first = True
        self.n = 0
        self.out = b""

    def snapshot(self, pid):
        """The next snapshot: pid's row (None when not listed), and the
        check line."""
        if not self.first:
            self.p.stdin.write("\n")
            self.p.stdin.flush()
        self.first = False
        self.n += 1
        check = row = None
        deadline = time.monotonic() + 60
        while check is None and time.monotonic() < deadline:
            r, _, _ = select.select([self.p.stderr], [], [], 1)
            if r:
                line = self.p.stderr.readline()
                if not line:
                    raise RuntimeError("exmtop ended: %s" % self.p.wait())
                if line.startswith("exmtop: check"):
                    check = line.strip()
        if check is None:
            raise RuntimeError("no snapshot in 60 s")
        # its rows: until pid's, or a while without one
        deadline = time.monotonic() + 5
        fd = self.p.stdout.fileno()
        while row is None and time.monotonic() < deadline:
            while b"\n" not in self.out:
                r, _, _ = select.select([fd], [], [], 0.5)
                if not r or time.monotonic() > deadline:
                    break
                self.out += os.read(fd, 65536)
            if b"\n" not in self.out:
                break
            line, self.out = self.out.split(b"\n", 1)
            f = next(csv.reader([line.decode()]), [])
            if len(f) > 2 and f[0] == str(self.n) and f[2] == str(pid):
                row = f[2:]
        return row, check

    def stop(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def settle(pid):
    """Wait until pid sleeps with its mappings made (a program just
    started is still mapping its libraries): asleep, neither its maps nor
    its run time moving for 0.2 s."""
    def look():
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open("/proc/%d/maps" % pid) as f:
            maps = f.read()
        with open("/proc/%d/schedstat" % pid) as f:
            ran = f.read().split()[0]
        return state, maps, ran
    last = None
    for _ in range(100):
        now = look()
        if now[0] == "S" and now == last:
            return
        last = now
        time.sleep(0.2)
    raise RuntimeError("pid %d did not settle" % pid)


def expect(fails, what, row, check, pid, user, cmd):
    with open("/proc/%d/maps" % pid) as f:
        ranges = [l.split()[0].split("-") for l in f.read().splitlines()]
    vm = sum(int(b, 16) - int(a, 16) for a, b in ranges)
    nmaps = len(ranges)
    want = [str(pid), user, cmd, str(vm), str(nmaps)]
    print("  %-8s %s" % (what, row))
    if row != want:
        fails.append("%s: pid %d is %s, not %s" % (what, pid, row, want))
    if "pid %d " % pid in check:
        fails.append("%s: the check differs: %s" % (what, check))


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap's frame numbers)")
        sys.exit(exmlive.SKIP)
    exmlive.in_own_pid_ns("EXM_KEPT_NS")
    fails = []
    tmp = tempfile.mkdtemp(prefix="exm-kept-")
    script = os.path.join(tmp, "helper.py")
    with open(script, "w") as f:
        f.write(HELPER)
    os.chmod(tmp, 0o755)
    os.chmod(script, 0o644)
    # the pipe the thread reads titles from (see titler)
    title_r, title_w = os.pipe()
    helper = subprocess.Popen([sys.executable, script],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, pass_fds=(title_r,))
    os.close(title_r)
    pid = helper.pid
    cmd = "%s %s" % (sys.executable, script)
    helper.stdin.write("ready\n")  # started: its modules all loaded
    helper.stdin.flush()
    assert helper.stdout.readline().strip() == "ok"
    ex = Exmtop()
    other = None
    try:
        def tell(what):
            helper.stdin.write(what + "\n")
            helper.stdin.flush()
            if what != "exec":
                assert helper.stdout.readline().strip() == "ok"

        settle(pid)
        ex.snapshot(pid)
        row, check = ex.snapshot(pid)  # the kept descriptors read
        expect(fails, "first", row, check, pid, "root", cmd)
        tell("setuid")
        settle(pid)
        row, check = ex.snapshot(pid)
        expect(fails, "setuid", row, check, pid, "nobody", cmd)
        tell("title title-one")
        settle(pid)
        row, check = ex.snapshot(pid)
        expect(fails, "title", row, check, pid, "nobody", "title-one")
        tell("thread %d" % title_r)
        settle(pid)
        row, check = ex.snapshot(pid)  # walked: it ran
        row, check = ex.snapshot(pid)  # kept: it did not
        expect(fails, "threaded", row, check, pid, "nobody", "title-one")
        # the thread alone runs; the second time, with no page to fault
        # in (its stat's counters still)
        for title in ("title-two", "title-three"):
            os.write(title_w, (title + "\n").encode())
            assert helper.stdout.readline().strip() == "ok"
            settle(pid)  # its mappings too (the thread may map memory)
            row, check = ex.snapshot(pid)
            expect(fails, "thread " + title, row, check, pid, "nobody",
                   title)
            row, check = ex.snapshot(pid)  # kept
        tell("exec")
        for _ in range(100):  # the exec done: sleep's command line
            with open("/proc/%d/cmdline" % pid) as f:
                if f.read() == "sleep\0003003\0":
                    break
            time.sleep(0.05)
        settle(pid)
        row, check = ex.snapshot(pid)
        expect(fails, "exec", row, check, pid, "nobody", "sleep 3003")
        helper.kill()
        helper.wait()
        # the next process started gets the pid the helper had
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        other = subprocess.Popen(["sleep", "2002"])
        if other.pid != pid:
            fails.append("pid %d not given again (got %d)" % (pid, other.pid))
        else:
            settle(pid)
            row, check = ex.snapshot(pid)
            expect(fails, "reused", row, check, pid, "root", "sleep 2002")
        ex.stop()
    finally:
        os.close(title_w)
        for p in (helper, other):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        if ex.p.poll() is None:
            ex.p.kill()
            ex.p.wait()
        shutil.rmtree(tmp)
    for f in fails:
        print("FAIL " + f)
    print("kept descriptors: %d failures" % len(fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    exmlive.run_main(main)

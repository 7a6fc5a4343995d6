#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The documentation's examples are tests.

Every command shown in a code block of README.md and kernel/README.md, and
every example of the manual (`exmtop --man`, section EXAMPLES), is looked
up by its exact text in EXAMPLES below and run: against the fixtures, a
recording this test makes, or processes it starts, with paths and PIDs
substituted (each substitution must find its text, so an edited example
fails rather than runs something else). The exit status and what the text
says about the output are asserted. An example in the documents without
an entry fails, and so does an entry whose example left them.

Needs root (page identity, other users' processes): exit 77 otherwise.
Run from the build directory (EXMTOP=./exmtop by default).
"""

import json
import os
import re
import shlex
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXMTOP = os.path.abspath(os.environ.get("EXMTOP", "./exmtop"))
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
DOCS = ("README.md", "kernel/README.md")


class Fail(Exception):
    pass


def need(cond, what):
    if not cond:
        raise Fail(what)


# ---- the examples of the documents ----------------------------------------

def md_blocks(text):
    """The code blocks of a Markdown text (indented by 4 spaces after a
    blank line, or fenced), each a list of lines without the indent."""
    out, cur, fence, prev_blank = [], None, None, True
    for ln in text.split("\n"):
        if fence is not None:
            if ln.strip().startswith("```"):
                out.append(fence)
                fence = None
            else:
                fence.append(ln)
            continue
        if ln.strip().startswith("```"):
            fence = []
            continue
        if cur is not None:
            if ln.startswith("    ") or not ln.strip():
                cur.append(ln[4:] if ln.strip() else "")
                continue
            out.append(cur)
            cur = None
        if ln.startswith("    ") and prev_blank and ln.strip():
            cur = [ln[4:]]
        prev_blank = not ln.strip()
    if cur is not None:
        out.append(cur)
    return [[ln for ln in b] for b in out]


def unbalanced(s):
    return s.count('"') % 2 == 1


def block_examples(lines):
    """One example per logical line (joined over a trailing backslash or an
    open quote); a block that is not a list of commands (a unit file, an
    SQL statement) is one example."""
    lines = [ln for ln in lines]
    while lines and not lines[-1]:
        lines.pop()
    if lines and (lines[0].startswith("[") or lines[0].startswith("WITH ")):
        return ["\n".join(lines)]
    out, cur = [], None
    for ln in lines:
        if cur is not None and (cur.endswith("\\") or unbalanced(cur)):
            cur += "\n" + ln
            continue
        if cur is not None:
            out.append(cur)
            cur = None
        if ln.strip():
            cur = ln
    if cur is not None:
        out.append(cur)
    return out


def man_examples():
    """The manual's EXAMPLES: each a .TP, the command on a .B line."""
    man = subprocess.run([EXMTOP, "--man"], capture_output=True, text=True,
                         check=True).stdout
    out, on, lines = [], False, man.split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith(".SH"):
            on = ln.strip() == ".SH EXAMPLES"
            continue
        if on and ln == ".TP" and i + 1 < len(lines) and \
                lines[i + 1].startswith(".B "):
            cmd = lines[i + 1][3:].replace("\\-", "-").replace("\\e", "\\")
            out.append("man: " + cmd)
    return out


def doc_examples():
    ex = []
    for doc in DOCS:
        with open(os.path.join(SRCDIR, doc), encoding="utf-8") as f:
            for b in md_blocks(f.read()):
                ex += [(doc, e) for e in block_examples(b)]
    ex += [("exmtop --man", e) for e in man_examples()]
    return ex


def command_of(example):
    """The command part of an example line: up to a run of two spaces or a
    '#' comment outside quotes, over backslash continuations."""
    if example.startswith("man: "):
        return example[5:]
    parts = []
    for ln in example.split("\n"):
        q, cut = None, len(ln)
        for i, ch in enumerate(ln):
            if q:
                if ch == q:
                    q = None
            elif ch in "\"'":
                q = ch
            elif ch == "#" or ln.startswith("  ", i):
                if ln[:i].strip():
                    cut = i
                    break
        part = ln[:cut].rstrip() if not q else ln
        parts.append(part[:-1].rstrip() if part.endswith("\\") else part)
    return " ".join(p.strip() for p in parts)


# ---- running them ----------------------------------------------------------

class Ctx:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="exm_readme.")
        self.kids = []
        self._rec = None

    def close(self):
        for p in self.kids:  # each leads a session: its children too
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def start(self, argv, **kw):
        """A workload process, killed at the end."""
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             start_new_session=True, **kw)
        self.kids.append(p)
        return p

    def sleeper(self):
        p = self.start(["sleep", "600"])
        wait_mapped(p.pid, LIBC)
        return p.pid

    def argv(self, cmd, subst=(), extra=()):
        """The example's command as an argv: each (old, new) of subst must
        be found in it; sudo dropped (the test runs as root); exmtop is the
        binary under test."""
        for old, new in subst:
            need(old in cmd, "example no longer holds %r" % old)
            cmd = cmd.replace(old, new, 1)
        argv = shlex.split(cmd)
        if argv[0] == "sudo":
            argv = argv[1:]
        if argv[0] in ("exmtop", "/usr/local/bin/exmtop"):
            argv[0] = EXMTOP
        return argv + list(extra)

    def run(self, cmd, subst=(), extra=(), status=0, timeout=60, **kw):
        argv = self.argv(cmd, subst, extra)
        r = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout, cwd=self.tmp, **kw)
        need(r.returncode == status,
             "%s: exit status %d, expected %d; stderr: %s" %
             (" ".join(argv), r.returncode, status, r.stderr.strip()[:300]))
        return r

    def rec(self):
        """A recording of three snapshots of processes of ours (fast to
        recompute in SQL), made once."""
        if not self._rec:
            self._rec = self.path("rec.exmrec")
            pids = ",".join(str(self.sleeper()) for _ in range(3))
            subprocess.run([EXMTOP, "-b", "--record", self._rec, "-n", "3",
                            "-d", "0.2", "--scan-pids", pids], check=True,
                           cwd=self.tmp)
        return self._rec


def wait_mapped(pid, path, secs=5):
    end = time.time() + secs
    while time.time() < end:
        try:
            with open("/proc/%d/maps" % pid) as f:
                if path in f.read():
                    return
        except OSError:
            pass
        time.sleep(0.01)
    raise Fail("workload %d never mapped %s" % (pid, path))


UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_of(s):
    """A size as text prints it (4.0K, 1.2M, 0, -123); None for '-'."""
    if s == "-":
        return None
    m = re.fullmatch(r"([+-]?[0-9.]+)([KMGT]?)", s)
    need(m, "not a size: %r" % s)
    return float(m.group(1)) * UNITS[m.group(2)]


def table(out, head):
    """The rows (lists of words) under the header line starting with head,
    up to a blank line or the next summary."""
    lines = out.split("\n")
    for i, ln in enumerate(lines):
        if ln.split()[:1] == [head]:
            cols = ln.split()
            rows = []
            for r in lines[i + 1:]:
                if not r.strip() or r.startswith(("note:", "vm:", "fixture:")):
                    break
                rows.append(r.split())
            return cols, rows
    raise Fail("no table with header %r in: %s" % (head, out[:300]))


def summaries(out):
    return [ln for ln in out.split("\n")
            if re.match(r"^\S+: \d+ processes \(", ln)]


def rec_count(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM snapshot").fetchone()[0]


def promtool(text, what):
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    need(r.returncode == 0, "%s: promtool check metrics: %s" %
         (what, (r.stdout + r.stderr).strip()[:300]))


class Screen:
    """A command on a tmux screen of its own (160x40 unless told)."""
    n = 0

    def __init__(self, ctx, argv, w=160, h=40):
        Screen.n += 1
        self.sock = "exmreadme%d.%d" % (os.getpid(), Screen.n)
        self.t = ["tmux", "-L", self.sock]
        # a file of its own: one shared by the screens let q of the next
        # read the last one's status, or an empty file as its shell's
        # redirection truncated it
        self.out = ctx.path("screen%d.status" % Screen.n)
        cmd = " ".join(shlex.quote(a) for a in argv)
        subprocess.run(self.t + ["-f", "/dev/null", "new-session", "-d",
                                 "-s", "t", "-x", str(w), "-y", str(h),
                                 "%s; echo $? > %s; sleep 30" %
                                 (cmd, shlex.quote(self.out))],
                       check=True, cwd=ctx.tmp, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, TERM="xterm-256color"))

    def text(self):
        return subprocess.run(self.t + ["capture-pane", "-p", "-t", "t"],
                              capture_output=True, text=True).stdout

    def wait(self, pat, secs=60):  # a whole scan of a loaded machine
        end = time.time() + secs
        while time.time() < end:
            s = self.text()
            if re.search(pat, s):
                return s
            time.sleep(0.05)
        raise Fail("screen never showed %r: %s" % (pat, self.text()[:600]))

    def quit(self):
        subprocess.run(self.t + ["send-keys", "-t", "t", "q"])
        end = time.time() + 10
        while time.time() < end:
            st = open(self.out).read() if os.path.exists(self.out) else ""
            if st.endswith("\n"):  # echo wrote it whole
                return int(st)
            time.sleep(0.05)
        raise Fail("q did not end the screen")

    def close(self):
        subprocess.run(self.t + ["kill-server"], capture_output=True)
        try:
            os.unlink("/tmp/tmux-%d/%s" % (os.getuid(), self.sock))
        except OSError:
            pass


def on_screen(ctx, argv, pat):
    """Run argv on a screen until pat shows, quit with q: (screen, status)."""
    s = Screen(ctx, argv)
    try:
        shown = s.wait(pat)
        status = s.quit()
    finally:
        s.close()
    need(status == 0, "%s: exit status %d after q" % (argv, status))
    return shown


def descending(vals, what):
    vals = [v for v in vals if v is not None]
    need(len(vals) >= 2, "%s: too few rows" % what)
    need(all(a >= b for a, b in zip(vals, vals[1:])),
         "%s: not in descending order: %s" % (what, vals[:20]))


# ---- the checks, one per example -------------------------------------------

def chk_scripts_run(ctx, cmd):
    """scripts/run installs, builds and starts exmtop with its arguments:
    run on a copy whose deps.sh records what it is asked and whose
    build/exmtop prints its arguments."""
    root = ctx.path("srcrun")
    os.makedirs(root + "/scripts")
    os.makedirs(root + "/build")
    shutil.copy(os.path.join(SRCDIR, cmd.split()[0]), root + "/scripts/")
    with open(root + "/scripts/deps.sh", "w") as f:
        f.write('exm_install() { echo "install $*" >&2; }\n'
                'exm_build() { echo "build $2 $3" >&2; }\n')
    with open(root + "/build/exmtop", "w") as f:
        f.write('#!/bin/sh\necho "exmtop $*"\n')
    os.chmod(root + "/build/exmtop", 0o755)
    r = subprocess.run([root + "/" + cmd.split()[0], "-b", "--format",
                        "json"], capture_output=True, text=True, timeout=20)
    need(r.returncode == 0, "scripts/run: status %d" % r.returncode)
    need("install build" in r.stderr and "build build --enable-werror" in
         r.stderr, "scripts/run did not install and build: " + r.stderr)
    need(r.stdout.strip() == "exmtop -b --format json",
         "scripts/run did not pass its arguments: " + r.stdout)


def chk_scripts_test(ctx, cmd):
    """scripts/test: what CI runs, and it ends with 'N passed, N failed'
    (checked on its text: running it is the whole suite)."""
    path = os.path.join(SRCDIR, cmd.split()[0])
    need(os.access(path, os.X_OK), "scripts/test is not executable")
    need(subprocess.run(["bash", "-n", path]).returncode == 0,
         "scripts/test does not parse")
    src = open(path).read()
    need("exm_install test" in src, "scripts/test installs no test deps")
    need(re.search(r"passed, .*failed", src), "no 'N passed, N failed'")
    ci = os.path.join(SRCDIR, ".ci/run")
    need(os.path.exists(ci) and "scripts/test" in open(ci).read(),
         ".ci/run does not run scripts/test")


def chk_live(ctx, cmd):
    """The live screen, sorted by effective resident."""
    shown = on_screen(ctx, ctx.argv(cmd), r"\n +\d+ \S+ +[0-9.]+[KMG]? ")
    lines = shown.split("\n")
    hi = next(i for i, ln in enumerate(lines) if "EFF.RES" in ln)
    head = lines[hi].split()
    col = next(i for i, w in enumerate(head) if w.startswith("EFF.RES"))
    need(head[col] == "EFF.RES\u25bc", "not sorted by EFF.RES: %s" % head)
    vals = []
    for ln in lines[hi + 1:]:
        w = ln.split()
        if len(w) > col and re.fullmatch(r"\d+", w[0]):
            vals.append(size_of(w[col]))
    descending(vals, "live screen EFF.RES")


def chk_batch(ctx, cmd):
    r = ctx.run(cmd)
    need(len(summaries(r.stdout)) == 1, "not one snapshot")
    cols, rows = table(r.stdout, "PID")
    need(len(rows) > 2 and "EFF.RES" in cols, "no process table")


def chk_five(ctx, cmd):
    """-n 5: five snapshots, -d apart (0.25 s here instead of 1 s)."""
    t0 = time.monotonic()
    r = ctx.run(cmd, subst=[("-d 1", "-d 0.25")])
    took = time.monotonic() - t0
    need(len(summaries(r.stdout)) == 5,
         "%d snapshots" % len(summaries(r.stdout)))
    need(took >= 4 * 0.25, "five snapshots in %.2f s: not 0.25 s apart"
         % took)


def chk_sort_pid(ctx, cmd):
    """Ascending by pid, one user's: postgres is 'nobody' here (a user with
    a process: this test's)."""
    ctx.start(["setpriv", "--reuid=nobody", "--regid=nogroup",
               "--clear-groups", "sleep", "600"])
    ctx.start(["setpriv", "--reuid=nobody", "--regid=nogroup",
               "--clear-groups", "sleep", "600"])
    time.sleep(0.2)
    r = ctx.run(cmd, subst=[("postgres", "nobody")])
    cols, rows = table(r.stdout, "PID")
    need(len(rows) >= 2, "fewer than two processes of nobody")
    pids = [int(w[0]) for w in rows]
    need(pids == sorted(pids), "not ascending by pid: %s" % pids)
    u = cols.index("USER")
    need(all(w[u] == "nobody" for w in rows), "another user listed")


def chk_pagemap_pid(ctx, cmd):
    """The pages of one mapping: the strip has one character a page of the
    mapping holding the address."""
    pid = ctx.sleeper()
    with open("/proc/%d/maps" % pid) as f:
        vm = next(ln.split() for ln in f if "[stack]" in ln)
    start, end = (int(x, 16) for x in vm[0].split("-"))
    r = ctx.run(cmd, subst=[("1234", str(pid)),
                            ("7f12a0000000", "%x" % (start + 4096))])
    strip = "".join(ln.split()[1] for ln in r.stdout.split("\n")
                    if re.fullmatch(r"\s*[0-9a-f]+ [.1-9#s]+", ln))
    need(len(strip) == (end - start) // 4096,
         "strip of %d pages for a mapping of %d" %
         (len(strip), (end - start) // 4096))
    need("1" in strip, "no page of the stack mapped once")


def chk_two_pids(ctx, cmd):
    """Exact byte counts for two processes: RES is smaps_rollup's Rss."""
    a, b = ctx.sleeper(), ctx.sleeper()
    r = ctx.run(cmd, subst=[("1234", str(a)), ("5678", str(b))])
    cols, rows = table(r.stdout, "PID")
    need(sorted(int(w[0]) for w in rows) == sorted([a, b]),
         "rows are not the two processes")
    res = cols.index("RES")
    for w in rows:
        with open("/proc/%s/smaps_rollup" % w[0]) as f:
            rss = next(int(ln.split()[1]) for ln in f
                       if ln.startswith("Rss:"))
        need(w[res] == str(rss * 1024),
             "RES %s is not Rss %d kB in bytes" % (w[res], rss))


def chk_scan_pids(ctx, cmd):
    """--scan-pids: the two processes only, and the header says the
    sharing is counted among them."""
    a, b = ctx.sleeper(), ctx.sleeper()
    r = ctx.run(cmd, subst=[("1234", str(a)), ("5678", str(b))])
    cols, rows = table(r.stdout, "PID")
    need(sorted(int(w[0]) for w in rows) == sorted([a, b]),
         "rows are not the two processes")
    need("limited scan" in r.stdout, "the header does not say the scan "
         "was limited")


def chk_files(ctx, cmd):
    r = ctx.run(cmd)
    cols, rows = table(r.stdout, "KIND")
    f = cols.index("FILE")
    names = [w[f] for w in rows]
    kinds = {w[0] for w in rows}
    need(LIBC in names, "libc not listed")
    need("file" in kinds and kinds & {"heap", "stack", "anon"},
         "not files and anonymous kinds: %s" % kinds)


def chk_group(ctx, cmd):
    """One row per program: three sleeps of ours are in one row (NPROC at
    least 3), each program once, with the exclusive figures."""
    for _ in range(3):
        ctx.sleeper()
    r = ctx.run(cmd)
    need(len(summaries(r.stdout)) == 1, "not one snapshot")
    cols, rows = table(r.stdout, "NPROC")
    need(cols[-1] == "GROUP" and {"EFF.RES", "FREED"} <= set(cols),
         "group columns: %s" % cols)
    names = [" ".join(w[len(cols) - 1:]) for w in rows]
    need(len(names) > 2 and len(set(names)) == len(names),
         "each program once: %s" % names)
    sleep = [w for w, n in zip(rows, names) if n == "sleep"]
    need(len(sleep) == 1 and int(sleep[0][0]) >= 3,
         "the sleeps' row: %s" % sleep)


def fields(letter):
    """The keys --list-fields gives as columns of the table letter."""
    out = subprocess.run([EXMTOP, "--list-fields"], capture_output=True,
                         text=True, check=True).stdout
    return [ln.split()[0] for ln in out.split("\n")
            if ln.strip() and letter in ln.split("\t")[0].split()[2]]


def chk_json(ctx, cmd):
    """Everything, sizes in bytes, null when not measured."""
    js = json.loads(ctx.run(cmd).stdout)
    need(js["units"] == "bytes", "units are not bytes")
    procs = js["processes"]
    need(procs, "no processes")
    keys = set(fields("p"))
    for p in procs:
        missing = keys - set(p)
        need(not missing, "pid %s lacks %s" % (p["pid"], missing))
        for k in ("vm", "rss", "erss", "swap", "sole"):
            need(p[k] is None or isinstance(p[k], (int, float)),
                 "%s is %r" % (k, p[k]))
    need(any(p["erss"] is None for p in procs) or
         all(p["state"] == "ok" for p in procs),
         "a process not measured has a number")


def chk_csv(ctx, cmd):
    out = ctx.run(cmd).stdout.split("\n")
    # every row starts with the snapshot's number and time
    need(out[0] == "snapshot,time,pid,comm,erss,pss",
         "CSV header: %r" % out[0])
    need(len(out) > 3 and all(len(ln.split(",")) >= 4 for ln in out[1:]
                              if ln), "CSV rows")


def chk_list_fields(ctx, cmd):
    """Every column key: each one is accepted by --fields, and JSON has
    each one."""
    keys = [ln.split()[0] for ln in ctx.run(cmd).stdout.split("\n")
            if ln.strip()]
    need(len(keys) >= 10 and len(set(keys)) == len(keys), "keys")
    procs, files = fields("p"), fields("f")
    need(set(procs) | set(files) <= set(keys) and "erss" in procs, "tables")
    out = ctx.run("exmtop -b --format csv --source fixture:basic --fields "
                  + ",".join(procs)).stdout
    need(out.split("\n")[0] == "snapshot,time," + ",".join(procs),
         "process columns")
    out = ctx.run("exmtop -b --files --format csv --source fixture:basic "
                  "--fields " + ",".join(files)).stdout
    need(out.split("\n")[0] == "snapshot,time," + ",".join(files),
         "file columns")
    # a key of no process column is refused, in one line
    other = [k for k in keys if k not in procs][0]
    r = ctx.run("exmtop -b --source fixture:basic --fields " + other,
                status=2)
    need(len(r.stderr.strip().split("\n")) == 1, "not one line")


def chk_record_until_stopped(ctx, cmd):
    """Records a snapshot every -d (0.3 s here) until SIGINT."""
    path = ctx.path("stop.exmrec")
    argv = ctx.argv(cmd, subst=[("rec.exmrec", path), ("-d 10", "-d 0.3")])
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    end = time.time() + 20
    while time.time() < end and p.poll() is None:
        time.sleep(0.1)
        try:
            if rec_count(path) >= 2:
                break
        except sqlite3.Error:
            pass
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    need(p.returncode == 0, "status %d: %s" % (p.returncode, err))
    need(out == "" and err == "", "it printed: %r %r" % (out, err))
    with sqlite3.connect(path) as db:
        t = [a + b / 1e9 for a, b in db.execute(
            "SELECT taken_sec, taken_nsec FROM snapshot ORDER BY id")]
    need(len(t) >= 2, "%d snapshots before SIGINT" % len(t))
    need(all(b - a >= 0.29 for a, b in zip(t, t[1:])),
         "snapshots less than -d apart: %s" % t)


def chk_replay_screen(ctx, cmd):
    rec = ctx.rec()
    on_screen(ctx, ctx.argv(cmd, subst=[("rec.exmrec", rec)]),
              r"\[1/3\]")


def chk_replay_screen_file(ctx, cmd):
    rec = ctx.rec()
    on_screen(ctx, ctx.argv(cmd, subst=[("FILE", rec)]), r"\[1/3\]")


def chk_diff_first_last(ctx, cmd):
    rec = ctx.rec()
    r = ctx.run(cmd, subst=[("rec.exmrec", rec)])
    need(re.search(r"1/3 \(.*\) -> .* 3/3 \(", r.stdout.split("\n")[0]),
         "not first to last: " + r.stdout.split("\n")[0])


def chk_alerts(ctx, cmd):
    """What is wasted or growing: a process that grows by 4 MiB every
    0.05 s is named by anon-growth between the two snapshots."""
    grow = ctx.start([sys.executable, "-c",
                      "import time\nb=[]\n"
                      "for i in range(200):\n"
                      " b.append(bytearray(4<<20)); time.sleep(0.05)\n"
                      "time.sleep(600)\n"])
    try:
        r = ctx.run(cmd, subst=[("-d 10", "-d 0.5")])
    finally:
        grow.kill()
        grow.wait()
    need(len(summaries(r.stdout)) == 2, "not two snapshots")
    need(re.search(r"^anon-growth\s+%d\s" % grow.pid, r.stdout, re.M),
         "the growing process %d is not an anon-growth alert" % grow.pid)


def chk_system(ctx, cmd):
    """Rows adding up to MemTotal (exactly, in JSON bytes)."""
    out = ctx.run(cmd).stdout
    need("user_space" in out and "unexplained" in out, "system rows")
    js = json.loads(ctx.run(cmd, extra=["--format", "json"]).stdout)
    total = sum(r["bytes"] for r in js["system"])
    need(total == js["mem_total"], "rows add up to %d, MemTotal %d" %
         (total, js["mem_total"]))
    with open("/proc/meminfo") as f:
        mt = int(f.readline().split()[1]) * 1024
    need(js["mem_total"] == mt, "mem_total is not /proc/meminfo's")


def chk_units(ctx, cmd):
    out = ctx.run(cmd).stdout
    cols, rows = table(out, "FILE")
    for c in ("TEXT.RES", "DATA.RES", "BSS.RES"):
        need(c in cols, "no column " + c)
    need(any(w[0] == LIBC for w in rows), "libc is not a unit")


def chk_breakdown(ctx, cmd):
    """Each process by kind: the kinds add up to its effective resident."""
    ctx.run(cmd)
    js = json.loads(ctx.run(cmd, extra=["--format", "json"]).stdout)
    byp = {p["pid"]: p["erss"] for p in
           json.loads(ctx.run("exmtop -b --format json").stdout)
           ["processes"]}
    kinds = ("stack", "heap", "prog_text", "prog_data", "prog_bss",
             "lib_text", "lib_data", "lib_bss", "anon", "other")
    checked = 0
    for row in js["breakdown"]:
        if row["stack"] is None:
            continue
        s = sum(row[k] for k in kinds)
        need(abs(s - row["erss"]) < 1 if "erss" in row else True,
             "pid %d: kinds add up to %s, erss %s" %
             (row["pid"], s, row.get("erss")))
        checked += 1
    need(checked and len(js["breakdown"]) >= len(byp) // 2,
         "breakdown rows")


def chk_pagemap_file(ctx, cmd):
    ctx.sleeper()
    out = ctx.run(cmd).stdout
    m = re.search(r"^%s: (\d+) processes map it: (\d+) pages of (\d+) "
                  r"mapped, (\d+) resident" % re.escape(LIBC), out, re.M)
    need(m, "no page strip header")
    strip = "".join(ln.split()[1] for ln in out.split("\n")
                    if re.fullmatch(r"\s*[0-9a-f]+ [.1-9#]+", ln))
    need(len(strip) == int(m.group(2)), "strip of %d chars for %s pages"
         % (len(strip), m.group(2)))
    need(sum(c != "." for c in strip) == int(m.group(4)),
         "resident pages differ from the strip")


def om_check(ctx, argv_cmd, subst, name):
    """Run an OpenMetrics example writing into a directory of ours: the
    file is written whole (mode 0644) and promtool accepts it."""
    d = ctx.path("prom")
    os.makedirs(d, exist_ok=True)
    r = ctx.run(argv_cmd, subst=subst + [(name, d + "/")])
    need(r.stdout == "", "printed with --output")
    f = os.path.join(d, "exmtop.prom")
    st = os.stat(f)
    need(stat.S_IMODE(st.st_mode) == 0o644, "mode %o" % st.st_mode)
    need(os.listdir(d) == ["exmtop.prom"], "left %s" % os.listdir(d))
    text = open(f).read()
    promtool(text, argv_cmd)
    pids = set(re.findall(r'^exmtop_process_effective_resident_bytes\{pid="'
                          r'(\d+)"', text, re.M))
    need(1 <= len(pids) <= 20, "%d processes, --top 20" % len(pids))
    need(text.endswith("# EOF\n"), "no # EOF")


def chk_om_example(ctx, cmd):
    om_check(ctx, cmd, [], "/var/lib/prometheus/node-exporter/")
    # -n 2 to stdout and a file, and the fixtures, through promtool too
    two = ctx.path("two.prom")
    for extra in (["-n", "2", "-d", "0.1", "--output", two],
                  ["--source", "fixture:hostile"]):
        r = ctx.run("exmtop -b --format openmetrics", extra=extra)
        promtool(r.stdout if "--output" not in extra else
                 open(two).read(), " ".join(extra))
    r = ctx.run("exmtop -b --format openmetrics -n 2 -d 0.1", status=2)
    need(len(r.stderr.strip().split("\n")) == 1 and not r.stdout,
         "-n 2 to stdout: not one line: %r" % r.stderr)


def chk_sections_all(ctx, cmd):
    ctx.sleeper()
    out = ctx.run(cmd).stdout
    m = re.search(r"^%s in (\d+) processes" % re.escape(LIBC), out, re.M)
    need(m and int(m.group(1)) >= 1, "no 'in N processes'")
    cols, rows = table(out, "ADDRESS")
    names = [w[-1] for w in rows]
    need(".text" in names and ".data" in names, "no .text/.data rows")


def chk_sections_one(ctx, cmd):
    pid = ctx.sleeper()
    out = ctx.run(cmd, subst=[("1234", str(pid))]).stdout
    need(re.search(r"^%s in process %d$" % (re.escape(LIBC), pid), out,
                   re.M),
         "not one process: " + out[:300])


def chk_symbols(ctx, cmd):
    ctx.sleeper()
    out = ctx.run(cmd).stdout
    cols, rows = table(out, "ADDRESS")
    addrs = [int(w[0], 16) for w in rows]
    need(len(addrs) > 10, "few symbols")
    need(addrs == sorted(addrs), "not sorted ascending by address")


def chk_sections_bash_json(ctx, cmd):
    """JSON section rows: section (null for a gap), addr, size, sizes."""
    ctx.start(["bash", "-c", "sleep 600; true"])
    wait_mapped(ctx.kids[-1].pid, "/usr/bin/bash")
    js = json.loads(ctx.run(cmd).stdout)
    rows = js["sections"]
    for r in rows:
        for k in ("section", "addr", "size", "vm", "rss", "erss"):
            need(k in r, "section row without " + k)
    gaps = [r for r in rows if r["section"] is None]
    named = [r["section"] for r in rows if r["section"] is not None]
    need(gaps and ".text" in named, "no gap row (null) or no .text")
    need(all(not n.startswith(("[", "(")) for n in named),
         "a gap not null: %s" % [n for n in named if n[0] in "[("])


def chk_unit_service(ctx, block):
    """The service's ExecStart runs (exmtop under test, the directory
    ours) and writes what promtool accepts; the unit parses."""
    need("[Service]" in block and "Type=oneshot" in block, "service")
    m = re.search(r"^ExecStart=(.*?)(?<!\\)$", block.replace("\\\n", " "),
                  re.M)
    need(m, "no ExecStart")
    om_check(ctx, m.group(1), [], "/var/lib/prometheus/node-exporter/")
    need(os.path.isdir("/var/lib/prometheus/node-exporter") or
         True, "")


def unit_verify(ctx, name, text):
    p = ctx.path(name)
    with open(p, "w") as f:
        f.write(text)
    r = subprocess.run(["systemd-analyze", "verify", "--man=no", p],
                       capture_output=True, text=True)
    bad = [ln for ln in (r.stdout + r.stderr).split("\n")
           if name in ln and ("Unknown" in ln or "error" in ln.lower()
                              or "Invalid" in ln)]
    need(not bad, "systemd-analyze verify: %s" % bad)


def chk_unit_timer(ctx, block):
    """The timer: every minute, starting the service of the same name."""
    need("[Timer]" in block and "OnUnitActiveSec=1min" in block and
         "WantedBy=timers.target" in block, "timer")
    unit_verify(ctx, "exmtop-textfile.timer", block + "\n")


def chk_record_n(ctx, cmd):
    path = ctx.path("n.exmrec")
    r = ctx.run(cmd, subst=[("FILE", path), ("[-d SECS]", "-d 0.2"),
                            ("[-n N]", "-n 3")])
    need(r.stdout == "" and r.stderr == "", "printed something")
    need(rec_count(path) == 3, "not 3 snapshots")
    ctx.run(cmd, subst=[("FILE", path), ("[-d SECS]", "-d 0.2"),
                        ("[-n N]", "-n 1")])
    need(rec_count(path) == 4, "not appended")


def chk_record_verbose(ctx, cmd):
    """Says each snapshot written, on stderr, one line each, and the
    recording holds those snapshots."""
    path = ctx.path("v.exmrec")
    argv = ctx.argv(cmd, subst=[("FILE", path)]) + ["-d", "0.2", "-n", "3"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    need(r.returncode == 0, "status %d: %s" % (r.returncode, r.stderr))
    lines = r.stderr.strip().split("\n")
    need(lines == ["exmtop: --record: snapshot %d written" % k
                   for k in (1, 2, 3)], "stderr: %r" % r.stderr)
    need(rec_count(path) == 3, "not 3 snapshots")


def chk_record_json(ctx, cmd):
    path = ctx.path("j.exmrec")
    js = json.loads(ctx.run(cmd, subst=[("FILE", path)]).stdout)
    need(js["processes"], "no JSON")
    need(rec_count(path) == 1, "-b: not one snapshot")


def chk_record_watch(ctx, cmd):
    path = ctx.path("w.exmrec")
    on_screen(ctx, ctx.argv(cmd, subst=[("FILE", path)]),
              r"\n +\d+ \S+ +[0-9.]+[KMG]? ")
    need(rec_count(path) >= 1, "the screen's snapshot not recorded")


def chk_replay_csv(ctx, cmd):
    """Every recorded snapshot's processes, in order: one header, then
    the rows of snapshot 1, 2 and 3."""
    rec = ctx.rec()
    out = ctx.run(cmd, subst=[("FILE", rec)]).stdout.strip().split("\n")
    need(out[0].startswith("snapshot,time,pid,"), "no CSV header")
    with sqlite3.connect(rec) as db:
        want = [r[0] for r in db.execute(
            "SELECT count(*) FROM process GROUP BY snapshot ORDER BY "
            "snapshot")]
        first = {r[0] for r in db.execute(
            "SELECT pid FROM process WHERE snapshot = 1")}
    rows = [ln.split(",") for ln in out[1:] if re.match(r"\d+,", ln)]
    need(len(rows) == sum(want), "%d rows for snapshots of %s processes"
         % (len(rows), want))
    # the snapshot column: 1 for the first want[0] rows, then 2, ...
    need([int(r[0]) for r in rows] ==
         [k + 1 for k, n in enumerate(want) for _ in range(n)],
         "the rows' snapshot numbers are not 1, 2, 3 in order")
    need({int(r[2]) for r in rows[:want[0]]} == first,
         "the first rows are not snapshot 1's")


def chk_replay_third(ctx, cmd):
    rec = ctx.rec()
    out = ctx.run(cmd, subst=[("FILE", rec)]).stdout
    s = summaries(out)
    need(len(s) == 1 and "replay 3/3" in s[0], "not the third: %s" % s)


def chk_replay_sections(ctx, cmd):
    """ELF of a target's recording, under a sysroot (this machine's root
    stands for the target's copy), from the snapshot --from says."""
    rec = ctx.rec()
    out = ctx.run(cmd, subst=[("FILE", rec), ("/srv/target-root", "/")],
                  extra=["--from", "2"]).stdout
    s = summaries(out)
    need(s and "replay 2/3" in s[0], "--from 2 not honoured: %s" % s)
    cols, rows = table(out, "ADDRESS")
    need(any(w[-1] == ".text" for w in rows), "no .text section")


def chk_diff_from_to(ctx, cmd):
    rec = ctx.rec()
    r = ctx.run(cmd, subst=[("FILE", rec), ("[--from K]", "--from 1"),
                            ("[--to K]", "--to 2")])
    need(re.search(r" 1/3 .* 2/3 ", r.stdout.split("\n")[0]),
         "not 1 to 2: " + r.stdout.split("\n")[0])
    # a time before the first snapshot is refused, in one line
    r = ctx.run(cmd, subst=[("FILE", rec), ("[--from K]", "--from @1"),
                            ("[--to K]", "")], status=2)
    need(len(r.stderr.strip().split("\n")) == 1 and "before" in r.stderr,
         "--from before the first: %r" % r.stderr)


def chk_diff_two(ctx, cmd):
    rec = ctx.rec()
    b = ctx.path("b.exmrec")
    subprocess.run([EXMTOP, "-b", "--record", b], check=True)
    js = json.loads(ctx.run(cmd, subst=[("A", rec), ("B", b)]).stdout)
    need(js["from"]["file"] == rec and js["to"]["file"] == b
         if isinstance(js["from"], dict) else
         (rec in json.dumps(js["from"]) and b in json.dumps(js["to"])),
         "from/to are not A and B: %s %s" % (js["from"], js["to"]))
    for k in ("seconds", "new", "gone", "totals", "processes"):
        need(k in js, "no " + k)


def sq(cmd, rec):
    """Run a sqlite3 example on our recording: its rows."""
    argv = shlex.split(cmd.replace("rec.exmrec", rec, 1))
    need(argv[0] == "sqlite3", "not sqlite3")
    r = subprocess.run(argv, capture_output=True, text=True, check=True)
    return [ln.split("|") for ln in r.stdout.strip().split("\n")]


def replay_erss(rec):
    """pid -> erss per snapshot, as the replay's JSON says."""
    out = subprocess.run([EXMTOP, "-b", "--replay", rec, "--format",
                          "json"], capture_output=True, text=True,
                         check=True).stdout
    snaps = [json.loads(ln) for ln in out.split("\n") if ln.strip()]
    return [{p["pid"]: p["erss"] for p in s["processes"]} for s in snaps]


def chk_sql_erss(ctx, cmd):
    rec = ctx.rec()
    rows = sq(cmd, rec)
    want = replay_erss(rec)
    need(len({r[0] for r in rows}) == 3, "not 3 snapshots")
    for sid, _, pid, _, erss in rows:
        e = want[int(sid) - 1].get(int(pid))
        need(e is None if erss == "" else abs(float(erss) - e) < 0.01,
             "pid %s: recorded erss %s, replay %s" % (pid, erss, e))


def chk_sql_free(ctx, cmd):
    rec = ctx.rec()
    rows = sq(cmd, rec)
    need(len(rows) == 3, "%d rows for 3 snapshots" % len(rows))
    for _, v in rows:
        need(int(v) > 0 and int(v) % 1024 == 0, "MemFree %s" % v)


def chk_sql_recompute(ctx, block):
    """The definition in SQL gives each process's recorded erss."""
    rec = ctx.rec()
    r = subprocess.run(["sqlite3", rec], input=block, capture_output=True,
                       text=True, check=True)
    want = replay_erss(rec)
    n = 0
    for ln in r.stdout.strip().split("\n"):
        sid, pid, _, erss = ln.rsplit("|", 3)[0].split("|")[0], \
            ln.split("|")[1], None, ln.split("|")[-1]
        e = want[int(sid) - 1].get(int(pid))
        need(e is not None and abs(float(erss) - e) < 0.01,
             "pid %s: SQL erss %s, exmtop %s" % (pid, erss, e))
        n += 1
    need(n == 9, "%d rows: not 3 processes in 3 snapshots" % n)


def chk_apt(ctx, cmd):
    """apt install: the packages it names exist for this system (the
    running kernel's headers only where the kernel is Debian's)."""
    for pkg in cmd.replace("$(uname -r)", "VERSION").split()[3:]:
        if pkg == "linux-headers-VERSION":
            continue
        r = subprocess.run(["apt-cache", "show", "--no-all-versions", pkg],
                           capture_output=True, text=True)
        need(r.returncode == 0 and "Package: " + pkg in r.stdout,
             "no package " + pkg)


def chk_debian_package(ctx, cmd):
    """Building and installing the packages: tests/pkg/run (part of
    scripts/test) does exactly this from a clean clone; here, what the
    example names exists: debian/control with its Build-Depends and the
    two packages, an executable debian/rules, and the test that runs it."""
    control = open(os.path.join(SRCDIR, "debian/control")).read()
    need("Build-Depends:" in control, "no Build-Depends")
    pkgs = re.findall(r"^Package: (\S+)", control, re.M)
    need(sorted(pkgs) == ["exmap-dkms", "exmtop"], "packages %r" % pkgs)
    need(os.access(os.path.join(SRCDIR, "debian/rules"), os.X_OK),
         "debian/rules not executable")
    run = open(os.path.join(SRCDIR, "tests/pkg/run")).read()
    if "dpkg-buildpackage" in cmd:
        need("dpkg-buildpackage -us -uc -b" in run,
             "tests/pkg/run does not build as the example does")
    if "apt install" in cmd:
        need("apt-get install ./exmtop_" in run,
             "tests/pkg/run does not install the .deb")


def chk_make_kernel(ctx, cmd):
    """make -C kernel builds against KDIR (dry run: which tree it uses)."""
    r = subprocess.run(["make", "-n", "-C", os.path.join(SRCDIR, "kernel"),
                        "KDIR=/nonexistent/kdir"], capture_output=True,
                       text=True)
    need("/nonexistent/kdir" in r.stdout + r.stderr,
         "KDIR not used: " + (r.stdout + r.stderr)[:300])


def kbuild():
    return open(os.path.join(SRCDIR, "kernel/Kbuild")).read()


def dkms():
    return dict(re.findall(r'^([\w\[\]]+)="?([^"\n]*)"?', open(
        os.path.join(SRCDIR, "kernel/dkms.conf")).read(), re.M))


def chk_insmod(ctx, cmd):
    """The module built is exmap.ko, and exmtop uses it when it can open
    /dev/exmap (without it, --source kmod says how to load it)."""
    need(re.search(r"obj-m\s*[:+]?=\s*exmap\.o", kbuild()), "not exmap.ko")
    if not os.path.exists("/dev/exmap"):
        r = ctx.run("exmtop -b --source kmod", status=2)
        need("exmap" in r.stderr, "no word of the module")


def chk_rmmod(ctx, cmd):
    need(re.search(r"obj-m\s*[:+]?=\s*exmap\.o", kbuild()), "not exmap")


def chk_dkms(ctx, cmd):
    d = dkms()
    need(d.get("PACKAGE_NAME") == "exmap", "dkms name %s" % d)
    need("/usr/src/exmap-%s" % d.get("PACKAGE_VERSION") in cmd and
         "exmap/%s" % d.get("PACKAGE_VERSION") in cmd,
         "dkms version %s" % d.get("PACKAGE_VERSION"))


def chk_modules_load(ctx, cmd):
    d = dkms()
    need(d.get("BUILT_MODULE_NAME[0]", d.get("BUILT_MODULE_NAME")) ==
         "exmap", "module name %s" % d)


def chk_man_sort_root(ctx, cmd):
    out = ctx.run(cmd).stdout
    cols, rows = table(out, "PID")
    pids = [int(w[0]) for w in rows]
    need(len(pids) >= 2 and pids == sorted(pids), "not ascending by pid")
    u = cols.index("USER")
    need(all(w[u] == "root" for w in rows), "another user listed")


def chk_man_json_lines(ctx, cmd):
    """Three snapshots as JSON Lines: one object a line."""
    out = ctx.run(cmd, subst=[("-d 5", "-d 0.2")]).stdout
    lines = out.rstrip("\n").split("\n")
    need(len(lines) == 3, "%d lines for 3 snapshots" % len(lines))
    for ln in lines:
        need(json.loads(ln)["processes"], "a line is not a snapshot")


def chk_man_record(ctx, cmd):
    path = ctx.path("man.exmrec")
    r = ctx.run(cmd, subst=[("rec.exmrec", path), ("-d 1", "-d 0.2")])
    need(r.stdout == "", "printed something")
    need(rec_count(path) == 3, "not three snapshots")


def aged_recording(ctx, name):
    """A recording of two snapshots of the fixture, made to have been
    taken 8 days ago."""
    path = ctx.path(name)
    subprocess.run([EXMTOP, "-b", "--record", path, "-n", "2", "--source",
                    "fixture:basic"], check=True, cwd=ctx.tmp)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshot SET taken_sec = taken_sec - 8 * 86400")
    return path


def rec_ids(path):
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT id FROM snapshot ORDER "
                                         "BY id")]


def chk_record_keep_7d(ctx, cmd):
    """Two snapshots 8 days old go with the first new one."""
    path = aged_recording(ctx, "k7d.exmrec")
    ctx.run(cmd, subst=[("FILE", path)], extra=["-n", "1"])
    need(rec_ids(path) == [3], "left: %r" % rec_ids(path))


def chk_record_keep_size(ctx, cmd):
    """Far within 1 GiB, none goes; the recorder indexed the mappings'
    page sets and files to find what a dropped snapshot leaves."""
    path = ctx.path("k1g.exmrec")
    ctx.run(cmd, subst=[("FILE", path)], extra=["-n", "3", "-d", "0.2"])
    need(rec_ids(path) == [1, 2, 3], "left: %r" % rec_ids(path))
    with sqlite3.connect(path) as db:
        idx = {r[0] for r in db.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND "
            "tbl_name = 'mapping'")}
    need({"mapping_pageset", "mapping_file"} <= idx, "indexes: %r" % idx)


def chk_man_keep(ctx, cmd):
    path = aged_recording(ctx, "mankeep.exmrec")
    ctx.run(cmd, subst=[("rec.exmrec", path), ("-d 60", "-d 0.2 -n 2")])
    need(rec_ids(path) == [3, 4], "left: %r" % rec_ids(path))


def chk_man_diff(ctx, cmd):
    rec = ctx.rec()
    r = ctx.run(cmd, subst=[("rec.exmrec", rec)])
    need(re.search(r" 1/3 .* 2/3 ", r.stdout.split("\n")[0]),
         "not 1 to 2: " + r.stdout.split("\n")[0])


EXAMPLES = {
    # README.md: Install and first run
    "scripts/run          # install build dependencies, build, start exmtop":
        chk_scripts_run,
    # README.md: How it is tested
    "scripts/test         # install test dependencies, build, run the whole "
    "suite": chk_scripts_test,
    # README.md: Install as a Debian package
    "sudo apt-get build-dep ./            # debian/control's Build-Depends":
        chk_debian_package,
    "dpkg-buildpackage -us -uc -b         # ../exmtop_VERSION_ARCH.deb, "
    "../exmap-dkms_VERSION_all.deb": chk_debian_package,
    "sudo apt install ../exmtop_*.deb     # and ../exmap-dkms_*.deb for the "
    "module": chk_debian_package,
    # README.md: Using it
    "sudo exmtop                      live screen, sorted by effective "
    "resident": chk_live,
    "exmtop -b                        one snapshot as a table, then exit":
        chk_batch,
    "exmtop -b -n 5 -d 1              five snapshots, one second apart":
        chk_five,
    "exmtop -b -o -pid -u postgres    sort ascending by pid, one user's "
    "processes": chk_sort_pid,
    "exmtop -b --pagemap 1234:7f12a0000000   the pages of one mapping":
        chk_pagemap_pid,
    "exmtop -b -p 1234,5678 --bytes   exact byte counts for two processes":
        chk_two_pids,
    "exmtop -b --scan-pids 1234,5678  scan only those two (sharing among "
    "them)": chk_scan_pids,
    "exmtop -b --files                files and anonymous kinds across "
    "processes": chk_files,
    "exmtop -b --group program        one row per program (user, cgroup): "
    "the live screen's groups": chk_group,
    "exmtop -b --format json          everything, sizes in bytes (null = not"
    " measured)": chk_json,
    "exmtop -b --format csv --fields pid,comm,erss,pss": chk_csv,
    "exmtop --list-fields             every column key": chk_list_fields,
    "exmtop --record rec.exmrec -d 10  record a snapshot every 10 s until "
    "stopped": chk_record_until_stopped,
    "exmtop --replay rec.exmrec       the live screen on the recorded "
    "snapshots": chk_replay_screen,
    "exmtop --diff rec.exmrec         what grew from its first to its last "
    "snapshot": chk_diff_first_last,
    "exmtop -b --alerts -n 2 -d 10    what is wasted or growing (below)":
        chk_alerts,
    "exmtop -b --system               all of RAM, rows adding up to "
    "MemTotal": chk_system,
    "exmtop -b --units                programs and libraries: text, data, "
    "bss": chk_units,
    "exmtop -b --breakdown            each process by kind of memory":
        chk_breakdown,
    "exmtop -b --pagemap /usr/lib/x86_64-linux-gnu/libc.so.6   a file "
    "across processes": chk_pagemap_file,
    "exmtop -b --format openmetrics --top 20 --output "
    "/var/lib/prometheus/node-exporter/exmtop.prom": chk_om_example,
    # README.md: ELF sections and symbols
    "exmtop -b --sections /usr/lib/x86_64-linux-gnu/libc.so.6          all "
    "processes": chk_sections_all,
    "exmtop -b --sections /usr/lib/x86_64-linux-gnu/libc.so.6 -p 1234  one "
    "process": chk_sections_one,
    "exmtop -b --symbols /usr/lib/x86_64-linux-gnu/libc.so.6:.text -o "
    "-addr": chk_symbols,
    "exmtop -b --sections /usr/bin/bash --format json":
        chk_sections_bash_json,
    # README.md: Prometheus
    "[Unit]\nDescription=exmtop memory metrics for node_exporter\n\n"
    "[Service]\nType=oneshot\nExecStart=/usr/local/bin/exmtop -b --format "
    "openmetrics --top 20 \\\n    --output /var/lib/prometheus/"
    "node-exporter/exmtop.prom\nNice=10\nIOSchedulingClass=idle":
        chk_unit_service,
    "[Unit]\nDescription=Refresh exmtop's node_exporter metrics every "
    "minute\n\n[Timer]\nOnBootSec=1min\nOnUnitActiveSec=1min\n"
    "AccuracySec=5s\n\n[Install]\nWantedBy=timers.target": chk_unit_timer,
    # README.md: Recordings
    "exmtop --record FILE [-d SECS] [-n N]   append snapshots, no screen":
        chk_record_n,
    "exmtop --record FILE --verbose          ... saying each snapshot "
    "written": chk_record_verbose,
    "exmtop --record FILE --keep 7d          ... dropping those older than "
    "7 days": chk_record_keep_7d,
    "exmtop --record FILE --keep-size 1G     ... keeping the file within "
    "1 GiB": chk_record_keep_size,
    "exmtop -b --record FILE --format json   ... and print each as JSON":
        chk_record_json,
    "exmtop --record FILE --watch            record what the live screen "
    "shows": chk_record_watch,
    "exmtop --replay FILE                    the live screen on the "
    "recording": chk_replay_screen_file,
    "exmtop -b --replay FILE --format csv    every recorded snapshot, in "
    "order": chk_replay_csv,
    "exmtop -b --replay FILE --from 3 -n 1   the third one only":
        chk_replay_third,
    "exmtop -b --replay FILE --sections /usr/lib/x86_64-linux-gnu/libc.so.6"
    " \\\n       --sysroot /srv/target-root       ELF of a target's "
    "recording": chk_replay_sections,
    "exmtop --diff FILE [--from K] [--to K]  growth between two snapshots":
        chk_diff_from_to,
    "exmtop --diff A B --format json         ... of two recordings":
        chk_diff_two,
    "sqlite3 rec.exmrec \"SELECT s.id, datetime(s.taken_sec, 'unixepoch'),"
    "\n    p.pid, p.comm, p.erss FROM process p JOIN snapshot s\n    ON s.id"
    " = p.snapshot ORDER BY s.id, p.erss DESC\"": chk_sql_erss,
    "sqlite3 rec.exmrec \"SELECT datetime(s.taken_sec, 'unixepoch'),\n    "
    "m.value * 1024 FROM snapshot s JOIN meminfo m ON m.snapshot = s.id\n"
    "    WHERE m.key = 'MemFree' ORDER BY s.id\"": chk_sql_free,
    "WITH page AS (\n  SELECT m.snapshot, m.proc, r.first + g.value AS pfn"
    "\n  FROM mapping m JOIN run r ON r.pageset = m.pageset,\n       "
    "generate_series(0, r.count - 1) AS g\n  WHERE r.present AND (r.flags & 16) = 0),\nshare AS ("
    "\n  SELECT snapshot, pfn, count(*) AS maps FROM page GROUP BY snapshot,"
    " pfn)\nSELECT page.snapshot, p.pid, p.comm,\n       sum(s.page_size * "
    "1.0 / share.maps) AS erss\nFROM page JOIN share USING (snapshot, pfn)"
    "\n     JOIN process p ON p.snapshot = page.snapshot AND p.idx = "
    "page.proc\n     JOIN snapshot s ON s.id = page.snapshot\nGROUP BY "
    "page.snapshot, page.proc ORDER BY page.snapshot, erss DESC;":
        chk_sql_recompute,
    # README.md: The kernel module
    "sudo apt install linux-headers-$(uname -r) build-essential dwarves":
        chk_apt,
    "make -C kernel                       # KDIR=/path/to/build for another "
    "kernel": chk_make_kernel,
    "sudo insmod kernel/exmap.ko          # now `sudo exmtop` uses it":
        chk_insmod,
    "sudo rmmod exmap": chk_rmmod,
    "sudo apt install dkms": chk_apt,
    "sudo cp -r kernel /usr/src/exmap-0.1.0 && sudo dkms install "
    "exmap/0.1.0": chk_dkms,
    "echo exmap | sudo tee /etc/modules-load.d/exmap.conf":
        chk_modules_load,
    # the manual's EXAMPLES (tui_examples[] in tui/opts.c)
    "man: exmtop -b -o -pid -u root": chk_man_sort_root,
    "man: exmtop -b --format json -n 3 -d 5": chk_man_json_lines,
    "man: exmtop -b --system": chk_system,
    "man: exmtop -b --record rec.exmrec -n 3 -d 1": chk_man_record,
    "man: exmtop --record rec.exmrec -d 60 --keep 7d --keep-size 512M":
        chk_man_keep,
    "man: exmtop --diff rec.exmrec --from 1 --to 2": chk_man_diff,
}


def main():
    # killed (a make check timeout): the finally below still cleans up
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    if os.geteuid() != 0:
        print("SKIP: needs root (page identity, other users' processes)")
        sys.exit(77)
    only = sys.argv[1:]
    docs = doc_examples()
    texts = [e for _, e in docs]
    failed = []
    for doc, e in docs:
        if e not in EXAMPLES:
            failed.append(e)
            print("FAIL: an example of %s has no test:\n%s\n" % (doc, e))
    for e in EXAMPLES:
        if e not in texts:
            failed.append(e)
            print("FAIL: a tested example is in no document:\n%s\n" % e)
    ctx = Ctx()
    ran = 0
    try:
        for doc, e in docs:
            check = EXAMPLES.get(e)
            if not check or (only and not any(o in e for o in only)):
                continue
            t0 = time.monotonic()
            try:
                block = e.startswith(("[", "WITH "))
                check(ctx, e if block else command_of(e))
                print("ok   %5.2fs %s" % (time.monotonic() - t0,
                                         e.split("\n")[0]))
            except (Fail, subprocess.SubprocessError, OSError,
                    ValueError, KeyError, StopIteration) as x:
                failed.append(e)
                print("FAIL %s\n     %s: %s" % (e.split("\n")[0],
                                             type(x).__name__, x))
            ran += 1
    finally:
        ctx.close()
    print("%d examples in the documents (%s), %d run, %d failed" %
          (len(docs), ", ".join(DOCS + ("exmtop --man",)), ran,
           len(failed)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

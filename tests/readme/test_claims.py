#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the README says in prose, where issue 25 found it untrue: each
claim a check, on the fixtures, a recording of this machine made here, or
processes the test starts (the examples themselves: test_examples.py).

Needs root (page identity): exit 77 otherwise. Run from the build
directory (EXMTOP=./exmtop by default).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

EXMTOP = os.path.abspath(os.environ.get("EXMTOP", "./exmtop"))
SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
TMP = tempfile.mkdtemp(prefix="exm_claims.")
failed = []


def run(*args, status=0, **kw):
    r = subprocess.run([EXMTOP] + list(args), capture_output=True,
                       text=True, timeout=120, cwd=TMP, **kw)
    if r.returncode != status:
        raise AssertionError("%s: exit status %d, expected %d: %s" %
                             (" ".join(args), r.returncode, status,
                              r.stderr.strip()[:300]))
    return r


def one_line(r, word):
    lines = r.stderr.strip().split("\n")
    assert len(lines) == 1 and word in lines[0] and not r.stdout, \
        "not one line with %r: %r %r" % (word, r.stderr, r.stdout[:200])


def claim(fn):
    try:
        fn()
        print("ok   %s" % fn.__doc__.strip().split("\n")[0])
    except (AssertionError, subprocess.SubprocessError, OSError,
            ValueError, KeyError) as e:
        failed.append(fn.__name__)
        print("FAIL %s\n     %s" % (fn.__doc__.strip().split("\n")[0], e))


_rec = []


def rec():
    """A recording of this machine (PID 1 included: it may be denied),
    our sleeper and libc users; three snapshots."""
    if not _rec:
        p = subprocess.Popen(["sleep", "600"])
        _rec.append(p)
        path = os.path.join(TMP, "rec.exmrec")
        run("-b", "--record", path, "-n", "3", "-d", "0.2", "-p",
            "1,%d,%d" % (os.getpid(), p.pid))
        _rec.append(path)
    return _rec[1]


def c_om_scanned():
    """exmtop_scan_processes counts what JSON's scanned counts; a group
    of unreadable processes keeps exmtop_group_processes"""
    r = rec()
    js = json.loads(run("-b", "--replay", r, "-n", "1", "--format",
                        "json").stdout)
    om = run("-b", "--replay", r, "-n", "1", "--format",
             "openmetrics").stdout
    n = int(re.search(r"^exmtop_scan_processes (\d+)$", om, re.M).group(1))
    assert n == js["scanned"], "openmetrics %d, JSON %d" % (n, js["scanned"])
    denied = [p for p in js["processes"] if p["state"] == "denied"]
    for p in denied:  # each is its own program's group here
        assert re.search(r'^exmtop_group_processes\{by="program",name="%s"\}'
                         r' 1$' % re.escape(p["comm"]), om, re.M), \
            "the group of denied %s vanished" % p["comm"]
        assert not re.search(r'^exmtop_group_effective_resident_bytes\{by='
                             r'"program",name="%s"\}' % re.escape(p["comm"]),
                             om, re.M), "a size of nobody measured" 
    print("     (%d denied: %s)" % (len(denied),
                                    [p["pid"] for p in denied]))


def c_om_promtool():
    """every OpenMetrics output passes promtool; -n 2 to stdout is refused
    in one line"""
    for extra in (["--source", "fixture:basic"],
                  ["--source", "fixture:hostile"],
                  ["--replay", rec(), "--from", "2", "-n", "1"]):
        om = run("-b", "--format", "openmetrics", *extra).stdout
        p = subprocess.run(["promtool", "check", "metrics"], input=om,
                           capture_output=True, text=True)
        assert p.returncode == 0, "%s: %s" % (extra, p.stdout + p.stderr)
    one_line(run("-b", "--format", "openmetrics", "-n", "2", "-d", "0.1",
                 status=2), "openmetrics")
    one_line(run("-b", "--format", "openmetrics", "--replay", rec(),
                 status=2), "openmetrics")


def c_from_elf_pagemap():
    """--from K is honoured by --sections, --symbols and --pagemap on a
    replay (each snapshot from K on, or -n of them), and --pagemap FILE
    by -n"""
    r = rec()
    for args in (["--sections", LIBC], ["--symbols", LIBC + ":.text"],
                 ["--pagemap", LIBC]):
        out = run("-b", "--replay", r, "--from", "2", *args).stdout
        got = re.findall(r"replay (\d+)/3", out)
        assert got == ["2", "3"], "%s: snapshots %s" % (args, got)
        out = run("-b", "--replay", r, "--from", "2", "-n", "1",
                  *args).stdout
        got = re.findall(r"replay (\d+)/3", out)
        assert got == ["2"], "%s -n 1: snapshots %s" % (args, got)
    out = run("-b", "--pagemap", LIBC, "-n", "2", "-d", "0.1").stdout
    assert len(re.findall(r"processes map it", out)) == 2, "-n 2 live"


def c_from_before_first():
    """a --from time before the first snapshot is refused (exit 2)"""
    for mode in (["--diff", rec()], ["-b", "--replay", rec()]):
        one_line(run(*mode, "--from", "@1", status=2), "before the first")


def c_refused():
    """options that do nothing where given are refused: --top without
    openmetrics, --sysroot without a replay's ELF; kmod without the
    module is a bad --source (exit 2)"""
    one_line(run("-b", "--top", "5", "--source", "fixture:basic",
                 status=2), "--top")
    one_line(run("-b", "--sysroot", "/", "--source", "fixture:basic",
                 status=2), "--sysroot")
    one_line(run("-b", "--replay", rec(), "--sysroot", "/", status=2),
             "--sysroot")
    one_line(run("-b", "--replay", rec(), "--pagemap", LIBC, "--sysroot",
                 "/", status=2), "--sysroot")
    run("-b", "--replay", rec(), "-n", "1", "--units", "--sysroot", "/")
    run("-b", "--replay", rec(), "--sections", LIBC, "--sysroot", "/")
    if not os.path.exists("/dev/exmap"):
        one_line(run("-b", "--source", "kmod", status=2), "exmap")


def c_pid_denied():
    """--pagemap PID:ADDR of a process that could not be read says it was
    denied, not that it maps nothing"""
    js = json.loads(run("-b", "--replay", rec(), "-n", "1", "--format",
                        "json").stdout)
    denied = [p["pid"] for p in js["processes"] if p["state"] == "denied"]
    ok = [p["pid"] for p in js["processes"] if p["state"] == "ok"]
    for pid in denied:
        one_line(run("-b", "--replay", rec(), "--pagemap",
                     "%d:400000" % pid, status=1), "denied")
    r = run("-b", "--replay", rec(), "--pagemap", "%d:1000" % ok[0],
            status=1)
    one_line(r, "maps nothing")
    print("     (%d denied)" % len(denied))


def c_schema1_once():
    """a schema-1 recording recorded into says 'no system view' once"""
    v1 = os.path.join(TMP, "v1.exmrec")
    with open(os.path.join(SRCDIR, "tests/golden/basic-v1.sql")) as f:
        subprocess.run(["sqlite3", v1], stdin=f, check=True)
    run("-b", "--record", v1, "--source", "fixture:basic")
    r = run("-b", "--replay", v1, "--system", status=2)
    n = (r.stdout + r.stderr).count("no system view")
    assert n == 2, "said %d times (stderr once, the first snapshot once)" % n
    assert r.stderr.count("no system view") == 1, "stderr: %r" % r.stderr
    assert "replay 3/3" in r.stdout and "user_space" in r.stdout, \
        "the upgraded snapshot's view is missing"


def c_gap_json():
    """section gap rows: [gap] in text, null in JSON"""
    r = rec()
    js = json.loads(run("-b", "--replay", r, "-n", "1", "--sections", LIBC,
                        "--format", "json").stdout)
    names = [s["section"] for s in js["sections"]]
    assert None in names and "[gap]" not in names, "JSON: %s" % names[:5]
    out = run("-b", "--replay", r, "--sections", LIBC).stdout
    assert re.search(r" \[gap\]$", out, re.M), "no [gap] row in text"


def c_escape():
    """names are shown escaped: ESC as \\e"""
    p = subprocess.Popen(["bash", "-c", 'exec -a "x\033y" sleep 600'])
    try:
        for _ in range(100):
            with open("/proc/%d/cmdline" % p.pid, "rb") as f:
                if f.read().startswith(b"x\033y"):
                    break
            subprocess.run(["sleep", "0.02"])
        out = run("-b", "-p", str(p.pid)).stdout
        assert "x\\ey" in out and "\033" not in out, out[-200:]
    finally:
        p.kill()
        p.wait()


def c_help_man():
    """--help and the manual list the environment, the exit statuses,
    --list-fields' letters and JSON Lines"""
    h = re.sub(r"\s+", " ", run("--help").stdout)
    m = re.sub(r"\s+", " ", run("--man").stdout)
    for word in ("EXMTOP_THREADS", "EXMTOP_DEBUG_DIR", "NO_COLOR",
                 "JSON Lines", "p processes", "y symbols"):
        assert word in h, "--help lacks " + word
        assert word in m.replace("\\-", "-"), "the manual lacks " + word
    for st in ("0", "1", "2"):
        assert " %s " % st in h.split("Exit status:")[1], "--help: " + st
        assert ".B %s " % st in m.split("EXIT STATUS")[1], "manual: " + st
    # every variable the code reads is in the table
    src = ""
    for d in ("core", "tui"):
        for top, _, names in os.walk(os.path.join(SRCDIR, d)):
            for f in names:
                if f.endswith(".c"):
                    src += open(os.path.join(top, f)).read()
    read = set(re.findall(r'getenv\("([A-Z_]+)"\)', src))
    if "setlocale(LC_CTYPE, \"\")" in src:  # the locale's variables
        read |= {"LANG", "LC_ALL", "LC_CTYPE"}
    for var in read:
        assert var in h, "%s is read but not in --help" % var
        assert var in m, "%s is read but not in the manual" % var


def c_caps_documented():
    """every bit of a recorded snapshot's caps is in the README's schema"""
    readme = open(os.path.join(SRCDIR, "README.md")).read()
    m = re.search(r"`caps` \(bits: ([^)]*)\)", readme)
    assert m, "no caps list in the README's schema"
    doc = {int(b) for b in re.findall(r"(?:^|, )(\d+) ", m.group(1))}
    path = os.path.join(TMP, "caps.exmrec")
    run("-b", "--record", path, "-n", "1")
    run("-b", "--record", path, "-n", "1", "--scan-pids", str(os.getpid()))
    out = subprocess.run(["sqlite3", path, "SELECT caps FROM snapshot"],
                         capture_output=True, text=True, check=True).stdout
    seen = 0
    for caps in map(int, out.split()):
        seen |= caps
        for bit in range(32):
            assert not caps & (1 << bit) or (1 << bit) in doc, \
                "caps bit %d (of %d) is not in the README" % (1 << bit, caps)
    assert seen & 256, "--scan-pids recorded no bit 256: %s" % out.split()
    # and every bit the code defines, but the replay's own (never stored)
    hdr = open(os.path.join(SRCDIR, "core/snapshot.h")).read()
    for name, bit in re.findall(r"#define (EXM_CAP_\w+)\s+\(1u << (\d+)\)",
                                hdr):
        assert name == "EXM_CAP_REPLAY" or (1 << int(bit)) in doc, \
            "%s (%d) is not in the README" % (name, 1 << int(bit))


def fmt_regex(fmt):
    """A printf format as a regular expression of what it prints."""
    out, i = "", 0
    for m in re.finditer(r"%(%|[-.\d]*[sdf])", fmt):
        out += re.escape(fmt[i:m.start()])
        out += "%" if m.group(1) == "%" else \
            ".+?" if m.group(1).endswith("s") else r"[\d.]+"
        i = m.end()
    return out + re.escape(fmt[i:])


def c_how_fast():
    """How fast's figures are what `make bench` (bench/readme.sh) printed,
    in its words, with the date; each names its script"""
    import ast
    readme = open(os.path.join(SRCDIR, "README.md")).read()
    sec = readme.split("\n## How fast\n")[1].split("\n## ")[0]
    quote = [ln[1:].strip() for ln in sec.split("\n") if ln.startswith(">")]
    assert quote, "How fast quotes no run of make bench"
    paras, cur = [], []
    for ln in quote + [""]:
        if (not ln or ln.startswith("- ")) and cur:
            paras.append(" ".join(cur))
            cur = []
        if ln:
            cur.append(ln)
    sh = open(os.path.join(SRCDIR, "bench/readme.sh")).read()
    code = sh.split("<<'EOF'\n")[1].split("\nEOF\n")[0]
    fmts = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) \
                and isinstance(node.left, ast.Constant) \
                and isinstance(node.left.value, str) \
                and len(node.left.value) > 40:
            fmts.append(node.left.value)
    printed = [f for f in fmts if f.startswith(("Measured", "- "))]
    assert len(printed) == 4, "bench/readme.sh: %d paragraphs" % len(printed)
    assert len(paras) == len(printed), \
        "README quotes %d paragraphs, bench/readme.sh prints %d" % (
            len(paras), len(printed))
    for f, p in zip(printed, paras):
        assert re.fullmatch(fmt_regex(f), p), "not in bench/readme.sh's words: " + p
    for f in fmts:  # one tool's figures, three times in the first bullet
        if f.startswith("`%s`"):
            n = len(re.findall(fmt_regex(f), paras[1]))
            assert n == 3, "%d tools in bench/readme.sh's words" % n
    assert re.match(r"Measured 20\d\d-\d\d-\d\d \d\d:\d\d UTC with "
                    r"`make bench`", paras[0]), paras[0]
    runs = re.findall(r'"(\w+\.sh) -', sh.split("for s in ")[1].split("\n")[0])
    assert runs == ["snapshot.sh", "cpu_live.sh", "record.sh"], runs
    for script, p in zip(runs, paras[1:]):
        assert "bench/" + script in p, "a paragraph without bench/" + script
    for ln in sec.split("\n"):  # the older figures are a changelog's
        assert not re.match(r"\| *6\.1", ln), "a run table in How fast"


def c_links():
    """the documents' links lead to files of the repository"""
    n = 0
    for doc in ("README.md", "kernel/README.md", "docs/DESIGN.md",
                "docs/CHANGELOG.md"):
        text = open(os.path.join(SRCDIR, doc)).read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path = os.path.realpath(os.path.join(
                SRCDIR, os.path.dirname(doc), target.split("#")[0]))
            assert path.startswith(SRCDIR + os.sep) and \
                os.path.exists(path), "%s links %s" % (doc, target)
            n += 1
    assert n >= 3, "only %d links" % n


CLAIMS = (c_om_scanned, c_om_promtool, c_from_elf_pagemap,
          c_from_before_first, c_refused, c_pid_denied, c_schema1_once,
          c_gap_json, c_escape, c_help_man, c_caps_documented,
          c_how_fast, c_links)


def main():
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    if os.geteuid() != 0:
        print("SKIP: needs root")
        sys.exit(77)
    try:
        for c in CLAIMS:
            claim(c)
    finally:
        if _rec:
            _rec[0].kill()
            _rec[0].wait()
        shutil.rmtree(TMP, ignore_errors=True)
    print("%d claims, %d failed" % (len(CLAIMS), len(failed)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

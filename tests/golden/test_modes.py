#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every batch mode with every option it takes, and every option it does
not take, driven by the table of modes (tui/batch/drive.c) as --list-modes
prints it: a new mode or option is covered when it is added (an option
without a sample value below fails until it has one).

Accepted options take effect: --output holds what stdout would have held,
openmetrics passes `promtool check metrics`, a replay gives every snapshot
(or -n of them, from --from), --record makes a recording of every snapshot
printed (--verbose says each), --scan-pids limits the scan (each snapshot
says so), -n N prints N snapshots. Refused options and formats exit 2 with
one line on stderr and no output. The live screen's refusals are checked
too (they come before the screen starts).

Runs on the fixture source (any user). Usage: from the build directory, or
EXMTOP=path/to/exmtop.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

EXMTOP = os.path.abspath(os.environ.get("EXMTOP", "./exmtop"))
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"

PASS = 0
FAIL = 0


def check(cond, what):
    global PASS, FAIL
    if cond:
        PASS += 1
    else:
        FAIL += 1
        print("not ok - " + what)


def run(args, timeout=60):
    return subprocess.run([EXMTOP] + args, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, universal_newlines=True)


def modes():
    r = run(["--list-modes"])
    check(r.returncode == 0 and not r.stderr, "--list-modes exits 0")
    out = {}
    for line in r.stdout.splitlines():
        name, fmts, opts = line.split("\t")
        out[name] = ([f for f in fmts.split(",") if f], opts.split())
    return out


def all_options():
    """every long option --help lists"""
    r = run(["--help"])
    opts = set()
    for line in r.stdout.splitlines():
        w = line.split()
        for i, t in enumerate(w[:3]):
            if t.startswith("--") and len(t) > 2:
                opts.add(t[2:].rstrip(","))
                break
    return opts


# Options that only ask for something else (help, manual...) or that
# select a mode are not run as a mode's extra option here.
ACTIONS = {"help", "version", "man", "list-fields", "list-modes",
           "completion"}


def main():
    if not os.access(EXMTOP, os.X_OK):
        print("no exmtop binary at %s" % EXMTOP)
        return 1
    tmp = tempfile.mkdtemp(prefix="exm_modes_")
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp)


def body(tmp):
    rec = os.path.join(tmp, "three.exmrec")
    r = run(["--record", rec, "--source", "fixture:basic", "-n", "3",
             "-d", "0.1"])
    check(r.returncode == 0, "a recording of three snapshots: %s" %
          r.stderr)
    rec2 = os.path.join(tmp, "other.exmrec")
    run(["--record", rec2, "--source", "fixture:hostile", "-n", "1"])

    # What selects each mode, on the fixture's recording (a replay gives
    # the same snapshots every run; the mode's own option first).
    base = {
        "listing": ["-b", "--replay", rec],
        "report": ["-b", "--replay", rec, "--units"],
        "sections": ["-b", "--replay", rec, "--sections", LIBC],
        "symbols": ["-b", "--replay", rec, "--symbols", LIBC + ":.text"],
        "pagemap": ["-b", "--replay", rec, "--pagemap", LIBC],
        "diff": ["--diff", rec],
        "live": [],
    }
    # the options that select a mode (never an extra option of another)
    selects = {"diff", "sections", "symbols", "pagemap"}
    reports = {"alerts", "system", "units", "breakdown", "freed"}
    # A value for each option taking one (and what it needs beside it).
    sample = {
        "batch": [], "iterations": ["2"], "delay": ["0.1"],
        "full-walk": ["5"],
        "sort": ["-erss"], "pid": ["300"], "scan-pids": ["300"],
        "user": ["root"],
        "full-command": [], "files": [], "format": ["json"],
        "bytes": [], "fields": None,  # per mode, below
        "sections": [LIBC], "symbols": [LIBC + ":.text"],
        "pagemap": [LIBC], "record": None, "watch": [], "verbose": [],
        "replay": [rec], "sysroot": ["/"], "diff": [rec],
        "from": ["2"], "to": ["2"], "alerts": [], "system": [],
        "units": [], "breakdown": [], "freed": ["300"], "top": ["3"], "output": None,
        "source": ["fixture:basic"], "pagemap-mode": ["read"],
        "include-self": [], "no-color": [],
        "keep": ["2"], "keep-size": ["1M"], "group": ["program"],
    }
    fields = {"sections": "section,erss", "symbols": "symbol,erss",
              "listing": "pid,erss", "diff": "pid,erss", "live": "pid",
              "pagemap": "pid", "report": "pid"}
    # beside an option, what it needs to mean something
    beside = {"top": ["--format", "openmetrics", "-n", "1"],
              "watch": ["--record", os.path.join(tmp, "w.exmrec")],
              "output": ["-n", "1"]}

    table = modes()
    everything = all_options() - ACTIONS
    check(set(table) >= set(base),
          "every mode has a base command here: %s" % sorted(table))
    check(set(table) <= set(base),
          "a new mode needs its base command in this test: %s" %
          sorted(set(table) - set(base)))
    known = set(sample)
    check(everything <= known,
          "options without a sample value in this test: %s" %
          sorted(everything - known))
    nrun = 0

    def extra(mode, opt):
        if opt in ("verbose", "keep", "keep-size"):  # a new recording
            return ["--record", os.path.join(tmp, "%s-%s" % (mode, opt))]
        return beside.get(opt, [])

    def value(mode, opt, k):
        if opt == "fields":
            return [fields[mode]]
        if opt in ("record", "output"):
            return [os.path.join(tmp, "%s-%s-%d" % (mode, opt, k))]
        return sample[opt]

    for mode, (fmts, accepts) in sorted(table.items()):
        if mode not in base:
            continue
        b = base[mode]
        own = [o for o in accepts if o not in ACTIONS]
        # --- refused: every option the mode does not take
        for k, opt in enumerate(sorted(everything - set(own))):
            if opt in selects or opt == "batch" and mode == "live":
                continue  # selects another mode (or batch output)
            if opt in reports and mode == "listing" or \
                    opt == "freed" and mode == "live":
                continue  # the report mode (--freed: a batch report)
            if mode == "live" and opt in ("replay", "source"):
                continue
            args = b + ["--" + opt] + value(mode, opt, k) + \
                extra(mode, opt)
            if mode == "live" and opt == "verbose":
                args += ["--watch"]  # else a recording without a screen
            r = run(args)
            lines = r.stderr.strip().split("\n")
            check(r.returncode == 2 and len(lines) == 1 and
                  r.stderr.strip() and not r.stdout,
                  "%s refuses --%s with one line and exit status 2: "
                  "%d %r" % (mode, opt, r.returncode, r.stderr))
            nrun += 1
        # --- refused formats
        for f in ("text", "csv", "json", "openmetrics"):
            if f in fmts or mode == "live":
                continue
            r = run(b + ["--format", f])
            check(r.returncode == 2 and
                  len(r.stderr.strip().split("\n")) == 1 and not r.stdout,
                  "%s refuses --format %s: %d %r" % (mode, f, r.returncode,
                                                     r.stderr))
            nrun += 1
        if mode == "live":
            continue
        # --- accepted: each option alone on the base command
        plain = run(b)
        check(plain.returncode == 0, "%s runs: %r" % (mode, plain.stderr))
        nsnap = snapshots(plain.stdout, "text")
        for k, opt in enumerate(own):
            if opt in ("batch", "diff", "replay") or opt == mode:
                continue  # in the base command already
            if mode == "report" and opt in reports:
                b2 = [a for a in b if a != "--units"]
            else:
                b2 = b
            args = b2 + ["--" + opt] + value(mode, opt, k) + \
                extra(mode, opt)
            if opt == "source":  # a live source, not the replay
                args = [a for a in b2 if a not in ("--replay", rec)] + \
                    ["--source", "fixture:basic"]
            if opt == "to":
                args += ["--from", "1"]
            if opt == "output" and mode == "diff":
                args = args[:-2]  # one document: no -n
            r = run(args)
            nrun += 1
            ok = r.returncode == 0 and not r.stderr
            if opt == "verbose":  # says each snapshot recorded on stderr
                ok = r.returncode == 0
            if opt == "pid" and mode == "diff":
                ok = r.returncode == 0
            check(ok, "%s takes --%s: %d %r" % (mode, opt, r.returncode,
                                                r.stderr))
            effect(mode, opt, args, r, nsnap, tmp, k, fmts)
        # --- every format it prints, to stdout and through --output
        for f in fmts:
            args = b + ["--format", f]
            if f == "openmetrics":
                args += ["-n", "1"]
            r = run(args)
            nrun += 1
            check(r.returncode == 0 and r.stdout,
                  "%s --format %s: %d %r" % (mode, f, r.returncode,
                                             r.stderr))
            if f == "json":
                for line in r.stdout.splitlines():
                    json.loads(line)
            if f == "openmetrics":
                promtool(r.stdout, "%s openmetrics" % mode)
            out = os.path.join(tmp, "%s.%s" % (mode, f))
            if mode != "diff" and f != "openmetrics":
                # a file holds the last document (each replaces it)
                args += ["-n", "1"]
                r = run(args)
            r2 = run(args + ["--output", out])
            nrun += 1
            check(r2.returncode == 0 and not r2.stdout and
                  os.path.exists(out),
                  "%s --format %s --output: %d %r" % (mode, f,
                                                      r2.returncode,
                                                      r2.stderr))
            if os.path.exists(out) and f != "openmetrics":
                with open(out) as fh:
                    check(fh.read() == r.stdout,
                          "%s --format %s: --output holds what stdout "
                          "does" % (mode, f))
    print("# %d runs of %d modes" % (nrun, len(table)))
    print("# %d passed, %d failed" % (PASS, FAIL))
    return 1 if FAIL else 0


def snapshots(out, fmt):
    """how many snapshots an output holds"""
    if fmt == "json":
        return len([x for x in out.splitlines() if x.strip()])
    return out.count("fixture: ")


def promtool(text, what):
    p = subprocess.run(["promtool", "check", "metrics"], input=text,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    check(p.returncode == 0, "%s passes promtool: %s" % (what, p.stdout))


def effect(mode, opt, args, r, nsnap, tmp, k, fmts):
    """what an accepted option must have done"""
    if opt == "output":
        path = args[args.index("--output") + 1]
        check(not r.stdout and os.path.exists(path),
              "%s --output: the file is made, stdout empty" % mode)
        if os.path.exists(path):
            plain = run([a for i, a in enumerate(args)
                         if a != "--output" and
                         (i == 0 or args[i - 1] != "--output")])
            with open(path) as fh:
                check(fh.read() == plain.stdout,
                      "%s --output holds the output" % mode)
    elif opt == "record":
        path = args[args.index("--record") + 1]
        check(os.path.exists(path), "%s --record makes %s" % (mode, path))
        rr = run(["-b", "--replay", path])
        check(rr.returncode == 0 and snapshots(rr.stdout, "text") == nsnap,
              "%s --record: the recording holds the %d snapshots taken: "
              "%d %r" % (mode, nsnap, snapshots(rr.stdout, "text"),
                         rr.stderr))
        check(not r.stdout, "%s --record prints nothing without --format"
              % mode)
    elif opt == "verbose":
        said = r.stderr.splitlines()
        check(len(said) == nsnap and
              all(x == "exmtop: --record: snapshot %d written" % (i + 1)
                  for i, x in enumerate(said)),
              "%s --verbose says each of the %d snapshots recorded: %r"
              % (mode, nsnap, r.stderr))
    elif opt in ("keep", "keep-size"):
        path = args[args.index("--record") + 1]
        rr = run(["-b", "--replay", path])
        want = min(nsnap, 2) if opt == "keep" else nsnap
        check(rr.returncode == 0 and snapshots(rr.stdout, "text") == want,
              "%s --%s: the recording holds the last %d of the %d "
              "snapshots taken: %d %r" % (mode, opt, want, nsnap,
                                         snapshots(rr.stdout, "text"),
                                         rr.stderr))
    elif opt == "scan-pids":
        check(r.stdout.count("limited scan") == nsnap,
              "%s --scan-pids: each snapshot says its scan was limited"
              % mode)
    elif opt == "iterations" and mode != "diff":
        check(snapshots(r.stdout, "text") == 2,
              "%s -n 2 prints two snapshots" % mode)
    elif opt == "from" and mode != "diff":
        check(snapshots(r.stdout, "text") == 2 and "replay 2/3" in r.stdout
              and "replay 1/3" not in r.stdout,
              "%s --from 2 of a replay of three prints 2 and 3" % mode)
    elif opt == "format":
        check(r.stdout.startswith("{"), "%s --format json is JSON" % mode)
    elif opt == "top":
        promtool(r.stdout, "%s --top 3" % mode)
    if mode != "diff" and opt not in ("iterations", "from", "record",
                                      "verbose", "keep", "keep-size",
                                      "output", "format", "source", "top",
                                      "pagemap-mode"):
        # a replay gives every snapshot, whatever else is asked
        check(snapshots(r.stdout, "text") == nsnap == 3,
              "%s --%s: every snapshot of the replay (%d of %d)" %
              (mode, opt, snapshots(r.stdout, "text"), nsnap))


if __name__ == "__main__":
    sys.exit(main())

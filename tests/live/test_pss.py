#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): effective resident (erss, from pagemap PFNs, every
process scanned) against the kernel's Pss, allowing exactly what the
documentation says differs and nothing else.

The sharer's four processes (known sharing) are stopped with SIGSTOP for
the comparison, so their pages hold still; their memory that no process
outside them maps (anonymous, heap, stack, the memfd, the shared
/dev/zero, the temporary file) then has one exact Pss. For each of those
rows of each sharer process, in one exmtop scan per pagemap path:

    0 <= erss - sum of the rows' smaps Pss <= 1024 bytes per mapping

smaps prints each mapping's Pss in whole kB, truncated, of a sum of
per-page shares in fixed point (PSS_SHIFT 12) that are truncated too, by
less than 1/4096 byte a page: a page shared by 3 gives 1365.33 bytes, so
9 such pages are 12288 bytes exactly but the kernel's sum falls a hair
short and prints 11 kB. Those truncations are the one cause of difference:
below 1024 bytes a mapping, plus at most 1/4096 byte a page (1 byte for
up to 4096 pages: allowed as 1 byte a mapping, the sharer's mappings are
smaller). Resident must equal
the sum of the mappings' Rss exactly. exmtop prints effective sizes to the
thousandth of a byte: 0.001 per mapping is allowed for that.

The libraries and the program (mapped by processes outside the test, which
start and exit at any moment) are not compared here: their count of
sharers changes between any two readings. Pages of processes exmtop did not
scan never occur: every process is scanned (--include-self).

No retries: a difference is a bug, or a cause to document here.
"""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

ROWS_ANON = ("[anon]", "[heap]", "[stack]")


def smaps(pid):
    """[(name, pss bytes, rss bytes)] per mapping of /proc/PID/smaps."""
    out = []
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if "-" in w[0] and len(w) >= 5 and not w[0].endswith(":"):
                name = line.rstrip("\n").split(None, 5)
                out.append([name[5] if len(name) > 5 else "", 0, 0])
            elif w[0] == "Pss:":
                out[-1][1] = int(w[1]) * 1024
            elif w[0] == "Rss:":
                out[-1][2] = int(w[1]) * 1024
    return out


def row_of(name, file_path):
    """The exmtop row (file) a mapping of this smaps name is counted in,
    for the rows compared; None for the others."""
    if name == "":
        return "[anon]"
    if name in ("[heap]", "[stack]", "/dev/zero (deleted)",
                "/memfd:exm_sharer (deleted)", file_path):
        return name
    return None


def compare(c, mode, sh):
    doc = exmlive.exmtop_json(["--bytes", "--include-self",
                               "--pagemap-mode", mode])
    c.eq(doc.get("source"), "pagemap", "[%s] source" % mode)
    procs = {p.get("pid"): p for p in doc.get("processes") or []}
    worst = 0.0
    for i, pid in enumerate(sh.pids):
        p = procs.get(pid)
        what = "[%s] sharer %d (pid %d)" % (mode, i, pid)
        if not c.check(p is not None, what + " listed"):
            continue
        rows = {f.get("file"): f for f in p.get("files") or []}
        want = {}
        for name, pss, rss in smaps(pid):
            r = row_of(name, sh.file_path)
            if r:
                n, ps_, rs = want.get(r, (0, 0, 0))
                want[r] = (n + 1, ps_ + pss, rs + rss)
        c.check(set(want) >= {"[anon]", "[stack]", sh.file_path,
                              "/memfd:exm_sharer (deleted)"},
                "%s rows compared: %s" % (what, sorted(want)))
        for r, (n, pss, rss) in sorted(want.items()):
            # smaps writes a newline of a name as \012; exmtop's JSON has
            # the name itself
            f = rows.get(r.replace("\\012", "\n"))
            if not c.check(f is not None, "%s row %s listed" % (what, r)):
                continue
            c.eq(f.get("rss"), rss, "%s %s rss == smaps Rss" % (what, r))
            erss = f.get("erss")
            d = (erss if erss is not None else float("nan")) - pss
            worst = max(worst, d)
            c.check(-0.001 * n <= d <= 1025 * n,
                    "%s %s: erss %r - smaps Pss %d = %.3f, not in [0, %d] "
                    "(%d mappings, kB truncation)" %
                    (what, r, erss, pss, d, 1025 * n, n))
    print("[%s] largest erss - Pss of a row: %.3f bytes" % (mode, worst),
          flush=True)


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (PFNs in pagemap)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live pss")
    tmp = tempfile.mkdtemp(prefix="exm-pss-", dir="/var/tmp")
    try:
        with exmlive.Sharer(tmp) as sh, exmlive.frozen(sh.pids):
            for mode in exmlive.pagemap_modes():
                compare(c, mode, sh)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

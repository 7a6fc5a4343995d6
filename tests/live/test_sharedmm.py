#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Live test (root): two processes on one mm (clone(CLONE_VM) without
CLONE_THREAD, a vfork child before exec).

tests/live/sharedmm.c makes two such pairs, each writing a 288 MiB private
anonymous mapping: every page is mapped once (mapcount 1, smaps'
Private_Dirty) yet in both processes of its pair. Read mode counted such
a big mapping, all of it mapped once, as its process's alone without
reading its frames, so each process of a pair had the whole 288 MiB as
effective resident and sole, and --freed of one said killing it gives back
what it does not (its partner keeps every page). Now, in every pagemap mode
and read-all (which reads every frame), with the others stopped (the vfork parent waits):
- each process's sole is 0 and the two of a pair have one effective
  resident, at most half their resident (every page is in both);
- --freed of one process of a pair frees 0, of the pair at least the
  mapping;
- read mode's figures of the four equal read-all's.
No retries: a difference is a bug.
"""

import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

MIB = 288  # over read mode's 256 MiB of big mappings (DIRECT_PAGES)


def rows(c, mode, pids):
    doc = exmlive.exmtop_json(["--bytes", "--pagemap-mode", mode,
                               "--scan-pids", ",".join(map(str, pids))])
    return {p["pid"]: p for p in doc["processes"] if p["pid"] in pids}


def freed(mode, pids, members):
    doc = exmlive.exmtop_json(["--bytes", "--pagemap-mode", mode,
                               "--scan-pids", ",".join(map(str, pids)),
                               "--freed", ",".join(map(str, members))])
    return doc["freed"][0]["freed"]


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (pagemap source)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("live shared mm")
    prog = exmlive.plain_program("sharedmm")
    p = subprocess.Popen([prog, str(MIB)], stdout=subprocess.PIPE)
    pairs = []
    try:
        for _ in range(2):
            what, a, b = p.stdout.readline().decode().split()
            pairs.append((what, int(a), int(b)))
        pids = [x for _, a, b in pairs for x in (a, b)]
        size = MIB << 20
        got = {}
        # a vfork parent waits in vfork (not stoppable, nothing moves)
        with exmlive.frozen([x for w, a, b in pairs
                             for x in ((b,) if w == "vfork" else (a, b))]):
            for mode in exmlive.pagemap_modes() + ["read-all"]:
                r = got[mode] = rows(c, mode, pids)
                for what, a, b in pairs:
                    tag = "[%s] %s pair" % (mode, what)
                    if not c.check(a in r and b in r, "%s listed" % tag):
                        continue
                    c.eq((r[a]["sole"], r[b]["sole"]), (0, 0),
                         "%s: sole (every page is in both)" % tag)
                    c.check(abs(r[a]["erss"] - r[b]["erss"]) <=
                            exmlive.EFF_TOL and
                            r[a]["erss"] * 2 <= r[a]["rss"] +
                            exmlive.EFF_TOL,
                            "%s: effective resident %r and %r, each at most "
                            "half of resident %r" %
                            (tag, r[a]["erss"], r[b]["erss"], r[a]["rss"]))
                    c.eq(freed(mode, pids, [a]), 0,
                         "%s: --freed of one" % tag)
                    f = freed(mode, pids, [a, b])
                    c.check(f >= size, "%s: --freed of the pair %d, the "
                            "mapping %d" % (tag, f, size))
            for pid in pids:
                want = {k: got["read-all"][pid][k] for k in exmlive.SIZE_KEYS}
                have = {k: got["read"][pid][k] for k in exmlive.SIZE_KEYS}
                c.check(all(abs(want[k] - have[k]) <= exmlive.EFF_TOL
                            for k in want),
                        "pid %d: read %r, read-all %r" % (pid, have, want))
    finally:
        for _, a, b in pairs:
            for pid in (b, a):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        p.kill()
        p.wait()
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

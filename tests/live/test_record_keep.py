#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Retention of a recording: --keep N, --keep DURATION, --keep-size SIZE,
as issue 22's test states it (root, as the recorders read every process's
pages; SKIP otherwise).

The benchmark workload (bench/workload.c) runs with the shape of
bench/workload.sh's default, 100 processes with 64 GiB reservations, but
8 MiB of fork-shared anonymous memory and 32 MiB of shared memory rather
than 32 and 128: with the default's, a snapshot of its processes was 0.7
to 1.1 MiB as the host's memory grew fragmented (more page runs), so 2M
held one or two. Recorders at -d 0.2 scan its processes only
(--scan-pids; a snapshot of the whole machine is about 1.4 MiB).
Two recorders run at the same time for PHASE s (60, the issue's), while
a loop replays the newest snapshot of each file over and over (JSON, kept
by the snapshot's time and time taken):
- --keep-size 2M: no database committed (read in one read transaction,
  polled every 10 ms) holding more than one snapshot exceeded the bound
  (the recorder prunes after writing, against the pages in use, and gives
  the free ones back), nor did the file (unless one snapshot alone did:
  it is then kept alone, and the file is within it), the file and its -wal
  together
  stayed within 5 times the bound, or the largest database (each
  snapshot's transaction touches at most the database before it and the
  snapshot it adds; the -wal holds the last one or two),
  snapshots were dropped, the oldest first;
- --keep 10s: it holds exactly the snapshots (of those the test saw in
  the file) taken less than 10 s before the newest one, and the newest;
  the -wal never grew larger than four times the file (two transactions,
  each at most the database before it and its snapshot);
and for each: every replay during the pruning succeeded, every snapshot
left replays as it did when it was the newest, PRAGMA integrity_check is
ok, and no page set, run or file row is left that nothing names, nor a
mapping naming a row that is gone. Beside them, a recorder with
--keep-size 2M is killed with SIGKILL 20 times at random moments and
started again each time (its first snapshot written whole, its caches
empty): after each kill the file is not corrupt, the database within its
bound (or the newest snapshot alone), its ids have no gap, and it holds
the last snapshot the killed recorder said it wrote and at most one more
(so at most the snapshot being written was lost). Bad values exit 2 with
one line.
"""
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exmlive  # noqa: E402

PHASE = float(os.environ.get("EXM_KEEP_SECS", "60"))
NEED = 12
KILLS = 20
BOUND = 2 << 20
RECORDERS = []  # every recorder started: killed if the test is stopped
WRITTEN = re.compile(r"^exmtop: --record: snapshot (\d+) written$")


def key_of(doc):
    """A snapshot as the replays name it: its time and time taken."""
    return (doc["time"], doc["time_taken"])


def replay_newest(path, stop, seen, fails):
    """Replay the newest snapshot of path until stop: each document by its
    key in seen (without the replay's own detail), a failure in fails."""
    while not stop.is_set():
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True,
                                 timeout=10)
            n = db.execute("SELECT count(*) FROM snapshot").fetchone()[0]
            db.close()
        except sqlite3.Error:
            n = 0
        if n < 1:
            time.sleep(0.02)
            continue
        # the newest: the last taken before a time to come
        p = subprocess.run([exmlive.EXMTOP, "-b", "--replay", path,
                            "--from", "@4000000000", "-n", "1", "--format",
                            "json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        if p.returncode or p.stderr:
            fails.append((p.returncode, p.stderr.strip()))
            continue
        doc = json.loads(p.stdout)
        doc.pop("source_detail", None)
        seen[key_of(doc)] = doc


def poll_sizes(path, stop, out):
    """The largest size of the database file, of its -wal, and of the two
    together; and in one read transaction, the largest database committed,
    and the largest holding more than one snapshot."""
    while not stop.is_set():
        now = [0, 0]
        for i, sfx in enumerate(("", "-wal")):
            try:
                now[i] = os.stat(path + sfx).st_size
            except OSError:
                pass
            out[i] = max(out[i], now[i])
        out[4] = max(out[4], sum(now))
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True,
                                 timeout=10, isolation_level=None)
            db.execute("BEGIN")
            rows = db.execute("SELECT id, taken_sec, taken_nsec FROM "
                              "snapshot").fetchall()
            size = db.execute("SELECT page_count * page_size FROM "
                              "pragma_page_count, "
                              "pragma_page_size").fetchone()[0]
            db.execute("COMMIT")
            db.close()
            out[5] = max(out[5], size)
            if len(rows) > 1:
                out[6] = max(out[6], size)
            for sid, sec, nsec in rows:
                out[2][sid] = sec + nsec / 1e9
            if rows and min(r[0] for r in rows) > 1:
                out[3].set()  # some were dropped
        except sqlite3.Error:
            pass
        stop.wait(0.01)


def one_snapshot(tmp, scan, tag="one"):
    """The size of a recording of one snapshot of the workload now."""
    one = os.path.join(tmp, tag + ".exmrec")
    for sfx in ("", "-wal", "-shm"):
        if os.path.exists(one + sfx):
            os.unlink(one + sfx)
    subprocess.run([exmlive.EXMTOP, "--record", one, "-n", "1"] + scan,
                   check=True, timeout=120)
    return os.stat(one).st_size


def record(c, tmp, name, keep, scan):
    """Record the workload (scan: --scan-pids PIDS) with the retention keep
    (a list of options) for PHASE s, and
    until the recorder said NEED snapshots (on a busy machine) and some
    were dropped: (ids said, {id: taken} seen in the file, [max size, max
    -wal size, the ids' times, dropped, max size and -wal, max database
    committed, max committed holding more than one snapshot])."""
    path = os.path.join(tmp, name + ".exmrec")
    stop = threading.Event()
    seen, fails = {}, []
    sizes = [0, 0, {}, threading.Event(), 0, 0, 0]
    threads = [threading.Thread(target=poll_sizes, args=(path, stop, sizes),
                                daemon=True)]
    threads += [threading.Thread(target=replay_newest,
                                 args=(path, stop, seen, fails),
                                 daemon=True)]
    for t in threads:
        t.start()
    rec = subprocess.Popen([exmlive.EXMTOP, "--record", path, "-d", "0.2",
                            "--verbose"] + keep + scan,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    RECORDERS.append(rec)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(rec.stderr),
                              daemon=True)
    reader.start()
    try:
        end = time.time() + PHASE
        while (time.time() < end or len(lines) < NEED or
               not sizes[3].is_set()) and \
                time.time() < end + 120 and rec.poll() is None:
            time.sleep(0.05)
    finally:
        rec.send_signal(signal.SIGTERM)
        rec.wait(timeout=120)
        reader.join(timeout=60)
        stop.set()
        for t in threads:
            t.join(timeout=120)
    ids = []
    for line in (ln.rstrip("\n") for ln in lines):
        m = WRITTEN.match(line)
        c.check(m, "%s: the recorder said only its snapshots: %r" %
                (name, line))
        if m:
            ids.append(int(m.group(1)))
    c.eq(rec.returncode, 0, "%s: the recorder's exit status" % name)
    c.eq(ids, list(range(1, len(ids) + 1)), "%s: ids 1 to N, in order" %
         name)
    c.eq(fails, [], "%s: every replay beside the recorder succeeded" % name)
    c.check(len(seen) >= 3, "%s: replays ran: %d snapshots replayed" %
            (name, len(seen)))

    db = sqlite3.connect(path)
    c.eq(db.execute("PRAGMA integrity_check").fetchone()[0], "ok",
         "%s: integrity_check" % name)
    left = [r[0] for r in db.execute("SELECT id FROM snapshot ORDER BY id")]
    for what, sql in (
            ("page sets no mapping names",
             "SELECT count(*) FROM pageset p WHERE NOT EXISTS "
             "(SELECT 1 FROM mapping m WHERE m.pageset = p.id)"),
            ("files no mapping names",
             "SELECT count(*) FROM file f WHERE NOT EXISTS "
             "(SELECT 1 FROM mapping m WHERE m.file = f.id)"),
            ("runs of no page set",
             "SELECT count(*) FROM run r WHERE NOT EXISTS "
             "(SELECT 1 FROM pageset p WHERE p.id = r.pageset)"),
            ("mappings naming a page set or file that is gone",
             "SELECT count(*) FROM mapping m WHERE (m.pageset IS NOT NULL "
             "AND NOT EXISTS (SELECT 1 FROM pageset p WHERE "
             "p.id = m.pageset)) OR (m.file IS NOT NULL AND NOT EXISTS "
             "(SELECT 1 FROM file f WHERE f.id = m.file))"),
            ("rows of dropped snapshots",
             "SELECT (SELECT count(*) FROM process WHERE snapshot < "
             "(SELECT min(id) FROM snapshot)) + (SELECT count(*) FROM "
             "mapping WHERE snapshot < (SELECT min(id) FROM snapshot)) + "
             "(SELECT count(*) FROM meminfo WHERE snapshot < "
             "(SELECT min(id) FROM snapshot))")):
        c.eq(db.execute(sql).fetchone()[0], 0, "%s: %s" % (name, what))
    npsets = db.execute("SELECT count(*) FROM pageset").fetchone()[0]
    db.close()
    c.check(npsets > 0, "%s: the snapshots have page sets (%d)" %
            (name, npsets))
    c.check(left and left[-1] == ids[-1], "%s: the last snapshot said is "
            "the newest in the file" % name)

    # every snapshot left replays (alone: the changes from the one
    # before are not in the comparison) as it did when it was the newest
    docs = []
    for k in range(1, len(left) + 1):
        p = subprocess.run([exmlive.EXMTOP, "-b", "--replay", path,
                            "--from", str(k), "-n", "1", "--format",
                            "json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=600)
        c.eq((p.returncode, p.stderr.strip()), (0, ""),
             "%s: snapshot %d of those left replays" % (name, k))
        docs += [json.loads(ln) for ln in p.stdout.splitlines()
                 if ln.strip()]
    c.eq(len(docs), len(left), "%s: as many replayed as are left" % name)
    same = 0
    for d in docs:
        d.pop("source_detail", None)
        if key_of(d) in seen:
            c.check(d == seen[key_of(d)], "%s: snapshot of %s replays as "
                    "it did when it was the newest" % (name, key_of(d)))
            same += 1
    c.check(same >= 1, "%s: %d snapshots left were replayed when newest" %
            (name, same))
    print("%s: %d written, %d left, %d replays compared, largest file %d, "
          "largest -wal %d, largest both %d, largest committed %d (of more "
          "than one snapshot %d)" % (name, len(ids), len(left), same,
                                     sizes[0], sizes[1], sizes[4], sizes[5],
                                     sizes[6]), flush=True)
    return ids, left, sizes


def killed(c, tmp, scan):
    """A recorder with --keep-size 2M killed with SIGKILL KILLS times at
    random moments once it wrote a snapshot (writing, pruning or waiting)
    and started again each time: after each kill the file is not corrupt,
    the database within the bound (or the newest snapshot alone), its ids
    have no gap, and it holds the last snapshot the killed recorder said
    and at most one more (one committed before its line): at most the
    snapshot being written was lost."""
    path = os.path.join(tmp, "killed.exmrec")
    said, kills, dropped, largest = [], 0, False, 0
    rng = random.Random()
    for k in range(KILLS + 1):
        rec = subprocess.Popen([exmlive.EXMTOP, "--record", path, "-d",
                                "0.2", "--keep-size", "2M", "--verbose"] +
                               scan, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        RECORDERS.append(rec)
        try:
            # each one writes (a busy machine may take a while to start
            # it), then is killed at a random moment
            first = rec.stderr.readline()
            if k < KILLS:
                time.sleep(rng.uniform(0.0, 1.5))
                rec.send_signal(signal.SIGKILL)
                kills += 1
            else:  # the last one stops cleanly (its handlers are set)
                rec.send_signal(signal.SIGTERM)
            err = first + rec.communicate(timeout=120)[1]
        finally:  # the test itself stopped: no recorder left behind
            if rec.poll() is None:
                rec.kill()
                rec.wait()
        c.eq(rec.returncode, -signal.SIGKILL if k < KILLS else 0,
             "killed %d: the recorder's exit status" % k)
        mine = []
        for line in err.splitlines():
            m = WRITTEN.match(line)
            c.check(m, "killed %d: the recorder said only its snapshots: "
                    "%r" % (k, line))
            if m:
                mine.append(int(m.group(1)))
        said += mine
        c.check(mine, "killed %d: it wrote a snapshot" % k)
        largest = max(largest, os.stat(path).st_size)
        db = sqlite3.connect(path)
        c.eq(db.execute("PRAGMA integrity_check").fetchone()[0], "ok",
             "killed %d: integrity_check" % k)
        left = [r[0] for r in db.execute("SELECT id FROM snapshot "
                                         "ORDER BY id")]
        size = db.execute("SELECT page_count * page_size FROM "
                          "pragma_page_count, pragma_page_size").fetchone()[0]
        db.close()  # the last connection: the file is the database now
        c.check(size <= BOUND or len(left) == 1, "killed %d: the database "
                "(%d) within 2 MiB, or the newest snapshot alone" % (k, size))
        c.eq(os.stat(path).st_size, size, "killed %d: the file's size is "
             "the database's" % k)
        dropped = dropped or (left and left[0] > 1)
        c.check(left and left == list(range(left[0], left[-1] + 1)),
                "killed %d: ids without a gap: %r" % (k, left))
        if mine and left:
            c.check(left[-1] in (mine[-1], mine[-1] + 1), "killed %d: the "
                    "newest in the file %d is the last said (%d) or the "
                    "one after it" % (k, left[-1], mine[-1]))
    c.eq(said, sorted(set(said)), "killed: ids said in increasing order")
    c.check(dropped, "killed: snapshots were dropped")
    c.check(said and said[-1] == left[-1], "killed: the newest is the "
            "last said")
    unsaid = sorted(set(range(1, left[-1] + 1)) - set(said))
    c.check(len(unsaid) <= kills, "killed: %d ids not said, %d kills" %
            (len(unsaid), kills))
    print("killed: %d kills, %d snapshots written, %d not said, %d left, "
          "largest file %d" % (kills, left[-1], len(unsaid), len(left),
                               largest), flush=True)


def bad_values(c, tmp):
    path = os.path.join(tmp, "bad.exmrec")
    for opt, val in (("--keep", "0"), ("--keep", "-3"), ("--keep", "2.5"),
                     ("--keep", "10y"), ("--keep", ""),
                     ("--keep-size", "1K"), ("--keep-size", "2X"),
                     ("--keep-size", "M")):
        p = subprocess.run([exmlive.EXMTOP, "--record", path, opt, val,
                            "-n", "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        c.eq((p.returncode, len(p.stderr.splitlines()), p.stdout),
             (2, 1, ""), "%s %r: status 2, one line" % (opt, val))
    c.check(not os.path.exists(path), "no file made by a bad value")
    p = subprocess.run([exmlive.EXMTOP, "-b", "--keep", "3"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    c.eq((p.returncode, len(p.stderr.splitlines())), (2, 1),
         "--keep without --record: status 2, one line")


def start_workload(tmp):
    """bench/workload.c built and started as bench/workload.sh does, the
    benchmark's shape with a quarter of its memory (see the top); (the
    process, its pids) once it said ready."""
    src = os.path.join(exmlive.SRCDIR, "..", "..", "bench", "workload.c")
    exe = os.path.join(tmp, "workload")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-Wextra",
                    "-o", exe, src], check=True, timeout=300)
    wl = subprocess.Popen([exe, "100", "64", "8", "32", "0"],
                          stdout=subprocess.PIPE, text=True)
    line = wl.stdout.readline().split()
    ready = wl.stdout.readline().strip()
    if line[:1] != ["pids"] or ready != "ready":
        wl.kill()
        wl.wait()
        raise RuntimeError("the workload did not start")
    return wl, line[1:]


def in_thread(c, name, fn, *args):
    """fn(checker, *args) in a thread with a checker of its own, added to
    c when joined (an exception a failure)."""
    own = exmlive.Checker(name)
    out = []

    def run():
        try:
            out.append(fn(own, *args))
        except Exception as e:  # noqa: BLE001 - reported as a failure
            own.check(False, "%s: %r" % (name, e))

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def join():
        t.join()
        c.passed += own.passed
        c.failed += own.failed
        return out[0] if out else None
    return join


def wal_of(size):
    """The size of a -wal holding size bytes of pages (4 KiB each, each
    with its 24-byte frame header, after the 32-byte header)."""
    return 32 + size // 4096 * (4096 + 24)


def keep_size(c, tmp, scan):
    ids, left, sizes = record(c, tmp, "size2M", ["--keep-size", "2M"], scan)
    # a snapshot larger than the bound is kept alone: when the machine
    # scatters the workload's pages (another test swapping, compacting),
    # one snapshot has reached 6 MiB
    lim = max(BOUND, sizes[5])
    c.check(sizes[6] <= BOUND, "size2M: every database committed with more "
            "than one snapshot (largest %d) within 2 MiB" % sizes[6])
    c.check(sizes[0] <= lim, "size2M: the file's largest size %d within "
            "2 MiB, or the largest database committed (%d)" %
            (sizes[0], sizes[5]))
    # the -wal holds the last transaction or two (readers beside hold a
    # checkpoint back), each touching at most the database before it and
    # the snapshot it adds, each at most lim: 5 x lim in all
    c.check(sizes[4] <= lim + 2 * wal_of(2 * lim), "size2M: the file and "
            "its -wal together (%d) within 5 x %d (two transactions' writes "
            "in the -wal, each at most the database before it and its "
            "snapshot), replays running beside" % (sizes[4], lim))
    c.check(len(left) < len(ids), "size2M: snapshots were dropped (%d of "
            "%d left)" % (len(left), len(ids)))
    c.eq(left, ids[-len(left):], "size2M: the oldest went first")


def keep_10s(c, tmp, scan):
    ids, left, sizes = record(c, tmp, "keep10s", ["--keep", "10s"], scan)
    c.check(sizes[1] <= 2 * wal_of(2 * sizes[0]), "keep10s: the -wal's "
            "largest size %d within four times the file's (%d: two "
            "transactions' writes, each at most the database before it and "
            "its snapshot), replays running beside" % (sizes[1], sizes[0]))
    taken = sizes[2]
    newest = taken.get(ids[-1])
    c.check(newest is not None, "keep10s: the newest was seen")
    if newest is not None:
        want = sorted(i for i, t in taken.items()
                      if t >= newest - 10.0 and i <= ids[-1])
        c.eq([i for i in left if i in taken], want, "keep10s: exactly "
             "those taken within 10 s of the newest are left")
        c.check(len(want) < len(ids), "keep10s: some were dropped")
    c.eq(left, ids[-len(left):], "keep10s: the oldest went first")


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (recorders read every process's pages)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("test_record_keep")
    tmp = tempfile.mkdtemp(prefix="exm-keep-", dir="/var/tmp")
    wl = None
    try:
        bad_values(c, tmp)
        wl, pids = start_workload(tmp)
        scan = ["--scan-pids", ",".join(pids)]
        one = one_snapshot(tmp, scan)
        c.check(one < BOUND // 2, "one snapshot of the workload (%d) well "
                "under 2 MiB" % one)
        joins = [in_thread(c, "size2M", keep_size, tmp, scan),
                 in_thread(c, "keep10s", keep_10s, tmp, scan),
                 in_thread(c, "killed", killed, tmp, scan)]
        for j in joins:
            j()
    finally:  # also on SIGTERM (exmlive makes it an exit)
        for rec in RECORDERS:  # the threads' own, if stopped midway
            if rec.poll() is None:
                rec.kill()
                rec.wait()
        if wl:
            wl.terminate()
            wl.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

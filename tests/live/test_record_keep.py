#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Retention of a recording: --keep N, --keep DURATION, --keep-size SIZE
(issue 22; root, as the recorders read every process's pages; SKIP
otherwise).

Each recorder records the system at -d 0.1 for a few seconds while copies
of sleep of our own come and go (each one maps a file of its own, so file
rows and page sets stop being named as snapshots are dropped), and two
loops replay the newest snapshot of the file over and over (JSON, kept by
the snapshot's time and time taken). Then:
- --keep 4: the file holds exactly the last 4 snapshots the recorder said
  it wrote (ids increasing, nothing lost at the new end);
- --keep 1s: it holds exactly the snapshots (of those the test saw in the
  file) taken less than 1 s before the newest one, and the newest;
- --keep-size 8M: the database file, polled every 10 ms, never grew past
  the bound by more than one snapshot (the size of a recording of one
  snapshot of the same system), and snapshots were dropped;
and for each: every replay during the pruning succeeded, every snapshot
left replays as it did when it was the newest, PRAGMA integrity_check is
ok, and no page set, run or file row is left that nothing names, nor a
mapping naming a row that is gone. A recorder with --keep 4 killed with
SIGKILL 20 times at random moments and started again each time: the file
is never corrupt, holds the last 4 ids, and no more snapshots went
unsaid than kills. Bad values exit 2 with one line.
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

SECS = 3.0
NEED = 12
KILLS = 20
NSLEEPERS = 20  # copies of sleep (0.3 s each, then the first again)
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


def sleepers(tmp, stop):
    """Copies of sleep under names of their own, one at a time, each for
    0.3 s: the files the recording names come and go. (Copied by main
    before any thread forks: a copy written while another thread forks
    could not be run, ETXTBSY.)"""
    k = 0
    prev = None
    while not stop.is_set():
        exe = os.path.join(tmp, "keepsleep%d" % (k % NSLEEPERS))
        cur = subprocess.Popen([exe, "60"])
        if prev:
            prev.kill()
            prev.wait()
        prev = cur
        k += 1
        stop.wait(0.3)
    if prev:
        prev.kill()
        prev.wait()


def poll_sizes(path, stop, out):
    """The largest size of the database file and of its -wal."""
    while not stop.is_set():
        for i, sfx in enumerate(("", "-wal")):
            try:
                out[i] = max(out[i], os.stat(path + sfx).st_size)
            except OSError:
                pass
        try:
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True,
                                 timeout=10)
            rows = db.execute("SELECT id, taken_sec, taken_nsec FROM "
                              "snapshot").fetchall()
            db.close()
            for sid, sec, nsec in rows:
                out[2][sid] = sec + nsec / 1e9
            if rows and min(r[0] for r in rows) > 1:
                out[3].set()  # some were dropped
        except sqlite3.Error:
            pass
        stop.wait(0.01)


def one_snapshot(tmp):
    """The size of a recording of one snapshot of the system now."""
    one = os.path.join(tmp, "one.exmrec")
    for sfx in ("", "-wal", "-shm"):
        if os.path.exists(one + sfx):
            os.unlink(one + sfx)
    subprocess.run([exmlive.EXMTOP, "--record", one, "-n", "1"],
                   check=True, timeout=120)
    return os.stat(one).st_size


def record(c, tmp, name, keep):
    """Record with the retention keep (a list of options) for SECS, and
    until the recorder said NEED snapshots (on a busy machine) and some
    were dropped:
    (ids said, {id: taken} seen in the file, [max size, max wal size])."""
    path = os.path.join(tmp, name + ".exmrec")
    stop = threading.Event()
    seen, fails = {}, []
    sizes = [0, 0, {}, threading.Event()]
    threads = [threading.Thread(target=sleepers, args=(tmp, stop),
                                daemon=True),
               threading.Thread(target=poll_sizes, args=(path, stop, sizes),
                                daemon=True)]
    threads += [threading.Thread(target=replay_newest,
                                 args=(path, stop, seen, fails),
                                 daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    rec = subprocess.Popen([exmlive.EXMTOP, "--record", path, "-d", "0.1",
                            "--verbose"] + keep,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(rec.stderr),
                              daemon=True)
    reader.start()
    try:
        end = time.time() + SECS
        while (time.time() < end or len(lines) < NEED or
               not sizes[3].is_set()) and \
                time.time() < end + 120 and rec.poll() is None:
            time.sleep(0.05)
        # one snapshot, the test's processes running (they grow)
        sizes.append(one_snapshot(tmp))
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
          "largest -wal %d" % (name, len(ids), len(left), same, sizes[0],
                               sizes[1]))
    return ids, left, sizes


def killed(c, tmp):
    """A recorder with --keep 4 killed with SIGKILL KILLS times at random
    moments once it wrote a snapshot (during its pruning too: every
    snapshot prunes) and started again each time: the file is never
    corrupt, holds the last 4 ids, and each kill lost at most the snapshot
    being written."""
    path = os.path.join(tmp, "killed.exmrec")
    said, kills = [], 0
    rng = random.Random()
    for k in range(KILLS + 1):
        rec = subprocess.Popen([exmlive.EXMTOP, "--record", path, "-d",
                                "0.1", "--keep", "4", "--verbose"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        try:
            # each one writes (a busy machine may take a while to start
            # it), then is killed at a random moment: writing, pruning,
            # waiting
            first = rec.stderr.readline()
            if k < KILLS:
                time.sleep(rng.uniform(0.0, 0.5))
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
        for line in err.splitlines():
            m = WRITTEN.match(line)
            c.check(m, "killed %d: the recorder said only its snapshots: "
                    "%r" % (k, line))
            if m:
                said.append(int(m.group(1)))
        if os.path.exists(path):
            db = sqlite3.connect(path)
            c.eq(db.execute("PRAGMA integrity_check").fetchone()[0], "ok",
                 "killed %d: integrity_check" % k)
            db.close()
    c.eq(said, sorted(set(said)), "killed: ids said in increasing order")
    db = sqlite3.connect(path)
    left = [r[0] for r in db.execute("SELECT id FROM snapshot ORDER BY id")]
    db.close()
    c.check(left and left[-1] > KILLS, "killed: each recorder wrote "
            "(%d ids)" % (left[-1] if left else 0))
    c.eq(left, list(range(left[-1] - 3, left[-1] + 1)) if left else [],
         "killed: the last 4 ids are left")
    c.check(said and said[-1] == left[-1], "killed: the newest is the "
            "last said")
    # every id up to the newest was written once; those no recorder
    # said (killed between its commit and its line) at most one a kill
    unsaid = sorted(set(range(1, left[-1] + 1)) - set(said))
    c.check(len(unsaid) <= kills, "killed: %d ids not said, %d kills" %
            (len(unsaid), kills))
    print("killed: %d kills, %d snapshots written, %d not said" %
          (kills, left[-1], len(unsaid)))


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


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root (recorders read every process's pages)")
        sys.exit(exmlive.SKIP)
    c = exmlive.Checker("test_record_keep")
    tmp = tempfile.mkdtemp(prefix="exm-keep-", dir="/var/tmp")
    try:
        for k in range(NSLEEPERS):
            shutil.copy("/bin/sleep", os.path.join(tmp, "keepsleep%d" % k))
        bad_values(c, tmp)
        killed(c, tmp)

        ids, left, _ = record(c, tmp, "keep4", ["--keep", "4"])
        c.check(len(ids) > 8, "keep4: more snapshots written (%d) than "
                "kept" % len(ids))
        c.eq(left, ids[-4:], "keep4: the file holds the last 4 written")

        ids, left, sizes = record(c, tmp, "keep1s", ["--keep", "1s"])
        taken = sizes[2]
        newest = taken.get(ids[-1])
        c.check(newest is not None, "keep1s: the newest was seen")
        if newest is not None:
            want = sorted(i for i, t in taken.items()
                          if t >= newest - 1.0 and i <= ids[-1])
            c.eq([i for i in left if i in taken], want, "keep1s: exactly "
                 "those taken within 1 s of the newest are left")
            c.check(len(want) < len(ids), "keep1s: some were dropped")

        # a snapshot of this machine's processes with their pages takes
        # 0.3 to 3 MiB: a bound holding a few (the 2M holds 0.5
        # MiB snapshots of its benchmark)
        before = one_snapshot(tmp)
        bound = 8 << 20
        ids, left, sizes = record(c, tmp, "size8M", ["--keep-size", "8M"])
        slack = max(before, sizes[4])
        c.check(sizes[0] <= bound + slack, "size8M: the file's largest "
                "size %d within 8 MiB and one snapshot (%d)" %
                (sizes[0], slack))
        c.check(len(left) < len(ids), "size8M: snapshots were dropped "
                "(%d of %d left)" % (len(left), len(ids)))
        c.eq(left, ids[-len(left):], "size8M: the oldest went first")
    finally:  # also on SIGTERM (exmlive makes it an exit)
        shutil.rmtree(tmp, ignore_errors=True)
    c.done()


if __name__ == "__main__":
    exmlive.run_main(main)

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/record.sh - what recording costs: on the workload of
# bench/workload.sh (as bench/snapshot.sh), take RUNS snapshots of every
# process and append each to an SQLite recording (bench/exmrecord), and
# print the time to take a snapshot, the time to record it, the ratio of
# the two, and the file size per snapshot (the first, and each further one:
# page sets that did not change are not written again); beside it, in the same run, the
# size and time of a plain JSON dump of the same processes
# (exmtop -b --format json), and smemcap's capture where Debian's smem
# ships it (Debian 12's does not).
#
# Run as root from the build directory (or set EXMTOP= and EXMRECORD=):
#   bench/record.sh [-n NPROCS] [-r RUNS] [-g RESERVE_GIB]
#                  [-a SHARED_ANON_MIB] [-s SHM_MIB]
set -eu

SRCDIR=$(cd "$(dirname "$0")" && pwd)
. "$SRCDIR/workload.sh"
RUNS=5
bench_opt() { RUNS=$2; } # -r
workload_opts "r:" 3,17 "$@"

EXMTOP=${EXMTOP:-./exmtop}
EXMRECORD=${EXMRECORD:-./bench/exmrecord}
for x in "$EXMTOP" "$EXMRECORD"; do
	[ -x "$x" ] || { echo "record.sh: no $x (set EXMTOP= / EXMRECORD=)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "record.sh: python3 not found" >&2; exit 2; }
[ "$(id -u)" = 0 ] || echo "record.sh: not root: the smaps source is recorded" >&2

workload_bench

# file_size: the recording and its WAL
file_size() {
	local n=0 f
	for f in "$TMP/rec.exmrec" "$TMP/rec.exmrec-wal"; do
		[ -f "$f" ] && n=$((n + $(stat -c %s "$f")))
	done
	echo $n
}
# the first snapshot alone, then the others appended: page sets that did
# not change are not written again
"$EXMRECORD" "$TMP/rec.exmrec" 1 >"$TMP/rec.times"
first_bytes=$(file_size)
[ "$RUNS" -gt 1 ] && "$EXMRECORD" "$TMP/rec.exmrec" $((RUNS - 1)) >>"$TMP/rec.times"
rec_bytes=$(file_size)
: >"$TMP/json.times"
for i in $(seq "$RUNS"); do
	t0=$(date +%s%N)
	"$EXMTOP" -b --format json >"$TMP/dump.$i.json"
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000 )) $(stat -c %s "$TMP/dump.$i.json")" >>"$TMP/json.times"
done
cap=
if command -v smemcap >/dev/null; then
	t0=$(date +%s%N)
	smemcap >"$TMP/cap.tar"
	t1=$(date +%s%N)
	cap="$(( (t1 - t0) / 1000 )) $(stat -c %s "$TMP/cap.tar")"
fi

python3 - "$TMP" "$RUNS" "$rec_bytes" "$first_bytes" "$cap" <<'PY'
import statistics, sys
tmp, runs, rec_bytes, first, cap = (sys.argv[1], int(sys.argv[2]),
                                    int(sys.argv[3]), int(sys.argv[4]),
                                    sys.argv[5])
snap, rec = [], []
for line in open(tmp + "/rec.times"):
    w = line.split()
    snap.append(float(w[1]))
    rec.append(float(w[3]))
js = [l.split() for l in open(tmp + "/json.times")]
js_s = [int(x[0]) / 1e6 for x in js]
js_b = [int(x[1]) for x in js]
med = statistics.median
per = rec_bytes / runs
print("\n%d snapshots of every process" % runs)
print("  take a snapshot      median %.3f s (best %.3f s)" % (med(snap), min(snap)))
print("  record it            median %.3f s (best %.3f s): %.2fx the snapshot"
      % (med(rec), min(rec), med(rec) / med(snap)))
print("  recording            %.1f KiB per snapshot (%.1f MiB for %d): "
      "the first %.1f KiB, each further one %s"
      % (per / 1024, rec_bytes / 2**20, runs, first / 1024,
         "%.1f KiB" % ((rec_bytes - first) / (runs - 1) / 1024)
         if runs > 1 else "-"))
print("  JSON dump (-b)       median %.3f s, %.1f KiB per snapshot"
      % (med(js_s), med(js_b) / 1024))
print("  recording / JSON     %.2fx the size (the recording holds every "
      "mapping and page run, JSON only the per-process report)"
      % (per / med(js_b)))
if cap:
    t, b = cap.split()
    print("  smemcap              %.3f s, %.1f KiB per capture; recording / "
          "smemcap %.2fx" % (int(t) / 1e6, int(b) / 1024, per / int(b)))
else:
    print("  smemcap              not available (Debian 12's smem does not "
          "ship it)")
PY

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/snapshot.sh - time one full exmtop snapshot against smem and smemstat
# on the same processes, in the same run.
#
# Builds bench/workload.c, starts NPROCS processes that each inherit a
# RESERVE_GIB untouched PROT_NONE/NORESERVE reservation, SHARED_ANON_MIB of
# fork-shared anonymous memory and SHM_MIB of shared memory, then times RUNS
# rounds of (interleaved, so drift hits all alike):
#   exmtop -b --format json                        (auto: PAGEMAP_SCAN for big mappings)
#   exmtop -b --format json --pagemap-mode scan
#   exmtop -b --format json --pagemap-mode read
#   smem                (reads /proc/PID/smaps of every process)
#   smemstat            (one snapshot of every process)
# and prints best and median wall times, CPU time (user + system), peak RSS,
# and the ratios of median and best wall times against the targets (exmtop
# no slower than smem, within 1.5x of smemstat). On a busy machine trust the
# best times and the CPU times more than the medians.
# Everything reads all processes of the machine, the workload among them.
# The workload is killed on exit, whatever happens.
#
# Run as root from the build directory (or set EXMTOP=path):
#   /work/main/bench/snapshot.sh [-n NPROCS] [-r RUNS] [-g RESERVE_GIB]
#                                [-a SHARED_ANON_MIB] [-s SHM_MIB] [-R]
# -R leaves out --pagemap-mode read (slow when other processes have huge
# reservations, e.g. sanitizer builds' 16 TiB shadow).
set -eu

SRCDIR=$(cd "$(dirname "$0")" && pwd)
. "$SRCDIR/workload.sh"
RUNS=5 READ=1
bench_opt() {
	case $1 in
	r) RUNS=$2 ;;
	R) READ= ;;
	esac
}
workload_opts "r:R" 3,28 "$@"

EXMTOP=${EXMTOP:-./exmtop}
[ -x "$EXMTOP" ] || { echo "snapshot.sh: no exmtop at $EXMTOP (set EXMTOP=)" >&2; exit 2; }
EXMTOP=$(cd "$(dirname "$EXMTOP")" && pwd)/$(basename "$EXMTOP")
for t in smem smemstat python3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "snapshot.sh: $t not found" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || echo "snapshot.sh: not root: exmtop will use smaps, not pagemap" >&2

workload_bench
PIDS=$(sed -n 's/^pids //p' "$TMP/wl.out" | tr ' ' ',')

# Sanity: exmtop sees the workload, and what it costs.
"$EXMTOP" -b --format json --bytes -p "$PIDS" >"$TMP/wl.json"
python3 - "$TMP/wl.json" "$NPROCS" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ps = d.get("processes") or []
s = lambda k: sum(p.get(k) or 0 for p in ps)
print("exmtop on the workload: source %s (%s), %d processes, VM %.1f GiB, "
      "RSS %.1f MiB, effective RSS %.1f MiB"
      % (d.get("source"), d.get("source_detail"), len(ps), s("vm") / 2**30,
         s("rss") / 2**20, s("erss") / 2**20))
if len(ps) != int(sys.argv[2]):
    sys.exit("exmtop lists %d workload processes, not %s" % (len(ps), sys.argv[2]))
EOF

# time_cmd NAME CMD...: append "wall_us peak_kb user_s sys_s" to $TMP/NAME.
time_cmd() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$TMP/rusage" "$@" >/dev/null 2>"$TMP/err" || {
		echo "snapshot.sh: $name failed:" >&2; cat "$TMP/err" >&2; exit 1; }
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000 )) $(tail -n1 "$TMP/rusage")" >>"$TMP/$name"
}

for _ in $(seq "$RUNS"); do
	time_cmd exmtop "$EXMTOP" -b --format json
	time_cmd exmtop_scan "$EXMTOP" -b --format json --pagemap-mode scan
	[ -z "$READ" ] || time_cmd exmtop_read "$EXMTOP" -b --format json --pagemap-mode read
	time_cmd smem smem
	time_cmd smemstat smemstat
done

python3 - "$TMP" "$RUNS" <<'EOF'
import statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
rows = {}
import os
for name in ("exmtop", "exmtop_scan", "exmtop_read", "smem", "smemstat"):
    if not os.path.exists("%s/%s" % (tmp, name)):
        continue
    v = [l.split() for l in open("%s/%s" % (tmp, name))]
    us = [int(x[0]) for x in v]
    cpu = [float(x[2]) + float(x[3]) for x in v]
    rows[name] = (min(us) / 1e6, statistics.median(us) / 1e6,
                  statistics.median(cpu), max(int(x[1]) for x in v))
print("\n%-26s %8s %10s %10s %12s" % ("%d runs each" % runs, "best s",
                                      "median s", "CPU s", "peak RSS"))
labels = {"exmtop": "exmtop (auto)", "exmtop_scan": "exmtop --pagemap-mode scan",
          "exmtop_read": "exmtop --pagemap-mode read"}
for name, (best, med, cpu, kb) in rows.items():
    print("%-26s %8.3f %10.3f %10.2f %8.1f MiB" % (labels.get(name, name),
                                                   best, med, cpu, kb / 1024))
print("\nratios of median (best) wall time; targets: <= 1 vs smem, "
      "<= 1.5 vs smemstat")
for name in ("exmtop", "exmtop_scan", "exmtop_read"):
    if name not in rows:
        continue
    r = [rows[name][i] / rows[o][i] for o in ("smem", "smemstat")
         for i in (1, 0)]
    print("%-26s / smem %5.2fx (%5.2fx) %-6s  / smemstat %5.2fx (%5.2fx) %s"
          % (labels[name], r[0], r[1], "met" if r[0] <= 1 else "MISSED",
             r[2], r[3], "met" if r[2] <= 1.5 else "MISSED"))
EOF

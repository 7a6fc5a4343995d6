#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/snapshot.sh - time one full exmtop snapshot against smem and smemstat
# on the same processes, in the same run.
#
# Builds bench/workload.c, starts one of its workloads (-w: bench, the
# default; resident, GiBs shared by fork; many, 2,000 small processes;
# sparse, 1 TiB reservations holding a page a GiB; heap, one process's
# 8 GiB of its own: see workload.sh), then
# times RUNS rounds of (interleaved, so drift hits all alike):
#   exmtop -b                         (the default columns: the kernel's Pss
#                                      from the frames' mapping counts)
#   exmtop -b --format json           (every column: smaps_rollup too, for
#                                      Pss_Dirty and SwapPss)
#   exmtop -b --pagemap-mode read     (the path of kernels before 6.7)
#   exmtop -b --pagemap-mode read-all (the same, every mapping's frames
#                                      read: none counted)
#   exmtop -b --format openmetrics --pagemap-mode read
#                                     (the default metrics, the cgroup
#                                      charge among them, on that path)
#   smem                (reads /proc/PID/smaps of every process)
#   smemstat            (one snapshot of every process)
# and prints best and median wall times, median CPU time (user + system),
# peak RSS, and the ratios of median wall, CPU and peak memory against smem
# and smemstat with the targets of issue 23 (<= 1.0x smemstat's CPU and
# wall, <= 0.5x smem's). On a busy machine trust the CPU times more than
# the wall times.
# Everything reads all processes of the machine, the workload among them.
# The workload is killed on exit, whatever happens.
#
# Run as root from the build directory (or set EXMTOP=path):
#   bench/snapshot.sh [-w WORKLOAD] [-r RUNS] [-R] [-F]
#                     [-n NPROCS -g RESERVE_GIB -a SHARED_ANON_MIB
#                      -s SHM_MIB -S SCATTER]
# -R leaves out --pagemap-mode read and read-all (slow when other processes have huge
# reservations, e.g. sanitizer builds' 16 TiB shadow).
# -F also times a floor (bench/pmfloor.c every: every mapping's pagemap
# words read, nothing else): the least any tool that knows each process's
# frames pays where mappings are full (-w resident); its ratios say what
# share of smemstat's and smem's cost no such tool can go under.
# EXMTOP_BASE=path also times that exmtop's -b (another build, e.g. of
# main: a change's before and after in the same rounds).
set -eu

SRCDIR=$(cd "$(dirname "$0")" && pwd)
. "$SRCDIR/workload.sh"
RUNS=5 READ=1 FLOOR=
bench_opt() {
	case $1 in
	r) RUNS=$2 ;;
	R) READ= ;;
	F) FLOOR=1 ;;
	esac
}
workload_opts "r:RF" 3,42 "$@"

EXMTOP=${EXMTOP:-./exmtop}
[ -x "$EXMTOP" ] || { echo "snapshot.sh: no exmtop at $EXMTOP (set EXMTOP=)" >&2; exit 2; }
EXMTOP=$(cd "$(dirname "$EXMTOP")" && pwd)/$(basename "$EXMTOP")
BASE=${EXMTOP_BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || {
	echo "snapshot.sh: no exmtop at EXMTOP_BASE=$BASE" >&2; exit 2; }
for t in smem smemstat python3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "snapshot.sh: $t not found" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || echo "snapshot.sh: not root: exmtop will use smaps, not pagemap" >&2

workload_bench
[ -z "$FLOOR" ] ||
	${CC:-cc} -O2 -Wall -Wextra -o "$TMP/pmfloor" "$SRCDIR/pmfloor.c"
PIDS=$(sed -n 's/^pids //p' "$TMP/wl.out" | tr ' ' ',')

# Sanity: exmtop sees the workload, and what it costs.
"$EXMTOP" -b --format json --fields pid,vm,rss,erss --bytes -p "$PIDS" \
	>"$TMP/wl.json"
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
	time_cmd exmtop "$EXMTOP" -b
	[ -z "$BASE" ] || time_cmd exmtop_base "$BASE" -b
	time_cmd exmtop_json "$EXMTOP" -b --format json
	[ -z "$READ" ] || time_cmd exmtop_read "$EXMTOP" -b --pagemap-mode read
	[ -z "$READ" ] || time_cmd exmtop_readall "$EXMTOP" -b --pagemap-mode read-all
	[ -z "$READ" ] || time_cmd exmtop_om_read "$EXMTOP" -b --format openmetrics --pagemap-mode read
	[ -z "$READ" ] || [ -z "$BASE" ] ||
		time_cmd exmtop_base_om_read "$BASE" -b --format openmetrics --pagemap-mode read
	[ -z "$FLOOR" ] || time_cmd floor "$TMP/pmfloor" every
	time_cmd smem smem
	time_cmd smemstat smemstat
done

python3 - "$TMP" "$RUNS" "$WORKLOAD" <<'EOF'
import os, statistics, sys
tmp, runs, wl = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = {}
for name in ("exmtop", "exmtop_base", "exmtop_json", "exmtop_read",
             "exmtop_readall", "exmtop_om_read", "exmtop_base_om_read",
             "floor", "smem", "smemstat"):
    if not os.path.exists("%s/%s" % (tmp, name)):
        continue
    v = [l.split() for l in open("%s/%s" % (tmp, name))]
    us = [int(x[0]) for x in v]
    cpu = [float(x[2]) + float(x[3]) for x in v]
    rows[name] = (min(us) / 1e6, statistics.median(us) / 1e6,
                  statistics.median(cpu), max(int(x[1]) for x in v))
labels = {"exmtop": "exmtop -b", "exmtop_base": "EXMTOP_BASE -b",
          "exmtop_json": "exmtop -b --format json",
          "exmtop_read": "exmtop -b --pagemap-mode read",
          "exmtop_readall": "exmtop -b --pagemap-mode read-all",
          "exmtop_om_read": "exmtop openmetrics read",
          "exmtop_base_om_read": "EXMTOP_BASE openmetrics read",
          "floor": "floor: pmfloor every"}
print("\nworkload %s, %d runs each" % (wl, runs))
print("%-30s %8s %10s %10s %12s" % ("", "best s", "median s", "CPU s",
                                    "peak RSS"))
for name, (best, med, cpu, kb) in rows.items():
    print("%-30s %8.3f %10.3f %10.3f %8.1f MiB" % (labels.get(name, name),
                                                   best, med, cpu, kb / 1024))
print("\nratios (median wall, median CPU, peak RSS); targets: <= 1.0 of "
      "smemstat's CPU and wall, <= 0.5 of smem's")
for name in ("exmtop", "exmtop_base", "exmtop_json", "exmtop_read",
             "exmtop_readall", "exmtop_om_read", "exmtop_base_om_read",
             "floor"):
    if name not in rows:
        continue
    for other, target in (("smemstat", 1.0), ("smem", 0.5)):
        r = [rows[name][i] / rows[other][i] if rows[other][i] else
             float("inf") for i in (1, 2, 3)]
        print("%-30s / %-8s wall %6.2fx  CPU %6.2fx  peak %6.2fx  %s"
              % (labels[name], other, r[0], r[1], r[2],
                 "met" if max(r[0], r[1]) <= target else "MISSED"))
EOF

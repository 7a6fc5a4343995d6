#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/peak.sh - exmtop's peak memory in bytes per mapped page (issue 23's
# target: at most 6), for one snapshot, for -b -n 4 and for the live screen.
#
# Starts a workload of bench/workload.c (-w: resident, the default, 21
# processes sharing 4 GiB copy-on-write; or bench, many, sparse: see
# workload.sh), then, RUNS times each, interleaved:
#   exmtop -b -n 1            (peak RSS of the run)
#   exmtop -b -n 4 -d 0.1     (the same: three refreshes with deltas)
#   the live screen           (exmtop -d INTERVAL in a 200x50 tmux terminal
#                              for SECS seconds; its VmHWM, read from
#                              /proc/PID/status before it is quit)
# Bytes per page is the peak RSS divided by the pages every process maps
# (the sum of Rss of /proc/PID/smaps_rollup over all processes, in 4 KiB
# pages), taken once the workload is ready. Prints each run, the medians,
# the median CPU time (user + system) of the -b runs, the live screen's
# CPU over its SECS (percent of a core) and the median of the scan times
# its header gave once a second, and the machine's load average before
# and after (on a busy machine more refreshes are full walks: the
# system's counters move).
#
# Run as root from the build directory (or set EXMTOP=path):
#   bench/peak.sh [-r RUNS] [-t SECS] [-i INTERVAL] [-w WORKLOAD ...]
# EXMTOP_BASE=path measures that exmtop too, in the same rounds (another
# build, e.g. of main: a change's before and after).
set -eu

SRCDIR=$(cd "$(dirname "$0")" && pwd)
. "$SRCDIR/workload.sh"
RUNS=3 SECS=8 INTERVAL=1
bench_opt() {
	case $1 in
	r) RUNS=$2 ;;
	t) SECS=$2 ;;
	i) INTERVAL=$2 ;;
	esac
}
workload_opts "r:t:i:" 3,22 -w resident "$@"

EXMTOP=${EXMTOP:-./exmtop}
[ -x "$EXMTOP" ] || { echo "peak.sh: no exmtop at $EXMTOP (set EXMTOP=)" >&2; exit 2; }
EXMTOP=$(cd "$(dirname "$EXMTOP")" && pwd)/$(basename "$EXMTOP")
for t in tmux python3; do
	command -v "$t" >/dev/null || { echo "peak.sh: $t not found" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || echo "peak.sh: not root: exmtop will use smaps, not pagemap" >&2

SOCK=exm-peak-$$
workload_bench
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; workload_stop; rm -rf "$TMP"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# the pages mapped by every process, counted once per mapping
PAGES=$(cat /proc/[0-9]*/smaps_rollup 2>/dev/null |
	awk '/^Rss:/ { kb += $2 } END { printf "%d", kb / 4 }')
echo "mapped pages (sum of Rss): $PAGES"

# peak_batch EXMTOP ARGS...: "peak_kB cpu_s" (GNU time's %M, %U + %S)
peak_batch() {
	local exm=$1
	shift
	/usr/bin/time -f "%M %U %S" -o "$TMP/time" "$exm" "$@" >/dev/null
	awk '{ print $1, $2 + $3 }' "$TMP/time"
}

# ticks PID: utime + stime of every thread, in clock ticks
ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# peak_live EXMTOP: "VmHWM_kB cpu_s scan_s" after SECS seconds (scan_s:
# the median of the header's scan times, once a second)
peak_live() {
	local pid hwm t0 t1 scans=()
	rm -f "$TMP/live.pid"
	tmux -L "$SOCK" new-session -d -s p -x 200 -y 50 \
		"sh -c 'echo \$\$ > $TMP/live.pid; exec env TERM=tmux-256color $(printf %q "$1") -d $INTERVAL'"
	for _ in $(seq 100); do [ -s "$TMP/live.pid" ] && break; sleep 0.05; done
	pid=$(cat "$TMP/live.pid")
	t0=$(ticks "$pid")
	for _ in $(seq "$SECS"); do
		sleep 1
		scans+=("$(tmux -L "$SOCK" capture-pane -p -t p |
			sed -n 's/.* scan \([0-9.]*\)s.*/\1/p' | head -1)")
	done
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	t1=$(ticks "$pid")
	tmux -L "$SOCK" send-keys -t p q
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	echo "$hwm $(( t1 - t0 )) $(printf '%s\n' "${scans[@]}" | grep . | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }')"
}

BUILDS=(new)
[ -n "${EXMTOP_BASE:-}" ] && BUILDS+=(base)
for r in $(seq "$RUNS"); do
	for b in "${BUILDS[@]}"; do
		exm=$EXMTOP
		[ "$b" = base ] && exm=$EXMTOP_BASE
		echo "$b n1 $(peak_batch "$exm" -b -n 1)" >>"$TMP/peaks"
		echo "$b n4 $(peak_batch "$exm" -b -n 4 -d 0.1)" >>"$TMP/peaks"
		echo "$b live $(peak_live "$exm")" >>"$TMP/peaks"
	done
	echo "round $r done"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$TMP/peaks" "$PAGES" "$SECS" "$INTERVAL" "$(getconf CLK_TCK)" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((f[0], f[1]), []).append([float(x) for x in f[2:]])
pages, secs, hz = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[5])
labels = {"n1": "-b -n 1", "n4": "-b -n 4 -d 0.1",
          "live": "live, -d %s, %g s" % (sys.argv[4], secs)}
med = lambda v: statistics.median(v)
print("\n%-5s %-18s %8s %7s %8s %10s   %s" % ("build", "run", "peak MiB",
      "B/page", "CPU s", "scan s", "each run (B/page)"))
for b in ("new", "base"):
    for k in ("n1", "n4", "live"):
        v = rows.get((b, k))
        if not v:
            continue
        kb = [x[0] * 1024 for x in v]
        cpu = med([x[1] / hz for x in v]) if k == "live" else \
            med([x[1] for x in v])
        scan = "%.2f" % med([x[2] for x in v]) if k == "live" else "-"
        print("%-5s %-18s %8.1f %7.2f %8.2f %10s   %s" % (b, labels[k],
              med(kb) / 2**20, med(kb) / pages, cpu, scan,
              " ".join("%.2f" % (x / pages) for x in kb)))
print("(live: CPU s over its %g s; scan s: the header's, median)" % secs)
print("target (issue 23): at most 6 B/page")
EOF

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
# pages), taken once the workload is ready. Prints each run, the median
# and the machine's load average before and after (a busy machine makes
# the live screen's scans overlap more with the workload's noise).
#
# Run as root from the build directory (or set EXMTOP=path):
#   bench/peak.sh [-r RUNS] [-t SECS] [-i INTERVAL] [-w WORKLOAD ...]
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

# peak_batch ARGS...: exmtop's peak RSS in kB (GNU time's %M)
peak_batch() {
	/usr/bin/time -f %M -o "$TMP/time" "$EXMTOP" "$@" >/dev/null
	cat "$TMP/time"
}

# peak_live: the live screen's VmHWM in kB after SECS seconds
peak_live() {
	local pid hwm
	rm -f "$TMP/live.pid"
	tmux -L "$SOCK" new-session -d -s p -x 200 -y 50 \
		"sh -c 'echo \$\$ > $TMP/live.pid; exec env TERM=tmux-256color $(printf %q "$EXMTOP") -d $INTERVAL'"
	for _ in $(seq 100); do [ -s "$TMP/live.pid" ] && break; sleep 0.05; done
	pid=$(cat "$TMP/live.pid")
	sleep "$SECS"
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	tmux -L "$SOCK" send-keys -t p q
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	echo "$hwm"
}

for r in $(seq "$RUNS"); do
	echo "n1 $(peak_batch -b -n 1)" >>"$TMP/peaks"
	echo "n4 $(peak_batch -b -n 4 -d 0.1)" >>"$TMP/peaks"
	echo "live $(peak_live)" >>"$TMP/peaks"
	echo "round $r done"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$TMP/peaks" "$PAGES" "$SECS" "$INTERVAL" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    rows.setdefault(k, []).append(int(v) * 1024)
pages = int(sys.argv[2])
labels = {"n1": "exmtop -b -n 1", "n4": "exmtop -b -n 4 -d 0.1",
          "live": "live screen, -d %s, %s s" % (sys.argv[4], sys.argv[3])}
print("\n%-28s %10s %8s   %s" % ("peak memory", "MiB", "B/page", "each run (B/page)"))
for k in ("n1", "n4", "live"):
    v = rows[k]
    med = statistics.median(v)
    print("%-28s %10.1f %8.2f   %s" % (labels[k], med / 2**20, med / pages,
          " ".join("%.2f" % (x / pages) for x in v)))
print("target (issue 23): at most 6 B/page")
EOF

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/readme.sh - the figures of README.md's "How fast", measured now:
# runs bench/snapshot.sh, bench/cpu_live.sh and bench/record.sh one after
# the other on the benchmark workload (-w bench of bench/workload.sh: 100
# processes, each with a 64 GiB reservation, 32 MiB fork-shared anonymous
# memory and 128 MiB shared memory) and prints what they measured as the
# README words it, with the date, the kernel, the CPUs and the load
# average before and after (other work on the machine slows every tool of
# a run alike: compare the ratios, which are to peers measured in the
# same run). `make bench` runs it; each script's own report is kept in
# the log named at the end.
#
# Run as root from the build directory (or set EXMTOP= and EXMRECORD=):
#   bench/readme.sh [-r RUNS] [-t SECS]
# RUNS: snapshots of each tool and recorded snapshots (default 5); SECS:
# the live screen's measured time (default 60: two turns of 30 s, whole
# periods of exmtop's full walk, see cpu_live.sh). About 5 minutes.
set -eu -o pipefail

SRCDIR=$(cd "$(dirname "$0")" && pwd)
RUNS=5 SECS=60
while getopts "r:t:h" opt; do
	case $opt in
	r) RUNS=$OPTARG ;;
	t) SECS=$OPTARG ;;
	*) sed -n '3,19s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
case "$RUNS$SECS" in *[!0-9]*) echo "readme.sh: -r and -t take whole numbers" >&2; exit 2 ;; esac
if [ "$RUNS" -lt 2 ] || [ "$SECS" -lt 1 ]; then
	echo "readme.sh: -r 2 or more, -t 1 or more" >&2
	exit 2
fi
EXMTOP=${EXMTOP:-./exmtop}
EXMRECORD=${EXMRECORD:-./bench/exmrecord}
for x in "$EXMTOP" "$EXMRECORD"; do
	[ -x "$x" ] || { echo "readme.sh: no $x (run from the build directory, or set EXMTOP= / EXMRECORD=)" >&2; exit 2; }
done
export EXMTOP EXMRECORD
[ "$(id -u)" = 0 ] || { echo "readme.sh: run as root (the README's figures are of the pagemap source)" >&2; exit 2; }

LOG=$(mktemp /tmp/exm-bench-readme.XXXXXX)
load() { cut -d' ' -f1-3 /proc/loadavg; }
{
	echo "date $(date -u +%Y-%m-%d\ %H:%M) UTC"
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "load_before $(load)"
} >"$LOG.facts"
for s in "snapshot.sh -r $RUNS" "cpu_live.sh -t $SECS" "record.sh -r $RUNS"; do
	echo "== bench/$s" | tee -a "$LOG"
	# shellcheck disable=SC2086 # $s is the script and its options
	"$SRCDIR"/$s 2>&1 | tee -a "$LOG.$(echo "$s" | cut -d. -f1)" >>"$LOG" ||
		{ echo "readme.sh: bench/$s failed (its output: $LOG)" >&2; exit 1; }
done
echo "load_after $(load)" >>"$LOG.facts"

python3 - "$LOG" "$RUNS" "$SECS" <<'EOF'
import re, sys
log, runs, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
facts = dict(l.rstrip("\n").split(" ", 1) for l in open(log + ".facts"))

def text(name):
    return open("%s.%s" % (log, name)).read()

def fail(what):
    sys.exit("readme.sh: %s (the scripts' output: %s)" % (what, log))

# bench/snapshot.sh: label, best s, median s, CPU s, peak MiB
snap = {}
for m in re.finditer(r"^(\S.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) MiB$",
                     text("snapshot"), re.M):
    snap[m.group(1).strip()] = [float(m.group(i)) for i in (2, 3, 4, 5)]
for k in ("exmtop -b", "exmtop -b --format json",
          "exmtop -b --pagemap-mode read", "smem", "smemstat"):
    if k not in snap:
        fail("bench/snapshot.sh printed no row for " + k)
# bench/cpu_live.sh: label, CPU s, % of a core
live = {}
for m in re.finditer(r"^(.*?)\s+([\d.]+)\s+([\d.]+)%$", text("cpu_live"), re.M):
    live[m.group(1).strip()] = float(m.group(3))
want = {"exmtop": "exmtop -d 2", "top": "top -d 2",
        "htop": "htop -d 20", "htop_pss": "htop -d 20, PSS column",
        "ui": "of which exmtop's UI thread",
        "scan": "of which snapshots (scan thread)"}
for k, label in want.items():
    if label not in live:
        fail("bench/cpu_live.sh printed no row for " + label)
    want[k] = live[label]
idle = re.search(r"^idle penalty: .* costs ([\d.]+) ms of CPU back to back, "
                 r"([\d.]+) ms after", text("cpu_live"), re.M)
if not idle:
    fail("bench/cpu_live.sh printed no idle penalty")
# bench/record.sh
rec = text("record")
def num(rx):
    m = re.search(rx, rec)
    if not m:
        fail("bench/record.sh printed nothing like " + rx)
    return float(m.group(1))
take = num(r"take a snapshot\s+median ([\d.]+) s")
record = num(r"record it\s+median ([\d.]+) s")
first = num(r"the first ([\d.]+) KiB")
further = num(r"each further one ([\d.]+) KiB")
js = num(r"JSON dump \(-b\)\s+median [\d.]+ s, ([\d.]+) KiB")

def ratio(a, b, i):
    return "%.2fx" % (snap[a][i] / snap[b][i]) if snap[b][i] else "-"

def one(label):
    s = snap[label]
    return ("`%s` %.3f s (%s smemstat's wall, %s smem's), %.3f s of CPU "
            "(%s smemstat's, %s smem's), peak memory %.1f MiB"
            % (label, s[1], ratio(label, "smemstat", 1),
               ratio(label, "smem", 1), s[2], ratio(label, "smemstat", 2),
               ratio(label, "smem", 2), s[3]))

lb, la = facts["load_before"].split(), facts["load_after"].split()
print()
print("Measured %s with `make bench` (bench/readme.sh) on Linux %s, %s CPUs, "
      "load average %s before and %s after (1, 5, 15 minutes); the "
      "workload `bench` of bench/workload.sh: 100 processes, each with a "
      "64 GiB reservation, 32 MiB of fork-shared anonymous memory and "
      "128 MiB of shared memory."
      % (facts["date"], facts["kernel"], facts["cpus"], "/".join(lb),
         "/".join(la)))
print()
print("- One snapshot of every process (bench/snapshot.sh, medians of %d "
      "interleaved runs): %s; %s; %s. smemstat: %.3f s, %.3f s of CPU, "
      "%.1f MiB; smem: %.3f s, %.3f s of CPU, %.1f MiB."
      % (runs, one("exmtop -b"), one("exmtop -b --format json"),
         one("exmtop -b --pagemap-mode read"), snap["smemstat"][1],
         snap["smemstat"][2], snap["smemstat"][3], snap["smem"][1],
         snap["smem"][2], snap["smem"][3]))
print("- The live screen (bench/cpu_live.sh -t %d, a refresh every 2 s, "
      "each tool alone in turn for %d s in all): "
      "exmtop %.1f%% of a core (%.1f%% its screen, %.1f%% its snapshots); "
      "top %.1f%%, htop %.1f%%, htop showing PSS %.1f%% "
      "(exmtop: %s that); a fixed burst of work (bench/idle.c) cost "
      "%.2f ms back to back and %.2f ms after 2 s idle on this machine."
      % (secs, secs, want["exmtop"], want["ui"], want["scan"], want["top"],
         want["htop"], want["htop_pss"],
         "%.2fx" % (want["exmtop"] / want["htop_pss"])
         if want["htop_pss"] else "-", float(idle.group(1)),
         float(idle.group(2))))
print("- Recording (bench/record.sh, %d snapshots): recording a snapshot "
      "took %.3f s beside %.3f s to take it; the file grew by %.1f MiB for "
      "the first snapshot and %.1f MiB for each further one (a JSON dump "
      "of the same processes: %.2f MiB)."
      % (runs, record, take, first / 1024, further / 1024, js / 1024))
print()
print("(each script's own report: %s)" % log)
EOF
rm -f "$LOG.facts" "$LOG.snapshot" "$LOG.cpu_live" "$LOG.record"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/cpu_live.sh - CPU used by the live exmtop screen over a minute,
# against top, htop and htop showing PSS over the same minute.
#
# Starts the benchmark workload of bench/snapshot.sh (NPROCS processes, each
# with a RESERVE_GIB untouched reservation, SHARED_ANON_MIB fork-shared anon
# and SHM_MIB shared memory; -w picks another workload, see workload.sh),
# then runs exmtop, top, htop and htop with its PSS column (M_PSS in its
# htoprc: it reads every process's smaps_rollup) side by side, each in its
# own 200x50 tmux terminal, for SECS seconds. All refresh every INTERVAL
# seconds (default 2, exmtop's own; top's is 3 s and htop's 1.5 s). CPU is user + system
# time from /proc/PID/stat (all threads) taken after a warm-up and again
# SECS later. Prints seconds of CPU and percent of one core for each,
# exmtop's split between its UI thread and its snapshots, and the ratios
# exmtop/top, exmtop/htop and exmtop/htop-PSS. Targets (issue 23): exmtop
# at most 1% of one core, a quarter of htop showing PSS or less. Then, the
# tools still running, what the machine charges for a fixed burst of work
# after INTERVAL seconds idle against back to back (bench/idle.c, 15 s):
# on a virtual machine that lets an idle vCPU go cold, every tool's figures
# are inflated by about that factor, a short burst's (exmtop's) most.
#
# Run as root from the build directory (or set EXMTOP=path):
#   bench/cpu_live.sh [-t SECS] [-i INTERVAL] [-w WORKLOAD] [-n NPROCS]
#                     [-g RESERVE_GIB] [-a SHARED_ANON_MIB] [-s SHM_MIB]
#                     [-S SCATTER] [-f FIELDS] [-W]
#   -t 10 for a quick run; -W: no workload (the machine as it is);
#   -f: exmtop's process columns (without pss, no smaps_rollup is read).
set -eu

SRCDIR=$(cd "$(dirname "$0")" && pwd)
. "$SRCDIR/workload.sh"
SECS=60 INTERVAL=2 START=1
EXM_ARGS=()
bench_opt() {
	case $1 in
	f) EXM_ARGS=(--fields "$2") ;;
	t) SECS=$2 ;;
	i) INTERVAL=$2 ;;
	W) START=0 ;;
	esac
}
workload_opts "t:i:f:W" 3,28 "$@"

EXMTOP=${EXMTOP:-./exmtop}
[ -x "$EXMTOP" ] || { echo "cpu_live.sh: no exmtop at $EXMTOP (set EXMTOP=)" >&2; exit 2; }
EXMTOP=$(cd "$(dirname "$EXMTOP")" && pwd)/$(basename "$EXMTOP")
for t in tmux top htop python3; do
	command -v "$t" >/dev/null || { echo "cpu_live.sh: $t not found (Debian: apt-get install $t)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || echo "cpu_live.sh: not root: exmtop will use smaps, not pagemap" >&2

TMP=$(mktemp -d /tmp/exm-cpu.XXXXXX)
SOCK=exm-cpu-$$
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	workload_stop
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if [ "$START" = 1 ]; then
	workload_start
fi
echo "machine: $(uname -r), $(nproc) CPUs," \
	"$(ls /proc | grep -c '^[0-9]') processes in total"

# Each tool in its own terminal; a private HOME so nobody's settings are
# read or written (htop saves its settings on exit).
mkdir -p "$TMP/home" "$TMP/home_pss/.config/htop"
# htop's columns: its default ones and M_PSS (119), before the command
echo "fields=0 48 17 18 38 39 40 119 2 46 47 49 1" \
	>"$TMP/home_pss/.config/htop/htoprc"
# launch NAME CMD...: run CMD in tmux window NAME, its pid in $TMP/NAME.pid
# (HOME: $TMP/home, or $TMP/home_pss for a NAME ending in _pss)
launch() {
	local name=$1 cmd home=$TMP/home
	shift
	[ "${name%_pss}" = "$name" ] || home=$TMP/home_pss
	cmd="echo \$\$ > $TMP/$name.pid; exec env HOME=$home"
	cmd+=" TERM=tmux-256color LANG=C.UTF-8"
	for a in "$@"; do cmd+=" $(printf %q "$a")"; done
	if tmux -L "$SOCK" has-session -t b 2>/dev/null; then
		tmux -L "$SOCK" new-window -d -t b -n "$name" "sh -c '$cmd'"
	else
		tmux -L "$SOCK" new-session -d -s b -n "$name" -x 200 -y 50 \
			"sh -c '$cmd'"
	fi
}
# htop's -d is in tenths of a second
HTOP_D=$(python3 -c "print(round($INTERVAL * 10))")
launch exmtop "$EXMTOP" -d "$INTERVAL" "${EXM_ARGS[@]}"
launch top top -d "$INTERVAL"
launch htop htop -d "$HTOP_D"
launch htop_pss htop -d "$HTOP_D"
for name in exmtop top htop htop_pss; do
	for _ in $(seq 100); do [ -s "$TMP/$name.pid" ] && break; sleep 0.05; done
	[ -s "$TMP/$name.pid" ] || { echo "$name did not start" >&2; exit 1; }
done

# ticks PID: utime + stime in clock ticks (fields 14 and 15 of stat; the
# command name in field 2 may contain spaces, so count after the last ')')
ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
# ui_ticks PID: the same for exmtop's main thread only (input, drawing,
# rows, sorting); the rest is the scan (scanner thread and core workers)
ui_ticks() {
	sed 's/.*) //' "/proc/$1/task/$1/stat" | awk '{ print $12 + $13 }'
}

sleep 5 # warm-up: start-up and first screens are not the steady state
declare -A T0
for name in exmtop top htop htop_pss; do
	T0[$name]=$(ticks "$(cat "$TMP/$name.pid")")
done
UI0=$(ui_ticks "$(cat "$TMP/exmtop.pid")")
w0=$(date +%s%N)
echo "measuring for $SECS s ..."
sleep "$SECS"
w1=$(date +%s%N)
HZ=$(getconf CLK_TCK)
for name in exmtop top htop htop_pss; do
	pid=$(cat "$TMP/$name.pid")
	kill -0 "$pid" 2>/dev/null || { echo "$name exited during the run" >&2; exit 1; }
	echo "$name $(( $(ticks "$pid") - ${T0[$name]} ))" >>"$TMP/cpu"
done
echo "exmtop_ui $(( $(ui_ticks "$(cat "$TMP/exmtop.pid")") - UI0 ))" >>"$TMP/cpu"
# what exmtop's header says about its last snapshot
tmux -L "$SOCK" capture-pane -p -t b:exmtop | sed -n '1,2p' >"$TMP/exm.hdr"
${CC:-cc} -O2 -Wall -Wextra -o "$TMP/idle" "$SRCDIR/idle.c"
"$TMP/idle" "$INTERVAL" 5 >"$TMP/idle.out"

python3 - "$TMP/cpu" "$HZ" "$(( (w1 - w0) / 1000000 ))" "$INTERVAL" "$TMP/exm.hdr" \
	"$TMP/idle.out" <<'EOF'
import sys
rows = dict(l.split() for l in open(sys.argv[1]))
fast, slow = map(float, open(sys.argv[6]).read().split()[1:3])
hz, ms, interval = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
hdr = open(sys.argv[5]).read().splitlines()
wall = ms / 1000.0
print("\nexmtop's screen: " + (hdr[0].strip() if hdr else "?"))
if len(hdr) > 1:
    print("                 " + hdr[1].strip())
print("\n%-34s %8s %12s" % ("over %.1f s of wall time" % wall, "CPU s",
                            "% of a core"))
cpu = {}
for name, label in (("exmtop", "exmtop -d %g" % interval),
                    ("top", "top -d %g" % interval),
                    ("htop", "htop -d %d" % round(interval * 10)),
                    ("htop_pss", "htop -d %d, PSS column"
                     % round(interval * 10))):
    cpu[name] = int(rows[name]) / hz
    print("%-34s %8.2f %11.2f%%" % (label, cpu[name], 100 * cpu[name] / wall))
ui = int(rows["exmtop_ui"]) / hz
print("%-34s %8.2f %11.2f%%" % ("  of which exmtop's UI thread", ui,
                                100 * ui / wall))
print("%-34s %8.2f %11.2f%%" % ("  of which snapshots (scan thread)",
                                cpu["exmtop"] - ui,
                                100 * (cpu["exmtop"] - ui) / wall))
pct = 100 * cpu["exmtop"] / wall
print("\nexmtop / top  %6.2fx" % (cpu["exmtop"] / max(cpu["top"], 1.0 / hz)))
print("exmtop / htop %6.2fx" % (cpu["exmtop"] / max(cpu["htop"], 1.0 / hz)))
print("exmtop / htop with PSS %6.2fx"
      % (cpu["exmtop"] / max(cpu["htop_pss"], 1.0 / hz)))
print("targets: exmtop at most 1%% of one core: %s (%.2f%%); at most a "
      "quarter of htop with PSS: %s"
      % ("met" if pct <= 1 else "MISSED", pct,
         "met" if cpu["exmtop"] * 4 <= cpu["htop_pss"] else "MISSED"))
print("idle penalty: a fixed burst of work (bench/idle.c) costs %.2f ms of "
      "CPU back to back, %.2f ms after %g s idle (%.2fx)%s"
      % (fast, slow, interval, slow / fast,
         "" if slow < 1.5 * fast else ": this machine inflates every "
         "tool's figures above, short bursts most"))
EOF

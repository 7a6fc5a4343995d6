#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/cpu_live.sh - CPU used by the live exmtop screen over a minute,
# against top, htop and htop showing PSS in the same run (each measured
# for a minute: about five minutes in all).
#
# Starts the benchmark workload of bench/snapshot.sh (NPROCS processes, each
# with a RESERVE_GIB untouched reservation, SHARED_ANON_MIB fork-shared anon
# and SHM_MIB shared memory; -w picks another workload, see workload.sh),
# then starts exmtop, top, htop and htop with its PSS column (M_PSS in its
# htoprc: it reads every process's smaps_rollup), each in its own 200x50
# tmux terminal. All refresh every INTERVAL seconds (default 2, exmtop's
# own; top's is 3 s and htop's 1.5 s). Each is measured alone in turn, the
# others stopped (SIGSTOP), ROUNDS times (default 2) for SECS / ROUNDS
# seconds after 2 x INTERVAL + 1 s of settling: tools refreshing side by
# side at the same moments are not charged alike, as the first to read
# what the workload's processes are (their kernel structures, cold after
# an idle interval on a virtual machine) warms it for the next (two
# copies of exmtop side by side: 164 against 107 and 137 against 108
# ticks a minute, the first started the dearer). A turn lasts a whole
# number of exmtop's full-walk periods (FULL_WALK, 30 s, its default,
# given to it as --full-walk; SECS / ROUNDS rounded up): exmtop re-reads
# every process at least that often, and the walk due when it is let run
# again falls in the settling, so a shorter turn holds none of those
# walks (until 2026-11-30 turns of 10 and 20 s left them out) and a turn
# of one period holds one, as steady running does. -T measures them side
# by side instead, over SECS. CPU is user + system time from /proc/PID/stat
# (all threads). Prints seconds of CPU and percent of one core for each,
# exmtop's split between its UI thread and its snapshots, and the ratios
# exmtop/top, exmtop/htop and exmtop/htop-PSS. Targets (issue 23): exmtop
# at most 1% of one core, a quarter of htop showing PSS or less. Then, the
# tools still running, what the machine charges for a fixed burst of work
# after INTERVAL seconds idle against back to back (bench/idle.c, 15 s):
# on a virtual machine that lets an idle vCPU go cold, every tool's figures
# are inflated by about that factor, a short burst's (exmtop's) most.
#
# Run as root from the build directory (or set EXMTOP=path):
#   bench/cpu_live.sh [-t SECS] [-i INTERVAL] [-r ROUNDS] [-T]
#                     [-w WORKLOAD] [-n NPROCS] [-g RESERVE_GIB]
#                     [-a SHARED_ANON_MIB] [-s SHM_MIB] [-S SCATTER]
#                     [-f FIELDS] [-W]
#   -t 30 -r 1 for a quick run (2.5 minutes); -W: no workload (the machine
#   as it is);
#   -f: exmtop's process columns (without pss, no smaps_rollup is read).
set -eu

SRCDIR=$(cd "$(dirname "$0")" && pwd)
. "$SRCDIR/workload.sh"
SECS=60 INTERVAL=2 START=1 ROUNDS=2 TOGETHER=0 FULL_WALK=30
EXM_ARGS=()
bench_opt() {
	case $1 in
	f) EXM_ARGS=(--fields "$2") ;;
	t) SECS=$2 ;;
	i) INTERVAL=$2 ;;
	r) ROUNDS=$2 ;;
	T) TOGETHER=1 ;;
	W) START=0 ;;
	esac
}
workload_opts "t:i:r:f:TW" 3,45 "$@"
case $ROUNDS in
'' | *[!0-9]* | 0) echo "cpu_live.sh: -r wants a number of rounds, 1 or more" >&2; exit 2 ;;
esac

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
# (HOME: $TMP/home, or $TMP/home_pss for a NAME ending in _pss). CMD is a
# child of the window's shell, not the shell itself: tmux continues a
# window's own process the moment it stops (SIGCONT to its group), so a
# tool run as that process could not be stopped (until 2026-11-30 every
# tool ran through the others' turns: "alone" was side by side). Its
# input is the terminal (an asynchronous command's would be /dev/null).
launch() {
	local name=$1 cmd home=$TMP/home
	shift
	[ "${name%_pss}" = "$name" ] || home=$TMP/home_pss
	cmd="env HOME=$home TERM=tmux-256color LANG=C.UTF-8"
	for a in "$@"; do cmd+=" $(printf %q "$a")"; done
	cmd+=" </dev/tty & echo \$! > $TMP/$name.pid; wait"
	if tmux -L "$SOCK" has-session -t b 2>/dev/null; then
		tmux -L "$SOCK" new-window -d -t b -n "$name" "sh -c '$cmd'"
	else
		tmux -L "$SOCK" new-session -d -s b -n "$name" -x 200 -y 50 \
			"sh -c '$cmd'"
	fi
}
# htop's -d is in tenths of a second
HTOP_D=$(python3 -c "print(round($INTERVAL * 10))")
launch exmtop "$EXMTOP" -d "$INTERVAL" --full-walk "$FULL_WALK" "${EXM_ARGS[@]}"
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

NAMES="exmtop top htop htop_pss"
sleep 5 # warm-up: start-up and first screens are not the steady state
# measure NAME...: their CPU ticks (and exmtop's UI thread's) over
# $1 seconds, added to $TMP/cpu as "name ticks ms" lines
measure() {
	local secs=$1 name
	shift
	declare -A t0
	for name in "$@"; do
		t0[$name]=$(ticks "$(cat "$TMP/$name.pid")")
	done
	local ui0 w0 w1 pid
	ui0=$(ui_ticks "$(cat "$TMP/exmtop.pid")")
	w0=$(date +%s%N)
	sleep "$secs"
	w1=$(date +%s%N)
	for name in "$@"; do
		pid=$(cat "$TMP/$name.pid")
		kill -0 "$pid" 2>/dev/null || { echo "$name exited during the run" >&2; exit 1; }
		echo "$name $(( $(ticks "$pid") - ${t0[$name]} )) $(( (w1 - w0) / 1000000 ))" >>"$TMP/cpu"
	done
	case " $* " in *" exmtop "*)
		echo "exmtop_ui $(( $(ui_ticks "$(cat "$TMP/exmtop.pid")") - ui0 )) $(( (w1 - w0) / 1000000 ))" >>"$TMP/cpu" ;;
	esac
}
# stop NAME: SIGSTOP, and wait until its state says stopped (a tool that
# went on running would be measured beside the one whose turn it is)
stop() {
	local pid
	pid=$(cat "$TMP/$1.pid")
	kill -STOP "$pid"
	for _ in $(seq 100); do
		[ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" = T ] && return
		sleep 0.02
	done
	echo "cpu_live.sh: $1 did not stop" >&2
	exit 1
}
signal_all() {
	for name in $NAMES; do
		if [ "$1" = STOP ]; then stop "$name"; else kill "-$1" "$(cat "$TMP/$name.pid")"; fi
	done
}
if [ "$TOGETHER" = 1 ]; then
	echo "measuring them side by side for $SECS s ..."
	# shellcheck disable=SC2086
	measure "$SECS" $NAMES
else
	TURN=$(python3 -c "import math; print(max(1, math.ceil($SECS / $ROUNDS / $FULL_WALK)) * $FULL_WALK)")
	SETTLE=$(python3 -c "print(2 * $INTERVAL + 1)")
	echo "measuring each alone, the others stopped: $ROUNDS rounds of" \
		"$TURN s each (after $SETTLE s of settling; a whole number of" \
		"exmtop's $FULL_WALK s full-walk period) ..."
	signal_all STOP
	for _ in $(seq "$ROUNDS"); do
		for name in $NAMES; do
			kill -CONT "$(cat "$TMP/$name.pid")"
			sleep "$SETTLE"
			measure "$TURN" "$name"
			stop "$name"
		done
	done
	signal_all CONT
	sleep "$SETTLE"
fi
HZ=$(getconf CLK_TCK)
# what exmtop's header says about its last snapshot
tmux -L "$SOCK" capture-pane -p -t b:exmtop | sed -n '1,2p' >"$TMP/exm.hdr"
${CC:-cc} -O2 -Wall -Wextra -o "$TMP/idle" "$SRCDIR/idle.c"
"$TMP/idle" "$INTERVAL" 5 >"$TMP/idle.out"

python3 - "$TMP/cpu" "$HZ" "$TOGETHER" "$INTERVAL" "$TMP/exm.hdr" \
	"$TMP/idle.out" <<'EOF'
import sys
ticks, msecs = {}, {}
for line in open(sys.argv[1]):
    name, t, ms = line.split()
    ticks[name] = ticks.get(name, 0) + int(t)
    msecs[name] = msecs.get(name, 0) + int(ms)
fast, slow = map(float, open(sys.argv[6]).read().split()[1:3])
hz, together, interval = int(sys.argv[2]), sys.argv[3] == "1", \
    float(sys.argv[4])
hdr = open(sys.argv[5]).read().splitlines()
wall = {name: ms / 1000.0 for name, ms in msecs.items()}
print("\nexmtop's screen: " + (hdr[0].strip() if hdr else "?"))
if len(hdr) > 1:
    print("                 " + hdr[1].strip())
print("\n%-34s %8s %12s" % (("side by side over %.1f s" % wall["exmtop"])
                            if together else ("each alone over %.1f s"
                                              % wall["exmtop"]),
                            "CPU s", "% of a core"))
cpu, pct = {}, {}
for name, label in (("exmtop", "exmtop -d %g" % interval),
                    ("top", "top -d %g" % interval),
                    ("htop", "htop -d %d" % round(interval * 10)),
                    ("htop_pss", "htop -d %d, PSS column"
                     % round(interval * 10))):
    cpu[name] = ticks[name] / hz
    pct[name] = 100 * cpu[name] / wall[name]
    print("%-34s %8.2f %11.2f%%" % (label, cpu[name], pct[name]))
ui = ticks["exmtop_ui"] / hz
print("%-34s %8.2f %11.2f%%" % ("  of which exmtop's UI thread", ui,
                                100 * ui / wall["exmtop"]))
print("%-34s %8.2f %11.2f%%" % ("  of which snapshots (scan thread)",
                                cpu["exmtop"] - ui,
                                100 * (cpu["exmtop"] - ui) / wall["exmtop"]))
# ratios of the rates (each tool's own measured seconds)
rate = {n: max(pct[n], 100.0 / hz / wall[n]) for n in pct}
print("\nexmtop / top  %6.2fx" % (pct["exmtop"] / rate["top"]))
print("exmtop / htop %6.2fx" % (pct["exmtop"] / rate["htop"]))
print("exmtop / htop with PSS %6.2fx" % (pct["exmtop"] / rate["htop_pss"]))
print("targets: exmtop at most 1%% of one core: %s (%.2f%%); at most a "
      "quarter of htop with PSS: %s"
      % ("met" if pct["exmtop"] <= 1 else "MISSED", pct["exmtop"],
         "met" if pct["exmtop"] * 4 <= pct["htop_pss"] else "MISSED"))
print("idle penalty: a fixed burst of work (bench/idle.c) costs %.2f ms of "
      "CPU back to back, %.2f ms after %g s idle (%.2fx)%s"
      % (fast, slow, interval, slow / fast,
         "" if slow < 1.5 * fast else ": this machine inflates every "
         "tool's figures above, short bursts most"))
EOF

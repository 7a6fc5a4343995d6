# SPDX-License-Identifier: GPL-2.0-or-later
# guest-bench.sh - sourced by guest-init in bench mode (tests/kmod/run -b,
# bench/kmod.sh), on a workload of many processes with sparse reservations
# holding scattered pages, THP and shared memory. Sends (block "bench"):
#   time NAME WALL USER SYS     one run of a command, output to /dev/null
#   calls NRECS PROCS CALLS RECS PAGES MAXCALLS WALL USER SYS
#   smaps PROCS BYTES WALL USER SYS
#   nowalk MODE PROCS ZEROS WALL USER SYS
#                               the kernel's side alone (kmcheck)
#   live NAME CPU SECS          the live screen's CPU over SECS seconds
# and blocks "ldstats NAME" (LD_DEBUG=statistics) and "tsc" (its MHz).
# The host (check.py) prints best and median, per-refresh figures and the
# ratios. Rounds are interleaved so drift hits all alike.
nprocs=30 gib=16 rounds=5
# In a session of its own: smemstat skips every process whose process
# group is 0 (it takes them for kernel threads), which is what processes
# started by init without one have; it measured nothing before.
setsid workload "$nprocs" "$gib" 8 32 16 >/tmp/wl.out 2>&1 &
i=0
while ! grep -qs '^ready' /tmp/wl.out && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
if grep -qs '^ready' /tmp/wl.out; then res bench-workload PASS; else
	res bench-workload FAIL "$(cat /tmp/wl.out)"; fi
# every tool must see the workload
n=$(smemstat | grep -c workload)
[ "$n" -ge "$nprocs" ] && res bench-smemstat-sees PASS || res bench-smemstat-sees FAIL "smemstat lists $n workload processes"
n=$(exmtop -b --source kmod | grep -c workload)
[ "$n" -ge "$nprocs" ] && res bench-exmtop-sees PASS || res bench-exmtop-sees FAIL "exmtop lists $n workload processes"
say "BENCHINFO $nprocs processes, each: $gib GiB reservation with 16 scattered pages of its own and 16 shared, 8 MiB fork-shared anon (THP), 32 MiB shared memory; $(grep AnonHugePages /proc/meminfo | tr -s ' ')"
: >/tmp/bench
run() {
	kmcheck time "$@" >>/tmp/bench 2>&1 || say "BENCHFAIL $1"
}
scan=
exmtop -b --source pagemap --pagemap-mode scan -p 1 >/dev/null 2>&1 && scan=1
# the fork family's parent: the reservation read mode reads whole
wpid=$(sed -n 's/^pids \([0-9]*\).*/\1/p' /tmp/wl.out)
# Read mode's first snapshot reads one reservation of the fork family
# whole (the others are located): without PAGEMAP_SCAN the header says
# only the module avoids that (check.py).
exmtop -b --format json --source pagemap --pagemap-mode read >/tmp/j 2>&1
send "json bench pagemap:read" /tmp/j

# One full JSON snapshot, start-up included.
for r in $(seq $rounds); do
	run kmod exmtop -b --format json --source kmod
	run pagemap-read exmtop -b --format json --source pagemap --pagemap-mode read
	# the same on one thread (a source's first walk takes two): under
	# emulation a vCPU waiting on a lock the other holds spins at full
	# cost
	(export EXMTOP_THREADS=1; run pagemap-read-t1 exmtop -b --format json --source pagemap --pagemap-mode read)
	(export EXMTOP_THREADS=1; run kmod-t1 exmtop -b --format json --source kmod)
	if [ -n "$scan" ]; then
		run pagemap-scan exmtop -b --format json --source pagemap --pagemap-mode scan
		run pagemap-auto exmtop -b --format json --source pagemap
	fi
	run smemstat smemstat
	# what start-up and output cost alone: a snapshot of one small
	# process (--scan-pids; -p only filters what is printed, the walk
	# still covers every process), and a run that only starts and exits
	# (exec, dynamic linking, and under emulation the translation of
	# all the code it runs, afresh at every run with randomisation on)
	run kmod-scan1 exmtop -b --format json --source kmod --scan-pids 1
	run exmtop-start exmtop --version
	run smemstat-start smemstat -h
	# read mode's floor on a kernel without PAGEMAP_SCAN: a minimal
	# reader of every smaps and of the fork family's reservation whole
	# (pmfloor, dynamically linked like the tools)
	run floor-read pmfloor both "$wpid"
	run floor-pagemap pmfloor pagemap "$wpid"
done
say "BENCHINFO read mode's floor (pmfloor): $(pmfloor both "$wpid" | tr '\n' ';')"
# The same without address-space randomisation in the guest: the emulator
# keys the code it translated by virtual address, so with randomisation
# every run translates all the code it executes afresh (a cost of start-up
# under emulation that a real CPU does not have); without it, a run reuses
# the last run's translations, for every tool alike.
echo 0 >/proc/sys/kernel/randomize_va_space
for r in $(seq $rounds); do
	run kmod-noaslr exmtop -b --format json --source kmod
	run pagemap-read-noaslr exmtop -b --format json --source pagemap --pagemap-mode read
	(export EXMTOP_THREADS=1; run pagemap-read-t1-noaslr exmtop -b --format json --source pagemap --pagemap-mode read)
	run smemstat-noaslr smemstat
	run floor-read-noaslr pmfloor both "$wpid"
	run kmod-scan1-noaslr exmtop -b --format json --source kmod --scan-pids 1
done
echo 2 >/proc/sys/kernel/randomize_va_space

# Per refresh, start-up removed: 11 refreshes 1 s apart minus 1, the way a
# top-like tool runs. smemstat's periodic mode (1 s is its shortest delay)
# reads every process once more than its count, so "1 11" against "1 1".
# kmod and smemstat 5 rounds (their ratio is the close one), pagemap 3.
for r in $(seq $rounds); do
	modes=kmod
	[ "$r" -le 3 ] && modes="kmod pagemap-read ${scan:+pagemap-scan}"
	for s in $modes; do
		a="--source ${s%%-*}"
		[ "$s" = kmod ] || a="$a --pagemap-mode ${s#*-}"
		run "$s@1" exmtop -b $a -n 1 -d 1
		run "$s@11" exmtop -b $a -n 11 -d 1
	done
	run smemstat@1 smemstat 1 1
	run smemstat@11 smemstat 1 11
done

# The kernel's side alone, per pass over every process (kmcheck: the mean
# of 5 passes after a first): the module at 4096 records a call as exmtop
# asks, and 64 (many more calls) to see what a call costs; and reading
# every /proc/PID/smaps, which is what smemstat reads.
for r in 1 2; do
	kmcheck calls 4096 >>/tmp/bench 2>&1
	kmcheck calls 64 >>/tmp/bench 2>&1
	kmcheck smaps >>/tmp/bench 2>&1
	# a live refresh's call to find whether a process changed: ABI 5's,
	# with the zero pages counted (ABI 6), with the kernel's sums
	for m in plain zeros sums; do
		kmcheck nowalk $m >>/tmp/bench 2>&1
	done
done

# Dynamic linking at start-up (cycles at the TSC rate below).
for r in 1 2 3; do
	LD_DEBUG=statistics exmtop -b --format json --source kmod -p 1 2>&1 >/dev/null |
		sed -n 's/^ *[0-9]*: *//p' >/tmp/ld
	send "ldstats exmtop $r" /tmp/ld
	LD_DEBUG=statistics smemstat -p 1 2>&1 >/dev/null | sed -n 's/^ *[0-9]*: *//p' >/tmp/ld
	send "ldstats smemstat $r" /tmp/ld
done
dmesg | grep -i 'tsc.*MHz' >/tmp/tsc
send tsc /tmp/tsc

# The live screen on a 200x50 pseudo-terminal, 20 s at -d 2 after 6 s of
# start-up, against smemstat's top mode and busybox top at the same
# interval.
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
export TERM=xterm-256color
for s in kmod pagemap-read ${scan:+pagemap-scan}; do
	a="--source ${s%%-*}"
	[ "$s" = kmod ] || a="$a --pagemap-mode ${s#*-}"
	kmcheck pty "exmtop-$s" 6 20 exmtop -d 2 $a >>/tmp/bench 2>&1
done
kmcheck pty smemstat-T 6 20 smemstat -T 2 >>/tmp/bench 2>&1
kmcheck pty busybox-top 6 20 top -d 2 >>/tmp/bench 2>&1
send bench /tmp/bench
kill "$(sed -n 's/^pids \([0-9]*\).*/\1/p' /tmp/wl.out)" 2>/dev/null

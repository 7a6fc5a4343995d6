# SPDX-License-Identifier: GPL-2.0-or-later
# guest-bench.sh - sourced by guest-init in bench mode (tests/kmod/run -b,
# bench/kmod.sh): time one full snapshot of every process with each source
# and with smemstat, on a workload of many processes with sparse
# reservations holding scattered pages, THP and shared memory. Rounds are
# interleaved so drift hits all alike. Sends "time NAME WALL USER SYS"
# lines (block "bench"); the host prints best and median and the ratios.
nprocs=30 gib=16 rounds=3
workload "$nprocs" "$gib" 8 32 16 >/tmp/wl.out 2>&1 &
i=0
while ! grep -qs '^ready' /tmp/wl.out && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
if grep -qs '^ready' /tmp/wl.out; then res bench-workload PASS; else
	res bench-workload FAIL "$(cat /tmp/wl.out)"; fi
say "BENCHINFO $nprocs processes, each: $gib GiB reservation with 16 scattered pages of its own and 16 shared, 8 MiB fork-shared anon (THP), 32 MiB shared memory; $(grep AnonHugePages /proc/meminfo | tr -s ' ')"
: >/tmp/bench
run() {
	kmcheck time "$@" >>/tmp/bench 2>&1 || say "BENCHFAIL $1"
}
for r in $(seq $rounds); do
	run kmod exmtop -b --format json --source kmod
	run pagemap-read exmtop -b --format json --source pagemap --pagemap-mode read
	if exmtop -b --source pagemap --pagemap-mode scan -p 1 >/dev/null 2>&1; then
		run pagemap-scan exmtop -b --format json --source pagemap --pagemap-mode scan
		run pagemap-auto exmtop -b --format json --source pagemap
	fi
	run smemstat smemstat
	# what start-up and output cost alone: one small process
	run kmod-1proc exmtop -b --format json --source kmod -p 1
done
send bench /tmp/bench
kill "$(sed -n 's/^pids \([0-9]*\).*/\1/p' /tmp/wl.out)" 2>/dev/null

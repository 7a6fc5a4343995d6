# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/workload.sh - sourced by the benchmarks: build and start the
# workload of bench/workload.c (NPROCS processes, each with a RESERVE GiB
# reservation, ANON MiB of fork-shared anonymous memory and SHM MiB of
# shared memory, SCATTER pages written in the reservation), and stop it.
# Uses SRCDIR, TMP, NPROCS, RESERVE, ANON, SHM, SCATTER; sets WL_PID. Its
# output ("pids ...", "ready") is in $TMP/wl.out.

WL_PID=

# The workloads by name (-w NAME), as NAME NPROCS RESERVE ANON SHM SCATTER:
#   bench     the default: 100 processes, 64 GiB reservations, 32 MiB
#             fork-shared anonymous memory, 128 MiB shared memory
#   resident  resident-heavy: 21 processes sharing 4 GiB copy-on-write
#   many      2,000 small processes
#   sparse    21 processes, each a 1 TiB reservation holding one page
#             written per GiB (1,024, fork-shared) and 1,024 of its own
#   sparse-own  the same, but the reservation holds only the 1,024 pages
#             of its own (read mode counts them: nothing shared there)
#   heap      one process holding 8 GiB of anonymous memory of its own (a
#             database's or a JVM's heap; on transparent huge pages where
#             THP is `always`, Debian's kernels' default): auto mode
#             counts its pages mapped once rather than keep their words
WORKLOADS="bench 100 64 32 128 0
resident 21 1 4096 1 0
many 2000 1 1 1 0
sparse 21 1024 8 8 1024
sparse-own 21 1024 8 8 -1024
heap 1 1 8192 1 0"

# workload_opts SPEC HELP "$@": the options of a benchmark. The workload's
# own, -w NAME (see WORKLOADS) or -n NPROCS -g RESERVE_GIB -a
# SHARED_ANON_MIB -s SHM_MIB -S SCATTER (defaults: bench), are set here
# (WORKLOAD is the name, or "custom"); the others of getopts SPEC (e.g.
# "r:R") go to the script's function bench_opt LETTER [OPTARG]. -h or a
# bad option prints the script's comment lines HELP (a sed range, e.g.
# 3,17) and exits 2; so does an unknown workload name.
workload_opts() {
	local spec=$1 help=$2 opt OPTIND=1 line
	shift 2
	WORKLOAD=bench NPROCS=100 RESERVE=64 ANON=32 SHM=128 SCATTER=0
	while getopts "w:n:g:a:s:S:${spec}h" opt; do
		case $opt in
		w) line=$(echo "$WORKLOADS" | grep "^$OPTARG ") || {
			echo "$(basename "$0"): no workload '$OPTARG'" \
				"($(echo "$WORKLOADS" | cut -d' ' -f1 | tr '\n' ' '))" >&2
			exit 2; }
		   read -r WORKLOAD NPROCS RESERVE ANON SHM SCATTER <<<"$line" ;;
		n) NPROCS=$OPTARG WORKLOAD=custom ;;
		g) RESERVE=$OPTARG WORKLOAD=custom ;;
		a) ANON=$OPTARG WORKLOAD=custom ;;
		s) SHM=$OPTARG WORKLOAD=custom ;;
		S) SCATTER=$OPTARG WORKLOAD=custom ;;
		h | \?) sed -n "${help}s/^# \{0,1\}//p" "$0"; exit 2 ;;
		*) bench_opt "$opt" "${OPTARG:-}" ;;
		esac
	done
}

# Start it and wait until it says ready; exits the script if it cannot.
workload_start() {
	${CC:-cc} -O2 -Wall -Wextra -o "$TMP/workload" "$SRCDIR/workload.c"
	echo "workload $WORKLOAD: $NPROCS processes, each with a ${RESERVE} GiB" \
		"reservation ($SCATTER pages written), ${ANON} MiB fork-shared" \
		"anon, ${SHM} MiB shared memory"
	"$TMP/workload" "$NPROCS" "$RESERVE" "$ANON" "$SHM" "$SCATTER" \
		>"$TMP/wl.out" &
	WL_PID=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$TMP/wl.out" 2>/dev/null && break
		kill -0 "$WL_PID" 2>/dev/null || { echo "workload died" >&2; exit 1; }
		sleep 0.1
	done
	grep -q '^ready' "$TMP/wl.out" || { echo "workload not ready" >&2; exit 1; }
}

# Stop it if it runs (for the scripts' exit traps).
workload_stop() {
	if [ -n "$WL_PID" ] && kill -0 "$WL_PID" 2>/dev/null; then
		kill -TERM "$WL_PID" 2>/dev/null || true
		wait "$WL_PID" 2>/dev/null || true
	fi
}

# For a benchmark: a scratch directory TMP, removed on exit with the
# workload stopped; then the workload, started; then the machine it runs on.
workload_bench() {
	TMP=$(mktemp -d /tmp/exm-bench.XXXXXX)
	trap 'workload_stop; rm -rf "$TMP"' EXIT
	trap 'exit 130' INT TERM HUP
	workload_start
	echo "machine: $(uname -r), $(nproc) CPUs, $(ls /proc | grep -c '^[0-9]') processes in total"
}

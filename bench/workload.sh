# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/workload.sh - sourced by the benchmarks: build and start the
# workload of bench/workload.c (NPROCS processes, each with a RESERVE GiB
# reservation, ANON MiB of fork-shared anonymous memory and SHM MiB of
# shared memory), and stop it. Uses SRCDIR, TMP, NPROCS, RESERVE, ANON,
# SHM; sets WL_PID. Its output ("pids ...", "ready") is in $TMP/wl.out.

WL_PID=

# workload_opts SPEC HELP "$@": the options of a benchmark. The workload's
# own, -n NPROCS -g RESERVE_GIB -a SHARED_ANON_MIB -s SHM_MIB (defaults 100,
# 64, 32, 128), are set here; the others of getopts SPEC (e.g. "r:R") go to
# the script's function bench_opt LETTER [OPTARG]. -h or a bad option
# prints the script's comment lines HELP (a sed range, e.g. 3,17) and exits
# 2.
workload_opts() {
	local spec=$1 help=$2 opt OPTIND=1
	shift 2
	NPROCS=100 RESERVE=64 ANON=32 SHM=128
	while getopts "n:g:a:s:${spec}h" opt; do
		case $opt in
		n) NPROCS=$OPTARG ;;
		g) RESERVE=$OPTARG ;;
		a) ANON=$OPTARG ;;
		s) SHM=$OPTARG ;;
		h | \?) sed -n "${help}s/^# \{0,1\}//p" "$0"; exit 2 ;;
		*) bench_opt "$opt" "${OPTARG:-}" ;;
		esac
	done
}

# Start it and wait until it says ready; exits the script if it cannot.
workload_start() {
	${CC:-cc} -O2 -Wall -Wextra -o "$TMP/workload" "$SRCDIR/workload.c"
	echo "workload: $NPROCS processes, each with a ${RESERVE} GiB reservation," \
		"${ANON} MiB fork-shared anon, ${SHM} MiB shared memory"
	"$TMP/workload" "$NPROCS" "$RESERVE" "$ANON" "$SHM" >"$TMP/wl.out" &
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

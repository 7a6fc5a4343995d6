# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/workload.sh - sourced by the benchmarks: build and start the
# workload of bench/workload.c (NPROCS processes, each with a RESERVE GiB
# reservation, ANON MiB of fork-shared anonymous memory and SHM MiB of
# shared memory), and stop it. Uses SRCDIR, TMP, NPROCS, RESERVE, ANON,
# SHM; sets WL_PID. Its output ("pids ...", "ready") is in $TMP/wl.out.

WL_PID=

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

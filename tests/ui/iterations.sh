#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

# -n 3 -d 1: three snapshots a second apart, shown, then exit 0 by itself:
# at least 2 s after the start (fewer snapshots would exit sooner), within
# 8 s (more would not exit: expect_exit waits 5 s)
t_iterations() {
	local t0 ms
	t0=$(date +%s%N)
	start 80 24 -- --source fixture:basic -d 1 -n 3
	expect "7 procs"
	expect_row 1 "$PH" '^302 postgres +336K +288K +104K '
	expect_exit 0
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -ge 2000 ] || fail "exited after $ms ms: fewer than 3 snapshots"
}

run_case iterations

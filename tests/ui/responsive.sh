#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_responsive() {
	local t0 t1
	# every snapshot after the first takes 3 s (fixture "slow")
	start 80 24 -- --source fixture:slow -d 60
	expect "7 procs"
	keys Space
	expect "scanning..." 2
	t0=$(date +%s%N)
	keys Down Down
	expect "[3/7]" 2
	t1=$(date +%s%N)
	# the keys were handled during the scan, well before it ended
	screen | grep -qF "scanning..." || fail "scan ended before the keys"
	[ $(( (t1 - t0) / 1000000 )) -lt 1500 ] ||
		fail "keys took $(( (t1 - t0) / 1000000 )) ms during a scan"
	keys q				# quitting does not wait for the scan
	t0=$(date +%s%N)
	expect_exit 0
	t1=$(date +%s%N)
	[ $(( (t1 - t0) / 1000000 )) -lt 1500 ] ||
		fail "quit waited $(( (t1 - t0) / 1000000 )) ms for the scan"
}


run_case responsive

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_idle_cpu() {
	local a b
	# scans (3 s) longer than the interval (1 s), a prompt open and an
	# expired message: the UI thread must still sleep, not spin
	start 80 24 -- --source fixture:slow -d 1
	expect "7 procs"
	keys c /
	expect "Search:"
	sleep 3.5
	a=$(ui_ticks)
	sleep 3
	b=$(ui_ticks)
	[ $((b - a)) -lt 10 ] ||
		fail "UI thread used $((b - a)) ticks in 3 s while idle"
	keys Escape q
	expect_exit 0
}

run_case idle_cpu

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_first_keys() {
	local k
	# the first snapshot takes 2 s (fixture "slowstart"); each key in a
	# fresh exmtop, so that each one's message is its own
	for k in Enter e; do
		start 80 24 -- --source fixture:slowstart
		expect "taking the first snapshot..."
		keys "$k"		# nothing to enter yet: it says so
		expect "no snapshot yet" 1
	done
	expect_row 1 "$PH" '^302 ' 5
	keys Enter			# now postgres 302 -> its files
	expect "(302)"
	keys q
	expect_exit 0
}

run_case first_keys

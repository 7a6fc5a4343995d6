#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_sort() {
	start 80 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 '
	keys r			# reverse: smallest effective resident first
	expect "EFF.RES▲"
	expect_row 1 "$PH" '^400 '
	keys '<'		# sort by the column left of EFF.RES: RES
	expect "RES▼"
	expect_row 1 "$PH" '^302 '
	expect_row 7 "$PH" '^400 '
	keys o			# sort menu: first entry is PID
	expect "Sort by"
	keys Home Enter
	expect "PID▲"
	expect_row 1 "$PH" '^1 root'
	expect_row 7 "$PH" '^400 '
	keys '>'		# next column: USER (ascending)
	expect "USER▲"
	expect_row 1 "$PH" '^(200|201) alice'
	keys q
	expect_exit 0
}

run_case sort

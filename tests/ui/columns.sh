#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_columns() {
	start 80 24 -- --source fixture:basic
	expect "    PID USER"
	keys f
	expect "Columns of processes"
	expect "[x] PID"
	keys Space			# PID off
	expect "[ ] PID"
	keys Escape
	expect_not "PID"
	expect_row 1 '^USER' '^postgres'
	keys q
	expect_exit 0
	# not saved: nothing written without W
	[ -e "$WORK/home/.config/exmtop/exmtoprc" ] &&
		fail "settings written without W"
	return 0
}

run_case columns

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_mouse() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	click 4 3			# the PID header sorts by pid
	expect "PID▲"
	expect_row 1 "$PH" '^1 root'
	click 4 3			# again: reversed
	expect "PID▼"
	expect_row 1 "$PH" '^400 alice'
	click 10 6			# third row
	expect "[3/7]"
	click 10 7 2			# double click: into the 4th row
	expect "Processes > postgres (300)"
	click 2 23			# F1 on the function bar
	expect "drill down"
	keys q q
	expect_exit 0
}

run_case mouse

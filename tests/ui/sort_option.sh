#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_sort_option() {
	start 80 24 -- --source fixture:basic -o -pid
	expect "PID▲"
	expect_row 1 "$PH" '^1 root'
	keys q
	expect_exit 0
}

run_case sort_option

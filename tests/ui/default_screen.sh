#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_default_screen() {
	start 80 24 -- --source fixture:basic
	expect "source: fixture (basic)"
	expect "7 procs"
	expect "EFF.RES▼"
	expect "Processes"
	expect_row 1 "$PH" '^302 postgres .* postgres$'
	expect_row 6 "$PH" '^1 root '
	expect_row 7 "$PH" '^400 alice '
	[ "$(nrows "$PH")" = 7 ] || fail "expected 7 rows, got $(nrows "$PH")"
	expect "F1Help"
	keys q
	expect_exit 0
}

run_case default_screen

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_scroll_many() {
	start 80 24 -- --source fixture:many -o pid
	expect "[1/2000]"
	# 24 lines: 4 above the table, 2 below, 18 rows a page: two pages
	# down is row 37, on a page that starts at row 19, pid 1018 (the
	# fixture's pids are 1000 up)
	keys PageDown PageDown
	expect "[37/2000]"
	expect_row 1 "$PH" '^1018 '
	keys End
	expect "[2000/2000]"
	expect_row 1 "$PH" '^[0-9]+ '
	keys Home
	expect "[1/2000]"
	keys q
	expect_exit 0
}

run_case scroll_many

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_files_pane() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys Tab
	expect "Files"
	expect_row 1 "$FH" '^shmem +3 .*/SYSV00000000$'
	expect_row 2 "$FH" '^file +6 .*libc.so.6$'
	keys Enter			# file -> its page strip
	expect "Files > /SYSV00000000: pages"
	keys Enter			# -> the processes mapping it
	expect "Files > /SYSV00000000: pages > /SYSV00000000"
	expect_row 1 "$PH" '^302 postgres'
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 processes"
	keys Tab			# the processes pane kept its place
	expect_not "Files >"
	expect "[1/7]"
	keys Tab
	expect "Files > /SYSV00000000"
	keys q
	expect_exit 0
}

run_case files_pane

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_drill_down() {
	start 80 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 '
	keys Down Down Down Enter	# bash 201 -> its files
	expect "Processes > bash (201)"
	expect_row 1 "$FH" '^anon +1 +2 .*\[anon\]$'
	expect_row 2 "$FH" 'libc\.so\.6$'
	expect_row 3 "$FH" '\[stack\]$'
	keys Down Enter			# libc -> its mappings in 201
	expect "bash (201) > /usr/lib/x86_64-linux-gnu/libc.so.6: mappings"
	expect_row 1 '^ +ADDRESS' '^7f0000008000 rw-p +8000 '
	expect_row 2 '^ +ADDRESS' '^7f0000000000 r-xp +0 '
	keys BSpace			# back: libc still selected
	expect_not "mappings"
	expect "[2/3]"
	keys Left
	expect_not "bash (201)"
	expect "[4/7]"			# and 201 still selected
	keys Escape
	expect "Processes"
	keys q
	expect_exit 0
}

run_case drill_down

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): Enter on a file in the Files
# pane opens its page strip across processes (by file offset, one
# character a page: the number of processes with it resident), with its
# segments; Enter there lists the processes mapping it; an anonymous kind
# has no strip and opens its processes at once.
. "$(dirname "$0")/lib.sh"

t_file_strip() {
	start 100 24 -- --source fixture:basic --files
	expect_row 2 "$FH" '^file +6 .*libc.so.6$'
	keys Down Enter
	expect "Files > /usr/lib/x86_64-linux-gnu/libc.so.6: pages"
	expect "6 processes map it: 10 pages of 10 mapped, 10 resident"
	expect "segments: 0-8000 r-xp  8000-a000 rw-p"
	# text: 2 pages in all six, 2 in three (postgres), 2 in one; data:
	# the same as batch --pagemap FILE prints (golden basic-filestrip.txt)
	expect "               0 6666331166"
	expect_row 1 "$FH" '^file +6 .*libc.so.6$'
	keys Enter			# -> the processes mapping it
	expect "libc.so.6: pages > /usr/lib/x86_64-linux-gnu/libc.so.6"
	[ "$(nrows "$PH")" = 6 ] || fail "expected 6 processes"
	keys BSpace BSpace
	expect_not ": pages"
	keys /				# an anonymous kind
	typed '[heap]'
	keys Enter Enter
	expect "Files > [heap]"
	expect_not ": pages"
	keys q
	expect_exit 0
}

run_case file_strip

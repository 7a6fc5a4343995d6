#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): Enter on a mapping opens its
# page strip, a view that draws itself (view_strip.c) and scrolls with its
# own keys.
. "$(dirname "$0")/lib.sh"

t_page_strip() {
	start 100 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 '
	keys End			# worker 400
	expect "[7/7]"
	keys Enter
	expect "Processes > worker (400)"
	keys Home Enter			# its biggest file: the memfd
	expect "/memfd:ring (deleted): mappings"
	keys Home Enter			# a mapping of it
	expect ": pages"
	expect "4 pages: 4 resident, 0 swapped"
	# mapped twice by one process: one process a page
	expect "000000 1111"
	keys BSpace
	expect_not ": pages"
	keys BSpace BSpace Home Enter	# postgres 302 > its files
	expect "Processes > postgres (302)"
	keys Home Enter			# the biggest: shared memory
	expect "/SYSV00000000: mappings"
	keys Enter
	expect "72 pages: 64 resident, 8 swapped"
	expect "         3000000 3333333333333333333333333333333333333333333333333333333333333333"
	expect "         3040000 ssssssss"
	keys q
	expect_exit 0
}

run_case page_strip

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_filter() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	typed '\'
	expect "Filter:"
	typed alice
	expect "[1/3]"			# narrows live, while typing
	keys Enter
	expect "filter:alice"
	expect_row 1 "$PH" '^201 alice'
	expect_row 3 "$PH" '^400 alice'
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 rows"
	keys F4 C-u
	typed checkpointer		# matches the command line
	keys Enter
	expect "filter:checkpointer"
	[ "$(nrows "$PH")" = 2 ] || fail "expected 2 rows"
	keys F4 Escape			# Esc clears
	expect "/7]"
	expect_not "filter:"
	typed '\'
	typed zzz
	keys Enter
	expect "(no rows match the filter)"
	keys q
	expect_exit 0
}

run_case filter

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_typeahead() {
	# keys typed in one burst, across a refresh and a change of view,
	# all act on the rows they are meant for
	start 80 24 -- --source fixture:basic -d 0.3
	expect "[1/7]"
	keys Down Enter
	expect "Processes > postgres (301)"
	sleep 1				# a few refreshes below
	keys BSpace Down Enter
	expect "Processes > postgres (300)"
	keys Escape Tab Enter
	expect "Files > /SYSV00000000"
	keys q
	expect_exit 0
}

run_case typeahead

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): a terminal type that cannot
# address the cursor (TERM=dumb) gets one line saying to use -b and exit
# status 2, not a blank screen until q; the terminal is left as it was.
. "$(dirname "$0")/lib.sh"

t_dumb_term() {
	local term
	for term in dumb no-such-terminal-type; do
		# wide enough for the line not to wrap
		start 200 24 TERM=$term -- --source fixture:basic
		expect "(use -b for batch output)"
		expect "EXIT=2"
		[ "$(screen | grep -c 'exmtop:')" = 1 ] ||
			fail "TERM=$term: not one line"
		expect_exit 2
	done
	# a terminal that can: the screen
	start 80 24 TERM=vt100 -- --source fixture:basic
	expect "Processes"
	keys q
	expect_exit 0
}

run_case dumb_term

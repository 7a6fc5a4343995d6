#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): in a replay, p plays on: the
# next snapshot comes by itself after the interval, and p again stops.
. "$(dirname "$0")/lib.sh"

t_replay_play() {
	record_fixtures "$WORK/two.exmrec"
	"$EXMTOP" --record "$WORK/two.exmrec" --source fixture:basic -n 1 ||
		fail "recording a third snapshot"
	start 100 24 -- --replay "$WORK/two.exmrec" -d 0.5
	expect "[1/3]"
	# stepping waits for a key: still the first after two intervals
	sleep 1.2
	screen | grep -qF "[1/3]" || fail "a replay moved by itself before p"
	keys p
	expect "[2/3]" 3
	expect_row 1 "$PH" '^508 '
	expect "[3/3]" 3
	expect_row 1 "$PH" '^302 '
	keys q
	expect_exit 0
}

run_case replay_play

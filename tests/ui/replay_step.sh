#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): a replay of a recording of two
# snapshots (fixture:basic, then fixture:hostile) starts on the first with
# its index in the header, and [ ] { } step back and forth; the rows are
# each snapshot's.
. "$(dirname "$0")/lib.sh"

t_replay_step() {
	local rec=$WORK/two.exmrec

	record_fixtures "$rec"
	start 100 24 -- --replay "$rec" --fields pid,erss,comm
	expect "[1/2]"
	expect "replay 1/2 of"
	expect_row 1 "$PH" '^302 +104K +postgres$'
	keys ']'
	expect "[2/2]"
	expect_row 1 "$PH" '^508 +11K +osc'
	keys ']'
	expect "the last snapshot of the recording"
	keys '['
	expect "[1/2]"
	expect_row 1 "$PH" '^302 +104K +postgres$'
	keys '}'
	expect "[2/2]"
	expect_row 9 "$PH" '^500 +455 +evil'
	keys '{'
	expect "[1/2]"
	expect_row 7 "$PH" '^400 +28K +worker$'
	keys q
	expect_exit 0
}

run_case replay_step

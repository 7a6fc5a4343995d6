#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): the system view (key S) of a
# replay is built from the /proc/meminfo recorded with each snapshot, and
# follows the snapshot as [ ] step. The recording: two snapshots of schema
# 1 (tests/golden/basic-v1.sql: before meminfo was recorded; their view
# says so), then two of fixture:basic appended (the file is upgraded), the
# last one's MemFree lowered by 320 MiB (its unexplained row grows by as
# much: 72M -> 392M).
. "$(dirname "$0")/lib.sh"

t_replay_system() {
	local rec=$WORK/sys.exmrec

	sqlite3 "$rec" <"$(dirname "$0")/../golden/basic-v1.sql" &&
		"$EXMTOP" --record "$rec" --source fixture:basic -n 2 -d 0.1 &&
		sqlite3 "$rec" "UPDATE meminfo SET value = 4194304
			WHERE key = 'MemFree' AND snapshot = 4" ||
		fail "making the recording"
	start 120 30 -- --replay "$rec"
	expect "[1/4]"
	keys S
	expect "Processes > System"
	expect "recorded before exmtop kept /proc/meminfo (recording schema 1)"
	keys ']'
	expect "[2/4]"
	expect "recorded before exmtop kept /proc/meminfo (recording schema 1)"
	keys ']'
	expect "[3/4]"
	expect_not "recorded before exmtop kept"
	expect "user_space                496K pages mapped by scanned processes"
	expect "free                      4.3G free memory (MemFree)"
	expect "unexplained                72M MemTotal less every row above"
	keys ']'
	expect "[4/4]"
	expect "free                      4.0G free memory (MemFree)"
	expect "unexplained               392M MemTotal less every row above"
	expect "user_space                496K pages mapped by scanned processes"
	keys '['
	expect "[3/4]"
	expect "free                      4.3G free memory (MemFree)"
	expect "unexplained                72M MemTotal less every row above"
	keys '{'
	expect "[1/4]"
	expect "recorded before exmtop kept /proc/meminfo (recording schema 1)"
	keys q
	expect_exit 0
}

run_case replay_system

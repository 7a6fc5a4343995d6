#!/usr/bin/env bash
# Screen test of the live UI (see lib.sh): delta mode. D shows every size
# as its growth since the baseline (0 on the baseline itself); on a replay
# stepped to a snapshot with other processes, they are new and grew by all
# they have (fixture:hostile's exact figures); B makes the snapshot on
# screen the baseline; D again shows the sizes themselves.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/lib.sh"

t_delta_mode() {
	local rec=$WORK/two.exmrec

	record_fixtures "$rec"
	start 100 24 -- --replay "$rec" --fields pid,change,rss,erss,comm \
		--bytes
	expect_row 1 "$PH" '^302 +- +294912 +106496 +postgres$'
	keys D
	expect "delta since"
	expect_row 1 "$PH" '^400 +same +\+0 +\+0 +worker$'
	expect_row 2 "$PH" '^302 +same +\+0 +\+0 +postgres$'
	keys ']'
	expect "[2/2]"
	expect_row 1 "$PH" '^508 +new +\+36864 +\+11587\.45 +osc'
	expect_row 9 "$PH" '^500 +new +\+4096 +\+455\.11 +evil'
	keys B
	expect_row 1 "$PH" '^508 +same +\+0 +\+0 +osc'
	keys D
	expect "delta mode off"
	expect_row 1 "$PH" '^508 +- +36864 +11587\.45 +osc'
	keys q
	expect_exit 0
}

run_case delta_mode

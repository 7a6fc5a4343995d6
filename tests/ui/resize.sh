#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_resize() {
	start 200 50 -- --source fixture:many
	expect "2000 procs"
	expect "[1/2000]"
	keys End
	expect "[2000/2000]"
	$T resize-window -t t -x 20 -y 5
	wait_for "[2000/" 2 || fail "no position at 20x5"
	[ "$(screen | wc -l)" -le 5 ] || fail "more than 5 lines"
	screen | grep -q . || fail "empty screen at 20x5"
	$T resize-window -t t -x 80 -y 24
	expect "[2000/2000]"
	expect "F1Help"
	$T resize-window -t t -x 1 -y 1
	sleep 0.3
	$T resize-window -t t -x 30 -y 3
	sleep 0.3
	$T resize-window -t t -x 200 -y 50
	expect "2000 procs"
	keys Home
	expect "[1/2000]"
	keys PageDown
	expect "[45/2000]"	# one page further: 50 lines, 44 rows a page
	keys q
	expect_exit 0
}

run_case resize

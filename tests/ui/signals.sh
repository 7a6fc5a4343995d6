#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_signals() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys C-c
	expect_exit 130
	start 80 24 -- --source fixture:basic
	expect "Processes"
	kill -TERM "$(cat "$WORK/pid")"
	expect_exit 143
	start 80 24 -- --source fixture:basic
	expect "Processes"
	kill -HUP "$(cat "$WORK/pid")"
	expect_exit 129
	# every signal that ends the program restores the terminal: out of
	# the alternate screen, mouse reporting off (expect_exit)
	local sig num
	for sig in QUIT USR1 USR2 ALRM VTALRM PROF IO PWR XCPU; do
		num=$(kill -l "$sig")
		start 80 24 -- --source fixture:basic
		expect "Processes"
		kill -"$sig" "$(cat "$WORK/pid")"
		expect_exit $((128 + num))
	done
	# a crash restores the terminal too, then dies of its signal
	start 80 24 -- --source fixture:basic
	expect "Processes"
	kill -SEGV "$(cat "$WORK/pid")"
	expect_exit 139
}

run_case signals

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_tiny_start() {
	start 20 5 -- --source fixture:basic
	expect "Processes"
	expect "PID"
	# Enter before the first snapshot only says so: wait for the rows
	expect "302 postgres"
	keys Enter
	expect "(302)"
	keys h
	expect "exmtop - what"
	keys x q
	expect_exit 0
}

run_case tiny_start

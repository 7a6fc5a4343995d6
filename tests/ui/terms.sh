#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_terms() {
	local term
	for term in xterm-256color screen tmux linux vt100; do
		start 80 24 TERM=$term -- --source fixture:basic
		expect "Processes"
		expect_row 1 "$PH" '^302 postgres'
		keys Down Enter
		expect "Processes > postgres (301)"
		keys q
		expect_exit 0
	done
}

run_case terms

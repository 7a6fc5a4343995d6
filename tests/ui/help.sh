#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_help() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys h
	expect "exmtop - what each process really costs"
	expect "drill down"
	keys x
	expect "F1Help"
	keys '?'
	expect "back up the breadcrumb"
	keys Escape
	expect "F1Help"
	keys F1
	expect "choose the sort column"
	keys Space
	expect "F1Help"
	keys q
	expect_exit 0
}

run_case help

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_files_option() {
	start 80 24 -- --source fixture:basic --files
	expect "Files"
	expect_row 1 "$FH" '/SYSV00000000$'
	keys q
	expect_exit 0
}

run_case files_option

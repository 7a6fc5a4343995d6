#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): the report keys (tui_keys[]
# entries with .report) open the analyses over the table area, with the
# same text batch mode prints (golden basic-*.text), scroll with the
# arrow keys, and Backspace returns; a second report key replaces the
# first; --alerts without -b opens the live screen on the alerts.
. "$(dirname "$0")/lib.sh"

t_report_keys() {
	start 150 12 -- --source fixture:basic
	expect "[1/7]"
	keys U
	expect "Processes > Executable units"
	expect "FILE                                PROCS ELF         TEXT.VM"
	expect "/usr/lib/x86_64-linux-gnu/libc.so.6     6 permissions    192K     128K      32K     48K      48K      48K"
	keys K				# replaces the units
	expect "Processes > Breakdown"
	expect_not "Executable units"
	expect "300 postgres     0 8.0K   2.7K   8.0K     0      0      0     0    0   85K  16K   272K    104K"
	expect_not "400 worker"		# below the screen's 12 lines
	keys End			# scrolled to the end: the header stays
	expect "400 worker       0    0      0      0     0      0      0     0    0   28K  12K    32K     28K"
	expect "PID COMMAND  STACK HEAP P.TEXT"
	expect_not "300 postgres"
	keys Home
	expect "300 postgres"
	keys S
	expect "Processes > System"
	# the fixture's own /proc/meminfo (golden basic-system.text)
	expect "user_space                496K pages mapped by scanned processes (exact)"
	keys A
	expect "Processes > Alerts"
	expect "note: 0 alerts"
	# the fixture repeats itself: from the second refresh growth is
	# checked, and nothing grew
	keys Space
	expect_not "anon-growth not checked" 8
	expect "note: 0 alerts"
	keys BSpace
	expect_not "Alerts"
	expect "[1/7]"
	keys q
	expect_exit 0
	start 150 12 -- --source fixture:basic --alerts
	expect "Processes > Alerts"
	keys q
	expect_exit 0
}

run_case report_keys

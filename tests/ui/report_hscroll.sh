#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): a report wider than the screen
# (the executable units, ~140 columns and a longer note, in 80) scrolls
# left and right by half a screen: Shift-Right or L, and Right (nothing to
# open in a report); Shift-Left or H, and Left, which leaves the report
# only once its first column is back on screen. The title and the column
# header scroll with the rows.
. "$(dirname "$0")/lib.sh"

LIBC_ROW="/usr/lib/x86_64-linux-gnu/libc.so.6     6 permissions    192K"

t_report_hscroll() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	keys U
	expect "Processes > Executable units"
	expect "$LIBC_ROW"
	expect_not "BSS.EFF"		# beyond the 80 columns
	keys L				# 40 columns right
	expect "S ELF         TEXT.VM TEXT.RES"	# PROCS cut at column 40
	expect "6 permissions    192K"
	expect_not "$LIBC_ROW"
	expect_not "BSS.EFF"		# still beyond
	keys Right			# Right scrolls too: 80 columns
	expect "DATA.VM DATA.RES DATA.EFF BSS.VM BSS.RES BSS.EFF EFF.RES"
	expect "    48K      48K      48K      0       0       0     80K"
	keys Right Right Right		# stops at the widest line's end (103)
	expect "FF BSS.VM BSS.RES BSS.EFF EFF.RES"
	expect "the data segment; ELF 'permissions': split by mapping permissions"
	keys S-Left			# back 40
	expect_not "split by mapping permissions"
	keys H H H			# stops at the first column
	expect "$LIBC_ROW"
	expect "Processes > Executable units"
	keys L
	expect_not "$LIBC_ROW"
	keys Left			# scrolled: Left scrolls back first
	expect "$LIBC_ROW"
	expect "Processes > Executable units"
	keys Left			# at the first column: leaves
	expect_not "Executable units"
	expect "[1/7]"
	keys q
	expect_exit 0
}

run_case report_hscroll

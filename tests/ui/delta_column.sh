#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): the delta column (+EFF.RES,
# growth of effective resident since the previous refresh) is "-" until a
# second snapshot, then compares rows by identity (the fixture does not
# change: 0).
. "$(dirname "$0")/lib.sh"

t_delta_column() {
	start 80 24 -- --source fixture:basic -d 60 --fields pid,erss,derss,comm
	expect "+EFF.RES"
	expect_row 1 "$PH" '^302 +104K +- +postgres$'
	keys Space
	expect_row 1 "$PH" '^302 +104K +0 +postgres$'
	expect_row 7 "$PH" '^400 +28K +0 +worker$'
	keys q
	expect_exit 0
}

run_case delta_column

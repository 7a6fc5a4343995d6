#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_bad_source() {
	# a bad --source is a bad option value: 2, as in batch mode
	start 80 24 -- --source fixture:nope
	expect_exit 2
	expect "unknown fixture"
}

run_case bad_source

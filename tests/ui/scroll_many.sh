#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_scroll_many() {
	start 80 24 -- --source fixture:many -o pid
	expect "[1/2000]"
	keys PageDown PageDown
	expect "[3"
	keys End
	expect "[2000/2000]"
	expect_row 1 "$PH" '^[0-9]+ '
	keys Home
	expect "[1/2000]"
	keys q
	expect_exit 0
}

run_case scroll_many

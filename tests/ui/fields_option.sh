#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_fields_option() {
	start 80 24 -- --source fixture:basic --fields pid,erss,pss,cmd
	expect "Processes"
	screen | grep -qE '^ +PID +EFF.RES▼ +PSS +COMMAND' ||
		fail "columns are not pid,erss,pss,cmd"
	keys q
	expect_exit 0
	start 80 24 -- --source fixture:basic --fields pid,bogus
	expect_exit 2
	expect "unknown field 'bogus'"
}

run_case fields_option

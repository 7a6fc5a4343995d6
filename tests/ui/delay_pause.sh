#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_delay_pause() {
	start 80 24 -- --source fixture:basic -d 0.5
	expect "every 0.5s"
	keys d
	expect "Delay in seconds:"
	typed 7
	keys Enter
	expect "every 7s"
	keys p
	expect "[paused]"
	keys p
	expect_not "[paused]"
	keys Space
	expect "every 7s"
	keys q
	expect_exit 0
}

run_case delay_pause

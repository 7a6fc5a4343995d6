#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_full_command() {
	start 160 24 -- --source fixture:basic
	expect_row 1 "$PH" ' postgres$'
	keys c
	expect "postgres: checkpointer"
	expect "-D /var/lib/postgresql/15/main"
	keys c
	expect_not "checkpointer"
	keys q
	start 120 24 -- --source fixture:basic -c
	expect "postgres: checkpointer"
	keys q
	expect_exit 0
}

run_case full_command

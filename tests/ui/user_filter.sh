#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_user_filter() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	keys u
	expect "Show processes of"
	expect "(all users)"
	keys Down Enter			# users sorted: alice first
	expect "user:alice"
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 rows"
	keys u Home Enter
	expect_not "user:"
	expect "[4/7]"			# still on 201, now row 4 of 7
	keys q
	start 80 24 -- --source fixture:basic -u postgres
	expect "user:postgres"
	expect "[1/3]"
	keys q
	expect_exit 0
}

run_case user_filter

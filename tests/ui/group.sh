#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_group() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys g
	expect "by program"
	expect_row 1 '^ NPROC' '^3 +0 .* postgres$'	# 0 unmeasured
	expect ' NPROC  UNMEAS '
	[ "$(nrows '^ NPROC')" = 4 ] || fail "expected 4 program groups"
	keys Enter			# a group lists its processes
	expect "Groups > postgres"
	expect_row 1 "$PH" '^302 postgres'
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 processes"
	keys g				# per user
	expect "by user"
	[ "$(nrows '^ NPROC')" = 3 ] || fail "expected 3 users"
	keys g				# per cgroup
	expect "by cgroup"
	expect "…tgresql.service"	# paths keep their end
	keys F5				# back to processes
	expect_not "by "
	expect "[1/7]"
	keys q
	expect_exit 0
}

run_case group

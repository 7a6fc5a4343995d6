#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): b shows exact byte counts and
# back (fixture:basic's postgres 302: VM 336K = 344064, RES 288K = 294912,
# EFF.RES 104K = 106496 bytes).
. "$(dirname "$0")/lib.sh"

t_bytes_key() {
	start 100 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 +postgres +336K +288K +104K '
	keys b
	expect_row 1 "$PH" '^302 +postgres +344064 +294912 +106496 '
	keys b
	expect_row 1 "$PH" '^302 +postgres +336K +288K +104K '
	keys q
	expect_exit 0
}

run_case bytes_key

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_search() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	keys /
	typed worker
	keys Enter
	expect "[7/7]"
	keys /
	typed bash
	keys Enter
	expect "[4/7]"
	keys n
	expect "[5/7]"
	keys N
	expect "[4/7]"
	keys /
	typed init
	keys Escape			# cancelled: back where it was
	expect "[4/7]"
	keys q
	expect_exit 0
}

run_case search

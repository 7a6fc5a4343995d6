#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_iterations() {
	start 80 24 -- --source fixture:basic -d 0.2 -n 3
	expect_exit 0
}

run_case iterations

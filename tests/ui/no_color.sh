#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_no_color() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	screen_esc | grep -q $'\e\\[3[0-7]m\\|\e\\[4[0-7]m\\|\e\\[[0-9;]*3[0-7]m' ||
		fail "no colours by default"
	keys q
	start 80 24 NO_COLOR=1 -- --source fixture:basic
	expect "Processes"
	screen_esc | grep -q $'\e\\[[0-9;]*[34][0-7]m' &&
		fail "colour escape with NO_COLOR"
	screen_esc | grep -q $'\e\\[[0-9;]*7m' ||
		fail "no reverse video for the header in monochrome"
	keys q
	start 80 24 -- --source fixture:basic --no-color
	expect "Processes"
	screen_esc | grep -q $'\e\\[[0-9;]*[34][0-7]m' &&
		fail "colour escape with --no-color"
	keys q
	start 80 24 TERM=vt100 -- --source fixture:basic
	expect "Processes"
	screen_esc | grep -q $'\e\\[[0-9;]*[34][0-7]m' &&
		fail "colour escape on vt100"
	keys q
	expect_exit 0
}

run_case no_color

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_hostile_names() {
	start 120 24 -- --source fixture:hostile -c
	expect 'evil\e[2J\e[H --arg \e[5m0\x01'
	expect 'osc\e]0;pwned\x07'
	expect 'tab\there'
	expect 'nl\nline'
	expect 'bad\xff\xfeutf8'
	expect 'del\x7f'
	expect 'naïve ☃'
	expect '漢字wide'
	# the raw sequences did nothing: header still on line 1, title
	# not changed
	screen | head -1 | grep -q '^exmtop - fixture' || fail "screen cleared"
	[ "$($T display -p -t t '#{pane_title}')" != pwned ] ||
		fail "OSC title sequence reached the terminal"
	keys Tab
	expect '/tmp/evil\e[31mred.so'
	expect '/tmp/\xff\xfe.so'
	expect '/tmp/☃ snow.so'
	keys Tab
	expect "[1/9]"
	keys Enter			# crumbs escape too
	expect 'Processes > osc\e]0;pwned\x07 (508)'
	keys q
	expect_exit 0
}

run_case hostile_names

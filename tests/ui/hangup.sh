#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): the terminal closed under a
# running exmtop, as a dropped SSH connection closes it, ends exmtop within
# 5 s, whatever it was showing: the table, a prompt, help, paused, or
# waiting for a scan (fixture:slow, 3 s a snapshot).
#
# Only here is a terminal closed under a running exmtop (end_t asks it to
# quit first), and here an ASan build's leak check is off: the SIGCONT the
# kernel sends with the SIGHUP when the session's shell exits can land
# while LeakSanitizer stops exmtop at exit with ptrace, and cancel that
# stop, a hang of the sanitizer's (tests/tmux.sh, end_session). Every other session
# checks leaks on the same way out.
. "$(dirname "$0")/lib.sh"

# hangup SOURCE WANT [KEYS...]: a fresh exmtop on SOURCE, given KEYS,
# showing WANT, then its terminal closed
hangup() {
	local src=$1 want=$2 p
	shift 2
	start 100 30 "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0" -- \
		--source "$src" -d 3600
	expect "7 procs" 10
	[ $# -gt 0 ] && keys "$@"
	expect "$want"
	p=$(cat "$WORK/pid")
	is_exmtop "$p" || { fail "no exmtop running before the hangup"; return; }
	$T kill-session -t t
	gone "$p" 5 ||
		{ stalled "$p" "its terminal closed ($src, keys: $*)"; FAIL_CUR=1; }
}

t_hangup() {
	hangup fixture:basic "Processes"
	hangup fixture:basic "Delay in seconds:" d
	hangup fixture:basic "what each process really costs" F1
	hangup fixture:basic "[paused]" p
	# the first snapshot is taken at once, each later one in 3 s: the
	# terminal closes while the scanner thread sleeps in one
	hangup fixture:slow "scanning..." Space
}

run_case hangup

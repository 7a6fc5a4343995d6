# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tmux.sh - sourced by the screen tests: drive the tmux session "t"
# of the server $T ("tmux -L SOCKET", set by the test).

screen() { $T capture-pane -p -t t; }
screen_esc() { $T capture-pane -p -e -t t; }
keys() { $T send-keys -t t "$@"; }
typed() { $T send-keys -t t -l "$1"; }

# wait_for TEXT [SECS]: until the screen holds TEXT (fixed string).
wait_for() {
	local i n=$(( ${2:-5} * 20 ))
	for ((i = 0; i < n; i++)); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	return 1
}

# wait_gone TEXT [SECS]: until the screen no longer holds TEXT.
wait_gone() {
	local i n=$(( ${2:-5} * 20 ))
	for ((i = 0; i < n; i++)); do
		screen | grep -qF -- "$1" || return 0
		sleep 0.05
	done
	return 1
}

# a session that outlives "t": killing "t" must not empty the server,
# which then exits while the next new-session connects to it ("server
# exited unexpectedly")
keep_server() {
	$T has-session -t keep 2>/dev/null ||
		$T new-session -d -s keep "sleep 86400"
}

# An exmtop must have ended before its terminal is closed: closing it
# under a running exmtop is tests/ui/hangup.sh's case alone (see
# end_session below for the ASan stall that closing it otherwise can
# cause), and a stall fails the test instead of spinning unnoticed.

# is_exmtop PID: PID is a live exmtop (not gone, not a zombie, not reused)
is_exmtop() {
	grep -qa exmtop "/proc/$1/cmdline" 2>/dev/null
}

# gone PID [SECS]: wait up to SECS (default 10) for exmtop PID to end
gone() {
	local i n=$((${2:-10} * 10))
	for ((i = 0; i < n; i++)); do
		is_exmtop "$1" || return 0
		sleep 0.1
	done
	return 1
}

proc_state() {
	printf '%swchan %s' "$(grep -E '^(State|Threads|SigPnd|ShdPnd):' \
		"/proc/$1/status" 2>/dev/null | tr -s '\t\n' '  ')" \
		"$(cat "/proc/$1/wchan" 2>/dev/null)"
}

# stalled PID WHAT: exmtop PID did not end after WHAT: a failure (status
# 1, for the caller to count). What it was doing is printed (and its
# tracer's, if any: an ASan build's leak check at exit stops it with
# ptrace from a clone of itself), then both are killed, so that no test
# leaves a process behind.
stalled() {
	local st tr
	st=$(proc_state "$1")
	tr=$(awk '/^TracerPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	[ "${tr:-0}" != 0 ] && st+="; tracer $tr: $(proc_state "$tr")"
	echo "  FAIL: exmtop $1 still running after $2 ($st): killed"
	[ "${tr:-0}" != 0 ] && is_exmtop "$tr" && kill -9 "$tr" 2>/dev/null
	kill -9 "$1" 2>/dev/null
	return 1
}

# end_exmtop PID: exmtop PID, if still running, is asked to quit
# (SIGTERM) and must be gone within 10 s; status 1 on a stall
end_exmtop() {
	is_exmtop "$1" || return 0
	kill -TERM "$1" 2>/dev/null
	gone "$1" || stalled "$1" "SIGTERM"
}

# end_session PIDFILE: end session "t". The exmtop whose pid PIDFILE holds
# (written by the session's shell before it execs exmtop), if still
# running, is asked to quit (SIGTERM) and must be gone within 10 s, then
# its terminal is closed; status 1 on a stall (the caller counts it). The
# pid file is removed, so a session is ended once; an exmtop already gone
# (quit, or its terminal closed by tests/ui/hangup.sh) is no stall.
# Closing the terminal under a running exmtop is hangup.sh's case alone:
# the kernel sends SIGHUP and SIGCONT to exmtop when the session's shell
# exits, a few ms after the terminal closed, and on an ASan build that
# SIGCONT can land while LeakSanitizer's check at exit is stopping exmtop
# with ptrace and cancel the stop: its tracer then waits for ever and
# exmtop spins (2 of 16 key_aliases.sh runs, when every session ended so).
end_session() {
	local p st=0
	p=$(cat "$1" 2>/dev/null)
	rm -f "$1"
	[ -n "$p" ] && ! end_exmtop "$p" && st=1
	$T kill-session -t t 2>/dev/null
	return $st
}

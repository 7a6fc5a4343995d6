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

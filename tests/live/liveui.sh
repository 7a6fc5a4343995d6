# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/live/liveui.sh - sourced by the screen tests of the live UI on the
# real system (root, tmux): skips without them, a tmux server $T of our
# own, a work directory $WORK, and sleepers of our own, all removed on
# exit; exmtop run in session "t" (run_t), quit with q (quit_t) and
# waited for, never left running when its terminal is closed; then
# tests/tmux.sh's screen, keys, wait_for.
#
# sleepers NAME N: start N sleeping copies of sleep named NAME (pids in
# PIDS), to be found on the screen by that name.
set -u

EXMTOP=${EXMTOP:-$PWD/exmtop}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v tmux >/dev/null || { echo "SKIP: no tmux"; exit 77; }
[ -x "$EXMTOP" ] || { echo "no exmtop binary at $EXMTOP"; exit 1; }

SOCK=exm-liveui-$$
T="tmux -L $SOCK"
PIDS=()
PASS=0 FAIL=0

WORK=$(mktemp -d /tmp/exm_liveui.XXXXXX)
cleanup() {
	local st=0
	end_t || st=1
	$T kill-server 2>/dev/null
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$WORK"
	# a stall found only here (the script ended early) fails it too
	[ $st = 0 ] || exit 1
}
trap cleanup EXIT

# run_t W H CMD: a fresh session "t" of W x H columns and lines running
# the shell command line CMD, which starts exmtop (env, setpriv and the
# like exec it): its pid is kept in $WORK/pid. The session stays open
# after exmtop ends, with what it printed.
run_t() {
	keep_server
	end_t
	$T new-session -d -s t -x "$1" -y "$2" \
		"sh -c 'echo \$\$ > $WORK/pid; exec $3'; sleep 600"
	# tmux sizes a detached session from default-size; force ours
	$T resize-window -t t -x "$1" -y "$2" 2>/dev/null
}

# end_t: end session "t" (tests/tmux.sh, end_session): a stall counts a
# failure and gives status 1.
end_t() { end_session "$WORK/pid" || { FAIL=$((FAIL + 1)); return 1; }; }

# quit_t: q quits the exmtop of session "t": it must be gone within 10 s
# (one check), then the session is closed.
quit_t() {
	local p
	p=$(cat "$WORK/pid" 2>/dev/null)
	keys q
	if [ -n "$p" ] && gone "$p"; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		if [ -n "$p" ]; then stalled "$p" "q"; else echo "FAIL: no exmtop pid"; fi
		screen | sed 's/^/  : /'
	fi
	end_t
}

# user_copy: print the path of a copy of $EXMTOP that any user can run
# (in a directory of mode 0755 of its own): a test that drops privileges
# must not run the build's binary in place, which that user cannot reach
# when the checkout is private (a clone in a 0700 home).
user_copy() {
	if [ ! -x "$WORK/pub/exmtop" ]; then
		chmod 0711 "$WORK" && mkdir -p -m 0755 "$WORK/pub" &&
			cp "$EXMTOP" "$WORK/pub/exmtop" && chmod 0755 "$WORK/pub/exmtop" ||
			{ echo "cannot copy $EXMTOP to $WORK/pub" >&2; return 1; }
	fi
	echo "$WORK/pub/exmtop"
}

sleepers() {
	cp "$(command -v sleep)" "$WORK/$1"
	for _ in $(seq "$2"); do
		"$WORK/$1" 600 &
		PIDS+=($!)
	done
}

. "$(dirname "${BASH_SOURCE[0]}")/../tmux.sh"

# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/live/liveui.sh - sourced by the screen tests of the live UI on the
# real system (root, tmux): skips without them, a tmux server $T of our
# own, a work directory $WORK, and sleepers of our own, all removed on
# exit; then tests/tmux.sh's screen, keys, wait_for.
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
	$T kill-server 2>/dev/null
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

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

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen test (root) of the live UI on the real system: the kernel's Pss is
# read only for the processes on screen, so a key that scrolls onto other
# rows must bring theirs at once (not "-" until some later refresh). 60
# sleeping processes of our own (a copy of sleep named exmliveslp) are
# filtered into view in a 14-line terminal: most start off screen. Only
# they are looked at: a process born after a snapshot has no Pss until the
# next one, by design.
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no tmux).
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

cp "$(command -v sleep)" "$WORK/exmliveslp"
for _ in $(seq 60); do
	"$WORK/exmliveslp" 600 &
	PIDS+=($!)
done

# screen, keys, wait_for
. "$(dirname "$0")/../tmux.sh"

# Rows of the table (PID EFF.RES PSS COMMAND) measured by us (EFF.RES not
# "-") whose PSS is "-": printed one per line.
unread() {
	screen | awk '/^ *PID[^ ]* +EFF.RES/ { t = 1; next }
		t && $1 ~ /^[0-9]+$/ && $4 == "exmliveslp" && $3 == "-" { print }'
}

rows() {
	screen | awk '/^ *PID[^ ]* +EFF.RES/ { t = 1; next }
		t && $1 ~ /^[0-9]+$/ && $4 == "exmliveslp" { n++ }
		END { print n + 0 }'
}

# check WHAT: within 10 s every measured row on screen shows its Pss
check() {
	local i
	for ((i = 0; i < 200; i++)); do
		if [ "$(rows)" -gt 0 ] && [ -z "$(unread)" ]; then
			PASS=$((PASS + 1))
			return
		fi
		sleep 0.05
	done
	FAIL=$((FAIL + 1))
	echo "FAIL: $1: rows without Pss:"
	unread | sed 's/^/  | /'
	screen | sed 's/^/  : /'
}

$T new-session -d -s t -x 100 -y 14 \
	"env LANG=C.UTF-8 TERM=tmux-256color XDG_CONFIG_HOME= HOME=/nonexistent $EXMTOP -d 30 --fields pid,erss,pss,comm"
# -d 30: no refresh comes by itself during the test; only keys bring them
wait_for "EFF.RES" 10
# only our sleepers (the filter applies at once, no snapshot needed)
keys '\'
keys -l exmliveslp
keys Enter
check "filtered"
# The first snapshot read every process (nothing was on screen yet); a
# refresh now reads only the rows on screen.
sleep 1
keys Space
sleep 1.5
keys End
check "after End"
keys Home
check "after Home"
keys NPage
check "after PgDn"
# sort by pid ascending (< moves the sort column left, to PID)
keys '<' '<' '<'
check "sorted by another column"
keys q
sleep 0.5
if $T has-session -t t 2>/dev/null && screen | grep -q "EFF.RES"; then
	FAIL=$((FAIL + 1))
	echo "FAIL: q did not quit"
else
	PASS=$((PASS + 1))
fi
echo "test_live_ui: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen test (root) of the live UI on the real system: the kernel's Pss is
# read only for the processes on screen (tui/screen/policy.c), so a key that
# scrolls onto other rows must bring theirs at once (not "-" until some
# later refresh), and so must a snapshot that lists the rows in another
# order than the one its request was planned from (sizes changed,
# processes exited): that was the race that left "-" on screen. 60
# sleeping processes of our own (a copy of sleep named exmliveslp) are
# filtered into view in a 14-line terminal: most start off screen. Only
# they are looked at: a process born after a snapshot has no Pss until the
# next one, by design.
#
# Then, run as an unprivileged user, the header counts processes as the
# batch summary and JSON do: the denied ones are not "procs".
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no tmux).
. "$(dirname "$0")/liveui.sh"
sleepers exmliveslp 60

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

# pos: the table's position, "[ROW/ROWS]"
pos() { screen | grep -oE '\[[0-9]+/[0-9]+\]' | head -1; }

# moved KEY... : send the keys and wait (5 s) until the position is not
# what it was: the key has taken effect before anything is checked
moved() {
	local was i
	was=$(pos)
	keys "$@"
	for ((i = 0; i < 100; i++)); do
		[ "$(pos)" != "$was" ] && return 0
		sleep 0.05
	done
	echo "FAIL: keys $* left the position at $was"
	FAIL=$((FAIL + 1))
	return 1
}

# at POS: the position becomes POS within 5 s
at() {
	wait_for "$1" 5 && return 0
	echo "FAIL: position $(pos), want $1"
	FAIL=$((FAIL + 1))
}

# check WHAT [SECS]: within SECS (10) every measured row on screen shows
# its Pss
check() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
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

run_t 100 14 \
	"env LANG=C.UTF-8 TERM=tmux-256color XDG_CONFIG_HOME= HOME=/nonexistent $EXMTOP -d 30 --fields pid,erss,pss,comm"
# -d 30: no refresh comes by itself during the test; only keys bring them
wait_for "EFF.RES" 10
# only our sleepers (the filter applies at once, no snapshot needed)
keys '\'
keys -l exmliveslp
keys Enter
at "[1/60]"
check "filtered"
# The first snapshot read every process (nothing was on screen yet); a
# refresh now reads only the rows on screen.
sleep 1
keys Space
sleep 1.5
keys End; at "[60/60]"
check "after End"
keys Home; at "[1/60]"
check "after Home"
moved NPage
check "after PgDn"
# sort by pid ascending (< moves the sort column left, to PID): the arrow
# moves to the PID column's title
keys '<' '<' '<'
for ((i = 0; i < 100; i++)); do
	screen | grep -qE '^ *PID[▲▼]' && break
	sleep 0.05
done
screen | grep -qE '^ *PID[▲▼]' || { FAIL=$((FAIL + 1)); echo "FAIL: not sorted by PID"; }
check "sorted by another column"
# The race: a snapshot that arrives with other rows on screen than those
# its request was planned from. The last 20 sleepers exit; two pages up
# (onto them) asks for their figures, but in the new snapshot they are
# gone and the cursor, on a vanished row, stays at the end: on rows 20
# above, which that request did not read.
keys End; at "[60/60]"
check "at the end, by pid"
for p in "${PIDS[@]:40:20}"; do kill "$p"; wait "$p" 2>/dev/null; done
moved PPage PPage
check "rows moved by processes that exited" 5
quit_t

# The header as an unprivileged user: "N procs, skipped G gone D denied"
# with D > 0 (other users' processes), and N + D rows listed (the denied
# are listed, with "-"): N counts only the processes measured, as the
# batch summary and JSON "scanned" do.
pub=$(user_copy) || exit 1
run_t 120 14 \
	"setpriv --reuid=nobody --regid=nogroup --clear-groups env LANG=C.UTF-8 TERM=tmux-256color XDG_CONFIG_HOME= HOME=/nonexistent $pub -d 30"
# the header and the table's position, "[ROW/ROWS]", both on screen
seen=0
for ((i = 0; i < 200; i++)); do
	screen | grep -q "denied" && [ -n "$(pos)" ] && { seen=1; break; }
	sleep 0.05
done
if [ $seen = 1 ]; then
	hdr=$(screen | grep -o '[0-9]* procs, skipped [0-9]* gone [0-9]* denied')
	total=$(pos | tr -d '[]' | cut -d/ -f2)
	n=$(echo "$hdr" | awk '{ print $1 }')
	d=$(echo "$hdr" | awk '{ print $6 }')
	if [ -n "$n" ] && [ -n "$d" ] && [ "${d:-0}" -gt 0 ] &&
	   [ $((n + d)) = "$total" ]; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		echo "FAIL: header '$hdr' with $total rows: procs + denied != rows"
		screen | sed 's/^/  : /'
	fi
else
	FAIL=$((FAIL + 1))
	echo "FAIL: no unprivileged screen"
	screen | sed 's/^/  : /'
fi
quit_t
echo "test_live_ui: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ]

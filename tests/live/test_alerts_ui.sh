#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen test (root) of the live alerts view on the real system: the live
# screen reads the kernel's Pss only for the processes on screen
# (tui/screen/policy.c), but the alerts view's pss-mismatch check compares every
# process's Pss with its effective resident, so while the view is shown
# every process's Pss must be read (as exmtop -b --alerts does). 200
# sleeping processes of our own (a copy of sleep named exmalertslp) are
# filtered into a 24-line terminal, most of them off screen; after a
# refresh that read only the rows on screen, A opens the alerts, whose
# note must soon say the check compared all 200 and more, with none left
# out for want of its Pss. Backspace goes back to the processes.
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no tmux).
. "$(dirname "$0")/liveui.sh"
NSLEEP=200
sleepers exmalertslp $NSLEEP

ok() { PASS=$((PASS + 1)); }
bad() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
	screen | sed 's/^/  : /'
}

# the clock of the snapshot on screen (header, first line)
taken() { screen | head -1 | grep -o '[0-9][0-9]:[0-9][0-9]:[0-9][0-9]'; }

# "N M" of the note "pss-mismatch compared N processes (M without ...)"
compared() {
	screen | sed -n 's/^note: pss-mismatch compared \([0-9]*\) processes (\([0-9]*\) without.*/\1 \2/p'
}

run_t 80 24 \
	"env LANG=C.UTF-8 TERM=tmux-256color XDG_CONFIG_HOME= HOME=/nonexistent $EXMTOP -d 30"
# -d 30: no refresh comes by itself during the test; only keys bring them
wait_for "EFF.RES" 10 || bad "no screen"
keys '\'
keys -l exmalertslp
keys Enter
# The first snapshot read every process (nothing was on screen yet); a
# refresh now reads only the rows on screen (and a page around them).
t0=$(taken)
sleep 1.1
keys Space
for ((i = 0; i < 200; i++)); do
	[ "$(taken)" != "$t0" ] && break
	sleep 0.05
done
[ "$(taken)" != "$t0" ] && ok || bad "the refresh did not come"
keys A
wait_for "Processes > Alerts" 5 && ok || bad "A did not open the alerts"
got=""
for ((i = 0; i < 300; i++)); do
	keys End	# the notes are the last lines
	read -r n m <<< "$(compared)"
	if [ -n "${n:-}" ] && [ "$n" -ge $NSLEEP ] && [ "$m" = 0 ]; then
		got=1
		break
	fi
	sleep 0.05
done
[ -n "$got" ] && ok ||
	bad "the check did not compare every process (compared ${n:-?}, ${m:-?} without Pss)"
keys BSpace
wait_gone "Alerts" 5 && wait_for "exmalertslp" 5 && ok ||
	bad "Backspace did not go back to the processes"
quit_t
echo "test_alerts_ui: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ]

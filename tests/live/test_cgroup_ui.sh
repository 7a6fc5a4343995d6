#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen test (root) of the cgroup grouping on the real system. A process's
# cgroup is read only while something needs it (EXM_NEED_CGROUP: the
# processes grouped per cgroup, a recording, OpenMetrics' groups), so
# switching the grouping to cgroup must bring a snapshot with them at once,
# not at the next refresh (-d 30 here: none comes by itself), and never
# show the processes in "/" meanwhile. Three sleepers of our own are put
# in a cgroup v2 group of our own, exmtop-test-PID (the first cgroup2
# hierarchy mounted, or one mounted here); then the batch outputs that
# keep cgroups (OpenMetrics, a recording, its replay) must show theirs.
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no tmux).
#
# The group (and the hierarchy, when one is mounted here) is made through
# sysstate.py, which removes it when the test ends or is killed, and the
# next run's `sysstate.py recover` removes what a SIGKILLed run left: the
# script runs itself under `sysstate.py run`, which names the group in
# EXM_TEST_CGROUP.
if [ -z "${EXM_TEST_CGROUP:-}" ] && [ "$(id -u)" = 0 ]; then
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	set --
	if [ -z "$cg" ]; then
		cg=${EXMTOP_TEST_STATE:-/run/exmtop-tests}/cg2.$$
		set -- --cgroup2-mount "$cg"
	fi
	EXM_TEST_CGROUP=$cg/exmtop-test-$$ exec python3 "$(dirname "$0")/sysstate.py" \
		run test_cgroup_ui "$@" --cgroup "$cg/exmtop-test-$$" -- bash "$0"
fi
. "$(dirname "$0")/liveui.sh"

GROUP=${EXM_TEST_CGROUP:?}
NAME=${GROUP##*/}
[ -d "$GROUP" ] || { echo "FAIL: no cgroup $GROUP"; exit 1; }

sleepers exmcgslp 3
for p in "${PIDS[@]}"; do echo "$p" >"$GROUP/cgroup.procs"; done
for p in "${PIDS[@]}"; do
	grep -qx "0::/$NAME" "/proc/$p/cgroup" ||
		{ echo "FAIL: $p not in /$NAME: $(cat "/proc/$p/cgroup")"; exit 1; }
done
P=$(IFS=,; echo "${PIDS[*]}")

ok() { PASS=$((PASS + 1)); }
ko() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $1"
	screen | sed 's/^/  : /'
}

run_t 100 14 \
	"env LANG=C.UTF-8 TERM=tmux-256color XDG_CONFIG_HOME= HOME=/nonexistent $EXMTOP -d 30 -p $P --fields pid,erss,comm"
if wait_for "exmcgslp" 10; then ok; else ko "no first screen"; fi
keys g
if wait_for "by program" 5; then ok; else ko "no program groups"; fi
keys g
if wait_for "by user" 5; then ok; else ko "no user groups"; fi
keys g
# the snapshot on screen has no cgroups: one with them comes at once
if wait_for "by cgroup" 5 && wait_for "/$NAME" 5; then ok; else ko "no cgroup group /$NAME"; fi
# the three sleepers are its processes, none left in "/"
if screen | grep -Eq "^ +3 .*/$NAME *$" && ! screen | grep -Eq ' /$'; then
	ok
else
	ko "expected one group /$NAME of 3 processes"
fi
keys Enter
if wait_for "Groups > /$NAME" 5 && [ "$(screen | grep -c 'exmcgslp')" = 3 ]; then
	ok
else
	ko "the group does not list its 3 processes"
fi
quit_t

# Batch: OpenMetrics groups per cgroup; text and JSON need no cgroup.
if "$EXMTOP" -b --format openmetrics -p "$P" |
	grep -qxF "exmtop_group_processes{by=\"cgroup\",name=\"/$NAME\"} 3"; then
	ok
else
	FAIL=$((FAIL + 1))
	echo "FAIL: OpenMetrics has no group /$NAME of 3 processes"
fi
# A recording keeps them, and so does its replay grouped per cgroup.
"$EXMTOP" -b -n 1 --record "$WORK/r.exmrec" -p "$P" >/dev/null 2>"$WORK/err"
n=$(sqlite3 "$WORK/r.exmrec" "SELECT count(*) FROM process WHERE cgroup = '/$NAME'" 2>&1)
if [ "$n" = 3 ]; then ok; else
	FAIL=$((FAIL + 1))
	echo "FAIL: the recording has $n processes in /$NAME: $(cat "$WORK/err")"
fi
run_t 100 14 \
	"env LANG=C.UTF-8 TERM=tmux-256color XDG_CONFIG_HOME= HOME=/nonexistent $EXMTOP --replay $WORK/r.exmrec --fields pid,erss,comm"
wait_for "exmcgslp" 10
keys g g g
if wait_for "by cgroup" 5 && wait_for "/$NAME" 5 && ! screen | grep -qF "(reading cgroups)"; then
	ok
else
	ko "the replay grouped per cgroup has no /$NAME"
fi
quit_t
echo "test_cgroup_ui: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ]

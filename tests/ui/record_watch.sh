#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): --record FILE --watch records
# while the live screen shows what it records; q stops both, and the
# recording holds the snapshots shown, which replay as the fixture.
. "$(dirname "$0")/lib.sh"

t_record_watch() {
	local n
	start 100 24 -- --record "$WORK/w.exmrec" --watch \
		--source fixture:basic -d 0.3
	expect "7 procs"
	expect_row 1 "$PH" '^302 +postgres '
	sleep 1
	keys q
	expect_exit 0
	n=$(sqlite3 "$WORK/w.exmrec" "SELECT count(*) FROM snapshot" 2>&1)
	[ "$n" -ge 2 ] 2>/dev/null || fail "$n snapshots recorded, want 2 or more"
	# the same rows but for the time column (when each was taken)
	[ "$("$EXMTOP" -b --replay "$WORK/w.exmrec" -n 1 --format csv 2>&1 |
		sed 's/^\([0-9]*\),[^,]*,/\1,T,/')" = \
	  "$("$EXMTOP" -b --source fixture:basic --format csv 2>&1 |
		sed 's/^\([0-9]*\),[^,]*,/\1,T,/')" ] ||
		fail "the recording does not replay the fixture"
}

run_case record_watch

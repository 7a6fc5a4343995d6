#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): t tags processes (and a group
# row's processes), T untags all; the line above the bottom one sums what
# stopping the tagged ones gives back, and equals batch --freed of the same
# processes, byte for byte (b: exact bytes).
. "$(dirname "$0")/lib.sh"

# batch's row for a set: "erss freed cached shmem", erss rounded to a byte
# as the summary shows it in exact bytes
batch_freed() {
	"$EXMTOP" -b --source fixture:basic --format json --freed "$1" |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["freed"][0]
print("%.0f %d %d %d" % (r["erss"], r["freed"], r["cached"], r["shmem_excl"]))'
}

# the screen's summary as "erss freed cached shmem"
summary() {
	screen | sed -n 's/^tagged [0-9]*: eff.res \([^ ]*\)  freed \([^ ]*\)  cached \([^ ]*\)  shmem \([^ ]*\)$/\1 \2 \3 \4/p'
}

expect_summary() { # expect_summary N SET
	local want got i
	want=$(batch_freed "$2")
	[ -n "$want" ] || fail "batch --freed $2 printed no row"
	expect "tagged $1: "
	for ((i = 0; i < 40; i++)); do
		got=$(summary)
		[ "$got" = "$want" ] && return 0
		sleep 0.05
	done
	fail "tagged $2: screen '$got', batch --freed '$want'"
}

t_tag_summary() {
	start 120 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 +postgres '
	keys b				# exact bytes
	expect_row 1 "$PH" '^302 +postgres +344064 '
	expect_not "tagged "
	keys t				# 302, then the cursor is on 301
	expect_row 1 "$PH" '^\* +302 +postgres '
	expect_summary 1 302
	keys Down t			# 300 (not 301); the cursor on 201
	expect_summary 2 302,300
	keys t				# 201: a bash too
	expect_summary 3 302,300,201
	expect_row 4 "$PH" '^\* +201 +alice '
	keys Up Up Up Up t		# 302 untagged again
	expect_summary 2 300,201
	expect_row 1 "$PH" '^302 +postgres '
	keys T
	expect_not "tagged "
	expect_row 3 "$PH" '^300 +postgres '
	keys g				# per program: a group row tags its 3
	expect "by program"
	expect_row 1 '^ NPROC' '^3 .* postgres$'
	keys Home t
	expect_summary 3 comm:postgres
	keys t				# bash's two (the cursor moved down)
	expect_summary 5 300,301,302,200,201
	keys Up t			# bash's processes untagged
	expect_summary 3 300,301,302
	keys q
	expect_exit 0
}

run_case tag_summary

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): while only views of sizes are
# on screen, the snapshot shown keeps only its sizes while the next one is
# taken (live.c, slim: the live screen's peak memory). A view that needs
# its page words or share tables, opened then, waits for the snapshot being
# taken and shows the figures of a full one: a groups view's exclusive
# memory, the tagged processes' summary, a mapping's page strip.
. "$(dirname "$0")/lib.sh"

# col HEADER_LINE ROW_LINE NAME: the field of ROW_LINE under column NAME
col() {
	awk -v n="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) k = i }
		NR == 2 && k { print $k }' <<<"$1
$2"
}

# batch's exact FREED of the program group NAME
batch_freed() {
	"$EXMTOP" -b --source fixture:basic --group program --bytes |
		awk -v n="$1" 'NR == 2 { h = $0 } $NF == n { print h; print }' |
		{ read -r h; read -r r; col "$h" "$r" FREED; }
}

t_slim_views() {
	local want got i
	# every snapshot after the first takes 3 s (fixture "slow")
	start 200 24 -- --source fixture:slow -d 60
	expect "7 procs"
	keys b				# exact bytes
	keys Space			# a scan: the one on screen is slim
	expect "scanning..." 2
	keys g				# groups: exclusive memory (FREED)
	expect "by program"
	# not the figures of a snapshot without its pages: none until the
	# one being taken is in
	expect "(reading the pages again: a moment)" 1
	screen | grep -qF "scanning..." || fail "the scan ended too soon"
	want=$(batch_freed postgres)
	[ -n "$want" ] || fail "batch printed no FREED of postgres"
	for ((i = 0; i < 100; i++)); do
		got=$(col "$(screen | grep '^ NPROC')" "$(row 1 '^ NPROC')" FREED)
		[ "$got" = "$want" ] && break
		sleep 0.05
	done
	[ "$got" = "$want" ] || fail "postgres group: FREED '$got', batch '$want'"
	keys g g g			# processes again (slim at the next scan)
	expect_not "by "
	expect_not "scanning..." 8	# the groups' own scans are done
	keys Space
	expect "scanning..." 2
	keys t				# tag 302: its freed memory
	expect "tagged 1: eff.res 106496  freed ...  cached ...  shmem ..." 1
	screen | grep -qF "scanning..." || fail "the scan ended too soon"
	for ((i = 0; i < 100; i++)); do
		got=$(screen | sed -n 's/^tagged 1: eff.res [^ ]*  freed \([^ ]*\) .*/\1/p')
		[ "$got" = 16384 ] && break
		sleep 0.05
	done
	[ "$got" = 16384 ] || fail "tagged 302: freed '$got', not 16384"
	keys T
	expect_not "tagged "
	expect_not "scanning..." 8
	keys Space
	expect "scanning..." 2
	keys End Enter			# worker 400's files
	expect "Processes > worker (400)"
	keys Home Enter			# the memfd: its mappings
	expect "/memfd:ring (deleted): mappings"
	keys Home Enter			# a page strip
	expect ": pages"
	expect "(reading the pages again: a moment)" 1
	screen | grep -qF "scanning..." || fail "the scan ended too soon"
	expect "4 pages: 4 resident, 0 swapped" 6
	expect "000000 1111"
	keys q
	expect_exit 0
}

run_case slim_views

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh).
. "$(dirname "$0")/lib.sh"

t_save() {
	local rc
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys f Space Escape g '<' W
	expect "settings saved to"
	rc=$WORK/home/.config/exmtop/exmtoprc
	grep -q '^group = program$' "$rc" || fail "group not saved"
	grep -q '^fields.procs = user,' "$rc" || fail "fields not saved"
	keys q
	expect_exit 0
	# the next run starts with the saved settings (same HOME)
	end_t
	launch 80 24 TERM=xterm-256color -- --source fixture:basic
	expect "by program"
	keys g g g
	expect_not "by "
	screen | grep -q '^USER ' || fail "saved columns not used"
	keys q
	# a settings file that is a symbolic link (dotfiles kept elsewhere):
	# W writes the file it names, the link stays, and so does its mode
	start 80 24 -- --source fixture:basic
	expect "Processes"
	rm -rf "$WORK/dotfiles"
	mkdir -p "$WORK/dotfiles" "$WORK/home/.config/exmtop"
	echo "# mine" >"$WORK/dotfiles/exmtoprc"
	chmod 600 "$WORK/dotfiles/exmtoprc"
	ln -s ../../../dotfiles/exmtoprc "$WORK/home/.config/exmtop/exmtoprc"
	keys g W
	expect "settings saved to"
	[ -L "$WORK/home/.config/exmtop/exmtoprc" ] || fail "the link was replaced"
	grep -q '^group = program$' "$WORK/dotfiles/exmtoprc" ||
		fail "the file the link names was not written"
	[ "$(stat -c %a "$WORK/dotfiles/exmtoprc")" = 600 ] ||
		fail "its mode was not kept"
	[ "$(ls "$WORK/dotfiles")" = exmtoprc ] || fail "a temporary file left"
	keys q
	expect_exit 0
}

run_case save

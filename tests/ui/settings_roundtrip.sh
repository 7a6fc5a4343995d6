#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): every setting of the settings
# table (as --help lists it) that an option sets goes from the command
# line to the file (W) and back at the next start, unchanged and with no
# warning; the delay at both ends of its one range, through -d, the file
# and the prompt (d), and just outside it refused by all three in the
# same words.
. "$(dirname "$0")/lib.sh"

RC=
# start again with the same HOME (start() empties it)
restart() {
	end_t
	launch 200 24 -- --source fixture:basic
}

# nothing of the file was ignored (the warning shows for 3 s from the
# start, in full at this width)
no_warning() {
	! screen | grep -q "ignored" || fail "$1: $(screen | grep ignored)"
}

save() {
	keys W
	expect "settings saved to"
}

# settings an option sets: "KEY<TAB>what --help says"
settings() {
	"$EXMTOP" --help | awk '
		/^Settings file/ { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z]/ { if (k) print k "\t" t; k = $1; $1 = ""; t = $0; next }
		on { t = t $0 }
		END { if (k) print k "\t" t }'
}

t_settings_roundtrip() {
	local key text n=0 opt want lo hi bad why
	RC=$WORK/home/.config/exmtop/exmtoprc
	while IFS=$'\t' read -r key text; do
		case $key in
		delay) continue ;; # below, at both ends of its range
		group) continue ;; # a key only (tests/ui/save.sh)
		full_cmd) opt=(-c) want="full_cmd = 1" ;;
		bytes) opt=(--bytes) want="bytes = 1" ;;
		full_walk) opt=(--full-walk 45) want="full_walk = 45" ;;
		fields.TABLE) opt=(--fields pid,erss) want="fields.procs = pid,erss" ;;
		sort.TABLE) opt=(-o -pid) want="sort.procs = -pid" ;;
		*) fail "setting $key: no sample in this test ($text)" ;;
		esac
		start 100 24 -- --source fixture:basic "${opt[@]}"
		expect "Processes"
		save
		grep -qx -- "$want" "$RC" || fail "$key: '$want' not saved: $(cat "$RC")"
		cp "$RC" "$WORK/first"
		keys q
		expect_exit 0
		# the next start reads it back, warns of nothing, and writes
		# the same file again
		restart
		expect "Processes"
		no_warning "$key"
		save
		cmp -s "$RC" "$WORK/first" || fail "$key: the file changed on the way back"
		keys q
		n=$((n + 1))
	done < <(settings)
	[ "$n" -ge 4 ] || fail "only $n settings with an option in --help"

	# the delay: one range for -d, the file and the prompt
	read -r lo hi < <(settings | awk -F'\t' '$1 == "delay" {
		if (match($2, /[0-9.]+ to [0-9.]+/)) {
			s = substr($2, RSTART, RLENGTH); sub(/ to /, " ", s); print s } }')
	[ -n "$lo" ] && [ -n "$hi" ] || fail "no delay range in --help"
	for v in "$lo" "$hi"; do
		start 100 24 -- --source fixture:basic -d "$v"
		expect "every ${v}s"
		save
		grep -qx "delay = $v" "$RC" || fail "-d $v: $(grep delay "$RC")"
		keys q
		expect_exit 0
		restart
		expect "every ${v}s"
		no_warning "delay = $v"
		# the prompt takes it too
		keys d
		expect "Delay in seconds:"
		typed "$v"
		keys Enter
		expect "refreshing every ${v}s"
		keys q
	done
	for bad in "$(awk -v l="$lo" 'BEGIN { print l / 2 }')" "$hi.5"; do
		why=$("$EXMTOP" --source fixture:basic -b -d "$bad" 2>&1 >/dev/null)
		[ $? -ne 0 ] || fail "-d $bad taken"
		why=${why##*: }
		[ -n "$why" ] || fail "-d $bad: no reason"
		start 100 24 -- --source fixture:basic
		expect "Processes"
		keys d
		expect "Delay in seconds:"
		typed "$bad"
		keys Enter
		expect "delay: $why"
		keys q
		mkdir -p "$(dirname "$RC")"
		echo "delay = $bad" >"$RC"
		restart
		expect "bad delay: $why (ignored)"
		expect "every 2s"
		keys q
	done
}

run_case settings_roundtrip

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Screen test of the live UI (see lib.sh): every key of tui/screen/keys.c's key
# table that has aliases (its .names, as "F2 f" or "F1 h ?") does what its
# first key does: a fresh exmtop given the alias shows the very screen the
# first key gives. The table is read, not copied: a new alias is tested as
# soon as it is added.
. "$(dirname "$0")/lib.sh"
KEYS_C=$(cd "$(dirname "$0")/../../tui/screen" && pwd)/keys.c

# tkey NAME: the tmux name of a key as the table names it ("" if tmux
# cannot send it)
tkey() {
	case $1 in
	F[0-9]*|Enter|Right|Left|Tab|Space) echo "$1" ;;
	Shift-Left) echo S-Left ;;
	Shift-Right) echo S-Right ;;
	Backspace) echo BSpace ;;
	Esc) echo Escape ;;
	Ctrl-?) echo "C-${1#Ctrl-}" | tr 'A-Z' 'a-z' ;;
	?) echo "$1" ;;
	*) echo "" ;;
	esac
}

shot() { screen | sed -E '1s/[0-9]{2}:[0-9]{2}:[0-9]{2}/T/; s/scan [0-9.]+s/scan Ts/'; }

# after KEY: the screen of a fresh exmtop once KEY has taken effect (the
# screen changed, or 1 s passed: a key with nothing to do here) and it
# stopped changing
after() {
	local was now i
	start 100 30 -- --source fixture:basic -d 3600
	wait_for "7 procs" 5 || { echo "no first screen"; return; }
	was=$(shot)
	keys "$1"
	for ((i = 0; i < 20; i++)); do
		now=$(shot)
		[ "$now" != "$was" ] && break
		sleep 0.05
	done
	for ((i = 0; i < 40; i++)); do
		sleep 0.1
		was=$now
		now=$(shot)
		[ "$now" = "$was" ] && break
	done
	printf '%s\n' "$now"
}

t_key_aliases() {
	local names n=0 first want got k t
	# a session that stays: start() kills session t before making the
	# next one, and a server left without sessions exits, racing the
	# new-session that follows
	$T new-session -d -s keep "sleep 600"
	while IFS= read -r names; do
		# shellcheck disable=SC2086
		set -- $names
		[ $# -ge 2 ] || continue
		first=$(tkey "$1")
		[ -n "$first" ] || continue
		want=$(after "$first")
		shift
		for k; do
			t=$(tkey "$k")
			[ -n "$t" ] || continue
			got=$(after "$t")
			n=$((n + 1))
			if [ "$got" != "$want" ]; then
				fail "key $k does not do what $first does"
				diff <(printf '%s\n' "$want") \
					<(printf '%s\n' "$got") | head -20
			fi
		done
	done < <(grep -o '\.names = "[^"]*"' "$KEYS_C" | cut -d'"' -f2 |
		sed 's/\\\\/\\/g')
	echo "  $n aliases compared"
	[ "$n" -ge 15 ] || fail "only $n aliases found in $KEYS_C"
}

run_case key_aliases

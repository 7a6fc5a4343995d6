#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen tests of the live UI: drive the real exmtop binary in tmux
# (new-session -d -x W -y H, send-keys, capture-pane -p) against the
# fixture source, whose every figure is known (core/source_fixture.c).
#
# Usage: tests/ui/test_ui.sh [-k] [NAME...]   (from the build directory, or
# with EXMTOP=/path/to/exmtop). -k keeps the tmux server for inspection.
# Exit status: 0 all passed, 1 some failed, 77 (skip) without tmux.
set -u

EXMTOP=${EXMTOP:-$PWD/exmtop}
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 77; }
[ -x "$EXMTOP" ] || { echo "no exmtop binary at $EXMTOP"; exit 1; }

KEEP=0
[ "${1:-}" = -k ] && { KEEP=1; shift; }
ONLY=("$@")

SOCK=exmtop-ui-$$
WORK=$(mktemp -d /tmp/exmtop-ui.XXXXXX)
T="tmux -L $SOCK"
PASS=0 FAIL=0 N=0
CUR=""

# prints "TTY=icanon echo" when the terminal was given back cooked
TTYMODES='printf TTY=; stty -a | tr " ;" "\\n\\n" | grep -x -e icanon -e echo | tr "\\n" " "; echo'

cleanup() {
	[ "$KEEP" = 1 ] || $T kill-server 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# start W H [ENV=VAL...] -- ARGS...: run exmtop in a fresh session "t".
start() {
	local w=$1 h=$2 envs=() cmd
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	$T kill-session -t t 2>/dev/null
	rm -rf "$WORK/home" "$WORK/pid"
	mkdir -p "$WORK/home"
	cmd="echo \$\$ > $WORK/pid; exec env -u NO_COLOR HOME=$WORK/home"
	cmd+=" XDG_CONFIG_HOME= LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color"
	for e in "${envs[@]}"; do cmd+=" $(printf %q "$e")"; done
	cmd+=" $(printf %q "$EXMTOP")"
	for a in "$@"; do cmd+=" $(printf %q "$a")"; done
	# after exmtop: its exit status and the terminal modes it left
	$T new-session -d -s t -x "$w" -y "$h" \
		"sh -c '$cmd'; echo EXIT=\$?; $TTYMODES; sleep 600"
	# tmux sizes a detached session from default-size; force ours
	$T resize-window -t t -x "$w" -y "$h" 2>/dev/null
}

# screen, keys, typed, wait_for, wait_gone
. "$(dirname "$0")/../tmux.sh"

fail() {
	echo "  FAIL: $*"
	echo "  --- screen ---"
	screen | sed 's/^/  | /'
	FAIL_CUR=1
}

expect() { wait_for "$1" "${2:-5}" || fail "expected '$1'"; }
expect_not() { wait_gone "$1" "${2:-5}" || fail "unexpected '$1'"; }

# row N: the Nth table row (1-based) below the column header line that
# starts with HDR (regex), trimmed.
row() {
	screen | awk -v n="$1" -v hdr="$2" '
		found && ++k == n { sub(/^ +/, ""); print; exit }
		$0 ~ hdr { found = 1 }'
}
# first field of row N
row_pid() { row "$1" "$2" | awk '{ print $1 }'; }

expect_row() { # expect_row N HDR REGEX
	local i r
	for ((i = 0; i < 100; i++)); do
		r=$(row "$1" "$2")
		[[ $r =~ $3 ]] && return 0
		sleep 0.05
	done
	fail "row $1 is '$r', expected /$3/"
}

nrows() { # rows in the table (non-empty lines below the header, above
	# the bottom line)
	screen | awk -v hdr="$1" '
		found && NF { k++ } $0 ~ hdr { found = 1 } END { print k - 1 }'
}

expect_exit() { # expect_exit STATUS
	wait_for "EXIT=$1" 5 || fail "expected exit status $1"
	# the terminal is restored: exmtop's screen is gone, line editing
	# and echo are back on
	screen | grep -q "F1Help" && fail "exmtop screen left behind"
	wait_for "TTY=icanon echo" 2 || fail "terminal modes not restored"
	return 0
}

run() {
	local name=$1
	if [ ${#ONLY[@]} -gt 0 ]; then
		local o hit=0
		for o in "${ONLY[@]}"; do [ "$o" = "$name" ] && hit=1; done
		[ $hit = 1 ] || return 0
	fi
	N=$((N + 1))
	FAIL_CUR=0
	CUR=$name
	"t_$name"
	if [ $FAIL_CUR = 0 ]; then
		PASS=$((PASS + 1))
		echo "ok $N - $name"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $N - $name"
	fi
	$T kill-session -t t 2>/dev/null
}

PH='^ +PID'	# process table header
FH='^KIND '	# files table header

# ---- the tests ----

t_default_screen() {
	start 80 24 -- --source fixture:basic
	expect "source: fixture (basic)"
	expect "7 procs"
	expect "EFF.RES▼"
	expect "Processes"
	expect_row 1 "$PH" '^302 postgres .* postgres$'
	expect_row 6 "$PH" '^1 root '
	expect_row 7 "$PH" '^400 alice '
	[ "$(nrows "$PH")" = 7 ] || fail "expected 7 rows, got $(nrows "$PH")"
	expect "F1Help"
	keys q
	expect_exit 0
}

t_sort() {
	start 80 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 '
	keys r			# reverse: smallest effective resident first
	expect "EFF.RES▲"
	expect_row 1 "$PH" '^400 '
	keys '<'		# sort by the column left of EFF.RES: RES
	expect "RES▼"
	expect_row 1 "$PH" '^302 '
	expect_row 7 "$PH" '^400 '
	keys o			# sort menu: first entry is PID
	expect "Sort by"
	keys Home Enter
	expect "PID▲"
	expect_row 1 "$PH" '^1 root'
	expect_row 7 "$PH" '^400 '
	keys '>'		# next column: USER (ascending)
	expect "USER▲"
	expect_row 1 "$PH" '^(200|201) alice'
	keys q
	expect_exit 0
}

t_sort_option() {
	start 80 24 -- --source fixture:basic -o -pid
	expect "PID▲"
	expect_row 1 "$PH" '^1 root'
	keys q
	expect_exit 0
}

t_drill_down() {
	start 80 24 -- --source fixture:basic
	expect_row 1 "$PH" '^302 '
	keys Down Down Down Enter	# bash 201 -> its files
	expect "Processes > bash (201)"
	expect_row 1 "$FH" '^anon +1 +2 .*\[anon\]$'
	expect_row 2 "$FH" 'libc\.so\.6$'
	expect_row 3 "$FH" '\[stack\]$'
	keys Down Enter			# libc -> its mappings in 201
	expect "bash (201) > /usr/lib/x86_64-linux-gnu/libc.so.6: mappings"
	expect_row 1 '^ +ADDRESS' '^7f0000008000 rw-p +8000 '
	expect_row 2 '^ +ADDRESS' '^7f0000000000 r-xp +0 '
	keys BSpace			# back: libc still selected
	expect_not "mappings"
	expect "[2/3]"
	keys Left
	expect_not "bash (201)"
	expect "[4/7]"			# and 201 still selected
	keys Escape
	expect "Processes"
	keys q
	expect_exit 0
}

t_files_pane() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys Tab
	expect "Files"
	expect_row 1 "$FH" '^shmem +3 .*/SYSV00000000$'
	expect_row 2 "$FH" '^file +6 .*libc.so.6$'
	keys Enter			# file -> processes mapping it
	expect "Files > /SYSV00000000"
	expect_row 1 "$PH" '^302 postgres'
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 processes"
	keys Tab			# the processes pane kept its place
	expect_not "Files >"
	expect "[1/7]"
	keys Tab
	expect "Files > /SYSV00000000"
	keys q
	expect_exit 0
}

t_files_option() {
	start 80 24 -- --source fixture:basic --files
	expect "Files"
	expect_row 1 "$FH" '/SYSV00000000$'
	keys q
	expect_exit 0
}

t_filter() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	typed '\'
	expect "Filter:"
	typed alice
	expect "[1/3]"			# narrows live, while typing
	keys Enter
	expect "filter:alice"
	expect_row 1 "$PH" '^201 alice'
	expect_row 3 "$PH" '^400 alice'
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 rows"
	keys F4 C-u
	typed checkpointer		# matches the command line
	keys Enter
	expect "filter:checkpointer"
	[ "$(nrows "$PH")" = 2 ] || fail "expected 2 rows"
	keys F4 Escape			# Esc clears
	expect "/7]"
	expect_not "filter:"
	typed '\'
	typed zzz
	keys Enter
	expect "(no rows match the filter)"
	keys q
	expect_exit 0
}

t_search() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	keys /
	typed worker
	keys Enter
	expect "[7/7]"
	keys /
	typed bash
	keys Enter
	expect "[4/7]"
	keys n
	expect "[5/7]"
	keys N
	expect "[4/7]"
	keys /
	typed init
	keys Escape			# cancelled: back where it was
	expect "[4/7]"
	keys q
	expect_exit 0
}

t_user_filter() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	keys u
	expect "Show processes of"
	expect "(all users)"
	keys Down Enter			# users sorted: alice first
	expect "user:alice"
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 rows"
	keys u Home Enter
	expect_not "user:"
	expect "[4/7]"			# still on 201, now row 4 of 7
	keys q
	start 80 24 -- --source fixture:basic -u postgres
	expect "user:postgres"
	expect "[1/3]"
	keys q
	expect_exit 0
}

t_group() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys g
	expect "by program"
	expect_row 1 '^ NPROC' '^3 .* postgres$'
	[ "$(nrows '^ NPROC')" = 4 ] || fail "expected 4 program groups"
	keys Enter			# a group lists its processes
	expect "Groups > postgres"
	expect_row 1 "$PH" '^302 postgres'
	[ "$(nrows "$PH")" = 3 ] || fail "expected 3 processes"
	keys g				# per user
	expect "by user"
	[ "$(nrows '^ NPROC')" = 3 ] || fail "expected 3 users"
	keys g				# per cgroup
	expect "by cgroup"
	expect "…tgresql.service"	# paths keep their end
	keys F5				# back to processes
	expect_not "by "
	expect "[1/7]"
	keys q
	expect_exit 0
}

t_help() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys h
	expect "exmtop - what each process really costs"
	expect "drill down"
	keys x
	expect "F1Help"
	keys '?'
	expect "back up the breadcrumb"
	keys Escape
	expect "F1Help"
	keys F1
	expect "choose the sort column"
	keys Space
	expect "F1Help"
	keys q
	expect_exit 0
}

t_full_command() {
	start 160 24 -- --source fixture:basic
	expect_row 1 "$PH" ' postgres$'
	keys c
	expect "postgres: checkpointer"
	expect "-D /var/lib/postgresql/15/main"
	keys c
	expect_not "checkpointer"
	keys q
	start 120 24 -- --source fixture:basic -c
	expect "postgres: checkpointer"
	keys q
	expect_exit 0
}

t_columns() {
	start 80 24 -- --source fixture:basic
	expect "    PID USER"
	keys f
	expect "Columns of processes"
	expect "[x] PID"
	keys Space			# PID off
	expect "[ ] PID"
	keys Escape
	expect_not "PID"
	expect_row 1 '^USER' '^postgres'
	keys q
	expect_exit 0
	# not saved: nothing written without W
	[ -e "$WORK/home/.config/exmtop/exmtoprc" ] &&
		fail "settings written without W"
	return 0
}

t_fields_option() {
	start 80 24 -- --source fixture:basic --fields pid,erss,pss,cmd
	expect "Processes"
	screen | grep -qE '^ +PID +EFF.RES▼ +PSS +COMMAND' ||
		fail "columns are not pid,erss,pss,cmd"
	keys q
	expect_exit 0
	start 80 24 -- --source fixture:basic --fields pid,bogus
	expect_exit 2
	expect "unknown field 'bogus'"
}

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
	$T kill-session -t t
	$T new-session -d -s t -x 80 -y 24 "env HOME=$WORK/home LANG=C.UTF-8 TERM=xterm-256color $EXMTOP --source fixture:basic; echo EXIT=\$?; sleep 600"
	expect "by program"
	keys g g g
	expect_not "by "
	screen | grep -q '^USER ' || fail "saved columns not used"
	keys q
}

t_delay_pause() {
	start 80 24 -- --source fixture:basic -d 0.5
	expect "every 0.5s"
	keys d
	expect "Delay in seconds:"
	typed 7
	keys Enter
	expect "every 7s"
	keys p
	expect "[paused]"
	keys p
	expect_not "[paused]"
	keys Space
	expect "every 7s"
	keys q
	expect_exit 0
}

t_iterations() {
	start 80 24 -- --source fixture:basic -d 0.2 -n 3
	expect_exit 0
}

t_hostile_names() {
	start 120 24 -- --source fixture:hostile -c
	expect 'evil\e[2J\e[H --arg \e[5m0\x01'
	expect 'osc\e]0;pwned\x07'
	expect 'tab\there'
	expect 'nl\nline'
	expect 'bad\xff\xfeutf8'
	expect 'del\x7f'
	expect 'naïve ☃'
	expect '漢字wide'
	# the raw sequences did nothing: header still on line 1, title
	# not changed
	screen | head -1 | grep -q '^exmtop - fixture' || fail "screen cleared"
	[ "$($T display -p -t t '#{pane_title}')" != pwned ] ||
		fail "OSC title sequence reached the terminal"
	keys Tab
	expect '/tmp/evil\e[31mred.so'
	expect '/tmp/\xff\xfe.so'
	expect '/tmp/☃ snow.so'
	keys Tab
	expect "[1/9]"
	keys Enter			# crumbs escape too
	expect 'Processes > osc\e]0;pwned\x07 (508)'
	keys q
	expect_exit 0
}

t_resize() {
	start 200 50 -- --source fixture:many
	expect "2000 procs"
	expect "[1/2000]"
	keys End
	expect "[2000/2000]"
	$T resize-window -t t -x 20 -y 5
	wait_for "[2000/" 2 || fail "no position at 20x5"
	[ "$(screen | wc -l)" -le 5 ] || fail "more than 5 lines"
	screen | grep -q . || fail "empty screen at 20x5"
	$T resize-window -t t -x 80 -y 24
	expect "[2000/2000]"
	expect "F1Help"
	$T resize-window -t t -x 1 -y 1
	sleep 0.3
	$T resize-window -t t -x 30 -y 3
	sleep 0.3
	$T resize-window -t t -x 200 -y 50
	expect "2000 procs"
	keys Home
	expect "[1/2000]"
	keys PageDown
	expect "[4"			# one page further
	keys q
	expect_exit 0
}

t_tiny_start() {
	start 20 5 -- --source fixture:basic
	expect "Processes"
	expect "PID"
	keys Enter
	expect "(302)"
	keys h
	expect "exmtop - what"
	keys x q
	expect_exit 0
}

t_signals() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	keys C-c
	expect_exit 130
	start 80 24 -- --source fixture:basic
	expect "Processes"
	kill -TERM "$(cat "$WORK/pid")"
	expect_exit 143
	start 80 24 -- --source fixture:basic
	expect "Processes"
	kill -HUP "$(cat "$WORK/pid")"
	expect_exit 129
	# a crash restores the terminal too, then dies of its signal
	start 80 24 -- --source fixture:basic
	expect "Processes"
	kill -SEGV "$(cat "$WORK/pid")"
	expect_exit 139
}

t_terms() {
	local term
	for term in xterm-256color screen tmux linux vt100; do
		start 80 24 TERM=$term -- --source fixture:basic
		expect "Processes"
		expect_row 1 "$PH" '^302 postgres'
		keys Down Enter
		expect "Processes > postgres (301)"
		keys q
		expect_exit 0
	done
}

t_no_color() {
	start 80 24 -- --source fixture:basic
	expect "Processes"
	screen_esc | grep -q $'\e\\[3[0-7]m\\|\e\\[4[0-7]m\\|\e\\[[0-9;]*3[0-7]m' ||
		fail "no colours by default"
	keys q
	start 80 24 NO_COLOR=1 -- --source fixture:basic
	expect "Processes"
	screen_esc | grep -q $'\e\\[[0-9;]*[34][0-7]m' &&
		fail "colour escape with NO_COLOR"
	screen_esc | grep -q $'\e\\[[0-9;]*7m' ||
		fail "no reverse video for the header in monochrome"
	keys q
	start 80 24 -- --source fixture:basic --no-color
	expect "Processes"
	screen_esc | grep -q $'\e\\[[0-9;]*[34][0-7]m' &&
		fail "colour escape with --no-color"
	keys q
	start 80 24 TERM=vt100 -- --source fixture:basic
	expect "Processes"
	screen_esc | grep -q $'\e\\[[0-9;]*[34][0-7]m' &&
		fail "colour escape on vt100"
	keys q
	expect_exit 0
}

t_bad_source() {
	start 80 24 -- --source fixture:nope
	expect_exit 1
	expect "unknown fixture"
}

t_scroll_many() {
	start 80 24 -- --source fixture:many -o pid
	expect "[1/2000]"
	keys PageDown PageDown
	expect "[3"
	keys End
	expect "[2000/2000]"
	expect_row 1 "$PH" '^[0-9]+ '
	keys Home
	expect "[1/2000]"
	keys q
	expect_exit 0
}

t_typeahead() {
	# keys typed in one burst, across a refresh and a change of view,
	# all act on the rows they are meant for
	start 80 24 -- --source fixture:basic -d 0.3
	expect "[1/7]"
	keys Down Enter
	expect "Processes > postgres (301)"
	sleep 1				# a few refreshes below
	keys BSpace Down Enter
	expect "Processes > postgres (300)"
	keys Escape Tab Enter
	expect "Files > /SYSV00000000"
	keys q
	expect_exit 0
}

# ui_ticks: CPU clock ticks of exmtop's UI thread so far
ui_ticks() {
	local p
	p=$(cat "$WORK/pid")
	sed 's/.*) //' "/proc/$p/task/$p/stat" | awk '{ print $12 + $13 }'
}

t_idle_cpu() {
	local a b
	# scans (3 s) longer than the interval (1 s), a prompt open and an
	# expired message: the UI thread must still sleep, not spin
	start 80 24 -- --source fixture:slow -d 1
	expect "7 procs"
	keys c /
	expect "Search:"
	sleep 3.5
	a=$(ui_ticks)
	sleep 3
	b=$(ui_ticks)
	[ $((b - a)) -lt 10 ] ||
		fail "UI thread used $((b - a)) ticks in 3 s while idle"
	keys Escape q
	expect_exit 0
}

# click X Y [N]: N (default 1) left clicks at column X, line Y (0-based),
# in the X10 mouse encoding ncurses asks tmux for
click() {
	local i hx hy seq=""
	hx=$(printf %x $((33 + $1)))
	hy=$(printf %x $((33 + $2)))
	for ((i = 0; i < ${3:-1}; i++)); do
		seq+=" 1b 5b 4d 20 $hx $hy 1b 5b 4d 23 $hx $hy"
	done
	# shellcheck disable=SC2086
	$T send-keys -t t -H $seq
}

t_mouse() {
	start 80 24 -- --source fixture:basic
	expect "[1/7]"
	click 4 3			# the PID header sorts by pid
	expect "PID▲"
	expect_row 1 "$PH" '^1 root'
	click 4 3			# again: reversed
	expect "PID▼"
	expect_row 1 "$PH" '^400 alice'
	click 10 6			# third row
	expect "[3/7]"
	click 10 7 2			# double click: into the 4th row
	expect "Processes > postgres (300)"
	click 2 23			# F1 on the function bar
	expect "drill down"
	keys q q
	expect_exit 0
}

t_responsive() {
	local t0 t1
	# every snapshot after the first takes 3 s (fixture "slow")
	start 80 24 -- --source fixture:slow -d 60
	expect "7 procs"
	keys Space
	expect "scanning..." 2
	t0=$(date +%s%N)
	keys Down Down
	expect "[3/7]" 2
	t1=$(date +%s%N)
	# the keys were handled during the scan, well before it ended
	screen | grep -qF "scanning..." || fail "scan ended before the keys"
	[ $(( (t1 - t0) / 1000000 )) -lt 1500 ] ||
		fail "keys took $(( (t1 - t0) / 1000000 )) ms during a scan"
	keys q				# quitting does not wait for the scan
	t0=$(date +%s%N)
	expect_exit 0
	t1=$(date +%s%N)
	[ $(( (t1 - t0) / 1000000 )) -lt 1500 ] ||
		fail "quit waited $(( (t1 - t0) / 1000000 )) ms for the scan"
}

ALL=(default_screen sort sort_option drill_down files_pane files_option
     filter search user_filter group help full_command columns
     fields_option save delay_pause iterations hostile_names resize
     tiny_start signals terms no_color bad_source scroll_many responsive
     mouse idle_cpu typeahead)
for t in "${ALL[@]}"; do
	run "$t"
done
echo "# $PASS passed, $FAIL failed"
[ $FAIL = 0 ]

# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/ui/lib.sh - sourced by every screen test of the live UI (one case
# a file, as tmux's regress/): drive the real exmtop binary in tmux
# (new-session -d -x W -y H, send-keys, capture-pane -p) against the
# fixture source, whose every figure is known (core/source_fixture.c).
#
# A case: tests/ui/NAME.sh defines t_NAME and ends with "run_case NAME".
# Run one from the build directory (or with EXMTOP=/path/to/exmtop):
#   ../tests/ui/sort.sh [-k]      (-k keeps the tmux server to inspect)
# Exit status: 0 passed, 1 failed, 77 (skip) without tmux.
set -u

EXMTOP=${EXMTOP:-$PWD/exmtop}
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 77; }
[ -x "$EXMTOP" ] || { echo "no exmtop binary at $EXMTOP"; exit 1; }

KEEP=0
[ "${1:-}" = -k ] && KEEP=1

SOCK=exmtop-ui-$$
WORK=$(mktemp -d /tmp/exmtop-ui.XXXXXX)
T="tmux -L $SOCK"

# prints "TTY=icanon echo" when the terminal was given back cooked
TTYMODES='printf TTY=; stty -a | tr " ;" "\\n\\n" | grep -x -e icanon -e echo | tr "\\n" " "; echo'

FAIL_CUR=0

cleanup() {
	[ "$KEEP" = 1 ] || { end_t; $T kill-server 2>/dev/null; }
	rm -rf "$WORK"
	# a stall found only here (the script ended early) fails it too
	[ "$FAIL_CUR" = 0 ] || exit 1
}
trap cleanup EXIT

# end_t: end session "t" (tests/tmux.sh, end_session); a stall fails the
# current case
end_t() { end_session "$WORK/pid" || FAIL_CUR=1; }

# start W H [ENV=VAL...] -- ARGS...: run exmtop in a fresh session "t",
# with an empty HOME.
start() {
	keep_server
	end_t
	rm -rf "$WORK/home"
	mkdir -p "$WORK/home"
	launch "$@"
}

# launch W H [ENV=VAL...] -- ARGS...: start, keeping HOME (after end_t).
launch() {
	local w=$1 h=$2 envs=() cmd
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	keep_server
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

# screen, keys, typed, wait_for, wait_gone, keep_server, gone, stalled,
# end_exmtop, end_session
. "$(dirname "${BASH_SOURCE[0]}")/../tmux.sh"

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
	# out of the alternate screen, no mouse reporting left on
	local modes
	modes=$($T display -p -t t '#{alternate_on}#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}#{mouse_all_flag}')
	[ "$modes" = 00000 ] ||
		fail "alternate screen or mouse reporting left on ($modes)"
	return 0
}


PH='^ +PID'	# process table header
FH='^KIND '	# files table header

# ui_ticks: CPU clock ticks of exmtop's UI thread so far
ui_ticks() {
	local p
	p=$(cat "$WORK/pid")
	sed 's/.*) //' "/proc/$p/task/$p/stat" | awk '{ print $12 + $13 }'
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

# record_fixtures FILE: a recording of two snapshots, fixture:basic then
# fixture:hostile (other processes, other figures)
record_fixtures() {
	"$EXMTOP" --record "$1" --source fixture:basic -n 1 &&
		"$EXMTOP" --record "$1" --source fixture:hostile -n 1 ||
		fail "recording the fixtures"
}

# run_case NAME: run t_NAME, report, exit with its status
run_case() {
	FAIL_CUR=0
	"t_$1"
	end_t
	if [ $FAIL_CUR = 0 ]; then
		echo "ok - $1"
		exit 0
	fi
	echo "not ok - $1"
	exit 1
}

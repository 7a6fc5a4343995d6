#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen test (root) of the ELF views of the live UI: build the test
# libraries of tests/live/elf/, load them, drive the real exmtop in tmux
# (process > files > 'e' sections > Enter symbols, mapping > 'e'
# sections, mapping > Enter page strip, the demangling toggle, a non-file
# row) and check the screen.
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no tmux or cc).
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
. "$HERE/liveui.sh"
for t in "$CC" "$CXX"; do
	command -v "$t" >/dev/null || { echo "SKIP: no $t"; exit 77; }
done

check() { # check WHAT TEXT [SECS]
	if wait_for "$2" "${3:-5}"; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		echo "FAIL: $1: no '$2' on screen"
		screen | sed 's/^/  | /'
	fi
}

search() { # move the cursor to the first row matching TEXT
	keys /
	typed "$1"
	keys Enter
	sleep 0.2
}

common=(-shared -fPIC -O1 -g -Wl,-z,max-page-size=0x10000)
"$CC" "${common[@]}" -o "$WORK/libelft.so" "$HERE/elf/libelft.c" &&
"$CXX" "${common[@]}" -o "$WORK/libelfcxx.so" "$HERE/elf/libelfcxx.cc" &&
"$CC" -o "$WORK/elfload" "$HERE/elf/elfload.c" -ldl || exit 1

start_loader() { # start_loader LIB FN: pid in LOADER
	local fifo=$WORK/ready.$RANDOM
	mkfifo "$fifo"
	"$WORK/elfload" "$1" "$2" > "$fifo" &
	LOADER=$!
	PIDS+=("$LOADER")
	read -r _ < "$fifo"
}
start_loader "$WORK/libelft.so" elft_touch
P1=$LOADER
start_loader "$WORK/libelfcxx.so" elft_cxx
P2=$LOADER

run_t 160 40 \
	"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color HOME=$WORK \
	$EXMTOP -d 60 -p $P1,$P2"
check "processes pane" "elfload"

# process > its files > 'e' on the library: sections of that process.
# (Search matches command lines: each loader's names its library.)
search libelft.so
keys Enter
check "files of the process" "libelft.so"
search libelft
keys e
check "sections view" "libelft.so: sections"
check "sections: .bss row" ".bss"
check "sections: gap row" "[gap]"
check "sections: .rodata row" ".rodata"

# Enter on .data: its symbols, from .symtab.
search .data
keys Enter
check "symbols view" ".data: symbols (symtab)"
check "symbols: d_full" "d_full"
check "symbols: d_half" "d_half"

# Back twice, then mapping > 'e' gives the sections too; Enter on a
# mapping its page strip.
keys BSpace
check "back to sections" "libelft.so: sections"
keys BSpace
check "back to files" "libelft.so"
search libelft
keys Enter
check "mappings" "mappings"
keys e
check "sections from a mapping" "libelft.so: sections"
keys BSpace Enter
check "page strip of a mapping" ": pages"
keys BSpace BSpace

# A row that is not a file: say so instead of an empty list.
search "[stack]"
keys e
check "not a file mapping" "(not a file mapping)"
keys BSpace BSpace

# C++: demangled names, and 'm' shows the mangled ones.
search libelfcxx.so
keys Enter
search libelfcxx
keys e
check "C++ sections" "libelfcxx.so: sections"
search .text
keys Enter
check "C++ symbols demangled" "exm::Widget::grow(int)"
keys m
check "demangling off" "_ZN3exm6Widget4growEi"
keys m
check "demangling on again" "exm::Widget::grow(int)"

# Files pane: 'e' gives the sections across all processes.
keys BSpace BSpace BSpace BSpace Tab
search libelft
keys e
check "sections across processes" "sections (all processes)"
search .bss
keys e
check "per-process breakdown of .bss" ".bss: processes"
check "the loader process listed" "$P1"

quit_t
echo "test_elf_ui: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]

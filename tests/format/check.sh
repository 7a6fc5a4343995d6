#!/bin/sh
# tests/format/check.sh [--fix]: every C source and header of core/, tui/
# and tests/ is as the top .clang-format lays it out (kernel/ is left to
# checkpatch: tests/kmod/run). Fails naming the files that are not; with
# --fix (make format) rewrites them. The style was tuned on clang-format 14
# and other versions lay some lines out differently, so it is the one used
# (CLANG_FORMAT= overrides); without it the check skips, saying so.
top=${srcdir:-.}
[ -f "$top/.clang-format" ] || top=$(dirname "$0")/../..
cf=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$cf" >/dev/null 2>&1; then
	echo "SKIP: $cf not found (scripts/deps.sh installs it: exm_install test)"
	exit 77
fi
cd "$top" || exit 99
files=$(find core tui tests -name '*.[ch]' -type f | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no C files under $top"; exit 1; }
if [ "$1" = --fix ]; then
	printf '%s\n' $files | xargs -n 32 -P 2 "$cf" -i --style=file
	exit
fi
bad=$(printf '%s\n' $files | xargs -n 32 -P 2 "$cf" --dry-run -Werror \
	--style=file 2>&1 | sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error: .*/\1/p' |
	LC_ALL=C sort -u)
if [ -n "$bad" ]; then
	echo "FAIL: not formatted as .clang-format says (make format fixes):"
	printf '  %s\n' $bad
	exit 1
fi
echo "PASS: $(printf '%s\n' $files | wc -l) C files formatted as .clang-format says"

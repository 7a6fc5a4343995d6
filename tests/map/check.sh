#!/bin/sh
# tests/map/check.sh: tests/README maps every source file to the tests that
# cover it. Fails naming each C file or header of core/, tui/ (its rooms
# too) and kernel/ that has no entry (a new file fails until it is mapped),
# each entry whose file is gone, each entry that names no test, and each
# test named that is not a file under tests/.
top=${srcdir:-.}
[ -f "$top/tests/README" ] || top=$(dirname "$0")/../..
cd "$top" || exit 99
map=tests/README
[ -f "$map" ] || { echo "FAIL: no $map"; exit 1; }
# Entries: "path[, path...]: test test ...", a test written relative to
# tests/; a line that starts with a space or a tab continues the one
# before; '#' starts a comment line.
entries=$(awk '
	/^#/ || /^$/ { next }
	/^[ \t]/ { if (cur != "") cur = cur " " $0; next }
	{ if (cur != "") print cur; cur = $0 }
	END { if (cur != "") print cur }' "$map")
fail=0
listed=$(printf '%s\n' "$entries" | sed 's/:.*//' | tr ',' ' ' | tr -s ' \t' '\n' |
	grep -v '^$' | LC_ALL=C sort)
for f in $(find core tui kernel -name '*.[ch]' -type f | LC_ALL=C sort); do
	printf '%s\n' "$listed" | grep -qxF "$f" ||
		{ echo "FAIL: $f is not in $map: name the tests that cover it"; fail=1; }
done
for f in $(printf '%s\n' "$listed" | uniq -d); do
	echo "FAIL: $f has more than one entry in $map"; fail=1
done
for f in $listed; do
	[ -f "$f" ] || { echo "FAIL: $map names $f, which is not in the tree"; fail=1; }
done
n=0
printf '%s\n' "$entries" | {
	while IFS= read -r e; do
		tests=$(printf '%s\n' "${e#*:}" | tr -s ' \t' '\n' | grep -v '^$')
		[ -n "$tests" ] ||
			{ echo "FAIL: $map: no test named for ${e%%:*}"; fail=1; }
		for t in $tests; do
			[ -f "tests/$t" ] ||
				{ echo "FAIL: $map names tests/$t (for ${e%%:*}), which does not exist"; fail=1; }
		done
		n=$((n + 1))
	done
	[ $fail = 0 ] || exit 1
	echo "PASS: $n entries in $map, every source file mapped, every test named exists"
}

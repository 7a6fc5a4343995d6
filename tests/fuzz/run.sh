#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the ELF fuzz target with clang's libFuzzer (+ASan +UBSan) and run
# it for a bounded time on the corpus; CI runs this.
#
#   tests/fuzz/run.sh [SECONDS] [--merge]
#
# SECONDS defaults to 60. New inputs go to a scratch directory; with
# --merge, the ones that add coverage are merged into tests/fuzz/corpus
# (review and commit them: they are replayed by make check). Exit status
# is non-zero when the fuzzer finds a crash (the input is kept in the
# scratch directory, whose path is printed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-60}
merge=${2:-}
cc=${CLANG:-clang}
work=${FUZZ_WORK:-$(mktemp -d /tmp/exm_fuzz.XXXXXX)}
mkdir -p "$work/new"

core="elf.c elfcache.c elf_table.c snapshot.c account.c pagecount.c parallel.c hugemem.c"
srcs=""
for f in $core; do srcs="$srcs $top/core/$f"; done
# shellcheck disable=SC2086
$cc -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -I"$top" \
	$(pkg-config --cflags libelf) \
	"$here/fuzz_elf.c" $srcs \
	$(pkg-config --libs libelf) -lstdc++ -lm -lpthread -o "$work/fuzz_elf"

echo "fuzz: running $secs s in $work"
status=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$work/fuzz_elf" -max_total_time="$secs" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/" "$work/new" "$here/corpus" \
	2>"$work/log" || status=$?
grep -E "^stat::|Done|ERROR|SUMMARY" "$work/log" || true
if [ "$status" -ne 0 ]; then
	echo "fuzz: FAILED (status $status); log and crash input in $work"
	tail -40 "$work/log"
	exit 1
fi
if [ "$merge" = "--merge" ]; then
	"$work/fuzz_elf" -merge=1 -max_len=65536 "$here/corpus" "$work/new" \
		2>>"$work/log"
	echo "fuzz: corpus now $(ls "$here/corpus" | wc -l) files"
fi
echo "fuzz: OK"

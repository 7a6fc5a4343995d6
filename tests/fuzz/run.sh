#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the fuzz targets with clang's libFuzzer (+ASan +UBSan) and run each
# for a bounded time on its corpus; CI runs this. Targets: fuzz_elf (the
# ELF parser and its build-id reading, corpus tests/fuzz/corpus) and
# fuzz_record (the recording reader, corpus tests/fuzz/corpus_record).
#
#   tests/fuzz/run.sh [SECONDS] [--merge]
#
# SECONDS (per target) defaults to 60. New inputs go to a scratch
# directory; with --merge, the ones that add coverage are merged into the
# corpus (review and commit them: they are replayed by make check). Exit
# status is non-zero when the fuzzer finds a crash (the input is kept in
# the scratch directory, whose path is printed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-60}
merge=${2:-}
cc=${CLANG:-clang}
work=${FUZZ_WORK:-$(mktemp -d /tmp/exm_fuzz.XXXXXX)}
mkdir -p "$work"

core_elf="elf.c ownfiles.c elfcache.c elf_table.c snapshot.c account.c pagecount.c parallel.c hugemem.c"
core_record="record_read.c record_write.c record_schema.c ownfiles.c meminfo.c sysview.c format.c fields.c builder.c procfs.c elf.c elfcache.c snapshot.c account.c pagecount.c parallel.c hugemem.c"

# build NAME CORE_FILES
build() {
	srcs=""
	for f in $2; do srcs="$srcs $top/core/$f"; done
	# shellcheck disable=SC2086
	$cc -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -D_GNU_SOURCE -I"$top" \
		$(pkg-config --cflags libelf sqlite3) \
		"$here/$1.c" $srcs \
		$(pkg-config --libs libelf sqlite3) -lstdc++ -lm -lpthread \
		-o "$work/$1"
}

# fuzz NAME CORPUS MAX_LEN
fuzz() {
	mkdir -p "$work/new-$1"
	echo "fuzz: $1 running $secs s in $work"
	status=0
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$work/$1" -max_total_time="$secs" -max_len="$3" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$1-" "$work/new-$1" "$here/$2" \
		2>"$work/$1.log" || status=$?
	grep -E "^stat::|Done|ERROR|SUMMARY" "$work/$1.log" || true
	if [ "$status" -ne 0 ]; then
		echo "fuzz: $1 FAILED (status $status); log and crash input in $work"
		tail -40 "$work/$1.log"
		exit 1
	fi
	if [ "$merge" = "--merge" ]; then
		"$work/$1" -merge=1 -max_len="$3" "$here/$2" "$work/new-$1" \
			2>>"$work/$1.log"
		echo "fuzz: $2 now $(ls "$here/$2" | wc -l) files"
	fi
}

build fuzz_elf "$core_elf"
build fuzz_record "$core_record"
fuzz fuzz_elf corpus 65536
fuzz fuzz_record corpus_record 65536
echo "fuzz: OK"

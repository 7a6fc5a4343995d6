#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The command line itself, driven from its tables rather than from a list
# kept here: every long option of tui/opts.c's option table (and its short
# form) is known to the parser, listed by --help and by --man; every field
# key of core/fields.c's table is printed by --list-fields; -V prints the
# version configure.ac gives and the module ABI exmap_abi.h gives. Then
# recordings: --source replay:FILE shows
# what --replay FILE shows, a recorder stopped by SIGINT or SIGTERM leaves a
# sound recording of what it took and exits 0, and the README's SQL that
# recomputes effective resident from a recording's page runs gives what
# exmtop printed.
#
# Usage: tests/golden/test_cli.sh   (from the build directory, or EXMTOP=)
set -u

EXMTOP=${EXMTOP:-$PWD/exmtop}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
[ -x "$EXMTOP" ] || { echo "no exmtop binary at $EXMTOP"; exit 1; }
EXMTOP=$(cd "$(dirname "$EXMTOP")" && pwd)/$(basename "$EXMTOP")
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
ko() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }

WORK=$(mktemp -d /tmp/exmtop-cli.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

help=$("$EXMTOP" --help 2>&1) && ok "--help exits 0" || ko "--help exit status"
man=$("$EXMTOP" --man 2>&1 | sed 's/\\-/-/g; s/\\f[BIRP]//g') &&
	ok "--man exits 0" || ko "--man exit status"
printf '%s\n' "$man" | grep -q '^\.TH EXMTOP' && ok "--man is a man page" ||
	ko "--man has no .TH EXMTOP"
ver=$(sed -n 's/^AC_INIT(\[exmtop\], \[\([^]]*\)\].*/\1/p' "$TOP/configure.ac")
abi=$(sed -n 's/^#define EXMAP_ABI_VERSION \([0-9]*\).*/\1/p' \
	"$TOP/kernel/exmap_abi.h")
want="exmtop $ver (exmap module ABI $abi)"
got=$("$EXMTOP" -V 2>&1)
[ -n "$ver" ] && [ -n "$abi" ] && [ "$got" = "$want" ] && ok "-V: $got" ||
	ko "-V printed '$got', want '$want'"
[ "$("$EXMTOP" --version 2>&1)" = "$got" ] && ok "--version" || ko "--version"

# the option table: { .name = "NAME", .short_name = 'S', ...
opts=$(awk '/^const struct tui_option tui_options\[\]/ { t = 1 } t && /^};/ { t = 0 } t' \
	"$TOP/tui/opts.c" |
	grep -o '\.name = "[^"]*"\(, \.short_name = '"'"'.'"'"'\)\?' |
	sed 's/\.name = "\([^"]*\)"\(, \.short_name = '"'"'\(.\)'"'"'\)\?/\1 \3/')
n=$(printf '%s\n' "$opts" | grep -c .)
[ "$n" -ge 30 ] && ok "$n options in the option table" ||
	ko "only $n options found in tui/opts.c's table"
while read -r name short; do
	[ -n "$name" ] || continue
	grep -qE -- "--$name\b" <<<"$help" || ko "--help does not list --$name"
	grep -qE -- "--$name\b" <<<"$man" || ko "--man does not list --$name"
	# known to the parser: whatever it says of the missing value or the
	# combination, never "unknown option"
	err=$(timeout 10 "$EXMTOP" "--$name" </dev/null 2>&1 >/dev/null)
	grep -q "unknown option" <<<"$err" && ko "--$name unknown: $err"
	if [ -n "$short" ]; then
		grep -qE -- "-$short, --$name\b" <<<"$help" ||
			ko "--help does not pair -$short with --$name"
		err=$(timeout 10 "$EXMTOP" "-$short" </dev/null 2>&1 >/dev/null)
		grep -q "unknown option" <<<"$err" && ko "-$short unknown: $err"
	fi
	PASS=$((PASS + 1))
done <<<"$opts"
echo "# $n options driven"

# the field table: [EXM_F_...] = { .key = "KEY", ...
keys=$(awk '/^const struct exm_field exm_fields\[/ { t = 1 } t && /^};/ { t = 0 } t' \
	"$TOP/core/fields.c" | grep -o '\.key = "[^"]*"' | cut -d'"' -f2)
lf=$("$EXMTOP" --list-fields 2>&1) && ok "--list-fields exits 0" ||
	ko "--list-fields exit status"
nk=0
for k in $keys; do
	nk=$((nk + 1))
	awk '{ print $1 }' <<<"$lf" | grep -qx -- "$k" ||
		ko "--list-fields does not list $k"
done
[ "$nk" -ge 20 ] && ok "--list-fields lists the $nk keys of the field table" ||
	ko "only $nk field keys found in core/fields.c"

cd "$WORK" || exit 1
# --source replay:FILE is --replay FILE
"$EXMTOP" --record two.exmrec --source fixture:basic -n 1 &&
	"$EXMTOP" --record two.exmrec --source fixture:hostile -n 1 ||
	ko "recording the fixtures"
a=$("$EXMTOP" -b --replay two.exmrec --format csv 2>&1)
b=$("$EXMTOP" -b --source replay:two.exmrec --format csv 2>&1)
[ -n "$a" ] && [ "$a" = "$b" ] && grep -q mallory <<<"$b" &&
	grep -q postgres <<<"$b" &&
	ok "--source replay:FILE shows both snapshots as --replay does" ||
	ko "--source replay:FILE differs from --replay FILE"

# --output naming the recording a run writes or reads (or its -wal, through
# a link too) is refused with one line and exit 2, before anything is
# created; the recording is left whole
sum=$(cksum < two.exmrec)
ln -sf two.exmrec own.lnk
for args in "--record new.exmrec --output new.exmrec" \
	"--record new.exmrec --output ./new.exmrec-wal" \
	"--replay two.exmrec --output two.exmrec" \
	"--replay two.exmrec --output own.lnk" \
	"--replay two.exmrec --sections libc.so.6 --output two.exmrec" \
	"--diff two.exmrec --output two.exmrec"; do
	src="-b --source fixture:basic -n 1"
	case "$args" in --replay*) src=-b ;; --diff*) src= ;; esac
	# shellcheck disable=SC2086
	"$EXMTOP" $src $args >own.out 2>own.err
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <own.err)" = 1 ] && [ ! -s own.out ] &&
		grep -q "recording" own.err &&
		[ ! -e new.exmrec ] && [ "$(cksum < two.exmrec)" = "$sum" ] &&
		ok "refused, nothing created or replaced: $args" ||
		ko "$args: exit $rc: $(cat own.err)"
done

# a recorder until stopped, by SIGINT and by SIGTERM: exit 0, a sound file
# holding the snapshots taken. The signal comes once the recording holds two
# (-d 0.2; read beside the writer, as a reader may), not after a fixed time:
# on a loaded machine start-up alone took longer than a second (CI: one
# snapshot after 1 s)
for sig in INT TERM; do
	"$EXMTOP" --record "$sig.exmrec" --source fixture:basic -d 0.2 \
		2>"$sig.err" &
	pid=$!
	for _ in $(seq 600); do
		# read-only: never the one to create the file
		n=$(sqlite3 -readonly -cmd ".timeout 2000" "$sig.exmrec" \
			"SELECT count(*) FROM snapshot" 2>/dev/null) || n=0
		[ "${n:-0}" -ge 2 ] 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] && ok "recorder stopped by SIG$sig exits 0" ||
		ko "recorder stopped by SIG$sig: exit $rc: $(cat "$sig.err")"
	chk=$(sqlite3 "$sig.exmrec" "PRAGMA integrity_check" 2>&1)
	n=$(sqlite3 "$sig.exmrec" "SELECT count(*) FROM snapshot" 2>&1)
	[ "$chk" = ok ] && [ "$n" -ge 2 ] 2>/dev/null &&
		ok "SIG$sig: a sound recording of $n snapshots" ||
		ko "SIG$sig: integrity '$chk', $n snapshots"
	# the time column as the golden file writes it (T)
	out=$("$EXMTOP" -b --replay "$sig.exmrec" -n 1 --format csv 2>&1 |
		sed 's/^\([0-9][0-9]*\),[^,]*,/\1,T,/')
	[ "$out" = "$(cat "$HERE/basic.csv")" ] &&
		ok "SIG$sig: the recording replays the fixture" ||
		ko "SIG$sig: replay differs from basic.csv"
done

# The README's SQL on a recording of two snapshots: its per-process erss
# as recorded, MemFree over time, and effective resident recomputed from
# the page runs, each compared with what exmtop printed of the fixtures.
for fx in basic hostile; do
	"$EXMTOP" -b --source "fixture:$fx" --format json >"$fx.json"
done
out=$(python3 - "$TOP/README.md" two.exmrec basic.json hostile.json 2>&1 <<'PY'
import json, re, sqlite3, subprocess, sys
readme, rec = sys.argv[1], sys.argv[2]
docs = [json.load(open(f)) for f in sys.argv[3:]]
text = open(readme).read()
# indented blocks: a sqlite3 command line's quoted SQL, or bare SQL
blocks, cur = [], []
for line in text.splitlines() + [""]:
    if line.startswith("    "):
        cur.append(line[4:])
    elif cur:
        blocks.append("\n".join(cur))
        cur = []
sqls = []
for b in blocks:
    m = re.match(r'sqlite3 rec\.exmrec "(.*)"\s*$', b, re.S)
    if m:
        sqls.append(m.group(1))
    elif b.lstrip().startswith("WITH page AS"):
        sqls.append(b)
bad = []
if len(sqls) != 3:
    print("README: %d SQL examples found, want 3" % len(sqls))
    sys.exit(0)
def run(q):
    # -json: names with newlines and bars (fixture:hostile) stay whole
    r = subprocess.run(["sqlite3", "-json", rec, q], capture_output=True,
                       encoding="utf-8", errors="replace")
    if r.returncode:
        bad.append("sqlite3 failed: %s" % r.stderr.strip())
        return []
    return [list(x.values()) for x in json.loads(r.stdout or "[]")]
want = {}
for i, d in enumerate(docs, 1):
    for p in d["processes"]:
        want[(i, p["pid"])] = p["erss"]
rows = run(sqls[0])
got = {(int(r[0]), int(r[2])): float(r[4]) for r in rows}
if got.keys() != want.keys():
    bad.append("recorded erss: processes %s, want %s" % (sorted(got), sorted(want)))
for k, v in want.items():
    if k in got and abs(got[k] - v) > 0.001:
        bad.append("recorded erss %s: %r, exmtop printed %r" % (k, got[k], v))
rows = run(sqls[1])
if len(rows) != 2 or any(int(float(r[1])) <= 0 for r in rows):
    bad.append("MemFree over time: %r" % rows)
rows = run(sqls[2])
got = {(int(r[0]), int(r[1])): float(r[3]) for r in rows}
# processes with no present page have no row in the recomputation
for k, v in want.items():
    if abs(got.get(k, 0.0) - v) > 0.001:
        bad.append("recomputed erss %s: %r, exmtop printed %r" % (k, got.get(k), v))
for k in got:
    if k not in want:
        bad.append("recomputed erss of an unknown process %s" % (k,))
print("\n".join(bad))
PY
)
[ -z "$out" ] && ok "the README's SQL recomputes what exmtop printed" ||
	{ ko "the README's SQL:"; printf '%s\n' "$out" | head -20 | sed 's/^/  /'; }

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Golden tests of batch output: text, CSV and JSON of the fixture sources
# compared byte for byte with the files beside this script, so that every
# change of output is seen in review; and the exit status of bad options.
# Only the clock (time, time_taken) is masked.
#
# Usage: tests/golden/test_golden.sh   (from the build directory, or with
# EXMTOP=); UPDATE=1 rewrites the files from the current binary (review the
# diff before committing it).
set -u

EXMTOP=${EXMTOP:-$PWD/exmtop}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -x "$EXMTOP" ] || { echo "no exmtop binary at $EXMTOP"; exit 1; }
PASS=0 FAIL=0

mask() {
	sed -E 's/"time":"[^"]*"/"time":"T"/g; s/"time_taken":[0-9.e+-]+/"time_taken":0/
		s/ [0-9]+\.[0-9]+s$/ Ts/
		s/"seconds":[0-9.e+-]+/"seconds":0/
		s/\([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\)/(T)/g
		s/, -?[0-9]+\.[0-9]s later/, T later/
		s/^(exmtop_scan_duration_seconds) .*/\1 T/
		s/^([0-9]+),[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z,/\1,T,/'
}

# golden NAME ARGS...: output of exmtop ARGS against $HERE/NAME, and its
# exit status: 0, or $WANT when set (WANT=2 golden ... for an output that
# comes with an error)
golden() {
	local name=$1 out rc
	shift
	out=$(env -u NO_COLOR LC_ALL=C.UTF-8 "$EXMTOP" "$@" 2>&1)
	rc=$?
	out=$(printf '%s\n' "$out" | mask)
	if [ "$rc" != "${WANT:-0}" ]; then
		FAIL=$((FAIL + 1))
		echo "not ok - $name: exmtop $*: exit $rc, want ${WANT:-0}"
		return
	fi
	if [ "${UPDATE:-0}" = 1 ]; then
		printf '%s\n' "$out" > "$HERE/$name"
	fi
	if diff -u "$HERE/$name" <(printf '%s\n' "$out") > /tmp/golden.$$ 2>&1
	then
		PASS=$((PASS + 1))
		echo "ok - $name"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - $name: exmtop $*"
		sed 's/^/  /' /tmp/golden.$$ | head -40
	fi
	rm -f /tmp/golden.$$
}

# status WANT ARGS...: exmtop ARGS exits with WANT and one line on stderr
# (no control byte in it: what it repeats is escaped)
status() {
	local want=$1 got err
	shift
	err=$("$EXMTOP" "$@" 2>&1 >/dev/null </dev/null)
	got=$?
	if [ "$got" = "$want" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		! printf '%s' "$err" | LC_ALL=C grep -q '[[:cntrl:]]'
	then
		PASS=$((PASS + 1))
		echo "ok - exit $want: $(printf '%q ' "$@")"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - exmtop $(printf '%q ' "$@"): exit $got (want" \
			"$want), stderr: $(printf '%q' "$err")"
	fi
}

# invariants FIXTURE: what must hold of exmtop's JSON of a fixture whatever
# the golden files say (they are written by exmtop itself with UPDATE=1):
# the effective sizes of all processes add up to the distinct pages and
# swap entries (each page divided among its sharers), and so do the totals;
# mapped = resident + swap and emapped = erss + eswap; the totals have
# every size a file row has (zero, hugetlb, ksm...); a process's file
# rows add up to the process; nothing effective or sole exceeds resident.
invariants() {
	local out
	out=$(env -u NO_COLOR LC_ALL=C.UTF-8 "$EXMTOP" -b --source "fixture:$1" \
		--format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
ps, bad = d["page_size"], []
def near(a, b, n, what):
    # JSON prints effective sizes to 3 decimals: n rounded values
    if a is None or abs(a - b) > 0.0005 * n + 1e-9:
        bad.append("%s: %r != %r" % (what, a, b))
P = d["processes"]
near(sum(p["erss"] for p in P), d["distinct_pages"] * ps, len(P), "sum erss")
near(sum(p["eswap"] for p in P), d["distinct_swap"] * ps, len(P), "sum eswap")
near(d["totals"]["erss"], d["distinct_pages"] * ps, 1, "total erss")
near(d["totals"]["eswap"], d["distinct_swap"] * ps, 1, "total eswap")
for k in ("vm", "rss", "swap", "sole", "writable"):
    near(d["totals"][k], sum(p[k] for p in P), 0, "total " + k)
# every size a file row has is in the totals, the sum over processes
# (null when not measured)
SIZES = [k for k in d["files"][0]
         if k not in ("file", "kind", "nprocs", "derss", "change")]
for k in SIZES:
    v = [p[k] for p in P]
    if k not in d["totals"]:
        bad.append("totals: no " + k)
    elif None in v or d["totals"][k] is None:
        if d["totals"][k] != (None if None in v else sum(v)):
            bad.append("total %s: %r, processes %r" % (k, d["totals"][k], v))
    else:
        near(d["totals"][k], sum(v), len(P), "total " + k)
for p in P:
    w = "pid %d " % p["pid"]
    rows = p["files"] + [p]
    for r in rows:
        near(r["mapped"], r["rss"] + r["swap"], 0, w + "mapped")
        near(r["emapped"], r["erss"] + r["eswap"], 2, w + "emapped")
        for k in ("erss", "sole", "writable"):
            if r[k] > r["rss"] + 0.001:
                bad.append(w + "%s %r > rss %r" % (k, r[k], r["rss"]))
    for k in ("vm", "rss", "swap", "sole", "writable"):
        near(sum(f[k] for f in p["files"]), p[k], 0, w + "sum of files " + k)
    for k in ("erss", "eswap"):
        near(sum(f[k] for f in p["files"]), p[k], len(p["files"]) + 1,
             w + "sum of files " + k)
print("\n".join(bad))
' 2>&1)
	if [ -z "$out" ]; then
		PASS=$((PASS + 1))
		echo "ok - invariants of fixture:$1"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - invariants of fixture:$1:"
		printf '%s\n' "$out" | sed 's/^/  /' | head -20
	fi
}

for fx in basic hostile many; do
	invariants $fx
done

for fx in basic hostile; do
	golden "$fx.txt" -b --source "fixture:$fx"
	golden "$fx.csv" -b --source "fixture:$fx" --format csv
	golden "$fx.json" -b --source "fixture:$fx" --format json
done
# the golden JSON files (as they are now, after UPDATE=1 too) against the
# fixtures' figures computed page by page by expect.py, not by exmtop
if out=$(python3 "$HERE/expect.py" "$HERE" 2>&1); then
	PASS=$((PASS + 1))
	echo "ok - $(printf '%s\n' "$out" | tail -1)"
else
	FAIL=$((FAIL + 1))
	echo "not ok - the golden files differ from the fixtures' expected figures:"
	printf '%s\n' "$out" | sed 's/^/  /' | head -40
fi
golden basic-files.txt -b --source fixture:basic --files --bytes
# -KEY ascending, +KEY descending, KEY the field's own order (pid: up)
golden basic-pid-asc.txt -b --source fixture:basic -o -pid
golden basic-pid-desc.txt -b --source fixture:basic -o +pid
golden basic-pid.txt -b --source fixture:basic -o pid
golden basic-erss-asc.csv -b --source fixture:basic -o -erss --format csv \
	--fields pid,erss
# the page strip of postgres' shared memory: 64 pages mapped by the three
# postgres, 8 swapped out
golden basic-pagemap.txt -b --source fixture:basic --pagemap 300:3000000
golden basic-pagemap.json -b --source fixture:basic --pagemap \
	301:7f0000000000 --format json
# deltas between iterations: the fixture does not change, so all 0
golden basic-derss.csv -b --source fixture:basic -n 2 -d 0.1 --format csv \
	--fields pid,erss,derss
# the analyses (report.c) of the fixture, in every format: executable
# units (libc split by permissions: the fixture's files are not on disk),
# the per-process breakdown, alerts (none: growth needs -n 2; in two
# identical snapshots none grew), the per-file strip of libc
for f in text csv json; do
	golden "basic-units.$f" -b --source fixture:basic --units --format $f
	golden "basic-breakdown.$f" -b --source fixture:basic --breakdown \
		--format $f
	golden "basic-alerts.$f" -b --source fixture:basic --alerts --format $f
done
golden basic-alerts-n2.txt -b --source fixture:basic --alerts -n 2 -d 0.1
# what stopping a set gives back (--freed): postgres' three share their
# shared memory only among themselves (288K SHM.EXCL, in no member's);
# alice's bash and its child share anonymous pages only with each other
for f in text csv json; do
	golden "basic-freed.$f" -b --source fixture:basic --freed comm:postgres \
		--format $f
done
golden basic-freed-pids.txt -b --source fixture:basic --freed 200,201 --bytes
# the group rows (--group) with what stopping each group gives back: the
# postgres group's FREED and SHM.EXCL equal --freed comm:postgres's above
for g in program user cgroup; do
	golden "basic-group-$g.txt" -b --source fixture:basic --group $g \
		--fields nprocs,erss,sole,freed,cached,shmem_excl,group
done
golden basic-group-program.csv -b --source fixture:basic --group program \
	--fields group,erss,freed,cached,shmem_excl -o -group --format csv
# growth per group: matched by key in the snapshot before (the same: 0)
golden basic-group-derss.csv -b --source fixture:basic --group user -n 2 \
	-d 0.1 --fields group,erss,derss,freed --format csv
golden basic-group-user.json -b --source fixture:basic --group user \
	--format json
golden basic-group-cgroup.json -b --source fixture:basic --group cgroup \
	--fields group,nprocs,erss,freed,cached,shmem_excl,cg_current \
	-p 200,201 --format json
golden hostile-breakdown.txt -b --source fixture:hostile --breakdown
golden hostile-breakdown.json -b --source fixture:hostile --breakdown \
	--format json
golden basic-filestrip.txt -b --source fixture:basic --pagemap \
	/usr/lib/x86_64-linux-gnu/libc.so.6
golden basic-filestrip.json -b --source fixture:basic --pagemap \
	/usr/lib/x86_64-linux-gnu/libc.so.6 --format json
golden basic.om -b --source fixture:basic --format openmetrics --top 3

# -p and -u select rows and never change a figure (issue 24): every process
# is scanned, so each row of -p is the full scan's row, byte for byte, in
# the same snapshot of the fixture; its files are the files of the listed
# processes with their figures across every process. --scan-pids scans the
# listed processes only, so sharing is counted among them (other figures)
# and the header and JSON say so.
same_rows() {
	local fx=$1 all pid row bad=0
	# without the snapshot,time columns every CSV row starts with
	all=$("$EXMTOP" -b --source "fixture:$fx" --format csv --fields "$FLD" |
		cut -d, -f3-)
	for pid in $(printf '%s\n' "$all" | sed 1d | cut -d, -f1); do
		row=$("$EXMTOP" -b --source "fixture:$fx" --format csv \
			--fields "$FLD" -p "$pid" | sed 1d | cut -d, -f3-)
		if [ "$row" = "$(printf '%s\n' "$all" | grep "^$pid,")" ]; then
			PASS=$((PASS + 1))
		else
			FAIL=$((FAIL + 1)) bad=1
			echo "not ok - fixture:$fx -p $pid: '$row' is not the" \
				"full scan's row"
		fi
	done
	[ $bad = 1 ] || echo "ok - fixture:$fx: -p PID rows are the full scan's"
}
FLD=pid,vm,rss,erss,swap,eswap,mapped,emapped,sole,writable,pss
same_rows basic
same_rows hostile
golden basic-p.txt -b --source fixture:basic --bytes -p 400,200
golden basic-p-files.txt -b --source fixture:basic --bytes --files -p 400
golden basic-p.om -b --source fixture:basic --format openmetrics -p 400,200
golden basic-scan-pids.txt -b --source fixture:basic --bytes \
	--scan-pids 400,200
golden basic-scan-pids.json -b --source fixture:basic --format json \
	--scan-pids 400,200
status 2 -b --source fixture:basic --scan-pids 1,
status 2 -b --source fixture:basic --scan-pids x
# a source given an argument it does not take, or a bad one
status 2 -b --source smaps:x
status 2 -b --source kmod:/dev/null
status 2 -b --source pagemap:/nonexistent
status 2 -b --source fixture:nope

# recordings (issue 10): a diff of two recordings of the fixtures, one
# with processes the other has not (new and gone), in every format; run in
# the recordings' directory so their names are the same everywhere
EXMTOP=$(cd "$(dirname "$EXMTOP")" && pwd)/$(basename "$EXMTOP")
REC=$(mktemp -d /tmp/exmtop-golden.XXXXXX)
trap 'rm -rf "$REC"' EXIT
"$EXMTOP" --record "$REC/basic.exmrec" --source fixture:basic -n 1
"$EXMTOP" --record "$REC/hostile.exmrec" --source fixture:hostile -n 1
cd "$REC" || exit 1
golden diff-basic-hostile.txt --diff basic.exmrec hostile.exmrec --bytes
golden diff-basic-hostile.csv --diff basic.exmrec hostile.exmrec \
	--format csv
golden diff-basic-hostile.json --diff basic.exmrec hostile.exmrec \
	--format json
golden diff-basic-files.csv --diff basic.exmrec hostile.exmrec --files \
	--format csv --fields kind,change,erss,rss,file
# the change of each system row (the same meminfo, other processes)
for f in txt csv json; do
	golden "diff-basic-hostile-system.$f" --diff basic.exmrec \
		hostile.exmrec --system --format ${f/txt/text}
done
# a replay prints what the fixture prints (its source detail aside)
golden replay-basic.txt -b --replay basic.exmrec
status 2 -b --replay basic.exmrec --source pagemap
status 2 --source pagemap --replay basic.exmrec
printf 'not a recording\n' >foreign.exmrec
head -c 2048 basic.exmrec >truncated.exmrec
sqlite3 future.exmrec "PRAGMA application_id = $((0x45584d54));
	PRAGMA user_version = 99; CREATE TABLE x (y);"
cp basic.exmrec corrupt.exmrec
printf '\xff\xff\xff\xff' | dd of=corrupt.exmrec bs=1 seek=100 \
	conv=notrunc status=none
for f in foreign truncated future corrupt missing; do
	status 2 -b --replay $f.exmrec
	status 2 --replay $f.exmrec
	status 2 --diff $f.exmrec
	status 2 --diff basic.exmrec $f.exmrec
done
status 2 --record foreign.exmrec --source fixture:basic -n 1
status 2 --record future.exmrec --source fixture:basic -n 1
status 2 --record /nonexistent/dir/x.exmrec --source fixture:basic -n 1
status 2 --diff basic.exmrec --from 2
# the system view of a replay: the recorded /proc/meminfo, the same rows
# as the fixture's
golden basic-system.csv -b --replay basic.exmrec --system --format csv
golden replay-system.json -b --replay basic.exmrec --system --format json
# a recording of schema 1 (before meminfo was recorded) replays, but its
# system view says why there is none: exit 2 in every format
sqlite3 v1.exmrec <"$HERE/basic-v1.sql"
golden basic.csv -b --replay v1.exmrec -n 1 --format csv
WANT=2 golden v1-system.txt -b --replay v1.exmrec --system -n 1
for fmt in text csv json; do
	status 2 -b --replay v1.exmrec --system --format $fmt
done
# upgraded by recording into it: the old snapshots say once why they have
# no system view, the new one has it, and the exit status is 2
cp v1.exmrec v1up.exmrec
status 0 --record v1up.exmrec --source fixture:basic -n 1
WANT=2 golden v1up-system.csv -b --replay v1up.exmrec --system --format csv
status 2 -b --replay v1up.exmrec --system --format json
# the recording format, as SQLite keeps it: the tables of a new recording,
# and of a schema 1 one upgraded by recording into it (golden with sqlite3
# in place of exmtop)
for f in basic v1up; do
	EXMTOP=sqlite3 golden "$f-schema.txt" $f.exmrec "SELECT type, name,
		tbl_name, sql FROM sqlite_schema ORDER BY rowid;
		PRAGMA user_version; PRAGMA application_id"
done
status 0 --diff v1.exmrec basic.exmrec
status 2 --diff v1.exmrec basic.exmrec --system
status 2 --diff basic.exmrec v1.exmrec --system --format json
status 2 --diff basic.exmrec --units
# damaged meminfo rows: one line, exit 2
for sql in "UPDATE meminfo SET unit='MB' WHERE idx=1" \
	"UPDATE meminfo SET value=-1 WHERE idx=1" \
	"UPDATE meminfo SET value='twelve' WHERE idx=1" \
	"UPDATE meminfo SET value=1.5 WHERE idx=1" \
	"UPDATE meminfo SET key='Mem Free' WHERE idx=1" \
	"UPDATE meminfo SET key='MemTotal' WHERE idx=1" \
	"UPDATE meminfo SET value=value+1 WHERE key='MemTotal'" \
	"DELETE FROM meminfo WHERE idx=3" \
	"UPDATE snapshot SET meminfo=500"; do
	cp basic.exmrec badmi.exmrec
	sqlite3 badmi.exmrec "$sql"
	status 2 -b --replay badmi.exmrec --system
	status 2 --diff badmi.exmrec basic.exmrec
done
status 2 --diff basic.exmrec --to yesterday
# --from/--to in every form, on a recording of three snapshots 90 s apart
# (2023-11-14T22:13:20Z, 22:14:50Z, 22:16:20Z), in a time zone 5:30 ahead
# of UTC (local 03:43:20, 03:44:50, 03:46:20 on the 15th): each picks the
# last snapshot taken at or before the time given
"$EXMTOP" --record timed.exmrec --source fixture:basic -n 3 -d 0.1
sqlite3 timed.exmrec \
	"UPDATE snapshot SET taken_sec = 1700000000 + (id - 1) * 90, taken_nsec = 0"
# pick FROM TO WANT_FROM WANT_TO
pick() {
	local got
	got=$(TZ=XYZ-5:30 "$EXMTOP" --diff timed.exmrec --from "$1" --to "$2" \
		--format json 2>&1 | grep -o '"snapshot":[0-9]*' | cut -d: -f2 |
		tr '\n' ' ')
	if [ "$got" = "$3 $4 " ]; then
		PASS=$((PASS + 1))
		echo "ok - --from $1 --to $2: snapshots $3 and $4"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - --from $1 --to $2: snapshots '$got', want $3 $4"
	fi
}
pick 1 3 1 3
pick 2 2 2 2
pick @1700000000 @1700000179 1 2
pick @1700000089 @1700000180 1 3
pick 2023-11-14T22:14:50Z 2023-11-14T22:16:19Z 2 2
pick 2023-11-14T22:13:20Z 2023-11-14T22:16:20Z 1 3
pick 2023-11-15T03:44:50 2023-11-15T03:46:19 2 2
pick 2023-11-15T03:43:20 2023-11-15T03:46:20 1 3
pick 03:44:50 03:46:19 2 2
pick 03:43:20 03:46:20 1 3
pick 03:44:49 03:45:50 1 2
# the batch replay picks by the same rules
got=$(TZ=XYZ-5:30 "$EXMTOP" -b --replay timed.exmrec --from 03:45:00 -n 1 \
	--format json | grep -o '"time":"[^"]*"')
if [ "$got" = '"time":"2023-11-14T22:14:50Z"' ]; then
	PASS=$((PASS + 1)); echo "ok - -b --replay --from HH:MM:SS"
else
	FAIL=$((FAIL + 1)); echo "not ok - -b --replay --from 03:45:00: $got"
fi
for bad in 0 4 @ @x 25:00:00 03:44 2023-11-14T22:14:50+01 \
	2023-11-14 2023-11-14T22:14:50ZZ; do
	status 2 --diff timed.exmrec --from "$bad"
	status 2 --diff timed.exmrec --to "$bad"
done
status 2 --watch --source fixture:basic
status 2 --from 1 --source fixture:basic
# times that do not exist, and numbers not in decimal
for t in 2026-02-30T10:00:00 2026-13-01T00:00:00 2026-02-28T24:00:00 \
	2026-2-28T10:00:00 23:59:60 @0x10 @-1 0x1 +1 ' 1'; do
	status 2 -b --replay basic.exmrec --from "$t"
	status 2 --diff basic.exmrec --from "$t"
done
# a time that exists, after the recording: its last snapshot
status 0 -b --replay basic.exmrec --from 2099-02-28T10:00:00
cd - >/dev/null || exit 1

# every bad option or value: 2, in every mode
status 2 -b --source fixture:nope
status 2 --source fixture:nope
status 2 -b --sections /x --source fixture:nope
status 2 -b --pagemap 1:1000 --source fixture:nope
status 2 -b --pagemap nonsense --source fixture:basic
status 2 -b -o bogus --source fixture:basic
status 2 -b --fields pid,bogus --source fixture:basic
status 2 --fields pid,bogus --source fixture:basic
status 2 -b --format xml
status 2 -b -n 0
status 2 --bogus
# numbers in decimal only, users that exist
for v in 0x10 1e1 inf nan -1 +1 ' 1' 1. .5; do
	status 2 -b -d "$v" --source fixture:basic
	status 2 -b -n "$v" --source fixture:basic
	status 2 -b --top "$v" --source fixture:basic --format openmetrics
	status 2 -b -p "$v" --source fixture:basic
done
status 2 -b -p 1,,2 --source fixture:basic
for t in +300:3000000 ' 300:3000000' 0x12c:3000000 300:0x 300:0x-1 \
	300:+3000000 '300: 3000000' 300: :3000000; do
	status 2 -b --pagemap "$t" --source fixture:basic
done
status 0 -b --pagemap 300:0x3000000 --source fixture:basic
status 2 -b -p 1, --source fixture:basic
for u in -1 4294967295 4294967296 nosuchuser 0x0 ''; do
	status 2 -b -u "$u" --source fixture:basic
done
status 0 -b -u 0 --source fixture:basic
status 0 -b -u root --source fixture:basic
# control bytes in what a message repeats: escaped, still one line
status 2 -b -d "$(printf '1\n\033[2J\a')" --source fixture:basic
status 2 -b --fields "$(printf 'pid,\033]0;x\a')" --source fixture:basic
status 2 "$(printf -- '--bo\ngus')"
status 2 -b --source "$(printf 'fixture:\033[5m\nx')"
status 2 -b --replay "$(printf '/nonexistent/a\nb\033c')"
status 1 -b --pagemap 999:1000 --source fixture:basic
status 2 -b --alerts --system --source fixture:basic
# a source's own setting with another source (it would do nothing)
status 2 -b --source fixture:basic --pagemap-mode read
status 2 -b --pagemap-mode scan --source smaps
status 2 -b --source fixture:basic --pagemap-mode nosuch
status 2 -b --top 0 --source fixture:basic
# --freed SET: bad sets, and what it is not printed as or with
for v in '' 1,,2 ,1 1, 0 -1 x 'user:' 'comm:' 'cgroup:' '1 2' 0x10 \
	"$(printf 'comm\033[2J:x')"; do
	status 2 -b --freed "$v" --source fixture:basic
done
status 2 -b --freed 1 --alerts --source fixture:basic
status 0 -b --freed comm:nosuch --source fixture:basic
# --group: a grouping of the settings table, not beside openmetrics or --files
for v in '' nosuch Program 'user '; do
	status 2 -b --group "$v" --source fixture:basic
done
status 2 -b --group user --format openmetrics --source fixture:basic
status 2 -b --group user --files --source fixture:basic
status 2 -b --group user --fields path --source fixture:basic
status 2 -b --group user --alerts --source fixture:basic
status 2 -b --pagemap /usr/lib/x86_64-linux-gnu/libc.so.6 --format csv \
	--source fixture:basic
status 1 -b --pagemap /nonexistent --source fixture:basic
status 2 --completion zsh
status 2 --completion
# The bash completion (--completion bash): valid bash that offers every
# option --help lists, and field keys for --fields after a comma
comp=$("$EXMTOP" --completion bash)
opts=$("$EXMTOP" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
offered=$(bash --norc --noprofile -c 'eval "$1" || exit 1
	COMP_WORDS=(exmtop --); COMP_CWORD=1; _exmtop
	printf "%s\n" "${COMPREPLY[@]}" | grep -- "^--" | sort -u
	COMP_WORDS=(exmtop --fields pid,ers); COMP_CWORD=2; _exmtop
	echo "fields: ${COMPREPLY[*]}"' bash "$comp")
if [ "$offered" = "$(printf '%s\nfields: pid,erss\n' "$opts")" ] &&
	[ "$(wc -l <<<"$opts")" -gt 30 ]; then
	PASS=$((PASS + 1))
	echo "ok - --completion bash offers every option of --help"
else
	FAIL=$((FAIL + 1))
	echo "not ok - --completion bash:"
	diff <(printf '%s\nfields: pid,erss\n' "$opts") <(printf '%s\n' "$offered") | head -20
fi
# the system view of a fixture: from the fixture's own /proc/meminfo
for f in text csv json; do
	golden "basic-system.$f" -b --system --source fixture:basic --format $f
done

# OpenMetrics of the reports and the ELF modes (issue 26): a family for
# each figure column, its samples labelled by the row's name columns
# (hostile names escaped), each exposition passing promtool
om() {
	local name=$1 text
	shift
	golden "$name" "$@"
	text=$("$EXMTOP" "$@" 2>&1)
	if printf '%s\n' "$text" | promtool check metrics >/tmp/golden.$$ 2>&1
	then
		PASS=$((PASS + 1))
		echo "ok - $name passes promtool"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - $name: promtool: $(head -3 /tmp/golden.$$)"
	fi
	rm -f /tmp/golden.$$
}
OM="--format openmetrics"
om basic-units.om -b --source fixture:basic --units $OM
om basic-breakdown.om -b --source fixture:basic --breakdown $OM
om basic-alerts.om -b --source fixture:basic --alerts $OM
om basic-freed.om -b --source fixture:basic --freed comm:postgres $OM
om basic-system.om -b --source fixture:basic --system $OM
om hostile-breakdown.om -b --source fixture:hostile --breakdown $OM
# the fixture's libc is not the one on disk: the families, no sample
om basic-sections.om -b --source fixture:basic --sections \
	/usr/lib/x86_64-linux-gnu/libc.so.6 $OM

echo "# $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]

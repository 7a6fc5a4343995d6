#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Screen test (root) of the cgroup charge columns (core/cgcharge.c; the
# field table's cg_current ... cg_unmapped, README "Cgroup charge") on the
# real system. A memory cgroup of our own (sysstate.py: v2 where a cgroup2
# mount has the memory controller, else v1's; removed after, also on
# failure or a kill) holds one worker that charges it known memory: 64 MiB
# of anonymous memory, a 16 MiB file written (page cache) and an 8 MiB
# memfd (shmem), every page written. The worker is stopped, and exmtop's
# live screen shows the groups per cgroup with every charge column, in
# exact bytes (an exmtoprc: group, bytes, fields.groups).
#
# cgroup v2: the worker's group row (its cgroup's path) shows CG.CUR,
# CG.ANON, CG.FILE, CG.SHM (and CG.KERN where memory.stat has kernel)
# within memory.current and memory.stat as read before exmtop starts and
# after the screen shows them (they move only if the kernel drains a
# CPU's stock), at least what the worker charged; CG.OTHR, CG.ELSW and
# CG.UNMP are figures, CG.UNMP at least the file (no process maps it).
# cgroup v1 (this host, CI): the kernel charges the cgroup (v1's
# memory.usage_in_bytes and memory.stat rss/cache/shmem hold what the
# worker wrote), and exmtop shows no figure of it: every charge column of
# every row is `-`, and the header says why, once.
#
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no tmux, no
# memory controller).
if [ -z "${EXM_TEST_MEMCG+set}" ] && [ "$(id -u)" = 0 ]; then
	exec python3 "$(dirname "$0")/sysstate.py" run test_cgcharge_ui \
		--memory-cgroup "exmtop-cgcharge-ui-$$" -- bash "$0"
fi
. "$(dirname "$0")/liveui.sh"

G=${EXM_TEST_MEMCG:-}
[ -n "$G" ] || { echo "SKIP: no memory cgroup controller here"; exit 77; }
[ -d "$G" ] || { echo "FAIL: no cgroup $G"; exit 1; }
MIB=$((1 << 20))
ANON=$((64 * MIB)) FILE=$((16 * MIB)) SHM=$((8 * MIB))
COLS="CG.CUR CG.ANON CG.FILE CG.SHM CG.KERN CG.OTHR CG.ELSW CG.UNMP"
NOTE="no cgroup charge: the memory controller is not on cgroup v2 here (cgroup v1)"

ok() { PASS=$((PASS + 1)); }
ko() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $1"
	screen | sed 's/^/  : /'
}

# the worker: put in the cgroup by its shell before it execs python, so
# that everything it touches is charged there
sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "$2" "$3" "$4" "$5" "$6" "$7"' \
	sh "$G" '
import mmap, os, signal, sys
anon, path, size, shm, ready = (int(sys.argv[1]), sys.argv[2],
                                int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
a = mmap.mmap(-1, anon, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, anon, 4096):
    a[i] = 1
with open(path, "wb") as f:
    f.write(os.urandom(size))
fd = os.memfd_create("exm-cgcharge-ui")
os.ftruncate(fd, shm)
m = mmap.mmap(fd, shm)
for i in range(0, shm, 4096):
    m[i] = 2
with open(ready + ".tmp", "w") as r:
    r.write("ready\n")
os.rename(ready + ".tmp", ready)
while True:
    signal.pause()' "$ANON" "$WORK/file" "$FILE" "$SHM" "$WORK/ready" &
W=$!
PIDS+=("$W")
for _ in $(seq 600); do
	[ -f "$WORK/ready" ] || ! kill -0 "$W" 2>/dev/null && break
	sleep 0.1
done
[ -f "$WORK/ready" ] || { echo "FAIL: the worker did not start"; exit 1; }
kill -STOP "$W"

# charge KEY: memory.current (current) or a memory.stat key of the cgroup
charge() {
	if [ "$1" = current ]; then
		cat "$G/memory.current"
	else
		awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "-" }' \
			"$G/memory.stat"
	fi
}

# shown GROUP TITLE: the figure of column TITLE in GROUP's row
shown() {
	screen | awk -v g="$1" -v t="$2" '
		$1 == "GROUP" { for (i = 1; i <= NF; i++) { h = $i
				sub(/[^A-Z.]+$/, "", h); col[h] = i } }
		("GROUP" in col) && $1 == g { print $(col[t]); exit }'
}

mkdir -p "$WORK/cfg/exmtop"
{
	echo "group = cgroup"
	echo "bytes = true"
	echo "fields.groups = group,nprocs,erss,cg_current,cg_anon,cg_file,cg_shmem,cg_kernel,cg_others,cg_elsewhere,cg_unmapped"
} >"$WORK/cfg/exmtop/exmtoprc"
SHOW="env LANG=C.UTF-8 TERM=tmux-256color HOME=/nonexistent XDG_CONFIG_HOME=$WORK/cfg $EXMTOP -d 30 -p $W"

if [ -f "$G/memory.current" ]; then
	echo "memory controller on cgroup v2 ($G): the figures"
	NAME=$(awk -F: '$1 == "0" { print $3 }' "/proc/$W/cgroup")
	declare -A lo hi
	keys="current anon file shmem kernel"
	for k in $keys; do lo[$k]=$(charge "$k"); done
	run_t 200 12 "$SHOW"
	if wait_for "by cgroup" 10 && wait_for "$NAME " 10; then ok; else ko "no group $NAME"; fi
	for k in $keys; do
		v=$(charge "$k")
		hi[$k]=$v
		[ "$v" != - ] && [ "$v" -lt "${lo[$k]}" ] && { hi[$k]=${lo[$k]}; lo[$k]=$v; }
	done
	# the columns of memory.current and memory.stat, in $COLS's order
	set -- $COLS
	for k in $keys; do
		got=$(shown "$NAME" "$1")
		if [ "${lo[$k]}" = - ]; then
			if [ "$got" = - ]; then ok; else ko "$1 $got: memory.stat has no $k"; fi
		elif [[ $got =~ ^[0-9]+$ ]] && [ "$got" -ge "${lo[$k]}" ] && [ "$got" -le "${hi[$k]}" ]; then
			ok
		else
			ko "$1 '$got', memory files ${lo[$k]}..${hi[$k]} ($k)"
		fi
		shift
	done
	for want in "CG.CUR $((ANON + FILE + SHM))" "CG.ANON $ANON" \
		"CG.FILE $((FILE + SHM))" "CG.SHM $SHM" "CG.UNMP $FILE"; do
		set -- $want
		got=$(shown "$NAME" "$1")
		if [[ $got =~ ^[0-9]+$ ]] && [ "$got" -ge "$2" ]; then ok; else
			ko "$1 '$got', not the $2 bytes the worker charged"
		fi
	done
	for t in CG.OTHR CG.ELSW; do
		got=$(shown "$NAME" "$t")
		if [[ $got =~ ^[0-9.]+$ ]]; then ok; else ko "$t '$got', not a figure"; fi
	done
else
	echo "memory controller on cgroup v1 ($G): no charge shown"
	use=$(cat "$G/memory.usage_in_bytes")
	rss=$(awk '$1 == "rss" { print $2 }' "$G/memory.stat")
	cache=$(awk '$1 == "cache" { print $2 }' "$G/memory.stat")
	shmem=$(awk '$1 == "shmem" { print $2 }' "$G/memory.stat")
	if [ "$use" -ge $((ANON + FILE + SHM)) ] && [ "$rss" -ge "$ANON" ] &&
		[ "$cache" -ge $((FILE + SHM)) ] && [ "$shmem" -ge "$SHM" ]; then
		ok
	else
		FAIL=$((FAIL + 1))
		echo "FAIL: v1 charge usage $use rss $rss cache $cache shmem $shmem," \
			"not what the worker wrote ($ANON, $FILE, $SHM)"
	fi
	run_t 200 12 "$SHOW"
	if wait_for "by cgroup" 10 && wait_for "$NOTE" 10; then ok; else ko "no groups per cgroup with the v1 note"; fi
	n=$(screen | grep -cF "$NOTE")
	if [ "$n" = 1 ]; then ok; else ko "the v1 note shown $n times"; fi
	# the worker is in the root of the v2 hierarchy (none is mounted with
	# its memory): group "/", its one process
	if screen | grep -Eq "^/ +1 +[0-9.]+ "; then ok; else ko "no group / of 1 process"; fi
	for t in $COLS; do
		got=$(shown / "$t")
		if [ "$got" = - ]; then ok; else ko "$t '$got' on cgroup v1, not -"; fi
	done
fi
quit_t
kill -CONT "$W"
echo "test_cgcharge_ui: $PASS checks passed, $FAIL failed"
[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]

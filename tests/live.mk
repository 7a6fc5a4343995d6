# tests/live/: live integration tests against the running kernel.
# test_sharing.py, test_swap.py (makes a temporary swap file when no swap is
# on), test_churn.py and test_pss.py need root (they exit 77, SKIP,
# otherwise); test_names.py runs as anyone; test_unpriv.py runs exmtop as an
# unprivileged user (as root it creates and uses the user exmtop-test);
# test_live_ui.sh (root, tmux) checks that scrolling brings the kernel's Pss
# of rows that were off screen at once; test_alerts_ui.sh (root, tmux) that
# the alerts view has every process's Pss read for its pss-mismatch check;
# test_cgroup_ui.sh (root, tmux) that grouping per cgroup reads them at once;
# test_cgcharge_ui.sh (root, tmux; a memory cgroup through sysstate.py) the
# cgroup charge columns on screen against the cgroup's memory files;
# test_json_null.py (root) that an unprivileged run's JSON is null for every
# field it did not measure; test_swapcache.py (root; a swap file and a memory
# cgroup through sysstate.py) the swap-cache row of --system; test_ksm.py
# (root; KSM's run through sysstate.py) the KSM and KSM.SAV columns, in
# every pagemap mode also of KSM pages a process maps alone once the other
# sharers exited (small and big mappings), and sole alike from pagemap and
# smaps for a process merging its own pages;
# test_shmswap.py (root; a swap file through sysstate.py) that shared memory
# in swap is in no process's swap, from smaps as from pagemap.
# They run ./exmtop from the build directory (override with EXMTOP=). The
# fixture program tests/live/sharer.c is compiled by the tests themselves
# (exmlive.sharer_path) with plain flags, never with the build's sanitizer
# CFLAGS: see there why. Override with SHARER=.
TESTS += \
	tests/live/test_sharing.py \
	tests/live/test_swap.py \
	tests/live/test_churn.py \
	tests/live/test_names.py \
	tests/live/test_pss.py \
	tests/live/test_unpriv.py \
	tests/live/test_json_null.py \
	tests/live/test_swapcache.py \
	tests/live/test_ksm.py \
	tests/live/test_shmswap.py \
	tests/live/test_live_ui.sh \
	tests/live/test_alerts_ui.sh \
	tests/live/test_cgroup_ui.sh \
	tests/live/test_cgcharge_ui.sh
EXTRA_DIST += \
	tests/live/sharer.c \
	tests/live/liveui.sh \
	tests/live/exmlive.py \
	tests/live/sysstate.py \
	tests/live/test_sharing.py \
	tests/live/test_swap.py \
	tests/live/test_churn.py \
	tests/live/test_names.py \
	tests/live/test_pss.py \
	tests/live/test_unpriv.py \
	tests/live/test_json_null.py \
	tests/live/test_swapcache.py \
	tests/live/test_ksm.py \
	tests/live/test_shmswap.py \
	tests/live/test_live_ui.sh \
	tests/live/test_alerts_ui.sh \
	tests/live/test_cgroup_ui.sh \
	tests/live/test_cgcharge_ui.sh
CLEANFILES += tests/live/sharer-plain
# Exclusive memory (issue 21): FREED, CACHED and SHM.EXCL of processes and
# sets (--freed) against construction and a pagemap oracle, and replayed
# (root; the fixture program freedset.c, built statically by the test).
TESTS += tests/live/test_freed.py
EXTRA_DIST += tests/live/test_freed.py tests/live/freedset.c \
	tests/live/unmap_vdso.h
CLEANFILES += tests/live/freedset-static
# What --freed says a set frees against what the kernel gives back when it
# is killed: the anon and shmem drops of a memory cgroup made for the test
# (root; the fixture program killset.c, built statically by the test).
TESTS += tests/live/test_kill.py
EXTRA_DIST += tests/live/test_kill.py tests/live/killset.c tests/live/forkset.h
CLEANFILES += tests/live/killset-static
# The OOM and OOM.ADJ columns against /proc/PID/oom_score(_adj), and the
# oom-misleading alert on a mapper of a shared region (root).
TESTS += tests/live/test_oom.py
EXTRA_DIST += tests/live/test_oom.py
# Per cgroup, the kernel's charge against the cost (issue 21, item 3): two
# cgroups v2 made through sysstate.py, a file charged to one and mapped by
# the other, against memory.current/memory.stat and a kpagecgroup oracle;
# on cgroup v1, the one note and no figure (root). The kmod test's guest
# runs it on cgroup v2 (tests/kmod/guest-init).
TESTS += tests/live/test_cgcharge.py
EXTRA_DIST += tests/live/test_cgcharge.py
# Recordings through the binary: --record/--replay round trip, --diff of a
# known growth, ELF of a replay and --sysroot (root).
TESTS += tests/live/test_record_cli.py
EXTRA_DIST += tests/live/test_record_cli.py
# --output to a device, a FIFO with a reader, a symbolic link, a new path, a
# file whose write fails and a directory (the hostile fixture; any user).
TESTS += tests/live/test_output.py
EXTRA_DIST += tests/live/test_output.py
# Recordings beside other tools (issue 20): --record refuses what is not a
# regular file, a replay works on read-only media and as another user and
# leaves no file (test_record_files.py); a full disk during --record --watch
# and the files named after it (test_record_full.py); a soak of recorders,
# replays and SIGKILLs on one file (test_record_soak.py, EXM_SOAK_SECS
# seconds, 40 by default). All need root.
TESTS += tests/live/test_record_files.py tests/live/test_record_full.py \
	tests/live/test_record_soak.py
EXTRA_DIST += tests/live/test_record_files.py tests/live/test_record_full.py \
	tests/live/test_record_soak.py
# Retention as issue 22 states it, on the benchmark workload (its shape,
# a quarter of its memory) at -d 0.2 for 60 s, the phases at once:
# --keep-size 2M: every database committed within 2M (or one snapshot
# larger alone), the file too, with its -wal within 3 x 2M while a replay
# loop runs beside, the oldest go first; --keep 10s keeps those of the
# last 10 s, its -wal within twice the file; no row left that nothing
# names, replays beside the pruning succeed and replay the same after it;
# 20 SIGKILLs of a recorder with --keep-size 2M, at most one snapshot lost
# each, the database within 2M after each (test_record_keep.py; root;
# 70 to 90 s).
TESTS += tests/live/test_record_keep.py
EXTRA_DIST += tests/live/test_record_keep.py
# Every kind of memory as the kernel counts it (issue 24): sparse
# reservations (PAGEMAP_SCAN's batches), the zero page and the huge zero
# page, hugetlb (root; raises nr_hugepages, sets THP to always and mounts a
# hugetlbfs through sysstate.py, all undone after). The fixture
# tests/live/kinds.c is compiled by the test with plain flags.
TESTS += tests/live/test_kinds.py
# The PAGEMAP_SCAN walk past its first call (more than 1,024 regions) and
# regions longer than 512 pages, recorded page by page in every pagemap
# mode against the pages written (issue 27); kinds.c's `runs`. Root.
TESTS += tests/live/test_scan.py
EXTRA_DIST += tests/live/test_scan.py
EXTRA_DIST += tests/live/kinds.c tests/live/test_kinds.py \
	tests/live/zeropage.h
# sole is the kernel's USS in every source: a memfd one process maps twice
# is not sole from pagemap (each mode), smaps or a replay (root; kinds.c).
TESTS += tests/live/test_sole.py
EXTRA_DIST += tests/live/test_sole.py
# read mode finds the zero pages of a 1 TiB reservation smaps calls empty,
# as scan and auto do (root; kinds.c).
TESTS += tests/live/test_zero_read.py
EXTRA_DIST += tests/live/test_zero_read.py
# 1 GiB hugetlb pages, one shared by a parent and its child and one
# private (two pages of the 1 GiB pool through sysstate.py); kinds.c's
# `gig`. Run by tests/kmod/run in each QEMU guest (-cpu max has 1 GiB
# pages, and the guest's memory is fresh), not here: a CPU without
# pdpe1gb (a PVM guest's) has no 1 GiB pool, and a machine that ran for a
# while may have no free GiB, so here it could only be skipped.
EXTRA_DIST += tests/live/test_hugetlb1g.py
# Private hugetlb memory copied on write after fork (root; raises
# nr_hugepages and mounts a hugetlbfs on /dev/hugepages if none is, through
# sysstate.py): the mappings' kinds (private MAP_HUGETLB anon, shared
# shmem, a private hugetlbfs file file), hugetlb against smaps' Private_/
# Shared_Hugetlb, exclusive memory without huge pages; kinds.c's hugecow, linked statically.
TESTS += tests/live/test_hugetlb_cow.py
EXTRA_DIST += tests/live/test_hugetlb_cow.py
# With `ulimit -Sn 1024` and a hard limit that allows it, a refreshing
# exmtop keeps the /proc/PID descriptors of all of 420 processes (it raises
# its soft limit to the hard one). Root.
TESTS += tests/live/test_kept_many.py
EXTRA_DIST += tests/live/test_kept_many.py
CLEANFILES += tests/live/kinds-plain tests/live/kinds-static
# The kernel's Pss from the mapping counts of the frames read (issue 23,
# item 1): equal to smaps_rollup's for every process of a quiet workload
# (the sharer linked statically, without [vdso], stopped), on every pagemap
# path, and no smaps_rollup opened for it (strace). Root.
TESTS += tests/live/test_kpss.py
EXTRA_DIST += tests/live/test_kpss.py
CLEANFILES += tests/live/sharer-static
# Pagemap read mode's counted mappings (issue 23 item 3): big private
# anonymous mappings whose pages are all mapped once are counted, not read,
# those holding shared pages read only where a fork sibling had pages, and
# every figure equals read-all's and scan mode's, byte for byte, on one and
# four threads; the kernel's Pss, a page strip and a recording stay exact
# (root; a swap file through sysstate.py when no swap is on).
# tests/live/sparse.c is compiled by the test, statically.
TESTS += tests/live/test_counted.py
EXTRA_DIST += tests/live/sparse.c tests/live/test_counted.py
# Transparent huge pages a fork child partly wrote (pagemap marks all of a
# PMD-mapped huge page's pages as its first page), and huge pages of a
# process's own counted from smaps: the kernel's Pss_Anon and every figure
# against read-all's (root; tests/live/thpfork.c, compiled by the test).
TESTS += tests/live/test_thpfork.py
EXTRA_DIST += tests/live/thpfork.c tests/live/test_thpfork.py tests/live/reserve.h
CLEANFILES += tests/live/thpfork-static
CLEANFILES += tests/live/sparse-static
# Two processes on one mm (clone(CLONE_VM) without CLONE_THREAD, a vfork
# child): every page mapped once yet in both; read mode used to count such a
# big mapping as each one's alone (whole in both, --freed of one claiming
# it). Every mode and read-all agree: sole 0, half each, --freed of one 0
# (root). tests/live/sharedmm.c is built by the test.
TESTS += tests/live/test_sharedmm.py
EXTRA_DIST += tests/live/sharedmm.c tests/live/test_sharedmm.py
CLEANFILES += tests/live/sharedmm-plain
# Snapshots that re-read only the processes that changed (issue 23 item 2):
# each compared with a full walk of the same moment (EXMTOP_CHECK_WALK=step)
# while workload processes (walkwork.py) fork, exit, write, free, mremap,
# mprotect, collapse THP, read O_DIRECT into copy-on-write memory, and have
# a file truncated, pages paged out and words poked by another process;
# compaction, KSM merging, swap-out by a memory cgroup's limit (KSM's run,
# a swap file and the cgroup through sysstate.py); what no counter shows set
# right by the scheduled walk. Root.
TESTS += tests/live/test_incremental.py
EXTRA_DIST += tests/live/walkwork.py tests/live/test_incremental.py
# PAGEMAP_SCAN refused from its first call (a seccomp filter or an
# emulator that does not know it): auto mode reads instead, with read
# mode's figures, and says so once; --pagemap-mode scan is exit status 2.
# The launcher tests/live/noscan.c (a seccomp filter failing that ioctl
# with a given errno) is compiled by the test with plain flags. Root.
TESTS += tests/live/test_noscan.py
EXTRA_DIST += tests/live/noscan.c tests/live/test_noscan.py
CLEANFILES += tests/live/noscan-plain
# The /proc/PID descriptors a refreshing walk keeps (procwalk.c) read the
# process that has the pid now: after a setuid, an exec, and the pid given
# to another process (ns_last_pid, in a pid namespace of its own). Root.
TESTS += tests/live/test_kept_fds.py
EXTRA_DIST += tests/live/test_kept_fds.py
TESTS += tests/live/test_quiet_reads.py
EXTRA_DIST += tests/live/test_quiet_reads.py

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/kmod.sh - in the same QEMU VM, on Debian's 6.1 and 6.12 kernels,
# time --source kmod, --source pagemap (every mode the kernel has) and
# smemstat, and print the ratios: one full snapshot (start-up included, 5
# interleaved rounds; kmod and smemstat also with the guest's address-space
# randomisation off, which spares the emulator translating every run's
# code afresh), what start-up alone costs (a one-process snapshot, and
# each tool only starting and exiting), read mode's floor without
# PAGEMAP_SCAN (bench/pmfloor.c: every smaps and one reservation's pagemap
# read whole, nothing else), the cost per refresh with start-up removed
# ((-n 11 -d 1 minus -n 1) / 10; smemstat: ("1 11" minus "1 1") / 10, 5
# rounds, pagemap 3), the kernel's side alone (the module against reading
# every smaps), dynamic linking at start-up, and the live screen's CPU on a
# pseudo-terminal (-d 2, 20 s) against smemstat -T and busybox top. The VM
# runs the kernel module test first (tests/kmod/run -b), then the
# benchmark (tests/kmod/guest-bench.sh) on a workload of 30 processes
# (bench/workload.c), each with a 16 GiB reservation holding 16 pages of
# its own and 16 fork-shared ones, 8 MiB of fork-shared anonymous memory
# (THP) and 32 MiB of shared memory. Times are under software emulation:
# compare the ratios, not the seconds. Figures measured: kernel/README.md.
# Takes about 14 minutes.
#
# Run as root from the source tree: bench/kmod.sh [BUILD_DIR]
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
EXMTOP_KMOD_KERNELS=${EXMTOP_KMOD_KERNELS:-6.1:amd64 6.12:amd64} \
	"$src/tests/kmod/run" -b "${1:-$src/build}" | grep -E '^(bench|FAIL|#)|passed'

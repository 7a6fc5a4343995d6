#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/kmod.sh - time one full snapshot with --source kmod, --source
# pagemap (every mode the kernel has) and smemstat in the same QEMU VM, on
# Debian's 6.1 and 6.12 kernels, and print the ratios. The VM runs the
# kernel module test first (tests/kmod/run -b), then 3 interleaved rounds on
# a workload of 30 processes (bench/workload.c), each with a 16 GiB
# reservation holding 16 pages of its own and 16 fork-shared ones, 8 MiB of
# fork-shared anonymous memory (THP) and 32 MiB of shared memory. Times are
# under software emulation: compare the ratios, not the seconds.
#
# Run as root from the source tree: bench/kmod.sh [BUILD_DIR]
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
EXMTOP_KMOD_KERNELS=${EXMTOP_KMOD_KERNELS:-6.1:amd64 6.12:amd64} \
	"$src/tests/kmod/run" -b "${1:-$src/build}" | grep -E '^(bench|FAIL|#)|passed'

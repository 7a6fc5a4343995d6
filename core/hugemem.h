/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hugemem.h - big zeroed blocks for the snapshot's bulk data (page words,
 * share counts), aligned to 2 MiB and offered to transparent huge pages: a
 * few faults instead of one per 4 KiB page, which matters when a page fault
 * is expensive (virtual machines).
 */
#ifndef EXM_HUGEMEM_H
#define EXM_HUGEMEM_H

#include <stdbool.h>
#include <stddef.h>

#define EXM_HUGE_ALIGN ((size_t)2 << 20)

struct exm_huge {
	void *map;	/* what mmap returned */
	size_t map_len;
	void *mem;	/* EXM_HUGE_ALIGN-aligned, zeroed, len bytes */
	size_t len;	/* bytes rounded up to EXM_HUGE_ALIGN */
	size_t dirty;	/* bytes from mem that may be non-zero */
};

/*
 * At least bytes of memory into *h, zeroed if zero is set. Only blocks
 * of more than EXM_HUGE_ALIGN are offered to huge pages: a small snapshot
 * touches a few pages of its first block, and a huge page would be
 * cleared in full at its first touch (an expensive clearing in an
 * emulator), so callers start with one EXM_HUGE_ALIGN block. Blocks given
 * back with exm_huge_unmap() are kept for reuse (a live screen takes a
 * snapshot every few seconds: reusing warm memory saves a page fault and
 * a page clearing for every page of it). 0 or -ENOMEM. Thread-safe.
 */
int exm_huge_map(struct exm_huge *h, size_t bytes, bool zero);

/*
 * Give h back (a zeroed struct is fine); used: how many bytes from its
 * start were written (cleared again if it is reused zeroed).
 */
void exm_huge_unmap(struct exm_huge *h, size_t used);

/* Unmap every block kept for reuse. */
void exm_huge_trim(void);

#endif

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
#define EXM_SMALL_PAGE ((size_t)4096) /* rounding of small blocks */

struct exm_huge {
	void *map; /* what mmap returned */
	size_t map_len;
	void *mem;    /* zeroed, len bytes; EXM_HUGE_ALIGN-aligned if len is */
	size_t len;   /* bytes rounded up (see exm_huge_map) */
	size_t dirty; /* bytes from mem that may be non-zero */
};

/*
 * At least bytes of memory into *h, zeroed if zero is set. A block of
 * EXM_HUGE_ALIGN or more is aligned to it and offered to huge pages; a
 * smaller one is on normal pages (rounded up to EXM_SMALL_PAGE): a small
 * snapshot touches a few pages of its first block, and a huge page is
 * cleared in full at its first touch (an expensive clearing in an
 * emulator), so callers start with a block that fits a small snapshot,
 * and a big one fills it quickly and goes on in huge pages. Blocks given
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

/*
 * Fault in the whole pages of [p, p + len) by one call (madvise's
 * MADV_POPULATE_WRITE, Linux 5.14+), for a block about to be written
 * whole: a page fault costs 17 us in this project's virtual machines, a
 * page populated 0.65 us. Best effort: nothing where it cannot.
 * exm_populate_as: the same, for reading (MADV_POPULATE_READ) unless
 * write.
 */
void exm_populate(void *p, size_t len);
void exm_populate_as(void *p, size_t len, bool write);

#endif

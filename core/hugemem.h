/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hugemem.h - big zeroed blocks for the snapshot's bulk data (page words,
 * share counts), aligned to 2 MiB and offered to transparent huge pages: a
 * few faults instead of one per 4 KiB page, which matters when a page fault
 * is expensive (virtual machines).
 */
#ifndef EXM_HUGEMEM_H
#define EXM_HUGEMEM_H

#include <stddef.h>

#define EXM_HUGE_ALIGN ((size_t)2 << 20)

struct exm_huge {
	void *map;	/* what mmap returned */
	size_t map_len;
	void *mem;	/* EXM_HUGE_ALIGN-aligned, zeroed, len bytes */
	size_t len;	/* bytes rounded up to EXM_HUGE_ALIGN */
};

/* Map at least bytes of zeroed memory into *h. 0 or -ENOMEM. */
int exm_huge_map(struct exm_huge *h, size_t bytes);
/* Unmap (a zeroed struct is fine). */
void exm_huge_unmap(struct exm_huge *h);

#endif

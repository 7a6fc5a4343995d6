/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reserve.h - a reservation aligned to a huge page, for the live tests'
 * workloads (sparse.c, thpfork.c): where a transparent huge page can be
 * mapped by a PMD from its first byte.
 *
 *	p = reserve_aligned(len, MAP_PRIVATE);	// or MAP_SHARED
 *
 * len bytes at an address that is a multiple of RESERVE_ALIGN (2 MiB),
 * anonymous and MAP_NORESERVE, or MAP_FAILED with errno set.
 */
#ifndef EXM_TESTS_RESERVE_H
#define EXM_TESTS_RESERVE_H

#include <stdint.h>
#include <sys/mman.h>

#define RESERVE_ALIGN ((size_t)2 << 20)

static inline unsigned char *reserve_aligned(size_t len, int flags)
{
	unsigned char *p = mmap(NULL, len + RESERVE_ALIGN,
				PROT_READ | PROT_WRITE,
				flags | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t head;

	if (p == MAP_FAILED)
		return p;
	head = (RESERVE_ALIGN - (size_t)(uintptr_t)p % RESERVE_ALIGN) %
	       RESERVE_ALIGN;
	if (head)
		munmap(p, head);
	munmap(p + head + len, RESERVE_ALIGN - head);
	return p + head;
}

#endif

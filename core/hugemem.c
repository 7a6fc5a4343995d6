// SPDX-License-Identifier: GPL-2.0-or-later
/* hugemem.c - see hugemem.h. */
#include "core/hugemem.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

int exm_huge_map(struct exm_huge *h, size_t bytes)
{
	uintptr_t a;

	memset(h, 0, sizeof(*h));
	if (bytes > SIZE_MAX / 2)
		return -ENOMEM;
	h->len = (bytes + EXM_HUGE_ALIGN - 1) & ~(EXM_HUGE_ALIGN - 1);
	h->map_len = h->len + EXM_HUGE_ALIGN;
	h->map = mmap(NULL, h->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (h->map == MAP_FAILED) {
		memset(h, 0, sizeof(*h));
		return -ENOMEM;
	}
	a = ((uintptr_t)h->map + EXM_HUGE_ALIGN - 1) &
	    ~(uintptr_t)(EXM_HUGE_ALIGN - 1);
	h->mem = (void *)a;
	madvise(h->mem, h->len, MADV_HUGEPAGE); /* best effort */
	return 0;
}

void exm_huge_unmap(struct exm_huge *h)
{
	if (h->map)
		munmap(h->map, h->map_len);
	memset(h, 0, sizeof(*h));
}

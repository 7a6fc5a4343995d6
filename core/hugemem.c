// SPDX-License-Identifier: GPL-2.0-or-later
/* hugemem.c - see hugemem.h. */
#include "core/hugemem.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Blocks kept for reuse: at most POOL_MAX, at most POOL_BYTES in all. */
#define POOL_MAX 64
#define POOL_BYTES ((size_t)256 << 20)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct exm_huge pool[POOL_MAX];
static size_t npool, pool_bytes;

/* The smallest kept block of at least len bytes, taken out of the pool. */
static bool pool_take(struct exm_huge *h, size_t len)
{
	size_t best;
	bool found;

	pthread_mutex_lock(&pool_lock);
	best = npool;
	for (size_t i = 0; i < npool; i++)
		if (pool[i].len >= len &&
		    (best == npool || pool[i].len < pool[best].len))
			best = i;
	found = best < npool;
	if (found) {
		*h = pool[best];
		pool[best] = pool[--npool];
		pool_bytes -= h->len;
	}
	pthread_mutex_unlock(&pool_lock);
	return found;
}

int exm_huge_map(struct exm_huge *h, size_t bytes, bool zero)
{
	uintptr_t a;
	size_t len;

	memset(h, 0, sizeof(*h));
	if (bytes > SIZE_MAX / 2)
		return -ENOMEM;
	if (!bytes)
		bytes = 1;
	len = bytes < EXM_HUGE_ALIGN
		      ? (bytes + EXM_SMALL_PAGE - 1) & ~(EXM_SMALL_PAGE - 1)
		      : (bytes + EXM_HUGE_ALIGN - 1) & ~(EXM_HUGE_ALIGN - 1);
	if (pool_take(h, len)) {
		if (zero && h->dirty) {
			memset(h->mem, 0, h->dirty);
			h->dirty = 0;
		}
		return 0; /* not zeroed: dirty stays what it was */
	}
	memset(h, 0, sizeof(*h));
	h->len = len;
	h->map_len = len < EXM_HUGE_ALIGN ? len : len + EXM_HUGE_ALIGN;
	h->map = mmap(NULL, h->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (h->map == MAP_FAILED) {
		memset(h, 0, sizeof(*h));
		return -ENOMEM;
	}
	if (len < EXM_HUGE_ALIGN) { /* a small block: normal pages */
		h->mem = h->map;
		return 0;
	}
	a = ((uintptr_t)h->map + EXM_HUGE_ALIGN - 1) &
	    ~(uintptr_t)(EXM_HUGE_ALIGN - 1);
	h->mem = (void *)a;
	madvise(h->mem, h->len, MADV_HUGEPAGE); /* best effort */
	return 0;
}

void exm_huge_unmap(struct exm_huge *h, size_t used)
{
	bool kept = false;

	if (!h->map)
		return;
	h->dirty = used > h->dirty ? (used < h->len ? used : h->len) : h->dirty;
	pthread_mutex_lock(&pool_lock);
	if (npool < POOL_MAX && pool_bytes + h->len <= POOL_BYTES) {
		pool[npool++] = *h;
		pool_bytes += h->len;
		kept = true;
	}
	pthread_mutex_unlock(&pool_lock);
	if (!kept)
		munmap(h->map, h->map_len);
	memset(h, 0, sizeof(*h));
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void exm_populate_as(void *p, size_t len, bool write)
{
	uintptr_t a = ((uintptr_t)p + EXM_SMALL_PAGE - 1) &
		      ~(uintptr_t)(EXM_SMALL_PAGE - 1),
		  e = ((uintptr_t)p + len) & ~(uintptr_t)(EXM_SMALL_PAGE - 1);

	if (e > a)
		(void)madvise((void *)a, e - a,
			      write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}

void exm_populate(void *p, size_t len)
{
	exm_populate_as(p, len, true);
}

void exm_huge_trim(void)
{
	pthread_mutex_lock(&pool_lock);
	while (npool) {
		npool--;
		munmap(pool[npool].map, pool[npool].map_len);
	}
	pool_bytes = 0;
	pthread_mutex_unlock(&pool_lock);
}

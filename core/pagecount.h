/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagecount.h - how many page-table mappings, and by how many distinct
 * processes, each physical page (or swap entry) is mapped among the scanned
 * processes.
 *
 * Keys are PFNs or packed swap entries. Storage is chunked: a chunk covers
 * 65536 consecutive keys with a 16-bit mapping count and a 32-bit "owner"
 * (the only process seen so far, or EXM_OWNER_MANY) per key; chunks are
 * found by a small hash table, so holes in the physical map and sparse swap
 * offsets cost nothing. Counts that overflow 16 bits spill to a side table.
 */
#ifndef EXM_PAGECOUNT_H
#define EXM_PAGECOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXM_OWNER_NONE UINT32_MAX
#define EXM_OWNER_MANY (UINT32_MAX - 1)

struct exm_pagecount;

/* New empty table, NULL on ENOMEM. Free with exm_pagecount_free. */
struct exm_pagecount *exm_pagecount_new(void);
void exm_pagecount_free(struct exm_pagecount *pc);

/* Record one mapping of key by process number owner. 0 or -ENOMEM. */
int exm_pagecount_add(struct exm_pagecount *pc, uint64_t key, uint32_t owner);

/* Mapping count of key (0 if never added) and its owner (EXM_OWNER_NONE,
 * a process number, or EXM_OWNER_MANY). */
uint32_t exm_pagecount_get(const struct exm_pagecount *pc, uint64_t key,
			   uint32_t *owner);

/* Same, with a caller-held hint (NULL-initialised const void *) that
 * makes runs of nearby keys cheap. */
uint32_t exm_pagecount_get_hint(const struct exm_pagecount *pc, uint64_t key,
				uint32_t *owner, const void **hint);

/* Number of distinct keys added. */
uint64_t exm_pagecount_distinct(const struct exm_pagecount *pc);

/* Bytes of memory the table holds (for reporting). */
size_t exm_pagecount_bytes(const struct exm_pagecount *pc);

#endif

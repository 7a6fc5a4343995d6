/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagecount.h - how many page-table mappings, and by how many distinct
 * processes, each physical page (or swap entry) is mapped among the scanned
 * processes.
 *
 * Keys are PFNs or packed swap entries: a 16-bit mapping count and a
 * 32-bit "owner" (the only process seen so far, or EXM_OWNER_MANY) per key,
 * held by groups of 16 consecutive keys, made as keys are added; a chunk of
 * 1,024 keys points to its groups, and chunks are found by an array (low
 * bases) or a small hash table, so holes in the physical map, sparse swap
 * offsets and scattered frames cost little. Counts that overflow 16 bits
 * spill to a side table.
 */
#ifndef EXM_PAGECOUNT_H
#define EXM_PAGECOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXM_OWNER_NONE UINT32_MAX
#define EXM_OWNER_MANY (UINT32_MAX - 1)

struct exm_pagecount;

#define EXM_PAGECOUNT_MAX_PARTS 4

/* New empty table, NULL on ENOMEM. Free with exm_pagecount_free. */
struct exm_pagecount *exm_pagecount_new(void);
/* Drop a holder of pc (the last one frees it); NULL: nothing. */
void exm_pagecount_free(struct exm_pagecount *pc);
/* One more holder of pc (a table no longer added to, shared read-only by
 * snapshots of the same words; each holder frees it once); pc. */
struct exm_pagecount *exm_pagecount_ref(struct exm_pagecount *pc);

/*
 * Record one mapping of key by process number owner. 0 or -ENOMEM. Not
 * thread-safe: one thread at a time.
 */
int exm_pagecount_add(struct exm_pagecount *pc, uint64_t key, uint32_t owner);

/*
 * A table split into partitions by key (nparts rounded down to a power of
 * two, at most EXM_PAGECOUNT_MAX_PARTS), so that several threads may add at
 * once, each only keys of its own partition (exm_pagecount_add_words with
 * its part; exm_pagecount_part_of says which). Lookups and the other calls
 * are the same as for an unpartitioned table.
 */
struct exm_pagecount *exm_pagecount_new_parts(unsigned nparts);
unsigned exm_pagecount_nparts(const struct exm_pagecount *pc);

/*
 * About nwords words will be added (before any is): a table of few keys
 * starts on normal pages (a small snapshot touches a few of them), one of
 * many on huge pages from the start (its groups, packed one after the
 * other, soon fill 2 MiB, one fault each 4 KiB). Only a matter of speed.
 */
void exm_pagecount_expect(struct exm_pagecount *pc, uint64_t nwords);
unsigned exm_pagecount_part_of(const struct exm_pagecount *pc, uint64_t key);

/* Mapping count of key (0 if never added) and its owner (EXM_OWNER_NONE,
 * a process number, or EXM_OWNER_MANY). */
uint32_t exm_pagecount_get(const struct exm_pagecount *pc, uint64_t key,
			   uint32_t *owner);

/* Same, with a caller-held hint (NULL-initialised const void *) that
 * makes runs of nearby keys cheap: inline when the hint is right. A hint
 * serves one table only: it names a chunk by its keys, and a chunk of
 * another table (hugetlb's beside the frames') may have the same ones. */
static inline uint32_t exm_pagecount_get_hint(const struct exm_pagecount *pc,
					      uint64_t key, uint32_t *owner,
					      const void **hint);

/*
 * Count the used words of a mapping of process owner that fall in
 * partition part, times times (that many mappings hold the very same
 * words; owner EXM_OWNER_MANY when they are not all one process's):
 * present pages in pfn, swapped ones in swp (both split alike). Words are
 * w32[0..n) packed, or w64[0..n) when w32 is NULL (see pagemap.h). 0 or
 * -ENOMEM.
 */
int exm_pagecount_add_words(struct exm_pagecount *pfn,
			    struct exm_pagecount *swp, unsigned part,
			    const uint64_t *w64, const uint32_t *w32,
			    uint32_t n, uint32_t owner, uint32_t times);

/* Number of distinct keys added. */
uint64_t exm_pagecount_distinct(const struct exm_pagecount *pc);

/* Bytes of memory the table holds (for reporting). */
size_t exm_pagecount_bytes(const struct exm_pagecount *pc);

/*
 * Private, here for the inline lookup. A chunk covers 1,024 consecutive
 * keys and points to their groups of 16, each made at the first key of
 * it added: the counts and owners of a snapshot's keys take room by
 * group (104 bytes, 6.5 a key when they are dense), so keys scattered
 * over the machine's RAM (the frames of a few small processes) cost a
 * group and at most a chunk (520 bytes) each. On an idle machine (67
 * processes) chunks of 2^16 keys and groups of 64 took 642 KB for 1,444
 * distinct frames; these took 173 KB for 1,541.
 */
#define EXM_PC_CHUNK_BITS 10
#define EXM_PC_CHUNK_KEYS (1u << EXM_PC_CHUNK_BITS)
#define EXM_PC_GROUP_BITS 4
#define EXM_PC_GROUP_KEYS (1u << EXM_PC_GROUP_BITS)
#define EXM_PC_GROUPS (EXM_PC_CHUNK_KEYS / EXM_PC_GROUP_KEYS)

struct exm_pc_group {
	uint64_t base;			    /* key >> EXM_PC_GROUP_BITS */
	uint16_t count[EXM_PC_GROUP_KEYS];  /* UINT16_MAX: spilled */
	uint32_t owner1[EXM_PC_GROUP_KEYS]; /* owner + 1; 0: none */
};

struct exm_pc_chunk {
	uint64_t base;				 /* key >> EXM_PC_CHUNK_BITS */
	struct exm_pc_group *grp[EXM_PC_GROUPS]; /* NULL: no key added */
};

uint32_t exm_pagecount_get_slow(const struct exm_pagecount *pc, uint64_t key,
				uint32_t *owner, const void **hint);

/* The hint is the chunk of the last key looked up (a group holds too few
 * keys for a run of frames to stay in it long). */
static inline uint32_t exm_pagecount_get_hint(const struct exm_pagecount *pc,
					      uint64_t key, uint32_t *owner,
					      const void **hint)
{
	const struct exm_pc_chunk *c = *hint;
	const struct exm_pc_group *g;
	unsigned off = (unsigned)(key & (EXM_PC_GROUP_KEYS - 1));

	if (!c || c->base != key >> EXM_PC_CHUNK_BITS)
		return exm_pagecount_get_slow(pc, key, owner, hint);
	g = c->grp[(key >> EXM_PC_GROUP_BITS) & (EXM_PC_GROUPS - 1)];
	if (!g || g->count[off] == UINT16_MAX)
		return exm_pagecount_get_slow(pc, key, owner, hint);
	if (owner)
		*owner = g->owner1[off] - 1;
	return g->count[off];
}

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/* Share counts by PFN / swap entry. */
#include <criterion/criterion.h>

#include <string.h>

#include "core/hugemem.h"
#include "core/pagecount.h"
#include "core/pagemap.h"

Test(pagecount, counts_owners_distinct)
{
	struct exm_pagecount *pc = exm_pagecount_new();
	uint32_t owner;

	cr_assert_not_null(pc);
	cr_assert_eq(exm_pagecount_get(pc, 5, &owner), 0);
	cr_assert_eq(owner, EXM_OWNER_NONE);
	cr_assert_eq(exm_pagecount_add(pc, 5, 1), 0);
	cr_assert_eq(exm_pagecount_add(pc, 5, 1), 0); /* twice, one proc */
	cr_assert_eq(exm_pagecount_get(pc, 5, &owner), 2);
	cr_assert_eq(owner, 1);
	cr_assert_eq(exm_pagecount_add(pc, 5, 2), 0);
	cr_assert_eq(exm_pagecount_get(pc, 5, &owner), 3);
	cr_assert_eq(owner, EXM_OWNER_MANY);
	cr_assert_eq(exm_pagecount_add(pc, 6, 0), 0);
	cr_assert_eq(exm_pagecount_distinct(pc), 2);
	exm_pagecount_free(pc);
}

Test(pagecount, sparse_keys_and_many_chunks)
{
	struct exm_pagecount *pc = exm_pagecount_new();
	uint64_t keys[] = {
		0, 65535, 65536, (1ull << 40) + 3, (1ull << 54) - 1, 123456789
	};
	uint32_t owner;

	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(exm_pagecount_add(pc, keys[i], (uint32_t)i), 0);
	/* Force the chunk table to grow well past its first size. */
	for (uint64_t c = 0; c < 300; c++)
		cr_assert_eq(exm_pagecount_add(pc, (c << 20) + 7, 9), 0);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(exm_pagecount_get(pc, keys[i], &owner), 1);
		cr_assert_eq(owner, i);
	}
	cr_assert_eq(exm_pagecount_get(pc, (299ull << 20) + 7, &owner), 1);
	cr_assert_eq(exm_pagecount_get(pc, 65537, &owner), 0);
	cr_assert_eq(exm_pagecount_distinct(pc), 306);
	exm_pagecount_free(pc);
}

Test(pagecount, count_beyond_16_bits)
{
	struct exm_pagecount *pc = exm_pagecount_new();
	uint32_t owner;

	for (uint32_t i = 0; i < 70000; i++)
		cr_assert_eq(exm_pagecount_add(pc, 42, i), 0);
	cr_assert_eq(exm_pagecount_get(pc, 42, &owner), 70000);
	cr_assert_eq(owner, EXM_OWNER_MANY);
	cr_assert_eq(exm_pagecount_get(pc, 43, NULL), 0);
	cr_assert_eq(exm_pagecount_distinct(pc), 1);
	exm_pagecount_free(pc);
}

/* The partitioned table, filled a mapping at a time by one "thread" per
 * partition, matches the plain one key for key: counts, owners, distinct,
 * over directly indexed and hashed chunk bases, packed and wide words. */
Test(pagecount, partitions_match_the_plain_table)
{
	enum { N = 5000 };
	static uint64_t w64[N];
	static uint32_t w32[N];
	struct exm_pagecount *plain = exm_pagecount_new();
	struct exm_pagecount *pfn = exm_pagecount_new_parts(4);
	struct exm_pagecount *swp = exm_pagecount_new_parts(4);
	struct exm_pagecount *pswp = exm_pagecount_new();

	cr_assert_eq(exm_pagecount_nparts(pfn), 4);
	cr_assert_eq(exm_pagecount_nparts(pswp), 1);
	for (uint32_t owner = 0; owner < 3; owner++) {
		for (uint32_t i = 0; i < N; i++) {
			/* PFNs over 80 chunks, a few repeated; swap keys */
			uint64_t pfn_key = ((uint64_t)(i % 80) << 16) +
					   (i * 7919u + owner * (i % 3)) %
						   65536;

			if (i % 11 == 0) {
				uint64_t key = ((uint64_t)(i % 97) << 5) | 2;

				w64[i] = EXM_PM_SWAPPED | key;
				cr_assert(exm_pm_pack(w64[i], &w32[i]));
				cr_assert_eq(exm_pagecount_add(pswp, key,
							       owner),
					     0);
			} else {
				w64[i] = EXM_PM_PRESENT | pfn_key;
				cr_assert(exm_pm_pack(w64[i], &w32[i]));
				cr_assert_eq(exm_pagecount_add(plain, pfn_key,
							       owner),
					     0);
			}
		}
		for (unsigned t = 0; t < 4; t++)
			cr_assert_eq(exm_pagecount_add_words(pfn, swp, t,
							     owner == 1 ? w64
									: NULL,
							     owner == 1 ? NULL
									: w32,
							     N, owner, 1),
				     0);
	}
	/* a key past the direct index, in a table and its partitions */
	cr_assert_eq(exm_pagecount_add(plain, (1ull << 45) + 1, 7), 0);
	w64[0] = EXM_PM_PRESENT | ((1ull << 45) + 1);
	cr_assert_eq(exm_pagecount_add_words(
			     pfn, swp,
			     exm_pagecount_part_of(pfn, (1ull << 45) + 1), w64,
			     NULL, 1, 7, 1),
		     0);
	cr_assert_eq(exm_pagecount_distinct(pfn),
		     exm_pagecount_distinct(plain));
	cr_assert_eq(exm_pagecount_distinct(swp), exm_pagecount_distinct(pswp));
	for (uint64_t key = 0; key < (80ull << 16); key += 13) {
		uint32_t o1, o2;
		const void *hint = NULL;

		cr_assert_eq(exm_pagecount_get_hint(pfn, key, &o1, &hint),
			     exm_pagecount_get(plain, key, &o2), "key %llu",
			     (unsigned long long)key);
		cr_assert_eq(o1, o2);
	}
	for (uint64_t key = 0; key < (97u << 5) + 3; key++) {
		uint32_t o1, o2;

		cr_assert_eq(exm_pagecount_get(swp, key, &o1),
			     exm_pagecount_get(pswp, key, &o2));
		cr_assert_eq(o1, o2);
	}
	cr_assert_eq(exm_pagecount_get(pfn, (1ull << 45) + 1, NULL), 1);
	exm_pagecount_free(plain);
	exm_pagecount_free(pfn);
	exm_pagecount_free(swp);
	exm_pagecount_free(pswp);
}

/* A block of at least bytes from the pool: how many of its bytes may be
 * dirty (for its reuse to clear); all the others are zero. */
static size_t pooled_block_dirty(size_t bytes)
{
	struct exm_huge h;
	size_t dirty;

	cr_assert_eq(exm_huge_map(&h, bytes, false), 0);
	dirty = h.dirty;
	for (size_t i = dirty; i < h.len; i++)
		cr_assert_eq(((unsigned char *)h.mem)[i], 0, "byte %zu", i);
	exm_huge_unmap(&h, h.len); /* dirty now: cleared when reused */
	return dirty;
}

/* Keys scattered over the chunks of a machine's RAM (a few small
 * processes' frames) take a group of 64 keys each, not a chunk of 65536:
 * 2,000 keys over 20 chunks in well under a MiB (a chunk's counts and
 * owners alone took 384 KiB, 7.5 MiB for these). A table freed gives its
 * block back dirty only as far as it used it, and a new table on the
 * block reads no old count. */
Test(pagecount, scattered_keys_take_a_group_each)
{
	struct exm_pagecount *pc;
	uint32_t owner;
	size_t bytes;

	exm_huge_trim();
	pc = exm_pagecount_new();
	exm_pagecount_expect(pc, 1u << 20); /* an 8 MiB block */
	for (uint64_t c = 0; c < 20; c++)
		for (uint64_t k = 0; k < 100; k++)
			cr_assert_eq(exm_pagecount_add(pc,
						       (c << 16) + k * 601 + c,
						       (uint32_t)k),
				     0);
	cr_assert_eq(exm_pagecount_distinct(pc), 2000);
	bytes = exm_pagecount_bytes(pc);
	cr_assert_gt(bytes, 2000 * sizeof(struct exm_pc_group));
	cr_assert_lt(bytes, 1u << 20, "%zu bytes", bytes);
	cr_assert_eq(exm_pagecount_get(pc, (7u << 16) + 5 * 601 + 7, &owner),
		     1);
	cr_assert_eq(owner, 5);
	cr_assert_eq(exm_pagecount_get(pc, (7u << 16) + 5 * 601 + 8, &owner),
		     0);
	cr_assert_eq(owner, EXM_OWNER_NONE);
	exm_pagecount_free(pc);
	bytes = pooled_block_dirty(8u << 20);
	cr_assert_gt(bytes, 0);
	cr_assert_lt(bytes, 1u << 20, "dirty as far as used: %zu", bytes);
	exm_huge_trim();
}

/* A table freed gives its block back dirty as far as its groups went,
 * and the block's reuse clears that: a new table reads no old count. */
Test(pagecount, freed_table_clears_what_it_used)
{
	struct exm_pagecount *pc;
	uint32_t owner;

	exm_huge_trim();
	pc = exm_pagecount_new();
	exm_pagecount_expect(pc, 1u << 20);
	for (uint64_t k = 0; k < 3 * 65536; k++)
		cr_assert_eq(exm_pagecount_add(pc, k, 1), 0);
	exm_pagecount_free(pc);
	pc = exm_pagecount_new(); /* reuses the dirty block, cleared */
	exm_pagecount_expect(pc, 1u << 20);
	cr_assert_eq(exm_pagecount_add(pc, 70000, 3), 0);
	for (uint64_t k = 0; k < 3 * 65536; k += 97)
		cr_assert_eq(exm_pagecount_get(pc, k, &owner),
			     k == 70000 ? 1 : 0, "key %llu",
			     (unsigned long long)k);
	cr_assert_eq(exm_pagecount_get(pc, 70000, &owner), 1);
	cr_assert_eq(owner, 3);
	exm_pagecount_free(pc);
	exm_huge_trim();
}

/* A table of few keys that takes a block a big table filled clears only
 * the groups it carves, not the whole block (a live refresh's swap table
 * cleared 2 to 8 MiB so), and finds no key it was not given. */
Test(pagecount, small_table_clears_only_what_it_carves)
{
	struct exm_pagecount *pc;
	struct exm_huge raw;
	uint32_t owner;
	size_t nonzero = 0;

	exm_huge_trim();
	pc = exm_pagecount_new();
	exm_pagecount_expect(pc, 1u << 20);
	for (uint64_t k = 0; k < 4 * 65536; k++)
		cr_assert_eq(exm_pagecount_add(pc, k, 1), 0);
	exm_pagecount_free(pc); /* its block: dirty, in the pool */
	pc = exm_pagecount_new();
	cr_assert_eq(exm_pagecount_add(pc, 5, 2), 0);
	cr_assert_eq(exm_pagecount_add(pc, 65536 + 9, 4), 0);
	for (uint64_t k = 0; k < 4 * 65536; k += 61)
		cr_assert_eq(exm_pagecount_get(pc, k, &owner), 0, "key %llu",
			     (unsigned long long)k);
	cr_assert_eq(exm_pagecount_get(pc, 5, &owner), 1);
	cr_assert_eq(owner, 2);
	cr_assert_eq(exm_pagecount_get(pc, 65536 + 9, &owner), 1);
	cr_assert_eq(owner, 4);
	exm_pagecount_free(pc);
	/* the block again, as it is: the big table's groups (over 1 MiB)
	 * past the few the small one carved (a few kB) are still there */
	cr_assert_eq(exm_huge_map(&raw, 1u << 20, false), 0);
	cr_assert_gt(raw.dirty, 1u << 20, "dirty %zu", raw.dirty);
	for (size_t i = 64u << 10; i < raw.dirty; i += 8)
		nonzero += ((const uint64_t *)raw.mem)[i / 8] != 0;
	cr_assert_gt(nonzero, 0, "the whole block was cleared");
	exm_huge_unmap(&raw, 0);
	exm_huge_trim();
}

/* Reused blocks come back zeroed when asked, however they were used in
 * between (a block written far, then reused unzeroed and written less). */
Test(hugemem, reuse_keeps_the_zero_promise)
{
	struct exm_huge a, b, c;
	size_t far = 3u << 20, near = 1u << 20;

	exm_huge_trim();
	cr_assert_eq(exm_huge_map(&a, 4u << 20, false), 0);
	memset(a.mem, 0xab, far);
	exm_huge_unmap(&a, far);
	cr_assert_eq(exm_huge_map(&b, 4u << 20, false), 0);
	memset(b.mem, 0xcd, near);
	exm_huge_unmap(&b, near);
	cr_assert_eq(exm_huge_map(&c, 4u << 20, true), 0);
	for (size_t i = 0; i < c.len; i += 4096)
		cr_assert_eq(((unsigned char *)c.mem)[i + 7], 0, "byte %zu",
			     i + 7);
	cr_assert_eq((uintptr_t)c.mem % EXM_HUGE_ALIGN, 0);
	exm_huge_unmap(&c, 0);
	exm_huge_trim();
}

/* A block below EXM_HUGE_ALIGN is on normal pages, of its size rounded to
 * a page, not of a whole huge page; reused, it keeps the zero promise. */
Test(hugemem, small_blocks_are_their_size)
{
	struct exm_huge a, b;

	exm_huge_trim();
	cr_assert_eq(exm_huge_map(&a, 100000, false), 0);
	cr_assert_eq(a.len, 102400);
	cr_assert_eq(a.map_len, 102400);
	memset(a.mem, 0xab, a.len);
	exm_huge_unmap(&a, a.len);
	cr_assert_eq(exm_huge_map(&b, 4096, true), 0);
	cr_assert_geq(b.len, 4096);
	cr_assert_lt(b.len, EXM_HUGE_ALIGN);
	for (size_t i = 0; i < b.len; i++)
		cr_assert_eq(((unsigned char *)b.mem)[i], 0, "byte %zu", i);
	exm_huge_unmap(&b, 0);
	cr_assert_eq(exm_huge_map(&a, EXM_HUGE_ALIGN, false), 0);
	cr_assert_eq(a.len, EXM_HUGE_ALIGN);
	cr_assert_eq((uintptr_t)a.mem % EXM_HUGE_ALIGN, 0);
	exm_huge_unmap(&a, 0);
	exm_huge_trim();
}

/* exm_count_gap: the frames one read of kpagecount spans to join two
 * runs, from the times of a read of one frame and of n frames */
Test(pagecount, count_gap_from_read_times)
{
	/* bare metal, 6.18: 250 ns a read, 90 ns a frame */
	cr_assert_eq(exm_count_gap(340, 250 + 1024 * 90, 1024), 2);
	/* a guest whose system call costs 1.4 us, 26 ns a frame */
	cr_assert_eq(exm_count_gap(1460, 1434 + 1024 * 26, 1024), 55);
	/* a call costing less than a frame: adjacent frames only, nearly */
	cr_assert_eq(exm_count_gap(100, 100 * 1024, 1024), 1);
	/* a call costing very much: at most EXM_GAP_MAX */
	cr_assert_eq(exm_count_gap(1000000, 1000000 + 1023, 1024), EXM_GAP_MAX);
	/* times that say nothing: the default */
	cr_assert_eq(exm_count_gap(500, 500, 1024), EXM_GAP_DEFAULT);
	cr_assert_eq(exm_count_gap(500, 400, 1024), EXM_GAP_DEFAULT);
	cr_assert_eq(exm_count_gap(0, 400, 1024), EXM_GAP_DEFAULT);
	cr_assert_eq(exm_count_gap(500, 900, 1), EXM_GAP_DEFAULT);
}

/* pagemap's swapped words that are no swap slot (migration, device,
 * hwpoison, markers: types 24 to 31) are told from swap slots (types 0 to
 * 23), and present pages never are. */
Test(pagemap, non_swap_entries_by_type)
{
	const uint64_t sw = EXM_PM_SWAPPED, pr = EXM_PM_PRESENT;
	const uint64_t off = UINT64_C(12345) << 5;

	for (unsigned t = 0; t < 32; t++) {
		uint64_t w = sw | off | t;

		cr_assert_eq(exm_pm_nonswap(w), t >= 24, "type %u", t);
		cr_assert_eq(exm_pm_nonswap(w | EXM_PM_FILE), t >= 24,
			     "type %u, a file page", t);
		cr_assert(!exm_pm_nonswap(pr | off | t), "present, %u", t);
	}
	cr_assert(!exm_pm_nonswap(0));
	/* a migration entry (type 26 here) of a page at frame 0x1234 */
	cr_assert(exm_pm_nonswap(sw | (UINT64_C(0x1234) << 5) | 26));
}

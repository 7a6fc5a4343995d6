// SPDX-License-Identifier: GPL-2.0-or-later
/* Share counts by PFN / swap entry. */
#include <criterion/criterion.h>

#include "core/pagecount.h"

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
	uint64_t keys[] = { 0, 65535, 65536, (1ull << 40) + 3,
			    (1ull << 54) - 1, 123456789 };
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

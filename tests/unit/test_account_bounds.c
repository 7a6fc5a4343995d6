// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Accounting at its edges, each case written to fail on a bug the
 * mutation check (tests/mutate/mutants) injects: 63, 64 and 65 sharers
 * (exact division per sharer count up to 64, one by one above), a page
 * mapped twice by one process only (sole counts processes, not mappings),
 * writable from the PTE bit when the source has it, a PFN with bit 27 set
 * (the packed words' top PFN bit) and runs with a one-page gap.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/pagemap.h"
#include "tests/unit/snapgen.h"

#define PS 4096u
#define PRESENT(pfn, fl) (EXM_PM_PRESENT | (fl) | (uint64_t)(pfn))

static struct exm_snapshot *snap_new(unsigned caps)
{
	struct exm_snapshot *s = exm_snapshot_new();

	cr_assert_not_null(s);
	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | caps;
	return s;
}

static struct exm_mapping *map_new(struct exm_snapshot *s, pid_t pid,
				   uint64_t start, uint64_t npages,
				   unsigned perms, enum exm_kind kind)
{
	struct exm_proc *p = NULL;
	struct exm_mapping *m;

	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			p = &s->procs[i];
	if (!p)
		p = snapgen_proc(s, pid, "c");
	cr_assert_not_null(p);
	m = exm_proc_add_mapping(p);
	cr_assert_not_null(m);
	m->start = start;
	m->end = start + npages * PS;
	m->perms = perms;
	m->name = strdup(kind == EXM_KIND_ANON ? "" : "/f");
	m->inode = kind == EXM_KIND_ANON ? 0 : 9;
	m->kind = kind;
	return m;
}

static void put(struct exm_mapping *m, uint64_t page, uint64_t w)
{
	cr_assert_eq(exm_mapping_add_page(m, m->start / PS + page, w), 0);
}

/* n processes share one page; each also has a page of its own. */
static void sharers(unsigned n)
{
	struct exm_snapshot *s = snap_new(0);
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		struct exm_mapping *m = map_new(s, 100 + (pid_t)i, 0x10000, 2,
						EXM_PERM_R | EXM_PERM_W,
						EXM_KIND_ANON);

		put(m, 0, PRESENT(7, 0));
		put(m, 1, PRESENT(1000 + i, EXM_PM_EXCLUSIVE));
	}
	cr_assert_eq(exm_snapshot_account(s), 0);
	cr_assert_eq(s->distinct_pages, n + 1);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct exm_proc *p = &s->procs[i];

		cr_assert_eq(p->sz.rss, 2 * PS);
		/* PS / n + PS, exact within far less than a byte */
		cr_assert_float_eq(p->sz.erss, PS + (double)PS / n, 1e-6,
				   "%u sharers: pid %d erss %.9f", n,
				   (int)p->pid, p->sz.erss);
		cr_assert_eq(p->sz.sole, PS, "%u sharers: sole", n);
		sum += p->sz.erss;
	}
	cr_assert_float_eq(sum, (double)(n + 1) * PS, 1e-6,
			   "%u sharers: conservation, sum %.9f", n, sum);
	cr_assert_float_eq(s->total.erss, (double)(n + 1) * PS, 1e-6);
	exm_snapshot_free(s);
}

Test(account_bounds, sharers_63_64_65)
{
	sharers(63);
	sharers(64);
	sharers(65);
	sharers(130);
}

/*
 * Sole is the kernel's USS: pages mapped once. A page one process maps
 * twice is not sole (smaps counts it Shared, and so does every source),
 * though no other process maps it; a third page mapped once is.
 */
Test(account_bounds, page_twice_in_one_process_is_not_sole)
{
	struct exm_snapshot *s = snap_new(0);
	struct exm_mapping *a, *b;
	const struct exm_proc *p;

	/* each page added before the next mapping moves the mappings */
	a = map_new(s, 10, 0x10000, 1, EXM_PERM_R, EXM_KIND_FILE);
	put(a, 0, PRESENT(55, EXM_PM_FILE));
	b = map_new(s, 10, 0x20000, 1, EXM_PERM_R, EXM_KIND_FILE);
	put(b, 0, PRESENT(55, EXM_PM_FILE));
	b = map_new(s, 10, 0x30000, 1, EXM_PERM_R, EXM_KIND_FILE);
	put(b, 0, PRESENT(56, EXM_PM_FILE));
	map_new(s, 11, 0x10000, 1, EXM_PERM_R, EXM_KIND_FILE);
	cr_assert_eq(exm_snapshot_account(s), 0);
	p = &s->procs[0];
	cr_assert_eq(p->sz.rss, 3 * PS);
	cr_assert_float_eq(p->sz.erss, 2.0 * PS, 1e-9);
	cr_assert_eq(p->sz.sole, PS, "only the page mapped once");
	cr_assert_eq(s->procs[1].sz.sole, 0);
	exm_snapshot_free(s);
}

/* With the PTE's writable bit (the module), writable is that bit: a
 * read-only exclusive anonymous page is not writable, a writable shared
 * or file page is. The pagemap approximation would say the opposite. */
Test(account_bounds, writable_from_the_pte_when_known)
{
	struct exm_snapshot *s = snap_new(EXM_CAP_WRITABLE |
					  EXM_CAP_PTE_WRITABLE);
	struct exm_mapping *m;
	const struct exm_proc *p;

	m = map_new(s, 10, 0x10000, 3, EXM_PERM_R | EXM_PERM_W, EXM_KIND_ANON);
	put(m, 0, PRESENT(1, EXM_PM_EXCLUSIVE)); /* read-only PTE */
	put(m, 1, PRESENT(2, EXM_PM_WRITABLE));	 /* not exclusive */
	put(m, 2, PRESENT(3, EXM_PM_EXCLUSIVE | EXM_PM_WRITABLE));
	m = map_new(s, 10, 0x20000, 1, EXM_PERM_R | EXM_PERM_W | EXM_PERM_S,
		    EXM_KIND_FILE);
	put(m, 0, PRESENT(4, EXM_PM_FILE | EXM_PM_WRITABLE));
	cr_assert_eq(exm_snapshot_account(s), 0);
	p = &s->procs[0];
	cr_assert(p->sz.has & EXM_HAS_WRITABLE);
	cr_assert_eq(p->sz.writable, 3 * PS, "writable %llu",
		     (unsigned long long)p->sz.writable);
	exm_snapshot_free(s);

	/* without the PTE bit: the approximation, exclusive anonymous pages
	 * of writable private mappings */
	s = snap_new(EXM_CAP_WRITABLE);
	m = map_new(s, 10, 0x10000, 3, EXM_PERM_R | EXM_PERM_W, EXM_KIND_ANON);
	put(m, 0, PRESENT(1, EXM_PM_EXCLUSIVE));
	put(m, 1, PRESENT(2, 0));
	put(m, 2, PRESENT(3, EXM_PM_EXCLUSIVE));
	cr_assert_eq(exm_snapshot_account(s), 0);
	cr_assert_eq(s->procs[0].sz.writable, 2 * PS);
	exm_snapshot_free(s);
}

/* Frames that differ only in bit 27 (the top PFN bit of a packed word)
 * are two pages, not one shared by two processes. */
Test(account_bounds, pfn_bit_27_keeps_frames_apart)
{
	static const uint64_t pfns[] = { 5, (UINT64_C(1) << 27) | 5 };
	struct exm_snapshot *s = snap_new(0);

	for (unsigned i = 0; i < 2; i++) {
		struct exm_mapping *m = map_new(s, 10 + (pid_t)i, 0x10000, 1,
						EXM_PERM_R, EXM_KIND_ANON);

		put(m, 0, PRESENT(pfns[i], 0));
		cr_assert_eq(exm_mapping_word(m, 0), PRESENT(pfns[i], 0));
	}
	cr_assert_eq(exm_snapshot_account(s), 0);
	cr_assert_eq(s->distinct_pages, 2);
	for (unsigned i = 0; i < 2; i++)
		cr_assert_float_eq(s->procs[i].sz.erss, (double)PS, 1e-9);
	exm_snapshot_free(s);
}

/* Pages 0, 2 and 3 of a mapping (page 1 unused): each page's word is
 * found at its own address, in byte ranges of one page each. */
Test(account_bounds, runs_with_a_gap_keep_addresses)
{
	struct exm_snapshot *s = snap_new(0);
	struct exm_mapping *m = map_new(s, 10, 0x10000, 4, EXM_PERM_R,
					EXM_KIND_ANON);
	const struct exm_proc *p;
	static const uint64_t want[] = { PS, 0, PS, PS };

	put(m, 0, PRESENT(1, 0));
	put(m, 2, PRESENT(2, 0));
	put(m, 3, PRESENT(3, 0));
	cr_assert_eq(exm_snapshot_account(s), 0);
	p = &s->procs[0];
	cr_assert_eq(p->sz.rss, 3 * PS);
	for (unsigned k = 0; k < 4; k++) {
		struct exm_sizes z;

		cr_assert_eq(exm_range_sizes(s, p, NULL, 0x10000 + k * PS,
					     0x10000 + (k + 1) * PS, &z),
			     0);
		cr_assert_eq(z.rss, want[k], "page %u: rss %llu", k,
			     (unsigned long long)z.rss);
	}
	exm_snapshot_free(s);
}

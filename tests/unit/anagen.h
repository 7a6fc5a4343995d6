/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * anagen.h - hand-built snapshots for the analysis tests: processes with
 * mappings and page words, accounted by the real accounting.
 */
#ifndef EXM_TESTS_ANAGEN_H
#define EXM_TESTS_ANAGEN_H

#include <criterion/criterion.h>

#include "core/account.h"
#include "core/pagemap.h"
#include "tests/unit/snapgen.h"

#define PS 4096u
#define RX (EXM_PERM_R | EXM_PERM_X)
#define RO (EXM_PERM_R)
#define RW (EXM_PERM_R | EXM_PERM_W)
/* A present page: pfn with flags fl (EXM_PM_FILE for a file page). */
#define PG(pfn, fl) (EXM_PM_PRESENT | (fl) | (uint64_t)(pfn))

static inline struct exm_snapshot *ag_snap(void)
{
	struct exm_snapshot *s = exm_snapshot_new();

	cr_assert_not_null(s);
	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN | EXM_CAP_WRITABLE |
		      EXM_CAP_KPSS;
	return s;
}

static inline struct exm_proc *ag_proc(struct exm_snapshot *s, pid_t pid)
{
	struct exm_proc *p = snapgen_proc(s, pid, "c");

	cr_assert_not_null(p);
	return p;
}

/* A mapping of npages at start; name "" and inode 0 for anonymous. */
static inline struct exm_mapping *ag_map(struct exm_proc *p, uint64_t start,
					 uint64_t npages, unsigned perms,
					 const char *name, uint64_t inode,
					 uint64_t offset, enum exm_kind kind)
{
	struct exm_mapping *m = exm_proc_add_mapping(p);

	cr_assert_not_null(m);
	m->start = start;
	m->end = start + npages * PS;
	m->perms = perms;
	m->name = strdup(name);
	m->inode = inode;
	m->offset = offset;
	m->kind = kind;
	return m;
}

/* Page k of m (in ascending order) is word w. */
static inline void ag_page(struct exm_mapping *m, uint64_t k, uint64_t w)
{
	cr_assert_eq(exm_mapping_add_page(m, m->start / PS + k, w), 0);
}

static inline void ag_account(struct exm_snapshot *s)
{
	cr_assert_eq(exm_snapshot_account(s), 0);
}

#endif

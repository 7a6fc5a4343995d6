// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exclusive memory of sets (core/exclusive.c, the per-process figures of
 * account.c, group rows of group.c, sets named by text of procset.c): exact
 * figures on a hand-built snapshot, and conservation on the fixtures: two
 * disjoint sets never count a page twice, a union holds at least what its
 * parts hold, and one process's set agrees with its own figures.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/analysis.h"
#include "core/exclusive.h"
#include "core/group.h"
#include "core/procset.h"
#include "core/source.h"
#include "tests/unit/snapgen.h"

#define PS 4096u
#define PRESENT(pfn, fl) (EXM_PM_PRESENT | (fl) | (uint64_t)(pfn))
#define SWAPW(type, off) (EXM_PM_SWAPPED | ((uint64_t)(off) << 5) | (type))

static void add(struct exm_mapping *m, uint64_t page, uint64_t w)
{
	cr_assert_eq(exm_mapping_add_page(m, m->start / PS + page, w), 0);
}

#define RW (EXM_PERM_R | EXM_PERM_W)
#define EXCL EXM_PM_EXCLUSIVE
#define FILEP EXM_PM_FILE

/*
 * A (pid 1, comm x): anon pfn 200 (CoW shared with B), 201 (its own), 202
 *   (mapped once here, not exclusive for the kernel: an unscanned
 *   process maps it), swap (1, 9) shared with B, swap (1, 10) its own.
 * B (pid 2, comm x): anon pfn 200, swap (1, 9); file pfn 300 (shared
 *   with C).
 * C (pid 3, comm y): file pfn 300; memfd pfn 400 mapped twice (two
 *   shared mappings).
 */
static struct exm_snapshot *sample(void)
{
	struct exm_snapshot *s = exm_snapshot_new();
	struct exm_proc *p;
	struct exm_mapping *m;

	s->sys.page_size = PS;
	s->sys.caps = EXM_CAP_PAGES | EXM_CAP_PFN;
	p = snapgen_proc(s, 1, "x");
	m = snapgen_map(p, 0x10000, 5, RW, "", EXM_KIND_ANON);
	add(m, 0, PRESENT(200, 0));
	add(m, 1, PRESENT(201, EXCL));
	add(m, 2, PRESENT(202, 0));
	add(m, 3, SWAPW(1, 9));
	add(m, 4, SWAPW(1, 10));
	p = snapgen_proc(s, 2, "x");
	m = snapgen_map(p, 0x10000, 2, RW, "", EXM_KIND_ANON);
	add(m, 0, PRESENT(200, 0));
	add(m, 1, SWAPW(1, 9));
	m = snapgen_map(p, 0x40000, 1, EXM_PERM_R, "/lib/f", EXM_KIND_FILE);
	add(m, 0, PRESENT(300, FILEP));
	p = snapgen_proc(s, 3, "y");
	m = snapgen_map(p, 0x40000, 1, EXM_PERM_R, "/lib/f", EXM_KIND_FILE);
	add(m, 0, PRESENT(300, FILEP));
	m = snapgen_map(p, 0x50000, 1, RW | EXM_PERM_S, "/memfd:m (deleted)",
			EXM_KIND_SHMEM);
	add(m, 0, PRESENT(400, FILEP));
	m = snapgen_map(p, 0x60000, 1, RW | EXM_PERM_S, "/memfd:m (deleted)",
			EXM_KIND_SHMEM);
	add(m, 0, PRESENT(400, FILEP));
	cr_assert_eq(exm_snapshot_account(s), 0);
	return s;
}

/* The exclusive memory of the processes whose bit is set in mask. */
static struct exm_excl of_mask(const struct exm_snapshot *s, unsigned mask)
{
	uint32_t set_of[32];
	struct exm_excl e;

	cr_assert_leq(s->nprocs, 32);
	for (size_t i = 0; i < s->nprocs; i++)
		set_of[i] = (mask >> i) & 1 ? 0 : EXM_SET_NONE;
	cr_assert_eq(exm_exclusive(s, set_of, 1, &e), 0);
	return e;
}

static void expect(struct exm_excl e, uint64_t freed, uint64_t cached,
		   uint64_t shmem)
{
	cr_expect_eq(e.bytes[EXM_EXCL_FREED], freed * PS, "freed %llu",
		     (unsigned long long)e.bytes[EXM_EXCL_FREED]);
	cr_expect_eq(e.bytes[EXM_EXCL_CACHED], cached * PS, "cached %llu",
		     (unsigned long long)e.bytes[EXM_EXCL_CACHED]);
	cr_expect_eq(e.bytes[EXM_EXCL_SHMEM], shmem * PS, "shmem %llu",
		     (unsigned long long)e.bytes[EXM_EXCL_SHMEM]);
}

Test(exclusive, sets_of_a_hand_built_snapshot)
{
	struct exm_snapshot *s = sample();
	const struct exm_proc *a = &s->procs[0], *c = &s->procs[2];

	expect(of_mask(s, 1), 2, 0, 0); /* A: pfn 201, swap (1, 10) */
	expect(of_mask(s, 2), 0, 0, 0); /* B shares all */
	expect(of_mask(s, 4), 0, 0, 1); /* C: pfn 400 once, not twice */
	/* A and B: 200, 201 and both swap entries; never 202 */
	expect(of_mask(s, 3), 4, 0, 0);
	expect(of_mask(s, 6), 0, 1, 1); /* B and C: the file page */
	expect(of_mask(s, 7), 4, 1, 1);
	/* each process's own figures, from accounting, agree */
	cr_expect_eq(a->sz.freed, 2 * PS);
	cr_expect_eq(a->sz.cached + a->sz.shmem_excl, 0);
	cr_expect_eq(c->sz.shmem_excl, PS);
	cr_expect_eq(c->sz.freed + c->sz.cached, 0);
	cr_expect(a->sz.has & EXM_HAS_EXCL);
	exm_snapshot_free(s);
}

Test(exclusive, group_rows_are_the_groups_not_sums)
{
	struct exm_snapshot *s = sample();
	struct exm_row *rows;
	size_t n;

	rows = exm_table_groups(s, EXM_GROUP_PROGRAM, NULL, &n);
	cr_assert_not_null(rows);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(rows[0].name, "x");
	/* A's and B's sums would give 2 pages: the group holds 4 */
	cr_expect_eq(rows[0].sz.freed, 4 * PS);
	cr_expect_eq(rows[0].sz.cached, 0);
	cr_expect_eq(rows[1].sz.shmem_excl, PS);
	cr_expect(rows[0].sz.has & EXM_HAS_EXCL);
	free(rows);
	exm_snapshot_free(s);
}

Test(exclusive, unknown_without_page_identity)
{
	struct exm_snapshot *s = sample();
	uint32_t set_of[3] = { 0, 0, 0 };
	struct exm_excl e;

	s->sys.caps &= ~EXM_CAP_PFN;
	cr_expect_eq(exm_exclusive(s, set_of, 1, &e), -EOPNOTSUPP);
	exm_snapshot_free(s);
}

static uint64_t total(const struct exm_excl *e)
{
	return e->bytes[0] + e->bytes[1] + e->bytes[2];
}

/* Every partition of the fixture's processes into sets by a seed:
 * conserved, and each singleton's figure is its process's own. */
static void conservation(const char *fixture)
{
	struct exm_source *src;
	struct exm_snapshot *s;
	struct exm_scan_opts o = { 0 };
	char err[128];
	uint32_t *set_of;
	struct exm_excl *ex, all;

	cr_assert_eq(exm_source_open(fixture, &src, err, sizeof(err)), 0);
	cr_assert_eq(exm_source_snapshot(src, &o, &s), 0);
	set_of = calloc(s->nprocs, sizeof(*set_of));
	ex = calloc(s->nprocs, sizeof(*ex));
	cr_assert(set_of && ex);
	/* all in one set: the most there is */
	cr_assert_eq(exm_exclusive(s, set_of, 1, &all), 0);
	cr_assert_leq(total(&all), (s->distinct_pages + s->distinct_swap) * PS);
	/* singletons */
	for (size_t i = 0; i < s->nprocs; i++)
		set_of[i] = (uint32_t)i;
	cr_assert_eq(exm_exclusive(s, set_of, s->nprocs, ex), 0);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct exm_sizes *sz = &s->procs[i].sz;

		cr_expect_eq(ex[i].bytes[EXM_EXCL_FREED], sz->freed,
			     "%s pid %d", fixture, (int)s->procs[i].pid);
		cr_expect_eq(ex[i].bytes[EXM_EXCL_CACHED], sz->cached);
		cr_expect_eq(ex[i].bytes[EXM_EXCL_SHMEM], sz->shmem_excl);
	}
	for (unsigned seed = 1; seed < 40; seed++) {
		unsigned k = 1 + seed % 4, x = seed * 2654435761u;
		uint64_t sum = 0;

		for (size_t i = 0; i < s->nprocs; i++) {
			x = x * 1103515245u + 12345u;
			set_of[i] = (x >> 16) % (k + 1); /* k: in no set */
			if (set_of[i] == k)
				set_of[i] = EXM_SET_NONE;
		}
		cr_assert_eq(exm_exclusive(s, set_of, k, ex), 0);
		for (unsigned g = 0; g < k; g++) {
			uint32_t *one = calloc(s->nprocs, sizeof(*one));
			struct exm_excl alone;

			cr_assert_not_null(one);
			sum += total(&ex[g]);
			/* a set's figure does not depend on the others */
			for (size_t i = 0; i < s->nprocs; i++)
				one[i] = set_of[i] == g ? 0 : EXM_SET_NONE;
			cr_assert_eq(exm_exclusive(s, one, 1, &alone), 0);
			cr_expect_eq(total(&alone), total(&ex[g]));
			free(one);
		}
		/* disjoint sets: no page twice */
		cr_expect_leq(sum, total(&all), "%s seed %u", fixture, seed);
	}
	free(set_of);
	free(ex);
	exm_snapshot_free(s);
	exm_source_close(src);
}

Test(exclusive, conserved_on_fixtures)
{
	conservation("fixture:basic");
	conservation("fixture:hostile");
	conservation("fixture:many");
}

Test(procset, parse_and_match)
{
	struct exm_snapshot *s = sample();
	struct exm_procset set;
	char err[128];

	cr_assert_eq(exm_procset_parse("1,3", &set, err, sizeof(err)), 0);
	cr_expect(exm_procset_match(&set, &s->procs[0]));
	cr_expect(!exm_procset_match(&set, &s->procs[1]));
	cr_expect(exm_procset_match(&set, &s->procs[2]));
	exm_procset_fini(&set);
	cr_assert_eq(exm_procset_parse("comm:x", &set, err, sizeof(err)), 0);
	cr_expect(exm_procset_match(&set, &s->procs[1]));
	cr_expect(!exm_procset_match(&set, &s->procs[2]));
	exm_procset_fini(&set);
	cr_assert_eq(exm_procset_parse("cgroup:/", &set, err, sizeof(err)), 0);
	cr_expect(exm_procset_match(&set, &s->procs[0])); /* "" is "/" */
	exm_procset_fini(&set);
	cr_assert_eq(exm_procset_parse("user:u", &set, err, sizeof(err)), 0);
	cr_expect(exm_procset_match(&set, &s->procs[0]));
	exm_procset_fini(&set);
	static const char *const bad[] = {
		"",	 "1,",	  ",1",	     "0",	    "1,,2", "x",
		"user:", "comm:", "cgroup:", "99999999999", "-1",   "1 2"
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(exm_procset_parse(bad[i], &set, err, sizeof(err)),
			     -EINVAL, "'%s' accepted", bad[i]);
		exm_procset_fini(&set);
	}
	exm_snapshot_free(s);
}

/* oom-misleading: the OOM killer's pick (highest score, adj above -1000)
 * frees less than half of another candidate, and at least oom_min less. */
Test(exclusive, oom_misleading_alert)
{
	struct exm_snapshot *s = sample();
	struct exm_alert_opts o;
	struct exm_alerts a;

	exm_alert_opts_init(&o);
	o.oom_min = PS;
	/* A frees 2 pages, B and C none */
	s->procs[0].has_oom = s->procs[1].has_oom = s->procs[2].has_oom = true;
	s->procs[0].oom_score = 100;
	s->procs[1].oom_score = 50;
	s->procs[2].oom_score = 900; /* C: picked, frees nothing */
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_assert(a.checked & (1u << EXM_ALERT_OOM_MISLEADING));
	cr_assert_eq(a.oom_victim, &s->procs[2]);
	cr_assert_eq(a.n, 1);
	cr_expect_eq(a.v[0].kind, EXM_ALERT_OOM_MISLEADING);
	cr_expect_eq(a.v[0].proc, &s->procs[2]);
	cr_expect_eq(a.v[0].other, &s->procs[0]);
	cr_expect_eq(a.v[0].bytes, 2 * PS);
	exm_alerts_fini(&a);
	/* below the threshold: none */
	o.oom_min = 3 * PS;
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_expect_eq(a.n, 0);
	exm_alerts_fini(&a);
	/* C may not be killed: A is the pick, and frees the most */
	o.oom_min = PS;
	s->procs[2].oom_adj = -1000;
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_expect_eq(a.oom_victim, &s->procs[0]);
	cr_expect_eq(a.n, 0);
	exm_alerts_fini(&a);
	/* no score read: not checked, said why */
	for (size_t i = 0; i < 3; i++)
		s->procs[i].has_oom = false;
	cr_assert_eq(exm_alerts_find(s, NULL, &o, &a), 0);
	cr_expect(!(a.checked & (1u << EXM_ALERT_OOM_MISLEADING)));
	cr_expect_not_null(a.why_not[EXM_ALERT_OOM_MISLEADING]);
	exm_alerts_fini(&a);
	exm_snapshot_free(s);
}

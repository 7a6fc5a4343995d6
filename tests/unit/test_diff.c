// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff of two accounted snapshots: the basic fixture against a copy in
 * which one process grew by a known amount, one ended, one started and
 * one pid was reused by a new process.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "core/account.h"
#include "core/builder.h"
#include "core/diff.h"
#include "core/source.h"
#include "tests/unit/snapgen.h"

#define PS 4096

static struct exm_snapshot *basic(void)
{
	struct exm_scan_opts o = { .want_kpss = true };
	struct exm_snapshot *s = NULL;
	struct exm_source *src;
	char err[256];

	cr_assert_eq(exm_source_open("fixture:basic", &src, err, sizeof(err)),
		     0);
	cr_assert_eq(exm_source_snapshot(src, &o, &s), 0);
	exm_source_close(src);
	return s;
}

static struct exm_proc *find(struct exm_snapshot *s, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

/* The later snapshot: basic, then pid 400 maps 5 more private pages,
 * pid 201 ended, pid 700 started, pid 300 is a new process (other start
 * time). */
static struct exm_snapshot *later(const struct exm_snapshot *a)
{
	static const pid_t keep[] = { 1, 200, 300, 301, 302, 400 };
	struct exm_snapshot *b = exm_snapshot_new();
	struct exm_builder bl;
	struct exm_mapping *m;
	struct exm_proc *p;

	exm_builder_init(&bl, b);
	cr_assert_eq(exm_snapshot_emit(a, &exm_builder_sink, &bl), 0);
	exm_snapshot_keep_pids(b, keep, 6);
	p = find(b, 400);
	m = exm_proc_add_mapping(p);
	m->start = 0x9000000;
	m->end = m->start + 8 * PS;
	m->perms = EXM_PERM_R | EXM_PERM_W;
	m->kind = EXM_KIND_HEAP;
	m->name = strdup("[heap]");
	for (unsigned i = 0; i < 5; i++) {
		uint64_t w = EXM_PM_PRESENT | EXM_PM_EXCLUSIVE | (0x90000 + i);

		cr_assert_eq(exm_mapping_add_page(m, m->start / PS + i, w), 0);
	}
	find(b, 300)->start_time += 1;
	p = snapgen_proc(b, 700, "newcomer");
	m = exm_proc_add_mapping(p);
	m->start = 0x1000;
	m->end = 0x3000;
	m->perms = EXM_PERM_R | EXM_PERM_W;
	m->kind = EXM_KIND_ANON;
	m->name = strdup("");
	cr_assert_eq(exm_mapping_add_page(m, 1, EXM_PM_PRESENT | 0x95000), 0);
	cr_assert_eq(exm_snapshot_account(b), 0);
	return b;
}

Test(diff, growth_new_and_gone)
{
	struct exm_snapshot *a = basic(), *b = later(a);
	const struct exm_diff_row *r;
	struct exm_diff *d;
	size_t nsame = 0;

	cr_assert_eq(exm_diff_new(a, b, &d), 0);
	/* 7 before, 7 after: 201 gone, 300 gone and new, 700 new */
	cr_assert_eq(d->nprocs, 9);
	cr_assert_eq(d->nnew, 2);
	cr_assert_eq(d->ngone, 2);

	r = exm_diff_find_pid(d, 400);
	cr_assert_eq(r->change, EXM_DIFF_SAME);
	cr_assert_eq(r->d.rss, 5 * PS);
	cr_assert_eq(r->d.erss, 5.0 * PS);
	cr_assert_eq(r->d.sole, 5 * PS);
	cr_assert_eq(r->d.writable, 5 * PS);
	cr_assert_eq(r->d.vm, 8 * PS);
	cr_assert_eq(r->d.swap, 0);
	cr_assert_eq(r->d.has, a->procs[0].sz.has);
	cr_assert_eq(r->kd.pss, 0); /* the fixture's kernel figures stay */

	r = exm_diff_find_pid(d, 700);
	cr_assert_eq(r->change, EXM_DIFF_NEW);
	cr_assert_null(r->proc_a);
	cr_assert_eq(r->d.rss, PS);
	cr_assert_eq(r->d.erss, (double)PS);

	r = exm_diff_find_pid(d, 201);
	cr_assert_eq(r->change, EXM_DIFF_GONE);
	cr_assert_null(r->proc_b);
	cr_assert_eq(r->d.rss, -(int64_t)r->proc_a->sz.rss);
	cr_assert_eq(r->d.erss, -r->proc_a->sz.erss);
	/* measured where it was: its loss is known, not null */
	cr_assert_eq(r->d.has, r->proc_a->sz.has);
	cr_assert_neq(r->d.has, 0);
	r = exm_diff_find_pid(d, 700);
	cr_assert_eq(r->d.has, r->proc_b->sz.has);
	cr_assert_neq(r->d.has, 0);

	for (size_t i = 0; i < d->nprocs; i++) {
		const struct exm_diff_row *x = &d->procs[i];

		if (exm_diff_row_proc(x)->pid == 300)
			cr_assert(x->change == EXM_DIFF_NEW ||
				  x->change == EXM_DIFF_GONE);
		nsame += x->change == EXM_DIFF_SAME;
		/* sorted by growth of effective resident */
		if (i)
			cr_assert_geq(d->procs[i - 1].d.erss, x->d.erss);
	}
	cr_assert_eq(nsame, 5); /* 1, 200, 301, 302, 400 */
	/* the most grown: the new 300 (all of it), then 200, which now
	 * alone holds what it shared with 201 (12 CoW pages, half of them
	 * counted to it before, and a bigger share of libc) */
	cr_assert_eq(d->procs[0].change, EXM_DIFF_NEW);
	cr_assert_eq(d->procs[0].proc_b->pid, 300);
	cr_assert_eq(d->procs[0].d.erss, d->procs[0].proc_b->sz.erss);
	cr_assert_eq(d->procs[1].proc_b->pid, 200);
	cr_assert_gt(d->procs[1].d.erss, 6.0 * PS);

	/* files: [heap] grew by pid 400's five pages (and 200's sharing
	 * went with 201: the bash pages are now 200's alone) */
	cr_assert_eq(d->total.rss, (int64_t)b->total.rss - (int64_t)a->total.rss);
	cr_assert_eq(d->total.erss, b->total.erss - a->total.erss);
	for (size_t i = 0; i < d->nfiles; i++) {
		const struct exm_diff_row *x = &d->files[i];
		const struct exm_file *f = exm_diff_row_file(x);

		cr_assert_eq(x->change, EXM_DIFF_SAME, "%s", f->name);
		if (!strcmp(f->name, "[heap]"))
			cr_assert_eq(x->d.rss, 5 * PS);
		cr_assert_eq(x->d.rss, (int64_t)x->file_b->sz.rss -
					       (int64_t)x->file_a->sz.rss);
	}
	exm_diff_free(d);
	exm_snapshot_free(b);
	exm_snapshot_free(a);
}

Test(diff, files_of_one_process)
{
	struct exm_snapshot *a = basic(), *b = later(a);
	const struct exm_diff_row *r;
	struct exm_diff_row *rows;
	struct exm_diff *d;
	size_t n, heap = 0;

	cr_assert_eq(exm_diff_new(a, b, &d), 0);
	r = exm_diff_find_pid(d, 400);
	cr_assert_eq(exm_diff_proc_files(r, &rows, &n), 0);
	/* the memfd, my data.bin, and the new [heap] */
	cr_assert_eq(n, 3);
	cr_assert_eq(rows[0].change, EXM_DIFF_NEW);
	cr_assert_str_eq(rows[0].file_b->name, "[heap]");
	cr_assert_eq(rows[0].d.rss, 5 * PS);
	cr_assert_eq(rows[0].d.erss, 5.0 * PS);
	for (size_t i = 1; i < n; i++) {
		cr_assert_eq(rows[i].change, EXM_DIFF_SAME);
		cr_assert_eq(rows[i].d.rss, 0);
		cr_assert_eq(rows[i].proc_b->pid, 400);
		heap += !strcmp(exm_diff_row_file(&rows[i])->name, "[heap]");
	}
	cr_assert_eq(heap, 0);
	free(rows);

	/* a gone process: every file gone, the growth its negative */
	r = exm_diff_find_pid(d, 201);
	cr_assert_eq(exm_diff_proc_files(r, &rows, &n), 0);
	cr_assert_eq(n, r->proc_a->npfiles);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(rows[i].change, EXM_DIFF_GONE);
		cr_assert_leq(rows[i].d.erss, 0.0);
	}
	free(rows);
	exm_diff_free(d);
	exm_snapshot_free(b);
	exm_snapshot_free(a);
}

Test(diff, a_snapshot_against_itself_is_all_zero)
{
	struct exm_snapshot *a = basic();
	struct exm_diff *d;

	cr_assert_eq(exm_diff_new(a, a, &d), 0);
	cr_assert_eq(d->nprocs, a->nprocs);
	cr_assert_eq(d->nfiles, a->nfiles);
	cr_assert_eq(d->nnew + d->ngone, 0);
	for (size_t i = 0; i < d->nprocs; i++) {
		cr_assert_eq(d->procs[i].change, EXM_DIFF_SAME);
		cr_assert_eq(d->procs[i].d.rss, 0);
		cr_assert_eq(d->procs[i].d.erss, 0.0);
		cr_assert_eq(d->procs[i].d.has, d->procs[i].proc_a->sz.has);
	}
	exm_diff_free(d);
	exm_snapshot_free(a);
}

Test(diff, needs_accounted_snapshots)
{
	struct exm_snapshot *a = exm_snapshot_new();
	struct exm_diff *d = NULL;

	cr_assert_eq(exm_diff_new(a, a, &d), -EINVAL);
	cr_assert_null(d);
	exm_snapshot_free(a);
}

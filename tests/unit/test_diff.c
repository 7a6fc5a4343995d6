// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diff of two accounted snapshots: the basic fixture against a copy in
 * which one process grew by a known amount, one ended, one started and
 * one pid was reused by a new process.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/account.h"
#include "core/analysis.h"
#include "core/builder.h"
#include "core/diff.h"
#include "core/source.h"
#include "tests/unit/snapgen.h"

#define PS 4096

/* The growth of field f of a diff row (process rows: EXM_T_PROCS, file
 * rows EXM_T_FILES), which must be measured. */
static double grow_of(const struct exm_diff_row *r, enum exm_table t,
		      enum exm_field_id f)
{
	double g = 0;

	cr_assert(exm_row_growth(f, t, &r->row, &g), "%s not measured",
		  exm_fields[f].key);
	return g;
}
#define PG(r, F) grow_of(r, EXM_T_PROCS, EXM_F_##F)
#define FG(r, F) grow_of(r, EXM_T_FILES, EXM_F_##F)

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

/* A new private read-write mapping of p: npages pages from start. */
static struct exm_mapping *add_map(struct exm_proc *p, uint64_t start,
				   unsigned npages, enum exm_kind kind,
				   const char *name)
{
	struct exm_mapping *m = exm_proc_add_mapping(p);

	cr_assert_not_null(m);
	m->start = start;
	m->end = start + (uint64_t)npages * PS;
	m->perms = EXM_PERM_R | EXM_PERM_W;
	m->kind = kind;
	m->name = strdup(name);
	return m;
}

/* A copy of a, accounted after edit(b) changed it. */
static struct exm_snapshot *copy_with(const struct exm_snapshot *a,
				      void (*edit)(struct exm_snapshot *))
{
	struct exm_snapshot *b = exm_snapshot_new();
	struct exm_builder bl;

	exm_builder_init(&bl, b);
	cr_assert_eq(exm_snapshot_emit(a, &exm_builder_sink, &bl), 0);
	edit(b);
	cr_assert_eq(exm_snapshot_account(b), 0);
	return b;
}

/* The later snapshot: basic, then pid 400 maps 5 more private pages,
 * pid 201 ended, pid 700 started, pid 300 is a new process (other start
 * time). */
static void grow_and_churn(struct exm_snapshot *b)
{
	static const pid_t keep[] = { 1, 200, 300, 301, 302, 400 };
	struct exm_mapping *m;
	struct exm_proc *p;

	exm_snapshot_keep_pids(b, keep, 6);
	m = add_map(find(b, 400), 0x9000000, 8, EXM_KIND_HEAP, "[heap]");
	for (unsigned i = 0; i < 5; i++) {
		uint64_t w = EXM_PM_PRESENT | EXM_PM_EXCLUSIVE | (0x90000 + i);

		cr_assert_eq(exm_mapping_add_page(m, m->start / PS + i, w), 0);
	}
	find(b, 300)->start_time += 1;
	p = snapgen_proc(b, 700, "newcomer");
	m = add_map(p, 0x1000, 2, EXM_KIND_ANON, "");
	cr_assert_eq(exm_mapping_add_page(m, 1, EXM_PM_PRESENT | 0x95000), 0);
}

static struct exm_snapshot *later(const struct exm_snapshot *a)
{
	return copy_with(a, grow_and_churn);
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
	cr_assert_eq(PG(r, RSS), 5 * PS);
	cr_assert_eq(PG(r, ERSS), 5.0 * PS);
	cr_assert_eq(PG(r, SOLE), 5 * PS);
	cr_assert_eq(PG(r, WRITABLE), 5 * PS);
	cr_assert_eq(PG(r, VM), 8 * PS);
	cr_assert_eq(PG(r, SWAP), 0);
	cr_assert_eq(r->row.sz.has & r->row.prev.has, a->procs[0].sz.has);
	cr_assert_eq(PG(r, PSS), 0); /* the fixture's kernel figures stay */
	cr_assert_eq(r->row.flags, EXM_ROW_DELTA);
	cr_assert_eq(r->row.proc, r->proc_b);

	r = exm_diff_find_pid(d, 700);
	cr_assert_eq(r->change, EXM_DIFF_NEW);
	cr_assert_null(r->proc_a);
	cr_assert_eq(PG(r, RSS), PS);
	cr_assert_eq(PG(r, ERSS), (double)PS);
	cr_assert_eq(r->row.flags, EXM_ROW_DELTA | EXM_ROW_NEW);

	r = exm_diff_find_pid(d, 201);
	cr_assert_eq(r->change, EXM_DIFF_GONE);
	cr_assert_null(r->proc_b);
	cr_assert_eq(PG(r, RSS), -(double)r->proc_a->sz.rss);
	cr_assert_eq(PG(r, ERSS), -r->proc_a->sz.erss);
	cr_assert_eq(r->row.flags, EXM_ROW_DELTA | EXM_ROW_GONE);
	cr_assert_eq(r->row.proc, r->proc_a);
	/* measured where it was: its loss is known, not null */
	cr_assert_eq(r->row.sz.has, r->proc_a->sz.has);
	cr_assert_eq(r->row.prev.has, r->proc_a->sz.has);
	cr_assert_neq(r->row.sz.has, 0);
	r = exm_diff_find_pid(d, 700);
	cr_assert_eq(r->row.prev.has, r->proc_b->sz.has);
	cr_assert_neq(r->row.prev.has, 0);

	for (size_t i = 0; i < d->nprocs; i++) {
		const struct exm_diff_row *x = &d->procs[i];

		if (exm_diff_row_proc(x)->pid == 300)
			cr_assert(x->change == EXM_DIFF_NEW ||
				  x->change == EXM_DIFF_GONE);
		nsame += x->change == EXM_DIFF_SAME;
		/* sorted by growth of effective resident */
		if (i)
			cr_assert_geq(PG(&d->procs[i - 1], ERSS), PG(x, ERSS));
	}
	cr_assert_eq(nsame, 5); /* 1, 200, 301, 302, 400 */
	/* the most grown: the new 300 (all of it), then 200, which now
	 * alone holds what it shared with 201 (12 CoW pages, half of them
	 * counted to it before, and a bigger share of libc) */
	cr_assert_eq(d->procs[0].change, EXM_DIFF_NEW);
	cr_assert_eq(d->procs[0].proc_b->pid, 300);
	cr_assert_eq(PG(&d->procs[0], ERSS), d->procs[0].proc_b->sz.erss);
	cr_assert_eq(d->procs[1].proc_b->pid, 200);
	cr_assert_gt(PG(&d->procs[1], ERSS), 6.0 * PS);

	/* files: [heap] grew by pid 400's five pages (and 200's sharing
	 * went with 201: the bash pages are now 200's alone) */
	{
		struct exm_diff_row tot = { .row = d->total };

		cr_assert_eq(FG(&tot, RSS),
			     (double)b->total.rss - (double)a->total.rss);
		cr_assert_eq(FG(&tot, ERSS), b->total.erss - a->total.erss);
	}
	for (size_t i = 0; i < d->nfiles; i++) {
		const struct exm_diff_row *x = &d->files[i];
		const struct exm_file *f = exm_diff_row_file(x);

		cr_assert_eq(x->change, EXM_DIFF_SAME, "%s", f->name);
		if (!strcmp(f->name, "[heap]"))
			cr_assert_eq(FG(x, RSS), 5 * PS);
		cr_assert_eq(FG(x, RSS), (double)x->file_b->sz.rss -
						 (double)x->file_a->sz.rss);
		cr_assert_eq(x->row.file, x->file_b);
		cr_assert_eq(x->row.nprocs, x->file_b->nprocs);
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
	cr_assert_eq(grow_of(&rows[0], EXM_T_PFILES, EXM_F_RSS), 5 * PS);
	cr_assert_eq(grow_of(&rows[0], EXM_T_PFILES, EXM_F_ERSS), 5.0 * PS);
	cr_assert_eq(rows[0].row.nmaps, 1);
	for (size_t i = 1; i < n; i++) {
		cr_assert_eq(rows[i].change, EXM_DIFF_SAME);
		cr_assert_eq(grow_of(&rows[i], EXM_T_PFILES, EXM_F_RSS), 0);
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
		cr_assert_leq(grow_of(&rows[i], EXM_T_PFILES, EXM_F_ERSS), 0.0);
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
		cr_assert_eq(PG(&d->procs[i], RSS), 0);
		cr_assert_eq(PG(&d->procs[i], ERSS), 0.0);
		cr_assert_eq(d->procs[i].row.prev.has,
			     d->procs[i].proc_a->sz.has);
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

/* ---- the engine: identity ---- */

/* pid 400's data file replaced under its name (another inode), its memfd
 * renamed (the same inode), and pid 300 reused by a process started
 * later that maps 64 KiB more anonymous memory. */
static void replace_and_rename(struct exm_snapshot *b)
{
	struct exm_proc *p = find(b, 400);
	struct exm_mapping *m;

	for (size_t i = 0; i < p->nmaps; i++) {
		m = &p->maps[i];
		if (!strcmp(m->name, "/tmp/my data.bin"))
			m->inode = 6001;
		if (!strcmp(m->name, "/memfd:ring")) {
			free(m->name);
			m->name = strdup("/memfd:bell");
		}
	}
	p = find(b, 300);
	p->start_time += 7;
	m = add_map(p, 0x9000000, 16, EXM_KIND_ANON, "");
	cr_assert_eq(exm_mapping_add_run(m, m->start / PS,
					 EXM_PM_PRESENT | EXM_PM_EXCLUSIVE |
						 0x98000,
					 1, 16),
		     0);
}

/* The diff row of file name with inode ino in its snapshot; NULL if none. */
static const struct exm_diff_row *file_row(const struct exm_diff *d,
					   const char *name, uint64_t ino)
{
	for (size_t i = 0; i < d->nfiles; i++) {
		const struct exm_file *f = exm_diff_row_file(&d->files[i]);

		if (!strcmp(f->name, name) && f->inode == ino)
			return &d->files[i];
	}
	return NULL;
}

Test(growth, a_pid_reused_is_a_new_process)
{
	struct exm_snapshot *a = basic(), *b = copy_with(a, replace_and_rename);
	const struct exm_proc *p300 = find(a, 300), *q300 = find(b, 300);
	struct exm_alert_opts ao;
	struct exm_alerts al;
	struct exm_diff *d;
	size_t n300 = 0;

	cr_assert_neq(exm_proc_id_cmp(p300, q300), 0);
	cr_assert_eq(exm_proc_id_cmp(find(a, 301), find(b, 301)), 0);
	cr_assert_null(exm_snapshot_find_proc(b, 300, p300->start_time));
	cr_assert_eq(exm_snapshot_find_proc(b, 300, q300->start_time), q300);
	cr_assert_eq(exm_snapshot_find_proc(b, 301, find(a, 301)->start_time),
		     find(b, 301));
	cr_assert_eq(exm_diff_new(a, b, &d), 0);
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct exm_diff_row *r = &d->procs[i];

		if (exm_diff_row_proc(r)->pid != 300)
			continue;
		n300++;
		cr_assert(r->change == EXM_DIFF_NEW
				  ? !r->proc_a && r->proc_b == q300 &&
					    r->row.flags & EXM_ROW_NEW
				  : r->change == EXM_DIFF_GONE && !r->proc_b &&
					    r->proc_a == p300 &&
					    r->row.flags & EXM_ROW_GONE);
	}
	cr_assert_eq(n300, 2);
	cr_assert_eq(d->nnew, 1);
	cr_assert_eq(d->ngone, 1);
	exm_diff_free(d);

	/* the alert: 64 KiB more anonymous memory under pid 300 is another
	 * process's, not a growth */
	exm_alert_opts_init(&ao);
	ao.min_growth = 4096;
	cr_assert_eq(exm_alerts_find(b, a, &ao, &al), 0);
	cr_assert(al.checked & 1u << EXM_ALERT_ANON_GROWTH);
	for (size_t i = 0; i < al.n; i++)
		cr_assert(al.v[i].kind != EXM_ALERT_ANON_GROWTH);
	exm_alerts_fini(&al);
	exm_snapshot_free(b);

	/* the same growth by the same process is one */
	b = later(a);
	cr_assert_eq(exm_alerts_find(b, a, &ao, &al), 0);
	n300 = 0;
	for (size_t i = 0; i < al.n; i++) {
		if (al.v[i].kind != EXM_ALERT_ANON_GROWTH)
			continue;
		n300++;
		cr_assert_eq(al.v[i].proc->pid, 400);
		cr_assert_eq(al.v[i].bytes, 5 * PS);
	}
	cr_assert_eq(n300, 1);
	exm_alerts_fini(&al);
	exm_snapshot_free(b);
	exm_snapshot_free(a);
}

Test(growth, a_file_is_its_kind_device_inode_and_name)
{
	struct exm_snapshot *a = basic(), *b = copy_with(a, replace_and_rename);
	const struct exm_diff_row *r;
	struct exm_row *rows;
	struct exm_diff *d;
	size_t n, nsame = 0, nnew = 0;

	cr_assert_eq(exm_diff_new(a, b, &d), 0);
	/* replaced: the old inode gone, the new one new */
	r = file_row(d, "/tmp/my data.bin", 6000);
	cr_assert(r && r->change == EXM_DIFF_GONE && r->file_a && !r->file_b);
	cr_assert_eq(FG(r, RSS), -3.0 * PS);
	r = file_row(d, "/tmp/my data.bin", 6001);
	cr_assert(r && r->change == EXM_DIFF_NEW && !r->file_a && r->file_b);
	cr_assert_eq(FG(r, RSS), 3.0 * PS);
	/* renamed: another file under its new name */
	r = file_row(d, "/memfd:ring (deleted)", 5000);
	cr_assert(r && r->change == EXM_DIFF_GONE);
	r = file_row(d, "/memfd:bell (deleted)", 5000);
	cr_assert(r && r->change == EXM_DIFF_NEW);
	for (size_t i = 0; i < d->nfiles; i++) {
		const struct exm_diff_row *x = &d->files[i];

		if (x->change != EXM_DIFF_SAME)
			continue;
		nsame++;
		cr_assert_eq(exm_file_id_cmp(x->file_a, x->file_b), 0);
		cr_assert_str_eq(x->file_a->name, x->file_b->name);
	}
	/* every other file and kind is the same one */
	cr_assert_eq(nsame + 2, a->nfiles);
	cr_assert_eq(d->nfiles, a->nfiles + 2);

	/* delta mode matches the same way */
	rows = exm_table_files(b, &n);
	cr_assert_not_null(rows);
	for (size_t i = 0; i < n; i++)
		rows[i].flags = EXM_ROW_DELTA;
	cr_assert_eq(exm_rows_set_prev_snap(EXM_T_FILES, rows, n, a), 0);
	for (size_t i = 0; i < n; i++) {
		bool fresh = (rows[i].file->inode == 6001 ||
			      rows[i].file->inode == 5000);

		nnew += !!(rows[i].flags & EXM_ROW_NEW);
		cr_assert_eq(!!(rows[i].flags & EXM_ROW_NEW), fresh, "%s",
			     rows[i].file->name);
	}
	cr_assert_eq(nnew, 2);
	free(rows);
	exm_diff_free(d);
	exm_snapshot_free(b);
	exm_snapshot_free(a);
}

/* ---- the engine: growth of every size of the field table ---- */

/* Every field that grows, every field that is a size of the row grows: a
 * size added to the table later grows without a word here. */
Test(growth, every_size_of_the_field_table_grows)
{
	struct exm_row r;
	size_t ngrow = 0, nchecked = 0;

	for (int f = 0; f < EXM_F__COUNT; f++) {
		const struct exm_field *fd = &exm_fields[f];

		if (exm_field_grows(f)) {
			ngrow++;
			cr_assert(fd->type == EXM_FT_SIZE ||
					  fd->type == EXM_FT_ESIZE,
				  "%s", fd->key);
		} else if (fd->type == EXM_FT_SIZE ||
			   fd->type == EXM_FT_ESIZE) {
			cr_assert(fd->nogrow, "%s", fd->key);
		}
	}
	cr_assert_geq(ngrow, 20);

	/* a row whose every size member differs between its two sides */
	memset(&r, 0, sizeof(r));
	memset(&r.prev, 0x01, offsetof(struct exm_sizes, has));
	memset(&r.sz, 0x11, offsetof(struct exm_sizes, has));
	memset(&r.prev_kpss, 0x01, offsetof(struct exm_kpss, has));
	memset(&r.kpss, 0x11, offsetof(struct exm_kpss, has));
	r.sz.has = r.prev.has = ~0u;
	r.kpss.has = r.prev_kpss.has = ~0u;
	r.flags = EXM_ROW_DELTA;
	for (int f = 0; f < EXM_F__COUNT; f++) {
		for (int t = 0; t < EXM_T__COUNT; t++) {
			struct exm_row after = r, before = r;
			struct exm_value va, vb, vd;
			double g = 0;

			if (!(exm_fields[f].tables & EXM_TBIT(t)))
				continue;
			after.flags = before.flags = 0;
			before.sz = r.prev;
			before.kpss = r.prev_kpss;
			exm_field_value(f, t, &after, &va);
			exm_field_value(f, t, &before, &vb);
			exm_field_value(f, t, &r, &vd);
			if (!exm_field_grows(f)) {
				cr_assert(!exm_row_growth(f, t, &r, &g));
				continue;
			}
			nchecked++;
			cr_assert_neq(va.type, EXM_V_NONE, "%s",
				      exm_fields[f].key);
			cr_assert_eq(vd.type, EXM_V_DELTA, "%s",
				     exm_fields[f].key);
			cr_assert(exm_row_growth(f, t, &r, &g));
			cr_assert_eq(g, vd.d);
			cr_assert_eq(g,
				     (va.type == EXM_V_INT ? (double)va.u
							   : va.d) -
					     (vb.type == EXM_V_INT
						      ? (double)vb.u
						      : vb.d),
				     "%s", exm_fields[f].key);
			/* the two sides differ: so does the growth from 0 */
			cr_assert_neq(g, 0.0, "%s of %s", exm_fields[f].key,
				      exm_table_name(t));
		}
	}
	cr_assert_geq(nchecked, ngrow);

	/* not measured before: no growth */
	r.prev.has = 0;
	r.prev_kpss.has = 0;
	for (int f = 0; f < EXM_F__COUNT; f++) {
		double g;

		cr_assert(!exm_row_growth(f, EXM_T_PROCS, &r, &g), "%s",
			  exm_fields[f].key);
	}
}

/* The plain value of field f of row r as a number (EXM_V_NONE: false). */
static bool number(enum exm_field_id f, enum exm_table t,
		   const struct exm_row *r, double *out)
{
	struct exm_value v;

	exm_field_value(f, t, r, &v);
	*out = v.type == EXM_V_INT ? (double)v.u : v.d;
	return v.type == EXM_V_INT || v.type == EXM_V_DBL;
}

/* Each delta row of rows against the plain rows of its two sides. */
static size_t check_against_sides(enum exm_table t, const struct exm_row *rows,
				  size_t n, const struct exm_row *pa, size_t na,
				  const struct exm_row *pb, size_t nb)
{
	size_t checked = 0;

	for (size_t i = 0; i < n; i++) {
		const struct exm_row *x = NULL, *y = NULL;
		struct exm_ident id, k;

		exm_ident_of_row(t, &rows[i], &id);
		for (size_t j = 0; j < na; j++) {
			exm_ident_of_row(t, &pa[j], &k);
			if (!exm_ident_cmp(&id, &k))
				x = &pa[j];
		}
		for (size_t j = 0; j < nb; j++) {
			exm_ident_of_row(t, &pb[j], &k);
			if (!exm_ident_cmp(&id, &k))
				y = &pb[j];
		}
		cr_assert(x || y);
		for (int f = 0; f < EXM_F__COUNT; f++) {
			double g, u = 0, v = 0;
			bool hu, hv;

			if (!exm_field_grows(f) ||
			    !(exm_fields[f].tables & EXM_TBIT(t)))
				continue;
			hu = x ? number(f, t, x, &u) : true;
			hv = y ? number(f, t, y, &v) : true;
			if (!x || !y) /* measured where it is */
				hu = hv = x ? hu : hv;
			cr_assert_eq(exm_row_growth(f, t, &rows[i], &g),
				     hu && hv, "%s", exm_fields[f].key);
			if (hu && hv) {
				cr_assert_eq(g, v - u, "%s: %f, not %f - %f",
					     exm_fields[f].key, g, v, u);
				checked++;
			}
		}
	}
	return checked;
}

Test(growth, diff_and_delta_mode_agree_with_both_sides)
{
	struct exm_snapshot *a = basic(), *b = later(a);
	struct exm_row *pa, *pb, *fa, *fb, *rows, *dr;
	size_t npa, npb, nfa, nfb, n, checked = 0;
	struct exm_diff *d;

	cr_assert_eq(exm_diff_new(a, b, &d), 0);
	pa = exm_table_procs(a, &npa);
	pb = exm_table_procs(b, &npb);
	fa = exm_table_files(a, &nfa);
	fb = exm_table_files(b, &nfb);
	cr_assert(pa && pb && fa && fb);

	/* --diff: every row, every size, is after minus before */
	dr = calloc(d->nprocs + d->nfiles + 1, sizeof(*dr));
	for (size_t i = 0; i < d->nprocs; i++)
		dr[i] = d->procs[i].row;
	checked += check_against_sides(EXM_T_PROCS, dr, d->nprocs, pa, npa, pb,
				       npb);
	for (size_t i = 0; i < d->nfiles; i++)
		dr[i] = d->files[i].row;
	checked += check_against_sides(EXM_T_FILES, dr, d->nfiles, fa, nfa, fb,
				       nfb);
	free(dr);

	/* delta mode and the delta columns (the later snapshot's rows with
	 * the earlier as their before): the same growth as --diff */
	rows = exm_table_procs(b, &n);
	for (size_t i = 0; i < n; i++)
		rows[i].flags = EXM_ROW_DELTA;
	cr_assert_eq(exm_rows_set_prev_snap(EXM_T_PROCS, rows, n, a), 0);
	checked += check_against_sides(EXM_T_PROCS, rows, n, pa, npa, pb, npb);
	for (size_t i = 0; i < n; i++) {
		const struct exm_diff_row *r =
			exm_diff_find_pid(d, rows[i].proc->pid);

		cr_assert_eq(!!(rows[i].flags & EXM_ROW_NEW),
			     r->change == EXM_DIFF_NEW);
		for (int f = 0; f < EXM_F__COUNT; f++) {
			double g, h;
			bool m = exm_row_growth(f, EXM_T_PROCS, &rows[i], &g);

			cr_assert_eq(m, exm_row_growth(f, EXM_T_PROCS, &r->row,
						       &h));
			if (m)
				cr_assert_eq(g, h, "%s", exm_fields[f].key);
		}
	}
	free(rows);
	cr_assert_gt(checked, 100);
	free(pa);
	free(pb);
	free(fa);
	free(fb);
	exm_diff_free(d);
	exm_snapshot_free(b);
	exm_snapshot_free(a);
}

/* The delta columns of the processes' and files' tables (-b -n N): the
 * same from a snapshot kept by its sizes only (exm_snapshot_keep_sizes,
 * which batch mode keeps for the next one's deltas) as from the whole. */
static size_t same_deltas(enum exm_table t, const struct exm_snapshot *b,
			  const struct exm_snapshot *whole,
			  const struct exm_snapshot *kept)
{
	struct exm_row *x, *y;
	size_t nx, ny, checked = 0;

	x = t == EXM_T_FILES ? exm_table_files(b, &nx)
			     : exm_table_procs(b, &nx);
	y = t == EXM_T_FILES ? exm_table_files(b, &ny)
			     : exm_table_procs(b, &ny);
	cr_assert(x && y && nx == ny && nx > 0);
	cr_assert_eq(exm_rows_set_prev_snap(t, x, nx, whole), 0);
	cr_assert_eq(exm_rows_set_prev_snap(t, y, ny, kept), 0);
	for (size_t i = 0; i < nx; i++) {
		cr_assert_eq(x[i].flags, y[i].flags);
		for (int f = 0; f < EXM_F__COUNT; f++) {
			double g, h;
			bool m = exm_row_growth(f, t, &x[i], &g);

			cr_assert_eq(m, exm_row_growth(f, t, &y[i], &h), "%s",
				     exm_fields[f].key);
			if (m) {
				cr_assert_eq(g, h, "%s", exm_fields[f].key);
				checked++;
			}
		}
	}
	free(x);
	free(y);
	return checked;
}

/* s's mappings that hold page words. */
static size_t with_words(const struct exm_snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nprocs; i++)
		for (size_t j = 0; j < s->procs[i].nmaps; j++)
			n += s->procs[i].maps[j].pages ||
			     s->procs[i].maps[j].pages32;
	return n;
}

/* b's delta columns against a kept (k, a copy of a cut down) equal those
 * against a whole, over processes and files; frees all three. */
static void same_as_whole(struct exm_snapshot *a, struct exm_snapshot *b,
			  struct exm_snapshot *k)
{
	size_t checked = same_deltas(EXM_T_PROCS, b, a, k) +
			 same_deltas(EXM_T_FILES, b, a, k);

	cr_assert_gt(checked, 20);
	exm_snapshot_free(k);
	exm_snapshot_free(b);
	exm_snapshot_free(a);
}

Test(growth, a_snapshot_kept_by_its_sizes_gives_the_same_deltas)
{
	struct exm_snapshot *a = basic(), *b = later(a), *k = basic();

	cr_assert(with_words(k) > 0 && k->pfn_counts,
		  "the fixture has words and tables");
	exm_snapshot_keep_sizes(k);
	cr_assert_eq(with_words(k), 0);
	cr_assert_null(k->store);
	cr_assert_null(k->pfn_counts);
	cr_assert_null(k->swap_counts);
	cr_assert_null(k->huge_counts);
	cr_assert_eq(k->sys.caps & EXM_CAP_PAGES, 0);
	same_as_whole(a, b, k);
}

/* The same kept by its rows only (exm_snapshot_keep_rows, batch listing's
 * choice): no mapping, no per-process file, the same deltas. */
Test(growth, a_snapshot_kept_by_its_rows_gives_the_same_deltas)
{
	struct exm_snapshot *a = basic(), *b = later(a), *k = basic();
	size_t nmaps = 0, npfiles = 0;

	for (size_t i = 0; i < k->nprocs; i++) {
		nmaps += k->procs[i].nmaps;
		npfiles += k->procs[i].npfiles;
	}
	cr_assert(nmaps > 0 && npfiles > 0 && k->nfiles > 0,
		  "the fixture has mappings and files");
	exm_snapshot_keep_rows(k);
	for (size_t i = 0; i < k->nprocs; i++) {
		cr_assert_eq(k->procs[i].nmaps, 0);
		cr_assert_null(k->procs[i].maps);
		cr_assert_eq(k->procs[i].npfiles, 0);
		cr_assert_null(k->procs[i].pfiles);
	}
	cr_assert_null(k->pfn_counts);
	cr_assert_gt(k->nfiles, 0);
	same_as_whole(a, b, k);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/* diff.c - growth between two accounted snapshots; see diff.h. */
#include "core/diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"

static const char *const change_names[] = {
	[EXM_DIFF_SAME] = "same",
	[EXM_DIFF_NEW] = "new",
	[EXM_DIFF_GONE] = "gone",
};

const char *exm_diff_change_name(enum exm_diff_change c)
{
	return (unsigned)c < 3 ? change_names[c] : "?";
}

/* d = after - before; either may be NULL (absent: counts 0). */
static void delta(struct exm_delta *d, const struct exm_sizes *before,
		  const struct exm_sizes *after)
{
	static const struct exm_sizes zero;
	const struct exm_sizes *x = before ? before : &zero;
	const struct exm_sizes *y = after ? after : &zero;

	d->vm = (int64_t)(y->vm - x->vm);
	d->rss = (int64_t)(y->rss - x->rss);
	d->swap = (int64_t)(y->swap - x->swap);
	d->sole = (int64_t)(y->sole - x->sole);
	d->writable = (int64_t)(y->writable - x->writable);
	d->erss = y->erss - x->erss;
	d->eswap = y->eswap - x->eswap;
	d->has = before && after ? x->has & y->has : before ? x->has : y->has;
}

static void kdelta(struct exm_kdelta *d, const struct exm_kpss *before,
		   const struct exm_kpss *after)
{
	static const struct exm_kpss zero;
	const struct exm_kpss *x = before ? before : &zero;
	const struct exm_kpss *y = after ? after : &zero;

	d->pss = (int64_t)(y->pss - x->pss);
	d->pss_anon = (int64_t)(y->pss_anon - x->pss_anon);
	d->pss_file = (int64_t)(y->pss_file - x->pss_file);
	d->pss_shmem = (int64_t)(y->pss_shmem - x->pss_shmem);
	d->pss_dirty = (int64_t)(y->pss_dirty - x->pss_dirty);
	d->swap_pss = (int64_t)(y->swap_pss - x->swap_pss);
	d->rss = (int64_t)(y->rss - x->rss);
	d->has = before && after ? x->has & y->has : before ? x->has : y->has;
}

/* ---- matching: each item of a with the equal item of b ---- */

static int cmp_proc(const void *x, const void *y)
{
	const struct exm_proc *p = *(const struct exm_proc *const *)x;
	const struct exm_proc *q = *(const struct exm_proc *const *)y;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return (p->start_time > q->start_time) - (p->start_time < q->start_time);
}

static int cmp_file(const void *x, const void *y)
{
	const struct exm_file *f = *(const struct exm_file *const *)x;
	const struct exm_file *g = *(const struct exm_file *const *)y;

	if (f->kind != g->kind)
		return f->kind < g->kind ? -1 : 1;
	if (f->dev_major != g->dev_major)
		return f->dev_major < g->dev_major ? -1 : 1;
	if (f->dev_minor != g->dev_minor)
		return f->dev_minor < g->dev_minor ? -1 : 1;
	if (f->inode != g->inode)
		return f->inode < g->inode ? -1 : 1;
	return strcmp(f->name, g->name);
}

/* A pair of matched items; NULL where absent. */
struct pair {
	const void *a, *b;
};

/*
 * Pair the na items of a with the nb of b (arrays of pointers) that
 * compare equal: a's in order (gone or matched), then b's unmatched (new).
 * *out (at most na + nb pairs) is the caller's to free. 0 or -ENOMEM.
 */
static int match(const void **a, size_t na, const void **b, size_t nb,
		 int (*cmp)(const void *, const void *), struct pair **out,
		 size_t *nout)
{
	const void **idx = malloc((nb + 1) * sizeof(*idx));
	bool *seen = calloc(nb + 1, sizeof(*seen));
	struct pair *pr = malloc((na + nb + 1) * sizeof(*pr));
	size_t n = 0;

	if (!idx || !seen || !pr) {
		free(idx);
		free(seen);
		free(pr);
		return -ENOMEM;
	}
	memcpy(idx, b, nb * sizeof(*idx));
	qsort(idx, nb, sizeof(*idx), cmp);
	for (size_t i = 0; i < na; i++) {
		const void **hit = bsearch(&a[i], idx, nb, sizeof(*idx), cmp);

		pr[n].a = a[i];
		pr[n].b = NULL;
		if (hit && !seen[hit - idx]) {
			seen[hit - idx] = true;
			pr[n].b = *hit;
		}
		n++;
	}
	for (size_t i = 0; i < nb; i++)
		if (!seen[i])
			pr[n++] = (struct pair){ NULL, idx[i] };
	free(idx);
	free(seen);
	*out = pr;
	*nout = n;
	return 0;
}

static enum exm_diff_change change_of(const struct pair *p)
{
	return !p->a ? EXM_DIFF_NEW : !p->b ? EXM_DIFF_GONE : EXM_DIFF_SAME;
}

static int diff_procs(struct exm_diff *d)
{
	const void **pa = malloc((d->a->nprocs + 1) * sizeof(*pa));
	const void **pb = malloc((d->b->nprocs + 1) * sizeof(*pb));
	struct pair *pr = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	if (pa && pb) {
		for (size_t i = 0; i < d->a->nprocs; i++)
			pa[i] = &d->a->procs[i];
		for (size_t i = 0; i < d->b->nprocs; i++)
			pb[i] = &d->b->procs[i];
		ret = match(pa, d->a->nprocs, pb, d->b->nprocs, cmp_proc, &pr,
			    &n);
	}
	free(pa);
	free(pb);
	if (!ret)
		d->procs = calloc(n + 1, sizeof(*d->procs));
	if (!ret && !d->procs)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < n; i++) {
		struct exm_diff_row *r = &d->procs[d->nprocs++];

		r->change = change_of(&pr[i]);
		r->proc_a = pr[i].a;
		r->proc_b = pr[i].b;
		d->nnew += r->change == EXM_DIFF_NEW;
		d->ngone += r->change == EXM_DIFF_GONE;
		delta(&r->d, r->proc_a ? &r->proc_a->sz : NULL,
		      r->proc_b ? &r->proc_b->sz : NULL);
		kdelta(&r->kd, r->proc_a ? &r->proc_a->kpss : NULL,
		       r->proc_b ? &r->proc_b->kpss : NULL);
	}
	free(pr);
	return ret;
}

static int diff_files(struct exm_diff *d)
{
	struct pair *pr = NULL;
	size_t n = 0;
	int ret = match((const void **)d->a->files, d->a->nfiles,
			(const void **)d->b->files, d->b->nfiles, cmp_file, &pr,
			&n);

	if (!ret)
		d->files = calloc(n + 1, sizeof(*d->files));
	if (!ret && !d->files)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < n; i++) {
		struct exm_diff_row *r = &d->files[d->nfiles++];

		r->change = change_of(&pr[i]);
		r->file_a = pr[i].a;
		r->file_b = pr[i].b;
		delta(&r->d, r->file_a ? &r->file_a->sz : NULL,
		      r->file_b ? &r->file_b->sz : NULL);
	}
	free(pr);
	return ret;
}

int exm_diff_proc_files(const struct exm_diff_row *r,
			struct exm_diff_row **out, size_t *n)
{
	const struct exm_proc *p = r->proc_a, *q = r->proc_b;
	size_t na = p ? p->npfiles : 0, nb = q ? q->npfiles : 0, np = 0;
	const void **fa = malloc((na + 1) * sizeof(*fa));
	const void **fb = malloc((nb + 1) * sizeof(*fb));
	struct exm_diff_row *rows = NULL;
	struct pair *pr = NULL;
	int ret = -ENOMEM;

	if (fa && fb) {
		for (size_t i = 0; i < na; i++)
			fa[i] = p->pfiles[i].file;
		for (size_t i = 0; i < nb; i++)
			fb[i] = q->pfiles[i].file;
		ret = match(fa, na, fb, nb, cmp_file, &pr, &np);
	}
	free(fa);
	free(fb);
	if (!ret) {
		rows = calloc(np + 1, sizeof(*rows));
		if (!rows)
			ret = -ENOMEM;
	}
	for (size_t i = 0; !ret && i < np; i++) {
		const struct exm_pfile *x = pr[i].a ? exm_proc_find_pfile(p, pr[i].a)
						    : NULL;
		const struct exm_pfile *y = pr[i].b ? exm_proc_find_pfile(q, pr[i].b)
						    : NULL;

		rows[i].change = change_of(&pr[i]);
		rows[i].proc_a = p;
		rows[i].proc_b = q;
		rows[i].file_a = pr[i].a;
		rows[i].file_b = pr[i].b;
		delta(&rows[i].d, x ? &x->sz : NULL, y ? &y->sz : NULL);
	}
	free(pr);
	if (ret) {
		free(rows);
		return ret;
	}
	exm_diff_sort(rows, np);
	*out = rows;
	*n = np;
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct exm_diff_row *a = x, *b = y;
	const struct exm_proc *p = exm_diff_row_proc(a), *q = exm_diff_row_proc(b);

	if (a->d.erss != b->d.erss)
		return a->d.erss > b->d.erss ? -1 : 1;
	if (p && q && p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (exm_diff_row_file(a) && exm_diff_row_file(b)) {
		int c = strcmp(exm_diff_row_file(a)->name,
			       exm_diff_row_file(b)->name);

		if (c)
			return c;
	}
	return (a->change == EXM_DIFF_GONE) - (b->change == EXM_DIFF_GONE);
}

void exm_diff_sort(struct exm_diff_row *rows, size_t n)
{
	qsort(rows, n, sizeof(*rows), cmp_row);
}

int exm_diff_new(const struct exm_snapshot *a, const struct exm_snapshot *b,
		 struct exm_diff **out)
{
	struct exm_diff *d;
	int ret;

	if (!a->accounted || !b->accounted)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->a = a;
	d->b = b;
	ret = diff_procs(d);
	if (!ret)
		ret = diff_files(d);
	if (ret) {
		exm_diff_free(d);
		return ret;
	}
	delta(&d->total, &a->total, &b->total);
	d->seconds = (double)(b->sys.taken_at.tv_sec - a->sys.taken_at.tv_sec) +
		     (double)(b->sys.taken_at.tv_nsec - a->sys.taken_at.tv_nsec) /
			     1e9;
	exm_diff_sort(d->procs, d->nprocs);
	exm_diff_sort(d->files, d->nfiles);
	*out = d;
	return 0;
}

void exm_diff_free(struct exm_diff *d)
{
	if (!d)
		return;
	free(d->procs);
	free(d->files);
	free(d);
}

const struct exm_diff_row *exm_diff_find_pid(const struct exm_diff *d,
					     pid_t pid)
{
	const struct exm_diff_row *gone = NULL;

	for (size_t i = 0; i < d->nprocs; i++) {
		const struct exm_diff_row *r = &d->procs[i];

		if (r->proc_b && r->proc_b->pid == pid)
			return r;
		if (!gone && r->proc_a && r->proc_a->pid == pid)
			gone = r;
	}
	return gone;
}

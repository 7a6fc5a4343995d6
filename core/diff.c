// SPDX-License-Identifier: GPL-2.0-or-later
/* diff.c - the identity and growth engine; see diff.h. */
#include "core/diff.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"

/* ---- identity ---- */

void exm_ident_of_row(enum exm_table t, const struct exm_row *r,
		      struct exm_ident *out)
{
	memset(out, 0, sizeof(*out));
	switch (t) {
	case EXM_T_PROCS:
	case EXM_T_FPROCS:
		if (r->proc) {
			out->has_proc = true;
			out->pid = r->proc->pid;
			out->start_time = r->proc->start_time;
		}
		break;
	case EXM_T_FILES:
	case EXM_T_PFILES:
		if (r->file) {
			out->has_file = true;
			out->kind = r->file->kind;
			out->dev_major = r->file->dev_major;
			out->dev_minor = r->file->dev_minor;
			out->inode = r->file->inode;
			out->fname = r->file->name;
		}
		break;
	case EXM_T_MAPPINGS:
		out->has_addr = true;
		out->addr = r->map ? r->map->start : r->addr;
		break;
	case EXM_T_GROUPS:
		out->has_name = true;
		out->name = r->name ? r->name : "";
		break;
	default:
		/* sections, symbols and anything later: name and address */
		out->has_name = true;
		out->name = r->name ? r->name : "";
		out->has_addr = true;
		out->addr = r->addr;
		break;
	}
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

int exm_ident_cmp(const struct exm_ident *a, const struct exm_ident *b)
{
	int c;

	if ((c = a->has_proc - b->has_proc) ||
	    (c = a->has_file - b->has_file) ||
	    (c = a->has_name - b->has_name) || (c = a->has_addr - b->has_addr))
		return c;
	if (a->has_proc && ((c = cmp_u64((uint64_t)a->pid, (uint64_t)b->pid)) ||
			    (c = cmp_u64(a->start_time, b->start_time))))
		return c;
	if (a->has_file && ((c = cmp_u64(a->kind, b->kind)) ||
			    (c = cmp_u64(a->dev_major, b->dev_major)) ||
			    (c = cmp_u64(a->dev_minor, b->dev_minor)) ||
			    (c = cmp_u64(a->inode, b->inode)) ||
			    (c = cmp_str(a->fname, b->fname))))
		return c;
	if (a->has_name && (c = cmp_str(a->name, b->name)))
		return c;
	return a->has_addr ? cmp_u64(a->addr, b->addr) : 0;
}

/* The order of rows x and y of table t by identity. */
static int row_id_cmp(enum exm_table t, const struct exm_row *x,
		      const struct exm_row *y)
{
	struct exm_ident a, b;

	exm_ident_of_row(t, x, &a);
	exm_ident_of_row(t, y, &b);
	return exm_ident_cmp(&a, &b);
}

int exm_proc_id_cmp(const struct exm_proc *p, const struct exm_proc *q)
{
	return row_id_cmp(EXM_T_PROCS, &(struct exm_row){ .proc = p },
			  &(struct exm_row){ .proc = q });
}

int exm_file_id_cmp(const struct exm_file *f, const struct exm_file *g)
{
	return row_id_cmp(EXM_T_FILES, &(struct exm_row){ .file = f },
			  &(struct exm_row){ .file = g });
}

const struct exm_proc *exm_snapshot_find_proc(const struct exm_snapshot *snap,
					      pid_t pid, uint64_t start_time)
{
	const struct exm_proc *p = snap ? exm_snapshot_find_pid(snap, pid)
					: NULL;

	return p && p->start_time == start_time ? p : NULL;
}

const struct exm_file *exm_snapshot_same_file(const struct exm_snapshot *snap,
					      const struct exm_ident *id)
{
	struct exm_ident want = { 0 }, fid;

	if (!snap || !id->has_file)
		return NULL;
	/* the file's part of id */
	want.has_file = true;
	want.kind = id->kind;
	want.dev_major = id->dev_major;
	want.dev_minor = id->dev_minor;
	want.inode = id->inode;
	want.fname = id->fname;
	for (size_t i = 0; i < snap->nfiles; i++) {
		struct exm_row r = { .file = snap->files[i] };

		exm_ident_of_row(EXM_T_FILES, &r, &fid);
		if (!exm_ident_cmp(&fid, &want))
			return snap->files[i];
	}
	return NULL;
}

/* ---- growth of rows ---- */

struct prev_key {
	struct exm_ident id;
	const struct exm_row *row;
};

static int cmp_prev_key(const void *a, const void *b)
{
	return exm_ident_cmp(&((const struct prev_key *)a)->id,
			     &((const struct prev_key *)b)->id);
}

int exm_rows_set_prev(enum exm_table t, struct exm_row *rows, size_t n,
		      const struct exm_row *old, size_t nold)
{
	struct prev_key *keys = malloc((nold + 1) * sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < nold; i++) {
		exm_ident_of_row(t, &old[i], &keys[i].id);
		keys[i].row = &old[i];
	}
	if (nold)
		qsort(keys, nold, sizeof(*keys), cmp_prev_key);
	for (size_t i = 0; i < n; i++) {
		struct prev_key k, *hit = NULL;

		exm_ident_of_row(t, &rows[i], &k.id);
		if (nold)
			hit = bsearch(&k, keys, nold, sizeof(*keys),
				      cmp_prev_key);
		memset(&rows[i].prev, 0, sizeof(rows[i].prev));
		memset(&rows[i].prev_kpss, 0, sizeof(rows[i].prev_kpss));
		if (hit) {
			rows[i].prev = hit->row->sz;
			rows[i].prev_kpss = hit->row->kpss;
		} else if (rows[i].flags & EXM_ROW_DELTA) {
			/* new since the baseline: it grew by all it has */
			rows[i].flags |= EXM_ROW_NEW;
			rows[i].prev.has = rows[i].sz.has;
			rows[i].prev_kpss.has = rows[i].kpss.has;
		}
	}
	free(keys);
	return 0;
}

int exm_rows_set_prev_snap(enum exm_table t, struct exm_row *rows, size_t n,
			   const struct exm_snapshot *prev)
{
	struct exm_row *old;
	size_t nold;
	int ret;

	if (t != EXM_T_PROCS && t != EXM_T_FILES)
		return 0; /* other tables: from their view's own rows */
	old = t == EXM_T_FILES ? exm_table_files(prev, &nold)
			       : exm_table_procs(prev, &nold);
	if (!old)
		return -ENOMEM;
	ret = exm_rows_set_prev(t, rows, n, old, nold);
	free(old);
	return ret;
}

bool exm_row_growth(enum exm_field_id f, enum exm_table t,
		    const struct exm_row *r, double *out)
{
	struct exm_row d = *r;
	struct exm_value v;

	if ((unsigned)f >= EXM_F__COUNT || !exm_field_grows(f))
		return false;
	d.flags |= EXM_ROW_DELTA;
	exm_field_value(f, t, &d, &v);
	if (v.type != EXM_V_DELTA)
		return false;
	*out = v.d;
	return true;
}

/* ---- two snapshots ---- */

static const char *const change_names[] = {
	[EXM_DIFF_SAME] = "same",
	[EXM_DIFF_NEW] = "new",
	[EXM_DIFF_GONE] = "gone",
};

const char *exm_diff_change_name(enum exm_diff_change c)
{
	return (unsigned)c < 3 ? change_names[c] : "?";
}

/*
 * *out (size bytes: struct exm_sizes or exm_kpss, whose has member is at
 * has_at) = side s, or, absent, zeros measured as the other side.
 */
static void side(void *out, const void *s, const void *other, size_t size,
		 size_t has_at)
{
	memset(out, 0, size);
	if (s)
		memcpy(out, s, size);
	else if (other)
		memcpy((char *)out + has_at, (const char *)other + has_at,
		       sizeof(unsigned));
}

/* r's delta row from the sizes before (x, kx) and after (y, ky); any may
 * be NULL (absent). */
static void delta_row(struct exm_diff_row *r, const struct exm_sizes *x,
		      const struct exm_sizes *y, const struct exm_kpss *kx,
		      const struct exm_kpss *ky)
{
	const size_t hs = offsetof(struct exm_sizes, has);
	const size_t hk = offsetof(struct exm_kpss, has);

	r->row.flags = EXM_ROW_DELTA |
		       (r->change == EXM_DIFF_NEW    ? EXM_ROW_NEW
			: r->change == EXM_DIFF_GONE ? EXM_ROW_GONE
						     : 0);
	side(&r->row.sz, y, x, sizeof(r->row.sz), hs);
	side(&r->row.prev, x, y, sizeof(r->row.prev), hs);
	if (kx || ky) {
		side(&r->row.kpss, ky, kx, sizeof(r->row.kpss), hk);
		side(&r->row.prev_kpss, kx, ky, sizeof(r->row.prev_kpss), hk);
	}
}

static int cmp_proc(const void *x, const void *y)
{
	return exm_proc_id_cmp(*(const struct exm_proc *const *)x,
			       *(const struct exm_proc *const *)y);
}

static int cmp_file(const void *x, const void *y)
{
	return exm_file_id_cmp(*(const struct exm_file *const *)x,
			       *(const struct exm_file *const *)y);
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
		const struct exm_proc *a = pr[i].a, *b = pr[i].b;

		r->change = change_of(&pr[i]);
		r->proc_a = a;
		r->proc_b = b;
		r->row.proc = exm_diff_row_proc(r);
		d->nnew += r->change == EXM_DIFF_NEW;
		d->ngone += r->change == EXM_DIFF_GONE;
		delta_row(r, a ? &a->sz : NULL, b ? &b->sz : NULL,
			  a ? &a->kpss : NULL, b ? &b->kpss : NULL);
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
		const struct exm_file *a = pr[i].a, *b = pr[i].b;

		r->change = change_of(&pr[i]);
		r->file_a = a;
		r->file_b = b;
		r->row.file = exm_diff_row_file(r);
		r->row.nprocs = r->row.file->nprocs;
		delta_row(r, a ? &a->sz : NULL, b ? &b->sz : NULL, NULL, NULL);
	}
	free(pr);
	return ret;
}

int exm_diff_proc_files(const struct exm_diff_row *r, struct exm_diff_row **out,
			size_t *n)
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
		const struct exm_pfile *x =
			pr[i].a ? exm_proc_find_pfile(p, pr[i].a) : NULL;
		const struct exm_pfile *y =
			pr[i].b ? exm_proc_find_pfile(q, pr[i].b) : NULL;

		rows[i].change = change_of(&pr[i]);
		rows[i].proc_a = p;
		rows[i].proc_b = q;
		rows[i].file_a = pr[i].a;
		rows[i].file_b = pr[i].b;
		rows[i].row.proc = exm_diff_row_proc(&rows[i]);
		rows[i].row.file = exm_diff_row_file(&rows[i]);
		rows[i].row.nprocs = rows[i].row.file->nprocs;
		rows[i].row.nmaps = y ? y->nmaps : x ? x->nmaps : 0;
		delta_row(&rows[i], x ? &x->sz : NULL, y ? &y->sz : NULL, NULL,
			  NULL);
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

/* Growth of effective resident, measured or not (a side absent: 0). */
static double erss_growth(const struct exm_diff_row *r)
{
	return r->row.sz.erss - r->row.prev.erss;
}

static int cmp_row(const void *x, const void *y)
{
	const struct exm_diff_row *a = x, *b = y;
	const struct exm_proc *p = exm_diff_row_proc(a),
			      *q = exm_diff_row_proc(b);
	double ga = erss_growth(a), gb = erss_growth(b);

	if (ga != gb)
		return ga > gb ? -1 : 1;
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
	d->total.flags = EXM_ROW_DELTA;
	d->total.sz = b->total;
	d->total.prev = a->total;
	d->seconds = (double)(b->sys.taken_at.tv_sec - a->sys.taken_at.tv_sec) +
		     (double)(b->sys.taken_at.tv_nsec -
			      a->sys.taken_at.tv_nsec) /
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

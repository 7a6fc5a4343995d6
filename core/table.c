// SPDX-License-Identifier: GPL-2.0-or-later
/* table.c - row builders for the core's lists; see table.h. */
#include "core/table.h"

#include <stdlib.h>
#include <string.h>

#include "core/account.h"

static struct exm_row *alloc_rows(size_t n)
{
	return calloc(n ? n : 1, sizeof(struct exm_row));
}

struct exm_row *exm_table_procs(const struct exm_snapshot *snap, size_t *n)
{
	struct exm_row *rows = alloc_rows(snap->nprocs);

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		struct exm_row *r = &rows[i];

		r->proc = p;
		r->name = p->comm;
		r->sz = p->sz;
		r->kpss = p->kpss;
		r->nmaps = (uint32_t)p->nmaps;
	}
	*n = snap->nprocs;
	return rows;
}

struct exm_row *exm_table_files(const struct exm_snapshot *snap, size_t *n)
{
	struct exm_row *rows = alloc_rows(snap->nfiles);

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < snap->nfiles; i++) {
		const struct exm_file *f = snap->files[i];

		rows[i].file = f;
		rows[i].name = f->name;
		rows[i].sz = f->sz;
		rows[i].nprocs = f->nprocs;
	}
	*n = snap->nfiles;
	return rows;
}

struct exm_row *exm_table_pfiles(const struct exm_snapshot *snap,
				 const struct exm_proc *p, size_t *n)
{
	struct exm_row *rows = alloc_rows(p->npfiles);

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < p->npfiles; i++) {
		const struct exm_pfile *pf = &p->pfiles[i];

		rows[i].proc = p;
		rows[i].file = pf->file;
		rows[i].name = pf->file->name;
		rows[i].sz = pf->sz;
		rows[i].nmaps = pf->nmaps;
		rows[i].nprocs = pf->file->nprocs;
	}
	*n = p->npfiles;
	return rows;
}

struct exm_row *exm_table_fprocs(const struct exm_snapshot *snap,
				 const struct exm_file *f, size_t *n)
{
	struct exm_row *rows = alloc_rows(f->nprocs);
	size_t k = 0;

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < snap->nprocs && k < f->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		const struct exm_pfile *pf = exm_proc_find_pfile(p, f);

		if (!pf)
			continue;
		rows[k].proc = p;
		rows[k].file = f;
		rows[k].name = p->comm;
		rows[k].sz = pf->sz;
		rows[k].nmaps = pf->nmaps;
		rows[k].nprocs = f->nprocs;
		rows[k].kpss = p->kpss;
		k++;
	}
	*n = k;
	return rows;
}

struct exm_row *exm_table_mappings(const struct exm_snapshot *snap,
				   const struct exm_proc *p,
				   const struct exm_file *f, size_t *n)
{
	struct exm_row *rows = alloc_rows(p->nmaps);
	size_t k = 0;

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];

		if (f && m->file != f)
			continue;
		rows[k].proc = p;
		rows[k].file = m->file;
		rows[k].map = m;
		rows[k].name = m->file ? m->file->name : m->name;
		rows[k].addr = m->start;
		rows[k].size = m->end - m->start;
		rows[k].sz = m->sz;
		rows[k].nmaps = 1;
		k++;
	}
	*n = k;
	return rows;
}

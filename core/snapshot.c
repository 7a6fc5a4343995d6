// SPDX-License-Identifier: GPL-2.0-or-later
/* snapshot.c - building and freeing snapshots. */
#include "core/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pagecount.h"

static const char *const kind_names[EXM_KIND__COUNT] = {
	[EXM_KIND_FILE] = "file",     [EXM_KIND_SHMEM] = "shmem",
	[EXM_KIND_HEAP] = "heap",     [EXM_KIND_STACK] = "stack",
	[EXM_KIND_ANON] = "anon",     [EXM_KIND_VDSO] = "vdso",
	[EXM_KIND_VVAR] = "vvar",     [EXM_KIND_VSYSCALL] = "vsyscall",
	[EXM_KIND_DEVICE] = "device", [EXM_KIND_OTHER] = "other",
};

const char *exm_kind_name(enum exm_kind kind)
{
	if ((unsigned)kind >= EXM_KIND__COUNT)
		return "?";
	return kind_names[kind];
}

void exm_sizes_add(struct exm_sizes *dst, const struct exm_sizes *src)
{
	unsigned had = dst->has;

	dst->vm += src->vm;
	dst->rss += src->rss;
	dst->swap += src->swap;
	dst->sole += src->sole;
	dst->writable += src->writable;
	dst->erss += src->erss;
	dst->eswap += src->eswap;
	dst->has = had ? (had & src->has) : src->has;
}

struct exm_snapshot *exm_snapshot_new(void)
{
	struct exm_snapshot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sys.page_size = 4096;
	return s;
}

static void free_mapping(struct exm_mapping *m)
{
	free(m->name);
	free(m->runs);
	free(m->pages);
}

static void free_proc(struct exm_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free_mapping(&p->maps[i]);
	free(p->maps);
	free(p->user);
	free(p->comm);
	free(p->cmdline);
	free(p->cgroup);
	free(p->pfiles);
}

void exm_snapshot_free(struct exm_snapshot *snap)
{
	if (!snap)
		return;
	for (size_t i = 0; i < snap->nprocs; i++)
		free_proc(&snap->procs[i]);
	free(snap->procs);
	for (size_t i = 0; i < snap->nfiles; i++) {
		free(snap->files[i]->name);
		free(snap->files[i]);
	}
	free(snap->files);
	exm_pagecount_free(snap->pfn_counts);
	exm_pagecount_free(snap->swap_counts);
	free(snap);
}

struct exm_proc *exm_snapshot_add_proc(struct exm_snapshot *snap)
{
	struct exm_proc *p;

	if (snap->nprocs == snap->cap_procs) {
		size_t cap = snap->cap_procs ? snap->cap_procs * 2 : 64;
		struct exm_proc *n = realloc(snap->procs, cap * sizeof(*n));

		if (!n)
			return NULL;
		snap->procs = n;
		snap->cap_procs = cap;
	}
	p = &snap->procs[snap->nprocs];
	memset(p, 0, sizeof(*p));
	p->index = (uint32_t)snap->nprocs;
	snap->nprocs++;
	return p;
}

void exm_snapshot_drop_last(struct exm_snapshot *snap)
{
	if (!snap->nprocs)
		return;
	snap->nprocs--;
	free_proc(&snap->procs[snap->nprocs]);
}

struct exm_mapping *exm_proc_add_mapping(struct exm_proc *p)
{
	struct exm_mapping *m;

	/* Grow by powers of two; nmaps is the only size we keep. */
	if ((p->nmaps & (p->nmaps - 1)) == 0) {
		size_t cap = p->nmaps ? p->nmaps * 2 : 16;
		struct exm_mapping *n;

		if (p->nmaps && p->nmaps < 16)
			cap = 16;
		n = realloc(p->maps, cap * sizeof(*n));
		if (!n)
			return NULL;
		p->maps = n;
	}
	m = &p->maps[p->nmaps++];
	memset(m, 0, sizeof(*m));
	return m;
}

/* Capacity rule shared by runs and pages: powers of two from 8. */
static int grow(void **arr, uint32_t n, size_t elem)
{
	uint32_t cap;
	void *na;

	if (n >= 8 && (n & (n - 1)) != 0)
		return 0;
	if (n && n < 8)
		return 0;
	if (n >= (UINT32_C(1) << 31))
		return -ENOMEM;
	cap = n ? n * 2 : 8;
	na = realloc(*arr, (size_t)cap * elem);
	if (!na)
		return -ENOMEM;
	*arr = na;
	return 0;
}

int exm_mapping_add_page(struct exm_mapping *m, uint64_t vpn, uint64_t word)
{
	struct exm_run *last = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	int ret;

	ret = grow((void **)&m->pages, m->npages, sizeof(*m->pages));
	if (ret)
		return ret;
	if (!last || last->vpn + last->count != vpn) {
		ret = grow((void **)&m->runs, m->nruns, sizeof(*m->runs));
		if (ret)
			return ret;
		last = &m->runs[m->nruns++];
		last->vpn = vpn;
		last->count = 0;
		last->idx = m->npages;
	}
	last->count++;
	m->pages[m->npages++] = word;
	return 0;
}

const struct exm_proc *exm_snapshot_find_pid(const struct exm_snapshot *snap,
					     pid_t pid)
{
	for (size_t i = 0; i < snap->nprocs; i++)
		if (snap->procs[i].pid == pid)
			return &snap->procs[i];
	return NULL;
}

void exm_snapshot_drop_pages(struct exm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nprocs; i++) {
		struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps; j++) {
			free(p->maps[j].runs);
			free(p->maps[j].pages);
			p->maps[j].runs = NULL;
			p->maps[j].pages = NULL;
			p->maps[j].nruns = 0;
			p->maps[j].npages = 0;
		}
	}
	snap->sys.caps &= ~EXM_CAP_PAGES;
}

void exm_snapshot_keep_pids(struct exm_snapshot *snap, const pid_t *pids,
			    size_t npids)
{
	size_t keep = 0;

	for (size_t i = 0; i < snap->nprocs; i++) {
		bool sel = false;

		for (size_t j = 0; j < npids && !sel; j++)
			sel = snap->procs[i].pid == pids[j];
		if (!sel) {
			free_proc(&snap->procs[i]);
			continue;
		}
		if (keep != i)
			snap->procs[keep] = snap->procs[i];
		snap->procs[keep].index = (uint32_t)keep;
		keep++;
	}
	snap->nprocs = keep;
}

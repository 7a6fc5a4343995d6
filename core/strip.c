// SPDX-License-Identifier: GPL-2.0-or-later
/* strip.c - per-page strips; see strip.h. */
#include "core/strip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pagemap.h"

void exm_strip_fini(struct exm_strip *s)
{
	free(s->cells);
	memset(s, 0, sizeof(*s));
}

const struct exm_mapping *exm_proc_mapping_at(const struct exm_proc *p,
					      uint64_t addr)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int exm_strip_count(const struct exm_snapshot *snap, const uint64_t *pfns,
		    size_t n, uint16_t *counts)
{
	/* the last process counted for each frame: one count per process
	 * however many times it maps the frame */
	size_t *last = malloc((n ? n : 1) * sizeof(*last));

	if (!last)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		counts[i] = 0;
		last[i] = SIZE_MAX;
	}
	for (size_t pi = 0; n && pi < snap->nprocs; pi++) {
		const struct exm_proc *p = &snap->procs[pi];

		for (size_t mi = 0; mi < p->nmaps; mi++) {
			const struct exm_mapping *m = &p->maps[mi];

			for (uint32_t k = 0; k < m->npages; k++) {
				uint64_t w = exm_mapping_word(m, k), pfn;
				const uint64_t *hit;
				size_t i;

				if (!exm_pm_resident(w))
					continue;
				pfn = w & EXM_PM_PFN_MASK;
				hit = bsearch(&pfn, pfns, n, sizeof(*pfns),
					      cmp_u64);
				if (!hit)
					continue;
				i = (size_t)(hit - pfns);
				if (last[i] == pi)
					continue;
				last[i] = pi;
				if (counts[i] < UINT16_MAX)
					counts[i]++;
			}
		}
	}
	free(last);
	return 0;
}

int exm_strip_mapping(const struct exm_snapshot *snap, const struct exm_proc *p,
		      const struct exm_mapping *m, struct exm_strip *out)
{
	unsigned ps = snap->sys.page_size ? snap->sys.page_size : 4096;
	uint64_t *pfns = NULL, *keys = NULL;
	size_t *pg_of = NULL, npfn = 0, nkeys = 0;
	uint16_t *counts = NULL;
	int ret = -ENOMEM;

	(void)p;
	memset(out, 0, sizeof(*out));
	if (!(snap->sys.caps & EXM_CAP_PAGES))
		return -ENODATA;
	out->addr = m->start;
	out->page_size = ps;
	out->npages = (size_t)((m->end - m->start) / ps);
	out->cells = calloc(out->npages ? out->npages : 1, sizeof(*out->cells));
	pfns = malloc((m->npages ? m->npages : 1) * sizeof(*pfns));
	keys = malloc((m->npages ? m->npages : 1) * sizeof(*keys));
	pg_of = malloc((m->npages ? m->npages : 1) * sizeof(*pg_of));
	if (!out->cells || !pfns || !keys || !pg_of)
		goto out;
	/* the cells, and the frames of the present pages */
	for (uint32_t r = 0; r < m->nruns; r++) {
		const struct exm_run *run = &m->runs[r];

		for (uint32_t j = 0; j < run->count; j++) {
			uint64_t w = exm_mapping_word(m, run->idx + j);
			uint64_t pg = run->vpn + j - m->start / ps;

			if (pg >= out->npages)
				continue;
			if (exm_pm_resident(w)) {
				out->cells[pg].state = EXM_CELL_PRESENT;
				pg_of[npfn] = (size_t)pg;
				pfns[npfn++] = w & EXM_PM_PFN_MASK;
			} else if (exm_pm_swapped(w)) {
				out->cells[pg].state = EXM_CELL_SWAPPED;
			}
		}
	}
	ret = 0;
	if (!(snap->sys.caps & EXM_CAP_PFN) || !npfn)
		goto out;
	/* count each distinct frame once */
	memcpy(keys, pfns, npfn * sizeof(*keys));
	qsort(keys, npfn, sizeof(*keys), cmp_u64);
	for (size_t i = 0; i < npfn; i++)
		if (!nkeys || keys[nkeys - 1] != keys[i])
			keys[nkeys++] = keys[i];
	counts = malloc(nkeys * sizeof(*counts));
	ret = counts ? exm_strip_count(snap, keys, nkeys, counts) : -ENOMEM;
	for (size_t i = 0; !ret && i < npfn; i++) {
		const uint64_t *hit = bsearch(&pfns[i], keys, nkeys,
					      sizeof(*keys), cmp_u64);

		out->cells[pg_of[i]].nprocs = counts[hit - keys];
	}
out:
	free(pfns);
	free(keys);
	free(pg_of);
	free(counts);
	if (ret)
		exm_strip_fini(out);
	return ret;
}

char exm_strip_count_char(uint32_t n)
{
	if (!n)
		return '.';
	return n >= 10 ? '#' : (char)('0' + n);
}

char exm_strip_char(const struct exm_cell *c)
{
	switch (c->state) {
	case EXM_CELL_PRESENT:
		return c->nprocs ? exm_strip_count_char(c->nprocs) : '?';
	case EXM_CELL_SWAPPED:
		return 's';
	default:
		return '.';
	}
}

uint64_t exm_strip_line(const struct exm_strip *s, size_t k, char *buf,
			size_t len)
{
	size_t i = 0, first = k * EXM_STRIP_LINE;

	for (; i < EXM_STRIP_LINE && first + i < s->npages && i + 1 < len; i++)
		buf[i] = exm_strip_char(&s->cells[first + i]);
	if (len)
		buf[i] = 0;
	return s->addr + (uint64_t)first * s->page_size;
}

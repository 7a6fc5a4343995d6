// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * filestrip.c - the per-page strip of a file across processes; see
 * filestrip.h.
 */
#include "core/filestrip.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_seg(const void *a, const void *b)
{
	const struct exm_file_strip_seg *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->perms != y->perms)
		return x->perms < y->perms ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Sort, merge overlapping or touching ranges of equal permissions, and
 * count the pages any range covers. */
static uint64_t merge_segs(struct exm_file_strip *s)
{
	size_t k = 0;
	uint64_t vm = 0, cover = 0;

	if (!s->nsegs)
		return 0;
	qsort(s->segs, s->nsegs, sizeof(*s->segs), cmp_seg);
	for (size_t i = 0; i < s->nsegs; i++) {
		struct exm_file_strip_seg *g = &s->segs[i];
		size_t j;

		for (j = 0; j < k; j++) /* few segments: a linear search */
			if (s->segs[j].perms == g->perms &&
			    g->first <= s->segs[j].end &&
			    g->end >= s->segs[j].first)
				break;
		if (j < k) {
			if (g->end > s->segs[j].end)
				s->segs[j].end = g->end;
			if (g->first < s->segs[j].first)
				s->segs[j].first = g->first;
		} else {
			s->segs[k++] = *g;
		}
	}
	s->nsegs = k;
	qsort(s->segs, s->nsegs, sizeof(*s->segs), cmp_seg);
	for (size_t i = 0; i < k; i++) { /* union, whatever the perms */
		uint64_t lo = s->segs[i].first > cover ? s->segs[i].first
						       : cover;

		if (s->segs[i].end > lo)
			vm += s->segs[i].end - lo;
		if (s->segs[i].end > cover)
			cover = s->segs[i].end;
	}
	return vm;
}

int exm_strip_file(const struct exm_snapshot *snap, const struct exm_file *f,
		   struct exm_file_strip *out)
{
	uint64_t ps = snap->sys.page_size ? snap->sys.page_size : 4096;
	uint32_t *last = NULL;
	size_t nmaps = 0, k = 0;
	int r = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (f->kind != EXM_KIND_FILE && f->kind != EXM_KIND_SHMEM)
		return -EINVAL;
	out->has_pages = snap->sys.caps & EXM_CAP_PAGES;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];
			uint64_t end;

			if (m->file != f)
				continue;
			nmaps++;
			end = m->offset / ps + (m->end - m->start) / ps;
			if (end < m->offset / ps)
				return -EFBIG; /* wraps: a hostile offset */
			if (end > out->npages)
				out->npages = end;
		}
	}
	if (out->npages > EXM_STRIP_MAX_PAGES)
		return -EFBIG;
	out->procs = calloc(out->npages ? out->npages : 1, sizeof(*out->procs));
	last = malloc((out->npages ? out->npages : 1) * sizeof(*last));
	out->segs = calloc(nmaps ? nmaps : 1, sizeof(*out->segs));
	if (!out->procs || !last || !out->segs)
		goto out;
	memset(last, 0xff, (out->npages ? out->npages : 1) * sizeof(*last));
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		bool maps = false;

		for (size_t j = 0; j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];
			uint64_t first = m->offset / ps, vpn0 = m->start / ps;

			if (m->file != f)
				continue;
			maps = true;
			out->segs[k++] = (struct exm_file_strip_seg){
				.first = first,
				.end = first + (m->end - m->start) / ps,
				.perms = m->perms,
			};
			for (uint32_t ri = 0; ri < m->nruns; ri++) {
				const struct exm_run *run = &m->runs[ri];

				for (uint32_t q = 0; q < run->count; q++) {
					uint64_t w =
						exm_mapping_word(m,
								 run->idx + q);
					uint64_t pg = first + run->vpn + q -
						      vpn0;

					if (!exm_pm_resident(w) ||
					    pg >= out->npages ||
					    last[pg] == (uint32_t)i)
						continue;
					last[pg] = (uint32_t)i;
					out->procs[pg]++;
				}
			}
		}
		out->nprocs += maps;
	}
	out->nsegs = k;
	out->vm_pages = merge_segs(out);
	for (uint64_t pg = 0; pg < out->npages; pg++)
		out->res_pages += out->procs[pg] != 0;
	r = 0;
out:
	free(last);
	if (r)
		exm_file_strip_fini(out);
	return r;
}

void exm_file_strip_fini(struct exm_file_strip *s)
{
	free(s->procs);
	free(s->segs);
	memset(s, 0, sizeof(*s));
}

size_t exm_file_strip_lines(const struct exm_file_strip *s)
{
	return (s->npages + EXM_STRIP_LINE - 1) / EXM_STRIP_LINE;
}

uint64_t exm_file_strip_line(const struct exm_file_strip *s, size_t k,
			     char *buf)
{
	uint64_t first = (uint64_t)k * EXM_STRIP_LINE;
	size_t n = 0;

	for (uint64_t i = first; i < s->npages && n < EXM_STRIP_LINE; i++)
		buf[n++] = exm_strip_count_char(s->procs[i]);
	buf[n] = 0;
	return first;
}

void exm_file_strip_head(const struct exm_file_strip *s, char *buf, size_t len)
{
	snprintf(buf, len,
		 "%" PRIu32 " process%s map%s it: %" PRIu64 " pages of %" PRIu64
		 " mapped, %" PRIu64 " resident   . none  1-9 "
		 "processes  # ten or more",
		 s->nprocs, s->nprocs == 1 ? "" : "es",
		 s->nprocs == 1 ? "s" : "", s->vm_pages, s->npages,
		 s->res_pages);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapcmp.h - whether two accounted snapshots hold the same figures:
 * every size of every process, process file, mapping and file, the totals
 * and the kernel's figures, compared exactly (effective sizes bit for bit).
 * For the record/replay tests (unit and live).
 */
#ifndef EXM_TESTS_SNAPCMP_H
#define EXM_TESTS_SNAPCMP_H

#include <stdio.h>
#include <string.h>

#include "core/snapshot.h"

static inline int snapcmp_sizes(const struct exm_sizes *a,
				const struct exm_sizes *b, const char *what,
				char *why, size_t len)
{
	if (a->vm == b->vm && a->rss == b->rss && a->swap == b->swap &&
	    a->sole == b->sole && a->writable == b->writable &&
	    a->erss == b->erss && a->eswap == b->eswap && a->has == b->has)
		return 0;
	snprintf(why, len,
		 "%s: vm %llu/%llu rss %llu/%llu erss %.17g/%.17g swap "
		 "%llu/%llu eswap %.17g/%.17g sole %llu/%llu writable "
		 "%llu/%llu has %x/%x",
		 what, (unsigned long long)a->vm, (unsigned long long)b->vm,
		 (unsigned long long)a->rss, (unsigned long long)b->rss,
		 a->erss, b->erss, (unsigned long long)a->swap,
		 (unsigned long long)b->swap, a->eswap, b->eswap,
		 (unsigned long long)a->sole, (unsigned long long)b->sole,
		 (unsigned long long)a->writable,
		 (unsigned long long)b->writable, a->has, b->has);
	return 1;
}

/* 0 when equal, else 1 with the first difference in why. */
static inline int snapcmp(const struct exm_snapshot *a,
			  const struct exm_snapshot *b, char *why, size_t len)
{
	char what[160];

	why[0] = '\0';
	if (a->nprocs != b->nprocs || a->nfiles != b->nfiles) {
		snprintf(why, len, "procs %zu/%zu files %zu/%zu", a->nprocs,
			 b->nprocs, a->nfiles, b->nfiles);
		return 1;
	}
	if (a->sys.page_size != b->sys.page_size ||
	    (a->sys.caps & ~(EXM_CAP_REPLAY | EXM_CAP_CGROUP)) !=
		    (b->sys.caps & ~(EXM_CAP_REPLAY | EXM_CAP_CGROUP)) ||
	    a->distinct_pages != b->distinct_pages ||
	    a->distinct_swap != b->distinct_swap ||
	    a->nskipped_gone != b->nskipped_gone ||
	    a->nskipped_denied != b->nskipped_denied) {
		snprintf(why, len, "system facts or counts differ");
		return 1;
	}
	if (a->sys.mem_total != b->sys.mem_total ||
	    a->sys.mem_available != b->sys.mem_available ||
	    a->sys.meminfo.n != b->sys.meminfo.n ||
	    a->sys.meminfo.predates != b->sys.meminfo.predates) {
		snprintf(why, len, "meminfo differs");
		return 1;
	}
	for (uint32_t i = 0; i < a->sys.meminfo.n; i++) {
		const struct exm_meminfo_row *x = &a->sys.meminfo.rows[i],
					     *y = &b->sys.meminfo.rows[i];

		if (strcmp(x->key, y->key) || x->value != y->value ||
		    x->kb != y->kb) {
			snprintf(why, len, "meminfo row %u: %s %llu/%s %llu", i,
				 x->key, (unsigned long long)x->value, y->key,
				 (unsigned long long)y->value);
			return 1;
		}
	}
	if (snapcmp_sizes(&a->total, &b->total, "total", why, len))
		return 1;
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct exm_proc *p = &a->procs[i], *q = &b->procs[i];

		snprintf(what, sizeof(what), "pid %d", (int)p->pid);
		if (p->pid != q->pid || p->start_time != q->start_time ||
		    p->state != q->state || p->nmaps != q->nmaps ||
		    p->npfiles != q->npfiles || strcmp(p->comm, q->comm) ||
		    strcmp(p->cmdline, q->cmdline) ||
		    memcmp(&p->kpss, &q->kpss, sizeof(p->kpss))) {
			snprintf(why, len, "%s: identity or kernel figures",
				 what);
			return 1;
		}
		if (snapcmp_sizes(&p->sz, &q->sz, what, why, len))
			return 1;
		for (size_t j = 0; j < p->nmaps; j++) {
			snprintf(what, sizeof(what), "pid %d mapping %zu",
				 (int)p->pid, j);
			if (p->maps[j].start != q->maps[j].start ||
			    strcmp(p->maps[j].name, q->maps[j].name) ||
			    snapcmp_sizes(&p->maps[j].sz, &q->maps[j].sz, what,
					  why, len)) {
				if (!why[0])
					snprintf(why, len, "%s differs", what);
				return 1;
			}
		}
		for (size_t j = 0; j < p->npfiles; j++) {
			snprintf(what, sizeof(what), "pid %d file %s",
				 (int)p->pid, p->pfiles[j].file->name);
			if (strcmp(p->pfiles[j].file->name,
				   q->pfiles[j].file->name) ||
			    snapcmp_sizes(&p->pfiles[j].sz, &q->pfiles[j].sz,
					  what, why, len)) {
				if (!why[0])
					snprintf(why, len, "%s differs", what);
				return 1;
			}
		}
	}
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct exm_file *f = a->files[i], *g = b->files[i];

		snprintf(what, sizeof(what), "file %s", f->name);
		if (strcmp(f->name, g->name) || f->nprocs != g->nprocs ||
		    snapcmp_sizes(&f->sz, &g->sz, what, why, len)) {
			if (!why[0])
				snprintf(why, len, "%s differs", what);
			return 1;
		}
	}
	return 0;
}

#endif

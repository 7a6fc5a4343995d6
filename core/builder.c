// SPDX-License-Identifier: GPL-2.0-or-later
/* builder.c - the snapshot builder protocol; see builder.h. */
#include "core/builder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/procfs.h"

void exm_builder_init(struct exm_builder *b, struct exm_snapshot *snap)
{
	memset(b, 0, sizeof(*b));
	b->snap = snap;
}

/* The rows of the meminfo file at path, and MemTotal and MemAvailable
 * from them; false when it has no MemTotal. */
static bool read_meminfo(const char *path, struct exm_sysinfo *sys)
{
	if (exm_meminfo_read(&sys->meminfo, path) ||
	    !exm_meminfo_get(&sys->meminfo, "MemTotal", &sys->mem_total)) {
		memset(&sys->meminfo, 0, sizeof(sys->meminfo));
		return false;
	}
	if (!exm_meminfo_get(&sys->meminfo, "MemAvailable",
			     &sys->mem_available))
		sys->mem_available = 0;
	return true;
}

void exm_sysfacts_local(struct exm_sysinfo *sys, const char *proc_root)
{
	char path[300];
	struct utsname u;
	long ps = sysconf(_SC_PAGESIZE);

	memset(sys, 0, sizeof(*sys));
	sys->page_size = ps > 0 ? (unsigned)ps : 4096;
	if (!uname(&u)) {
		snprintf(sys->kernel, sizeof(sys->kernel), "%s", u.release);
		snprintf(sys->hostname, sizeof(sys->hostname), "%s",
			 u.nodename);
	}
	snprintf(sys->proc_root, sizeof(sys->proc_root), "%s",
		 proc_root ? proc_root : "/proc");
	snprintf(path, sizeof(path), "%s/meminfo", sys->proc_root);
	if (!read_meminfo(path, sys) && read_meminfo("/proc/meminfo", sys))
		proc_root = NULL; /* this machine's, after all */
	/* every huge page size's use, beside this machine's meminfo only */
	if ((!proc_root || !strcmp(proc_root, "/proc")) && sys->meminfo.n)
		exm_meminfo_add_hugetlb_used(&sys->meminfo,
					     "/sys/kernel/mm/hugepages");
}

int exm_build_begin(struct exm_builder *b, const struct exm_sysinfo *sys)
{
	struct exm_sysinfo *s = &b->snap->sys;
	struct timespec at = s->taken_at;
	double took = s->time_taken;

	if (!sys->page_size || (sys->page_size & (sys->page_size - 1)))
		return -EINVAL;
	*s = *sys;
	if (!s->taken_at.tv_sec && !s->taken_at.tv_nsec)
		s->taken_at = at;
	if (!(s->time_taken > 0))
		s->time_taken = took;
	return 0;
}

struct exm_proc *exm_build_proc(struct exm_builder *b)
{
	b->map = NULL;
	b->proc = exm_snapshot_add_proc(b->snap);
	return b->proc;
}

void exm_build_drop(struct exm_builder *b)
{
	exm_snapshot_drop_last(b->snap);
	b->proc = NULL;
	b->map = NULL;
}

struct exm_mapping *exm_build_mapping(struct exm_builder *b, struct exm_proc *p)
{
	b->map = exm_proc_add_mapping(p);
	return b->map;
}

int exm_build_pages(struct exm_builder *b, struct exm_mapping *m, uint64_t vpn,
		    const uint64_t *words, uint32_t n)
{
	return exm_mapping_add_pages(m, vpn, words, n);
}

int exm_build_run(struct exm_builder *b, struct exm_mapping *m, uint64_t vpn,
		  uint64_t word, uint64_t step, uint32_t n)
{
	return exm_mapping_add_run(m, vpn, word, step, n);
}

int exm_build_frames(struct exm_builder *b, struct exm_mapping *m, uint64_t vpn,
		     const uint32_t *frame1, uint32_t n, uint64_t flags)
{
	return exm_mapping_add_frames(m, vpn, frame1, n, flags);
}

int exm_build_reserve(struct exm_builder *b, struct exm_mapping *m, uint32_t n)
{
	return exm_mapping_reserve_store(b->snap, m, n);
}

void exm_build_trim(struct exm_builder *b, struct exm_mapping *m)
{
	exm_mapping_trim_store(b->snap, m);
}

void exm_build_kpss(struct exm_builder *b, struct exm_proc *p,
		    const struct exm_kpss *k)
{
	p->kpss = *k;
}

void exm_build_end(struct exm_builder *b, const struct exm_build_end *e)
{
	b->snap->nskipped_gone += e->nskipped_gone;
	b->snap->nskipped_denied += e->nskipped_denied;
}

int exm_builder_fork(struct exm_builder *b, struct exm_builder *child)
{
	struct exm_snapshot *s = exm_snapshot_new();

	if (!s)
		return -ENOMEM;
	s->sys = b->snap->sys;
	exm_builder_init(child, s);
	return 0;
}

void exm_builder_join(struct exm_builder *b, struct exm_builder *child)
{
	if (!child->snap)
		return;
	exm_snapshot_append(b->snap, child->snap);
	exm_snapshot_free(child->snap);
	child->snap = NULL;
}

/* ---- the in-memory consumer as a sink ---- */

static int bs_begin(void *ctx, const struct exm_sysinfo *sys)
{
	return exm_build_begin(ctx, sys);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int bs_proc(void *ctx, const struct exm_proc *src)
{
	struct exm_builder *b = ctx;
	struct exm_proc *p = exm_build_proc(b);
	uint32_t index;

	if (!p)
		return -ENOMEM;
	index = p->index;
	*p = *src; /* the identity; then what p owns is its own */
	p->index = index;
	p->maps = NULL;
	p->nmaps = 0;
	p->cap_maps = 0;
	p->pfiles = NULL;
	p->npfiles = 0;
	memset(&p->kpss, 0, sizeof(p->kpss));
	if (src->state != EXM_PROC_DENIED) /* else: its statm figures */
		memset(&p->sz, 0, sizeof(p->sz));
	p->user = dup_or_empty(src->user);
	p->comm = dup_or_empty(src->comm);
	p->cmdline = dup_or_empty(src->cmdline);
	p->cgroup = dup_or_empty(src->cgroup);
	if (!p->user || !p->comm || !p->cmdline || !p->cgroup)
		return -ENOMEM;
	return 0;
}

static int bs_mapping(void *ctx, const struct exm_mapping *src)
{
	struct exm_builder *b = ctx;
	struct exm_mapping *m;

	if (!b->proc)
		return -EINVAL;
	m = exm_build_mapping(b, b->proc);
	if (!m)
		return -ENOMEM;
	*m = *src; /* the header; the page arrays are built anew */
	m->runs = NULL;
	m->nruns = m->cap_runs = 0;
	m->runs_borrowed = false;
	m->pages = NULL;
	m->pages32 = NULL;
	m->npages = m->cap_pages = 0;
	m->pages_borrowed = false;
	m->file = NULL;
	m->build_id = NULL;
	m->build_id_len = 0;
	m->name = dup_or_empty(src->name);
	if (!m->name)
		return -ENOMEM;
	if (src->build_id_len) {
		m->build_id = malloc(src->build_id_len);
		if (!m->build_id)
			return -ENOMEM;
		memcpy(m->build_id, src->build_id, src->build_id_len);
		m->build_id_len = src->build_id_len;
	}
	return 0;
}

static int bs_pages(void *ctx, uint64_t vpn, const uint64_t *words, uint32_t n)
{
	struct exm_builder *b = ctx;

	if (!b->map)
		return -EINVAL;
	return exm_build_pages(b, b->map, vpn, words, n);
}

static int bs_kpss(void *ctx, const struct exm_kpss *k)
{
	struct exm_builder *b = ctx;

	if (!b->proc)
		return -EINVAL;
	exm_build_kpss(b, b->proc, k);
	return 0;
}

static int bs_end(void *ctx, const struct exm_build_end *e)
{
	exm_build_end(ctx, e);
	return 0;
}

/* A cgroup's charge, appended (in path order: exm_cgcharge_find). */
static int bs_cgroup(void *ctx, const struct exm_cgcharge *c)
{
	struct exm_builder *b = ctx;
	struct exm_snapshot *s = b->snap;
	struct exm_cgcharge *v;

	if (s->ncgroups &&
	    strcmp(s->cgroups[s->ncgroups - 1].path, c->path) >= 0)
		return -EINVAL;
	v = realloc(s->cgroups, (s->ncgroups + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->cgroups = v;
	v[s->ncgroups] = *c;
	v[s->ncgroups].path = strdup(c->path);
	if (!v[s->ncgroups].path)
		return -ENOMEM;
	s->ncgroups++;
	return 0;
}

const struct exm_sink_ops exm_builder_sink = {
	.begin = bs_begin,
	.proc = bs_proc,
	.cgroup = bs_cgroup,
	.mapping = bs_mapping,
	.pages = bs_pages,
	.kpss = bs_kpss,
	.end = bs_end,
};

/* ---- a built snapshot as a producer ---- */

#define EMIT_WORDS 1024

static int emit_mapping(const struct exm_mapping *m,
			const struct exm_sink_ops *ops, void *ctx)
{
	uint64_t buf[EMIT_WORDS];
	int ret = ops->mapping(ctx, m);

	for (uint32_t r = 0; !ret && r < m->nruns; r++) {
		const struct exm_run *run = &m->runs[r];

		for (uint32_t done = 0; !ret && done < run->count;) {
			uint32_t n = run->count - done;

			if (n > EMIT_WORDS)
				n = EMIT_WORDS;
			for (uint32_t k = 0; k < n; k++)
				buf[k] = exm_mapping_word(m,
							  run->idx + done + k);
			ret = ops->pages(ctx, run->vpn + done, buf, n);
			done += n;
		}
	}
	return ret;
}

int exm_snapshot_emit(const struct exm_snapshot *snap,
		      const struct exm_sink_ops *ops, void *ctx)
{
	struct exm_build_end e = {
		.nskipped_gone = snap->nskipped_gone,
		.nskipped_denied = snap->nskipped_denied,
	};
	int ret = ops->begin(ctx, &snap->sys);

	for (size_t i = 0; !ret && i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		ret = ops->proc(ctx, p);
		for (size_t j = 0; !ret && j < p->nmaps; j++)
			ret = emit_mapping(&p->maps[j], ops, ctx);
		if (!ret && p->kpss.has)
			ret = ops->kpss(ctx, &p->kpss);
	}
	for (size_t i = 0; !ret && ops->cgroup && i < snap->ncgroups; i++)
		ret = ops->cgroup(ctx, &snap->cgroups[i]);
	return ret ? ret : ops->end(ctx, &e);
}

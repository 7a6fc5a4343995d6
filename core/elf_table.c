// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * elf_table.c - ELF sections and symbols as rows; see elf_table.h and
 * docs/DESIGN.md section 5.
 *
 * All address arithmetic is unsigned 64-bit: a hostile file may give any
 * p_vaddr, so a computed bias can wrap, and every region is checked to be
 * a proper interval in ELF space before sections are matched against it.
 */
#include "core/elf_table.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"

static uint64_t page_of(const struct exm_snapshot *snap)
{
	return snap->sys.page_size ? snap->sys.page_size : 4096;
}

static bool maps_file(const struct exm_mapping *m, const struct exm_file *f)
{
	return m->file == f;
}

static bool proc_maps_file(const struct exm_proc *p, const struct exm_file *f)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (maps_file(&p->maps[i], f))
			return true;
	return false;
}

static uint64_t seg_bias(const struct exm_elf_segment *s,
			 const struct exm_mapping *m)
{
	return (m->start - m->offset) - (s->vaddr - s->offset);
}

/*
 * The PT_LOAD that mapping m maps. Segments may share a file page (a small
 * file's read-only segment and the start of its data segment), so several
 * can hold m's offset: then prefer the one giving the bias of the file's
 * previous mapping in this process (all segments of one load share a
 * bias), then the one whose permissions match, then the first.
 */
static long segment_of(const struct exm_elf *e, const struct exm_mapping *m,
		       uint64_t ps, const uint64_t *last_bias)
{
	uint64_t mask = ~(ps - 1);
	long first = -1, perm = -1;

	for (size_t i = 0; i < e->nsegs; i++) {
		const struct exm_elf_segment *s = &e->segs[i];
		bool w = s->flags & PF_W, x = s->flags & PF_X;

		if (m->offset < (s->offset & mask) ||
		    m->offset >= s->offset + s->filesz)
			continue;
		if (last_bias && seg_bias(s, m) == *last_bias)
			return (long)i;
		if (first < 0)
			first = (long)i;
		/* A RELRO part of a data segment is read-only by now, so only
		 * write and execute permission tell segments apart. */
		if (perm < 0 && w == !!(m->perms & EXM_PERM_W) &&
		    x == !!(m->perms & EXM_PERM_X))
			perm = (long)i;
	}
	return perm >= 0 ? perm : first;
}

long exm_elf_regions(const struct exm_snapshot *snap, const struct exm_proc *p,
		     const struct exm_file *f, const struct exm_elf *e,
		     struct exm_elf_region **out)
{
	uint64_t ps = page_of(snap), pmask = ~(ps - 1), last_bias = 0;
	struct exm_elf_region *r;
	size_t cnt = 0, n = 0;
	bool have_last = false;

	*out = NULL;
	for (size_t i = 0; i < p->nmaps; i++)
		cnt += maps_file(&p->maps[i], f);
	r = calloc(cnt ? 2 * cnt : 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i], *nx;
		const struct exm_elf_segment *s;
		uint64_t file_end, mem_end, bias;
		long si = -1;

		if (!maps_file(m, f))
			continue;
		if (e && e->state == EXM_ELF_OK)
			si = segment_of(e, m, ps,
					have_last ? &last_bias : NULL);
		r[n] = (struct exm_elf_region){
			.map = m,
			.start = m->start,
			.end = m->end,
		};
		if (si < 0) {
			n++;
			continue;
		}
		s = &e->segs[si];
		bias = seg_bias(s, m);
		r[n].bias = bias;
		r[n].has_bias = true;
		last_bias = bias;
		have_last = true;
		n++;
		/* .bss: the anonymous mapping right after the file pages. */
		if (s->memsz <= s->filesz || i + 1 >= p->nmaps)
			continue;
		file_end = (bias + s->vaddr + s->filesz + ps - 1) & pmask;
		mem_end = (bias + s->vaddr + s->memsz + ps - 1) & pmask;
		nx = &p->maps[i + 1];
		if (m->end != file_end || mem_end <= file_end ||
		    nx->start != m->end || nx->inode != 0 ||
		    (nx->kind != EXM_KIND_ANON && nx->kind != EXM_KIND_HEAP))
			continue;
		r[n++] = (struct exm_elf_region){
			.map = nx,
			.start = nx->start,
			.end = nx->end < mem_end ? nx->end : mem_end,
			.bias = bias,
			.has_bias = true,
			.bss = true,
		};
	}
	*out = r;
	return (long)n;
}

/* The region in ELF addresses; false if it has none (no bias, wraps). */
static bool region_elf(const struct exm_elf_region *r, uint64_t *lo,
		       uint64_t *hi)
{
	if (!r->has_bias)
		return false;
	*lo = r->start - r->bias;
	*hi = r->end - r->bias;
	return *lo < *hi;
}

/* Add the sizes of ELF range [lo, hi) of region r to sz. */
static void add_range(const struct exm_snapshot *snap, const struct exm_proc *p,
		      const struct exm_elf_region *r, uint64_t lo, uint64_t hi,
		      struct exm_sizes *sz)
{
	uint64_t rlo, rhi;
	struct exm_sizes t;

	if (!region_elf(r, &rlo, &rhi))
		return;
	if (lo < rlo)
		lo = rlo;
	if (hi > rhi)
		hi = rhi;
	if (lo >= hi)
		return;
	exm_range_sizes(snap, p, r->map, lo + r->bias, hi + r->bias, &t);
	exm_sizes_add(sz, &t);
}

/* Zero sizes with the validity this snapshot's sizes have. */
static void zero_sizes(const struct exm_snapshot *snap, struct exm_sizes *sz)
{
	static const struct exm_proc none;

	exm_range_sizes(snap, snap->nprocs ? &snap->procs[0] : &none, NULL, 0,
			0, sz);
}

struct gap {
	bool keyed_elf; /* key is an ELF address, else a file offset */
	uint64_t key;
	uint64_t addr, size;
	struct exm_sizes sz;
};

struct secacc {
	const struct exm_snapshot *snap;
	const struct exm_elf *e;
	struct exm_sizes *secs; /* one per e->secs */
	struct gap *gaps;
	size_t ngaps, capgaps;
};

static struct gap *gap_get(struct secacc *a, bool keyed_elf, uint64_t key)
{
	for (size_t i = 0; i < a->ngaps; i++)
		if (a->gaps[i].keyed_elf == keyed_elf && a->gaps[i].key == key)
			return &a->gaps[i];
	if (a->ngaps == a->capgaps) {
		size_t cap = a->capgaps ? 2 * a->capgaps : 8;
		struct gap *g = realloc(a->gaps, cap * sizeof(*g));

		if (!g)
			return NULL;
		a->gaps = g;
		a->capgaps = cap;
	}
	memset(&a->gaps[a->ngaps], 0, sizeof(a->gaps[0]));
	a->gaps[a->ngaps].keyed_elf = keyed_elf;
	a->gaps[a->ngaps].key = key;
	a->gaps[a->ngaps].size = UINT64_MAX; /* not set yet */
	zero_sizes(a->snap, &a->gaps[a->ngaps].sz);
	return &a->gaps[a->ngaps++];
}

/* Account the sections and gaps of process p into a. 0 or -ENOMEM. */
static int secacc_proc(struct secacc *a, const struct exm_proc *p,
		       const struct exm_file *f)
{
	const struct exm_elf *e = a->e;
	struct exm_elf_region *regs;
	long nr = exm_elf_regions(a->snap, p, f, e, &regs);

	if (nr < 0)
		return (int)nr;
	for (long ri = 0; ri < nr; ri++) {
		const struct exm_elf_region *r = &regs[ri];
		uint64_t lo, hi, cur, gap_bytes = 0, first = 0;
		struct exm_sizes gsz;
		struct gap *g;

		zero_sizes(a->snap, &gsz);
		if (!region_elf(r, &lo, &hi)) {
			/* Nothing of the file's layout applies: all gap. */
			exm_range_sizes(a->snap, p, r->map, r->start, r->end,
					&gsz);
			g = gap_get(a, false, r->map->offset);
			if (!g)
				goto nomem;
			if (g->size == UINT64_MAX) {
				g->addr = r->map->offset;
				g->size = r->end - r->start;
			}
			exm_sizes_add(&g->sz, &gsz);
			continue;
		}
		cur = lo;
		for (size_t si = 0; si < e->nsecs; si++) {
			const struct exm_elf_section *s = &e->secs[si];
			uint64_t send = s->addr + s->size;

			if (send <= lo || s->addr >= hi)
				continue;
			add_range(a->snap, p, r, s->addr, send, &a->secs[si]);
			if (s->addr > cur) {
				add_range(a->snap, p, r, cur, s->addr, &gsz);
				if (!gap_bytes)
					first = cur;
				gap_bytes += s->addr - cur;
			}
			if (send > cur)
				cur = send;
		}
		if (cur < hi) {
			add_range(a->snap, p, r, cur, hi, &gsz);
			if (!gap_bytes)
				first = cur;
			gap_bytes += hi - cur;
		}
		if (!gap_bytes)
			continue;
		g = gap_get(a, true, lo);
		if (!g)
			goto nomem;
		if (g->size == UINT64_MAX) {
			g->addr = first;
			g->size = gap_bytes;
		}
		exm_sizes_add(&g->sz, &gsz);
	}
	free(regs);
	return 0;
nomem:
	free(regs);
	return -ENOMEM;
}

struct exm_row *exm_table_sections(const struct exm_snapshot *snap,
				   const struct exm_proc *p,
				   const struct exm_file *f,
				   const struct exm_elf *e, size_t *n)
{
	struct secacc a = { .snap = snap, .e = e };
	struct exm_row *rows = NULL;
	uint32_t nprocs = 0;
	size_t k = 0;

	*n = 0;
	if (!e || e->state != EXM_ELF_OK)
		return calloc(1, sizeof(struct exm_row));
	a.secs = calloc(e->nsecs ? e->nsecs : 1, sizeof(*a.secs));
	if (!a.secs)
		return NULL;
	for (size_t i = 0; i < e->nsecs; i++)
		zero_sizes(snap, &a.secs[i]);
	if (p) {
		if (secacc_proc(&a, p, f))
			goto out;
		nprocs = 1;
	} else {
		for (size_t i = 0; i < snap->nprocs; i++) {
			if (!proc_maps_file(&snap->procs[i], f))
				continue;
			if (secacc_proc(&a, &snap->procs[i], f))
				goto out;
			nprocs++;
		}
	}
	rows = calloc(e->nsecs + a.ngaps + 1, sizeof(*rows));
	if (!rows)
		goto out;
	for (size_t i = 0; i < e->nsecs; i++, k++) {
		rows[k].proc = p;
		rows[k].file = f;
		rows[k].name = e->secs[i].name;
		rows[k].addr = e->secs[i].addr;
		rows[k].size = e->secs[i].size;
		rows[k].nprocs = nprocs;
		rows[k].sz = a.secs[i];
	}
	for (size_t i = 0; i < a.ngaps; i++, k++) {
		rows[k].proc = p;
		rows[k].file = f;
		rows[k].name = EXM_GAP_NAME;
		rows[k].flags = EXM_ROW_GAP;
		rows[k].addr = a.gaps[i].addr;
		rows[k].size = a.gaps[i].size;
		rows[k].nprocs = nprocs;
		rows[k].sz = a.gaps[i].sz;
	}
	*n = k;
out:
	free(a.secs);
	free(a.gaps);
	return rows;
}

/* Add the sizes of symbols [i0, i1) of e in process p to sz[]. */
static int syms_proc(const struct exm_snapshot *snap, const struct exm_proc *p,
		     const struct exm_file *f, const struct exm_elf *e,
		     size_t i0, size_t i1, struct exm_sizes *sz)
{
	struct exm_elf_region *regs;
	long nr = exm_elf_regions(snap, p, f, e, &regs);

	if (nr < 0)
		return (int)nr;
	for (size_t i = i0; i < i1; i++) {
		const struct exm_elf_symbol *y = &e->syms[i];
		uint64_t end = y->addr + y->size;

		if (end < y->addr)
			end = UINT64_MAX;
		if (end == y->addr)
			continue;
		for (long ri = 0; ri < nr; ri++)
			add_range(snap, p, &regs[ri], y->addr, end,
				  &sz[i - i0]);
	}
	free(regs);
	return 0;
}

struct exm_row *exm_table_symbols(const struct exm_snapshot *snap,
				  const struct exm_proc *p,
				  const struct exm_file *f,
				  const struct exm_elf *e, long secidx,
				  unsigned flags, size_t *n)
{
	size_t i0 = 0, i1, cnt;
	struct exm_sizes *sz;
	struct exm_row *rows;
	uint32_t nprocs = 0;

	*n = 0;
	if (!e || e->state != EXM_ELF_OK ||
	    (secidx >= 0 && (size_t)secidx >= e->nsecs))
		return calloc(1, sizeof(struct exm_row));
	i1 = e->nsyms;
	if (secidx >= 0) {
		const struct exm_elf_section *s = &e->secs[secidx];

		i0 = exm_elf_sym_lower_bound(e, s->addr);
		i1 = exm_elf_sym_lower_bound(e, s->addr + s->size);
	}
	cnt = i1 > i0 ? i1 - i0 : 0;
	sz = calloc(cnt ? cnt : 1, sizeof(*sz));
	rows = calloc(cnt ? cnt : 1, sizeof(*rows));
	if (!sz || !rows)
		goto nomem;
	for (size_t i = 0; i < cnt; i++)
		zero_sizes(snap, &sz[i]);
	if (p) {
		if (syms_proc(snap, p, f, e, i0, i1, sz))
			goto nomem;
		nprocs = 1;
	} else {
		for (size_t k = 0; k < snap->nprocs; k++) {
			if (!proc_maps_file(&snap->procs[k], f))
				continue;
			if (syms_proc(snap, &snap->procs[k], f, e, i0, i1, sz))
				goto nomem;
			nprocs++;
		}
	}
	for (size_t i = 0; i < cnt; i++) {
		const struct exm_elf_symbol *y = &e->syms[i0 + i];

		rows[i].proc = p;
		rows[i].file = f;
		rows[i].name = exm_elf_sym_name(e, i0 + i,
						flags & EXM_SYMS_DEMANGLE);
		rows[i].addr = y->addr;
		rows[i].size = y->size;
		rows[i].nprocs = nprocs;
		rows[i].sz = sz[i];
		if (e->symsrc == EXM_SYMS_DYNSYM)
			rows[i].flags |= EXM_ROW_DYNSYM;
	}
	free(sz);
	*n = cnt;
	return rows;
nomem:
	free(sz);
	free(rows);
	return NULL;
}

struct exm_row *exm_table_section_procs(const struct exm_snapshot *snap,
					const struct exm_file *f,
					const struct exm_elf *e, long secidx,
					size_t *n)
{
	struct exm_row *rows;
	size_t k = 0;

	*n = 0;
	rows = calloc(snap->nprocs ? snap->nprocs : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	if (!e || e->state != EXM_ELF_OK || secidx < 0 ||
	    (size_t)secidx >= e->nsecs)
		return rows;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		const struct exm_elf_section *s = &e->secs[secidx];
		struct exm_elf_region *regs;
		long nr;

		if (!proc_maps_file(p, f))
			continue;
		nr = exm_elf_regions(snap, p, f, e, &regs);
		if (nr < 0) {
			free(rows);
			return NULL;
		}
		rows[k].proc = p;
		rows[k].file = f;
		rows[k].name = s->name;
		rows[k].addr = s->addr;
		rows[k].size = s->size;
		rows[k].nprocs = 1;
		zero_sizes(snap, &rows[k].sz);
		for (long ri = 0; ri < nr; ri++) {
			uint64_t before = rows[k].sz.vm;

			add_range(snap, p, &regs[ri], s->addr,
				  s->addr + s->size, &rows[k].sz);
			/* nmaps: how many mappings the section lies in */
			rows[k].nmaps += rows[k].sz.vm != before;
		}
		free(regs);
		k++;
	}
	*n = k;
	return rows;
}

long exm_elf_section_lookup(const struct exm_elf *e, const char *name,
			    uint64_t addr)
{
	for (size_t i = 0; i < e->nsecs; i++)
		if (e->secs[i].addr == addr && !strcmp(e->secs[i].name, name))
			return (long)i;
	return exm_elf_find_section(e, name);
}

const char *exm_elf_empty_text(const struct exm_elf *e, bool symbols,
			       size_t nrows)
{
	if (!e || e->state != EXM_ELF_OK)
		return exm_elf_state_text(e);
	if (nrows)
		return NULL;
	if (symbols)
		return e->nsyms ? "(no symbols in this section)"
				: "(no symbols)";
	return "(no sections)";
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * units.c - executable units and the per-process breakdown; see units.h.
 *
 * Both tables come from one walk: for every (unit, process) pair, file
 * major so each file's ELF is looked up once, the file's regions in the
 * process (exm_elf_regions(): its mappings, and .bss after a data segment)
 * are cut into text, data and bss pieces and handed to a visitor.
 */
#include "core/units.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/account.h"
#include "core/elf_table.h"

static const char *const seg_names[EXM_SEG__COUNT] = {
	[EXM_SEG_TEXT] = "text",
	[EXM_SEG_DATA] = "data",
	[EXM_SEG_BSS] = "bss",
};

const char *exm_seg_name(enum exm_seg s)
{
	return (unsigned)s < EXM_SEG__COUNT ? seg_names[s] : "?";
}

static const char *const bd_keys[EXM_BD__COUNT] = {
	[EXM_BD_STACK] = "stack",	  [EXM_BD_HEAP] = "heap",
	[EXM_BD_PROG_TEXT] = "prog_text", [EXM_BD_PROG_DATA] = "prog_data",
	[EXM_BD_PROG_BSS] = "prog_bss",	  [EXM_BD_LIB_TEXT] = "lib_text",
	[EXM_BD_LIB_DATA] = "lib_data",	  [EXM_BD_LIB_BSS] = "lib_bss",
	[EXM_BD_ANON] = "anon",		  [EXM_BD_OTHER] = "other",
};

const char *exm_bd_key(enum exm_bd b)
{
	return (unsigned)b < EXM_BD__COUNT ? bd_keys[b] : "?";
}

const struct exm_elf *exm_elf_lookup_cached(void *ctx,
					    const struct exm_snapshot *snap,
					    const struct exm_proc *p,
					    const struct exm_file *f)
{
	struct exm_elf_lookup_cache *lc = ctx;

	return exm_elfcache_get(lc->cache, snap, p, f, lc->proc_root);
}

/* Zero sizes with the validity this snapshot's sizes have. */
static void zero_sizes(const struct exm_snapshot *snap, struct exm_sizes *sz)
{
	static const struct exm_proc none;

	exm_range_sizes(snap, snap->nprocs ? &snap->procs[0] : &none, NULL, 0,
			0, sz);
}

/* Sizes of [s, e) of mapping m: the accounted figures for the whole
 * mapping (every source has them), a byte range otherwise. */
static void range(const struct exm_snapshot *snap, const struct exm_proc *p,
		  const struct exm_mapping *m, uint64_t s, uint64_t e,
		  struct exm_sizes *out)
{
	if (s == m->start && e == m->end)
		*out = m->sz;
	else
		exm_range_sizes(snap, p, m, s, e, out);
}

static bool unit_map(const struct exm_mapping *m)
{
	return m->kind == EXM_KIND_FILE && m->file && (m->perms & EXM_PERM_X);
}

typedef void (*visit_fn)(void *ctx, const struct exm_proc *p,
			 const struct exm_file *f, enum exm_elf_state st,
			 enum exm_seg seg, const struct exm_sizes *sz);

struct claim { /* a .bss piece of an anonymous mapping */
	uint32_t proc;
	uint32_t map;
	uint64_t start, end;
};

struct walk {
	const struct exm_snapshot *snap;
	visit_fn visit;
	void *ctx;
	struct claim *claims;
	size_t nclaims, capclaims;
};

static void piece(struct walk *w, const struct exm_proc *p,
		  const struct exm_file *f, const struct exm_elf *e,
		  const struct exm_mapping *m, enum exm_seg seg, uint64_t s,
		  uint64_t end)
{
	struct exm_sizes sz;

	if (s >= end)
		return;
	range(w->snap, p, m, s, end, &sz);
	w->visit(w->ctx, p, f, e->state, seg, &sz);
}

static enum exm_seg perm_seg(const struct exm_mapping *m)
{
	return (m->perms & EXM_PERM_W) ? EXM_SEG_DATA : EXM_SEG_TEXT;
}

static enum exm_seg sec_seg(const struct exm_elf_section *s)
{
	if (s->type == SHT_NOBITS)
		return EXM_SEG_BSS;
	return (s->flags & SHF_WRITE) ? EXM_SEG_DATA : EXM_SEG_TEXT;
}

/* Segment of bytes at ELF address a that no section covers. */
static enum exm_seg gap_seg(const struct exm_elf *e, uint64_t a,
			    const struct exm_mapping *m, uint64_t ps)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct exm_elf_segment *s = &e->segs[i];
		uint64_t lo = s->vaddr & ~(ps - 1), hi = s->vaddr + s->memsz;

		if (a >= lo && a < hi)
			return (s->flags & PF_W) ? EXM_SEG_DATA : EXM_SEG_TEXT;
	}
	return perm_seg(m);
}

static int add_claim(struct walk *w, uint32_t pi, const struct exm_proc *p,
		     const struct exm_elf_region *r)
{
	if (w->nclaims == w->capclaims) {
		size_t cap = w->capclaims ? 2 * w->capclaims : 16;
		struct claim *c = realloc(w->claims, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		w->claims = c;
		w->capclaims = cap;
	}
	w->claims[w->nclaims++] = (struct claim){
		.proc = pi,
		.map = (uint32_t)(r->map - p->maps),
		.start = r->start,
		.end = r->end,
	};
	return 0;
}

static void cut_region(struct walk *w, const struct exm_proc *p,
		       const struct exm_file *f, const struct exm_elf *e,
		       const struct exm_elf_region *r)
{
	uint64_t ps = w->snap->sys.page_size ? w->snap->sys.page_size : 4096;
	uint64_t lo = r->start - r->bias, hi = r->end - r->bias, cur;

	if (r->bss) {
		piece(w, p, f, e, r->map, EXM_SEG_BSS, r->start, r->end);
		return;
	}
	if (e->state != EXM_ELF_OK || !r->has_bias || lo >= hi) {
		piece(w, p, f, e, r->map, perm_seg(r->map), r->start, r->end);
		return;
	}
	cur = lo;
	for (size_t i = 0; i < e->nsecs && cur < hi; i++) {
		const struct exm_elf_section *s = &e->secs[i];
		uint64_t send = s->addr + s->size, a, b;

		if (s->type == SHT_NOBITS && (s->flags & SHF_TLS))
			continue; /* .tbss: no address space of its own */
		if (send < s->addr)
			send = UINT64_MAX;
		if (send <= cur || s->addr >= hi)
			continue;
		if (s->addr > cur) {
			piece(w, p, f, e, r->map, gap_seg(e, cur, r->map, ps),
			      cur + r->bias, s->addr + r->bias);
			cur = s->addr;
		}
		a = cur;
		b = send < hi ? send : hi;
		piece(w, p, f, e, r->map, sec_seg(s), a + r->bias, b + r->bias);
		cur = b;
	}
	if (cur < hi)
		piece(w, p, f, e, r->map, gap_seg(e, cur, r->map, ps),
		      cur + r->bias, hi + r->bias);
}

struct pair {
	uint32_t file, proc;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* Every (unit, process) pair, file major; -ENOMEM or the count. */
static long unit_pairs(const struct exm_snapshot *snap, struct pair **out)
{
	size_t n = 0, cap = 0, k = 0;
	struct pair *v = NULL;

	for (size_t pi = 0; pi < snap->nprocs; pi++) {
		const struct exm_proc *p = &snap->procs[pi];

		for (size_t i = 0; i < p->nmaps; i++) {
			if (!unit_map(&p->maps[i]))
				continue;
			if (n == cap) {
				struct pair *t;

				cap = cap ? 2 * cap : 64;
				t = realloc(v, cap * sizeof(*v));
				if (!t) {
					free(v);
					return -ENOMEM;
				}
				v = t;
			}
			v[n++] = (struct pair){ p->maps[i].file->index,
						(uint32_t)pi };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_pair);
	for (size_t i = 0; i < n; i++) /* unique */
		if (!k || v[i].file != v[k - 1].file ||
		    v[i].proc != v[k - 1].proc)
			v[k++] = v[i];
	*out = v;
	return (long)k;
}

static int walk_units(struct walk *w, const struct exm_elf_lookup *lk)
{
	const struct exm_snapshot *snap = w->snap;
	struct pair *pairs;
	long np = unit_pairs(snap, &pairs);
	int err = 0;

	if (np < 0)
		return (int)np;
	for (long i = 0; i < np && !err;) {
		const struct exm_file *f = snap->files[pairs[i].file];
		const struct exm_elf *e = lk->get(lk->ctx, snap,
						  &snap->procs[pairs[i].proc],
						  f);
		long j = i;

		for (; j < np && pairs[j].file == pairs[i].file && !err; j++) {
			const struct exm_proc *p = &snap->procs[pairs[j].proc];
			struct exm_elf_region *regs;
			long nr = exm_elf_regions(snap, p, f, e, &regs);

			if (nr < 0) {
				err = (int)nr;
				break;
			}
			for (long r = 0; r < nr && !err; r++) {
				cut_region(w, p, f, e, &regs[r]);
				if (regs[r].bss)
					err = add_claim(w, pairs[j].proc, p,
							&regs[r]);
			}
			free(regs);
		}
		i = j;
	}
	free(pairs);
	return err;
}

/* ---- units across processes ---- */

struct units_ctx {
	struct exm_unit *byfile; /* one per snap->files, NULL file: none */
};

static void units_visit(void *ctx, const struct exm_proc *p,
			const struct exm_file *f, enum exm_elf_state st,
			enum exm_seg seg, const struct exm_sizes *sz)
{
	struct exm_unit *u = &((struct units_ctx *)ctx)->byfile[f->index];

	(void)p;
	u->file = f;
	u->elf_state = st;
	exm_sizes_add(&u->seg[seg], sz);
	exm_sizes_add(&u->total, sz);
}

int exm_units_table(const struct exm_snapshot *snap,
		    const struct exm_elf_lookup *lk, struct exm_unit **out,
		    size_t *n)
{
	struct units_ctx c;
	struct walk w = { .snap = snap, .visit = units_visit, .ctx = &c };
	struct pair *pairs;
	long np;
	size_t k = 0;
	int err;

	*out = NULL;
	*n = 0;
	c.byfile = calloc(snap->nfiles ? snap->nfiles : 1, sizeof(*c.byfile));
	if (!c.byfile)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nfiles; i++) {
		for (int s = 0; s < EXM_SEG__COUNT; s++)
			zero_sizes(snap, &c.byfile[i].seg[s]);
		zero_sizes(snap, &c.byfile[i].total);
	}
	np = unit_pairs(snap, &pairs);
	if (np < 0) {
		free(c.byfile);
		return (int)np;
	}
	for (long i = 0; i < np; i++)
		c.byfile[pairs[i].file].nprocs++;
	free(pairs);
	err = walk_units(&w, lk);
	free(w.claims);
	if (err) {
		free(c.byfile);
		return err;
	}
	for (size_t i = 0; i < snap->nfiles; i++)
		if (c.byfile[i].nprocs) {
			c.byfile[i].file = snap->files[i];
			c.byfile[k++] = c.byfile[i];
		}
	*out = c.byfile;
	*n = k;
	return 0;
}

/* ---- per-process breakdown ---- */

struct bd_ctx {
	const struct exm_snapshot *snap;
	struct exm_breakdown *rows;
};

static void bd_visit(void *ctx, const struct exm_proc *p,
		     const struct exm_file *f, enum exm_elf_state st,
		     enum exm_seg seg, const struct exm_sizes *sz)
{
	struct bd_ctx *c = ctx;
	struct exm_breakdown *row = &c->rows[p - c->snap->procs];
	enum exm_bd base = f == row->program ? EXM_BD_PROG_TEXT
					     : EXM_BD_LIB_TEXT;

	(void)st;
	exm_sizes_add(&row->part[base + seg], sz);
}

/* The unit p maps at the lowest address, or NULL. */
static const struct exm_file *program_of(const struct exm_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];

		if (m->kind != EXM_KIND_FILE || !m->file)
			continue;
		for (size_t j = i; j < p->nmaps; j++)
			if (p->maps[j].file == m->file && unit_map(&p->maps[j]))
				return m->file;
	}
	return NULL;
}

static bool unit_of_proc(const struct exm_proc *p, const struct exm_file *f)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].file == f && unit_map(&p->maps[i]))
			return true;
	return false;
}

static int cmp_claim(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->map != y->map)
		return x->map < y->map ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static enum exm_bd kind_bd(enum exm_kind k)
{
	switch (k) {
	case EXM_KIND_STACK:
		return EXM_BD_STACK;
	case EXM_KIND_HEAP:
		return EXM_BD_HEAP;
	case EXM_KIND_ANON:
		return EXM_BD_ANON;
	default:
		return EXM_BD_OTHER;
	}
}

/* Mappings that are not part of a unit, less the .bss claimed from them. */
static void bd_rest(const struct exm_snapshot *snap, struct exm_breakdown *row,
		    const struct claim *cl, size_t ncl)
{
	const struct exm_proc *p = row->proc;
	size_t c = 0;

	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];
		enum exm_bd b = kind_bd(m->kind);
		uint64_t cur = m->start;
		struct exm_sizes sz;

		if (m->kind == EXM_KIND_FILE && m->file &&
		    unit_of_proc(p, m->file))
			continue;
		while (c < ncl && cl[c].map < i)
			c++;
		for (; c < ncl && cl[c].map == i; c++) {
			if (cl[c].start > cur) {
				range(snap, p, m, cur, cl[c].start, &sz);
				exm_sizes_add(&row->part[b], &sz);
			}
			if (cl[c].end > cur)
				cur = cl[c].end;
		}
		if (cur < m->end) {
			range(snap, p, m, cur, m->end, &sz);
			exm_sizes_add(&row->part[b], &sz);
		}
	}
}

int exm_breakdown_table(const struct exm_snapshot *snap,
			const struct exm_elf_lookup *lk,
			struct exm_breakdown **out, size_t *n)
{
	struct exm_breakdown *rows;
	struct walk w = { .snap = snap, .visit = bd_visit };
	struct bd_ctx bc = { .snap = snap };
	size_t c = 0;
	int err;

	*out = NULL;
	*n = 0;
	rows = calloc(snap->nprocs ? snap->nprocs : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		rows[i].proc = p;
		rows[i].program = program_of(p);
		for (int b = 0; b < EXM_BD__COUNT; b++)
			zero_sizes(snap, &rows[i].part[b]);
		rows[i].has_sole = (p->sz.has & EXM_HAS_SOLE) &&
				   (p->sz.has & EXM_HAS_RSS);
		if (rows[i].has_sole) {
			rows[i].sole = p->sz.sole;
			rows[i].shared = p->sz.rss - p->sz.sole;
		}
	}
	bc.rows = rows;
	w.ctx = &bc;
	err = walk_units(&w, lk);
	if (err) {
		free(w.claims);
		free(rows);
		return err;
	}
	if (w.nclaims)
		qsort(w.claims, w.nclaims, sizeof(*w.claims), cmp_claim);
	for (size_t i = 0; i < snap->nprocs; i++) {
		size_t c0 = c;

		while (c < w.nclaims && w.claims[c].proc == i)
			c++;
		bd_rest(snap, &rows[i], w.claims + c0, c - c0);
	}
	free(w.claims);
	*out = rows;
	*n = snap->nprocs;
	return 0;
}

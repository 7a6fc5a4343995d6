// SPDX-License-Identifier: GPL-2.0-or-later
/* snapshot.c - building and freeing snapshots. */
#include "core/snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hugemem.h"
#include "core/pagecount.h"
#include "core/pagemap.h"

/* Bulk storage for page words: a first block of 256 KiB on normal pages
 * (the packed words of 64Ki pages: a small snapshot), then blocks of at
 * least 8 MiB, 2 MiB aligned and advised for transparent huge pages (see
 * exm_huge_map), handed out by bumping a pointer. */
#define STORE_FIRST ((size_t)256 << 10)
#define STORE_BLOCK ((size_t)8 << 20)

struct store_block {
	struct store_block *next;
	struct exm_huge mem;
	uint64_t *words;  /* mem.mem */
	size_t cap, used; /* in words */
	size_t touched;	  /* words written at most (used may shrink) */
};

struct exm_page_store {
	struct store_block *head; /* current block first */
};

static void store_free(struct exm_page_store *st)
{
	if (!st)
		return;
	while (st->head) {
		struct store_block *b = st->head;

		st->head = b->next;
		exm_huge_unmap(&b->mem,
			       (b->used > b->touched ? b->used : b->touched) *
				       sizeof(uint64_t));
		free(b);
	}
	free(st);
}

static uint64_t *store_alloc(struct exm_snapshot *snap, size_t n)
{
	struct exm_page_store *st = snap->store;
	struct store_block *b;
	size_t bytes;

	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return NULL;
		snap->store = st;
	}
	b = st->head;
	if (b && b->cap - b->used >= n) {
		b->used += n;
		return b->words + b->used - n;
	}
	bytes = n * sizeof(uint64_t);
	if (bytes < (b ? STORE_BLOCK : STORE_FIRST))
		bytes = b ? STORE_BLOCK : STORE_FIRST;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	/* words are written before they are read: no clearing needed */
	if (exm_huge_map(&b->mem, bytes, false)) {
		free(b);
		return NULL;
	}
	b->words = b->mem.mem;
	b->cap = b->mem.len / sizeof(uint64_t);
	b->used = n;
	b->next = st->head;
	st->head = b;
	return b->words;
}

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

void exm_sys_note(struct exm_sysinfo *sys, const char *what)
{
	size_t n = strlen(sys->limits);

	snprintf(sys->limits + n, sizeof(sys->limits) - n, "%s%s",
		 n ? "; " : "", what);
}

void exm_sizes_add(struct exm_sizes *dst, const struct exm_sizes *src)
{
	unsigned had = dst->has;

	dst->vm += src->vm;
	dst->rss += src->rss;
	dst->swap += src->swap;
	dst->sole += src->sole;
	dst->writable += src->writable;
	dst->zero += src->zero;
	dst->hugetlb += src->hugetlb;
	dst->erss += src->erss;
	dst->eswap += src->eswap;
	dst->ehugetlb += src->ehugetlb;
	dst->ksm += src->ksm;
	dst->eksm += src->eksm;
	dst->freed += src->freed;
	dst->cached += src->cached;
	dst->shmem_excl += src->shmem_excl;
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

uint64_t exm_mapping_words_key(const struct exm_mapping *m)
{
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ m->npages ^
		     ((uint64_t)!m->pages32 << 62);

	for (uint32_t i = 0; i < EXM_WORDS_SAMPLES; i++) {
		uint32_t k = (uint32_t)((uint64_t)m->npages * i /
					EXM_WORDS_SAMPLES);

		if (!m->npages)
			break;
		h = (h ^ exm_mapping_word(m, k)) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	return h ^ (h >> 29);
}

bool exm_mapping_same_words(const struct exm_mapping *a,
			    const struct exm_mapping *b)
{
	if (a->npages != b->npages || !a->pages32 != !b->pages32)
		return false;
	if (a->pages32 == b->pages32 && a->pages == b->pages)
		return true; /* one array (exm_mapping_share_words) */
	if (a->pages32)
		return !memcmp(a->pages32, b->pages32,
			       (size_t)a->npages * sizeof(*a->pages32));
	return !memcmp(a->pages, b->pages,
		       (size_t)a->npages * sizeof(*a->pages));
}

void exm_mapping_clear_pages(struct exm_mapping *m)
{
	if (!m->runs_borrowed)
		free(m->runs);
	m->runs_borrowed = false;
	if (!m->pages_borrowed) {
		free(m->pages);
		free(m->pages32);
	}
	m->runs = NULL;
	m->pages = NULL;
	m->pages32 = NULL;
	m->pages_borrowed = false;
	m->nruns = m->cap_runs = 0;
	m->npages = m->cap_pages = 0;
}

static void free_mapping(struct exm_mapping *m)
{
	free(m->name);
	free(m->build_id);
	exm_mapping_clear_pages(m);
}

/* p's mappings and per-process files, freed (none left). */
static void drop_maps(struct exm_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free_mapping(&p->maps[i]);
	free(p->maps);
	p->maps = NULL;
	p->nmaps = p->cap_maps = 0;
	free(p->pfiles);
	p->pfiles = NULL;
	p->npfiles = 0;
}

static void free_proc(struct exm_proc *p)
{
	drop_maps(p);
	free(p->user);
	free(p->comm);
	free(p->cmdline);
	free(p->cgroup);
}

/* Free snap's share tables (a holder of a reference keeps its own). */
static void free_share_tables(struct exm_snapshot *snap)
{
	exm_pagecount_free(snap->pfn_counts);
	exm_pagecount_free(snap->huge_counts);
	exm_pagecount_free(snap->swap_counts);
	snap->pfn_counts = snap->huge_counts = snap->swap_counts = NULL;
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
	for (size_t i = 0; i < snap->ncgroups; i++)
		free(snap->cgroups[i].path);
	free(snap->cgroups);
	free_share_tables(snap);
	store_free(snap->store);
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
	snap->pid_order = false; /* its pid is not set yet */
	return p;
}

void exm_snapshot_drop_last(struct exm_snapshot *snap)
{
	if (!snap->nprocs)
		return;
	snap->nprocs--;
	free_proc(&snap->procs[snap->nprocs]);
}

int exm_proc_reserve_mappings(struct exm_proc *p, size_t n)
{
	struct exm_mapping *m;

	if (n > SIZE_MAX / sizeof(*m) - p->nmaps)
		return -ENOMEM;
	if (p->nmaps + n <= p->cap_maps)
		return 0;
	m = realloc(p->maps, (p->nmaps + n) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	p->maps = m;
	p->cap_maps = p->nmaps + n;
	return 0;
}

struct exm_mapping *exm_proc_add_mapping(struct exm_proc *p)
{
	struct exm_mapping *m;

	if (p->nmaps == p->cap_maps &&
	    exm_proc_reserve_mappings(p, p->cap_maps < 16 ? 16 : p->cap_maps))
		return NULL;
	m = &p->maps[p->nmaps++];
	memset(m, 0, sizeof(*m));
	return m;
}

/* Make room for n more elements of an array with *cap slots, *len used:
 * at least doubling, so appends are amortised O(1); from 2 (most
 * mappings of a small process are one or two runs of pages: a walk of
 * 2,000 of them kept 8.7 MiB of runs starting at 8, memory touched for
 * nothing). */
static int reserve(void **arr, uint32_t len, uint32_t *cap, uint32_t n,
		   size_t elem)
{
	uint64_t want = (uint64_t)len + n, ncap;
	void *na;

	if (want <= *cap)
		return 0;
	if (want > UINT32_MAX)
		return -ENOMEM;
	ncap = *cap ? (uint64_t)*cap * 2 : 2;
	if (ncap < want)
		ncap = want;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	na = realloc(*arr, (size_t)ncap * elem);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = (uint32_t)ncap;
	return 0;
}

/* Move m's words to a heap array of cap words (same width). */
static int to_heap(struct exm_mapping *m, uint64_t cap)
{
	size_t elem = m->pages32 ? 4 : 8;
	void *old = m->pages32 ? (void *)m->pages32 : (void *)m->pages;
	void *heap;

	if (cap > UINT32_MAX)
		return -ENOMEM;
	heap = malloc((size_t)cap * elem);
	if (!heap)
		return -ENOMEM;
	if (m->npages)
		memcpy(heap, old, (size_t)m->npages * elem);
	if (!m->pages_borrowed)
		free(old);
	if (m->pages32)
		m->pages32 = heap;
	else
		m->pages = heap;
	m->cap_pages = (uint32_t)cap;
	m->pages_borrowed = false;
	return 0;
}

/* Room for n more words; a mapping without storage starts packed. */
static int room_for(struct exm_mapping *m, uint32_t n)
{
	uint64_t want = (uint64_t)m->npages + n, cap;

	if (want <= m->cap_pages && (m->pages || m->pages32))
		return 0;
	if (!m->pages && !m->pages32) {
		m->pages32 = malloc((size_t)(n > 8 ? n : 8) * 4);
		if (!m->pages32)
			return -ENOMEM;
		m->cap_pages = n > 8 ? n : 8;
		m->pages_borrowed = false;
		return 0;
	}
	cap = (uint64_t)m->cap_pages * 2;
	if (cap < want)
		cap = want;
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	if (want > cap)
		return -ENOMEM;
	return to_heap(m, cap);
}

/* A word that does not pack: keep all of m's words in 64 bits from now
 * on, with room for n more. */
static int widen(struct exm_mapping *m, uint32_t n)
{
	uint64_t cap = (uint64_t)m->npages + n;
	uint64_t *wide;

	if (cap < m->cap_pages)
		cap = m->cap_pages;
	if (cap > UINT32_MAX)
		return -ENOMEM;
	wide = malloc((size_t)(cap ? cap : 1) * 8);
	if (!wide)
		return -ENOMEM;
	for (uint32_t k = 0; k < m->npages; k++)
		wide[k] = exm_pm_unpack(m->pages32[k]);
	if (!m->pages_borrowed)
		free(m->pages32);
	m->pages32 = NULL;
	m->pages = wide;
	m->cap_pages = (uint32_t)cap;
	m->pages_borrowed = false;
	return 0;
}

/* The packed flags of a present word by its top byte (pagemap bits 56-63:
 * exclusive 56, writable 58, file 61, present 63; see exm_pm_pack). */
#define PF1(b)                                                            \
	(((b)&0x80 ? EXM_PC_PRESENT : 0) | ((b)&0x01 ? EXM_PC_EXCL : 0) | \
	 ((b)&0x04 ? EXM_PC_WRITABLE : 0) | ((b)&0x20 ? EXM_PC_FILE : 0))
#define PF4(b) PF1(b), PF1((b) + 1), PF1((b) + 2), PF1((b) + 3)
#define PF16(b) PF4(b), PF4((b) + 4), PF4((b) + 8), PF4((b) + 12)
#define PF64(b) PF16(b), PF16((b) + 16), PF16((b) + 32), PF16((b) + 48)
static const uint32_t pack_flags[256] = { PF64(0), PF64(64), PF64(128),
					  PF64(192) };
/* A present word whose PFN packs, neither zero page nor KSM: these bits are
 * exactly EXM_PM_PRESENT. */
#define PACKS_FAST                                   \
	(EXM_PM_PRESENT | EXM_PM_ZERO | EXM_PM_KSM | \
	 (EXM_PM_PFN_MASK & ~(uint64_t)EXM_PC_PFN_MAX))

/* How many of w[0..n) are used, from the first on. */
static uint32_t run_len(const uint64_t *w, uint32_t n)
{
	uint32_t k = 0;

	while (k < n && exm_pm_used(w[k]))
		k++;
	return k;
}

/*
 * Store words from w[0..n) into m's free room while they are used (and,
 * packed, while they are present with a PFN that packs: the common case,
 * one table look-up each); returns how many.
 */
static uint32_t store_run(struct exm_mapping *m, const uint64_t *w, uint32_t n)
{
	uint32_t room = m->cap_pages - m->npages, k;

	if (n > room)
		n = room;
	if (m->pages32) {
		uint32_t *out = m->pages32 + m->npages;

		/* eight at a time, checked together after: all present (in
		 * the AND of the words), none with another bit of PACKS_FAST
		 * (in their OR). A block with a word that does not pack is
		 * done again one by one; what was written past that word
		 * lies in free room. */
		for (k = 0; k + 8 <= n; k += 8) {
			uint64_t all = UINT64_MAX, any = 0;

#pragma GCC unroll 8
			for (unsigned j = 0; j < 8; j++) {
				uint64_t x = w[k + j];

				all &= x;
				any |= x;
				out[k + j] = ((uint32_t)x & EXM_PC_PFN_MAX) |
					     pack_flags[x >> 56];
			}
			if ((any & (PACKS_FAST & ~EXM_PM_PRESENT)) ||
			    !(all & EXM_PM_PRESENT))
				break;
		}
		for (; k < n; k++) {
			uint64_t x = w[k];

			if ((x & PACKS_FAST) != EXM_PM_PRESENT)
				break;
			out[k] = ((uint32_t)x & EXM_PC_PFN_MAX) |
				 pack_flags[x >> 56];
		}
	} else {
		uint64_t *out = m->pages + m->npages;

		for (k = 0; k < n && exm_pm_used(w[k]); k++)
			out[k] = w[k];
	}
	m->npages += k;
	return k;
}

/* The run that words from vpn, stored at m->npages, go in: the last one
 * when they continue it; NULL on ENOMEM. */
static struct exm_run *run_at(struct exm_mapping *m, uint64_t vpn,
			      uint32_t most)
{
	struct exm_run *last = m->nruns ? &m->runs[m->nruns - 1] : NULL;

	if (last && last->vpn + last->count == vpn &&
	    last->idx + last->count == m->npages &&
	    (uint64_t)last->count + most <= UINT32_MAX)
		return last;
	if (m->runs_borrowed) { /* out of the store, to grow */
		struct exm_run *h = malloc(((size_t)m->nruns + 1) * sizeof(*h));

		if (!h)
			return NULL;
		memcpy(h, m->runs, (size_t)m->nruns * sizeof(*h));
		m->runs = h;
		m->cap_runs = m->nruns + 1;
		m->runs_borrowed = false;
	}
	if (reserve((void **)&m->runs, m->nruns, &m->cap_runs, 1,
		    sizeof(*m->runs)))
		return NULL;
	last = &m->runs[m->nruns++];
	last->vpn = vpn;
	last->count = 0;
	last->idx = m->npages;
	return last;
}

int exm_mapping_add_pages(struct exm_mapping *m, uint64_t vpn,
			  const uint64_t *words, uint32_t n)
{
	uint32_t i = 0;

	for (;;) {
		struct exm_run *run;
		uint32_t first;

		/* skip unused words, four at a time where it can */
		while (n - i >= 4 && !((words[i] | words[i + 1] | words[i + 2] |
					words[i + 3]) &
				       (EXM_PM_PRESENT | EXM_PM_SWAPPED)))
			i += 4;
		while (i < n && !exm_pm_used(words[i]))
			i++;
		if (i == n)
			return 0;
		run = run_at(m, vpn + i, n - i);
		if (!run)
			return -ENOMEM;
		first = i;
		for (;;) {
			int ret = 0;

			if (m->pages || m->pages32)
				i += store_run(m, words + i, n - i);
			if (i == n || !exm_pm_used(words[i]))
				break;
			/* no room, or a word the fast packing leaves */
			if (m->npages == m->cap_pages ||
			    (!m->pages && !m->pages32))
				ret = room_for(m, run_len(words + i, n - i));
			else if (exm_pm_pack(words[i],
					     &m->pages32[m->npages])) {
				m->npages++;
				i++;
			} else {
				ret = widen(m, run_len(words + i, n - i));
			}
			if (ret) {
				run->count += i - first;
				return ret;
			}
		}
		run->count += i - first;
	}
}

int exm_mapping_add_run(struct exm_mapping *m, uint64_t vpn, uint64_t word,
			uint64_t step, uint32_t n)
{
	uint64_t buf[256];
	uint32_t c, last, *out;
	struct exm_run *run;
	int ret;

	if (!n || !exm_pm_used(word))
		return 0;
	/* packed, and the last word packs too: they all do, step apart */
	if (!m->pages && (m->pages32 || !m->npages) &&
	    exm_pm_pack(word + (uint64_t)(n - 1) * step, &last) &&
	    exm_pm_pack(word, &c)) {
		ret = room_for(m, n);
		if (ret)
			return ret;
		run = run_at(m, vpn, n);
		if (!run)
			return -ENOMEM;
		out = m->pages32 + m->npages;
		for (uint32_t k = 0; k < n; k++)
			out[k] = c + k * (uint32_t)step;
		m->npages += n;
		run->count += n;
		return 0;
	}
	while (n) { /* the general way, a piece at a time */
		uint32_t k, piece = n < 256 ? n : 256;

		for (k = 0; k < piece; k++)
			buf[k] = word + k * step;
		ret = exm_mapping_add_pages(m, vpn, buf, piece);
		if (ret)
			return ret;
		vpn += piece;
		word += piece * step;
		n -= piece;
	}
	return 0;
}

int exm_mapping_add_frames(struct exm_mapping *m, uint64_t vpn,
			   const uint32_t *frame1, uint32_t n, uint64_t flags)
{
	uint64_t buf[256];
	uint32_t c, *out, k = 0, any = 0;
	struct exm_run *run;
	int ret;

	if (!n)
		return 0;
	/*
	 * Packed, when every frame packs: checked after, from their OR (no
	 * bit past EXM_PC_PFN_MAX, so below it a frame's bits and c's do not
	 * meet and c | (f - 1) is c - 1 + f; a frame of EXM_PC_PFN_MAX itself
	 * goes the general way).
	 */
	if (!m->pages && (m->pages32 || !m->npages) && exm_pm_pack(flags, &c)) {
		ret = room_for(m, n);
		if (ret)
			return ret;
		out = m->pages32 + m->npages;
		c--; /* flags has EXM_PM_PRESENT: c is not 0 */
		for (; k + 8 <= n; k += 8)
#pragma GCC unroll 8
			for (unsigned j = 0; j < 8; j++) {
				any |= frame1[k + j];
				out[k + j] = c + frame1[k + j];
			}
		for (; k < n; k++) {
			any |= frame1[k];
			out[k] = c + frame1[k];
		}
		if (!(any & ~EXM_PC_PFN_MAX)) {
			run = run_at(m, vpn, n);
			if (!run)
				return -ENOMEM;
			m->npages += n;
			run->count += n;
			return 0;
		}
	}
	for (k = 0; k < n;) { /* the general way, a piece at a time */
		uint32_t piece = n - k < 256 ? n - k : 256;

		for (uint32_t j = 0; j < piece; j++)
			buf[j] = flags | (frame1[k + j] - 1);
		ret = exm_mapping_add_pages(m, vpn + k, buf, piece);
		if (ret)
			return ret;
		k += piece;
	}
	return 0;
}

int exm_mapping_add_page(struct exm_mapping *m, uint64_t vpn, uint64_t word)
{
	return exm_mapping_add_pages(m, vpn, &word, 1);
}

const struct exm_proc *exm_snapshot_find_pid(const struct exm_snapshot *snap,
					     pid_t pid)
{
	size_t lo = 0, hi = snap->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (snap->procs[mid].pid == pid)
			return &snap->procs[mid];
		if (snap->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* not there, unless the processes may be out of pid order */
	for (size_t j = 0; !snap->pid_order && j < snap->nprocs; j++)
		if (snap->procs[j].pid == pid)
			return &snap->procs[j];
	return NULL;
}

void exm_snapshot_note_order(struct exm_snapshot *snap)
{
	snap->pid_order = true;
	for (size_t i = 1; i < snap->nprocs && snap->pid_order; i++)
		snap->pid_order = snap->procs[i - 1].pid < snap->procs[i].pid;
}

void exm_snapshot_drop_pages(struct exm_snapshot *snap)
{
	for (size_t i = 0; i < snap->nprocs; i++) {
		struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps; j++)
			exm_mapping_clear_pages(&p->maps[j]);
	}
	store_free(snap->store);
	snap->store = NULL;
	snap->sys.caps &= ~EXM_CAP_PAGES;
}

void exm_snapshot_keep_sizes(struct exm_snapshot *snap)
{
	exm_snapshot_drop_pages(snap);
	free_share_tables(snap);
	snap->sizes_only = true;
}

void exm_snapshot_keep_rows(struct exm_snapshot *snap)
{
	exm_snapshot_keep_sizes(snap);
	for (size_t i = 0; i < snap->nprocs; i++)
		drop_maps(&snap->procs[i]);
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

int exm_mapping_reserve_store(struct exm_snapshot *snap, struct exm_mapping *m,
			      uint32_t n)
{
	uint64_t *w;

	if (m->npages || !n)
		return m->npages ? -EINVAL : 0;
	w = store_alloc(snap, ((size_t)n + 1) / 2); /* packed words */
	if (!w)
		return -ENOMEM;
	exm_mapping_clear_pages(m);
	m->pages32 = (uint32_t *)w;
	m->cap_pages = n;
	m->pages_borrowed = true;
	return 0;
}

int exm_mapping_store_runs(struct exm_snapshot *snap, struct exm_mapping *m,
			   const struct exm_run *runs, uint32_t n)
{
	uint64_t *w;

	if (m->runs || !n)
		return m->runs ? -EINVAL : 0;
	w = store_alloc(snap, ((size_t)n * sizeof(*runs) + 7) / 8);
	if (!w)
		return -ENOMEM;
	m->runs = (struct exm_run *)(void *)w;
	memcpy(m->runs, runs, (size_t)n * sizeof(*runs));
	m->nruns = m->cap_runs = n;
	m->runs_borrowed = true;
	return 0;
}

/* m's room in the store past its first keep words (of 64 bits) back to
 * the store, when m's room was the last the store handed out. */
static bool give_back(struct exm_snapshot *snap, struct exm_mapping *m,
		      size_t keep)
{
	struct store_block *b = snap->store ? snap->store->head : NULL;
	uint64_t *w = (uint64_t *)(void *)m->pages32;
	size_t n = ((size_t)m->cap_pages + 1) / 2;

	if (!m->pages32 || !m->pages_borrowed || !b || w < b->words ||
	    w + n != b->words + b->used || keep > n)
		return false;
	if (b->used > b->touched)
		b->touched = b->used;
	b->used -= n - keep;
	return true;
}

void exm_mapping_trim_store(struct exm_snapshot *snap, struct exm_mapping *m)
{
	size_t keep = ((size_t)m->npages + 1) / 2;

	if (give_back(snap, m, keep))
		m->cap_pages = (uint32_t)(keep * 2);
}

void exm_mapping_share_words(struct exm_snapshot *snap, struct exm_mapping *m,
			     const struct exm_mapping *o)
{
	if (!m->pages_borrowed)
		free(m->pages32);
	else
		give_back(snap, m, 0);
	m->pages32 = o->pages32;
	m->cap_pages = m->npages;
	m->pages_borrowed = true;
}

void exm_snapshot_append(struct exm_snapshot *dst, struct exm_snapshot *src)
{
	struct store_block *b;

	for (size_t i = 0; i < src->nprocs; i++) {
		struct exm_proc *p = exm_snapshot_add_proc(dst);
		uint32_t idx;

		if (!p) { /* ENOMEM: drop the rest rather than leak */
			for (size_t k = i; k < src->nprocs; k++)
				free_proc(&src->procs[k]);
			break;
		}
		idx = p->index;
		*p = src->procs[i];
		p->index = idx;
	}
	src->nprocs = 0;
	dst->nskipped_gone += src->nskipped_gone;
	dst->nskipped_denied += src->nskipped_denied;
	if (src->store) {
		if (!dst->store) {
			dst->store = src->store;
		} else {
			/* Keep dst's current block first: chain src's after. */
			for (b = dst->store->head; b && b->next; b = b->next)
				;
			if (b)
				b->next = src->store->head;
			else
				dst->store->head = src->store->head;
			free(src->store);
		}
		src->store = NULL;
	}
}

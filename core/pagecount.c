// SPDX-License-Identifier: GPL-2.0-or-later
/* pagecount.c - share counts by PFN or swap entry; see pagecount.h. */
#include "core/pagecount.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/hugemem.h"
#include "core/pagemap.h"

#define CHUNK_BITS EXM_PC_CHUNK_BITS
#define CHUNK_KEYS EXM_PC_CHUNK_KEYS
#define GROUP_BITS EXM_PC_GROUP_BITS
#define GROUP_KEYS EXM_PC_GROUP_KEYS
#define COUNT_SPILL UINT16_MAX

/* Chunks and groups (in the header for the inline lookup) are carved one
 * after the other out of zeroed blocks, so a new one needs no clearing:
 * owner is stored plus one (0: none yet). */
#define chunk exm_pc_chunk
#define group exm_pc_group
#define OWNER1_MANY ((uint32_t)EXM_OWNER_MANY + 1)
/* Chunk bases indexed directly, by an array mapped whole at the first
 * chunk (8 MiB of address space, no memory until used): a page of it
 * (512 chunks) is touched only where chunks are, and growing it copies
 * nothing. */
#define DIR_MAX ((uint64_t)1 << 20)
#define ARENA_BYTES ((size_t)8 << 20)
/* A first block on normal pages, just below a huge page: a small snapshot
 * (a few processes) touches only the pages its groups fill, a fault each.
 * From MANY_KEYS words on, their groups fill 2 MiB even when the keys are
 * consecutive (6.5 bytes a key): huge pages from the start, a fault each. */
#define MANY_KEYS ((uint64_t)1 << 18)
#define SMALL_ARENA (EXM_HUGE_ALIGN - EXM_SMALL_PAGE)

struct arena {
	struct arena *next;
	struct exm_huge mem;
	size_t used; /* bytes */
};

struct spill {
	uint64_t key;
	uint32_t count;
};

/* One partition: the chunks whose base is congruent to its number modulo
 * the number of partitions. */
struct part {
	struct chunk **dir;   /* by base >> partition bits, below DIR_MAX */
	size_t ndir;	      /* 1 + the highest index used (0: unmapped) */
	struct chunk **slots; /* beyond: open addressing by chunk base */
	size_t nslots, nchunks, nhashed, ngroups;
	struct chunk *last; /* locality caches */
	struct group *lastg;
	struct spill *spills; /* counts >= COUNT_SPILL, linear (rare) */
	size_t nspills;
	uint64_t distinct;
	struct arena *arenas; /* current first */
	bool many; /* many keys expected: huge pages from the start */
} __attribute__((aligned(64))); /* threads write their own part only */

struct exm_pagecount {
	unsigned refs;	 /* holders besides the first (exm_pagecount_ref) */
	unsigned nparts; /* a power of two */
	unsigned shift;	 /* log2(nparts) */
	struct part part[EXM_PAGECOUNT_MAX_PARTS];
};

struct exm_pagecount *exm_pagecount_new_parts(unsigned nparts)
{
	struct exm_pagecount *pc = calloc(1, sizeof(*pc));
	unsigned n = 1;

	if (!pc)
		return NULL;
	while (n * 2 <= nparts && n * 2 <= EXM_PAGECOUNT_MAX_PARTS)
		n *= 2;
	pc->nparts = n;
	while ((1u << pc->shift) < n)
		pc->shift++;
	for (unsigned i = 0; i < n; i++) {
		pc->part[i].nslots = 64;
		pc->part[i].slots = calloc(64, sizeof(*pc->part[i].slots));
		if (!pc->part[i].slots) {
			exm_pagecount_free(pc);
			return NULL;
		}
	}
	return pc;
}

struct exm_pagecount *exm_pagecount_new(void)
{
	return exm_pagecount_new_parts(1);
}

struct exm_pagecount *exm_pagecount_ref(struct exm_pagecount *pc)
{
	__atomic_add_fetch(&pc->refs, 1, __ATOMIC_RELAXED);
	return pc;
}

void exm_pagecount_free(struct exm_pagecount *pc)
{
	/* another holder left: its snapshot may be freed by another thread */
	if (!pc || __atomic_fetch_sub(&pc->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (unsigned k = 0; k < pc->nparts; k++) {
		struct part *pt = &pc->part[k];

		if (pt->dir)
			munmap(pt->dir, DIR_MAX * sizeof(*pt->dir));
		free(pt->slots);
		free(pt->spills);
		while (pt->arenas) {
			struct arena *a = pt->arenas;

			pt->arenas = a->next;
			/* what it used goes back dirty, for the block's
			 * reuse to clear as it carves (packed: no byte of it
			 * unused) */
			exm_huge_unmap(&a->mem, a->used);
			free(a);
		}
	}
	free(pc);
}

void exm_pagecount_expect(struct exm_pagecount *pc, uint64_t nwords)
{
	for (unsigned k = 0; k < pc->nparts; k++)
		pc->part[k].many = nwords >= MANY_KEYS;
}

unsigned exm_pagecount_nparts(const struct exm_pagecount *pc)
{
	return pc->nparts;
}

/* The partition of key: its chunk base modulo the number of partitions. */
static inline unsigned part_in(uint64_t key, unsigned nparts)
{
	return (unsigned)(key >> CHUNK_BITS) & (nparts - 1);
}

unsigned exm_pagecount_part_of(const struct exm_pagecount *pc, uint64_t key)
{
	return part_in(key, pc->nparts);
}

static size_t slot_of(uint64_t base, size_t nslots)
{
	uint64_t h = base * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(h >> 20) & (nslots - 1);
}

static struct chunk *find_chunk(const struct part *pc, uint64_t base,
				unsigned shift)
{
	uint64_t li = base >> shift;
	size_t i;

	if (pc->last && pc->last->base == base)
		return pc->last;
	if (li < DIR_MAX)
		return li < pc->ndir ? pc->dir[li] : NULL;
	i = slot_of(base, pc->nslots);
	while (pc->slots[i]) {
		if (pc->slots[i]->base == base)
			return pc->slots[i];
		i = (i + 1) & (pc->nslots - 1);
	}
	return NULL;
}

static int insert_slot(struct chunk **slots, size_t nslots, struct chunk *c)
{
	size_t i = slot_of(c->base, nslots);

	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = c;
	return 0;
}

/* n zeroed bytes (a multiple of 8) carved out of pc's current block, or
 * of a new one; NULL on ENOMEM. Each piece is cleared as it is taken, not
 * the whole block at once: a block kept for reuse comes back dirty (a
 * table of few keys, such as the swap entries', took a block a big one
 * had filled and cleared all of it: 2.5 MB at each rebuild of the share
 * tables on the bench workload), and a fresh one is written before it is
 * read, so that a page of it faults once, not a first time for the
 * reading and again for the writing (on an idle machine, 150 of a
 * snapshot's 1,170 faults were such). */
static void *arena_take(struct part *pc, size_t n)
{
	void *p;

	if (!pc->arenas || pc->arenas->mem.len - pc->arenas->used < n) {
		struct arena *a = calloc(1, sizeof(*a));

		if (!a)
			return NULL;
		/* small first, unless many keys are expected: see
		 * exm_huge_map and exm_pagecount_expect */
		if (exm_huge_map(&a->mem,
				 pc->arenas || pc->many ? ARENA_BYTES
							: SMALL_ARENA,
				 false)) {
			free(a);
			return NULL;
		}
		a->next = pc->arenas;
		pc->arenas = a;
	}
	p = (char *)pc->arenas->mem.mem + pc->arenas->used;
	memset(p, 0, n);
	pc->arenas->used += n;
	return p;
}

static struct chunk *new_chunk(struct part *pc, uint64_t base, unsigned shift)
{
	struct chunk *c;
	uint64_t li = base >> shift;

	if (li < DIR_MAX && !pc->dir) {
		void *d = mmap(NULL, DIR_MAX * sizeof(*pc->dir),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);

		if (d == MAP_FAILED)
			return NULL;
		pc->dir = d;
	}
	if (li < DIR_MAX && li >= pc->ndir)
		pc->ndir = li + 1;
	if (li >= DIR_MAX && (pc->nhashed + 1) * 2 > pc->nslots) {
		size_t n = pc->nslots * 2;
		struct chunk **ns = calloc(n, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t i = 0; i < pc->nslots; i++)
			if (pc->slots[i])
				insert_slot(ns, n, pc->slots[i]);
		free(pc->slots);
		pc->slots = ns;
		pc->nslots = n;
	}
	c = arena_take(pc, sizeof(*c));
	if (!c)
		return NULL;
	c->base = base;
	if (li < DIR_MAX) {
		pc->dir[li] = c;
	} else {
		insert_slot(pc->slots, pc->nslots, c);
		pc->nhashed++;
	}
	pc->nchunks++;
	return c;
}

static struct spill *find_spill(const struct part *pc, uint64_t key)
{
	for (size_t i = 0; i < pc->nspills; i++)
		if (pc->spills[i].key == key)
			return &pc->spills[i];
	return NULL;
}

/* The group of key, made if it is not there yet; NULL on ENOMEM. */
static struct group *group_of(struct part *pc, unsigned shift, uint64_t key)
{
	uint64_t base = key >> CHUNK_BITS;
	struct chunk *c = find_chunk(pc, base, shift); /* pc->last first */
	struct group **slot;

	if (!c) {
		c = new_chunk(pc, base, shift);
		if (!c)
			return NULL;
	}
	pc->last = c;
	slot = &c->grp[(key >> GROUP_BITS) & (EXM_PC_GROUPS - 1)];
	if (!*slot) {
		*slot = arena_take(pc, sizeof(**slot));
		if (!*slot)
			return NULL;
		(*slot)->base = key >> GROUP_BITS;
		pc->ngroups++;
	}
	return *slot;
}

static inline int add_in(struct part *pc, unsigned shift, uint64_t key,
			 uint32_t owner, uint32_t times)
{
	unsigned off = (unsigned)(key & (GROUP_KEYS - 1));
	struct group *g = pc->lastg;
	struct spill *sp;
	uint64_t total;

	if (!g || g->base != key >> GROUP_BITS) {
		g = group_of(pc, shift, key);
		if (!g)
			return -ENOMEM;
		pc->lastg = g;
	}
	if (g->count[off] == 0)
		pc->distinct++;
	if (g->owner1[off] == 0)
		g->owner1[off] = owner + 1;
	else if (g->owner1[off] != owner + 1)
		g->owner1[off] = OWNER1_MANY;

	if ((uint32_t)g->count[off] + times < COUNT_SPILL) {
		g->count[off] = (uint16_t)(g->count[off] + times);
		return 0;
	}
	if (g->count[off] != COUNT_SPILL) {
		/* now past 16 bits: the count moves to the side table */
		sp = realloc(pc->spills, (pc->nspills + 1) * sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		pc->spills = sp;
		total = (uint64_t)g->count[off] + times;
		sp[pc->nspills].key = key;
		sp[pc->nspills].count = total > UINT32_MAX ? UINT32_MAX
							   : (uint32_t)total;
		pc->nspills++;
		g->count[off] = COUNT_SPILL;
		return 0;
	}
	sp = find_spill(pc, key);
	total = (uint64_t)sp->count + times;
	sp->count = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
	return 0;
}

int exm_pagecount_add(struct exm_pagecount *pc, uint64_t key, uint32_t owner)
{
	return add_in(&pc->part[part_in(key, pc->nparts)], pc->shift, key,
		      owner, 1);
}

int exm_pagecount_add_words(struct exm_pagecount *pfn,
			    struct exm_pagecount *swp, unsigned part,
			    const uint64_t *w64, const uint32_t *w32,
			    uint32_t n, uint32_t owner, uint32_t times)
{
	struct part *pp = &pfn->part[part], *sp = &swp->part[part];
	int ret = 0;

	if (w32) {
		for (uint32_t k = 0; k < n && !ret; k++) {
			uint32_t c = w32[k];
			uint64_t key;

			if (c & EXM_PC_PRESENT) {
				key = c & EXM_PC_PFN_MAX;
				if (part_in(key, pfn->nparts) == part)
					ret = add_in(pp, pfn->shift, key, owner,
						     times);
			} else if (c & EXM_PC_SWAPPED) {
				key = c & EXM_PC_SWAP_MAX;
				if (part_in(key, swp->nparts) == part)
					ret = add_in(sp, swp->shift, key, owner,
						     times);
			}
		}
		return ret;
	}
	for (uint32_t k = 0; k < n && !ret; k++) {
		uint64_t w = w64[k], key = exm_pm_key(w);

		if (exm_pm_resident(w)) { /* the zero page is nobody's */
			if (part_in(key, pfn->nparts) == part)
				ret = add_in(pp, pfn->shift, key, owner, times);
		} else if (exm_pm_swapped(w)) {
			if (part_in(key, swp->nparts) == part)
				ret = add_in(sp, swp->shift, key, owner, times);
		}
	}
	return ret;
}

uint32_t exm_pagecount_get(const struct exm_pagecount *pc, uint64_t key,
			   uint32_t *owner)
{
	const void *hint = NULL;

	return exm_pagecount_get_hint(pc, key, owner, &hint);
}

uint32_t exm_pagecount_get_slow(const struct exm_pagecount *pcs, uint64_t key,
				uint32_t *owner, const void **hint)
{
	unsigned off = (unsigned)(key & (GROUP_KEYS - 1));
	const struct chunk *c = *hint;
	const struct part *pt = &pcs->part[part_in(key, pcs->nparts)];
	const struct group *g;

	if (!c || c->base != key >> CHUNK_BITS) {
		c = find_chunk(pt, key >> CHUNK_BITS, pcs->shift);
		if (c)
			*hint = c;
	}
	g = c ? c->grp[(key >> GROUP_BITS) & (EXM_PC_GROUPS - 1)] : NULL;
	if (!g) {
		if (owner)
			*owner = EXM_OWNER_NONE;
		return 0;
	}
	if (owner)
		*owner = g->owner1[off] - 1; /* 0 - 1: EXM_OWNER_NONE */
	if (g->count[off] == COUNT_SPILL)
		return find_spill(pt, key)->count;
	return g->count[off];
}

uint64_t exm_pagecount_distinct(const struct exm_pagecount *pc)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < pc->nparts; k++)
		n += pc->part[k].distinct;
	return n;
}

size_t exm_pagecount_bytes(const struct exm_pagecount *pc)
{
	size_t n = sizeof(*pc);

	for (unsigned k = 0; k < pc->nparts; k++) {
		const struct part *pt = &pc->part[k];

		n += pt->ndir * sizeof(*pt->dir) +
		     pt->nslots * sizeof(*pt->slots) +
		     pt->nchunks * sizeof(struct chunk) +
		     pt->ngroups * sizeof(struct group) +
		     pt->nspills * sizeof(struct spill);
	}
	return n;
}

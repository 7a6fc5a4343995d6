// SPDX-License-Identifier: GPL-2.0-or-later
/* pagecount.c - share counts by PFN or swap entry; see pagecount.h. */
#include "core/pagecount.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 16
#define CHUNK_KEYS (1u << CHUNK_BITS)
#define COUNT_SPILL UINT16_MAX

struct chunk {
	uint64_t base; /* key >> CHUNK_BITS */
	uint16_t count[CHUNK_KEYS];
	uint32_t owner[CHUNK_KEYS];
};

struct spill {
	uint64_t key;
	uint32_t count;
};

struct exm_pagecount {
	struct chunk **slots; /* open addressing by chunk base */
	size_t nslots, nchunks;
	struct chunk *last;   /* locality cache */
	struct spill *spills; /* counts >= COUNT_SPILL, linear (rare) */
	size_t nspills;
	uint64_t distinct;
};

struct exm_pagecount *exm_pagecount_new(void)
{
	struct exm_pagecount *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->nslots = 64;
	pc->slots = calloc(pc->nslots, sizeof(*pc->slots));
	if (!pc->slots) {
		free(pc);
		return NULL;
	}
	return pc;
}

void exm_pagecount_free(struct exm_pagecount *pc)
{
	if (!pc)
		return;
	for (size_t i = 0; i < pc->nslots; i++)
		free(pc->slots[i]);
	free(pc->slots);
	free(pc->spills);
	free(pc);
}

static size_t slot_of(uint64_t base, size_t nslots)
{
	uint64_t h = base * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(h >> 20) & (nslots - 1);
}

static struct chunk *find_chunk(const struct exm_pagecount *pc, uint64_t base)
{
	size_t i = slot_of(base, pc->nslots);

	if (pc->last && pc->last->base == base)
		return pc->last;
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

static struct chunk *new_chunk(struct exm_pagecount *pc, uint64_t base)
{
	struct chunk *c;

	if ((pc->nchunks + 1) * 2 > pc->nslots) {
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
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	c->base = base;
	memset(c->count, 0, sizeof(c->count));
	memset(c->owner, 0xff, sizeof(c->owner)); /* EXM_OWNER_NONE */
	insert_slot(pc->slots, pc->nslots, c);
	pc->nchunks++;
	return c;
}

static struct spill *find_spill(const struct exm_pagecount *pc, uint64_t key)
{
	for (size_t i = 0; i < pc->nspills; i++)
		if (pc->spills[i].key == key)
			return &pc->spills[i];
	return NULL;
}

int exm_pagecount_add(struct exm_pagecount *pc, uint64_t key, uint32_t owner)
{
	uint64_t base = key >> CHUNK_BITS;
	unsigned off = (unsigned)(key & (CHUNK_KEYS - 1));
	struct chunk *c = find_chunk(pc, base);

	if (!c) {
		c = new_chunk(pc, base);
		if (!c)
			return -ENOMEM;
	}
	pc->last = c;
	if (c->count[off] == 0)
		pc->distinct++;
	if (c->owner[off] == EXM_OWNER_NONE)
		c->owner[off] = owner;
	else if (c->owner[off] != owner)
		c->owner[off] = EXM_OWNER_MANY;

	if (c->count[off] < COUNT_SPILL - 1) {
		c->count[off]++;
		return 0;
	}
	if (c->count[off] == COUNT_SPILL - 1) {
		struct spill *ns;

		ns = realloc(pc->spills, (pc->nspills + 1) * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		pc->spills = ns;
		ns[pc->nspills].key = key;
		ns[pc->nspills].count = COUNT_SPILL;
		pc->nspills++;
		c->count[off] = COUNT_SPILL;
		return 0;
	}
	find_spill(pc, key)->count++;
	return 0;
}

uint32_t exm_pagecount_get(const struct exm_pagecount *pc, uint64_t key,
			   uint32_t *owner)
{
	const void *hint = NULL;

	return exm_pagecount_get_hint(pc, key, owner, &hint);
}

uint32_t exm_pagecount_get_hint(const struct exm_pagecount *pc, uint64_t key,
				uint32_t *owner, const void **hint)
{
	unsigned off = (unsigned)(key & (CHUNK_KEYS - 1));
	const struct chunk *c = *hint;

	if (!c || c->base != key >> CHUNK_BITS) {
		c = find_chunk(pc, key >> CHUNK_BITS);
		*hint = c;
	}

	if (!c) {
		if (owner)
			*owner = EXM_OWNER_NONE;
		return 0;
	}
	if (owner)
		*owner = c->owner[off];
	if (c->count[off] == COUNT_SPILL)
		return find_spill(pc, key)->count;
	return c->count[off];
}

uint64_t exm_pagecount_distinct(const struct exm_pagecount *pc)
{
	return pc->distinct;
}

size_t exm_pagecount_bytes(const struct exm_pagecount *pc)
{
	return sizeof(*pc) + pc->nslots * sizeof(*pc->slots) +
	       pc->nchunks * sizeof(struct chunk) +
	       pc->nspills * sizeof(struct spill);
}

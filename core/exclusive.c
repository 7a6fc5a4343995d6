// SPDX-License-Identifier: GPL-2.0-or-later
/* exclusive.c - exclusive memory of sets of processes; see exclusive.h. */
#include "core/exclusive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pagecount.h"

/*
 * A page mapped more than once by the scan: which set mapped it so far
 * (MANY when two sets, or a member and an outsider, did), how many of its
 * mappings were seen, how many there are. Pages mapped once need no entry.
 */
#define SET_MANY (EXM_SET_NONE - 1)
#define KEY_SWAP (UINT64_C(1) << 63) /* swap keys apart from frames */

struct xent {
	uint64_t key1; /* key + 1 (| KEY_SWAP); 0: empty */
	uint32_t set, seen, cnt;
	uint8_t cat;
};

struct xtab {
	struct xent *e;
	size_t cap, n;
};

static size_t xslot(uint64_t key1, size_t cap)
{
	return (size_t)((key1 * UINT64_C(0x9e3779b97f4a7c15)) >> 17) &
	       (cap - 1);
}

static struct xent *xfind(struct xtab *t, uint64_t key1)
{
	size_t i = xslot(key1, t->cap);

	while (t->e[i].key1 && t->e[i].key1 != key1)
		i = (i + 1) & (t->cap - 1);
	return &t->e[i];
}

static int xgrow(struct xtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 4096;
	struct xent *old = t->e;
	size_t ocap = t->cap;

	t->e = calloc(cap, sizeof(*t->e));
	if (!t->e) {
		t->e = old;
		return -ENOMEM;
	}
	t->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key1)
			*xfind(t, old[i].key1) = old[i];
	free(old);
	return 0;
}

/* One more mapping, by set, of a page mapped cnt times in all. */
static int xadd(struct xtab *t, uint64_t key1, uint32_t set, uint32_t cnt,
		unsigned cat)
{
	struct xent *x;

	if ((t->n + 1) * 2 > t->cap) {
		int ret = xgrow(t);

		if (ret)
			return ret;
	}
	x = xfind(t, key1);
	if (!x->key1) {
		*x = (struct xent){ .key1 = key1,
				    .set = set,
				    .cnt = cnt,
				    .cat = (uint8_t)cat };
		t->n++;
	} else if (x->set != set) {
		x->set = SET_MANY;
	}
	x->seen++;
	return 0;
}

struct xwalk {
	const struct exm_snapshot *snap;
	struct xtab tab;
	struct exm_excl *out;
	const void *hint, *shint;
};

static int walk_word(struct xwalk *x, const struct exm_mapping *m, uint64_t w,
		     uint32_t set)
{
	uint64_t ps = x->snap->sys.page_size;
	bool shmem = m->kind == EXM_KIND_SHMEM;
	uint32_t cnt;
	unsigned cat;

	if (w & EXM_PM_ZERO)
		return 0;
	if (exm_pm_present(w)) {
		cnt = exm_pagecount_get_hint(x->snap->pfn_counts, exm_pm_key(w),
					     NULL, &x->hint);
		cat = exm_excl_cat(w, shmem);
		if (cnt <= 1) {
			if (exm_excl_resident(w, 1))
				x->out[set].bytes[cat] += ps;
			return 0;
		}
		return xadd(&x->tab, exm_pm_key(w) + 1, set, cnt, cat);
	}
	if (!exm_pm_swapped(w))
		return 0;
	cnt = exm_pagecount_get_hint(x->snap->swap_counts, exm_pm_key(w), NULL,
				     &x->shint);
	cat = exm_excl_swap_cat(shmem, (m->perms & EXM_PERM_S) != 0);
	if (cnt <= 1) {
		x->out[set].bytes[cat] += ps;
		return 0;
	}
	return xadd(&x->tab, (exm_pm_key(w) + 1) | KEY_SWAP, set, cnt, cat);
}

int exm_exclusive(const struct exm_snapshot *snap, const uint32_t *set_of,
		  size_t nsets, struct exm_excl *out)
{
	struct xwalk x = { .snap = snap, .out = out };
	int ret = 0;

	memset(out, 0, nsets * sizeof(*out));
	if (!(snap->sys.caps & EXM_CAP_PFN) || !snap->pfn_counts ||
	    !snap->swap_counts)
		return -EOPNOTSUPP;
	for (size_t i = 0; !ret && i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];
		uint32_t set = set_of[i];

		if (set >= nsets || p->state == EXM_PROC_DENIED)
			continue;
		out[set].nprocs++;
		for (size_t j = 0; !ret && j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];

			if (m->hugetlb)
				continue;
			/* counted pages: mapped once, anonymous, private */
			if (m->counted)
				out[set].bytes[EXM_EXCL_FREED] +=
					m->counted_rss + m->counted_swap;
			for (uint32_t k = 0; !ret && k < m->npages; k++)
				ret = walk_word(&x, m, exm_mapping_word(m, k),
						set);
		}
	}
	for (size_t i = 0; !ret && i < x.tab.cap; i++) {
		const struct xent *e = &x.tab.e[i];

		if (e->key1 && e->set < nsets && e->seen == e->cnt)
			out[e->set].bytes[e->cat] += snap->sys.page_size;
	}
	free(x.tab.e);
	return ret;
}

void exm_excl_store(const struct exm_excl *e, struct exm_sizes *s)
{
	s->freed = e->bytes[EXM_EXCL_FREED];
	s->cached = e->bytes[EXM_EXCL_CACHED];
	s->shmem_excl = e->bytes[EXM_EXCL_SHMEM];
	s->has |= EXM_HAS_EXCL;
}

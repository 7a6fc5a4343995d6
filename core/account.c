// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * account.c - sizes from a filled snapshot; see account.h and DESIGN.md
 * section 3.
 *
 * Effective sizes are summed exactly per sharer count and divided once
 * per range (see struct acc), so Σ erss over processes equals distinct
 * pages x page size far within a byte.
 */
#include "core/account.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/exclusive.h"
#include "core/pagecount.h"
#include "core/pagemap.h"
#include "core/parallel.h"

/*
 * Effective sizes are kept exact: bytes are summed per sharer count c in
 * integers (ebytes[c]) and divided once when stored; only pages with more
 * than ACC_EXACT sharers are divided one by one (in long double).
 */
#define ACC_EXACT 64

struct acc {
	uint64_t vm, rss, swap, sole, writable, zero, hugetlb;
	uint64_t ebytes[ACC_EXACT + 1], sbytes[ACC_EXACT + 1];
	uint64_t hbytes[ACC_EXACT + 1];
	long double erss_big, eswap_big, ehuge_big;
	uint64_t ksm, kbytes[ACC_EXACT + 1]; /* KSM pages: resident, shares */
	long double eksm_big;
	bool unknown; /* cut a counted mapping: only vm is known */
	/* exclusive to the process (EXM_EXCL_*): pages mapped once, and
	 * shares of pages it alone maps several times */
	uint64_t excl[EXM_EXCL__COUNT];
	long double excl_big[EXM_EXCL__COUNT];
};

static void acc_eff(uint64_t *bytes, long double *big, uint64_t b, uint32_t cnt)
{
	if (cnt <= ACC_EXACT)
		bytes[cnt] += b;
	else
		*big += (long double)b / cnt;
}

static long double acc_sum(const uint64_t *bytes, long double big)
{
	long double sum = big;

	/* most counts have no bytes: eight passed over at once */
	for (unsigned c0 = 1; c0 <= ACC_EXACT; c0 += 8) {
		uint64_t any = 0;

#pragma GCC unroll 8
		for (unsigned c = c0; c < c0 + 8; c++)
			any |= bytes[c];
		for (unsigned c = c0; any && c < c0 + 8; c++)
			if (bytes[c])
				sum += (long double)bytes[c] / c;
	}
	return sum;
}

/* What acc_page needs to know about the mapping, worked out once. */
struct acc_ctx {
	const struct exm_snapshot *snap;
	uint32_t index; /* the process's number (exclusive: only owner) */
	bool pte_wr;	/* words carry EXM_PM_WRITABLE (module) */
	bool priv_wr;	/* writable private mapping */
	bool huge;	/* a hugetlb mapping */
	bool shmem;	/* a shared memory mapping (EXM_KIND_SHMEM) */
	bool shared;	/* MAP_SHARED */
	/* writable: (w & wr_mask) == wr_want; the same for packed words */
	uint64_t wr_mask, wr_want;
	uint32_t pwr_mask, pwr_want;
	const void *hint, *shint;
};

/* Whether a resident page whose only scanned mapper is owner counts as the
 * process's exclusive memory (may: exm_excl_resident says it can be). */
static inline bool own_page(const struct acc_ctx *x, uint32_t owner, bool may)
{
	return owner == x->index && may;
}

/* b bytes of a page that only this process maps, cnt times. */
static inline void acc_excl(struct acc *a, unsigned cat, uint64_t b,
			    uint32_t cnt)
{
	if (cnt <= 1)
		a->excl[cat] += b;
	else
		a->excl_big[cat] += (long double)b / cnt;
}

/*
 * Writable: from the PTE when the source knows it; else the pagemap
 * approximation: anonymous, exclusive, in a writable private mapping (a
 * CoW-shared page has a read-only PTE). Worked out once a mapping as a
 * mask and the bits wanted under it (EXM_PM_PRESENT, in no mask: never),
 * for words and for packed words alike.
 */
static void writable_test(struct acc_ctx *x)
{
	uint32_t mask, want;

	x->wr_mask = EXM_PM_FILE | EXM_PM_EXCLUSIVE;
	x->wr_want = x->priv_wr ? EXM_PM_EXCLUSIVE : EXM_PM_PRESENT;
	if (x->pte_wr) {
		x->wr_mask = EXM_PM_WRITABLE;
		x->wr_want = EXM_PM_WRITABLE;
	}
	exm_pm_pack(x->wr_mask | EXM_PM_PRESENT, &mask);
	exm_pm_pack(x->wr_want | EXM_PM_PRESENT, &want);
	x->pwr_mask = mask & ~EXM_PC_PRESENT;
	x->pwr_want = x->wr_want & EXM_PM_PRESENT ? want
						  : want & ~EXM_PC_PRESENT;
}

static inline bool page_writable(const struct acc_ctx *x, uint64_t w)
{
	return (w & x->wr_mask) == x->wr_want;
}

/* Add b bytes of the page whose word is w. */
static inline void acc_page(struct acc_ctx *x, struct acc *a, uint64_t w,
			    uint64_t b)
{
	uint32_t owner, cnt;

	if (w & EXM_PM_ZERO) { /* mapped, not resident (nor shared) */
		a->zero += b;
	} else if (x->huge && exm_pm_present(w)) {
		/* hugetlb: not resident either, shared in its own count */
		cnt = exm_pagecount_get_hint(x->snap->huge_counts,
					     exm_pm_key(w), NULL, &x->hint);
		a->hugetlb += b;
		acc_eff(a->hbytes, &a->ehuge_big, b, cnt ? cnt : 1);
	} else if (exm_pm_present(w)) {
		cnt = exm_pagecount_get_hint(x->snap->pfn_counts, exm_pm_key(w),
					     &owner, &x->hint);
		if (!cnt)
			cnt = 1;
		a->rss += b;
		acc_eff(a->ebytes, &a->erss_big, b, cnt);
		/* sole: mapped once, as the kernel's USS (see DESIGN.md) */
		if (cnt == 1)
			a->sole += b;
		/* exclusive: no other scanned process maps it (FREED...) */
		if (own_page(x, owner, exm_excl_resident(w, cnt)))
			acc_excl(a, exm_excl_cat(w, x->shmem), b, cnt);
		if (page_writable(x, w))
			a->writable += b;
		if (w & EXM_PM_KSM) {
			a->ksm += b;
			acc_eff(a->kbytes, &a->eksm_big, b, cnt);
		}
	} else if (exm_pm_swapped(w)) {
		cnt = exm_pagecount_get_hint(x->snap->swap_counts,
					     exm_pm_key(w), &owner, &x->shint);
		if (!cnt)
			cnt = 1;
		a->swap += b;
		if (owner == x->index)
			acc_excl(a, exm_excl_swap_cat(x->shmem, x->shared), b,
				 cnt);
		acc_eff(a->sbytes, &a->eswap_big, b, cnt);
	}
}

/*
 * acc_page for whole pages of packed words c[0..n) (see pagemap.h: no zero
 * page, no KSM page) of a mapping that is not hugetlb, read as they are:
 * the same sums, the counts of bytes added once at the end (whole pages
 * of ps bytes each), the shares and exclusive parts page by page in the
 * same order.
 */
static void acc_packed(struct acc_ctx *x, struct acc *a, const uint32_t *c,
		       uint32_t n, uint64_t ps)
{
	const struct exm_pagecount *pfn = x->snap->pfn_counts;
	const struct exm_pagecount *swp = x->snap->swap_counts;
	unsigned file_cat = x->shmem ? EXM_EXCL_SHMEM : EXM_EXCL_CACHED;
	unsigned swap_cat = exm_excl_swap_cat(x->shmem, x->shared);
	uint64_t rss = 0, sole = 0, wr = 0, swap = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t w = c[k], owner, cnt;

		if (w & EXM_PC_PRESENT) {
			cnt = exm_pagecount_get_hint(pfn, w & EXM_PC_PFN_MAX,
						     &owner, &x->hint);
			if (!cnt)
				cnt = 1;
			rss++;
			acc_eff(a->ebytes, &a->erss_big, ps, cnt);
			sole += cnt == 1;
			if (own_page(x, owner, cnt > 1 || (w & EXM_PC_EXCL)))
				acc_excl(a,
					 w & EXM_PC_FILE ? file_cat
							 : EXM_EXCL_FREED,
					 ps, cnt);
			wr += (w & x->pwr_mask) == x->pwr_want;
		} else if (w & EXM_PC_SWAPPED) {
			cnt = exm_pagecount_get_hint(swp, w & EXM_PC_SWAP_MAX,
						     &owner, &x->shint);
			if (!cnt)
				cnt = 1;
			swap++;
			if (owner == x->index)
				acc_excl(a, swap_cat, ps, cnt);
			acc_eff(a->sbytes, &a->eswap_big, ps, cnt);
		}
	}
	a->rss += rss * ps;
	a->sole += sole * ps;
	a->writable += wr * ps;
	a->swap += swap * ps;
}

/*
 * The pages of a counted mapping (exm_mapping.counted): each mapped once
 * in the whole system, so a whole share, sole, and (anonymous, exclusive)
 * writable in a writable private mapping, as acc_page would count its
 * word. Where they lie is not known: a range that cuts the mapping
 * knows only its VM.
 */
static void acc_counted(const struct exm_mapping *m, uint64_t start,
			uint64_t end, struct acc *a)
{
	if (start != m->start || end != m->end) {
		a->unknown = true;
		return;
	}
	a->rss += m->counted_rss;
	a->ebytes[1] += m->counted_rss;
	a->sole += m->counted_rss;
	if ((m->perms & EXM_PERM_W) && !(m->perms & EXM_PERM_S))
		a->writable += m->counted_rss;
	a->swap += m->counted_swap;
	a->sbytes[1] += m->counted_swap;
	/* mapped once, anonymous and private: freed when the process exits */
	a->excl[EXM_EXCL_FREED] += m->counted_rss + m->counted_swap;
}

/* Add the bytes [start, end) of mapping m (already clamped to it). */
static void acc_mapping(const struct exm_snapshot *snap,
			const struct exm_proc *p, const struct exm_mapping *m,
			uint64_t start, uint64_t end, struct acc *a)
{
	uint64_t ps = snap->sys.page_size;
	uint64_t svpn = start / ps, evpn = (end + ps - 1) / ps;
	uint32_t lo = 0, hi = m->nruns;
	struct acc_ctx x = {
		.snap = snap,
		.index = p->index,
		.pte_wr = (snap->sys.caps & EXM_CAP_PTE_WRITABLE) != 0,
		.priv_wr = (m->perms & EXM_PERM_W) && !(m->perms & EXM_PERM_S),
		.huge = m->hugetlb,
		.shmem = m->kind == EXM_KIND_SHMEM,
		.shared = (m->perms & EXM_PERM_S) != 0,
	};

	writable_test(&x);

	a->vm += end - start;
	if (m->counted)
		acc_counted(m, start, end, a);
	if (!m->nruns || start >= end)
		return;
	/* First run whose last page is >= svpn. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct exm_run *r = &m->runs[mid];

		if (r->vpn + r->count <= svpn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t ri = lo; ri < m->nruns; ri++) {
		const struct exm_run *r = &m->runs[ri];
		uint64_t v0 = r->vpn > svpn ? r->vpn : svpn;
		uint64_t v1 = r->vpn + r->count < evpn ? r->vpn + r->count
						       : evpn;
		uint32_t k0 = r->idx + (uint32_t)(v0 - r->vpn);

		if (r->vpn >= evpn)
			break;
		if (v0 * ps >= start && v1 * ps <= end) {
			/* whole pages: the common case */
			if (m->pages32 && !x.huge) {
				acc_packed(&x, a, m->pages32 + k0,
					   (uint32_t)(v1 - v0), ps);
				continue;
			}
			for (uint32_t k = k0; k < k0 + (v1 - v0); k++)
				acc_page(&x, a, exm_mapping_word(m, k), ps);
			continue;
		}
		for (uint64_t v = v0; v < v1; v++) {
			uint64_t pa = v * ps, pb = pa + ps;

			if (pa < start)
				pa = start;
			if (pb > end)
				pb = end;
			acc_page(&x, a,
				 exm_mapping_word(m, k0 + (uint32_t)(v - v0)),
				 pb - pa);
		}
	}
}

static unsigned page_has(const struct exm_snapshot *snap)
{
	unsigned has = EXM_HAS_VM | EXM_HAS_RSS | EXM_HAS_ERSS | EXM_HAS_SWAP |
		       EXM_HAS_ESWAP | EXM_HAS_SOLE | EXM_HAS_ZERO |
		       EXM_HAS_HUGETLB | EXM_HAS_EHUGETLB;

	if (snap->sys.caps & EXM_CAP_WRITABLE)
		has |= EXM_HAS_WRITABLE;
	if (snap->sys.caps & EXM_CAP_KSM)
		has |= EXM_HAS_KSM;
	if (snap->sys.caps & EXM_CAP_PFN)
		has |= EXM_HAS_EXCL;
	return has;
}

static void acc_store(const struct exm_snapshot *snap, const struct acc *a,
		      struct exm_sizes *out)
{
	out->vm = a->vm;
	out->rss = a->rss;
	out->swap = a->swap;
	out->sole = a->sole;
	out->writable = a->writable;
	out->zero = a->zero;
	out->hugetlb = a->hugetlb;
	out->erss = (double)acc_sum(a->ebytes, a->erss_big);
	out->eswap = (double)acc_sum(a->sbytes, a->eswap_big);
	out->ehugetlb = (double)acc_sum(a->hbytes, a->ehuge_big);
	out->ksm = a->ksm;
	out->eksm = (double)acc_sum(a->kbytes, a->eksm_big);
	out->freed = a->excl[EXM_EXCL_FREED] +
		     (uint64_t)llroundl(a->excl_big[EXM_EXCL_FREED]);
	out->cached = a->excl[EXM_EXCL_CACHED] +
		      (uint64_t)llroundl(a->excl_big[EXM_EXCL_CACHED]);
	out->shmem_excl = a->excl[EXM_EXCL_SHMEM] +
			  (uint64_t)llroundl(a->excl_big[EXM_EXCL_SHMEM]);
	out->has = a->unknown ? EXM_HAS_VM : page_has(snap);
}

int exm_range_sizes(const struct exm_snapshot *snap, const struct exm_proc *p,
		    const struct exm_mapping *m, uint64_t start, uint64_t end,
		    struct exm_sizes *out)
{
	struct acc a = { 0 };
	size_t i = 0, n = p->nmaps;

	memset(out, 0, sizeof(*out));
	if (m) {
		i = (size_t)(m - p->maps);
		n = i + 1;
	} else {
		size_t lo = 0, hi = p->nmaps;

		while (lo < hi) { /* first mapping ending after start */
			size_t mid = lo + (hi - lo) / 2;

			if (p->maps[mid].end <= start)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	}
	for (; i < n; i++) {
		const struct exm_mapping *mm = &p->maps[i];
		uint64_t s = start > mm->start ? start : mm->start;
		uint64_t e = end < mm->end ? end : mm->end;

		if (mm->start >= end)
			break;
		if (s < e)
			acc_mapping(snap, p, mm, s, e, &a);
	}
	acc_store(snap, &a, out);
	if (!(snap->sys.caps & EXM_CAP_PAGES))
		out->has = EXM_HAS_VM;
	return 0;
}

/* ---- files ---- */

struct fkey_table {
	struct exm_file **slots;
	size_t nslots;
};

static uint64_t hash_str(const char *s, uint64_t h)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * UINT64_C(0x100000001b3);
	return h;
}

static bool keyed_by_inode(const struct exm_mapping *m)
{
	return m->inode &&
	       (m->kind == EXM_KIND_FILE || m->kind == EXM_KIND_SHMEM ||
		m->kind == EXM_KIND_DEVICE);
}

static uint64_t file_hash(const struct exm_mapping *m, const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	if (keyed_by_inode(m)) {
		h ^= m->inode * UINT64_C(0x9e3779b97f4a7c15);
		h ^= ((uint64_t)m->dev_major << 32 | m->dev_minor) *
		     UINT64_C(0xc2b2ae3d27d4eb4f);
		return h;
	}
	return hash_str(name, h ^ (uint64_t)m->kind);
}

static bool file_match(const struct exm_file *f, const struct exm_mapping *m,
		       const char *name)
{
	if (keyed_by_inode(m))
		return f->inode == m->inode && f->dev_major == m->dev_major &&
		       f->dev_minor == m->dev_minor &&
		       (f->kind == EXM_KIND_FILE || f->kind == EXM_KIND_SHMEM ||
			f->kind == EXM_KIND_DEVICE);
	return f->inode == 0 && f->kind == m->kind && !strcmp(f->name, name);
}

/* Display name of what m maps: the path (with " (deleted)"), or
 * "[anon]" for an unnamed anonymous mapping. Writes into buf. */
static const char *file_name(const struct exm_mapping *m, char *buf, size_t len,
			     bool *alloc)
{
	*alloc = false;
	if (m->name[0] == '\0')
		return m->kind == EXM_KIND_SHMEM ? "[shmem]" : "[anon]";
	if (m->deleted) {
		size_t n = strlen(m->name) + sizeof(" (deleted)");
		char *s = n <= len ? buf : malloc(n);

		if (!s)
			return NULL;
		*alloc = s != buf;
		strcpy(s, m->name);
		strcat(s, " (deleted)");
		return s;
	}
	return m->name;
}

static struct exm_file *file_lookup(struct exm_snapshot *snap,
				    struct fkey_table *t,
				    const struct exm_mapping *m)
{
	char buf[512];
	bool alloc;
	const char *name = file_name(m, buf, sizeof(buf), &alloc);
	size_t i;
	struct exm_file *f = NULL;

	if (!name)
		return NULL;
	if ((snap->nfiles + 1) * 2 > t->nslots) {
		size_t n = t->nslots ? t->nslots * 2 : 256;
		struct exm_file **ns = calloc(n, sizeof(*ns));

		if (!ns)
			goto out;
		for (size_t k = 0; k < snap->nfiles; k++) {
			struct exm_file *g = snap->files[k];
			struct exm_mapping probe = {
				.inode = g->inode,
				.dev_major = g->dev_major,
				.dev_minor = g->dev_minor,
				.kind = g->kind,
			};
			size_t j = file_hash(&probe, g->name) & (n - 1);

			while (ns[j])
				j = (j + 1) & (n - 1);
			ns[j] = g;
		}
		free(t->slots);
		t->slots = ns;
		t->nslots = n;
	}
	i = file_hash(m, name) & (t->nslots - 1);
	while (t->slots[i]) {
		if (file_match(t->slots[i], m, name)) {
			f = t->slots[i];
			goto out;
		}
		i = (i + 1) & (t->nslots - 1);
	}
	if (snap->nfiles % 256 == 0) {
		struct exm_file **nf = realloc(snap->files,
					       (snap->nfiles + 256) *
						       sizeof(*nf));

		if (!nf)
			goto out;
		snap->files = nf;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		goto out;
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		f = NULL;
		goto out;
	}
	f->kind = m->kind;
	f->build_id = m->build_id; /* recorded: lives with the mapping */
	f->build_id_len = m->build_id_len;
	if (keyed_by_inode(m)) {
		f->inode = m->inode;
		f->dev_major = m->dev_major;
		f->dev_minor = m->dev_minor;
	}
	f->index = (uint32_t)snap->nfiles;
	snap->files[snap->nfiles++] = f;
	t->slots[i] = f;
out:
	if (alloc)
		free((char *)name);
	return f;
}

/*
 * Identical mappings. Processes forked from one parent, or running the
 * same program, often hold mappings whose page words are the very same
 * (the same shared memory, the same resident library pages): such a
 * mapping's words are counted once, times the number of copies, and its
 * sizes computed once and copied. Exact: same words and same permissions
 * give the same sizes; with two or more copies every page is mapped more
 * than once (sole is 0 for all).
 */
struct twin {
	const struct exm_proc *p; /* the first mapping with these words */
	struct exm_mapping *m;
	uint32_t copies;
	uint32_t owner; /* process index of every copy, or EXM_OWNER_MANY */
	bool sized;	/* a copy has no kept sizes: sized again */
};

struct mref {
	uint32_t proc, map;
};

struct plan {
	struct exm_snapshot *snap;
	/* by process: the sizes of its mappings kept from the last refresh,
	 * or NULL (exm_snapshot_account_kept) */
	const struct exm_sizes *const *kept;
	size_t nall;	  /* mappings in all, numbered in order */
	struct mref *ref; /* by number */
	uint64_t *key;	  /* by number: words_key() */
	uint32_t *gid;	  /* by number: twin, or NO_TWIN (no pages) */
	struct twin *twins;
	size_t ntwins;
	size_t next; /* work taken by the threads */
	int ret[EXM_MAX_THREADS];
};

#define NO_TWIN UINT32_MAX

static bool priv_writable(const struct exm_mapping *m)
{
	return (m->perms & EXM_PERM_W) && !(m->perms & EXM_PERM_S);
}

/*
 * A key for finding twins: the length and 16 words spread over the array
 * (cheap: most mappings have no twin). Candidates with the same key are
 * compared whole, at most MAX_TRIES of them per mapping, so crafted
 * mappings that agree on the samples only cost a bounded number of
 * comparisons; past MAX_SAME mappings with one key, more are not indexed
 * (a twin not found is merely sized on its own).
 */
#define MAX_TRIES 4
#define MAX_SAME 16 /* mappings with one key kept in the index */

static uint64_t words_key(const struct exm_mapping *m)
{
	return exm_mapping_words_key(m) ^ ((uint64_t)priv_writable(m) << 63);
}

static bool same_words(const struct exm_mapping *a, const struct exm_mapping *b)
{
	return priv_writable(a) == priv_writable(b) &&
	       exm_mapping_same_words(a, b);
}

static struct exm_mapping *plan_map(const struct plan *pl, size_t g)
{
	return &pl->snap->procs[pl->ref[g].proc].maps[pl->ref[g].map];
}

static int plan_twins(struct plan *pl)
{
	struct exm_snapshot *snap = pl->snap;
	size_t nslots = 64, g = 0;
	uint32_t *slots;

	for (size_t i = 0; i < snap->nprocs; i++)
		pl->nall += snap->procs[i].nmaps;
	pl->ref = malloc((pl->nall + 1) * sizeof(*pl->ref));
	pl->key = calloc(pl->nall + 1, sizeof(*pl->key));
	pl->gid = malloc((pl->nall + 1) * sizeof(*pl->gid));
	pl->twins = malloc((pl->nall + 1) * sizeof(*pl->twins));
	while (nslots < pl->nall * 2)
		nslots *= 2;
	slots = malloc(nslots * sizeof(*slots));
	if (!pl->ref || !pl->key || !pl->gid || !pl->twins || !slots) {
		free(slots);
		return -ENOMEM;
	}
	memset(slots, 0xff, nslots * sizeof(*slots));
	for (size_t i = 0; i < snap->nprocs; i++) {
		struct exm_proc *p = &snap->procs[i];
		for (size_t j = 0; j < p->nmaps; j++, g++) {
			struct exm_mapping *m = &p->maps[j];
			unsigned tries = 0, same = 0;
			bool kept = pl->kept && pl->kept[i] &&
				    pl->kept[i][j].has;
			size_t k;

			pl->ref[g] = (struct mref){ (uint32_t)i, (uint32_t)j };
			pl->gid[g] = NO_TWIN;
			if (!m->npages || p->state == EXM_PROC_DENIED)
				continue;
			if (m->counted) { /* its counts are its own: no twin */
				pl->gid[g] = (uint32_t)pl->ntwins;
				pl->twins[pl->ntwins++] = (struct twin){
					.p = p,
					.m = m,
					.copies = 1,
					.owner = p->index,
					.sized = !kept,
				};
				continue;
			}
			pl->key[g] = words_key(m);
			for (k = pl->key[g] & (nslots - 1);
			     slots[k] != UINT32_MAX;
			     k = (k + 1) & (nslots - 1)) {
				size_t e = slots[k];

				if (pl->key[e] != pl->key[g])
					continue;
				if (++same > MAX_SAME)
					break; /* not indexed: bounded work */
				if (tries++ < MAX_TRIES &&
				    same_words(plan_map(pl, e), m))
					break;
			}
			if (slots[k] == UINT32_MAX || same > MAX_SAME) {
				if (slots[k] == UINT32_MAX)
					slots[k] = (uint32_t)g;
				pl->gid[g] = (uint32_t)pl->ntwins;
				pl->twins[pl->ntwins++] = (struct twin){
					.p = p,
					.m = m,
					.copies = 1,
					.owner = p->index,
					.sized = !kept,
				};
			} else {
				struct twin *tw;

				pl->gid[g] = pl->gid[slots[k]];
				tw = &pl->twins[pl->gid[g]];
				tw->copies++;
				if (tw->owner != p->index)
					tw->owner = EXM_OWNER_MANY;
				tw->sized |= !kept;
			}
		}
	}
	free(slots);
	return 0;
}

static void plan_free(struct plan *pl)
{
	free(pl->ref);
	free(pl->key);
	free(pl->gid);
	free(pl->twins);
}

/*
 * Pass 1: count every page word by PFN and by swap entry, each distinct
 * word array once with its number of copies. The tables are split by key
 * into one partition per thread; each thread reads every word and adds
 * those of its own partition, so no two threads write the same memory.
 */
static void collate_part(void *arg, unsigned t, unsigned n)
{
	struct plan *pl = arg;
	struct exm_snapshot *snap = pl->snap;
	struct exm_pagecount *pfn = snap->pfn_counts, *swp = snap->swap_counts;

	if (t >= exm_pagecount_nparts(pfn)) /* more threads than parts */
		return;
	for (size_t i = 0; i < pl->ntwins; i++) {
		const struct twin *tw = &pl->twins[i];
		/* hugetlb frames are counted apart: not resident */
		int ret = exm_pagecount_add_words(tw->m->hugetlb
							  ? snap->huge_counts
							  : pfn,
						  swp, t, tw->m->pages,
						  tw->m->pages32, tw->m->npages,
						  tw->owner, tw->copies);

		if (ret) {
			pl->ret[t] = ret;
			return;
		}
	}
	(void)n;
}

static int count_words(struct plan *pl, uint64_t nwords, unsigned nthreads)
{
	struct exm_snapshot *snap = pl->snap;

	snap->pfn_counts = exm_pagecount_new_parts(nthreads);
	snap->swap_counts = exm_pagecount_new_parts(nthreads);
	snap->huge_counts = exm_pagecount_new_parts(nthreads);
	if (!snap->pfn_counts || !snap->swap_counts || !snap->huge_counts)
		return -ENOMEM;
	exm_pagecount_expect(snap->pfn_counts, nwords);
	exm_parallel(exm_pagecount_nparts(snap->pfn_counts), collate_part, pl);
	for (unsigned t = 0; t < EXM_MAX_THREADS; t++)
		if (pl->ret[t])
			return pl->ret[t];
	return 0;
}

/* The share tables, unless given (exm_reuse: tables counted for the very
 * same words, see exm_snapshot_account_kept), and the distinct counts. */
static int collate(struct plan *pl, uint64_t nwords, unsigned nthreads)
{
	struct exm_snapshot *snap = pl->snap;

	if (!snap->pfn_counts || !snap->swap_counts || !snap->huge_counts) {
		int ret = count_words(pl, nwords, nthreads);

		if (ret)
			return ret;
	}
	snap->distinct_pages = exm_pagecount_distinct(snap->pfn_counts);
	snap->distinct_swap = exm_pagecount_distinct(snap->swap_counts);
	/* counted pages: each a frame (swap entry) no other page maps */
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; p->state != EXM_PROC_DENIED && j < p->nmaps;
		     j++)
			if (p->maps[j].counted) {
				snap->distinct_pages += p->maps[j].counted_rss /
							snap->sys.page_size;
				snap->distinct_swap += p->maps[j].counted_swap /
						       snap->sys.page_size;
			}
	}
	snap->distinct_hugetlb = exm_pagecount_distinct(snap->huge_counts);
	return 0;
}

/* Pass 2: the sizes of each distinct word array, taken in turn by the
 * threads (the share tables are only read now). */
static void size_twins(void *arg, unsigned t, unsigned n)
{
	struct plan *pl = arg;

	for (;;) {
		size_t i = __atomic_fetch_add(&pl->next, 1, __ATOMIC_RELAXED);
		struct twin *tw;
		struct acc a = { 0 };

		if (i >= pl->ntwins)
			break;
		tw = &pl->twins[i];
		if (!tw->sized)
			continue; /* every copy keeps its sizes */
		acc_mapping(pl->snap, tw->p, tw->m, tw->m->start, tw->m->end,
			    &a);
		acc_store(pl->snap, &a, &tw->m->sz);
	}
	(void)t;
	(void)n;
}

/* Every mapping's sizes: its twin's, with its own length; or, without
 * page words, its length and its counted pages (acc_counted). */
static void size_all(struct plan *pl)
{
	for (size_t g = 0; g < pl->nall; g++) {
		struct exm_mapping *m = plan_map(pl, g);
		const struct twin *tw;

		if (pl->gid[g] == NO_TWIN) {
			struct acc a = { 0 };

			const struct exm_proc *p =
				&pl->snap->procs[pl->ref[g].proc];

			if (p->state == EXM_PROC_DENIED)
				continue;
			acc_mapping(pl->snap, p, m, m->start, m->end, &a);
			acc_store(pl->snap, &a, &m->sz);
			continue;
		}
		tw = &pl->twins[pl->gid[g]];
		if (!tw->sized)
			m->sz = pl->kept[pl->ref[g].proc][pl->ref[g].map];
		else if (tw->m != m) {
			m->sz = tw->m->sz;
			m->sz.vm = m->end - m->start;
		}
	}
}

/* Distinct page words below which the two passes stay on one thread: at
 * some 10 ns a word, a second thread would save under 5 ms. */
#define THREAD_MIN_WORDS ((size_t)1 << 20)

static int account_pages(struct exm_snapshot *snap,
			 const struct exm_sizes *const *kept)
{
	struct plan pl = { .snap = snap, .kept = kept };
	uint64_t nwords = 0; /* present ones: swap is rarely big */
	unsigned nt;
	int ret = plan_twins(&pl);

	for (size_t i = 0; !ret && i < pl.ntwins; i++)
		nwords += pl.twins[i].m->npages;
	nt = exm_thread_count(exm_threads_fixed() ? SIZE_MAX : (size_t)nwords,
			      THREAD_MIN_WORDS);
	if (!ret)
		ret = collate(&pl, nwords, nt);
	if (!ret) {
		pl.next = 0;
		exm_parallel(nt, size_twins, &pl);
		size_all(&pl);
	}
	plan_free(&pl);
	return ret;
}

/* Per-process file breakdown; scratch[f->index] is the pfile slot + 1 of
 * the current process, reset after each process. */
static int breakdown(struct exm_snapshot *snap, struct fkey_table *t,
		     struct exm_proc *p, uint32_t **scratch, size_t *nscratch)
{
	for (size_t j = 0; j < p->nmaps; j++) {
		struct exm_mapping *m = &p->maps[j];
		struct exm_file *f = file_lookup(snap, t, m);
		struct exm_pfile *pf;

		if (!f)
			return -ENOMEM;
		m->file = f;
		if (snap->nfiles > *nscratch) {
			size_t n = snap->nfiles * 2;
			uint32_t *ns = realloc(*scratch, n * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			memset(ns + *nscratch, 0,
			       (n - *nscratch) * sizeof(*ns));
			*scratch = ns;
			*nscratch = n;
		}
		if (!(*scratch)[f->index]) {
			pf = realloc(p->pfiles, (p->npfiles + 1) * sizeof(*pf));
			if (!pf)
				return -ENOMEM;
			p->pfiles = pf;
			pf = &p->pfiles[p->npfiles++];
			memset(pf, 0, sizeof(*pf));
			pf->file = f;
			(*scratch)[f->index] = (uint32_t)p->npfiles;
			f->nprocs++;
		}
		pf = &p->pfiles[(*scratch)[f->index] - 1];
		pf->nmaps++;
		exm_sizes_add(&pf->sz, &m->sz);
		exm_sizes_add(&f->sz, &m->sz);
	}
	for (size_t k = 0; k < p->npfiles; k++)
		(*scratch)[p->pfiles[k].file->index] = 0;
	return 0;
}

int exm_snapshot_account_kept(struct exm_snapshot *snap,
			      const struct exm_sizes *const *kept)
{
	struct fkey_table t = { 0 };
	uint32_t *scratch = NULL;
	size_t nscratch = 0;
	bool pages = snap->sys.caps & EXM_CAP_PAGES;
	int ret = 0;

	if (snap->accounted)
		return 0;
	if (pages) {
		ret = account_pages(snap, kept);
		if (ret)
			return ret;
	}
	memset(&snap->total, 0, sizeof(snap->total));
	for (size_t i = 0; i < snap->nprocs; i++) {
		struct exm_proc *p = &snap->procs[i];

		if (p->state == EXM_PROC_DENIED)
			continue; /* statm figures only; not in totals */
		memset(&p->sz, 0, sizeof(p->sz));
		for (size_t j = 0; j < p->nmaps; j++)
			exm_sizes_add(&p->sz, &p->maps[j].sz);
		if (!p->nmaps)
			p->sz.has = pages ? page_has(snap) : EXM_HAS_VM;
		ret = breakdown(snap, &t, p, &scratch, &nscratch);
		if (ret)
			goto out;
		exm_sizes_add(&snap->total, &p->sz);
	}
	snap->accounted = true;
out:
	free(scratch);
	free(t.slots);
	return ret;
}

int exm_snapshot_account(struct exm_snapshot *snap)
{
	return exm_snapshot_account_kept(snap, NULL);
}

const struct exm_pfile *exm_proc_find_pfile(const struct exm_proc *p,
					    const struct exm_file *f)
{
	for (size_t i = 0; i < p->npfiles; i++)
		if (p->pfiles[i].file == f)
			return &p->pfiles[i];
	return NULL;
}

const struct exm_file *exm_snapshot_find_file(const struct exm_snapshot *snap,
					      const char *name)
{
	for (size_t i = 0; i < snap->nfiles; i++)
		if (!strcmp(snap->files[i]->name, name))
			return snap->files[i];
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * exmap.c - page-table walker for exmtop.
 *
 * /dev/exmap (mode 0600, CAP_SYS_ADMIN to open) answers one ioctl,
 * EXMAP_IOC_SCAN (see exmap_abi.h): walk one process's page tables and
 * return, per run of pages, the frame or swap entry, the PTE's writable
 * and dirty bits and the page's mapcount. One walk gives what pagemap and
 * smaps_rollup give in two, and empty page-table levels cost nothing.
 *
 * Asked to, it also lists the process's mappings as /proc/PID/maps does,
 * under the same lock, so exmtop need not read maps at all.
 *
 * The walk never faults a page in: it only reads page-table entries under
 * mmap_read_lock and the page-table lock (and, in a hugetlb mapping, the
 * file's i_mmap lock). VM_PFNMAP mappings are skipped (no struct page;
 * pagemap shows them as holes too). Every kernel-version difference lives
 * in exmap_compat.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/huge_mm.h>
#include <linux/hugetlb.h>
#include <linux/kdev_t.h>
#include <linux/hugetlb_inline.h>
#include <linux/hashtable.h>
#include <linux/miscdevice.h>
#include <linux/mmap_lock.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>

#include "exmap_abi.h"
#include "exmap_compat.h"

/* Records gathered per call under the locks, then copied out. */
#define EXMAP_KRECS 4096
/* Most mappings and name bytes one call returns (max_map_count is 65530) */
#define EXMAP_KVMAS BIT(20)
#define EXMAP_KNAMES (64u << 20)

/* Per open file: the buffers and the lock that guards them. */
struct exmap_file {
	struct mutex lock; /* one call at a time uses the buffers */
	struct exmap_rec *recs;
	struct exmap_vma *vmas; /* room for nvmas, grown on demand */
	char *names;		/* room for names_len bytes */
	u32 nvmas, names_len;
};

/* One call's walk. */
struct exmap_walk {
	struct mm_struct *mm;
	struct exmap_rec *recs;
	u32 n, cap;
	unsigned long next; /* where to resume when the buffer is full */
	/* a frame found valid in the page table locked now, or 0 */
	unsigned long valid; /* 1 + (pfn >> EXMAP_PFN_VALID_SHIFT) */
	/* the mappings, when asked for: room and what is used */
	struct exmap_vma *vmas;
	char *names;
	u32 nvmas, vcap, names_len, ncap;
	/*
	 * seen: an entry that changes later with no invalidation and no
	 * counter (transient), a read-only page mapped once that a write
	 * fault would reuse, making it writable (reusable)
	 */
	bool transient, reusable;
	bool nowalk; /* only the mappings */
	/*
	 * with nowalk: count the zero pages (zeros) instead of a walk; or
	 * (sums) walk recording nothing, adding the kernel's figures up
	 */
	bool count, sums;
	bool swapped;
	u64 zeros;
	u64 rss, pss, pss_anon, pss_file, pss_shmem, pss_dirty;
	u32 mapcount; /* of the last page summed, and its share */
	u64 share;
};

/*
 * What the module watches of one mm: its invalidations, counted by an mmu
 * notifier, and whether its last walk saw a page a write fault would
 * reuse. Found by mm in exmap_mms; the table holds one reference of the
 * notifier (mmu_notifier_get), dropped when the mm goes (release) or the
 * module does, whichever comes first (the one that unhashes it).
 */
struct exmap_mm {
	struct mmu_notifier mn;
	struct hlist_node node; /* in exmap_mms, under exmap_mms_lock */
	bool hashed;
	atomic64_t changes;
	bool reusable;
};

static DEFINE_HASHTABLE(exmap_mms, 10);
static DEFINE_SPINLOCK(exmap_mms_lock);
/* where the counters of a new notifier start: random per module load */
static u64 exmap_changes_base;

/* The flags a caller of this ABI may give, and ABI 4's struct size. */
#define EXMAP_SCAN_FLAGS \
	(EXMAP_SCAN_WATCH | EXMAP_SCAN_NOWALK | EXMAP_SCAN_SUMS)

/* The walk stopped: buffer full (next set) or -errno. */
#define EXMAP_FULL 1

/* Start a record with one page, or stop the walk there when full. */
static noinline int exmap_emit_new(struct exmap_walk *w, unsigned long addr,
				   u64 frame, u32 flags, u32 mapcount)
{
	struct exmap_rec *r;

	if (w->n == w->cap) {
		w->next = addr;
		return EXMAP_FULL;
	}
	r = &w->recs[w->n++];
	r->start = addr;
	r->frame = frame;
	r->npages = 1;
	r->flags = flags;
	r->mapcount = mapcount;
	r->reserved = 0;
	return 0;
}

/*
 * Add one page to the kernel's figures (EXMAP_SCAN_SUMS) as smaps_rollup
 * counts it: what the records of the page would give the caller.
 */
static noinline void exmap_sum(struct exmap_walk *w, u32 flags, u32 mapcount)
{
	if ((flags & EXMAP_F_SWAP) && !(flags & EXMAP_F_MIGRATION)) {
		w->swapped = true;
		return;
	}
	if ((flags & (EXMAP_F_PRESENT | EXMAP_F_ZERO)) ==
	    (EXMAP_F_PRESENT | EXMAP_F_ZERO))
		w->zeros++;
	if (flags & (EXMAP_F_NOPAGE | EXMAP_F_ZERO | EXMAP_F_HUGETLB))
		return;
	if (!(flags & (EXMAP_F_ANON | EXMAP_F_FILE)))
		return;
	if (mapcount != w->mapcount || !w->share) {
		w->mapcount = mapcount;
		w->share = div_u64((u64)PAGE_SIZE << 12,
				   mapcount >= 2 ? mapcount : 1);
	}
	w->rss += PAGE_SIZE;
	w->pss += w->share;
	if (flags & EXMAP_F_ANON)
		w->pss_anon += w->share;
	else if (flags & EXMAP_F_SHMEM)
		w->pss_shmem += w->share;
	else
		w->pss_file += w->share;
	if (flags & EXMAP_F_DIRTY)
		w->pss_dirty += w->share;
}

/*
 * Add one page; extends the last record when it continues it. Inline:
 * it runs for every mapped page, and most pages only extend a record.
 */
static __always_inline int exmap_emit(struct exmap_walk *w,
				      unsigned long addr, u64 frame,
				      u32 flags, u32 mapcount)
{
	u64 step = (flags & EXMAP_F_SWAP) ? 1ull << MAX_SWAPFILES_SHIFT : 1;
	struct exmap_rec *r;

	if (unlikely(w->sums)) {
		exmap_sum(w, flags, mapcount);
		return 0;
	}

	if (w->n) {
		r = &w->recs[w->n - 1];
		if (r->flags == flags && r->mapcount == mapcount &&
		    r->start + ((u64)r->npages << PAGE_SHIFT) == addr &&
		    r->frame + r->npages * step == frame &&
		    r->npages < U32_MAX) {
			r->npages++;
			return 0;
		}
	}
	return exmap_emit_new(w, addr, frame, flags, mapcount);
}

/* Flags every page-backed entry shares: what kind of page it is. */
static u32 exmap_page_flags(struct folio *folio)
{
	u32 flags = 0;

	if (folio_test_anon(folio))
		flags |= EXMAP_F_ANON;
	else
		flags |= EXMAP_F_FILE;
	if (!folio_test_anon(folio) && folio_test_swapbacked(folio))
		flags |= EXMAP_F_SHMEM;
	if (folio_test_dirty(folio))
		flags |= EXMAP_F_DIRTY;
	if (folio_test_ksm(folio))
		flags |= EXMAP_F_KSM;
	return flags;
}

/* The frame of a swap entry in pagemap's layout: type | offset << 5. */
static u64 exmap_swap_frame(swp_entry_t entry)
{
	unsigned long off = exmap_leaf_has_pfn(entry) ? exmap_leaf_pfn(entry) :
							swp_offset(entry);

	return swp_type(entry) | ((u64)off << MAX_SWAPFILES_SHIFT);
}

/*
 * pfn_valid(pfn), asked once per subsection (EXMAP_PFN_VALID_SHIFT) while
 * one page table stays locked: a frame mapped there keeps its subsection
 * from going offline, since taking it away needs the page-table lock.
 */
static __always_inline bool exmap_pfn_valid(struct exmap_walk *w,
					    unsigned long pfn)
{
	unsigned long v = (pfn >> EXMAP_PFN_VALID_SHIFT) + 1;

	if (v == w->valid)
		return true;
	if (!pfn_valid(pfn))
		return false;
	w->valid = v;
	return true;
}

/*
 * A present page that is not writable and that a write fault (also
 * another task's, through get_user_pages) would make writable in place,
 * with neither an invalidation nor a counter of the process moving, in a
 * writable mapping: an anonymous page mapped once, or a page of a shared
 * mapping (write-notify). Only the system's "pgreuse" count moves. In a
 * mapping that is not writable (RELRO), a forced write reuses the page
 * read-only: only its dirty bit moves, which is no part of the records'
 * words (the kernel's figures of a kept process are walked again).
 */
static bool exmap_reusable(struct vm_area_struct *vma, u32 flags, u32 mapcount)
{
	if (!(vma->vm_flags & VM_WRITE))
		return false;
	if (vma->vm_flags & VM_SHARED)
		return true;
	return (flags & EXMAP_F_ANON) && !(flags & EXMAP_F_KSM) &&
	       !(flags & EXMAP_F_ZERO) && mapcount == 1;
}

static int exmap_pte(struct exmap_walk *w, struct vm_area_struct *vma,
		     unsigned long addr, pte_t pte)
{
	struct page *page = NULL;
	bool present = false, migration = false;
	u32 flags = 0, mapcount = 0;
	swp_entry_t entry;
	u64 frame;

	if (pte_present(pte)) {
		unsigned long pfn = pte_pfn(pte);

		present = true;
		frame = pfn;
		flags = EXMAP_F_PRESENT;
		if (pte_write(pte))
			flags |= EXMAP_F_WRITE;
		if (pte_dirty(pte))
			flags |= EXMAP_F_DIRTY;
		if (is_zero_pfn(pfn))
			flags |= EXMAP_F_ZERO;
		/* as vm_normal_page(): no page behind a special PTE */
		if (!pte_special(pte) && exmap_pfn_valid(w, pfn))
			page = pfn_to_page(pfn);
		else
			flags |= EXMAP_F_NOPAGE;
	} else if (exmap_pte_leaf(pte, &entry)) {
		frame = exmap_swap_frame(entry);
		flags = EXMAP_F_SWAP;
		if (exmap_leaf_has_pfn(entry)) {
			page = exmap_leaf_page(entry);
			migration = exmap_leaf_migration(entry);
			flags |= EXMAP_F_MIGRATION;
		}
	} else {
		return 0;
	}
	if (page) {
		struct folio *folio = page_folio(page);

		flags |= exmap_page_flags(folio);
		/* smaps counts a migrating page in full (mapcount 0) */
		if (present)
			mapcount = exmap_mapcount(folio, page);
		if (exmap_pte_excl(folio, page, present, migration, mapcount))
			flags |= EXMAP_F_EXCL;
	}
	if (!present && (flags & EXMAP_F_MIGRATION))
		w->transient = true;
	else if (present && pte_protnone(pte))
		w->transient = true; /* a NUMA hint: the fault restores it */
	else if (present && !pte_write(pte) &&
		 exmap_reusable(vma, flags, mapcount))
		w->reusable = true;
	return exmap_emit(w, addr, frame, flags, mapcount);
}

/* The huge zero page: neither anonymous nor in a file. */
static bool exmap_huge_zero(struct folio *folio)
{
	return !folio_test_anon(folio) && !folio->mapping;
}

/* A PMD that maps a huge page or holds a migration entry, under its lock. */
static int exmap_huge_pmd(struct exmap_walk *w, struct vm_area_struct *vma,
			  pmd_t pmd, unsigned long addr, unsigned long end)
{
	unsigned long idx = (addr & ~PMD_MASK) >> PAGE_SHIFT;
	bool present = pmd_present(pmd), migration = false, nopage = false;
	struct page *head;
	struct folio *folio;
	u32 flags;
	u64 frame;
	int ret = 0;

	if (present) {
		head = pmd_page(pmd);
		frame = pmd_pfn(pmd) + idx;
		flags = EXMAP_F_PRESENT | EXMAP_F_HUGE;
		if (pmd_write(pmd))
			flags |= EXMAP_F_WRITE;
		if (pmd_dirty(pmd))
			flags |= EXMAP_F_DIRTY;
		/* as pagemap: no page behind a special PMD, from 7.3 */
		nopage = exmap_pmd_nopage(pmd);
	} else {
		swp_entry_t entry = exmap_pmd_leaf(pmd);

		head = exmap_leaf_page(entry);
		migration = exmap_leaf_migration(entry);
		frame = exmap_swap_frame(entry) +
			((u64)idx << MAX_SWAPFILES_SHIFT);
		flags = EXMAP_F_SWAP | EXMAP_F_HUGE | EXMAP_F_MIGRATION;
	}
	folio = page_folio(head);
	if (nopage)
		flags |= EXMAP_F_NOPAGE;
	else
		flags |= exmap_page_flags(folio);
	if (exmap_huge_zero(folio))
		flags |= EXMAP_F_ZERO;
	/*
	 * a migration entry or NUMA hint changes back with no invalidation,
	 * and so does a write fault reusing a read-only huge page, which
	 * counts nothing: not to be kept
	 */
	if (!present || pmd_protnone(pmd) ||
	    (!pmd_write(pmd) && !nopage &&
	     exmap_reusable(vma, flags, exmap_mapcount(folio, head))))
		w->transient = true;
	for (; addr < end && !ret; addr += PAGE_SIZE, idx++) {
		struct page *page = head + idx;
		u32 f = flags, mapcount = 0;

		if (present && !nopage)
			mapcount = exmap_mapcount(folio, page);
		if (!nopage && exmap_pmd_excl(folio, head, page, present,
					      migration, mapcount))
			f |= EXMAP_F_EXCL;
		ret = exmap_emit(w, addr, frame, f, mapcount);
		frame += present ? 1 : 1ull << MAX_SWAPFILES_SHIFT;
	}
	return ret;
}

/*
 * Count, not walk: the pages [addr, end) of a huge PMD (under its lock)
 * or of a PTE table (locked) that a walk gives as present zero pages.
 */
static void exmap_count_pmd(struct exmap_walk *w, pmd_t pmd,
			    unsigned long addr, unsigned long end)
{
	if (pmd_present(pmd) && exmap_huge_zero(page_folio(pmd_page(pmd))))
		w->zeros += (end - addr) >> PAGE_SHIFT;
}

static void exmap_count_ptes(struct exmap_walk *w, pte_t *pte,
			     unsigned long addr, unsigned long end)
{
	for (; addr < end; pte++, addr += PAGE_SIZE) {
		pte_t e = ptep_get(pte);

		if (pte_present(e) && is_zero_pfn(pte_pfn(e)))
			w->zeros++;
	}
}

static int exmap_pmd_range(struct exmap_walk *w, struct vm_area_struct *vma,
			   pud_t *pudp, unsigned long addr, unsigned long end)
{
	pmd_t *pmdp = pmd_offset(pudp, addr);
	unsigned long next;
	int ret = 0;

	do {
		spinlock_t *ptl; /* of the PMD or of the PTE table */
		pte_t *start, *pte;
		pmd_t pmd;

		next = pmd_addr_end(addr, end);
again:
		pmd = exmap_pmd_read(pmdp);
		if (pmd_none(pmd))
			continue;
		if (!pmd_present(pmd) || pmd_trans_huge(pmd) ||
		    exmap_pmd_devmap(pmd)) {
			ptl = pmd_lock(w->mm, pmdp);
			pmd = *pmdp;
			if (pmd_none(pmd)) {
				spin_unlock(ptl);
				continue;
			}
			if (!pmd_present(pmd) || pmd_trans_huge(pmd) ||
			    exmap_pmd_devmap(pmd)) {
				if (w->count)
					exmap_count_pmd(w, pmd, addr, next);
				else
					ret = exmap_huge_pmd(w, vma, pmd, addr,
							     next);
				spin_unlock(ptl);
				if (ret)
					return ret;
				continue;
			}
			spin_unlock(ptl); /* split meanwhile */
			goto again;
		}
		if (pmd_bad(pmd))
			continue;
		start = exmap_pte_lock(w->mm, pmdp, addr, &ptl);
		if (!start)
			goto again; /* changed under us: read it again */
		w->valid = 0;
		if (w->count) {
			exmap_count_ptes(w, start, addr, next);
			addr = next;
		}
		for (pte = start; addr < next && !ret; pte++, addr += PAGE_SIZE)
			ret = exmap_pte(w, vma, addr, ptep_get(pte));
		exmap_pte_unlock(start, ptl);
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	} while (pmdp++, addr = next, addr != end);
	return 0;
}

static int exmap_pud_range(struct exmap_walk *w, struct vm_area_struct *vma,
			   p4d_t *p4dp, unsigned long addr, unsigned long end)
{
	pud_t *pudp = pud_offset(p4dp, addr);
	unsigned long next;
	int ret;

	do {
		pud_t pud = READ_ONCE(*pudp);

		next = pud_addr_end(addr, end);
		/* a huge PUD (DAX) is bad to a walker of tables */
		if (pud_none(pud) || pud_bad(pud))
			continue;
		ret = exmap_pmd_range(w, vma, pudp, addr, next);
		if (ret)
			return ret;
	} while (pudp++, addr = next, addr != end);
	return 0;
}

static int exmap_p4d_range(struct exmap_walk *w, struct vm_area_struct *vma,
			   pgd_t *pgdp, unsigned long addr, unsigned long end)
{
	p4d_t *p4dp = p4d_offset(pgdp, addr);
	unsigned long next;
	int ret;

	do {
		next = p4d_addr_end(addr, end);
		if (p4d_none(*p4dp) || p4d_bad(*p4dp))
			continue;
		ret = exmap_pud_range(w, vma, p4dp, addr, next);
		if (ret)
			return ret;
	} while (p4dp++, addr = next, addr != end);
	return 0;
}

static int exmap_vma(struct exmap_walk *w, struct vm_area_struct *vma,
		     unsigned long addr, unsigned long end)
{
	pgd_t *pgdp = pgd_offset(w->mm, addr);
	unsigned long next;
	int ret;

	do {
		next = pgd_addr_end(addr, end);
		if (pgd_none(*pgdp) || pgd_bad(*pgdp))
			continue;
		ret = exmap_p4d_range(w, vma, pgdp, addr, next);
		if (ret)
			return ret;
	} while (pgdp++, addr = next, addr != end);
	return 0;
}

/*
 * The entry of the huge page of size sz at addr, as huge_pte_offset()
 * finds it (not exported): the PUD for a PUD-sized page, else the PMD
 * under a present PUD; NULL when no table holds it.
 */
static pte_t *exmap_huge_pte(struct mm_struct *mm, unsigned long addr,
			     unsigned long sz)
{
	pgd_t *pgdp = pgd_offset(mm, addr);
	p4d_t *p4dp;
	pud_t *pudp;

	if (!pgd_present(*pgdp))
		return NULL;
	p4dp = p4d_offset(pgdp, addr);
	if (!p4d_present(*p4dp))
		return NULL;
	pudp = pud_offset(p4dp, addr);
	if (sz == PUD_SIZE)
		return (pte_t *)pudp;
	if (sz != PMD_SIZE || !pud_present(READ_ONCE(*pudp)))
		return NULL;
	return (pte_t *)pmd_offset(pudp, addr);
}

/*
 * The pages of [addr, end) in one huge page of a hugetlb mapping, under
 * the entry's lock. Each base page is a page of a record, its frame the
 * huge page's first plus its offset, as pagemap gives them. An entry that
 * is not present (migration, poison, a userfaultfd marker) gives nothing,
 * as in pagemap.
 */
static int exmap_hugetlb_page(struct exmap_walk *w,
			      struct vm_area_struct *vma, struct hstate *h,
			      unsigned long addr, unsigned long end)
{
	unsigned long sz = huge_page_size(h);
	unsigned long base = addr & ~(sz - 1);
	u32 flags, mapcount;
	struct folio *folio;
	spinlock_t *ptl; /* of the entry */
	pte_t *ptep, pte;
	u64 frame;
	int ret = 0;

	ptep = exmap_huge_pte(w->mm, base, sz);
	if (!ptep)
		return 0;
	ptl = huge_pte_lock(h, w->mm, ptep);
	pte = exmap_huge_ptep_get(w->mm, base, ptep);
	if (!pte_present(pte)) {
		/* a migration entry: changes back with no invalidation */
		if (!huge_pte_none(pte))
			w->transient = true;
		goto out;
	}
	folio = page_folio(pte_page(pte));
	frame = pte_pfn(pte) + ((addr - base) >> PAGE_SHIFT);
	flags = EXMAP_F_PRESENT | EXMAP_F_HUGETLB | exmap_page_flags(folio);
	if (pte_write(pte))
		flags |= EXMAP_F_WRITE;
	if (pte_dirty(pte))
		flags |= EXMAP_F_DIRTY;
	/* pagemap's "exclusive": mapped once, by a table of its own */
	mapcount = exmap_mapcount(folio, &folio->page);
	if (mapcount == 1 && !hugetlb_pmd_shared(ptep))
		flags |= EXMAP_F_EXCL;
	/* a write fault reusing it counts nothing (hugetlb_wp) */
	if (!pte_write(pte) && exmap_reusable(vma, flags, mapcount))
		w->transient = true;
	for (; addr < end && !ret; addr += PAGE_SIZE, frame++)
		ret = exmap_emit(w, addr, frame, flags, mapcount);
out:
	spin_unlock(ptl);
	return ret;
}

/*
 * A hugetlb mapping, one huge page at a time, under the file's i_mmap
 * lock: no PMD table shared between processes is unshared (and freed)
 * meanwhile, as that takes the lock for writing.
 */
static int exmap_hugetlb(struct exmap_walk *w, struct vm_area_struct *vma,
			 unsigned long addr, unsigned long end)
{
	struct address_space *mapping = vma->vm_file->f_mapping;
	struct hstate *h = hstate_vma(vma);
	unsigned long next;
	int ret = 0;

	i_mmap_lock_read(mapping);
	for (; addr < end && !ret; addr = next) {
		next = min((addr | (huge_page_size(h) - 1)) + 1, end);
		ret = exmap_hugetlb_page(w, vma, h, addr, next);
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	}
	i_mmap_unlock_read(mapping);
	return ret;
}

/* Append len bytes of s to the names; -EOVERFLOW when they do not fit. */
static int exmap_name_put(struct exmap_walk *w, const char *s, size_t len)
{
	if (len > w->ncap - w->names_len)
		return -EOVERFLOW;
	memcpy(w->names + w->names_len, s, len);
	w->names_len += len;
	return 0;
}

/* "[<what>:<name>]", as maps shows a named anonymous mapping. */
static int exmap_name_tag(struct exmap_walk *w, const char *what,
			  const char *name)
{
	int ret = exmap_name_put(w, what, strlen(what));

	if (!ret)
		ret = exmap_name_put(w, name, strlen(name));
	return ret ? ret : exmap_name_put(w, "]", 1);
}

/*
 * The path of a mapped file as maps prints it (seq_file_path): d_path,
 * with " (deleted)" when unlinked, and each newline as "\012".
 */
static int exmap_name_path(struct exmap_walk *w, const struct path *path)
{
	char *dst = w->names + w->names_len, *p;
	size_t room = w->ncap - w->names_len, len, need, i, j;

	p = d_path(path, dst, room);
	if (IS_ERR(p)) /* -ENAMETOOLONG: the room is too small */
		return -EOVERFLOW;
	len = strlen(p);
	need = len;
	for (i = 0; i < len; i++)
		if (p[i] == '\n')
			need += 3;
	if (need > room)
		return -EOVERFLOW;
	memmove(dst, p, len);
	for (i = len, j = need; i > 0; i--) { /* from the end, in place */
		if (dst[i - 1] != '\n') {
			dst[--j] = dst[i - 1];
			continue;
		}
		j -= 4;
		memcpy(dst + j, "\\012", 4);
	}
	w->names_len += need;
	return 0;
}

/* The name maps gives vma (fs/proc/task_mmu.c, show_map_vma). */
static int exmap_vma_name(struct exmap_walk *w, struct vm_area_struct *vma)
{
	const char *anon = exmap_anon_name(vma);
	const char *name;

	if (vma->vm_file)
		return anon ? exmap_name_tag(w, "[anon_shmem:", anon) :
			      exmap_name_path(w, exmap_file_path(vma->vm_file));
	if (vma->vm_ops && vma->vm_ops->name) {
		name = vma->vm_ops->name(vma);
		if (name)
			return exmap_name_put(w, name, strlen(name));
	}
	/* arch_vma_name() is the weak default on x86: no name */
	if (exmap_is_heap(vma))
		return exmap_name_put(w, "[heap]", 6);
	if (exmap_is_stack(vma))
		return exmap_name_put(w, "[stack]", 7);
	return anon ? exmap_name_tag(w, "[anon:", anon) : 0;
}

/* Every mapping of mm, as maps lists it; 0 or -EOVERFLOW. */
static int exmap_list_vmas(struct exmap_walk *w)
{
	VMA_ITERATOR(vmi, w->mm, 0);
	struct vm_area_struct *vma;
	int ret;

	for_each_vma(vmi, vma) {
		struct exmap_vma *v = &w->vmas[w->nvmas];
		vm_flags_t f = vma->vm_flags;

		if (w->nvmas == w->vcap)
			return -EOVERFLOW;
		memset(v, 0, sizeof(*v));
		v->start = vma->vm_start;
		v->end = vma->vm_end;
		v->flags = (f & VM_READ ? EXMAP_VMA_READ : 0) |
			   (f & VM_WRITE ? EXMAP_VMA_WRITE : 0) |
			   (f & VM_EXEC ? EXMAP_VMA_EXEC : 0) |
			   (f & VM_MAYSHARE ? EXMAP_VMA_SHARED : 0);
		v->page_size = PAGE_SIZE;
		if (is_vm_hugetlb_page(vma)) {
			v->flags |= EXMAP_VMA_HUGETLB;
			v->page_size = huge_page_size(hstate_vma(vma));
		}
		if (vma->vm_file) {
			const struct inode *inode =
				exmap_file_inode(vma->vm_file);

			v->offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
			v->inode = inode->i_ino;
			v->dev_major = MAJOR(inode->i_sb->s_dev);
			v->dev_minor = MINOR(inode->i_sb->s_dev);
		}
		v->name_off = w->names_len;
		ret = exmap_vma_name(w, vma);
		if (ret)
			return ret;
		v->name_len = w->names_len - v->name_off;
		w->nvmas++;
	}
	return 0;
}

/*
 * Whether a walk may find the zero page (or the huge zero page) mapped in
 * vma: in an anonymous private mapping (also of /dev/zero) a read fault
 * maps it, and a DAX file or a mixed map may insert it; a mapping of the
 * page cache or of shmem maps pages of its own. hugetlb and PFN maps are
 * not walked for it.
 */
static bool exmap_may_zero(struct vm_area_struct *vma)
{
	if ((vma->vm_flags & VM_PFNMAP) || is_vm_hugetlb_page(vma))
		return false;
	return vma_is_anonymous(vma) || vma_is_dax(vma) ||
	       (vma->vm_flags & VM_MIXEDMAP);
}

/*
 * The zero pages of every mapping that may hold one, under the mmap lock
 * the caller holds: no page is recorded, so it costs a read of each PTE
 * of those mappings.
 */
static int exmap_count_zeros(struct exmap_walk *w)
{
	VMA_ITERATOR(vmi, w->mm, 0);
	struct vm_area_struct *vma;
	int ret;

	for_each_vma(vmi, vma) {
		if (!exmap_may_zero(vma))
			continue;
		ret = exmap_vma(w, vma, vma->vm_start, vma->vm_end);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Walk [addr, end) of mm, after listing its mappings when asked: 0 when
 * done, EXMAP_FULL, or -errno.
 */
static int exmap_walk_mm(struct exmap_walk *w, unsigned long addr,
			 unsigned long end)
{
	VMA_ITERATOR(vmi, w->mm, addr);
	struct vm_area_struct *vma;
	int ret = 0;

	if (mmap_read_lock_killable(w->mm))
		return -EINTR;
	if (w->vmas)
		ret = exmap_list_vmas(w);
	if (!ret && w->count)
		ret = exmap_count_zeros(w);
	if (ret || (w->nowalk && !w->sums)) {
		mmap_read_unlock(w->mm);
		return ret;
	}
	for_each_vma_range(vmi, vma, end) {
		unsigned long s = max(addr, vma->vm_start);
		unsigned long e = min(end, vma->vm_end);

		if (vma->vm_flags & VM_PFNMAP)
			continue;
		/* hugetlb pages add nothing to the sums (nor zero pages) */
		if (w->sums && is_vm_hugetlb_page(vma))
			continue;
		if (is_vm_hugetlb_page(vma))
			ret = exmap_hugetlb(w, vma, s, e);
		else
			ret = exmap_vma(w, vma, s, e);
		if (ret)
			break;
	}
	mmap_read_unlock(w->mm);
	return ret;
}

/*
 * Who the process is, as the caller would read it in /proc/PID/stat (name,
 * parent, start) and from the owner of /proc/PID (its effective uid: the
 * directory's owner is never changed for an undumpable process).
 */
static void exmap_task_info(struct task_struct *task, struct exmap_scan *arg)
{
	rcu_read_lock();
	arg->ppid = pid_alive(task) ?
		task_tgid_vnr(rcu_dereference(task->real_parent)) : 0;
	arg->uid = from_kuid_munged(current_user_ns(),
				    task_cred_xxx(task, euid));
	rcu_read_unlock();
	arg->start_ns = timens_add_boottime_ns(task->start_boottime);
	get_task_comm(arg->comm, task);
}

/*
 * The mm of process nr and its identity in arg: NULL when it has none (a
 * kernel thread, or exiting), ERR_PTR(-ESRCH) when there is no such process.
 */
static struct mm_struct *exmap_get_mm(pid_t nr, struct exmap_scan *arg,
				      struct task_struct **taskp)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;

	pid = find_get_pid(nr);
	if (!pid)
		return ERR_PTR(-ESRCH);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return ERR_PTR(-ESRCH);
	mm = get_task_mm(task);
	exmap_task_info(task, arg);
	*taskp = task;
	return mm;
}

/* ---- watching a process's memory: an mmu notifier per mm ---- */

static struct exmap_mm *exmap_mm_of(struct mmu_notifier *mn)
{
	return container_of(mn, struct exmap_mm, mn);
}

/* Every invalidation bumps the count, at its start and at its end. */
static int exmap_mn_start(struct mmu_notifier *mn,
			  const struct mmu_notifier_range *range)
{
	atomic64_inc(&exmap_mm_of(mn)->changes);
	return 0;
}

static void exmap_mn_end(struct mmu_notifier *mn,
			 const struct mmu_notifier_range *range)
{
	atomic64_inc(&exmap_mm_of(mn)->changes);
}

#if !EXMAP_SINCE(6, 2)
void exmap_mn_change_pte(struct mmu_notifier *mn, struct mm_struct *mm,
			 unsigned long address, pte_t pte)
{
	atomic64_inc(&exmap_mm_of(mn)->changes);
}
#endif

/* Take e out of the table: true for the one caller that did. */
static bool exmap_mm_unhash(struct exmap_mm *e)
{
	bool was;

	spin_lock(&exmap_mms_lock);
	was = e->hashed;
	if (was) {
		hash_del(&e->node);
		e->hashed = false;
	}
	spin_unlock(&exmap_mms_lock);
	return was;
}

/* The mm goes (exit_mmap): drop the table's reference. */
static void exmap_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct exmap_mm *e = exmap_mm_of(mn);

	atomic64_inc(&e->changes);
	if (exmap_mm_unhash(e))
		mmu_notifier_put(mn);
}

static struct mmu_notifier *exmap_mn_alloc(struct mm_struct *mm)
{
	struct exmap_mm *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (!e)
		return ERR_PTR(-ENOMEM);
	atomic64_set(&e->changes, exmap_changes_base);
	return &e->mn;
}

static void exmap_mn_free(struct mmu_notifier *mn)
{
	kfree(exmap_mm_of(mn));
}

static const struct mmu_notifier_ops exmap_mn_ops = {
	.release = exmap_mn_release,
	.invalidate_range_start = exmap_mn_start,
	.invalidate_range_end = exmap_mn_end,
	EXMAP_MN_CHANGE_PTE
	.alloc_notifier = exmap_mn_alloc,
	.free_notifier = exmap_mn_free,
};

/*
 * The watch of mm (whose users the caller holds), made at the first call:
 * registering takes mm's mmap lock for writing, once per mm; later calls
 * find it in the table.
 */
static struct exmap_mm *exmap_watch(struct mm_struct *mm)
{
	struct mmu_notifier *mn;
	struct exmap_mm *e;

	spin_lock(&exmap_mms_lock);
	hash_for_each_possible(exmap_mms, e, node, (unsigned long)mm)
		if (e->mn.mm == mm) {
			spin_unlock(&exmap_mms_lock);
			return e;
		}
	spin_unlock(&exmap_mms_lock);
	mn = mmu_notifier_get(&exmap_mn_ops, mm);
	if (IS_ERR(mn))
		return ERR_CAST(mn);
	e = exmap_mm_of(mn);
	spin_lock(&exmap_mms_lock);
	if (!e->hashed) { /* the table keeps this reference */
		hash_add(exmap_mms, &e->node, (unsigned long)mm);
		e->hashed = true;
		mn = NULL;
	}
	spin_unlock(&exmap_mms_lock);
	if (mn) /* another call hashed it first */
		mmu_notifier_put(mn);
	return e;
}

/*
 * Page faults of the process's threads, live and exited (as stat sums
 * them, under the signal lock: a thread exiting moves its counts).
 */
static u64 exmap_faults(struct task_struct *task)
{
	struct sighand_struct *sighand;
	struct task_struct *t;
	unsigned long irqf;
	u64 n = 0;

	rcu_read_lock();
	sighand = rcu_dereference(task->sighand);
	if (!sighand)
		goto out;
	spin_lock_irqsave(&sighand->siglock, irqf);
	if (sighand == rcu_access_pointer(task->sighand)) {
		n = task->signal->min_flt + task->signal->maj_flt;
		for_each_thread(task, t)
			n += t->min_flt + t->maj_flt;
	}
	spin_unlock_irqrestore(&sighand->siglock, irqf);
out:
	rcu_read_unlock();
	return n;
}

/* The system's count of write faults that reused a page in place. */
static u64 exmap_pgreuse(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(vm_event_states, cpu).event[PGREUSE];
	return n;
}

/* The counters of a watched mm into arg, before its walk. */
static void exmap_counters(struct exmap_mm *e, struct task_struct *task,
			   struct mm_struct *mm, struct exmap_scan *arg)
{
	arg->changes = atomic64_read(&e->changes);
	arg->faults = exmap_faults(task);
	arg->reuses = READ_ONCE(e->reusable) ? exmap_pgreuse() : 0;
	arg->rss[0] = exmap_mm_counter(mm, MM_ANONPAGES);
	arg->rss[1] = exmap_mm_counter(mm, MM_FILEPAGES);
	arg->rss[2] = exmap_mm_counter(mm, MM_SHMEMPAGES);
	arg->rss[3] = exmap_mm_counter(mm, MM_SWAPENTS);
	arg->pgtables = atomic_long_read(&mm->pgtables_bytes);
	arg->hugetlb = exmap_hugetlb_usage(mm);
	arg->info |= EXMAP_INFO_WATCHED;
}

/* Make the file's buffers hold the mappings the caller has room for. */
static int exmap_vma_room(struct exmap_file *ef, u32 nvmas, u32 names_len)
{
	nvmas = min_t(u32, nvmas, EXMAP_KVMAS);
	names_len = min_t(u32, names_len, EXMAP_KNAMES);
	if (nvmas > ef->nvmas) {
		kvfree(ef->vmas);
		ef->nvmas = 0;
		ef->vmas = kvmalloc_array(nvmas, sizeof(*ef->vmas),
					  GFP_KERNEL);
		if (!ef->vmas)
			return -ENOMEM;
		ef->nvmas = nvmas;
	}
	if (names_len > ef->names_len) {
		kvfree(ef->names);
		ef->names_len = 0;
		ef->names = kvmalloc(names_len, GFP_KERNEL);
		if (!ef->names)
			return -ENOMEM;
		ef->names_len = names_len;
	}
	return 0;
}

static long exmap_scan(struct exmap_file *ef, struct exmap_scan __user *uarg)
{
	struct exmap_walk w = { .recs = ef->recs };
	struct exmap_mm *watch = NULL;
	struct task_struct *task;
	unsigned long start, end;
	struct exmap_scan arg = {};
	size_t known; /* the size of the caller's ABI's struct */
	u32 size, abi;
	int ret;

	if (get_user(size, &uarg->size) || get_user(abi, &uarg->abi))
		return -EFAULT;
	if (abi < EXMAP_ABI_MIN || abi > EXMAP_ABI_VERSION)
		return -EINVAL;
	known = abi == 4 ? EXMAP_SCAN_SIZE_4 :
		abi == 5 ? EXMAP_SCAN_SIZE_5 : sizeof(arg);
	if (size < known || size > PAGE_SIZE)
		return -EINVAL;
	/* a newer caller's larger struct: its extra fields must be zero */
	ret = copy_struct_from_user(&arg, known, uarg, size);
	if (ret)
		return ret;
	if ((arg.flags & ~EXMAP_SCAN_FLAGS) ||
	    (abi == EXMAP_ABI_MIN && arg.flags) ||
	    (abi < 6 && (arg.flags & EXMAP_SCAN_SUMS)) ||
	    arg.rec_size != sizeof(struct exmap_rec) || arg.pid <= 0 ||
	    arg.nrecs == 0)
		return -EINVAL;
	start = arg.start & PAGE_MASK;
	end = arg.end ? arg.end : TASK_SIZE_MAX;
	if (arg.start >= TASK_SIZE_MAX || arg.end > TASK_SIZE_MAX ||
	    start >= end)
		return -EINVAL;
	if (arg.vmas) {
		if (arg.vma_size != sizeof(struct exmap_vma))
			return -EINVAL;
		ret = exmap_vma_room(ef, arg.nvmas, arg.names_len);
		if (ret)
			return ret;
		w.vmas = ef->vmas;
		w.vcap = min(arg.nvmas, ef->nvmas);
		w.names = ef->names;
		w.ncap = min(arg.names_len, ef->names_len);
	}
	w.cap = min_t(u32, arg.nrecs, EXMAP_KRECS);
	w.mm = exmap_get_mm(arg.pid, &arg, &task);
	if (IS_ERR(w.mm))
		return PTR_ERR(w.mm);
	arg.info = 0;
	ret = 0;
	if (w.mm && (arg.flags & EXMAP_SCAN_WATCH)) {
		watch = exmap_watch(w.mm);
		if (IS_ERR(watch))
			ret = PTR_ERR(watch);
		else
			exmap_counters(watch, task, w.mm, &arg);
	}
	put_task_struct(task);
	if (w.mm && !ret) {
		w.nowalk = arg.flags & EXMAP_SCAN_NOWALK;
		/*
		 * ABI 6: what no counter shows, the zero pages, counted; with
		 * SUMS by a walk of everything that records nothing
		 */
		w.sums = w.nowalk && watch && (arg.flags & EXMAP_SCAN_SUMS);
		w.count = w.nowalk && watch && abi >= 6 && !w.sums;
		ret = exmap_walk_mm(&w, start, end);
		if (exmap_gate(w.mm))
			arg.info |= EXMAP_INFO_GATE;
	} else if (!w.mm) {
		arg.info |= EXMAP_INFO_NOMM;
	}
	if (w.mm)
		mmput(w.mm);
	if (ret < 0)
		return ret;
	if (w.transient)
		arg.info |= EXMAP_INFO_TRANSIENT;
	arg.zeros = w.zeros;
	if (w.swapped)
		arg.info |= EXMAP_INFO_SWAPPED;
	arg.sum_rss = w.rss;
	arg.sum_pss = w.pss;
	arg.sum_anon = w.pss_anon;
	arg.sum_file = w.pss_file;
	arg.sum_shmem = w.pss_shmem;
	arg.sum_dirty = w.pss_dirty;
	/* what the walk of the whole space saw: from its first call on */
	if (!IS_ERR_OR_NULL(watch) && !(arg.flags & EXMAP_SCAN_NOWALK)) {
		if (start == 0)
			WRITE_ONCE(watch->reusable, w.reusable);
		else if (w.reusable)
			WRITE_ONCE(watch->reusable, true);
	}
	if (copy_to_user(u64_to_user_ptr(arg.recs), w.recs,
			 (size_t)w.n * sizeof(*w.recs)) ||
	    copy_to_user(u64_to_user_ptr(arg.vmas), w.vmas,
			 (size_t)w.nvmas * sizeof(*w.vmas)) ||
	    copy_to_user(u64_to_user_ptr(arg.names), w.names, w.names_len))
		return -EFAULT;
	arg.nrecs = w.n;
	arg.next = ret == EXMAP_FULL ? w.next : 0;
	arg.nvmas = w.nvmas;
	arg.names_len = w.names_len;
	/* what the call gives back: from nrecs to the end of its ABI's */
	if (copy_to_user(&uarg->nrecs, &arg.nrecs,
			 known - offsetof(struct exmap_scan, nrecs)))
		return -EFAULT;
	return 0;
}

static long exmap_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	struct exmap_file *ef = file->private_data;
	long ret;

	if (cmd != EXMAP_IOC_SCAN)
		return -ENOTTY;
	if (mutex_lock_killable(&ef->lock))
		return -EINTR;
	ret = exmap_scan(ef, (struct exmap_scan __user *)arg);
	mutex_unlock(&ef->lock);
	return ret;
}

static int exmap_open(struct inode *inode, struct file *file)
{
	struct exmap_file *ef;

	/* the rule pagemap applies to frame numbers */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ef = kzalloc(sizeof(*ef), GFP_KERNEL);
	if (!ef)
		return -ENOMEM;
	ef->recs = kvmalloc_array(EXMAP_KRECS, sizeof(*ef->recs), GFP_KERNEL);
	if (!ef->recs) {
		kfree(ef);
		return -ENOMEM;
	}
	mutex_init(&ef->lock);
	file->private_data = ef;
	return 0;
}

static int exmap_release(struct inode *inode, struct file *file)
{
	struct exmap_file *ef = file->private_data;

	kvfree(ef->recs);
	kvfree(ef->vmas);
	kvfree(ef->names);
	kfree(ef);
	return 0;
}

static const struct file_operations exmap_fops = {
	.owner = THIS_MODULE,
	.open = exmap_open,
	.release = exmap_release,
	.unlocked_ioctl = exmap_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice exmap_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "exmap",
	.fops = &exmap_fops,
	.mode = 0600,
};

static int __init exmap_init(void)
{
	exmap_changes_base = get_random_u64();
	return misc_register(&exmap_dev);
}

/*
 * No file is open (each holds the module): drop every watch still held,
 * then wait until their notifiers are freed and no callback runs.
 */
static void __exit exmap_exit(void)
{
	struct exmap_mm *e;
	struct hlist_node *tmp;
	HLIST_HEAD(gone);
	int bkt;

	misc_deregister(&exmap_dev);
	spin_lock(&exmap_mms_lock);
	hash_for_each_safe(exmap_mms, bkt, tmp, e, node) {
		hash_del(&e->node);
		e->hashed = false;
		hlist_add_head(&e->node, &gone);
	}
	spin_unlock(&exmap_mms_lock);
	hlist_for_each_entry_safe(e, tmp, &gone, node)
		mmu_notifier_put(&e->mn);
	mmu_notifier_synchronize();
}

module_init(exmap_init);
module_exit(exmap_exit);

MODULE_AUTHOR("exmtop developers");
MODULE_DESCRIPTION("Page-table walker for exmtop: effective memory per process");
MODULE_LICENSE("GPL");

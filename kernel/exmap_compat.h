/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exmap_compat.h - every difference between the kernels exmap knows.
 *
 * exmap uses only what a module may use: exported symbols and what the
 * headers define inline. Known kernels: 6.1 (Debian 12), 6.12 (Debian 13,
 * bookworm-backports), 7.2 (unstable) and 7.3 (trixie-backports); 6.2 to
 * 6.11 stop the build. What changed after 6.12 is tested per feature:
 * what the headers define where they say it (leafops.h, the devmap bit),
 * else the version it came with (EXMAP_SINCE). The walk in exmap.c has no
 * #if; it calls:
 *
 *   exmap_pmd_read(pmdp)          a lockless read of a PMD
 *   exmap_pte_lock(mm, pmdp, a)   map and lock the PTE table under pmdp,
 *                                 NULL when the PMD is not (or no longer)
 *                                 a page table
 *   exmap_pte_unlock(pte, ptl)
 *   exmap_mapcount(folio, page)   mappings of one page, as smaps divides
 *                                 Pss by them
 *   exmap_pte_excl(folio, page, present, migration, mapcount)
 *                                 pagemap's "exclusively mapped" bit of a
 *                                 page mapped by a PTE (mapcount: what
 *                                 exmap_mapcount gave, when present)
 *   exmap_pmd_excl(folio, head, page, present, migration, mapcount)
 *                                 the same for one page of a PMD mapping
 *   exmap_pmd_devmap(pmd)         a PMD mapping device memory (a leaf)
 *   exmap_pmd_nopage(pmd)         a present PMD pagemap sees no page behind
 *   exmap_pte_leaf(), exmap_pmd_leaf(), exmap_leaf_*()
 *                                 a non-present entry (swap, migration...)
 *   exmap_huge_ptep_get(mm, a, p) the entry of a hugetlb page
 *   EXMAP_PFN_VALID_SHIFT         pfn_valid() gives one answer for all
 *                                 frames alike above this many bits
 *
 * and, to list mappings the way fs/proc/task_mmu.c prints maps:
 *
 *   exmap_file_path(file)         the path maps shows of a mapped file
 *   exmap_file_inode(file)        the inode whose device and number it shows
 *   exmap_anon_name(vma)          the name prctl(PR_SET_VMA) gave, or NULL
 *   exmap_is_heap(vma)            maps calls it [heap]
 *   exmap_is_stack(vma)           maps calls it [stack]
 *   exmap_gate(mm)                maps lists the vsyscall page after the
 *                                 mappings (if the kernel has it at all)
 *
 * and, to watch a process's memory (ABI 5):
 *
 *   exmap_mm_counter(mm, member)  an rss counter of mm, exact (summed
 *                                 over CPUs where it is per CPU)
 *   exmap_hugetlb_usage(mm)       hugetlb bytes mapped, 0 without hugetlb
 *   EXMAP_MN_CHANGE_PTE           the notifier's change_pte, where the
 *                                 kernel still has it (6.1)
 */
#ifndef EXMAP_COMPAT_H
#define EXMAP_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mmu_notifier.h>
#include <linux/percpu_counter.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>

/* the kernel is MAJOR.MINOR or later */
#define EXMAP_SINCE(major, minor)					\
	(LINUX_VERSION_MAJOR * 256 + LINUX_VERSION_PATCHLEVEL >=	\
	 (major) * 256 + (minor))

/*
 * A PMD mapping ZONE_DEVICE memory (devmap) is a leaf: pmd_devmap() exists
 * only while the architecture has the devmap bit (gone in 7.x kernels).
 */
static inline bool exmap_pmd_devmap(pmd_t pmd)
{
#ifdef CONFIG_ARCH_HAS_PTE_DEVMAP
	return pmd_devmap(pmd);
#else
	return false;
#endif
}

/*
 * pagemap shows no page behind a present PMD: from 7.3 it asks
 * vm_normal_page_pmd(), which gives none for a special PMD (the huge zero
 * page is one in 7.2 and 7.3); up to 7.2 it took pmd_page(). pmd_special()
 * exists where the architecture maps PFNs by PMD.
 */
static inline bool exmap_pmd_nopage(pmd_t pmd)
{
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
	return EXMAP_SINCE(7, 3) && pmd_special(pmd);
#else
	return false;
#endif
}

#if !EXMAP_SINCE(6, 1)
#error "exmap knows Linux 6.1, and 6.12 and later; use exmtop's pagemap source"

#elif !EXMAP_SINCE(6, 2)

static inline pmd_t exmap_pmd_read(pmd_t *pmdp)
{
	return READ_ONCE(*pmdp);
}

/*
 * 6.1: the counters are atomic (a task's own faults are cached in the
 * task until synced, and counted in its fault counts meanwhile)
 */
static inline u64 exmap_mm_counter(struct mm_struct *mm, int member)
{
	return (u64)atomic_long_read(&mm->rss_stat.count[member]);
}

/*
 * 6.1 calls change_pte (KSM, and a copy-on-write's new page) inside an
 * invalidation, which counts it already; one more count costs nothing
 */
void exmap_mn_change_pte(struct mmu_notifier *mn, struct mm_struct *mm,
			 unsigned long address, pte_t pte);
#define EXMAP_MN_CHANGE_PTE .change_pte = exmap_mn_change_pte,

/*
 * 6.1: under mmap_read_lock a PMD that points to a page table keeps
 * pointing to it (khugepaged collapses under the write lock), so checking
 * it first is enough; pte_offset_map_lock() is inline.
 */
static inline pte_t *exmap_pte_lock(struct mm_struct *mm, pmd_t *pmdp,
				    unsigned long addr, spinlock_t **ptlp)
{
	pmd_t pmd = READ_ONCE(*pmdp);

	if (pmd_none(pmd) || !pmd_present(pmd) || pmd_trans_huge(pmd) ||
	    exmap_pmd_devmap(pmd) || pmd_bad(pmd))
		return NULL;
	return pte_offset_map_lock(mm, pmdp, addr, ptlp);
}

static inline void exmap_pte_unlock(pte_t *pte, spinlock_t *ptl)
{
	pte_unmap_unlock(pte, ptl);
}

static inline int exmap_mapcount(struct folio *folio, struct page *page)
{
	return page_mapcount(page);
}

/* fs/proc/task_mmu.c of 6.1: page_mapcount() == 1, not for migration */
static inline bool exmap_pte_excl(struct folio *folio, struct page *page,
				  bool present, bool migration, int mapcount)
{
	return !migration &&
	       (present ? mapcount : page_mapcount(page)) == 1;
}

/* 6.1 decides once per PMD, from the head page */
static inline bool exmap_pmd_excl(struct folio *folio, struct page *head,
				  struct page *page, bool present,
				  bool migration, int mapcount)
{
	return !migration && page_mapcount(head) == 1;
}

static inline pte_t exmap_huge_ptep_get(struct mm_struct *mm,
					unsigned long addr, pte_t *ptep)
{
	return huge_ptep_get(ptep);
}

/* 6.1 (before backing files): a mapping shows the file it maps */
static inline const struct path *exmap_file_path(struct file *file)
{
	return &file->f_path;
}

static inline const struct inode *exmap_file_inode(struct file *file)
{
	return file_inode(file);
}

/* anon_vma_name() of 6.1: a name only where there is no file */
static inline const char *exmap_anon_name(struct vm_area_struct *vma)
{
#ifdef CONFIG_ANON_VMA_NAME
	if (!vma->vm_file && vma->anon_name)
		return vma->anon_name->name;
#endif
	return NULL;
}

static inline bool exmap_is_heap(struct vm_area_struct *vma)
{
	return vma->vm_start <= vma->vm_mm->brk &&
	       vma->vm_end >= vma->vm_mm->start_brk;
}

static inline bool exmap_is_stack(struct vm_area_struct *vma)
{
	return vma->vm_start <= vma->vm_mm->start_stack &&
	       vma->vm_end >= vma->vm_mm->start_stack;
}

/* get_gate_vma() of x86-64: not for a 32-bit process */
static inline bool exmap_gate(struct mm_struct *mm)
{
#if defined(CONFIG_X86_VSYSCALL_EMULATION) && defined(CONFIG_COMPAT)
	return mm->context.flags & MM_CONTEXT_HAS_VSYSCALL;
#else
	return IS_ENABLED(CONFIG_X86_VSYSCALL_EMULATION);
#endif
}

#elif !EXMAP_SINCE(6, 12)
#error "exmap knows Linux 6.1, and 6.12 and later; use exmtop's pagemap source"

#else /* 6.12 and later */

static inline pmd_t exmap_pmd_read(pmd_t *pmdp)
{
	return pmdp_get_lockless(pmdp);
}

/* 6.2 on: per-CPU counters, summed */
static inline u64 exmap_mm_counter(struct mm_struct *mm, int member)
{
	return (u64)percpu_counter_sum(&mm->rss_stat[member]);
}

/* change_pte went in 6.9 (6.12 and later have none) */
#define EXMAP_MN_CHANGE_PTE

/*
 * 6.12: page tables may be freed under mmap_read_lock (khugepaged retracts
 * them), so the table is read under RCU and the PMD checked again once the
 * lock is held: what the unexported __pte_offset_map_lock() does, from its
 * inline parts. A bad PMD is left alone (pmd_clear_bad is not exported).
 */
static inline pte_t *exmap_pte_lock(struct mm_struct *mm, pmd_t *pmdp,
				    unsigned long addr, spinlock_t **ptlp)
{
	spinlock_t *ptl; /* the lock of the PTE table */
	pmd_t pmd;

	rcu_read_lock();
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd) || !pmd_present(pmd) || pmd_trans_huge(pmd) ||
	    exmap_pmd_devmap(pmd) || pmd_bad(pmd)) {
		rcu_read_unlock();
		return NULL;
	}
	ptl = pte_lockptr(mm, &pmd);
	spin_lock(ptl);
	if (!pmd_same(pmd, pmdp_get_lockless(pmdp))) {
		spin_unlock(ptl);
		rcu_read_unlock();
		return NULL;
	}
	*ptlp = ptl;
	return pte_offset_kernel(&pmd, addr);
}

static inline void exmap_pte_unlock(pte_t *pte, spinlock_t *ptl)
{
	spin_unlock(ptl);
	rcu_read_unlock();
}

/* folio_precise_page_mapcount() of fs/proc/internal.h, from inline parts */
static inline int exmap_mapcount(struct folio *folio, struct page *page)
{
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	if (folio_test_large(folio))
		mapcount += folio_entire_mapcount(folio);
	return mapcount;
}

/* fs/proc/task_mmu.c of 6.12: present pages with a precise mapcount of 1 */
static inline bool exmap_pte_excl(struct folio *folio, struct page *page,
				  bool present, bool migration, int mapcount)
{
	return present && mapcount == 1;
}

/*
 * A PMD mapping: 6.12 asks each page's precise mapcount; 7.2 and 7.3 ask
 * the head page's for every page of the PMD (pagemap's
 * __folio_page_mapped_exclusively(folio, page), page the head: taken to
 * come with that helper in 6.15; the sources read were 7.2's and 7.3's).
 */
static inline bool exmap_pmd_excl(struct folio *folio, struct page *head,
				  struct page *page, bool present,
				  bool migration, int mapcount)
{
	if (EXMAP_SINCE(6, 15) && present)
		mapcount = exmap_mapcount(folio, head);
	return present && mapcount == 1;
}

static inline pte_t exmap_huge_ptep_get(struct mm_struct *mm,
					unsigned long addr, pte_t *ptep)
{
	return huge_ptep_get(mm, addr, ptep);
}

/* an overlayfs file shows the path the user opened, not the backing one */
static inline const struct path *exmap_file_path(struct file *file)
{
	return file_user_path(file);
}

static inline const struct inode *exmap_file_inode(struct file *file)
{
	return file_user_inode(file);
}

/* 6.12 names anonymous shared memory too ([anon_shmem:NAME]) */
static inline const char *exmap_anon_name(struct vm_area_struct *vma)
{
#ifdef CONFIG_ANON_VMA_NAME
	if (vma->anon_name)
		return vma->anon_name->name;
#endif
	return NULL;
}

static inline bool exmap_is_heap(struct vm_area_struct *vma)
{
	return vma_is_initial_heap(vma);
}

static inline bool exmap_is_stack(struct vm_area_struct *vma)
{
	return vma_is_initial_stack(vma);
}

static inline bool exmap_gate(struct mm_struct *mm)
{
#if defined(CONFIG_X86_VSYSCALL_EMULATION) && defined(CONFIG_COMPAT)
	return test_bit(MM_CONTEXT_HAS_VSYSCALL, &mm->context.flags);
#else
	return IS_ENABLED(CONFIG_X86_VSYSCALL_EMULATION);
#endif
}

#endif

/*
 * Entries that are neither none nor present (swap, migration, device,
 * hwpoison, markers), as pagemap reads them: swapops.h's swp_entry_t
 * tests, replaced by leafops.h's softleaf_t ones where that header exists
 * (7.x kernels; softleaf_t is still a swp_entry_t there).
 *
 *   exmap_pte_leaf(pte, &entry)   false for a none or present PTE
 *   exmap_pmd_leaf(pmd)           the entry of a non-present PMD
 *   exmap_leaf_has_pfn(entry)     it names a frame (migration, device,
 *                                 hwpoison), not a swap slot
 *   exmap_leaf_pfn(entry), exmap_leaf_page(entry), exmap_leaf_migration(entry)
 */
#if __has_include("linux/leafops.h")
#include <linux/leafops.h>

static inline bool exmap_pte_leaf(pte_t pte, swp_entry_t *entry)
{
	if (pte_none(pte) || pte_present(pte))
		return false;
	*entry = softleaf_from_pte(pte);
	return true;
}

static inline swp_entry_t exmap_pmd_leaf(pmd_t pmd)
{
	return softleaf_from_pmd(pmd);
}

static inline bool exmap_leaf_has_pfn(swp_entry_t entry)
{
	return softleaf_has_pfn(entry);
}

static inline unsigned long exmap_leaf_pfn(swp_entry_t entry)
{
	return softleaf_to_pfn(entry);
}

static inline struct page *exmap_leaf_page(swp_entry_t entry)
{
	return softleaf_to_page(entry);
}

static inline bool exmap_leaf_migration(swp_entry_t entry)
{
	return softleaf_is_migration(entry);
}

#else
#include <linux/swapops.h>

static inline bool exmap_pte_leaf(pte_t pte, swp_entry_t *entry)
{
	if (!is_swap_pte(pte))
		return false;
	*entry = pte_to_swp_entry(pte);
	return true;
}

static inline swp_entry_t exmap_pmd_leaf(pmd_t pmd)
{
	return pmd_to_swp_entry(pmd);
}

static inline bool exmap_leaf_has_pfn(swp_entry_t entry)
{
	return is_pfn_swap_entry(entry);
}

static inline unsigned long exmap_leaf_pfn(swp_entry_t entry)
{
	return swp_offset_pfn(entry);
}

static inline struct page *exmap_leaf_page(swp_entry_t entry)
{
	return pfn_swap_entry_to_page(entry);
}

static inline bool exmap_leaf_migration(swp_entry_t entry)
{
	return is_migration_entry(entry);
}
#endif

static inline u64 exmap_hugetlb_usage(struct mm_struct *mm)
{
#ifdef CONFIG_HUGETLB_PAGE
	return (u64)atomic_long_read(&mm->hugetlb_usage);
#else
	return 0;
#endif
}

/* SPARSEMEM: pfn_valid() is a property of a whole subsection */
#ifdef CONFIG_SPARSEMEM
#define EXMAP_PFN_VALID_SHIFT PFN_SUBSECTION_SHIFT
#else
#define EXMAP_PFN_VALID_SHIFT 0
#endif

#endif

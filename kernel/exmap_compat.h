/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exmap_compat.h - every difference between the kernels exmap knows.
 *
 * exmap uses only what a module may use: exported symbols and what the
 * headers define inline. Known kernels: 6.1 (Debian 12) and 6.12 (Debian
 * 13, bookworm-backports). The walk in exmap.c has no #if; it calls:
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
 */
#ifndef EXMAP_COMPAT_H
#define EXMAP_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>

#if LINUX_VERSION_MAJOR == 6 && LINUX_VERSION_PATCHLEVEL == 1

static inline pmd_t exmap_pmd_read(pmd_t *pmdp)
{
	return READ_ONCE(*pmdp);
}

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
	    pmd_devmap(pmd) || pmd_bad(pmd))
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

#elif LINUX_VERSION_MAJOR == 6 && LINUX_VERSION_PATCHLEVEL == 12

static inline pmd_t exmap_pmd_read(pmd_t *pmdp)
{
	return pmdp_get_lockless(pmdp);
}

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
	    pmd_devmap(pmd) || pmd_bad(pmd)) {
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

static inline bool exmap_pmd_excl(struct folio *folio, struct page *head,
				  struct page *page, bool present,
				  bool migration, int mapcount)
{
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

#else
#error "exmap knows Linux 6.1 and 6.12 only; use exmtop's pagemap source"
#endif

/* SPARSEMEM: pfn_valid() is a property of a whole subsection */
#ifdef CONFIG_SPARSEMEM
#define EXMAP_PFN_VALID_SHIFT PFN_SUBSECTION_SHIFT
#else
#define EXMAP_PFN_VALID_SHIFT 0
#endif

#endif

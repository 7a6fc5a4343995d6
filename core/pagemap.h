/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagemap.h - the 64-bit page word every source stores, in the layout of
 * /proc/PID/pagemap (Documentation/admin-guide/mm/pagemap.rst):
 *   bits 0-54  PFN when present (zero without CAP_SYS_ADMIN)
 *   bits 0-4   swap type, 5-54 swap offset when swapped
 *   bit  55    soft-dirty
 *   bit  56    page exclusively mapped (mapcount == 1)
 *   bit  57    uffd-wp
 *   bit  58    EXM private: PTE writable (only the kernel module sets it)
 *   bit  59    EXM private: the zero page or the huge zero page (present in
 *              the page tables, but not resident: the kernel's Rss and Pss
 *              leave it out)
 *   bit  60    EXM private: a KSM page
 *   bit  61    file-page or shared-anon
 *   bit  62    swapped
 *   bit  63    present
 */
#ifndef EXM_PAGEMAP_H
#define EXM_PAGEMAP_H

#include <stdbool.h>
#include <stdint.h>

#define EXM_PM_PFN_MASK ((UINT64_C(1) << 55) - 1)
#define EXM_PM_SWAP_TYPE(w) ((unsigned)((w)&0x1f))
#define EXM_PM_SWAP_OFF(w) (((w)&EXM_PM_PFN_MASK) >> 5)
#define EXM_PM_SOFT_DIRTY (UINT64_C(1) << 55)
#define EXM_PM_EXCLUSIVE (UINT64_C(1) << 56)
#define EXM_PM_UFFD_WP (UINT64_C(1) << 57)
#define EXM_PM_WRITABLE (UINT64_C(1) << 58)
#define EXM_PM_ZERO (UINT64_C(1) << 59)
#define EXM_PM_KSM (UINT64_C(1) << 60)
#define EXM_PM_FILE (UINT64_C(1) << 61)
#define EXM_PM_SWAPPED (UINT64_C(1) << 62)
#define EXM_PM_PRESENT (UINT64_C(1) << 63)

/* /proc/self/pagemap, opened once a run (kept: what the probes of the
 * kernel's features ask of our own pages cannot change while it runs);
 * -errno when it cannot be opened (asked again next time). */
int exm_self_pagemap(void);
/* The word of our own page at addr into *w; false when unreadable. */
bool exm_self_pagemap_word(const volatile void *addr, uint64_t *w);

/*
 * How many frames nobody wants one read of /proc/kpagecount may span to
 * join two runs of wanted ones: a frame spanned costs the kernel its
 * work on it, a second read a system call, so runs are joined across a
 * gap that costs less than the call. From the best times seen of a read
 * of one frame (t_one, ns) and of one of n frames (t_n): about 2 on bare
 * metal (6.18: 90 ns a frame, 250 ns a read), about 23 in a guest whose
 * system call costs 1.4 us; EXM_GAP_DEFAULT when the times say nothing.
 */
#define EXM_GAP_DEFAULT 2u
#define EXM_GAP_MAX 64u
static inline unsigned exm_count_gap(uint64_t t_one, uint64_t t_n, unsigned n)
{
	double frame, call;

	if (n < 2 || !t_one || t_n <= t_one)
		return EXM_GAP_DEFAULT;
	frame = (double)(t_n - t_one) / (double)(n - 1);
	call = (double)t_one - frame;
	if (call <= frame)
		return 1;
	return call / frame >= (double)EXM_GAP_MAX ? EXM_GAP_MAX
						   : (unsigned)(call / frame);
}

static inline bool exm_pm_present(uint64_t w)
{
	return (w & EXM_PM_PRESENT) != 0;
}

/* Present and not the zero page: a page that counts as resident. */
static inline bool exm_pm_resident(uint64_t w)
{
	return (w & (EXM_PM_PRESENT | EXM_PM_ZERO)) == EXM_PM_PRESENT;
}

static inline bool exm_pm_swapped(uint64_t w)
{
	return !(w & EXM_PM_PRESENT) && (w & EXM_PM_SWAPPED);
}

/*
 * Entries that are not swap slots (a page being migrated, device-private
 * memory, a poisoned page, a userfaultfd marker, a guard region) show in
 * pagemap as swapped, with a type past every swap area's: the kernel gives
 * them the top of the 5-bit type field, from MAX_SWAPFILES (24 with all
 * of them configured, more with fewer) up. The kernel's Swap and SwapPss
 * leave them out; the pagemap source reads such a word as a hole
 * (read_words). One caught mid-migration once made a page of a parent
 * and its child count as swap in exmtop and not in smaps_rollup.
 */
#define EXM_PM_SWAP_TYPES 24u
static inline bool exm_pm_nonswap(uint64_t w)
{
	return (w & (EXM_PM_PRESENT | EXM_PM_SWAPPED)) == EXM_PM_SWAPPED &&
	       EXM_PM_SWAP_TYPE(w) >= EXM_PM_SWAP_TYPES;
}

/* A word worth keeping: present or swapped. */
static inline bool exm_pm_used(uint64_t w)
{
	return (w & (EXM_PM_PRESENT | EXM_PM_SWAPPED)) != 0;
}

/* Identity of the page: PFN when present, (type, offset) packed when
 * swapped. Present and swap keys live in separate count tables. */
static inline uint64_t exm_pm_key(uint64_t w)
{
	return w & EXM_PM_PFN_MASK;
}

/*
 * The page store keeps a mapping's words in 32 bits when all of them fit
 * (half the memory, and memory is what a snapshot mostly costs): present
 * pages with a PFN below 2^28 (1 TiB of physical address space), swap
 * entries whose key (offset << 5 | type) is below 2^30. Only what
 * accounting uses survives: present, exclusive, file, writable, PFN; or
 * swapped and the swap key. A mapping with a word that does not fit is
 * kept in 64 bits; so is one with a zero-page or KSM word (bits 59, 60:
 * rare enough not to be worth a bit of the PFN).
 */
#define EXM_PC_PRESENT (UINT32_C(1) << 31)
#define EXM_PC_SWAPPED (UINT32_C(1) << 30)  /* when not present */
#define EXM_PC_EXCL (UINT32_C(1) << 30)	    /* when present */
#define EXM_PC_FILE (UINT32_C(1) << 29)	    /* when present */
#define EXM_PC_WRITABLE (UINT32_C(1) << 28) /* when present */
/* unpacking shifts these to bits 63, 56, 61, 58 and 62 */
#define EXM_PC_PFN_MAX ((UINT32_C(1) << 28) - 1)
#define EXM_PC_SWAP_MAX ((UINT32_C(1) << 30) - 1)

/* Pack a used word into *c; false when it does not fit. */
static inline bool exm_pm_pack(uint64_t w, uint32_t *c)
{
	uint64_t key = w & EXM_PM_PFN_MASK;

	if (w & (EXM_PM_ZERO | EXM_PM_KSM))
		return false;
	if (w & EXM_PM_PRESENT) {
		if (key > EXM_PC_PFN_MAX)
			return false;
		/* bits 56, 61, 58 shifted down to 30, 29, 28 */
		*c = EXM_PC_PRESENT | (uint32_t)key |
		     ((uint32_t)(w >> 26) & EXM_PC_EXCL) |
		     ((uint32_t)(w >> 32) & EXM_PC_FILE) |
		     ((uint32_t)(w >> 30) & EXM_PC_WRITABLE);
		return true;
	}
	if (w & EXM_PM_SWAPPED) {
		if (key > EXM_PC_SWAP_MAX)
			return false;
		*c = EXM_PC_SWAPPED | (uint32_t)key;
		return true;
	}
	*c = 0;
	return true;
}

static inline uint64_t exm_pm_unpack(uint32_t c)
{
	/* branch-free: both readings, then pick (this runs per page) */
	uint64_t present = ((uint64_t)(c & EXM_PC_PRESENT) << 32) |
			   ((uint64_t)(c & EXM_PC_EXCL) << 26) |
			   ((uint64_t)(c & EXM_PC_FILE) << 32) |
			   ((uint64_t)(c & EXM_PC_WRITABLE) << 30) |
			   (c & EXM_PC_PFN_MAX);
	uint64_t swapped = ((uint64_t)(c & EXM_PC_SWAPPED) << 32) |
			   (c & EXM_PC_SWAP_MAX);

	return (c & EXM_PC_PRESENT) ? present : swapped;
}

#endif

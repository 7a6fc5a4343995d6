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
 *   bit  61    file-page or shared-anon
 *   bit  62    swapped
 *   bit  63    present
 */
#ifndef EXM_PAGEMAP_H
#define EXM_PAGEMAP_H

#include <stdbool.h>
#include <stdint.h>

#define EXM_PM_PFN_MASK	   ((UINT64_C(1) << 55) - 1)
#define EXM_PM_SWAP_TYPE(w) ((unsigned)((w) & 0x1f))
#define EXM_PM_SWAP_OFF(w)  (((w) & EXM_PM_PFN_MASK) >> 5)
#define EXM_PM_SOFT_DIRTY   (UINT64_C(1) << 55)
#define EXM_PM_EXCLUSIVE    (UINT64_C(1) << 56)
#define EXM_PM_UFFD_WP	    (UINT64_C(1) << 57)
#define EXM_PM_WRITABLE	    (UINT64_C(1) << 58)
#define EXM_PM_FILE	    (UINT64_C(1) << 61)
#define EXM_PM_SWAPPED	    (UINT64_C(1) << 62)
#define EXM_PM_PRESENT	    (UINT64_C(1) << 63)

static inline bool exm_pm_present(uint64_t w)
{
	return (w & EXM_PM_PRESENT) != 0;
}

static inline bool exm_pm_swapped(uint64_t w)
{
	return !(w & EXM_PM_PRESENT) && (w & EXM_PM_SWAPPED);
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

#endif

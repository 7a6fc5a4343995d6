/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exclusive.h - exclusive memory of sets of processes (DESIGN.md s. 3):
 * the pages every scanned mapping of which lies in the set, split by what
 * stopping the set does with them.
 *
 * A process's own figures (exm_sizes.freed, .cached, .shmem_excl) come
 * with accounting (account.c, from the owner the page-count table keeps);
 * exm_exclusive() answers any partition of the processes into sets (the
 * groups of a grouping, a selection) in one pass over the members' page
 * words.
 *
 * A page the scan sees mapped once, whose word says the kernel maps it
 * more than once (pagemap's and the module's exclusive bit clear), is
 * mapped by a process that was not scanned: it is exclusive to no set.
 * A page the scan sees mapped several times has no such check (the
 * kernel's count is not in the snapshot): a limited scan (--scan-pids)
 * can miss an outside mapper of it. Hugetlb and zero pages are in no
 * figure (they are not resident).
 */
#ifndef EXM_EXCLUSIVE_H
#define EXM_EXCLUSIVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/pagemap.h"
#include "core/snapshot.h"

enum exm_excl_cat {
	EXM_EXCL_FREED = 0, /* anonymous, private copies, swap slots */
	EXM_EXCL_CACHED,    /* file pages: stay in the page cache */
	EXM_EXCL_SHMEM,	    /* shared memory, memfd, /dev/shm */
	EXM_EXCL__COUNT
};

/* The category of a resident page word w of a mapping (shmem: the
 * mapping is shared memory, EXM_KIND_SHMEM). */
static inline unsigned exm_excl_cat(uint64_t w, bool shmem)
{
	if (!(w & EXM_PM_FILE))
		return EXM_EXCL_FREED;
	return shmem ? EXM_EXCL_SHMEM : EXM_EXCL_CACHED;
}

/* The category of a swapped page of a mapping: a shared memory page of a
 * shared mapping stays with its file, any other swap slot is freed. */
static inline unsigned exm_excl_swap_cat(bool shmem, bool shared)
{
	return shmem && shared ? EXM_EXCL_SHMEM : EXM_EXCL_FREED;
}

/* Whether a resident page word w, mapped cnt times by the scanned
 * processes, all of one set, may be exclusive: not when the scan sees
 * one mapping and the kernel more. */
static inline bool exm_excl_resident(uint64_t w, uint32_t cnt)
{
	return cnt > 1 || (w & EXM_PM_EXCLUSIVE);
}

#define EXM_SET_NONE UINT32_MAX

struct exm_excl {
	uint64_t bytes[EXM_EXCL__COUNT];
	uint32_t nprocs; /* members whose pages were read */
};

/*
 * The exclusive memory of nsets disjoint sets: set_of[i] is the set of
 * snap->procs[i] (< nsets) or EXM_SET_NONE. Fills out[0..nsets) (zeroed
 * first). Needs an accounted snapshot with page identity (EXM_CAP_PFN);
 * without it returns -EOPNOTSUPP. 0 or -ENOMEM otherwise.
 */
int exm_exclusive(const struct exm_snapshot *snap, const uint32_t *set_of,
		  size_t nsets, struct exm_excl *out);

/* Store e into sizes s (freed, cached, shmem_excl; EXM_HAS_EXCL set). */
void exm_excl_store(const struct exm_excl *e, struct exm_sizes *s);

#endif

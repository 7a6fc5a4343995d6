/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysview.h - all of RAM: rows that add up exactly to MemTotal.
 *
 * The user-space row is exact: the distinct physical pages the scanned
 * processes map (the sum of their effective resident, the USENIX '05
 * paper's "User space pages"). The kernel rows are the kernel's own
 * counters from /proc/meminfo. Three rows are what /proc/meminfo counts
 * less what the scan found mapped: anonymous memory of processes not
 * scanned (AnonPages), page cache not mapped by a scanned process
 * (Cached + Buffers - Shmem) and shared memory not mapped by one (Shmem);
 * a fourth, the swap cache no scanned process maps, is SwapCached less
 * the mapped swap-cache pages the scan saw (kpageflags.h), when the
 * snapshot knows them (the pagemap source as root); else, with pages in
 * the swap cache, the row is unknown (bytes 0, known false: "-", JSON
 * null) and that swap cache is in unexplained.
 * The huge page pool (Hugetlb) is split likewise: the hugetlb frames the
 * scanned processes map (exact; they are in no other row, as they are in
 * no process's resident), the pages in use (HugePages_Total less
 * HugePages_Free, of the default size) less those, and the rest (free or
 * reserved). Those are never negative (a counter that moved between the scan and the
 * read of /proc/meminfo is clamped at 0).
 *
 * The last row, "unexplained", is MemTotal less every other row, so the
 * rows always add up to MemTotal exactly. It holds memory no counter
 * names (pages drivers allocate directly, memory of devices) and the
 * drift between the read of /proc/meminfo (taken with the snapshot, when
 * its scan began) and the scan.
 * It is negative when the other rows count more than MemTotal (counters
 * that overlap, or moved between reads): it is then shown as a negative
 * number, never hidden or clamped.
 */
#ifndef EXM_SYSVIEW_H
#define EXM_SYSVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

enum exm_sysrow_id {
	EXM_SYS_USER = 0,	/* user-space pages of scanned processes */
	EXM_SYS_ANON_UNSCANNED, /* AnonPages - scanned anonymous */
	EXM_SYS_CACHE_UNMAPPED, /* Cached + Buffers - Shmem - scanned file */
	EXM_SYS_SHMEM_UNMAPPED, /* Shmem - scanned shared memory */
	EXM_SYS_SWAPCACHE_UNMAPPED, /* SwapCached - mapped swap cache seen */
	EXM_SYS_SLAB_RECLAIM,	    /* SReclaimable */
	EXM_SYS_SLAB_UNRECLAIM,	    /* SUnreclaim */
	EXM_SYS_KRECLAIM_OTHER,	    /* KReclaimable - SReclaimable */
	EXM_SYS_KSTACK,		    /* KernelStack */
	EXM_SYS_PAGETABLES,	    /* PageTables + SecPageTables */
	EXM_SYS_VMALLOC,	    /* VmallocUsed - KernelStack */
	EXM_SYS_PERCPU,		    /* Percpu */
	EXM_SYS_HUGE_MAPPED,	    /* hugetlb frames scanned processes map */
	EXM_SYS_HUGE_UNMAPPED,	    /* huge pages in use less those */
	EXM_SYS_HUGE_FREE,	    /* Hugetlb less huge pages in use */
	EXM_SYS_ZSWAP,		    /* Zswap */
	EXM_SYS_BALLOON,	    /* Balloon */
	EXM_SYS_FREE,		    /* MemFree */
	EXM_SYS_UNEXPLAINED,	    /* MemTotal - all of the above */
	EXM_SYS__COUNT
};

struct exm_sysrow {
	const char *name; /* stable key: "user_space", ..., "unexplained" */
	const char *help; /* one line: what it is, where it comes from */
	int64_t bytes;	  /* only "unexplained" can be negative */
	bool known;	  /* false: not measured (bytes 0, in unexplained) */
};

struct exm_sysview {
	uint64_t mem_total;			/* bytes, MemTotal */
	struct exm_sysrow rows[EXM_SYS__COUNT]; /* sum of bytes == mem_total */
	size_t nrows;
	/* The user-space row split by page kind (distinct pages). */
	uint64_t user_anon, user_file, user_shmem;
};

/*
 * The system view of accounted snapshot snap, from the /proc/meminfo rows
 * taken with it (snap->sys.meminfo: live, fixture or replayed alike). Needs
 * page identity (EXM_CAP_PFN): -EOPNOTSUPP otherwise. -ENODATA when the
 * snapshot has no meminfo (a recording made before exmtop kept it), and
 * -EINVAL when it has no MemTotal. On failure err (errlen bytes) holds one
 * line.
 */
int exm_sysview_build(const struct exm_snapshot *snap, struct exm_sysview *out,
		      char *err, size_t errlen);

/* The same with other meminfo rows (tests). */
int exm_sysview_from_meminfo(const struct exm_snapshot *snap,
			     const struct exm_meminfo *mi,
			     struct exm_sysview *out, char *err, size_t errlen);

#endif

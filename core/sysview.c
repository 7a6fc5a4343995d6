// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysview.c - all of RAM in rows that add up to MemTotal; see sysview.h.
 */
#include "core/sysview.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/kpageflags.h"
#include "core/pagecount.h"

static const struct {
	const char *name, *help;
} rowdefs[EXM_SYS__COUNT] = {
	[EXM_SYS_USER] = { "user_space",
			   "pages mapped by scanned processes (exact)" },
	[EXM_SYS_ANON_UNSCANNED] = { "anon_unscanned",
				     "anonymous memory of processes not "
				     "scanned (AnonPages less scanned)" },
	[EXM_SYS_CACHE_UNMAPPED] = { "page_cache_unmapped",
				     "page cache no scanned process maps "
				     "(Cached+Buffers-Shmem less scanned)" },
	[EXM_SYS_SHMEM_UNMAPPED] = { "shmem_unmapped",
				     "shared memory and tmpfs no scanned "
				     "process maps (Shmem less scanned)" },
	[EXM_SYS_SWAPCACHE_UNMAPPED] = { "swap_cache_unmapped",
					 "swap cache no scanned process maps "
					 "(SwapCached less the mapped "
					 "swap-cache pages the scan saw; "
					 "unknown to sources without them)" },
	[EXM_SYS_SLAB_RECLAIM] = { "slab_reclaimable",
				   "kernel slab, reclaimable (SReclaimable)" },
	[EXM_SYS_SLAB_UNRECLAIM] = { "slab_unreclaimable",
				     "kernel slab, unreclaimable "
				     "(SUnreclaim)" },
	[EXM_SYS_KRECLAIM_OTHER] = { "kernel_reclaimable_other",
				     "other reclaimable kernel memory "
				     "(KReclaimable-SReclaimable)" },
	[EXM_SYS_KSTACK] = { "kernel_stacks", "kernel stacks (KernelStack)" },
	[EXM_SYS_PAGETABLES] = { "page_tables",
				 "page tables (PageTables+SecPageTables)" },
	[EXM_SYS_VMALLOC] = { "vmalloc",
			      "vmalloc, less kernel stacks which are "
			      "vmalloc'd (VmallocUsed-KernelStack)" },
	[EXM_SYS_PERCPU] = { "percpu", "per-CPU allocations (Percpu)" },
	[EXM_SYS_HUGE_MAPPED] = { "hugetlb_mapped",
				  "huge pages scanned processes map (exact)" },
	[EXM_SYS_HUGE_UNMAPPED] = { "hugetlb_unmapped",
				    "huge pages in use no scanned process "
				    "maps (of every size: sysfs's "
				    "nr+surplus-free less mapped)" },
	[EXM_SYS_HUGE_FREE] = { "hugetlb_free",
				"huge pages free or reserved (Hugetlb less "
				"in use)" },
	[EXM_SYS_ZSWAP] = { "zswap", "compressed swap cache (Zswap)" },
	[EXM_SYS_BALLOON] = { "balloon",
			      "taken by a virtual machine balloon (Balloon)" },
	[EXM_SYS_FREE] = { "free", "free memory (MemFree)" },
	[EXM_SYS_UNEXPLAINED] = { "unexplained",
				  "MemTotal less every row above; negative "
				  "when the rows over-count" },
};

enum { PK_ANON, PK_FILE, PK_SHMEM, PK__COUNT };

/* Distinct resident pages the scanned processes map, by kind (neither
 * the zero page nor hugetlb pages: see the hugetlb rows). A counted
 * mapping's pages (exm_mapping.counted) are anonymous, each mapped once:
 * distinct by their count. */
static int user_split(const struct exm_snapshot *snap, uint64_t *n)
{
	struct exm_pagecount *pc[PK__COUNT] = { 0 };
	uint64_t counted = 0;
	int r = -ENOMEM;

	for (int k = 0; k < PK__COUNT; k++)
		if (!(pc[k] = exm_pagecount_new()))
			goto out;
	for (size_t i = 0; i < snap->nprocs; i++) {
		const struct exm_proc *p = &snap->procs[i];

		for (size_t j = 0; j < p->nmaps; j++) {
			const struct exm_mapping *m = &p->maps[j];

			if (m->counted)
				counted += m->counted_rss / snap->sys.page_size;
			for (uint32_t k = 0; !m->hugetlb && k < m->npages;
			     k++) {
				uint64_t w = exm_mapping_word(m, k);
				int kind = PK_ANON;

				if (!exm_pm_resident(w))
					continue;
				if (w & EXM_PM_FILE)
					kind = m->kind == EXM_KIND_SHMEM
						       ? PK_SHMEM
						       : PK_FILE;
				if (exm_pagecount_add(pc[kind], exm_pm_key(w),
						      0))
					goto out;
			}
		}
	}
	for (int k = 0; k < PK__COUNT; k++)
		n[k] = exm_pagecount_distinct(pc[k]);
	n[PK_ANON] += counted;
	r = 0;
out:
	for (int k = 0; k < PK__COUNT; k++)
		exm_pagecount_free(pc[k]);
	return r;
}

/* a - b, or 0 when b is larger. */
static int64_t less(uint64_t a, uint64_t b)
{
	return a > b ? (int64_t)(a - b) : 0;
}

/* Far beyond any machine, small enough that rows sum without overflow. */
#define SYS_MAX (UINT64_C(1) << 56)

/* The counters the rows are made of: each read once, range-checked. */
enum {
	MI_TOTAL,
	MI_ANON,
	MI_CACHED,
	MI_BUFFERS,
	MI_SHMEM,
	MI_SRECL,
	MI_SUNRECL,
	MI_KSTACK,
	MI_PT,
	MI_SPT,
	MI_VMALLOC,
	MI_PERCPU,
	MI_HUGETLB,
	MI_ZSWAP,
	MI_BALLOON,
	MI_FREE,
	MI_KRECL,
	MI_HP_TOTAL,
	MI_HP_FREE,
	MI_HP_SIZE,
	MI_SWAPCACHED,
	MI_SWAPCACHED_MAPPED,
	MI__COUNT
};
static const char *const keys[MI__COUNT] = {
	[MI_TOTAL] = "MemTotal",
	[MI_ANON] = "AnonPages",
	[MI_CACHED] = "Cached",
	[MI_BUFFERS] = "Buffers",
	[MI_SHMEM] = "Shmem",
	[MI_SRECL] = "SReclaimable",
	[MI_SUNRECL] = "SUnreclaim",
	[MI_KSTACK] = "KernelStack",
	[MI_PT] = "PageTables",
	[MI_SPT] = "SecPageTables",
	[MI_VMALLOC] = "VmallocUsed",
	[MI_PERCPU] = "Percpu",
	[MI_HUGETLB] = "Hugetlb",
	[MI_ZSWAP] = "Zswap",
	[MI_BALLOON] = "Balloon",
	[MI_FREE] = "MemFree",
	[MI_KRECL] = "KReclaimable",
	[MI_HP_TOTAL] = "HugePages_Total",
	[MI_HP_FREE] = "HugePages_Free",
	[MI_HP_SIZE] = "Hugepagesize",
	[MI_SWAPCACHED] = "SwapCached",
	[MI_SWAPCACHED_MAPPED] = EXM_MI_SWAPCACHE_MAPPED,
};

int exm_sysview_from_meminfo(const struct exm_snapshot *snap,
			     const struct exm_meminfo *mi,
			     struct exm_sysview *out, char *err, size_t errlen)
{
	uint64_t ps = snap->sys.page_size, split[PK__COUNT], huse;
	uint64_t v[EXM_SYS__COUNT] = { 0 };
	uint64_t c[MI__COUNT] = { 0 }; /* 0 when meminfo lacks it */
	bool has[MI__COUNT] = { 0 }, known[EXM_SYS__COUNT];
	int64_t sum = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!(snap->sys.caps & EXM_CAP_PFN)) {
		snprintf(err, errlen,
			 "the system view needs page identity "
			 "(the pagemap source, as root)");
		return -EOPNOTSUPP;
	}
	if (mi->predates) {
		snprintf(err, errlen,
			 "this snapshot was recorded before exmtop kept "
			 "/proc/meminfo (recording schema 1): its kernel "
			 "counters are not known");
		return -ENODATA;
	}
	if (!mi->n) {
		snprintf(err, errlen,
			 "no /proc/meminfo was taken with this snapshot");
		return -ENODATA;
	}
	if (!exm_meminfo_get(mi, keys[MI_TOTAL], &out->mem_total)) {
		snprintf(err, errlen, "meminfo: no MemTotal");
		return -EINVAL;
	}
	for (int i = 0; i < MI__COUNT; i++) {
		if (!(has[i] = exm_meminfo_get(mi, keys[i], &c[i])))
			continue;
		if (c[i] > SYS_MAX) {
			snprintf(err, errlen, "meminfo: %s is out of range",
				 keys[i]);
			return -EINVAL;
		}
	}
	r = user_split(snap, split);
	if (r) {
		snprintf(err, errlen, "out of memory");
		return r;
	}
	out->user_anon = split[PK_ANON] * ps;
	out->user_file = split[PK_FILE] * ps;
	out->user_shmem = split[PK_SHMEM] * ps;
	v[EXM_SYS_USER] = snap->distinct_pages * ps;
	v[EXM_SYS_ANON_UNSCANNED] = (uint64_t)less(c[MI_ANON], out->user_anon);
	v[EXM_SYS_CACHE_UNMAPPED] = (uint64_t)
		less((uint64_t)less(c[MI_CACHED] + c[MI_BUFFERS], c[MI_SHMEM]),
		     out->user_file);
	v[EXM_SYS_SHMEM_UNMAPPED] = (uint64_t)less(c[MI_SHMEM],
						   out->user_shmem);
	/* the mapped ones are in AnonPages: in the rows above; which are
	 * mapped only the pagemap source says (an empty swap cache holds
	 * none either way) */
	memset(known, 1, sizeof(known));
	if (has[MI_SWAPCACHED_MAPPED])
		v[EXM_SYS_SWAPCACHE_UNMAPPED] = (uint64_t)
			less(c[MI_SWAPCACHED], c[MI_SWAPCACHED_MAPPED]);
	else
		known[EXM_SYS_SWAPCACHE_UNMAPPED] = !c[MI_SWAPCACHED];
	v[EXM_SYS_SLAB_RECLAIM] = c[MI_SRECL];
	v[EXM_SYS_SLAB_UNRECLAIM] = c[MI_SUNRECL];
	/* KReclaimable is SReclaimable and more (0 where the kernel lacks it) */
	v[EXM_SYS_KRECLAIM_OTHER] = (uint64_t)less(c[MI_KRECL], c[MI_SRECL]);
	v[EXM_SYS_KSTACK] = c[MI_KSTACK];
	v[EXM_SYS_PAGETABLES] = c[MI_PT] + c[MI_SPT];
	v[EXM_SYS_VMALLOC] = (uint64_t)less(c[MI_VMALLOC], c[MI_KSTACK]);
	v[EXM_SYS_PERCPU] = c[MI_PERCPU];
	/* huge pages in use, of every size where sysfs said it (else of the
	 * default size: meminfo counts no other), at least those mapped;
	 * what is left of the pool is free */
	v[EXM_SYS_HUGE_MAPPED] = snap->distinct_hugetlb * ps;
	if (!exm_meminfo_get(mi, EXM_MEMINFO_HUGETLB_USED, &huse) ||
	    huse > SYS_MAX) {
		huse = (uint64_t)less(c[MI_HP_TOTAL], c[MI_HP_FREE]);
		huse = c[MI_HP_SIZE] && huse > SYS_MAX / c[MI_HP_SIZE]
			       ? SYS_MAX
			       : huse * c[MI_HP_SIZE];
	}
	if (huse < v[EXM_SYS_HUGE_MAPPED])
		huse = v[EXM_SYS_HUGE_MAPPED];
	v[EXM_SYS_HUGE_UNMAPPED] = huse - v[EXM_SYS_HUGE_MAPPED];
	v[EXM_SYS_HUGE_FREE] = (uint64_t)less(c[MI_HUGETLB], huse);
	v[EXM_SYS_ZSWAP] = c[MI_ZSWAP];
	v[EXM_SYS_BALLOON] = c[MI_BALLOON];
	v[EXM_SYS_FREE] = c[MI_FREE];
	for (int i = 0; i < EXM_SYS_UNEXPLAINED; i++) {
		out->rows[i].name = rowdefs[i].name;
		out->rows[i].help = rowdefs[i].help;
		out->rows[i].bytes = (int64_t)v[i];
		out->rows[i].known = known[i];
		sum += (int64_t)v[i];
	}
	out->rows[EXM_SYS_UNEXPLAINED].name = rowdefs[EXM_SYS_UNEXPLAINED].name;
	out->rows[EXM_SYS_UNEXPLAINED].help = rowdefs[EXM_SYS_UNEXPLAINED].help;
	out->rows[EXM_SYS_UNEXPLAINED].bytes = (int64_t)out->mem_total - sum;
	out->rows[EXM_SYS_UNEXPLAINED].known = true;
	out->nrows = EXM_SYS__COUNT;
	return 0;
}

int exm_sysview_build(const struct exm_snapshot *snap, struct exm_sysview *out,
		      char *err, size_t errlen)
{
	return exm_sysview_from_meminfo(snap, &snap->sys.meminfo, out, err,
					errlen);
}

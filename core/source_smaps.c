// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_smaps.c - per-mapping figures from /proc/PID/smaps, for users who
 * cannot read page frame numbers. No page identity: effective resident is
 * the kernel's Pss, effective swap its SwapPss, sole its Private_Clean +
 * Private_Dirty (USS), swap its Swap but in shared mappings (a shmem
 * file's pages in swap, no page table's) and in private file mappings
 * (their own entries: what VmSwap leaves, see private_file_swap); writable
 * and byte ranges cannot be measured.
 * hugetlb is Shared_Hugetlb + Private_Hugetlb of a mapping whose
 * KernelPageSize is a huge page; smaps has no share of it (effective
 * hugetlb unknown) and does not count the zero page (zero unknown).
 * Other users' processes are listed from statm (VM, resident) only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/procfs.h"
#include "core/source_priv.h"

static int sm_open(struct exm_source *src)
{
	return 0;
}

struct vma_acc {
	uint64_t size, rss, pss, swap, swap_pss, priv, hugetlb, kpage;
};

/* What smaps says of every mapping it lists. */
#define SMAPS_HAS                                                 \
	(EXM_HAS_VM | EXM_HAS_RSS | EXM_HAS_ERSS | EXM_HAS_SWAP | \
	 EXM_HAS_ESWAP | EXM_HAS_SOLE | EXM_HAS_HUGETLB)

static void vma_store(struct exm_mapping *m, const struct vma_acc *a,
		      unsigned ps)
{
	if (a->kpage > ps && a->kpage <= UINT32_MAX)
		exm_mapping_set_hugetlb(m, (uint32_t)a->kpage);
	m->sz.hugetlb = a->hugetlb;
	m->sz.vm = m->end - m->start;
	m->sz.rss = a->rss;
	m->sz.erss = (double)a->pss;
	/* A shared mapping holds no swap entry: its smaps Swap is its
	 * shmem file's pages in swap, which no page table maps (the kernel's
	 * SwapPss and VmSwap leave them out, as pagemap and the module do). */
	m->sz.swap = (m->perms & EXM_PERM_S) ? 0 : a->swap;
	m->sz.eswap = (double)a->swap_pss;
	m->sz.sole = a->priv;
	m->sz.has = SMAPS_HAS;
}

static bool key_is(const char *key, size_t klen, const char *want)
{
	return strlen(want) == klen && !memcmp(key, want, klen);
}

/* Parse smaps text: VMA headers are matched to p->maps by address (two
 * reads of one kernel list; VMAs that changed in between are skipped). */
struct smaps_parse {
	struct exm_proc *p;
	struct exm_mapping *cur;
	struct vma_acc a;
	unsigned ps;
};

static void on_vma(void *ctx, size_t first, bool exact, uint64_t start,
		   uint64_t end)
{
	struct smaps_parse *sp = ctx;

	if (sp->cur)
		vma_store(sp->cur, &sp->a, sp->ps);
	memset(&sp->a, 0, sizeof(sp->a));
	sp->cur = exact ? &sp->p->maps[first] : NULL;
}

static void on_kv(void *ctx, const char *key, size_t klen, uint64_t v)
{
	struct vma_acc *a = &((struct smaps_parse *)ctx)->a;

	if (key_is(key, klen, "Rss"))
		a->rss = v;
	else if (key_is(key, klen, "Pss"))
		a->pss = v;
	else if (key_is(key, klen, "Swap"))
		a->swap = v;
	else if (key_is(key, klen, "SwapPss"))
		a->swap_pss = v;
	else if (key_is(key, klen, "Private_Clean") ||
		 key_is(key, klen, "Private_Dirty"))
		a->priv += v;
	else if (key_is(key, klen, "Shared_Hugetlb") ||
		 key_is(key, klen, "Private_Hugetlb"))
		a->hugetlb += v;
	else if (key_is(key, klen, "KernelPageSize"))
		a->kpage = v;
}

static void parse_smaps(const char *buf, size_t len, struct exm_proc *p,
			unsigned ps)
{
	struct smaps_parse sp = { .p = p, .ps = ps };

	exm_smaps_walk(buf, len, p, on_vma, on_kv, &sp);
	if (sp.cur)
		vma_store(sp.cur, &sp.a, ps);
}

/* A private mapping of a file (not /dev/zero's anonymous memory): if the
 * file is shmem (tmpfs, memfd, SysV), smaps' Swap adds the file's pages in
 * swap where the mapping has none of its own (smaps_pte_hole), which no
 * page table of the process holds. */
static bool private_file(const struct exm_mapping *m)
{
	return !(m->perms & EXM_PERM_S) && m->inode && m->kind != EXM_KIND_ANON;
}

/* VmSwap of /proc/PID/status in bytes (the process's swap entries), or -1. */
static int64_t read_vmswap(int dirfd)
{
	char *buf, *at;
	size_t len;
	int64_t v = -1;

	if (exm_read_file(dirfd, "status", &buf, &len))
		return -1;
	at = strstr(buf, "\nVmSwap:");
	if (at)
		v = (int64_t)strtoull(at + 8, NULL, 10) * 1024;
	free(buf);
	return v;
}

/* What a private file mapping's SwapPss says of its own swap entries: at
 * least that many (whole pages), at most its smaps Swap. */
static uint64_t swap_first(const struct exm_mapping *m, unsigned ps)
{
	uint64_t pss = (uint64_t)m->sz.eswap / ps * ps;

	return pss < m->sz.swap ? pss : m->sz.swap;
}

/*
 * Private file mappings' swap: only their own swap entries (copies of
 * the file's pages, swapped out), as pagemap and the kernel's VmSwap count
 * it. smaps cannot split a shmem file's pages in swap from them in one
 * mapping, but the process's entries are VmSwap, and every other mapping's
 * smaps Swap is its entries alone (shared ones were set to 0): what is left
 * of VmSwap is these mappings' entries (status is read only when one of
 * them has swap). Each gets first its SwapPss (whole for entries no other
 * process shares; smaps_pte_hole adds none), then what is left goes, up to
 * each one's smaps Swap in address order, to those with SwapPss, then to
 * those without: exact for one such mapping with swap, when their entries
 * are not shared, or when those with entries have SwapPss and the others
 * none; README says so.
 */
static void private_file_swap(struct exm_proc *p, int dirfd, unsigned ps)
{
	uint64_t mine = 0, others = 0, firsts = 0, left, extra;
	int64_t vmswap;

	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exm_mapping *m = &p->maps[i];

		if (!m->sz.has)
			continue;
		if (private_file(m)) {
			mine += m->sz.swap;
			firsts += swap_first(m, ps);
		} else {
			others += m->sz.swap;
		}
	}
	if (!mine)
		return;
	vmswap = read_vmswap(dirfd);
	if (vmswap < 0 || (uint64_t)vmswap < others ||
	    (uint64_t)vmswap - others >= mine)
		return; /* unknown, or no file pages counted */
	left = (uint64_t)vmswap - others;
	extra = firsts < left ? left - firsts : 0;
	/* pass 0: each one's SwapPss, and the rest to those with some;
	 * pass 1: what is still left to those without */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->nmaps; i++) {
			struct exm_mapping *m = &p->maps[i];
			uint64_t first = 0, room, more;

			if (!m->sz.has || !private_file(m) ||
			    (pass ? m->sz.eswap > 0 : m->sz.eswap <= 0))
				continue;
			if (!pass) {
				first = swap_first(m, ps);
				first = first < left ? first : left;
				left -= first;
			}
			room = m->sz.swap - first;
			more = room < extra ? room : extra;
			extra -= more;
			m->sz.swap = first + more;
		}
}

static int sm_proc(struct exm_source *src, void *ctx,
		   const struct exm_scan_opts *opts, struct exm_builder *b,
		   struct exm_proc *p, struct exm_pdir *d)
{
	char *buf;
	size_t len;
	int ret, dirfd = exm_pdir_fd(d);

	if (dirfd < 0)
		return dirfd;
	ret = exm_read_file(dirfd, "smaps", &buf, &len);
	if (ret)
		return ret;
	parse_smaps(buf, len, p, b->snap->sys.page_size);
	free(buf);
	private_file_swap(p, dirfd, b->snap->sys.page_size);
	/* The kernel's per-process figures come from smaps_rollup: the
	 * Pss_Anon/File/Shmem split exists only there, and it rounds once
	 * rather than per mapping. */
	if (exm_want_kpss(opts, p->pid)) {
		ret = exm_read_kpss(b, d, p);
		if (exm_errno_gone(ret))
			return ret;
	}
	/* Mappings that smaps no longer listed were unmapped in between:
	 * they count only their size. */
	for (size_t i = 0; i < p->nmaps; i++)
		if (!p->maps[i].sz.has) {
			p->maps[i].sz.vm = p->maps[i].end - p->maps[i].start;
			p->maps[i].sz.has = SMAPS_HAS;
		}
	return 0;
}

static bool sm_probe(void)
{
	return true; /* anyone may read their own processes' smaps */
}

static int sm_fill(struct exm_source *src, const struct exm_scan_opts *opts,
		   struct exm_builder *b)
{
	static const struct exm_walk walk = { .fn = sm_proc,
					      .read_maps = true };
	struct exm_sysinfo sys;
	int ret;

	exm_sysfacts_local(&sys, opts->proc_root);
	snprintf(sys.source, sizeof(sys.source), "smaps");
	snprintf(sys.source_detail, sizeof(sys.source_detail),
		 "/proc/PID/smaps");
	sys.caps = EXM_CAP_KPSS;
	snprintf(sys.limits, sizeof(sys.limits),
		 "%skernel Pss only (no page identity): sole = kernel "
		 "Private (USS), no writable, no ELF byte ranges",
		 exm_pagemap_has_pfns() ? "" : "unprivileged: own processes, ");
	ret = exm_build_begin(b, &sys);
	return ret ? ret : exm_proc_walk(src, opts, b, &walk);
}

static void sm_close(struct exm_source *src)
{
}

const struct exm_source_ops exm_source_smaps = {
	.name = "smaps",
	.probe = sm_probe,
	.open = sm_open,
	.fill = sm_fill,
	.close = sm_close,
};

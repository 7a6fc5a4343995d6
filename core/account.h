/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * account.h - turn a filled snapshot into the sizes of docs/DESIGN.md s. 3.
 *
 * exm_snapshot_account() runs once per snapshot: it collates every page word
 * into share counts by PFN and by swap entry, then fills exm_mapping.sz,
 * exm_proc.sz, the per-process file breakdown (exm_proc.pfiles), the files
 * across all processes (snapshot->files) and snapshot->total.
 *
 * Byte ranges smaller than a page are supported: a range covering b bytes of
 * a page counts b (resident/swap/sole/writable) and b / maps (effective).
 */
#ifndef EXM_ACCOUNT_H
#define EXM_ACCOUNT_H

#include "core/snapshot.h"

/* 0 or -ENOMEM. Idempotent: a second call does nothing. */
int exm_snapshot_account(struct exm_snapshot *snap);

/*
 * The same, where kept[i] (kept NULL: none) may hold the sizes of the
 * mappings of snap->procs[i] (by mapping number) from an earlier
 * snapshot: one whose has is not 0 is taken as it is, not summed again
 * over the page words. Only exact when that mapping's words are the same
 * as then and no frame or swap entry it maps changed its count of
 * mappings among the scanned processes (reuse.c keeps them so). The
 * share counts are made from every word, unless snap already holds its
 * three tables (pfn_counts, swap_counts, huge_counts): then those are
 * taken as they are, which is only exact when they were counted for the
 * same processes (in the same order) with the same words (reuse.c gives
 * a snapshot the last one's then).
 */
int exm_snapshot_account_kept(struct exm_snapshot *snap,
			      const struct exm_sizes *const *kept);

/*
 * Sizes of the bytes [start, end) of process p's address space that lie
 * inside mapping m (pass m = NULL to consider every mapping of p). Requires
 * an accounted snapshot whose source has EXM_CAP_PAGES; otherwise out->has
 * holds only EXM_HAS_VM. Always returns 0 (out is zeroed first).
 */
int exm_range_sizes(const struct exm_snapshot *snap, const struct exm_proc *p,
		    const struct exm_mapping *m, uint64_t start, uint64_t end,
		    struct exm_sizes *out);

/* The process-file entry of p for file f, or NULL. */
const struct exm_pfile *exm_proc_find_pfile(const struct exm_proc *p,
					    const struct exm_file *f);

/* Find a file by name (exact) among snapshot->files; NULL if absent. */
const struct exm_file *exm_snapshot_find_file(const struct exm_snapshot *snap,
					      const char *name);

#endif

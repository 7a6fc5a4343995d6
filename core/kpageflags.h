/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kpageflags.h - what /proc/kpageflags says of physical frames.
 *
 * /proc/kpageflags holds 64 flag bits per frame (8 bytes at offset
 * 8 * PFN; root only; Documentation/admin-guide/mm/pagemap.rst). Only the
 * frames a snapshot already has are read, sorted and in runs: frames close
 * together are read with one pread, never one read per page.
 *
 * The swap cache: meminfo's SwapCached counts every page in it, mapped or
 * not; a mapped one is also in AnonPages. exm_swapcache_mapped() counts the
 * swap-cache frames the scanned processes map, and records the count with
 * the snapshot's meminfo rows as exmtop's own row "SwapCached(mapped)" (kB)
 * so a replay has it too. The system view's swap-cache row is SwapCached
 * less that (sysview.h).
 */
#ifndef EXM_KPAGEFLAGS_H
#define EXM_KPAGEFLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

/* Bits of a frame's flags (the kernel's uapi kernel-page-flags.h) */
#define EXM_KPF_SWAPCACHE 13 /* in the swap cache */
#define EXM_KPF_KSM 21	     /* a KSM page */

/* The meminfo row exm_swapcache_mapped() adds. */
#define EXM_MI_SWAPCACHE_MAPPED "SwapCached(mapped)"

/*
 * Sort frame numbers (or any keys) v[0..n) ascending, with tmp room for n
 * of them: by radix, a byte a pass, only the bytes in which they differ
 * (a qsort of a million frames took a tenth of a snapshot's CPU).
 */
void exm_sort_frames(uint64_t *v, uint64_t *tmp, size_t n);

/*
 * The flags of frames pfns[0..n) (ascending, no repeats) into flags[0..n),
 * read from proc_root/kpageflags (NULL: /proc). 0 or -errno (-ENOMEM, or
 * what opening or reading the file gave).
 */
int exm_kpageflags_read(const char *proc_root, const uint64_t *pfns, size_t n,
			uint64_t *flags);
/* The same of any file of 8 bytes per frame, proc_root/name
 * ("kpagecgroup": the inode of the memcg each frame is charged to). */
int exm_kpage_read(const char *proc_root, const char *name,
		   const uint64_t *pfns, size_t n, uint64_t *out);

/*
 * The distinct present frames of snap's page words for which keep(p, m,
 * w, arg) holds (m a mapping of process p), ascending, *n of them (caller
 * frees); NULL on ENOMEM.
 */
uint64_t *exm_kpage_frames(const struct exm_snapshot *snap,
			   bool (*keep)(const struct exm_proc *p,
					const struct exm_mapping *m, uint64_t w,
					const void *arg),
			   const void *arg, size_t *n);

/*
 * When snap's meminfo says the swap cache holds pages: count the distinct
 * anonymous frames its processes map that are in the swap cache, and add
 * the row EXM_MI_SWAPCACHE_MAPPED to snap->sys.meminfo. Needs page
 * identity; nothing is added when kpageflags cannot be read (the row
 * stays unknown). 0 or -ENOMEM.
 */
int exm_swapcache_mapped(struct exm_snapshot *snap, const char *proc_root);

/*
 * Whether /sys/kernel/mm/ksm says KSM shares pages now: 1, 0 (none, or a
 * kernel without KSM), -1 (not known).
 */
int exm_ksm_sharing(void);

/*
 * Whether process pid may map KSM pages: its ksm_merging_pages (under
 * proc_root, NULL: /proc) is not 0, or cannot be read but for the
 * process being gone.
 */
bool exm_ksm_merging(const char *proc_root, pid_t pid);

/*
 * Mark the KSM pages of snap (EXM_PM_KSM in their words) and set
 * EXM_CAP_KSM. A KSM page is anonymous. It is mapped more than once while
 * the pages merged into it are; once its other sharers unmapped it (they
 * exited, wrote it, unmerged) a process maps it alone, and pagemap calls
 * it exclusive. So the frames asked about are those mapped more than
 * once, and every frame of a process whose ksm_merging_pages is not 0
 * (exm_ksm_merging); only when /sys/kernel/mm/ksm says some pages are
 * shared (sharing: exm_ksm_sharing's answer as the snapshot began): with
 * none, or a kernel without KSM, there is none to mark. Without a
 * readable kpageflags (or with a /proc other than the machine's) the
 * snapshot does not know (no EXM_CAP_KSM). The words of a mapping marked
 * ksm_known (a live refresh's kept ones) keep their marks: no flag is
 * read for them. 0 or -ENOMEM.
 */
int exm_ksm_mark(struct exm_snapshot *snap, const char *proc_root, int sharing);

#endif

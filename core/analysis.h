/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analysis.h - alerts: memory that is wasted or suspicious, found in one
 * accounted snapshot (and, for growth, the one before it). The kinds:
 *
 * EXM_ALERT_TEXT_COPIES: pages of a file's read-only mappings (text,
 *   read-only data) that are private copies (anonymous pages in a file
 *   mapping) in several processes mapping the same file. The usual cause
 *   is text relocations (DT_TEXTREL: a library not built position
 *   independent); the alert says whether the file has them. Pages of the
 *   PT_GNU_RELRO range are copies by design and never count; read-only
 *   mappings of a file whose ELF headers cannot be read count only when
 *   executable (a RELRO range cannot be ruled out otherwise).
 * EXM_ALERT_DATA_COW: private copies at the same file offsets of a file's
 *   writable private mappings (.data) in many processes: copy-on-write of
 *   data that could perhaps be read-only (const) or written before fork.
 *
 *   For both, bytes is what sharing one copy would save: summed over the
 *   file's pages, (distinct private copies of that page - 1) x page size.
 *   Distinct copies are distinct frames (a copy inherited through fork is
 *   one frame); a source without page identity counts one per process.
 *   Needs page-level facts (EXM_CAP_PAGES).
 * EXM_ALERT_ANON_GROWTH: a process (the same pid and start time in both
 *   snapshots) whose anonymous memory (heap, stack and anonymous mappings,
 *   resident plus swapped) grew by at least min_growth: bytes is the growth,
 *   seconds the time between the snapshots. Needs a previous snapshot.
 * EXM_ALERT_PSS_MISMATCH: a process whose kernel Pss and effective
 *   resident differ by more than the documented causes explain (README,
 *   "Why erss and the kernel's pss may differ": exmtop's own pages,
 *   per-mapping truncation, large folios; zero and hugetlb pages are in
 *   neither figure, like with like), taken as
 *   max(pss_abs, pss_frac x Pss). What remains is a page shared with
 *   something exmtop did not scan (another pid namespace, a process that
 *   was denied or exited mid-scan) or a process that changed between the
 *   two reads. bytes is erss - Pss (rounded to the byte; may be negative).
 *   Needs page identity (EXM_CAP_PFN), the kernel's figures, and a scan
 *   of every process (opts.partial_scan false).
 *
 * EXM_ALERT_OOM_MISLEADING: the process the kernel's OOM killer would kill
 *   first (the highest /proc/PID/oom_score among the scanned processes it
 *   may kill, oom_score_adj above -1000) would free (exm_sizes.freed) less
 *   than half of what another such process would, and at least oom_min
 *   less: its score counts pages it shares (Rss), what it frees does not.
 *   bytes is the other's freed less its own; before, after: its own freed
 *   and the other's; other: the other process. Needs page identity, the
 *   OOM scores (read when the alerts are asked for) and a scan of every
 *   process.
 *
 * Alerts borrow pointers into the snapshots; their text is plain ASCII and
 * never holds a name (names are attacker-controlled: the caller escapes
 * them when it prints the subject).
 */
#ifndef EXM_ANALYSIS_H
#define EXM_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/elfdyn.h"
#include "core/snapshot.h"

enum exm_alert_kind {
	EXM_ALERT_TEXT_COPIES = 0,
	EXM_ALERT_DATA_COW,
	EXM_ALERT_ANON_GROWTH,
	EXM_ALERT_PSS_MISMATCH,
	EXM_ALERT_OOM_MISLEADING,
	EXM_ALERT__COUNT
};

/* "text-copies", "data-cow", "anon-growth", "pss-mismatch",
 * "oom-misleading". */
const char *exm_alert_kind_name(enum exm_alert_kind k);

struct exm_alert {
	enum exm_alert_kind kind;
	const struct exm_proc *proc;  /* subject process (growth, pss) */
	const struct exm_file *file;  /* subject file (copies) */
	const struct exm_proc *other; /* oom: the process that frees more */
	int64_t bytes;		      /* see the kinds above */
	uint32_t nprocs;	      /* copies: processes holding copies */
	uint64_t npages;	      /* copies: file pages copied */
	uint64_t copies;	      /* copies: private frames in all */
	bool textrel;		      /* text copies: the file has DT_TEXTREL */
	uint64_t before, after; /* growth: anonymous bytes; pss: pss, erss */
	double seconds;		/* growth: time between the snapshots */
	char text[200];		/* one line, ASCII, no names */
};

/* How the ELF dynamic facts of a file are found. get() returns 0, or
 * -errno when the file cannot be read. */
struct exm_dyn_lookup {
	int (*get)(void *ctx, const struct exm_snapshot *snap,
		   const struct exm_file *f, struct exm_elfdyn *out);
	void *ctx;
};

/* The usual lookup: through /proc/PID/map_files of a process mapping f
 * (ctx: the /proc root as a const char *, NULL for "/proc"), else the path
 * if it still names the mapped inode. */
int exm_dyn_lookup_proc(void *ctx, const struct exm_snapshot *snap,
			const struct exm_file *f, struct exm_elfdyn *out);

struct exm_alert_opts {
	uint32_t text_min_procs;   /* default 2 */
	uint32_t cow_min_procs;	   /* default 3 */
	uint64_t min_saved;	   /* text copies: bytes; default 64 KiB */
	uint64_t cow_min_saved;	   /* data copies: bytes; default 64 KiB */
	uint64_t min_growth;	   /* default 1 MiB */
	uint64_t pss_abs;	   /* default 256 KiB */
	double pss_frac;	   /* default 0.05 */
	uint64_t oom_min;	   /* default 64 MiB */
	struct exm_dyn_lookup dyn; /* get NULL: exm_dyn_lookup_proc, /proc */
	/* Only some processes were scanned (-p, -u): their sharers outside
	 * the scan make erss exceed Pss by design, so the Pss check is not
	 * made. */
	bool partial_scan;
};

/* Fill o with the defaults above. */
void exm_alert_opts_init(struct exm_alert_opts *o);

struct exm_alerts {
	struct exm_alert *v; /* in kind order, then by bytes descending */
	size_t n;
	/* Kinds that could be evaluated (bit 1 << kind); a kind not checked
	 * has its reason in why_not[kind] (static text). */
	unsigned checked;
	const char *why_not[EXM_ALERT__COUNT];
	/* pss-mismatch: processes compared, and readable processes left
	 * out because their kernel Pss was not read (a scan that read it
	 * only for some processes, as the live screen does for the rows on
	 * screen unless a view needs it of every process). */
	size_t pss_compared, pss_unread;
	/* oom-misleading: the process the OOM killer would pick, or NULL */
	const struct exm_proc *oom_victim;
};

/*
 * Every alert of accounted snapshot cur; prev (may be NULL) is the
 * snapshot taken before it, for growth. 0 or -ENOMEM; out is filled
 * either way and released with exm_alerts_fini().
 */
int exm_alerts_find(const struct exm_snapshot *cur,
		    const struct exm_snapshot *prev,
		    const struct exm_alert_opts *o, struct exm_alerts *out);
void exm_alerts_fini(struct exm_alerts *a);

/* Anonymous bytes of p (heap, stack, anonymous mappings; resident plus
 * swapped where swap is measured); false when not measured. */
bool exm_proc_anon_bytes(const struct exm_proc *p, uint64_t *out);

#endif

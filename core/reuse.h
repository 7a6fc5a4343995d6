/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reuse.h - refreshes that re-read only what changed (pagemap source, and
 * the module's when it watches processes).
 *
 * Across the snapshots of one source, a process whose identity (pid, start
 * time), /proc/PID/stat counters (fault counts, CPU times, threads,
 * virtual and resident size), /proc/PID/schedstat (its main thread's run
 * time, in ns) and /proc/PID/maps text are all unchanged keeps the page
 * words of its last walk; only the others are walked. Then, exactly:
 *   - every frame or swap entry whose count of mappings among the scanned
 *     processes went to or from one (a fork, an exit, a walked process
 *     mapping or dropping a page some kept process maps) marks the kept
 *     processes mapping it: their words (pagemap's exclusive bit) are read
 *     again, in a second pass (more than that: a full walk); the kernel's
 *     Pss of a kept process is had again from its words' mapping counts;
 *   - the system's own counters that move when a page moves under its
 *     owner (/proc/vmstat's swap, reclaim, migration, THP collapse and
 *     split; KSM's sysfs counters) make the refresh a full walk;
 *   - a full walk also runs at least every full_every seconds, for what
 *     no counter shows (see README, "Live refreshes").
 * Sharer counts and everything else are accounted again from the kept
 * and new words on every refresh; a kept process none of whose frames
 * changed its count of mappings keeps its mappings' sizes.
 */
#ifndef EXM_REUSE_H
#define EXM_REUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

struct exm_reuse;
struct exm_source;
struct exm_scan_opts;
struct exm_builder;
struct exm_pdir;

/* What the last refresh did. */
struct exm_reuse_stats {
	size_t nwalked, nprocs; /* processes walked, of those listed */
	/* kept processes whose kernel Pss (from mapping counts) was kept as
	 * it was, and those whose was summed again (a count moved) */
	size_t nkpss_kept, nkpss_again;
	/* mappings (with page words) of kept processes whose sizes were
	 * kept as they were (no count of their frames moved), not summed
	 * again */
	size_t nsz_kept;
	/* the share tables were the last snapshot's (no word moved) */
	bool tables_kept;
	unsigned passes; /* walks (second pass: marked sharers) */
	bool full;	 /* every process walked */
	char why[64];	 /* why a full walk: "first", "vmstat pswpout" */
	double oldest;	 /* seconds since the oldest kept figures' walk */
	/* With check: a full walk of the same moment was compared. */
	bool checked;
	/* the system's counters moved between the two walks (a page moved
	 * under its owner meanwhile): the comparison says nothing; which */
	char unsettled[64];
	/* "pid N (what); ..." of those that differ; "kernel figures moved
	 * with ..." says nothing of that process (reuse.c, compare) */
	char diff[16384];
};

/*
 * New state for a source: a full walk at least every full_every seconds
 * (> 0); with check, every refresh is also compared with a full walk
 * taken right after it (a test's switch). NULL on ENOMEM. Owned by the
 * source once set (exm_source_set_reuse).
 */
struct exm_reuse *exm_reuse_new(double full_every, bool check);
void exm_reuse_free(struct exm_reuse *r);
/*
 * The source's keys move on every change of a process's pages (the
 * module's counters, kernel/exmap_abi.h): the system's counters make no
 * full walk, only the schedule does (README, "Live refreshes").
 */
void exm_reuse_set_exact(struct exm_reuse *r);

/* FNV-1a (64 bits) of n bytes at p, from h (EXM_HASH0 to start): what
 * the keys are made of. */
#define EXM_HASH0 UINT64_C(0xcbf29ce484222325)
uint64_t exm_hash_bytes(uint64_t h, const void *p, size_t n);

/* The next snapshot is the last one taken: when it is a full walk, none
 * of its words are kept (a one-shot needs no copy of them). */
void exm_reuse_last(struct exm_reuse *r);

/*
 * What the snapshot being taken does with a source's walk (any worker
 * thread): EXM_REUSE_NONE keeps nothing of it (r NULL, or a last full
 * walk: a one-shot), EXM_REUSE_FULL keeps what every process walked gives
 * for the next refresh, EXM_REUSE_TAKE may keep a process's words
 * (exm_reuse_take).
 */
enum { EXM_REUSE_NONE, EXM_REUSE_FULL, EXM_REUSE_TAKE };
int exm_reuse_phase(const struct exm_reuse *r);

/* The last refresh's figures; valid until the next snapshot. */
const struct exm_reuse_stats *exm_reuse_stats(const struct exm_reuse *r);

/* One snapshot of a source (take: new, fill and account one) with reuse. */
typedef int (*exm_take_fn)(struct exm_source *src,
			   const struct exm_scan_opts *opts,
			   struct exm_snapshot **out);
int exm_reuse_snapshot(struct exm_reuse *r, struct exm_source *src,
		       const struct exm_scan_opts *opts, exm_take_fn take,
		       struct exm_snapshot **out);

/*
 * Whether take must leave the snapshot unaccounted: exm_reuse_snapshot
 * accounts it after its walk is compared with the kept words, keeping
 * the sizes of the kept processes whose sharer counts did not move
 * (exm_snapshot_account_kept). r NULL: false.
 */
bool exm_reuse_defers(const struct exm_reuse *r);

/*
 * Whether a kept process pid would keep its kernel Pss as it was (no
 * count of its frames moved, exm_reuse_take's 1), asked before its key is
 * known: the module then asks for no sums with the call that says whether
 * it changed. A hint: take decides. r NULL: false.
 */
bool exm_reuse_kpss_kept(const struct exm_reuse *r, pid_t pid);

/*
 * For a source's per-process walk (any worker thread), p's identity and
 * maps read (d->key holds their hash): 1 when p's mappings got their kept
 * words (and the kernel's figures opts asks for from smaps_rollup, read
 * again) and it needs no walk; 2 when the source must still give the
 * kernel's figures from the mapping counts of those words (they move with
 * other processes); 0 when it must be walked; -errno (-ENOENT/-ESRCH:
 * gone). r NULL: 0.
 */
int exm_reuse_take(struct exm_reuse *r, struct exm_builder *b,
		   struct exm_proc *p, struct exm_pdir *d,
		   const struct exm_scan_opts *opts);

/*
 * For a walk's process of one thread (d->one_thread) whose stat was read
 * (d->key), before its maps (any worker thread): reads its main thread's
 * run time now (before maps: a change after it moves it), and when its
 * stat's counters and that run time are those of its last walk, it did
 * not run since, so neither did it change its mappings: d->maps_in is
 * the text of maps that walk read, to parse instead (valid while the
 * snapshot is taken). Otherwise asks exm_read_maps to keep the text it
 * reads (d->keep_maps) for the next refresh. r NULL, or a last snapshot:
 * nothing.
 */
void exm_reuse_maps(struct exm_reuse *r, pid_t pid, uint64_t start_time,
		    struct exm_pdir *d);

#endif

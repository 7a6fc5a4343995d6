/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - what grew between two accounted snapshots (of one recording,
 * two recordings, or a baseline and the live snapshot: delta mode).
 *
 * A process is the same process in both when its pid and its start time
 * match (a pid reused by a new process is a new process). A file (or
 * anonymous kind) across processes is the same when its kind, device,
 * inode and name match. Every row carries the growth of every size (after
 * minus before: negative when it shrank), the kernel's figures likewise,
 * and pointers to the objects on each side for names and identity, so one
 * table of columns prints process rows and one prints file rows.
 */
#ifndef EXM_DIFF_H
#define EXM_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/snapshot.h"

enum exm_diff_change {
	EXM_DIFF_SAME = 0, /* in both snapshots */
	EXM_DIFF_NEW,	   /* only in the later one */
	EXM_DIFF_GONE,	   /* only in the earlier one */
};

/* "same", "new", "gone". */
const char *exm_diff_change_name(enum exm_diff_change c);

/*
 * Signed growth of struct exm_sizes (same members). A size is measured
 * (has bit set) when it is measured on every side the row exists on; a
 * side where the row does not exist counts 0.
 */
struct exm_delta {
	int64_t vm;
	int64_t rss;
	int64_t swap;
	int64_t sole;
	int64_t writable;
	double erss;
	double eswap;
	unsigned has; /* EXM_HAS_* */
};

static inline int64_t exm_delta_mapped(const struct exm_delta *d)
{
	return d->rss + d->swap;
}

static inline double exm_delta_emapped(const struct exm_delta *d)
{
	return d->erss + d->eswap;
}

/* Growth of the kernel's figures (struct exm_kpss, same members). */
struct exm_kdelta {
	int64_t pss, pss_anon, pss_file, pss_shmem, pss_dirty, swap_pss, rss;
	unsigned has; /* EXM_KPSS_* */
};

struct exm_diff_row {
	enum exm_diff_change change;
	/* Process rows: the process in each snapshot (NULL where absent).
	 * File rows: proc_* are NULL. */
	const struct exm_proc *proc_a, *proc_b;
	/* File rows: the file in each snapshot (NULL where absent). */
	const struct exm_file *file_a, *file_b;
	struct exm_delta d;
	struct exm_kdelta kd; /* process rows only */
};

/* The process of a process row (the later one when in both). */
static inline const struct exm_proc *
exm_diff_row_proc(const struct exm_diff_row *r)
{
	return r->proc_b ? r->proc_b : r->proc_a;
}

/* The file of a file row (the later one when in both). */
static inline const struct exm_file *
exm_diff_row_file(const struct exm_diff_row *r)
{
	return r->file_b ? r->file_b : r->file_a;
}

struct exm_diff {
	const struct exm_snapshot *a, *b; /* borrowed: outlive the diff */
	struct exm_diff_row *procs; /* sorted, see exm_diff_sort */
	size_t nprocs;
	struct exm_diff_row *files;
	size_t nfiles;
	struct exm_delta total; /* growth of the totals */
	size_t nnew, ngone;	/* processes started / ended in between */
	double seconds;		/* b taken this long after a */
};

/*
 * Compare accounted snapshots a (earlier) and b (later). On success *out
 * is owned by the caller (exm_diff_free) and borrows a and b. Rows are
 * sorted by exm_diff_sort. 0, -EINVAL (not accounted), -ENOMEM.
 */
int exm_diff_new(const struct exm_snapshot *a, const struct exm_snapshot *b,
		 struct exm_diff **out);
void exm_diff_free(struct exm_diff *d);

/*
 * Drill-down of a process row r: its files and anonymous kinds, matched
 * like the file rows, each with the growth of this process's part of it
 * (proc_a/proc_b as in r). *out (n rows, sorted by exm_diff_sort) is the
 * caller's to free(); it borrows like the diff. 0 or -ENOMEM.
 */
int exm_diff_proc_files(const struct exm_diff_row *r,
			struct exm_diff_row **out, size_t *n);

/* Sort rows by growth of effective resident, largest first; ties by pid
 * (process rows), then by name (file rows), then vanished after present. */
void exm_diff_sort(struct exm_diff_row *rows, size_t n);

/* The row of the process with this pid in the later snapshot (or, gone,
 * in the earlier one); NULL if none. */
const struct exm_diff_row *exm_diff_find_pid(const struct exm_diff *d,
					     pid_t pid);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - the one identity and growth engine: what is the same thing in
 * two accounted snapshots, and how much each of its sizes grew. --diff
 * (two recorded snapshots; with --system, the system view's rows through
 * exm_value_growth), the delta columns (the previous refresh), delta mode
 * (a baseline and the live snapshot) and the anon-growth alert (the
 * growth of a process's anonymous kinds, exm_diff_proc_files) all use it.
 *
 * Identity. A process is the same process in both when its pid and its
 * start time match (a pid reused by a new process is a new process). A
 * file (or anonymous kind) is the same when its kind, device, inode and
 * name match (a file replaced under its name, or renamed, is another
 * file). Rows of the other tables are the same by what names them there:
 * a mapping by its address, a group by its name, a section or symbol by
 * its name and address (exm_ident_of_row).
 *
 * Growth. A delta row (EXM_ROW_DELTA, table.h) holds the sizes of both
 * sides (prev: before, sz: after); every field of the field table that
 * grows (exm_field_grows(): every size a row has, a new one included)
 * gives after minus before through exm_field_value(), negative when it
 * shrank. A row only in the later snapshot is NEW (before: zeros,
 * measured as after), one only in the earlier GONE (after: zeros,
 * measured as before), so a size is measured when it is on every side
 * the row exists on.
 */
#ifndef EXM_DIFF_H
#define EXM_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fields.h"
#include "core/snapshot.h"
#include "core/table.h"

/* ---- identity ---- */

/* What a row is about, its strings borrowed from the row (or, for an
 * identity the caller keeps, owned by the caller). */
struct exm_ident {
	bool has_proc;
	pid_t pid;
	uint64_t start_time;

	bool has_file;
	enum exm_kind kind;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	const char *fname; /* file name */

	bool has_name;
	const char *name; /* group key, section or symbol name */

	bool has_addr;
	uint64_t addr; /* mapping start, section or symbol address */
};

/* The identity of row r of table t. */
void exm_ident_of_row(enum exm_table t, const struct exm_row *r,
		      struct exm_ident *out);
/* A total order of identities: 0 exactly when they name the same thing. */
int exm_ident_cmp(const struct exm_ident *a, const struct exm_ident *b);
/* The same for processes (pid, start time) and files (kind, device,
 * inode, name). */
int exm_proc_id_cmp(const struct exm_proc *p, const struct exm_proc *q);
int exm_file_id_cmp(const struct exm_file *f, const struct exm_file *g);

/* The process of snap that is the process pid started at start_time; the
 * file of snap that is the file of id (its has_file part); NULL if none. */
const struct exm_proc *exm_snapshot_find_proc(const struct exm_snapshot *snap,
					      pid_t pid, uint64_t start_time);
const struct exm_file *exm_snapshot_same_file(const struct exm_snapshot *snap,
					      const struct exm_ident *id);

/* ---- growth of rows ---- */

/*
 * Give every row of rows[0..n) (table t) the sizes of the row of old[]
 * that is the same (exm_ident_of_row) as its before (row.prev and
 * prev_kpss), for delta columns and delta mode; a row with no match gets
 * none (prev.has 0), or, a delta row, is NEW (it grew by all it has).
 * 0 or -ENOMEM.
 */
int exm_rows_set_prev(enum exm_table t, struct exm_row *rows, size_t n,
		      const struct exm_row *old, size_t nold);
/* The same with the process (t EXM_T_PROCS) or file (EXM_T_FILES) rows
 * of snapshot prev as old; other tables are left alone. 0 or -ENOMEM. */
int exm_rows_set_prev_snap(enum exm_table t, struct exm_row *rows, size_t n,
			   const struct exm_snapshot *prev);

/*
 * The growth of field f of delta row r (table t) in *out. false when f
 * does not grow (exm_field_grows), does not apply to t, or is not
 * measured on the sides the row exists on.
 */
bool exm_row_growth(enum exm_field_id f, enum exm_table t,
		    const struct exm_row *r, double *out);

/* ---- two snapshots ---- */

enum exm_diff_change {
	EXM_DIFF_SAME = 0, /* in both snapshots */
	EXM_DIFF_NEW,	   /* only in the later one */
	EXM_DIFF_GONE,	   /* only in the earlier one */
};

/* "same", "new", "gone". */
const char *exm_diff_change_name(enum exm_diff_change c);

struct exm_diff_row {
	enum exm_diff_change change;
	/* Process rows: the process in each snapshot (NULL where absent).
	 * File rows: proc_* are NULL. */
	const struct exm_proc *proc_a, *proc_b;
	/* File rows: the file in each snapshot (NULL where absent). */
	const struct exm_file *file_a, *file_b;
	/* The delta row (table EXM_T_PROCS, EXM_T_FILES, or EXM_T_PFILES
	 * for exm_diff_proc_files): proc / file the later one when in both,
	 * flags EXM_ROW_DELTA and NEW or GONE as change says. */
	struct exm_row row;
};

/* The process of a process row (the later one when in both). */
static inline const struct exm_proc *exm_diff_row_proc(
	const struct exm_diff_row *r)
{
	return r->proc_b ? r->proc_b : r->proc_a;
}

/* The file of a file row (the later one when in both). */
static inline const struct exm_file *exm_diff_row_file(
	const struct exm_diff_row *r)
{
	return r->file_b ? r->file_b : r->file_a;
}

struct exm_diff {
	const struct exm_snapshot *a, *b; /* borrowed: outlive the diff */
	struct exm_diff_row *procs;	  /* sorted, see exm_diff_sort */
	size_t nprocs;
	struct exm_diff_row *files;
	size_t nfiles;
	struct exm_row total; /* growth of the totals (a files row) */
	size_t nnew, ngone;   /* processes started / ended in between */
	double seconds;	      /* b taken this long after a */
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
int exm_diff_proc_files(const struct exm_diff_row *r, struct exm_diff_row **out,
			size_t *n);

/* Sort rows by growth of effective resident, largest first; ties by pid
 * (process rows), then by name (file rows), then vanished after present. */
void exm_diff_sort(struct exm_diff_row *rows, size_t n);

/* The row of the process with this pid in the later snapshot (or, gone,
 * in the earlier one); NULL if none. */
const struct exm_diff_row *exm_diff_find_pid(const struct exm_diff *d,
					     pid_t pid);

#endif

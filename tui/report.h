/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - the paper's analyses as tables (no curses): alerts, the
 * system view, executable units and the per-process breakdown. Each is
 * one entry in tui_reports[] (report.c): its columns and a builder from
 * a snapshot (and the one before it). One report is printed as text, CSV,
 * JSON or OpenMetrics by batch mode (exmtop -b --NAME, through print.h's
 * printers) and drawn by the live screen's report view from the same
 * text, so both always agree.
 *
 * Adding a report: one id and one entry in tui_reports[], one option in
 * tui_options[] and one key in tui_keys[] pointing at it.
 */
#ifndef TUI_REPORT_H
#define TUI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/elfcache.h"
#include "core/fields.h"
#include "core/group.h"
#include "core/snapshot.h"

/* A column: a field descriptor (fields.h: key for CSV headers and JSON
 * members, title for text, and type: EXM_FT_STR text, escaped when
 * printed; EXM_FT_INT a count or an id; EXM_FT_SIZE bytes, human in text
 * unless exact; EXM_FT_ESIZE an effective size, fractions of a byte). */
struct tui_rcol {
	struct exm_field f;
	bool text_only; /* shown in text only (explanations) */
	/* OpenMetrics (print.h): a label column names the row: a label of
	 * each sample of its figures, called key, or metric when set. Else
	 * with a metric, a number column is a family of its own,
	 * exmtop_REPORT[_METRIC][_bytes] (a size's ends in _bytes); else it
	 * is left out (explanations). */
	bool label;
	const char *metric;
};

struct tui_rcell {
	bool has; /* false: not measured ("-", JSON null) */
	double v; /* numbers (bytes below 2^53 are exact) */
	char *s;  /* text (owned) */
};

struct tui_report_ops;

struct tui_report {
	const struct tui_report_ops *ops;
	struct tui_rcell *cells; /* nrows x ops->ncols */
	size_t nrows, cap;
	char **notes; /* lines after the table (owned, plain ASCII) */
	size_t nnotes;
	bool has_mem_total; /* system view: JSON mem_total */
	uint64_t mem_total;
};

/* What a builder may use besides the snapshot. */
struct tui_report_env {
	const struct exm_snapshot *snap;
	const struct exm_snapshot *prev; /* the one before, or NULL */
	struct exm_elfcache *cache;	 /* for ELF sections (units) */
	/* Rows of the processes it selects (-u, -p) and of the files they
	 * map; NULL: every row. Never changes a figure. */
	const struct exm_proc_filter *filter;
	/* The set of --freed (procset.h text), or NULL. */
	const char *freed_set;
};

struct tui_report_ops {
	const char *name;  /* option, JSON member, view crumb */
	const char *title; /* one line above the table */
	const struct tui_rcol *cols;
	size_t ncols;
	bool wants_prev; /* compares with the snapshot before */
	/* EXM_NEED_* (fields.h) it needs of every process: the live screen
	 * reads them for all while the report is shown. */
	unsigned needs;
	int (*build)(struct tui_report *r, const struct tui_report_env *e);
	/* --diff with this report: the change from e->prev to e->snap, or
	 * NULL (not offered) */
	const struct tui_report_ops *diff;
};
/* The reports, each named once: its entry in tui_reports[], which the
 * options and keys opening it point at. */
enum tui_report_id {
	TUI_REPORT_ALERTS,
	TUI_REPORT_SYSTEM,
	TUI_REPORT_UNITS,
	TUI_REPORT_BREAKDOWN,
	TUI_REPORT_FREED,
	TUI_REPORT__COUNT
};
/* name NULL ends it */
extern const struct tui_report_ops tui_reports[TUI_REPORT__COUNT + 1];

/* The report named name, or NULL. */
const struct tui_report_ops *tui_report_find(const char *name);

/* Build report ops of e into r (zeroed first). 0, -errno with a note in
 * r when the report cannot be made from this snapshot (r is still
 * printable), -ENOMEM. Release with tui_report_fini(). */
int tui_report_build(const struct tui_report_ops *ops,
		     const struct tui_report_env *e, struct tui_report *r);
void tui_report_fini(struct tui_report *r);

#endif

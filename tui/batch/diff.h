/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - exmtop --diff FILE [--from K] [--to K] and --diff A B: what grew
 * between two recorded snapshots (core/diff.h matches processes by pid and
 * start time, files by identity), printed as delta rows (EXM_ROW_DELTA:
 * every size column is a growth) through the batch formats' .diff.
 */
#ifndef TUI_DIFF_H
#define TUI_DIFF_H

#include <stdio.h>

#include "core/diff.h"
#include "core/table.h"
#include "tui/opts.h"
#include "tui/query.h"
#include "tui/report.h"

/* What a format's .diff prints. */
struct tui_diff {
	const struct exm_diff *d;
	struct exm_row *procs, *files; /* delta rows, filtered and sorted */
	size_t nprocs, nfiles;
	const char *file_a, *file_b;	   /* the recordings */
	size_t from, to, count_a, count_b; /* indexes (0 = first), counts */
	/* --diff --system: the report of the change, printed instead of
	 * the rows (NULL: the rows) */
	const struct tui_report *report;
};

/* The .diff of the text, CSV and JSON formats (batch.c's table). */
int tui_diff_text(FILE *out, const struct tui_query *q,
		  const struct tui_diff *df);
int tui_diff_csv(FILE *out, const struct tui_query *q,
		 const struct tui_diff *df);
int tui_diff_json(FILE *out, const struct tui_query *q,
		  const struct tui_diff *df);

/* Run --diff; returns the exit status. */
int tui_batch_diff(const struct tui_opts *o);

#endif

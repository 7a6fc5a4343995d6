/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch.h - non-interactive output: text tables, CSV and JSON of any rows
 * of any table, driven by the field table.
 */
#ifndef TUI_BATCH_H
#define TUI_BATCH_H

#include <stdio.h>

#include "core/fields.h"
#include "core/snapshot.h"
#include "tui/opts.h"

#define TUI_MAX_FIELDS EXM_F__COUNT

/*
 * Parse a comma-separated list of field keys valid for table t into out
 * (terminated by -1; at most TUI_MAX_FIELDS). NULL spec gives the table's
 * defaults. 0, or -EINVAL with a one-line reason in err.
 */
int tui_parse_fields(const char *spec, enum exm_table t, int *out,
		     char *err, size_t errlen);

/* All fields valid for table t, -1 terminated, in field-table order. */
void tui_all_fields(enum exm_table t, int *out);

/* Text table: header row and aligned columns. */
void tui_print_text(FILE *f, enum exm_table t, const struct exm_row *rows,
		    size_t n, const int *fields, bool exact);
/* CSV: header row (keys) when header, then rows; sizes in bytes. */
void tui_print_csv(FILE *f, enum exm_table t, const struct exm_row *rows,
		   size_t n, const int *fields, bool header);
/* JSON array of row objects with the given fields (sizes in bytes,
 * unmeasured as null). */
void tui_print_json_rows(FILE *f, enum exm_table t, const struct exm_row *rows,
			 size_t n, const int *fields);
/* JSON members describing the snapshot (no braces): source, page size,
 * units, totals... followed by a comma. */
void tui_print_json_header(FILE *f, const struct exm_snapshot *snap);
/* One summary line for text output. */
void tui_print_summary(FILE *f, const struct exm_snapshot *snap);

/* Run batch mode; returns the exit status. */
int tui_batch(const struct tui_opts *o);

/*
 * Sort key from the options for table t: field id and direction (default
 * erss descending; sizes descending, text ascending unless reversed with
 * -KEY). 0, or -EINVAL with a reason.
 */
int tui_sort_key(const struct tui_opts *o, enum exm_table t, int *field,
		 bool *desc, char *err, size_t errlen);

/* Whether process p passes the -u filter (name or numeric uid). */
bool tui_user_match(const struct tui_opts *o, const struct exm_proc *p);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch.h - non-interactive output: text tables, CSV and JSON of any rows
 * of any table, driven by the field table.
 */
#ifndef TUI_BATCH_H
#define TUI_BATCH_H

#include <stdio.h>

#include "core/fields.h"
#include "core/outfile.h"
#include "core/snapshot.h"
#include "tui/opts.h"
#include "tui/query.h"
#include "tui/report.h"

#define TUI_MAX_FIELDS EXM_F__COUNT

struct tui_diff;

/* All fields valid for table t, -1 terminated, in field-table order. */
void tui_all_fields(enum exm_table t, int *out);
/* The sizes of struct exm_sizes as columns (every size column of the files
 * table but the growth since the last refresh), -1 terminated: the keys of
 * a snapshot's totals and of --diff's. out holds EXM_F__COUNT + 1. */
void tui_size_fields(int *out);

/* Text table: header row and aligned columns. */
void tui_print_text(FILE *f, enum exm_table t, const struct exm_row *rows,
		    size_t n, const int *fields, bool exact);
/*
 * CSV: header row (keys) when header, then rows; sizes in bytes. With a
 * stamp (tui_csv_stamp: which snapshot, when), every row starts with it and
 * the header with "snapshot,time", so that rows of several snapshots in one
 * file are told apart.
 */
void tui_print_csv(FILE *f, enum exm_table t, const struct exm_row *rows,
		   size_t n, const int *fields, bool header, const char *stamp);
#define TUI_CSV_STAMP_HEAD "snapshot,time,"
#define TUI_CSV_STAMP_LEN 64
/* "NUMBER,TIME," of snap: its number (1 = first of the run or recording)
 * and when it was taken (UTC, as JSON's "time"). Returns buf. */
char *tui_csv_stamp(char *buf, const struct exm_snapshot *snap,
		    size_t number);
/* When snap was taken, "YYYY-MM-DDTHH:MM:SSZ" (at least 32 bytes). */
char *tui_snap_time(char *buf, size_t len, const struct exm_snapshot *snap);
/* JSON array of row objects with the given fields (sizes in bytes,
 * unmeasured as null). */
void tui_print_json_rows(FILE *f, enum exm_table t, const struct exm_row *rows,
			 size_t n, const int *fields);
/* JSON members describing the snapshot (no braces): source, page size,
 * units, totals... followed by a comma. */
void tui_print_json_header(FILE *f, const struct exm_snapshot *snap);
/* The frame of every JSON document of a snapshot (one line of JSON Lines):
 * begin writes "{" and the snapshot's members (tui_print_json_header), the
 * caller its own members, end the closing "}" and the newline. */
void tui_json_doc_begin(FILE *f, const struct exm_snapshot *snap);
void tui_json_doc_end(FILE *f);
/* One summary line for text output. */
void tui_print_summary(FILE *f, const struct exm_snapshot *snap);

/*
 * A batch output format of the listed table (processes or files): adding
 * one is one entry in tui_formats[] (batch.c). emit prints snapshot number
 * iter (prev: the one before, for deltas, or NULL); 0 or -errno.
 */
struct tui_format_ops {
	const char *name; /* --format NAME */
	/* prints every column (JSON: unless --fields says which): the scan
	 * reads what any needs */
	bool all;
	/* EXM_NEED_* it reads beyond its columns' (NULL: nothing) */
	unsigned (*needs)(void);
	int (*emit)(FILE *out, const struct tui_query *q,
		    const struct exm_snapshot *snap,
		    const struct exm_snapshot *prev, long iter);
	/* --diff (diff.h); NULL: this format cannot show one */
	int (*diff)(FILE *out, const struct tui_query *q,
		    const struct tui_diff *df);
	/* A report (--alerts, --system, ...) of snapshot number iter, or
	 * NULL when the format prints none. */
	void (*report)(FILE *out, const struct tui_query *q,
		       const struct exm_snapshot *snap,
		       const struct tui_report *r, long iter);
};
extern const struct tui_format_ops tui_formats[TUI_FMT__COUNT];
/* The names of the formats of bits (bit f: format f; ~0u all of them),
 * "text, csv or json", into buf. */
void tui_format_names(unsigned bits, char *buf, size_t len);

struct exm_source;

/*
 * How many snapshots a batch run prints, after moving a replay to --from
 * (*status: 2 after one line when --from is bad): -n; a replay's from
 * there to its last; a recorder without -b until stopped; else one.
 */
long tui_batch_iterations(const struct tui_opts *o, struct exm_source *src,
			  int *status);

/*
 * Where a batch document goes: stdout, or --output FILE through its one
 * writer (core/outfile.h; of set up by tui_out_init). tui_out_begin: the
 * stream, or NULL after one line on stderr with *status the exit status
 * (2: nothing can be written there). tui_out_end: 0 to go on, else stop:
 * > 0 the exit status (after one line), < 0 stdout's reader left (exit
 * status 0). tui_out_fini ends it all.
 */
void tui_out_init(const struct tui_opts *o, struct exm_outfile *of);
FILE *tui_out_begin(const struct tui_opts *o, struct exm_outfile *of,
		    int *status);
int tui_out_end(const struct tui_opts *o, struct exm_outfile *of, bool ok);
void tui_out_fini(struct exm_outfile *of);

#endif

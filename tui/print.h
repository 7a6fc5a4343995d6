/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print.h - the batch printers, written once: rows of any table (fields.h
 * descriptors) and reports (report.h) as aligned text, CSV and JSON, and
 * the one frame of every JSON document. Used by the listing, the reports,
 * the ELF modes, the page strips and --diff alike; no curses, nothing of
 * the live screen.
 */
#ifndef TUI_PRINT_H
#define TUI_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/fields.h"
#include "core/snapshot.h"
#include "core/table.h"
#include "tui/report.h"

#define TUI_MAX_FIELDS EXM_F__COUNT

/* All fields valid for table t, -1 terminated, in field-table order. */
void tui_all_fields(enum exm_table t, int *out);
/* The sizes of struct exm_sizes as columns (every size column of the files
 * table but the growth since the last refresh), -1 terminated: the keys of
 * a snapshot's totals and of --diff's. out holds EXM_F__COUNT + 1. */
void tui_size_fields(int *out);

/* Cut the last column of text tables at cols display columns (a
 * terminal's width; 0: never). */
void tui_print_set_width(int cols);

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
char *tui_csv_stamp(char *buf, const struct exm_snapshot *snap, size_t number);
/* When snap was taken, "YYYY-MM-DDTHH:MM:SSZ" (at least 32 bytes). */
char *tui_snap_time(char *buf, size_t len, const struct exm_snapshot *snap);

/* JSON is built in a buffer and written in big pieces (a snapshot has
 * thousands of rows of dozens of values: no printf per value). */
struct tui_jbuf {
	FILE *f;
	size_t n;
	char b[8192];
};
void tui_jb_flush(struct tui_jbuf *j);
void tui_jb_puts(struct tui_jbuf *j, const char *s);
void tui_jb_putc(struct tui_jbuf *j, char c);
/* {"key":value,... of row r's fields: the object left open for the
 * caller's members and closing brace. */
void tui_jb_row(struct tui_jbuf *j, enum exm_table t, const struct exm_row *r,
		const int *fields);
/* A JSON array of row objects. */
void tui_jb_rows(struct tui_jbuf *j, enum exm_table t,
		 const struct exm_row *rows, size_t n, const int *fields);
/* JSON array of row objects with the given fields (sizes in bytes,
 * unmeasured as null). */
void tui_print_json_rows(FILE *f, enum exm_table t, const struct exm_row *rows,
			 size_t n, const int *fields);

/*
 * The frame of every JSON document (one line of JSON Lines). begin writes
 * "{" and "version", then: with snap, the snapshot's members (source, page
 * size, units, totals...), under "snapshot" with "report" naming report
 * when report is not NULL; without snap (a document of two snapshots,
 * --diff), "units". Each member is followed by a comma: the caller writes
 * its own members, end the closing "}" and the newline.
 */
void tui_json_doc_begin(FILE *f, const struct exm_snapshot *snap,
			const char *report);
void tui_json_doc_end(FILE *f);

/* The processes as the live screen's header, the batch summary and JSON
 * count them: scanned excludes the processes that could not be read. */
struct tui_counts {
	size_t scanned, gone, denied;
};
void tui_counts_of(const struct exm_snapshot *snap, struct tui_counts *c);

/* One summary line for text output. */
void tui_print_summary(FILE *f, const struct exm_snapshot *snap);

/* A report (report.h): title, aligned table, notes. */
void tui_report_text(FILE *f, const struct tui_report *r, bool exact);
/* Header (keys) when header, then one line a row; bytes exact; stamp as
 * tui_print_csv's. */
void tui_report_csv(FILE *f, const struct tui_report *r, bool header,
		    const char *stamp);
/* JSON members (no braces, no trailing comma): "NAME":[{...}],"notes":
 * [...] (and "mem_total" for the system view). */
void tui_report_json(FILE *f, const struct tui_report *r);
/* An OpenMetrics exposition of a report of snap: the scan's families,
 * then a family for each figure column (report.h's metric) over the rows,
 * each sample labelled by the row's label columns; "# EOF". 0 or -EIO. */
int tui_report_om(FILE *f, const struct exm_snapshot *snap,
		  const struct tui_report *r);

#endif

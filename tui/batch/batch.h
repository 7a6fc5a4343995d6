/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batch.h - the batch formats (text, CSV, JSON, OpenMetrics) of the
 * listing, the reports and --diff, and the one --output writer; the
 * printers they use are print.h's.
 */
#ifndef TUI_BATCH_H
#define TUI_BATCH_H

#include <stdio.h>

#include "core/fields.h"
#include "core/outfile.h"
#include "core/snapshot.h"
#include "tui/opts.h"
#include "tui/query.h"
#include "tui/print.h"
#include "tui/report.h"

struct tui_diff;

/*
 * A batch output format of the listed table (processes or files): adding
 * one is one entry in tui_formats[] (batch.c). emit prints snapshot number
 * iter (prev: the one before, for deltas, or NULL); 0 or -errno.
 */
struct tui_format_ops {
	const char *name; /* --format NAME */
	const char *help; /* what --help says of it, or NULL */
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
/* --format's help, from the table: "batch output: text, csv, ..." */
void tui_format_help(char *buf, size_t len);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * drive.h - what exmtop does after the options, as a table of modes
 * (tui_modes[], drive.c): the live screen, a listing, a report, the ELF
 * sections or symbols, the page strip, a diff. Each mode declares the
 * options it takes and the formats it prints; every other option is
 * refused by one check (tui_mode_check), so no option is silently ignored.
 *
 * The batch modes share one driver (tui_drive): it opens the source,
 * counts the snapshots (tui_batch_iterations: -n, or every one of a
 * replay), sleeps between them (stopped by SIGINT or SIGTERM), records
 * them (--record), writes each through the one --output writer and says a
 * failed snapshot in one line. A mode only prints a snapshot (its ops).
 *
 * Adding a mode: one entry in tui_modes[] (with, for a batch mode, its
 * struct tui_batch_ops); tests/golden/test_modes.py reads the table
 * through --list-modes and runs every option of it.
 */
#ifndef TUI_DRIVE_H
#define TUI_DRIVE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/elfcache.h"
#include "core/snapshot.h"
#include "core/source.h"
#include "tui/opts.h"
#include "tui/query.h"

/* One batch run, shared by the driver and its mode. */
struct tui_run {
	const struct tui_opts *o;
	struct tui_query q;	    /* the listing's columns, sorts, delay */
	struct exm_scan_opts scan;  /* what each snapshot reads (begin may
				      * change it; --record reads all) */
	struct exm_elfcache *cache; /* when the mode opens ELF files */
	void *priv;		    /* the mode's own */
	bool said;		    /* a report's "cannot" said once */
};

/*
 * A batch mode's part. begin: check its own values and set r->scan; 0, or
 * the exit status after one line. emit: print snapshot iter (0 = first of
 * the run; number: of the run from 1, or of the recording) into out, prev
 * the one before it (or NULL); 0, an exit status > 0 after one line, or
 * -errno. end: free what begin made.
 */
struct tui_batch_ops {
	int (*begin)(struct tui_run *r);
	int (*emit)(FILE *out, struct tui_run *r,
		    const struct exm_snapshot *snap,
		    const struct exm_snapshot *prev, long iter, size_t number);
	void (*end)(struct tui_run *r);
	bool elf; /* opens ELF files: the run has an ELF cache */
	/* emit reads of prev only the rows of its processes and files (or
	 * of its groups, which need all): exm_snapshot_keep_rows */
	bool prev_rows;
};

struct tui_mode {
	const char *name; /* --list-modes */
	const char *what; /* in messages: "the live screen", "--diff" */
	/* the long names of the options it takes, one space apart */
	const char *accepts;
	unsigned formats; /* TUI_FMT_BIT() of the formats it prints */
	/* TUI_REPORT_BIT() of the reports (report.h) whose options (named
	 * as the report) it takes beside accepts */
	unsigned reports;
	const struct tui_batch_ops *batch;    /* a batch mode's, or NULL */
	int (*run)(const struct tui_opts *o); /* else its own */
};
#define TUI_FMT_BIT(f) (1u << (f))
#define TUI_REPORT_BIT(r) (1u << (r))
extern const struct tui_mode tui_modes[];

/* The mode the options select. */
const struct tui_mode *tui_mode_of(const struct tui_opts *o);
/* Every option given is one the mode takes, in a format it prints, with
 * what it needs: 0, or 2 after one line. */
int tui_mode_check(const struct tui_mode *m, const struct tui_opts *o);
/* --list-modes: "NAME<TAB>FORMATS<TAB>OPTIONS" a line. */
void tui_modes_list(FILE *f);
/* Run the mode; the exit status. */
int tui_mode_run(const struct tui_mode *m, const struct tui_opts *o);

/* The batch modes' parts (batch.c, batch_elf.c, batch_strip.c). */
extern const struct tui_batch_ops tui_listing_ops, tui_report_ops, tui_elf_ops,
	tui_strip_ops;

#endif

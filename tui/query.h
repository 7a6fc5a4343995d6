/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * query.h - what to list and how, resolved once (no curses): the table,
 * its columns and sort (and those of every table a drill-down can show),
 * the user and pid filters, the grouping, and what a scan must read for
 * them. Built from the defaults, then the settings file (live screen
 * only), then the options; consumed by batch output, the ELF batch tables
 * and the live screen alike, so they cannot disagree.
 */
#ifndef TUI_QUERY_H
#define TUI_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fields.h"
#include "core/group.h"
#include "core/source.h"
#include "tui/opts.h"
#include "tui/rc.h"

struct tui_query {
	enum exm_table table;	 /* listed: procs, files, sections, symbols,
				 * or mappings (--pagemap) */
	struct tui_settings set; /* per-table columns and sorts, delay,
				  * grouping, full_cmd, exact bytes */
	bool sort_given;	 /* -o: set.sort[table] is the user's */
	bool fields_given;	 /* --fields: set.fields[table] is the user's */
	char *user;		 /* -u (owned), or NULL */
	const pid_t *pids;	 /* -p: rows (borrowed from the options) */
	size_t npids;
	const pid_t *scan_pids; /* --scan-pids: the scan (borrowed) */
	size_t nscan_pids;
	bool include_self;
	int knob;	    /* the source's own setting (source.h) */
	size_t top;	    /* --top (0: the format's default) */
	char rc_path[4096]; /* the settings file ("" when none) */
	char warn[512];	    /* a bad line of the settings file, or "" */
};

/*
 * Build q from the options; with use_rc, the settings file is read first
 * (the options win). 0; -EINVAL with a one-line reason in err for a bad
 * --fields or -o; -ENOMEM. Free with tui_query_fini().
 */
int tui_query_build(struct tui_query *q, const struct tui_opts *o, bool use_rc,
		    char *err, size_t errlen);
/* The same, saying what is wrong: 0, or the exit status (2: a bad option)
 * after one line on stderr (q is finalized then). */
int tui_query_from_opts(struct tui_query *q, const struct tui_opts *o,
			bool use_rc);
void tui_query_fini(struct tui_query *q);

/* The columns of table t (-1 terminated). */
static inline const int *tui_query_fields(const struct tui_query *q,
					  enum exm_table t)
{
	return q->set.fields[t];
}
/* The sort of table t: the user's, else the table's natural one. */
void tui_query_sort(const struct tui_query *q, enum exm_table t, int *field,
		    bool *desc);
/* The rows -u and -p select (borrows from q). */
struct exm_proc_filter tui_query_filter(const struct tui_query *q);
/* Whether process p passes -u and -p. */
bool tui_query_proc_match(const struct tui_query *q, const struct exm_proc *p);
/* EXM_NEED_* of the columns and the sort of table t. */
unsigned tui_query_needs(const struct tui_query *q, enum exm_table t);
/*
 * The scan options for needs (EXM_NEED_*): pids, self, pagemap mode, and
 * the kernel's figures and command lines only when needed.
 */
void tui_query_scan(const struct tui_query *q, unsigned needs,
		    struct exm_scan_opts *scan);

/*
 * Open the source the options name ("auto" without --source). 0, or the
 * exit status after one line on stderr: 2 for a bad name (as for every bad
 * option), 1 when it cannot be opened.
 */
int tui_open_source(const struct tui_opts *o, struct exm_source **src);
/* The same for the source called name. */
/*
 * Let a live source's snapshots re-read only what changed, with a full
 * walk at least every q's full_walk seconds (0: never reuse), and with
 * EXMTOP_CHECK_WALK set, compare each with a full walk (tui_check_said).
 * 0, or the exit status after one line.
 */
int tui_source_reuse(struct exm_source *src, const struct tui_query *q);
/* With EXMTOP_CHECK_WALK: one line on stderr saying how the last snapshot
 * (number) compared with its full walk. */
void tui_check_said(const struct exm_source *src, size_t number);
/* EXMTOP_CHECK_WALK=step: batch snapshots are taken on lines of stdin. */
bool tui_check_step(void);
int tui_open_source_named(const char *name, struct exm_source **src);

#endif

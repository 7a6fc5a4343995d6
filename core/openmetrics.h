/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * openmetrics.h - a snapshot in the OpenMetrics text format, for the
 * Prometheus node_exporter textfile collector (and `promtool check
 * metrics`).
 *
 * Label values are process names, user names, cgroup paths and file
 * names: attacker-controlled. They are written escaped as the format
 * requires (backslash, double quote and newline as \\, \" and \n) and
 * every byte that is not part of valid UTF-8 (overlong forms, surrogates,
 * code points past U+10FFFF, stray continuation bytes, truncated
 * sequences) is replaced by U+FFFD, so the output is always valid UTF-8.
 * Metric names built from keys are sanitised to [a-zA-Z_:][a-zA-Z0-9_:]*.
 *
 * Cardinality stays bounded: processes, groups and files are the top N by
 * effective resident (ties by pid or name). A size that was not measured
 * is left out (OpenMetrics has no null), never written as 0.
 */
#ifndef EXM_OPENMETRICS_H
#define EXM_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/snapshot.h"
#include "core/table.h"
#include "core/sysview.h"

struct exm_proc_filter; /* group.h */

/* Write s as the inside of a label value (without the quotes). */
void exm_om_label_value(FILE *out, const char *s);

/* src as a valid metric or label name into dst (len bytes, len >= 2):
 * invalid characters become '_', a leading digit gets a '_' before it. */
void exm_om_sanitize_name(char *dst, size_t len, const char *src);

/* "# HELP", "# TYPE" and, when unit is not NULL, "# UNIT" of a family. */
void exm_om_family(FILE *out, const char *name, const char *type,
		   const char *unit, const char *help);

struct exm_om_opts {
	size_t top;  /* processes, groups and files written (0: 20) */
	bool groups; /* per program, user and cgroup aggregates */
	bool files;  /* per file */
	const struct exm_sysview *sys; /* NULL: no system view */
	/* The processes, groups and files written are those of the
	 * processes f selects (-u, -p); NULL: every process. */
	const struct exm_proc_filter *filter;
};

/* What the exposition reads (EXM_NEED_*): its columns' and the cgroups of
 * its groups. */
unsigned exm_om_needs(void);

/* A number as OpenMetrics reads it (exact for integers, else the shortest
 * decimal that reads back as the same double), and the newline. */
void exm_om_value(FILE *out, double v);

/* What every exposition starts with: the processes scanned, the time the
 * snapshot took and the distinct resident pages. */
void exm_om_write_scan(FILE *out, const struct exm_snapshot *snap);
/* The family of MemTotal (the system view's whole). */
void exm_om_write_mem_total(FILE *out, uint64_t bytes);
/* "# EOF", which ends every exposition; 0, or -EIO when out reported a
 * write error. */
int exm_om_end(FILE *out);

/*
 * The whole exposition, ending in "# EOF". 0, -ENOMEM, or -EIO when out
 * reported a write error.
 */
int exm_om_write(FILE *out, const struct exm_snapshot *snap,
		 const struct exm_om_opts *o);

/*
 * The ELF sections (t EXM_T_SECTIONS) or symbols (EXM_T_SYMBOLS) of file,
 * of process pid or across processes (pid 0), as an exposition: the scan's
 * families, then a family exmtop_section_* or exmtop_symbol_* for each
 * column of the exposition the table has, labelled by file, pid, name and
 * address; "# EOF". 0 or -EIO.
 */
int exm_om_write_elf(FILE *out, const struct exm_snapshot *snap,
		     enum exm_table t, const char *file, pid_t pid,
		     const struct exm_row *rows, size_t n);

#endif

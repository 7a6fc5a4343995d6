/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - the parsed command line, shared by batch mode (batch.c) and the
 * live UI (ui*.c). main.c fills it; nothing else parses argv.
 */
#ifndef TUI_OPTS_H
#define TUI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/source.h"

enum tui_format { TUI_FMT_TEXT = 0, TUI_FMT_CSV, TUI_FMT_JSON };

struct tui_opts {
	bool batch;		/* -b */
	long iterations;	/* -n N (0 = forever in live mode, 1 in batch) */
	double delay;		/* -d SECS, default 2 */
	const char *sort_key;	/* -o KEY, NULL = default (erss) */
	bool sort_asc;		/* -o -KEY */
	pid_t *pids;		/* -p PID,... (owned) */
	size_t npids;
	const char *user;	/* -u USER (name or uid) */
	bool files;		/* --files */
	enum tui_format format; /* --format */
	bool bytes;		/* --bytes: exact byte counts */
	const char *fields;	/* --fields a,b,c (NULL = defaults) */
	const char *source;	/* --source NAME (NULL = auto) */
	int pagemap_mode;	/* --pagemap-mode auto|scan|read -> 0/1/2 */
	bool include_self;	/* --include-self */
	const char *sections;	/* --sections FILE (ELF issue) */
	const char *symbols;	/* --symbols FILE:SECTION (ELF issue) */
	bool no_color;		/* --no-color or NO_COLOR set */
	bool full_cmd;		/* -c: full command lines */
};

/* Scan options implied by the command line (pids, self, mode). */
void tui_opts_scan(const struct tui_opts *o, struct exm_scan_opts *scan);

#endif

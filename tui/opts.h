/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - the command line: one table of options (tui_options[]) from
 * which getopt's long options, --help and the manual's OPTIONS are made.
 * tui_opts_parse() fills struct tui_opts; nothing else parses argv. What
 * the options mean for a listing (table, fields, sort, filters, what to
 * read) is resolved in one place, query.c.
 *
 * Adding an option: one entry in tui_options[] (opts.c) with a setter,
 * and the member it sets here; .complete says what a shell may offer for
 * its value (--completion, completion.c).
 */
#ifndef TUI_OPTS_H
#define TUI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/record.h"

/* Batch output formats: their names and printers are tui_formats[]
 * (batch.c). */
enum tui_format {
	TUI_FMT_TEXT = 0,
	TUI_FMT_CSV,
	TUI_FMT_JSON,
	TUI_FMT_OPENMETRICS,
	TUI_FMT__COUNT
};

/* What main() does after parsing. */
enum tui_action {
	TUI_RUN = 0,	 /* batch or live, as the options say */
	TUI_HELP,	 /* --help */
	TUI_VERSION,	 /* --version */
	TUI_LIST_FIELDS, /* --list-fields */
	TUI_MAN,	 /* --man */
	TUI_COMPLETION,	 /* --completion SHELL */
	TUI_LIST_MODES,	 /* --list-modes */
};

struct tui_opts {
	enum tui_action action;
	bool batch;	      /* -b */
	long iterations;      /* -n N (0 = forever in live mode, 1 in batch) */
	double delay;	      /* -d SECS, 0 = not given (settings: 2) */
	double full_walk;     /* --full-walk SECS, < 0 = not given */
	const char *sort_key; /* -o [+-]KEY, NULL = the table's natural */
	pid_t *pids;	      /* -p PID,...: rows shown (owned) */
	size_t npids;
	pid_t *scan_pids; /* --scan-pids PID,...: scanned (owned) */
	size_t nscan_pids;
	const char *user;	/* -u USER (name or uid) */
	bool files;		/* --files */
	enum tui_format format; /* --format */
	bool bytes;		/* --bytes: exact byte counts */
	const char *fields;	/* --fields a,b,c (NULL = defaults) */
	const char *source;	/* --source NAME (NULL = auto) */
	/* A source's own setting (an option with .knob): the index of its
	 * word (exm_scan_opts.knob), the option (NULL: none given) */
	int knob;
	const struct tui_option *knob_opt;
	bool include_self;    /* --include-self */
	const char *sections; /* --sections FILE */
	const char *symbols;  /* --symbols FILE:SECTION */
	const char *pagemap;  /* --pagemap PID:ADDRESS */
	bool no_color;	      /* --no-color or NO_COLOR set */
	bool full_cmd;	      /* -c: full command lines */
	/* recordings (issue 10) */
	const char *record; /* --record FILE: append snapshots */
	bool watch;	    /* --watch: the live screen while recording */
	bool verbose;	    /* --verbose: each snapshot recorded, said */
	struct exm_retention keep; /* --keep, --keep-size (issue 22) */
	char *replay_src;	   /* --replay FILE: "replay:FILE" (owned) */
	const char *sysroot;	   /* --sysroot DIR: target's root for ELF */
	const char *diff_a;	   /* --diff A [B] */
	const char *diff_b;
	const char *from, *to; /* --from / --to: index or time */
	bool format_given;     /* --format was given */
	const char *report;    /* --alerts, --system, --units, --breakdown:
				 * the name of a report (report.h), or NULL */
	long top;	       /* --top N (0: the format's default) */
	int group_by;	       /* --group BY: enum exm_group_by (0: per
				 * process, as without it) */
	const char *freed_set; /* --freed SET (report "freed") */
	const char *output;    /* --output FILE (NULL: stdout) */
	/* bit i: tui_options[i] was given (the modes' check, drive.c) */
	unsigned long long given;
};

/* What a shell may complete an option's value with (completion.c). */
enum tui_complete {
	TUI_COMP_NONE = 0, /* free text: nothing to offer */
	TUI_COMP_WORDS,	   /* one of .words */
	TUI_COMP_FILE,
	TUI_COMP_DIR,
	TUI_COMP_USER,
	TUI_COMP_KEY,	 /* a field key, maybe after - or + */
	TUI_COMP_KEYS,	 /* field keys separated by commas */
	TUI_COMP_FORMAT, /* a name of tui_formats[] */
	TUI_COMP_SOURCE, /* a source of the registry (core/source.c) */
};

/* One option. */
struct tui_option {
	const char *name; /* long name, without "--" */
	char short_name;  /* or 0 */
	const char *arg;  /* name of its value, NULL: takes none */
	const char *help; /* one line for --help and the manual, */
	/* or made from another table (--source's names) */
	void (*help_from)(char *buf, size_t len);
	/* Take the option (val NULL when it takes none): 0, or 2 after
	 * printing one line on stderr for a bad value. */
	int (*set)(struct tui_opts *o, const char *val);
	enum tui_complete complete; /* its value, for --completion */
	const char *const *words;   /* TUI_COMP_WORDS: NULL-terminated */
	/* A source's own setting (source.h): its words and help are the
	 * source's, and it goes with that source only (not .set). */
	const struct exm_source_knob *knob;
};
extern const struct tui_option tui_options[];

/* What --help and the manual say beside the options: the environment
 * variables read, the exit statuses, and the manual's examples (each run
 * by tests/readme/test_examples.py). NULL-terminated. */
struct tui_doc_item {
	const char *name; /* variable, status or command */
	const char *help; /* one line */
};
extern const struct tui_doc_item tui_environ[];
extern const struct tui_doc_item tui_exits[];
extern const struct tui_doc_item tui_examples[];
/* --list-fields' table letters, "p processes, f files, ..." into buf. */
void tui_table_letters(char *buf, size_t len);

/*
 * Parse argv into *o (zeroed by the caller). 0, or 2 after one line on
 * stderr (unknown option, missing or bad value, stray argument).
 */
int tui_opts_parse(struct tui_opts *o, int argc, char **argv);
/* Free what tui_opts_parse allocated. */
void tui_opts_fini(struct tui_opts *o);
/* --help. */
void tui_opts_usage(FILE *f);
/* The help line of op (buf: room for one made). */
const char *tui_option_help(const struct tui_option *op, char *buf, size_t len);

#endif

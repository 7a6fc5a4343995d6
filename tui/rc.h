/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc.h - the live UI's settings and ~/.config/exmtop/exmtoprc (no curses).
 *
 * The file is read at start-up and written only when the user saves (key
 * W). It is plain "key = value" lines; unknown keys and bad values are
 * ignored with a warning so an old or hand-edited file never stops exmtop:
 *
 *   delay = 2
 *   group = program
 *   full_cmd = 0
 *   bytes = 0
 *   fields.procs = pid,user,vm,rss,erss,cmd
 *   sort.procs = +erss         (as -o: '+' descending, '-' ascending)
 */
#ifndef TUI_RC_H
#define TUI_RC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fields.h"
#include "core/group.h"
#include "core/table.h"

#define TUI_MAX_COLS EXM_F__COUNT

struct tui_settings {
	double delay;		    /* seconds between snapshots */
	double full_walk;	    /* every process read at least this often */
	enum exm_group_by group_by; /* processes pane grouping */
	bool full_cmd;		    /* full command lines */
	bool exact_bytes;	    /* exact byte counts */
	/* visible columns per table, -1 terminated */
	int fields[EXM_T__COUNT][TUI_MAX_COLS + 1];
	/* sort per table: field (-1: the view's default) and direction */
	int sort[EXM_T__COUNT];
	bool sort_desc[EXM_T__COUNT];
};

/*
 * The settings table (tui_settings_table[], rc.c), as tmux's options
 * table: each setting has one type, one range and one parser
 * (tui_setting_parse), used alike by the settings file, the command line
 * (opts.c, query.c) and the live screen's prompts, so a value one accepts
 * the others accept. Adding a setting: one entry, and its member above.
 */
enum tui_setting_type {
	TUI_SET_SECONDS, /* decimal seconds, min to max */
	TUI_SET_BOOL,	 /* 1 or 0 (yes/no, true/false read too) */
	TUI_SET_GROUP,	 /* a grouping's name (core/group.h) */
	TUI_SET_FIELDS,	 /* a table's columns: KEY,KEY,... */
	TUI_SET_SORT,	 /* a table's sort, as -o (written signed) */
};

struct tui_setting {
	const char *key; /* in the file; per table: KEY.TABLE */
	enum tui_setting_type type;
	bool per_table;	    /* one value per table (fields, sort) */
	double min, max;    /* TUI_SET_SECONDS: the range */
	size_t off;	    /* TUI_SET_SECONDS, _BOOL, _GROUP: the
				 * member of struct tui_settings */
	const char *option; /* what else sets it: an option, a key */
	const char *help;   /* what it is, for --help */
};
extern const struct tui_setting tui_settings_table[];

/* The setting called key, or NULL. With t, as the file names it: a
 * per-table one as KEY.TABLE ("fields.procs", *t set to the table; -1 for
 * the others); without, by its key alone ("delay", "fields"). */
const struct tui_setting *tui_setting_find(const char *key, int *t);
/*
 * Parse val as setting st (of table t when per table) into s: 0, or
 * -EINVAL with why saying what is expected ("expected seconds, 0.1 to
 * 86400"); s is then unchanged.
 */
int tui_setting_parse(const struct tui_setting *st, int t,
		      struct tui_settings *s, const char *val, char *why,
		      size_t whylen);
/* The value of st (of table t) in s as the file holds it; false when it
 * has none to write (a table's sort left to the view). */
bool tui_setting_format(const struct tui_setting *st, int t,
			const struct tui_settings *s, char *buf, size_t len);
/* What st takes, as --help says it ("seconds, 0.1 to 86400"). */
void tui_setting_expects(const struct tui_setting *st, char *buf, size_t len);
/* For --help and the manual: st's name in the file (KEY or KEY.TABLE)
 * and one line on it: what it is, takes and what else sets it. */
void tui_setting_doc(const struct tui_setting *st, char *name, size_t namelen,
		     char *line, size_t linelen);

/* Defaults: 2 s, per process, the field table's default columns with the
 * kernel's Pss moved beside effective resident. */
void tui_settings_init(struct tui_settings *s);

/* The keys of a -1 terminated field list joined by commas. */
void tui_fields_format(const int *fields, char *buf, size_t len);
/* Number of fields in a -1 terminated list. */
size_t tui_fields_count(const int *fields);

/*
 * The settings file path: $XDG_CONFIG_HOME/exmtop/exmtoprc, else
 * $HOME/.config/exmtop/exmtoprc. -ENOENT when neither is set.
 */
int tui_settings_path(char *buf, size_t len);
/*
 * Read path into s (which keeps its values for keys not in the file).
 * 0; -ENOENT when there is no file (not an error for the caller);
 * other -errno on read errors. Bad lines are skipped; the first is
 * described in warn (may be NULL).
 */
int tui_settings_load(struct tui_settings *s, const char *path, char *warn,
		      size_t warnlen);
/* Write s to path (creating the directory), atomically. 0 or -errno. */
int tui_settings_save(const struct tui_settings *s, const char *path);

#endif
